/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session: the consumer side of the one thread boundary. It owns the sampler, the symbolizer and the
 * profile, drains the sampler's queue (side-band records to the symbolizer, samples resolved and added
 * to the profile) and turns the profile into snapshots for the batch printer and the TUI. Everything
 * here runs on the main thread; the sampler thread is only ever reached through its queue and stats.
 *
 * Several events (-e a,b; a recording of several): one profile, call tree and annotate histogram
 * per event, their windows ending together. One of them is the current event: the one
 * session_refresh returns, session_annotate reads and session_get_status describes; the view
 * switches with session_switch_event, batch takes them all with session_refresh_all.
 */
#ifndef PERFTOP_SESSION_H
#define PERFTOP_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "export/export.h"
#include "model/annotate.h"
#include "model/snapshot.h"
#include "model/zoom.h"
#include "push/push.h"
#include "record/record.h"
#include "sampler/counters.h"
#include "sampler/offcpu.h"
#include "session/session_opts.h"

struct session;

/* Opens everything for the options; NULL with a one-line message in err on failure. */
struct session *session_open(const struct session_opts *opts, char *err, size_t errlen);
/* A replay of the perf.data file opts->input instead of live sampling (same pipeline after the
 * source); NULL with a one-line message in err. */
struct session *session_open_file(const struct session_opts *opts, char *err, size_t errlen);
/* A session whose records its caller hands in (session_feed), in time order: no kernel, no file.
 * Its time is the records' (windows of recorded time, as a replay's); --off-cpu and --wall pair
 * the switches here (opts->offcpu says where sched_switch's fields are). The tests' source. */
struct session_feed_event {
	const char *name;
	uint64_t freq, period;
};
struct session *session_open_feed(const struct session_opts *opts,
				  const struct session_feed_event *evs, int nev, char *err, size_t errlen);
/* Takes one record (sample, side-band, lost) as a replay takes its file's. */
void session_feed(struct session *s, const struct rec *r);
/* The replay engine of a session opened on a file, else NULL. */
struct replay *session_replay(struct session *s);
/* Starts sampling (and the command). 0, or -1 with a message in err. */
int session_start(struct session *s, char *err, size_t errlen);
void session_close(struct session *s);

/* Takes in everything queued so far. Returns the number of records taken. */
long session_poll(struct session *s);
/* A descriptor that becomes readable when there is something for session_poll (live: the
 * sampler's, see sampler.h), so an idle front end can sleep on it; -1 when there is none (a
 * replay, whose records come from a file on the front end's clock). */
int session_wake_fd(struct session *s);
/* Whether records wait in the sampler's queue (a live session's last poll stopped at its budget);
 * false for a replay. */
bool session_backlog(struct session *s);

/* The snapshot of the window that ends now (ordered by col), then decays or zeroes the profile:
 * the current event's. Every other event's window ends too; its snapshot is held until the next
 * refresh or a switch to it. */
struct snapshot *session_refresh(struct session *s, enum snap_col order, bool zero);
/* The same for every event: its snapshot in snaps[event] (the caller frees them). Returns the
 * number of events. */
int session_refresh_all(struct session *s, enum snap_col order, bool zero, struct snapshot **snaps);

/* The events (at least one), and the current one (0 at start; a replay's first event with
 * samples). */
int session_nevents(struct session *s);
int session_event(struct session *s);
void session_set_event(struct session *s, int ev);
/* The view switches to event ev: shown, the current event's snapshot it holds, comes back to the
 * session, which hands it ev's snapshot of the last window (NULL when there is none yet: ask a
 * refresh). ev out of range or current: shown is returned. */
struct snapshot *session_switch_event(struct session *s, int ev, struct snapshot *shown);

/* The counters of the last window (the header's counters line, batch JSON's "counters"): the
 * counting groups' values read at the refresh that ended it, the sampler's throttles and perftop's
 * own CPU time. A replay has no counters (a recording holds none): live is false, only the
 * sample rate and the lost count are set. */
struct session_counters {
	bool live;
	double window_secs;
	bool have[COUNTER_NR];            /* counted on this machine (no PMU: no hardware ones) */
	uint64_t window[COUNTER_NR];      /* counted during the window (scaled when multiplexed) */
	double per_sec[COUNTER_NR];
	double ipc;                       /* instructions per cycle over the window; < 0: unknown */
	bool multiplexed;                 /* the hardware group was off the PMU part of the time */
	double samples_per_sec;
	uint64_t lost, throttled;         /* session totals */
	double cpu_pct;                   /* perftop's own CPU over the window (100 = one CPU); < 0 unknown */
};

struct session_status {
	const char *event;
	bool event_fell_back;
	uint64_t freq, period;
	double elapsed;            /* seconds since start */
	double window_secs;        /* length of the window the last snapshot covered */
	double samples_per_sec;    /* over that window */
	uint64_t lost, dropped;    /* session totals */
	uint64_t window_dropped;   /* queue drops during the last snapshot's window */
	bool target_exited;        /* and everything it produced has been taken in */
	int exit_status;           /* wait status of the command */
	const char *target_text;
	const char *command_name;  /* argv[0] of the command, or NULL */
	/* --call-graph dwarf: % of the samples with a user stack whose unwound chain reached the
	 * thread's root (_start, clone3 ...), over the session; < 0 when no sample had a stack. */
	double unwound;
	/* Live --off-cpu / --wall: the switch pairing's counts (sampler/offcpu.h) and records the
	 * sampler emitted out of time order, over the session; has_pairing false otherwise. */
	bool has_pairing;
	struct offcpu_stats pairing;
	uint64_t out_of_order;
	struct session_counters counters;
	/* --push: the push's figures (push.h says what each counts). */
	bool pushing;
	struct push_stats push;
};
/* The current event's status, or event ev's (its name, rate and samples per second; the rest is
 * the session's). */
void session_get_status(struct session *s, struct session_status *st);
void session_get_status_of(struct session *s, int ev, struct session_status *st);

/* --diff: reads the recording opts->diff_base once, whole, into a baseline with the same sort keys;
 * every snapshot after this carries a Δ against it (model/diff.h). 0, or -1 with a message. */
int session_load_diff(struct session *s, const struct session_opts *opts, char *err, size_t errlen);

/* Feeds a call tree next to the profile, so that snapshots carry one (snapshot.tree) for the
 * drill-down views. Off by default: batch mode does not pay for it. */
void session_enable_calltree(struct session *s);
/* What the profiles' periods count (profile_set_mode): call once after opening (--off-cpu, --wall);
 * PROFILE_SAMPLES by default. The snapshots carry it, with the window's length in seconds of the
 * session's clock (live: wall time; a replay: recorded time within --time's range). */
void session_set_mode(struct session *s, enum profile_mode mode);
/* Batch: what the snapshots printed show of the run-queue waits (snapshot_runq; RUNQ_ALL by
 * default). The view has its own (the r key, tui_source.runq at start). */
void session_set_runq(struct session *s, enum runq_view v);
enum runq_view session_runq(const struct session *s);
/* The view's zoom (t d K U): only what z keeps is aggregated from now on (model/zoom.h). The
 * profile and call tree start over; a replay must then be re-read up to its position (a seek). */
void session_set_zoom(struct session *s, const struct sample_zoom *z);
/*
 * Exports (--export, the view's export key, a push): from now on every sample the profiles take
 * (after the zoom) is also collected whole (export/stackcol.h: bounded); off by default, so that a
 * session that exports nothing pays nothing. 0, or -1 with a message.
 */
int session_enable_export(struct session *s, char *err, size_t errlen);
/* Starts the collection over (a new window: a push's interval). */
void session_export_reset(struct session *s);
/* What was collected since the start (or the last reset), described for the encoders (the events,
 * the mode, the wall-clock start and duration; a replay: the recorded samples' span, no start). It
 * points into the session: valid until the next poll. False when exports are not enabled. */
bool session_export_profile(struct session *s, struct export_profile *out);
/* Writes it in path's format (export_write_file). 0, or -1 with a one-line message. */
int session_export_write(struct session *s, const char *path, char *err, size_t errlen);
/* The view's w key: collects as session_enable_export does (without asking for source lines), but
 * the collection starts over at every refresh, the one of the window that ended kept for
 * session_export_window. */
int session_export_windows(struct session *s, char *err, size_t errlen);
/* Writes the last window's collection (all of it without session_export_windows) to path, only
 * the stacks whose command, function names or dsos match filter (model/filter.h; NULL or "":
 * all); msg says what was written, or the error. 0, or -1. */
int session_export_window(struct session *s, const char *path, const char *filter, char *msg,
			  size_t len);
/* A paused view (hold true): the window on screen stays session_export_window's until resumed. */
void session_export_hold(struct session *s, bool hold);

/* Feeds the annotate histogram (model/annotate.h) next to the profile, for the a key; prefixes
 * ("OLD=NEW", --prefix) remap the source files' build paths and must outlive the session. */
void session_enable_annotate(struct session *s, const char *const *prefixes, size_t nprefixes);
/* The annotated function raw_sym of dso (a row's; dso NULL: any) for the window of the last
 * snapshot; the caller frees it with annotate_doc_free. Never NULL: what is missing is in it. */
struct an_doc *session_annotate(struct session *s, const char *raw_sym, const char *dso);
/* Shows the rows of snap (and of the snapshots to come) with demangled or raw symbol names. */
void session_rename(struct session *s, struct snapshot *snap, bool demangle);
/* The current names generation's pointer for name (a name kept from an older snapshot; see
 * symbolizer.h on compaction). */
const char *session_name(void *session, const char *name);
/* A notice: an event that has not fired ("event 'mem:0x...' has not fired yet ..."), else the
 * symbolizer's ("debuginfod: fetching debug info for ..."), else a JVM's, else Python's, or NULL. */
const char *session_notice(struct session *s);
/* Why a CPython process keeps its native frames ("python: pid 12 (python3.7): no known layout
 * for CPython 3.7, native frames only"), the last such; NULL when none (or --no-python). */
const char *session_python_notice(struct session *s);
/* How to get names the profile lacks ("node (pid 12) has no JavaScript names: run it with
 * --perf-basic-prof ..."), or NULL; session_notice says it too when it has nothing else. */
const char *session_hint(struct session *s);
/* Why a HotSpot JVM's JIT frames stay unnamed and what to do instead ("java: pid 12 gives no perf
 * map (started with -XX:+DisableAttachMechanism): run `jcmd 12 Compiler.perfmap`, or ..."), or
 * that its Java callers are likely missing (no -XX:+PreserveFramePointer), the last such; NULL
 * when none. */
const char *session_jvm_notice(struct session *s);
/* The events' notice alone (live, after a few refreshes: an event opened but never sampled while
 * the session saw other activity; cpu-clock and task-clock excepted), or NULL. */
const char *session_event_notice(struct session *s);

#endif
