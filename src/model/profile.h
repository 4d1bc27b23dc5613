/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile: hot-function aggregation, like perf's histograms with --sort.
 *
 * A row is identified by the values of the sort keys (-s dso,sym by default; also comm, pid, tid,
 * srcline). Each sample adds its period to Self of the row of the function that holds its address
 * (the first frame that is not inlined: inline frames come before the function they were expanded
 * from, as perf's sym rows keep the ELF symbol) with the address's own srcline (frame 0's), and to
 * Total of every row that appears anywhere in its frames, inline frames included, once per sample. Between refreshes the histogram
 * decays (period and sample counts x7/8, rows that fade below what a view can show are dropped: model/decay.h) like perf top's, or is
 * zeroed (-z). Percentages are of the total period currently held.
 *
 * Strings in frames and sample contexts are interned by the caller (stable pointers, equal names are
 * equal pointers); the profile keeps the pointers, never copies. Rows are found by pointer identity,
 * but a row's id hashes the string contents, so it is the same across refreshes and across runs.
 *
 * Time modes (--off-cpu, --wall: enum profile_mode): periods are nanoseconds, and a sample may be
 * a piece of an off-CPU block (sample_ctx.state, block_begins, block_ns). Rows then also count the
 * blocks that begin on them and the longest one, and keep apart the part of every count that is
 * run-queue waits (states R and R+), so that a snapshot can leave those out or show them alone
 * (snapshot_runq) at any time, live or paused, without starting the aggregation over. The profile
 * also keeps the decayed sum of its windows' lengths (profile_add_window_secs), the denominator of
 * the per-second figures of the table (Time, Blocks/s).
 *
 * A profile belongs to one thread (the one that symbolizes and draws); it takes no locks.
 *
 * The order of a refresh: profile_snapshot() first, then profile_end_window(). The snapshot reports
 * the window counters (samples and lost in the window), which end_window resets.
 */
#ifndef PERFTOP_PROFILE_H
#define PERFTOP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/frame.h"

/* SORT_STATE: how the thread left the CPU (sample_ctx.state: S, D, R+ ...; profile_state_name). */
/* SORT_CGROUP: the cgroup's path (sample_ctx.cgroup); SORT_CONTAINER: the short name people know
 * for it (a container's name or id, a pod, a systemd unit, "host": sample_ctx.container). */
enum sort_key { SORT_COMM, SORT_PID, SORT_TID, SORT_DSO, SORT_SYM, SORT_SRCLINE, SORT_STATE,
		SORT_CGROUP, SORT_CONTAINER, SORT_KEY_COUNT };
#define PROFILE_MAX_KEYS 9
#define SORT_KEYS_DEFAULT "dso,sym"

/* Parses "dso,sym" / "comm" / "pid,sym" ... (case-insensitive, spaces around names allowed, a
 * repeated key is ignored). Returns the number of keys, or -1 with a one-line message naming the
 * bad key in err. */
int sort_keys_parse(const char *spec, enum sort_key *keys, int max, char *err, size_t errlen);
const char *sort_key_name(enum sort_key k);

/* What the periods count: samples of an event (its period), or time in nanoseconds: off-CPU
 * (--off-cpu: blocks, sampler/offcpu.h) or wall (--wall: on-CPU samples of cpu-clock, whose period
 * is nanoseconds, and off-CPU blocks in one profile). */
enum profile_mode { PROFILE_SAMPLES, PROFILE_OFFCPU, PROFILE_WALL };
/* "cpu", "off-cpu", "wall" (batch JSON's "mode"); "samples", "off-CPU", "wall" (the views'). */
const char *profile_mode_name(enum profile_mode m);
const char *profile_mode_title(enum profile_mode m);

/*
 * The states of sample_ctx.state, by the numbers of sampler/offcpu.h's enum offcpu_state (the model
 * keeps its own table of names rather than include a sampler header: "S", "D", "R", "R+", "T",
 * "t", "X", "Z", "P", "I", "?"), and "on-CPU" for 0, an ordinary sample (--wall's on-CPU time).
 */
#define PROFILE_STATE_R 3         /* OFFCPU_R: gave the CPU up, runnable */
#define PROFILE_STATE_R_PREEMPTED 4 /* OFFCPU_R_PREEMPTED: R+ */
#define PROFILE_NSTATES 12        /* OFFCPU_NSTATES */
const char *profile_state_name(unsigned state);
/* A run-queue wait (R, R+), as offcpu_state_is_runq says. */
static inline bool profile_state_is_runq(unsigned state)
{
	return state == PROFILE_STATE_R || state == PROFILE_STATE_R_PREEMPTED;
}

/* What a view shows of the run-queue waits (the r key): everything, everything but them, or them
 * alone. Applied to snapshots (snapshot_runq), never to what the profile takes in, so it switches
 * at any time. */
enum runq_view { RUNQ_ALL, RUNQ_HIDE, RUNQ_ONLY };
/* A count seen through v: all of it, all minus its run-queue part, or that part. */
static inline uint64_t runq_pick(enum runq_view v, uint64_t all, uint64_t runq)
{
	return v == RUNQ_ALL ? all : v == RUNQ_HIDE ? all - runq : runq;
}
/* The run-queue part of that count, shown being runq_pick's value (a copy seen through v keeps its
 * counts consistent: seen through v again, it stays the same). */
static inline uint64_t runq_pick_part(enum runq_view v, uint64_t shown, uint64_t runq)
{
	return v == RUNQ_ALL ? runq : v == RUNQ_HIDE ? 0 : shown;
}

struct sample_ctx {
	const char *comm;          /* interned */
	uint32_t pid, tid;
	uint64_t period;
	/* A piece of an off-CPU block (period: its nanoseconds); state 0 (OFFCPU_NONE): an ordinary
	 * sample (in --wall, on-CPU time). */
	uint8_t state;             /* enum offcpu_state (sampler/offcpu.h) */
	bool block_begins;         /* the block's first piece: counts once in the blocks */
	uint64_t block_ns;         /* the block's length up to the end of this piece */
	const struct frame *frames; /* leaf first, then callers */
	int nframes;
	/* Where the task ran (interned; NULL when unknown): its cgroup's path and the container's
	 * short name; and its pid and tid as its own pid namespace numbers them (0: unknown or the
	 * same as pid and tid), shown beside the pid and tid keys, never part of a row's identity. */
	const char *cgroup, *container;
	uint32_t nspid, nstid;
};

/* One aggregated row as the profile holds it. Key fields not in use are NULL / 0. */
struct profile_row {
	uint64_t id;               /* stable hash of the key values' contents, never 0 */
	const char *comm;
	uint32_t pid, tid;
	const char *dso, *sym, *srcline;
	uint64_t self_period;      /* period of the samples whose leaf is this row (decayed) */
	uint64_t total_period;     /* period of the samples with this row anywhere (decayed) */
	uint64_t samples;          /* samples whose leaf is this row (decayed) */
	/* The process with most of the row's samples: a Boyer-Moore majority vote over the samples
	 * that count in Total (exact when one process has more than half, a recent heavy one
	 * otherwise), one pid per row rather than a per-row map of processes. */
	uint32_t main_pid;
	uint8_t state;             /* the state key's value (0 when not a key) */
	const char *main_comm;
	const char *cgroup, *container; /* when keys (NULL otherwise) */
	uint32_t nspid, nstid;     /* with the pid / tid keys: the namespace's numbers (0: none) */
	const char *main_container; /* the container of main_pid's samples (the filter's) */
};

/* The run-queue part (states R, R+) of a row's counts (see profile_time). */
struct profile_runq {
	uint64_t self_period, total_period, samples, blocks, total_blocks;
	uint64_t longest_ns;       /* the longest run-queue block of the window (as Total) */
	uint64_t other_longest_ns; /* the longest in any other state (a max does not subtract) */
};

/*
 * What a row has beside it once off-CPU pieces come (profile_times; a sampling profile never
 * allocates them, so its rows cost what they did):
 *  - blocks: the blocks whose first piece (sample_ctx.block_begins) has the row as Self,
 *    decayed like samples; total_blocks those with the row anywhere on the stack (an off-CPU
 *    stack's leaf is the kernel's scheduler, so the functions that blocked have them in Total
 *    unless K hides the kernel frames);
 *  - longest_ns: the longest block (block_ns) seen with the row anywhere on the stack (as Total)
 *    in the current window. A
 *    max cannot decay like a sum, so it starts over at every window end (and with -z), and the
 *    snapshot of a window reports that window's; a paused view keeps showing its snapshot's;
 *  - runq: the part of each count (the row's self_period, total_period, samples too) that is
 *    run-queue waits; the rest is the count minus it.
 */
struct profile_time {
	uint64_t blocks, total_blocks;
	uint64_t longest_ns;
	struct profile_runq runq;
};

struct profile;

/* keys == NULL or nkeys == 0 means the default (dso,sym); repeated keys are ignored. */
struct profile *profile_new(const enum sort_key *keys, int nkeys);
void profile_free(struct profile *p);

/* Adds one sample. A sample without frames (nframes <= 0) makes no row, but its period still counts
 * in the total period, so the percentages of the rows stay shares of everything sampled. Allocates
 * only when a new row appears. */
void profile_add(struct profile *p, const struct sample_ctx *s);
/*
 * The same for a sample whose frames come again and again (a replay's call chains): profile_add_rows
 * adds it and writes where its rows are (nframes + 1 indices: the Self row, then one per frame);
 * profile_add_again adds the same comm, pid, tid and frames (any period) to those rows without
 * looking them up, as long as profile_layout() has not changed since (a window's end, a move of the
 * names). The counts are exactly profile_add's.
 */
void profile_add_rows(struct profile *p, const struct sample_ctx *s, uint32_t *rows);
void profile_add_again(struct profile *p, const struct sample_ctx *s, const uint32_t *rows);
uint64_t profile_layout(const struct profile *p);
/* Counts lost samples in the current window. */
void profile_add_lost(struct profile *p, uint64_t lost);

/* What the periods count (PROFILE_SAMPLES at start); the snapshots carry it to the views. */
void profile_set_mode(struct profile *p, enum profile_mode mode);
enum profile_mode profile_mode(const struct profile *p);
/* The length of the window that ends now (seconds of the session's clock: wall time live, recorded
 * time in a replay), before its snapshot. The profile holds the sum of its windows' lengths,
 * decayed x7/8 at every window end like the rows (zeroed with them), so that a row's period over
 * it is a rate: for a steady rate r per second the decayed period and the decayed seconds both
 * sum the same weights, and their ratio is r. */
void profile_add_window_secs(struct profile *p, double secs);
double profile_held_secs(const struct profile *p);
double profile_window_secs(const struct profile *p); /* what was given for the current window */

/* End of a refresh window: decay x7/8 (or zero everything when zero is true) and reset the window
 * counters. Take the window's snapshot before calling this. The decay is integer (x * 7 / 8) per row,
 * and the total period drops by exactly what the rows' Self lost, so Self% keeps summing to 100
 * instead of drifting with the rounding. Rows whose Total has faded below 0.005% of the total are
 * dropped; the Self they still held stays in the total, held without a row. */
void profile_end_window(struct profile *p, bool zero);

/* The names were compacted (util/frame.h): every name a row holds becomes rename(ctx, name). */
void profile_move_names(struct profile *p, frame_rename_fn rename, void *ctx);

int profile_nkeys(const struct profile *p);
const enum sort_key *profile_keys(const struct profile *p);
bool profile_has_key(const struct profile *p, enum sort_key k);

/* The rows, in no particular order; valid until the next profile_add or profile_end_window. */
size_t profile_nrows(const struct profile *p);
const struct profile_row *profile_rows(const struct profile *p);
/* Their time-mode figures, index for index; NULL until a piece of an off-CPU block came. */
const struct profile_time *profile_times(const struct profile *p);

uint64_t profile_total_period(const struct profile *p); /* the denominator of the percentages */
uint64_t profile_runq_period(const struct profile *p);  /* the run-queue part of the total */
uint64_t profile_held_samples(const struct profile *p); /* samples held (decayed) */
uint64_t profile_window_samples(const struct profile *p);
uint64_t profile_window_lost(const struct profile *p);

#endif
