/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tui: the interactive top-like view. The public header of src/ui; it knows the model's snapshot and
 * nothing of the sampler: the session hands it a source of snapshots and header figures through
 * callbacks, and tui_run owns the terminal and the loop (poll every tick while data flows, refresh
 * every interval, keys between; idle, it sleeps until a key, a refresh or new data).
 *
 * A replay is the same view with controls: the source also hands it a tui_replay (ui/source.h,
 * with the header figures), whose figures (position, duration, samples per second) the header
 * draws and whose setters the keys call. The view keeps its own copy of what the user chose (pause,
 * speed, range) and calls a setter only when that changes, so the engine just stores what it is
 * told.
 */
#ifndef PERFTOP_TUI_H
#define PERFTOP_TUI_H

#include <stdbool.h>
#include <stdint.h>

#include "model/snapshot.h"
#include "model/zoom.h"
#include "ui/source.h"

/* The view's settings a user can change with keys, as they are at quit (tui_source.at_quit). */
struct tui_settings {
	enum snap_col order;
	bool invert, zero, raw_names, icicle;
	unsigned hidden_cols;
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
	/* The time modes' run-queue view at start (RUNQ_ALL: everything); the r key cycles it. */
	enum runq_view runq;
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
	/* The rest of the settings kept across runs (main.c, settings/settings.h), at start: the
	 * order inverted (I), the columns hidden in the F2 setup, flame graphs as icicles (v). */
	bool invert;
	unsigned hidden_cols;
	bool icicle;
	/* Not NULL: filled at quit with the settings as the user left them. */
	struct tui_settings *at_quit;
	/* A new snapshot of another names generation (model/snapshot.h names_gen): the pointer of a
	 * name kept from the older one (a view's function, the zoom) in the new generation. NULL:
	 * names never move. */
	frame_rename_fn move_name;
	/* Several events (nevents > 1): the one shown at start, and Tab's switch to event ev: shown
	 * (the snapshot the view holds, of the event shown until now) goes back to the source, which
	 * returns ev's snapshot of the same window (the view frees it), or NULL when it has none yet
	 * (the view then asks a refresh). The header callback names the event shown. */
	int nevents;
	int event;
	struct snapshot *(*switch_event)(void *ctx, int ev, struct snapshot *shown);
	/* The w key: write the window on screen (the last refresh's, its zoom, and only the stacks
	 * filter matches: model/filter.h) to path, in the format its name says (export/export.h);
	 * writes what happened in msg ("wrote ...", or the error). NULL: the key says it cannot. */
	int (*export_window)(void *ctx, const char *path, const char *filter, char *msg, size_t len);
	/* A live view paused (hold true) or resumed: its windows go on ending, but the one on screen
	 * stays what w writes until the resume. NULL: nothing to hold. */
	void (*hold_window)(void *ctx, bool hold);
};

/* Runs the view until q (or Ctrl-C, SIGTERM). The terminal is restored on every exit path.
 * Returns 0, or 1 when the terminal could not be set up (with a message on stderr). */
int tui_run(const struct tui_source *src);

#endif
