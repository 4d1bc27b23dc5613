/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay: a perf.data file as the session's source, played in recorded time.
 *
 * The engine owns a perfdata reader and pushes records into a sink (the session: side-band records
 * to the symbolizer, samples to the profile). It knows nothing of the view: the TUI's controls
 * (pause, speed, seek, range, the sparkline) and batch mode's windows are both built on the calls
 * below. Time is recorded time, in seconds from the first sample of the events played.
 *
 * Which records reach the sink: every side-band record (MMAP, COMM, FORK, EXIT, LOST...), so that
 * the address spaces are right wherever playback is; samples only of the events played and only
 * inside the range. The events played: the one --select-event names, or every event of the file
 * but perf's side-band-only dummy ones, numbered 0.. in the file's order (replay_event_of).
 */
#ifndef PERFTOP_REPLAY_H
#define PERFTOP_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdata/perfdata.h"
#include "record/record.h"

struct replay_sink {
	void *ctx;
	void (*record)(void *ctx, const struct rec *r);
	/* A seek starts over: the sink drops what it aggregated (the symbolizer may stay). */
	void (*reset)(void *ctx);
	/* The recording's build-id of a file it mapped (perfdata_build_ids): each pair once, before
	 * the first record fed after the reader met it; NULL: not wanted. */
	void (*build_id)(void *ctx, const char *path, const uint8_t *bid, size_t len);
};

struct replay_opts {
	const char *path;          /* "-" = stdin (pipe mode) */
	/* Several files of one session (-i A -i B: perf record --switch-output's), played as one in
	 * this order; npaths 0 or 1: path alone. */
	const char *const *paths;
	size_t npaths;
	const char *event;         /* --select-event NAME, or NULL: every event with samples */
	bool scan;                 /* read the file once at open for the duration and the histogram */
	bool no_histogram;         /* nothing reads the histogram (batch): it is not kept */
	/* A stream (-i -) is read on a thread and a tick feeds what has come, never waiting for the
	 * producer (the view must stay live); without, reading waits for the records (batch). */
	bool nowait;
};

struct replay;

/* NULL with a one-line message in err ("not a perf.data file", "no event named ..."). */
struct replay *replay_open(const struct replay_opts *o, const struct replay_sink *sink, char *err,
			   size_t errlen);
void replay_close(struct replay *rp);

/* The events played (at least one); a record's event (rec.evidx, the file's) among them, or -1
 * for one not played (a dummy, or not the --select-event one). */
size_t replay_nevents(const struct replay *rp);
int replay_event_of(const struct replay *rp, uint32_t evidx);
/* The first event played that has samples (known after the scan at open), else 0. */
size_t replay_start_event(const struct replay *rp);
/* Played event k's name, and how it sampled: a frequency (Hz), or a period when freq is 0. */
const char *replay_event_name(const struct replay *rp, size_t k);
void replay_event_rate(const struct replay *rp, size_t k, uint64_t *freq, uint64_t *period);
/* True when a played event's samples carry user stacks (--call-graph dwarf): their user frames
 * come from unwinding. */
bool replay_user_stacks(const struct replay *rp);
const char *replay_path(const struct replay *rp);
/* The recording machine's sched:sched_switch format file (perfdata_info.switch_format), or NULL. */
const char *replay_switch_format(const struct replay *rp);
bool replay_seekable(const struct replay *rp);

/* Seconds from the first to the last sample; known after the scan, else once the end is reached
 * (until then, the position so far). */
double replay_duration(const struct replay *rp);
/* Samples of the played events per second of the recording (after a scan; else what was read so
 * far). Valid until the next replay call. */
const uint64_t *replay_histogram(const struct replay *rp, size_t *nsecs);

/* Where playback is: every record up to this recorded time has been fed. */
double replay_position(const struct replay *rp);
/* True once every record has been fed. */
bool replay_at_end(const struct replay *rp);
/* True when the input is a pipe followed as it arrives (perfdata_is_stream): its end so far is
 * not the end. */
bool replay_is_stream(const struct replay *rp);

/* Samples outside [start, end) (seconds) are not fed; start < 0: from the start, end < 0 or an end at
 * the recording's known end: to the end (TUI_RANGE_NONE). */
void replay_set_range(struct replay *rp, double start, double end);
void replay_get_range(const struct replay *rp, double *start, double *end);

/* Feeds records up to recorded time t (>= the position). Returns the number of records fed. */
long replay_advance(struct replay *rp, double t);
/* Starts over (reset, re-read from the start) and feeds up to t: side-band records all, samples
 * inside the range. 0, or -ESPIPE for a pipe. */
int replay_seek(struct replay *rp, double t);

/* Playback clock for a live-like view: speed x recorded seconds per wall second (<= 0: as fast
 * as it can go, a bounded number of records per tick). */
void replay_set_speed(struct replay *rp, double speed);
double replay_speed(const struct replay *rp);
void replay_set_paused(struct replay *rp, bool paused);
bool replay_paused(const struct replay *rp);
/* Called at each tick of the view with the wall clock (ns): advances as the speed says. Returns
 * the number of records fed. */
long replay_tick(struct replay *rp, uint64_t wall_ns);

/* The header info as "name: value" lines (owned by the replay). */
char *const *replay_header_lines(const struct replay *rp, size_t *n);
/* The reader's counts as of the records fed so far (and those its thread has read ahead). */
void replay_get_stats(const struct replay *rp, struct perfdata_stats *st);
/* The one-line warning to show after a replay (cut short, reading stopped, records skipped), or
 * NULL when all went well. */
const char *replay_warning(struct replay *rp);

#endif
