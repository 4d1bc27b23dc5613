/*
 * tui: the interactive top-like view. The public header of src/ui; it knows the model's snapshot and
 * nothing of the sampler: the session hands it a source of snapshots and header figures through
 * callbacks, and tui_run owns the terminal and the loop (poll every tick, refresh every interval,
 * keys between).
 */
#ifndef PERFTOP_TUI_H
#define PERFTOP_TUI_H

#include <stdbool.h>
#include <stdint.h>

#include "model/snapshot.h"

struct view_header {
	const char *target;        /* "command: python3 -c ...", "pid 4242", "all CPUs", "CPUs 0-1" */
	const char *event;         /* "cpu-clock" */
	uint64_t freq;             /* Hz, or 0 when sampling by period */
	uint64_t period;
	double samples_per_sec;    /* over the last window */
	uint64_t lost;             /* session totals */
	uint64_t dropped;
	double elapsed;            /* seconds since start */
	const char *notice;        /* a one-line notice (event fallback, a warning) or NULL */
	bool target_exited;        /* the profiled command / processes are gone: data is final */
	const char *exit_text;     /* "python3 exited with status 0" when target_exited */
};

struct tui_source {
	void *ctx;
	/* Takes in what the sampler produced so far; called every tick (about 50 ms). */
	void (*poll)(void *ctx);
	/* Ends the refresh window (decay, or zero when zero is set) and returns a new snapshot in the given
	 * order; the caller (tui) frees it with snapshot_free. */
	struct snapshot *(*refresh)(void *ctx, enum snap_col order, bool zero);
	void (*header)(void *ctx, struct view_header *h);
	double refresh_secs;       /* -d */
	bool zero;                 /* -z at start; the z key toggles it */
};

/* Runs the view until q (or Ctrl-C, SIGTERM). The terminal is restored on every exit path.
 * Returns 0, or 1 when the terminal could not be set up (with a message on stderr). */
int tui_run(const struct tui_source *src);

#endif
