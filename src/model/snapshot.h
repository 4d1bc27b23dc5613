/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snapshot: the plain, immutable picture of a profile that the views read: rows with stable ids,
 * names and percentages, sorted by the chosen column. A snapshot owns its row array (the strings are
 * the interned ones); the view may hold one while the model moves on, so it never tears.
 *
 * In the time modes (--off-cpu, --wall: snapshot.mode) periods are nanoseconds; the table then
 * shows per-second figures, each a count over held_secs (the windows' lengths, decayed like the
 * counts: profile_add_window_secs), instead of Samples: Time (Self seconds per second, the average
 * number of threads blocked or running there), Blocks/s and the Longest block of the window.
 */
#ifndef PERFTOP_SNAPSHOT_H
#define PERFTOP_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/calltree.h"
#include "model/profile.h"

/* The columns a table may have and may be ordered by. COL_STATE is the state key's; COL_TIME,
 * COL_BLOCKS and COL_LONGEST are the time modes' (COL_TIME orders like COL_SELF: it is Self over
 * the same seconds). New ones go last: view_state.hidden_cols keeps bits by these numbers. */
enum snap_col { COL_SELF, COL_TOTAL, COL_SAMPLES, COL_COMM, COL_PID, COL_TID, COL_SYM, COL_DSO,
		COL_SRCLINE, COL_DELTA, COL_STATE, COL_TIME, COL_BLOCKS, COL_LONGEST, COL_CGROUP,
		COL_CONTAINER, COL_COUNT };

/* A row against a --diff baseline (model/diff.h): on both sides, only now, or only in the base. */
enum snap_diff { SNAP_DIFF_NONE, SNAP_DIFF_BOTH, SNAP_DIFF_NEW, SNAP_DIFF_GONE };

struct snap_row {
	uint64_t id;               /* stable: a hash of the key values, the same across refreshes */
	const char *comm;          /* set when comm is a sort key, else NULL */
	uint32_t pid, tid;         /* set when pid / tid is a key */
	const char *dso, *sym, *srcline; /* set when a key; sym as shown (the session may demangle it) */
	const char *raw_sym;       /* the profile's symbol (the row's identity), whatever sym shows */
	double self_pct, total_pct;
	uint64_t samples;          /* samples whose leaf is this row (decayed) */
	uint64_t self_period, total_period;
	/* Time modes (profile.h struct profile_time): blocks, the window's longest block, the
	 * run-queue part of the counts (what snapshot_runq takes out or keeps); in an array of the
	 * snapshot's (snapshot.times; a copy's rows point into its original's), NULL when there are
	 * none (sampling). snap_row_blocks and the others read it. */
	const struct profile_time *time;
	/* With a baseline (snapshot.diff): Self% in the base, Self% now minus that, and the side. */
	double base_self, delta;
	enum snap_diff diff;
	/* The process that contributed most samples to the row (a majority vote, see profile.h):
	 * what t zooms into when the row has no comm/pid/tid key. */
	uint32_t main_pid;
	uint8_t state;             /* set when state is a key (profile_state_name) */
	const char *main_comm;
	const char *cgroup, *container; /* set when keys, else NULL */
	uint32_t nspid, nstid;     /* beside pid / tid: the numbers in the task's pid namespace (0: none) */
	const char *main_container; /* main_pid's container, when known (the filter matches it) */
};

/* A pid or tid as the pid and tid keys show it: "1234", or "1234 (7)" when the task's own pid
 * namespace numbers it otherwise (nsid: its number there, 0 when none). */
void snap_pid_text(uint32_t id, uint32_t nsid, char *buf, size_t len);

static inline uint64_t snap_row_blocks(const struct snap_row *r)
{
	return r->time ? r->time->blocks : 0;
}

static inline uint64_t snap_row_total_blocks(const struct snap_row *r)
{
	return r->time ? r->time->total_blocks : 0;
}

static inline uint64_t snap_row_longest_ns(const struct snap_row *r)
{
	return r->time ? r->time->longest_ns : 0;
}

struct snapshot {
	struct snap_row *rows;
	size_t nrows;
	uint64_t total_period;     /* the denominator of the percentages */
	uint64_t window_samples;   /* samples added in the window that ended with this snapshot */
	uint64_t window_lost;
	uint64_t held_samples;     /* samples currently held (decayed) */
	uint64_t runq_period;      /* the run-queue part of total_period */
	enum profile_mode mode;    /* what the periods count (profile_set_mode) */
	double window_secs;        /* the length of the window that ended with it (0: not told) */
	double held_secs;          /* the per-second figures' denominator (profile_held_secs) */
	enum runq_view runq;       /* what it shows of the run-queue waits (snapshot_runq) */
	struct profile_time *times; /* what the rows' time point into (owned), or NULL */
	enum sort_key keys[PROFILE_MAX_KEYS];
	int nkeys;
	enum snap_col order;
	bool diff;                 /* rows carry a baseline's figures (--diff): the Δ column */
	/* The call tree of the same window, for the drill-down views, or NULL (a source without
	 * stacks, batch mode). Owned by the snapshot: snapshot_free frees it. */
	struct ct_snapshot *tree;
	bool tree_borrowed;        /* a filtered copy (model/filter.h): the tree is its original's */
	/* The names' generation (util/frame.h): names of two snapshots of one generation compare by
	 * pointer. The owner of the names keeps them alive while the snapshot lives (a view may show
	 * it after the pool has moved on): snapshot_free calls names_release(names_hold). */
	uint64_t names_gen;
	void *names_hold;
	void (*names_release)(void *hold);
};

/* A snapshot of p's current state ordered by col (numbers descending, names ascending). */
struct snapshot *profile_snapshot(const struct profile *p, enum snap_col order);
/* Re-sorts in place (the view's < and > keys). */
void snapshot_sort(struct snapshot *s, enum snap_col order);
/* Reverses the rows in place: after snapshot_sort, the inverted order (the I key). Every order
 * ends in a full tie-break, so the reverse is itself a well-defined order. */
void snapshot_invert(struct snapshot *s);
void snapshot_free(struct snapshot *s);
/* A copy of full seen through v (profile.h): each row's counts are runq_pick's, and the
 * percentages shares of what is left (as under a zoom: the run-queue waits are taken out of the
 * samples, not hidden as rows are by a filter); rows left with nothing go (a --diff row that is
 * only in the base stays). Ordered again by full's order; the call tree is a copy seen through v
 * (owned), the names are full's: free the copy before full. v RUNQ_ALL: a plain copy. */
struct snapshot *snapshot_runq(const struct snapshot *full, enum runq_view v);
/* True in the time modes (periods are nanoseconds). */
bool snapshot_is_time(const struct snapshot *s);
/* count per second of the held window (0 when there is no window length). */
double snapshot_per_sec(const struct snapshot *s, uint64_t count);
/* Every name of the rows and of the tree becomes rename(ctx, name) (util/frame.h): an older
 * snapshot brought into the names' current generation. The caller sets names_gen and the hold. */
void snapshot_move_names(struct snapshot *s, frame_rename_fn rename, void *ctx);
/* Index of the row with this id, or -1. */
long snapshot_find(const struct snapshot *s, uint64_t id);
const char *snap_col_name(enum snap_col c);

/* A container's share of a window with the container key: the Self% of its rows summed. */
struct snap_share {
	const char *container;
	double pct;
};
/* The max containers with the most Self in s, most first (ties by name); 0 without the container
 * key. The header line of `-s container` tables shows them. */
size_t snapshot_container_shares(const struct snapshot *s, struct snap_share *out, size_t max);

#endif
