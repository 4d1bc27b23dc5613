/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source: what a source of snapshots hands the view besides the snapshots, every tick: the header
 * figures, and for a replay its controls. The keys and the frame read these, the loop (tui.c) fills
 * them in; tui.h has the rest of the contract with the session.
 */
#ifndef PERFTOP_SOURCE_H
#define PERFTOP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct view_header {
	const char *target;        /* "command: python3 -c ...", "pid 4242", "all CPUs", "CPUs 0-1" */
	const char *event;         /* "cpu-clock": the event shown */
	int event_index, nevents;  /* several events: which one is shown (0..), of how many */
	uint64_t freq;             /* Hz, or 0 when sampling by period */
	uint64_t period;
	double samples_per_sec;    /* over the last window */
	uint64_t lost;             /* session totals */
	uint64_t dropped;
	bool dwarf;                /* stacks are DWARF-unwound (--call-graph dwarf): unwound is shown */
	double unwound;            /* % of the user stacks unwound to the thread's root */
	double elapsed;            /* seconds since start */
	const char *notice;        /* a one-line notice (event fallback, a warning) or NULL */
	bool target_exited;        /* the profiled command / processes are gone: data is final */
	const char *exit_text;     /* "python3 exited with status 0" when target_exited */
	/* The counters line under the mode line, shown when counters is set (a live session): rates
	 * per second over the last window; a counter this machine cannot count is < 0 and shows "—"
	 * (cycles, instructions, IPC, cache and branch misses without a PMU). */
	bool counters;
	double ctx_switches, migrations, page_faults;
	double cycles, instructions, ipc, cache_misses, branch_misses;
	bool multiplexed;          /* the hardware values are estimates (scaled) */
	uint64_t throttled;
	double self_cpu;           /* perftop's own CPU%, < 0: unknown */
	/* --push: the push's totals (sent and dropped profiles, failed requests), shown when push
	 * is set. */
	bool push;
	uint64_t push_sent, push_failed, push_dropped;

	/* Filled by tui_run (not by the source's header callback) from tui_source.replay and .info. */
	bool replay;               /* a recording is played: position, sparkline, replay keys */
	bool stream;               /* it is a stream still coming in (-i -): its end is not the end */
	double position, duration; /* seconds of recorded time */
	const uint64_t *hist;      /* samples in each second of the recording (hist[i]: [i, i+1) s) */
	size_t nhist;
	const char *const *info;   /* the i view's lines ("Name: value"), while that view is open */
	size_t ninfo;
};

/* set_speed's argument for "as fast as it can go" (a factor of 0 would mean stopped, which is what
 * set_paused says instead, so it is free to mean "no pacing"). */
#define TUI_SPEED_MAX 0.0
/* set_range's value for an end that is not set (from the beginning / to the end). */
#define TUI_RANGE_NONE (-1.0)

/* What a replaying source offers the view. Every callback gets tui_source.ctx. The source starts
 * playing at 1x from 0 s with no range, which is what the view shows at start; after that the view
 * calls a setter only when the user changes that setting. The getters are called every tick
 * (about 50 ms) and must be cheap. */
struct tui_replay {
	double (*duration)(void *ctx); /* seconds of recorded time (may grow, e.g. reading a pipe) */
	double (*position)(void *ctx); /* seconds from the start of the recording */
	/* Samples per second over the whole recording: *n bins of one second, bin i counting the
	 * samples with time in [i, i+1) s from the start. The array stays the source's and must stay
	 * valid until the next call. NULL (or *n == 0): no sparkline. */
	const uint64_t *(*histogram)(void *ctx, size_t *n);
	void (*set_paused)(void *ctx, bool paused);
	/* Recorded seconds per wall second: 0.25, 0.5, 1, 2, 4, 8, 16, or TUI_SPEED_MAX. */
	void (*set_speed)(void *ctx, double speed);
	/* Jump to secs (clamped by the view to [0, duration]); the table should then show data from
	 * there, so the view asks for a snapshot right after, even when paused. */
	void (*seek)(void *ctx, double secs);
	/* The table aggregates samples with start <= time < end (seconds; TUI_RANGE_NONE for an open
	 * end; both NONE: no range, the table is back to the usual refresh windows). A snapshot is
	 * asked for right after. */
	void (*set_range)(void *ctx, double start, double end);
};

#endif
