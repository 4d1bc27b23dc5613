/*
 * tui: the interactive top-like view. The public header of src/ui; it knows the model's snapshot and
 * nothing of the sampler: the session hands it a source of snapshots and header figures through
 * callbacks, and tui_run owns the terminal and the loop (poll every tick while data flows, refresh
 * every interval, keys between; idle, it sleeps until a key, a refresh or new data).
 *
 * A replay is the same view with controls: the source also hands it a tui_replay, whose figures
 * (position, duration, samples per second) the header draws and whose setters the keys call. The
 * view keeps its own copy of what the user chose (pause, speed, range) and calls a setter only when
 * that changes, so the engine just stores what it is told.
 */
#ifndef PERFTOP_TUI_H
#define PERFTOP_TUI_H

#include <stdbool.h>
#include <stdint.h>

#include "model/snapshot.h"
#include "model/zoom.h"

struct view_header {
	const char *target;        /* "command: python3 -c ...", "pid 4242", "all CPUs", "CPUs 0-1" */
	const char *event;         /* "cpu-clock" */
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

	/* Filled by tui_run (not by the source's header callback) from tui_source.replay and .info. */
	bool replay;               /* a recording is played: position, sparkline, replay keys */
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

struct tui_source {
	void *ctx;
	/* Takes in what the sampler produced so far; called every tick (about 50 ms) while it
	 * returns > 0 (records taken: data is flowing). When it returns 0 the view sleeps until a key,
	 * the next refresh, or wake_fd (below) says there is something to take. */
	long (*poll)(void *ctx);
	/* Readable when poll has something to take (session_wake_fd); -1: none, and an idle view
	 * then wakes at its refreshes only. */
	int wake_fd;
	/* Ends the refresh window (decay, or zero when zero is set) and returns a new snapshot in the given
	 * order; the caller (tui) frees it with snapshot_free. */
	struct snapshot *(*refresh)(void *ctx, enum snap_col order, bool zero);
	void (*header)(void *ctx, struct view_header *h);
	double refresh_secs;       /* -d */
	bool zero;                 /* -z at start; the z key toggles it */
	enum snap_col order;       /* the order at start (COL_SELF; COL_DELTA with --diff) */
	/* NULL for a live session. While a replay is paused, refresh is not called on its schedule,
	 * only once after a seek or a range change. refresh may return NULL to keep the snapshot on
	 * screen (e.g. at the end of the recording, so the last table does not decay away). */
	const struct tui_replay *replay;
	/* The lines of the i view: "Name: value" strings (hostname, OS release, perf version, arch,
	 * CPUs, CPU description, CPUID, memory, command line, topology, PMU mappings, event groups,
	 * build-ids); a line that starts with a space continues the value above. The array and
	 * strings stay the source's, valid until the next call; called every tick while the view is
	 * open. NULL: the view says there is nothing to show. */
	const char *const *(*info)(void *ctx, size_t *n);
	/* The m key: show the rows of snap (and of later snapshots) with demangled or raw symbol
	 * names; snap is brought into the names' current generation on the way (move_name below
	 * re-points what the views keep first). NULL: the key does nothing. demangle is the state at
	 * start (--no-demangle). */
	void (*rename)(void *ctx, struct snapshot *snap, bool demangle);
	bool demangle;
	/* The a key: the annotated code of function raw_sym of dso (a row's; dso NULL: any) for the
	 * window of the last snapshot (model/annotate.h), asked for when the view opens and on every
	 * snapshot after; the view frees it with annotate_doc_free. NULL: annotate is unavailable. */
	struct an_doc *(*annotate)(void *ctx, const char *raw_sym, const char *dso);
	/* The zoom keys (t d K U, Esc): from now on aggregate only what z keeps (model/zoom.h),
	 * starting over; a snapshot is asked for right after. NULL: the zoom keys do nothing. */
	void (*set_zoom)(void *ctx, const struct sample_zoom *z);
	bool no_mouse;             /* --no-mouse: leave the mouse to the terminal */
	/* A new snapshot of another names generation (model/snapshot.h names_gen): the pointer of a
	 * name kept from the older one (a view's function, the zoom) in the new generation. NULL:
	 * names never move. */
	frame_rename_fn move_name;
};

/* Runs the view until q (or Ctrl-C, SIGTERM). The terminal is restored on every exit path.
 * Returns 0, or 1 when the terminal could not be set up (with a message on stderr). */
int tui_run(const struct tui_source *src);

#endif
