/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session_int: the session's state, shared by the files of session/ alone (session.c the core:
 * opening, taking records, windows; session_export.c the exports and pushes; session_annotate.c
 * the annotate view's code). Nothing outside session/ includes it: the others see session.h.
 * Everything here runs on the main thread.
 */
#ifndef PERFTOP_SESSION_INT_H
#define PERFTOP_SESSION_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "export/export.h"
#include "export/stacklog.h"
#include "model/annotate.h"
#include "model/calltree.h"
#include "model/diff.h"
#include "model/profile.h"
#include "python/pyrecord.h"
#include "python/pystacks.h"
#include "sampler/sampler.h"
#include "session/pusher.h"
#include "session/replay.h"
#include "session/sample_memo.h"
#include "session/session.h"
#include "symbolize/disasm.h"
#include "symbolize/srcinfo.h"
#include "symbolize/symbolizer.h"

#define SESSION_MAX_FRAMES 512
#define SESSION_DRAIN_BUDGET 200000
#define SESSION_CODE_CACHE 4
#define SESSION_WLOG_BYTES (16u << 20) /* each of the w key's two logs (stacklog.h) */

/* A function's code for annotate, read once: the instructions, their lines and the source file. */
struct session_code {
	const char *dso;           /* interned: the key with sym_start */
	uint64_t sym_start;
	uint64_t used;             /* for the eviction of the least recently asked */
	struct disasm_func fn;
	struct an_insn *insns;
	struct srcfile src;
	char src_err[512];
	bool have_src;
};
/* A drain stops after this long even with records left: the view (a tick, a key, a redraw) must
 * never wait on a backlog. The queue holds a few hundred ms of records, and the tick comes back
 * within ~50 ms, so the rest is taken then. */
#define SESSION_DRAIN_NS (30 * 1000000ull)
#define SESSION_DRAIN_CHECK 32 /* records between clock reads */

/* After this many refreshes, an event that has not fired while others have is told about. */
#define SESSION_NOT_FIRED_REFRESHES 3

/* One event of the session: what it is, and its model. */
struct session_event {
	char name[128];
	uint64_t freq, period;     /* how it samples: Hz, or a period when freq is 0 */
	uint32_t type;             /* attr.type and config: the not-fired notice's exceptions */
	uint64_t config;
	struct profile *prof;
	struct calltree *tree;     /* the drill-down views' call tree; NULL until enabled (batch) */
	/* Annotate (the a key): the per-address histogram and its picture of the last window. NULL
	 * until enabled (batch). */
	struct annotate *annot;
	struct an_snapshot *annot_snap;
	/* Its snapshot of the last window while another event is on screen (session_switch_event). */
	struct snapshot *held;
	uint64_t last_window_samples;
};

struct session {
	struct sampler *sampler;
	struct symbolizer *sym;
	struct session_event ev[SAMPLER_MAX_EVENTS];
	int nev;
	int cur;                   /* the event the view shows (session_set_event) */
	/* Annotate: the code of the functions last asked for, and --prefix remaps. */
	struct session_code code[SESSION_CODE_CACHE];
	uint64_t code_clock;
	const char *const *prefixes;
	size_t nprefixes;
	struct frame frames[SESSION_MAX_FRAMES];
	/* The view's zoom, applied to each sample before the model sees it (n == 0: none), and
	 * the frames it keeps. */
	struct sample_zoom zoom;
	struct frame zframes[SESSION_MAX_FRAMES];
	uint64_t start_ns;
	uint64_t window_start_ns;
	uint64_t zoomed_ns;        /* live: when the last zoom started the aggregation over */
	enum runq_view runq;       /* batch: what the snapshots show of run-queue waits */
	double last_window_secs;
	uint64_t dropped_at_window_start;
	uint64_t last_window_dropped;
	bool drained_after_exit;
	/* The not-fired notice (live): refreshes so far, and the notice of the last one. */
	unsigned refreshes;
	char event_notice[256];
	char target_text[256];
	const char *command_name;
	const char *output;        /* -o FILE */
	bool record_error_told;
	/* Replay (-i): the file is the source instead of the sampler; time is recorded time. */
	struct replay *replay;
	struct sample_memo *memo;  /* a replay's samples named once per call chain (sample_memo.h) */
	double window_start_pos;
	struct diff_base *diff;    /* --diff: the baseline, or NULL */
	uint64_t replay_lost;      /* a replay's or a feed's LOST records */
	/* A feed (session_open_feed): the caller hands the records in; time is theirs, in seconds
	 * from the first record's. */
	bool feed;
	uint64_t feed_first, feed_last;
	/* Counters: the values read at the last refresh, and the window's differences. */
	struct counter_values ctr_prev;
	uint64_t cpu_ns_prev;
	struct session_counters ctr;
	/* --off-cpu / --wall: what the periods count. Live, the sampler thread pairs the switches;
	 * a replay pairs them here (offcpu), charged up to the last record's time at a refresh. */
	enum profile_mode mode;
	struct offcpu *offcpu;
	uint64_t offcpu_last_time;
	/* Live: Python frames read from CPython processes (python/pystacks.h), and with -o kept
	 * beside the recording (pyrecord.h); a replay reads them back from there. */
	struct pystacks *py;
	struct pyrecord *pyrec;
	struct pyreplay *pyrep;
	/* Exports (--export, the view's key, a push): the stacks collected since export_start
	 * (wall clock, ns since the epoch; live only) and the first and last sample times. */
	struct stackcol *col;
	uint64_t export_start, export_first, export_last;
	/* The view's w key (session_export_windows): the collection of the last window ended,
	 * swapped with col at every refresh, and its times. */
	struct stackcol *col_shown;
	uint64_t shown_start, shown_first, shown_duration;
	/* The w key's samples as they came (export/stacklog.h), read into col (col_shown) only when
	 * full or when w writes the window: a view nobody exports from does none of the collector's
	 * work. While one is read back, wframes/wmaps say the mappings its frames had. */
	struct stacklog *wlog, *wlog_shown;
	const struct stacklog *wread;
	const struct frame *wframes;
	const uint32_t *wmaps;
	size_t wnframes;
	bool export_hold;          /* a paused view: col_shown stays the window on screen */
	char export_name[1024];    /* session_describe_frame's answer, copied by the collector */
	uint8_t kernel_bid[20];    /* the running kernel's build-id (live), read once */
	uint8_t kernel_bid_size;
	bool inline_frames;        /* session_names' choice */
	/* --push: the push of each window (pusher.h), and the stacks collected since the last push
	 * (a collector of its own: the view's w key swaps col at every refresh, --export keeps the
	 * whole session). */
	struct pusher *pusher;
	struct stackcol *col_push;
	bool push_per_container;   /* --push-per container: a series per container */
	bool push_other_told;      /* the warning of more containers than series, said once */
	/* -s container / -s cgroup: folded exports start each stack with it */
	bool fold_container, fold_cgroup;
	/* Live: HotSpot JVMs asked for their perf map (session_jvm.c): the job under way, the notice
	 * of the last JVM that refused one or runs without frame pointers, answers by status (ok,
	 * later, refused, gone) and SIGQUITs sent. */
	struct jvmjob *jvm_job;
	char jvm_notice[400];
	uint64_t jvm_answers[4], jvm_signals;
	/* Each sample's cgroup and container, and pid-namespace pids (session_cgroup.c); NULL when
	 * nothing asks for them. */
	struct session_cgroups *cgroups;
};

/* session_cgroup.c, for the core: whether the options ask for cgroups (the keys, the pushes per
 * container); the table opened (live: /proc answers where samples carry no id) and closed; a
 * REC_CGROUP learnt, a REC_EXIT forgotten; a sample's ctx given its cgroup, container and
 * namespace pids; the names moved by a compaction; a container's labels for a push. */
struct session_cgroups;
struct container_name;
bool session_cgroups_wanted(const struct session_opts *opts);
void session_cgroups_open(struct session *s, const struct session_opts *opts, bool live);
void session_cgroups_close(struct session *s);
void session_cgroups_learn(struct session *s, const struct rec *r);
void session_cgroups_forget(struct session *s, const struct rec *r);
void session_cgroups_fill(struct session *s, const struct rec *r, struct sample_ctx *ctx);
void session_cgroups_move_names(struct session *s);
const struct container_name *session_cgroups_labels(const struct session *s, const char *container);

/* session_jvm.c, for the core: each tick of a live session (a finished job's answers taken, the
 * due JVMs' job started), and at close (a job under way stopped). */
struct jvmjob;
void session_jvm_tick(struct session *s);
void session_jvm_close(struct session *s);

/* session_export.c, for the core: a push's start (the pusher and its collector), each window's push (final: the last, at close),
 * and the end of the w key's window at a refresh. */
int session_enable_push(struct session *s, const struct session_opts *opts, char *err, size_t errlen);
void session_push_window(struct session *s, bool final);
void session_export_window_end(struct session *s);
/* A sample for the exports (col, or the w key's log); the names moved (compaction); an address
 * space may have changed (side-band record r; NULL: the symbolizer's sweep of dead processes);
 * the names' form is about to change (demangling):
 * the logs are read into their collectors first. */
void session_export_collect(struct session *s, int e, uint64_t time, const struct sample_ctx *ctx);
void session_export_move_names(struct session *s);
void session_export_maps_changed(struct session *s, const struct rec *r);
void session_export_settle(struct session *s);

#endif
