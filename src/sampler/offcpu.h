/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * offcpu: off-CPU time from the records of a sched:sched_switch event. A thread's block runs from
 * its switch-out (a sample of the sched_switch event: its stack, its prev_state in the raw fields)
 * to its next switch-in (a context-switch record: PERF_RECORD_SWITCH or SWITCH_CPU_WIDE without
 * MISC_SWITCH_OUT whose pid/tid is the thread; or a sched_switch sample whose next_pid is the thread,
 * when the raw fields' layout is known), and its time is charged to the switch-out stack.
 *
 * The pairing works on struct rec alone (no symbols, no model): the live sampler runs it on its own
 * thread before the queue, so only blocks cross to the rest (a machine switching 100k times a
 * second must not cost a symbolization per switch), and a replay runs it on the file's records.
 * Records go in in time order; what comes out, in order: every record that is neither a switch-out
 * sample nor a switch record, unchanged, and each block as a REC_SAMPLE: the switch-out sample's
 * bytes (evidx, pid, tid, cpu, callchain, user regs and stack) with period = the block's
 * nanoseconds (or of a piece of it, see offcpu_flush), time = the end of that time, and
 * rec_sample.block_ns / block_state / block_begins set (record.h).
 *
 * A block's two ends are marks of the same kind, so that what each lags the switch by cancels out:
 * a block that a sched_switch sample ends (per CPU: the sample naming the thread as next_pid)
 * starts at the switch-out sample, tracepoint to tracepoint as perf sched timehist measures; one
 * that a switch-in record ends (per task, where the kernel gives no tracepoint at the switch-in;
 * or a switch away from an idle CPU) starts at the switch-out record (PERF_RECORD_SWITCH with
 * MISC_SWITCH_OUT), record to record. Each record comes some microseconds after its tracepoint
 * (the sample's call chain is taken in between, and at the switch-in the thread's events are
 * scheduled in first).
 *
 * Accounting rules:
 *  - times are the records' (the kernel's clock), never the process's own; offcpu_flush takes
 *    "now" in that clock (live: CLOCK_MONOTONIC, which the sampler asks the kernel to use);
 *  - a block still open when offcpu_flush runs is emitted up to now as a piece, and goes on from
 *    there: its next piece (or its end) carries only the time since. block_begins is set on the
 *    first piece only, block_ns is the block's length so far on each;
 *  - a block shorter than min_block_ns (or of 0 ns: nothing to charge) is dropped (a piece is
 *    emitted only once the block is min_block_ns long, so a dropped block never had a piece);
 *  - a LOST record (or LOST_SAMPLES) may have hidden switch-ins: the blocks pending since before
 *    its time are dropped, not inflated (counted in dropped_lost);
 *  - a second switch-out of a thread whose switch-in was never seen replaces the first (dropped);
 *  - an EXIT record closes its thread's pending block at the exit's time;
 *  - the idle task (tid 0) never blocks; a switch-out in state X or Z (the task is dying) is not a
 *    block;
 *  - bounded: at most max_pending threads pending and max_bytes of their copied samples; beyond,
 *    the oldest pending block is dropped (dropped_full).
 */
#ifndef PERFTOP_OFFCPU_H
#define PERFTOP_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/record.h"

/* The tracepoint whose samples are the switch-outs. */
#define OFFCPU_SWITCH_EVENT "sched:sched_switch"

/* How a thread left the CPU (the tracepoint's prev_state, as perf sched prints it). */
enum offcpu_state {
	OFFCPU_NONE = 0,   /* not a block (an on-CPU sample) */
	OFFCPU_S,          /* sleeping, interruptible */
	OFFCPU_D,          /* uninterruptible (I/O mostly) */
	OFFCPU_R,          /* runnable: gave the CPU up (yield) */
	OFFCPU_R_PREEMPTED,/* R+: preempted, waiting for a CPU */
	OFFCPU_T,          /* stopped */
	OFFCPU_TRACED,     /* t */
	OFFCPU_X,          /* dead */
	OFFCPU_Z,          /* zombie */
	OFFCPU_P,          /* parked */
	OFFCPU_I,          /* idle kernel thread */
	OFFCPU_OTHER,
	OFFCPU_NSTATES
};

/* "S", "D", "R", "R+", "T", "t", "X", "Z", "P", "I", "?"; "" for OFFCPU_NONE. */
const char *offcpu_state_name(enum offcpu_state s);
/* The state of a sched_switch prev_state value (TASK_REPORT bits; 0x100, TASK_REPORT_MAX, is the
 * preemption mark: R+). */
enum offcpu_state offcpu_state_of(uint64_t prev_state);
/* A run-queue wait (R or R+): what the view can hide or show alone. */
static inline bool offcpu_state_is_runq(unsigned s)
{
	return s == OFFCPU_R || s == OFFCPU_R_PREEMPTED;
}

struct offcpu_opts {
	uint32_t switch_evidx;     /* rec.evidx of the sched_switch event's samples */
	/* Where the raw fields keep prev_state (size 4 or 8) and next_pid (size 4), from the
	 * tracepoint's format file; size 0: unknown (then every switch-out is S unless the switch
	 * record says preempted, and switch-ins come from the switch records only). */
	uint32_t prev_state_off, prev_state_size;
	uint32_t next_pid_off, next_pid_size;
	uint64_t min_block_ns;     /* --min-block */
	uint64_t piece_ns;         /* offcpu_flush emits a piece of a block only after this much
				    * time since its last piece (0: at every flush) */
	size_t max_pending;        /* 0: a default (65536) */
	size_t max_bytes;          /* 0: a default (64 MiB) */
};

struct offcpu_stats {
	uint64_t switch_outs;      /* switch-out samples taken in */
	uint64_t blocks;           /* blocks ended (emitted, last piece) */
	uint64_t pieces;           /* pieces of still-open blocks emitted by offcpu_flush */
	uint64_t pending;          /* blocks open now */
	uint64_t pending_bytes;
	uint64_t dropped_short;    /* shorter than min_block_ns */
	uint64_t dropped_lost;     /* pending across a lost-records gap */
	uint64_t dropped_unpaired; /* a second switch-out without the switch-in between */
	uint64_t dropped_full;     /* over max_pending / max_bytes */
};

typedef void (*offcpu_emit_fn)(void *ctx, const struct rec *r);

struct offcpu;

struct offcpu *offcpu_new(const struct offcpu_opts *o);
void offcpu_free(struct offcpu *oc);
/* Takes one record (time order); emits what it gives (see above) through emit. */
void offcpu_feed(struct offcpu *oc, const struct rec *r, offcpu_emit_fn emit, void *ctx);
/* now, in the records' clock: every block open longer than min_block_ns and piece_ns since its
 * last piece is emitted up to now. A refresh calls it so that a thread still blocked counts up to
 * the refresh. now should not be ahead of records still to be fed (live: the time up to which
 * the sampler's merge has emitted, not the clock): a block whose switch-in turns out earlier
 * than a piece's end ends there, the excess already emitted. */
void offcpu_flush(struct offcpu *oc, uint64_t now, offcpu_emit_fn emit, void *ctx);
/* Every pending block is dropped (the end of a replay's range, a --time jump). */
void offcpu_reset(struct offcpu *oc);
void offcpu_get_stats(const struct offcpu *oc, struct offcpu_stats *st);

/* Reads the layout of sched_switch's raw fields from tracefs' format file (under the tracefs
 * mount point given) into o's prev_state_* and next_pid_*; 0, or -1 (left unknown). */
int offcpu_read_format(const char *tracefs, struct offcpu_opts *o);
/* The same from a format file's text (len bytes, not necessarily NUL-terminated): a perf.data
 * file's tracing data carries the recording machine's. 0 when either field was found (each found
 * one is set, the other left as it was), -1 when neither. */
int offcpu_parse_format(const char *text, size_t len, struct offcpu_opts *o);

#endif
