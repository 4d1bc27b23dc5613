/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session: wires sampler -> symbolizer -> profile on the main thread.
 *
 * The drain is bounded per call so that a flood of records cannot starve the view's key handling;
 * what is left stays in the queue for the next tick (the queue, not this loop, is where the sampler
 * counts what it has to drop).
 *
 * Several events: each has its own profile, call tree and annotate histogram (struct
 * session_event), and a sample goes to its event's (rec.evidx: the sampler's index live, the
 * file's mapped through replay_event_of in a replay). The symbolizer is shared: the address spaces
 * are the same whatever was sampled. All the events' windows end together, at each refresh; the
 * view shows one of them (the current event) and holds the others' snapshots of the same window
 * here until it switches to one.
 */
#include "session/session.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "perfdata/perfdata_write.h"
#include "session/session_int.h"
#include "util/util.h"

/*
 * What the symbolizer adds to each address. Inline frames follow the tool each mode stands in for.
 * perf report expands them only in chains it unwound from user stacks (--call-graph dwarf
 * recordings); its frame-pointer chains and sample addresses stay as they are, even with
 * --inline. So a replay of a DWARF recording has them, any other replay does not, and a live
 * session does not (perf top has none); --inline turns them on everywhere, --no-inline off. The
 * cost is why the default does not go further than perf: the first inline lookup in a binary reads
 * its DWARF (libc's debug file is compressed: ~10 MB inflated, 50 ms), which is more than the whole
 * replay of a frame-pointer recording otherwise costs. Once an address is cached they cost a hash
 * probe. Source lines are looked up only when srcline is a sort key: the line-table search is the
 * costly part of a cold address, and nothing else shows them yet (a view that needs them later
 * turns them on with symbolizer_set_names; addresses already cached without lines are completed
 * on their next lookup).
 */
static void session_names(struct session *s, const struct session_opts *opts, bool unwound_chains)
{
	bool inline_frames = !opts->no_inline && (opts->inline_frames || unwound_chains);
	s->inline_frames = inline_frames;
	symbolizer_set_names(s->sym, inline_frames, profile_has_key(s->ev[0].prof, SORT_SRCLINE));
	if (s->py && !s->pyrec)
		pystacks_set_srclines(s->py, profile_has_key(s->ev[0].prof, SORT_SRCLINE));
	symbolizer_set_demangle(s->sym, !opts->no_demangle);
}

/* --off-cpu and --wall are one profile of time, whatever events feed it (wall: cpu-clock's
 * samples and sched_switch's blocks; session_event_of sends every record of a one-event session to
 * it), named after the mode. */
static void session_mode_events(struct session *s, const struct session_opts *opts)
{
	s->mode = opts->mode;
	if (opts->mode == PROFILE_SAMPLES)
		return;
	for (int e = 1; e < s->nev; e++)
		profile_free(s->ev[e].prof);
	s->nev = 1;
	struct session_event *ev = &s->ev[0];
	snprintf(ev->name, sizeof(ev->name), "%s", opts->mode == PROFILE_WALL ? "wall" : "off-cpu");
	if (opts->mode == PROFILE_OFFCPU)
		ev->freq = ev->period = 0;
	ev->type = PERF_TYPE_SOFTWARE; /* time always flows: no not-fired notice */
	ev->config = PERF_COUNT_SW_CPU_CLOCK;
	profile_set_mode(ev->prof, opts->mode);
}

static uint64_t session_names_generation(void *sym)
{
	return symbolizer_names_generation(sym);
}

/* Live: the Python frames' reader, and with -o the side file of the recording's Python frames. */
static void session_python_open(struct session *s, const struct session_opts *opts)
{
	s->py = pystacks_new(symbolizer_name, session_names_generation, s->sym,
			     s->ev[0].freq ? 1000000000ull / s->ev[0].freq : 1000000ull, opts->python_rate);
	if (!opts->output)
		return;
	if (!strcmp(opts->output, "-")) {
		warn_msg("a stream (-o -) keeps no Python frames: record to a file for them");
		return;
	}
	char path[PATH_MAX], err[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s.python", opts->output);
	s->pyrec = pyrecord_create(path, err, sizeof(err));
	if (!s->pyrec)
		warn_msg("%s: the recording keeps no Python frames", err);
	pystacks_set_srclines(s->py, true); /* a replay may ask for lines */
}

/* A replay: the Python frames perftop kept beside the recording(s), if any. */
static void session_python_replay(struct session *s, const struct session_opts *opts)
{
	if (opts->no_python)
		return;
	/* as replay_open takes them: the list when there are several, else opts->input (a --diff
	 * base's session sets only that) */
	for (int i = 0; i < (opts->ninputs > 1 ? opts->ninputs : 1); i++) {
		const char *in = opts->ninputs > 1 ? opts->inputs[i] : opts->input;
		if (!in || !strcmp(in, "-"))
			continue;
		char path[PATH_MAX], err[PATH_MAX + 128];
		snprintf(path, sizeof(path), "%s.python", in);
		s->pyrep = pyreplay_open(s->pyrep, path, err, sizeof(err));
		if (err[0])
			warn_msg("%s", err);
	}
}

struct session *session_open(const struct session_opts *opts, char *err, size_t errlen)
{
	struct sampler_opts so = opts->sampler;
	if (opts->output && !strcmp(opts->output, "-")) { /* -o -: the stream form to standard output */
		so.tee = perfdata_tee_fd();
		so.tee_arg = (void *)(intptr_t)(opts->output_fd > 2 ? opts->output_fd
					: fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3));
	} else if (opts->output) {       /* -o: the sampler thread tees the rings into the file */
		so.tee = perfdata_tee();
		so.tee_arg = (void *)opts->output;
	}
	/* The kernel names each sample's cgroup (PERF_SAMPLE_CGROUP) when something asks for them.
	 * PERFTOP_CGROUP_FROM_PROC makes this kernel behave as one before 5.7 (no ids: /proc answers),
	 * which the tests use to check that path on a kernel that has both. */
	so.sample_cgroup = session_cgroups_wanted(opts) && !getenv("PERFTOP_CGROUP_FROM_PROC");
	struct sampler *sampler = sampler_open(&so, err, errlen);
	if (!sampler)
		return NULL;
	struct session *s = xcalloc(1, sizeof(*s));
	s->sampler = sampler;
	s->sym = symbolizer_new();
	s->nev = sampler_nevents(sampler);
	for (int e = 0; e < s->nev; e++) {
		struct session_event *ev = &s->ev[e];
		const struct perf_event_attr *a = sampler_event_attr(sampler, e);
		snprintf(ev->name, sizeof(ev->name), "%s", sampler_event_name(sampler, e));
		ev->freq = sampler_freq(sampler, e);
		ev->period = sampler_period(sampler, e);
		ev->type = a->type;
		ev->config = a->config;
		ev->prof = profile_new(opts->keys, opts->nkeys);
	}
	if (!opts->no_python)
		session_python_open(s, opts);
	symbolizer_set_jit_attach(s->sym, !opts->no_jit_attach);
	session_mode_events(s, opts);
	session_names(s, opts, false);
	session_cgroups_open(s, opts, true);
	snprintf(s->target_text, sizeof(s->target_text), "%s", opts->target_text);
	if (opts->sampler.target == TARGET_COMMAND)
		s->command_name = opts->sampler.argv[0];
	s->output = opts->output;
	if (opts->push_url && session_enable_push(s, opts, err, errlen) < 0) {
		session_close(s);
		return NULL;
	}
	return s;
}

static void session_take(struct session *s, const struct rec *r);

static void session_take_paired(void *ctx, const struct rec *r)
{
	session_take(ctx, r);
}

static void replay_sink_record(void *ctx, const struct rec *r)
{
	struct session *s = ctx;
	if (r->type == REC_LOST || r->type == REC_LOST_SAMPLES)
		s->replay_lost += r->u.lost.lost;
	if (!s->offcpu) {
		session_take(s, r);
		return;
	}
	if (r->time > s->offcpu_last_time)
		s->offcpu_last_time = r->time;
	offcpu_feed(s->offcpu, r, session_take_paired, s);
}

static void replay_sink_build_id(void *ctx, const char *path, const uint8_t *bid, size_t len)
{
	symbolizer_add_build_id(((struct session *)ctx)->sym, path, bid, len);
}

/* Every event's aggregation starts over (a seek, a zoom). */
static void session_zero_events(struct session *s)
{
	for (int e = 0; e < s->nev; e++) {
		struct session_event *ev = &s->ev[e];
		profile_end_window(ev->prof, true);
		if (ev->tree)
			calltree_end_window(ev->tree, true);
		if (ev->annot)
			annotate_end_window(ev->annot, true);
	}
	/* the stacks collected start over with them (a seek feeds the samples again) */
	if (s->col)
		session_export_reset(s);
}

/* A seek starts the aggregation over; the address spaces stay (the side-band is fed again). */
static void replay_sink_reset(void *ctx)
{
	struct session *s = ctx;
	session_zero_events(s);
	s->window_start_pos = 0;
	if (s->offcpu)
		offcpu_reset(s->offcpu);
	s->offcpu_last_time = 0;
}

/* A replay or a feed in a time mode pairs the switches here, with o's layout of their fields
 * (live, the sampler thread pairs them). */
static void session_pair_here(struct session *s, const struct session_opts *opts,
			      struct offcpu_opts *o)
{
	o->min_block_ns = opts->min_block_ns;
	o->piece_ns = 0;   /* a refresh charges every open block up to the last record */
	s->offcpu = offcpu_new(o);
}

/* A replay in a time mode pairs the file's switches itself: sched:sched_switch must be among the
 * events played (its index in the file is the pairing's switch event). */
static int session_replay_offcpu(struct session *s, const struct session_opts *opts, char *err, size_t errlen)
{
	int played = -1;
	for (int e = 0; e < s->nev && played < 0; e++)
		if (!strcmp(replay_event_name(s->replay, (size_t)e), OFFCPU_SWITCH_EVENT))
			played = e;
	uint32_t file_ev = 0;
	while (played >= 0 && file_ev < 4096 && replay_event_of(s->replay, file_ev) != played)
		file_ev++;
	if (played < 0 || file_ev == 4096) {
		snprintf(err, errlen, "%s: %s needs the recording's %s samples (perf record -e %s "
			 "--switch-events -g)", opts->input, opts->mode == PROFILE_WALL ? "--wall" : "--off-cpu",
			 OFFCPU_SWITCH_EVENT, OFFCPU_SWITCH_EVENT);
		return -1;
	}
	/* The raw fields' layout of the machine that recorded them, when the file says it; else
	 * this machine's (cli read it from tracefs). */
	struct offcpu_opts o = opts->offcpu;
	const char *format = replay_switch_format(s->replay);
	struct offcpu_opts from_file = { 0 };
	if (format && offcpu_parse_format(format, strlen(format), &from_file) == 0) {
		o.prev_state_off = from_file.prev_state_off;
		o.prev_state_size = from_file.prev_state_size;
		o.next_pid_off = from_file.next_pid_off;
		o.next_pid_size = from_file.next_pid_size;
	}
	o.switch_evidx = file_ev;
	session_pair_here(s, opts, &o);
	return 0;
}

struct session *session_open_file(const struct session_opts *opts, char *err, size_t errlen)
{
	struct session *s = xcalloc(1, sizeof(*s));
	struct replay_opts o = {.path = opts->input, .event = opts->event_select, .scan = !opts->one_pass,
				.no_histogram = opts->one_pass, .nowait = !opts->one_pass, .paths = opts->inputs,
				.npaths = (size_t)opts->ninputs};
	/* Off-CPU time is made of the switches alone; wall takes every event (cpu-clock's too). */
	if (opts->mode == PROFILE_OFFCPU && !o.event)
		o.event = OFFCPU_SWITCH_EVENT;
	struct replay_sink sink = {.ctx = s, .record = replay_sink_record, .reset = replay_sink_reset,
				   .build_id = replay_sink_build_id};
	s->replay = replay_open(&o, &sink, err, errlen);
	if (!s->replay) {
		free(s);
		return NULL;
	}
	s->sym = symbolizer_new();
	symbolizer_set_offline(s->sym);  /* the file's pids are not this machine's processes now */
	if (opts->kallsyms)
		symbolizer_set_kallsyms(s->sym, opts->kallsyms);
	symbolizer_wait_fetches(s->sym, opts->one_pass); /* batch may wait for debuginfod, the view not */
	/* Live, a JIT's perf map grows under a name the symbolizer looks for again: only a replay's
	 * names stay put between side-band records. */
	s->memo = sample_memo_new();
	s->nev = (int)replay_nevents(s->replay);
	if (s->nev > SAMPLER_MAX_EVENTS)
		s->nev = SAMPLER_MAX_EVENTS; /* the first ones; the others' samples are not played */
	for (int e = 0; e < s->nev; e++) {
		struct session_event *ev = &s->ev[e];
		snprintf(ev->name, sizeof(ev->name), "%s", replay_event_name(s->replay, (size_t)e));
		replay_event_rate(s->replay, (size_t)e, &ev->freq, &ev->period);
		ev->type = ev->config = 0; /* no notice in a replay */
		ev->prof = profile_new(opts->keys, opts->nkeys);
	}
	if (replay_start_event(s->replay) < (size_t)s->nev)
		s->cur = (int)replay_start_event(s->replay);
	if (opts->mode != PROFILE_SAMPLES && session_replay_offcpu(s, opts, err, errlen)) {
		session_close(s);
		return NULL;
	}
	session_mode_events(s, opts);
	s->cur = 0;
	session_python_replay(s, opts);
	session_names(s, opts, replay_user_stacks(s->replay));
	session_cgroups_open(s, opts, false);
	int n = snprintf(s->target_text, sizeof(s->target_text), "%s %s",
			 replay_is_stream(s->replay) ? "stream on" : "replay of",
			 strcmp(opts->input, "-") ? opts->input : "stdin");
	if (opts->ninputs > 1 && n > 0 && (size_t)n < sizeof(s->target_text))
		snprintf(s->target_text + n, sizeof(s->target_text) - (size_t)n, " and %d more file%s",
			 opts->ninputs - 1, opts->ninputs > 2 ? "s" : "");
	return s;
}

struct session *session_open_feed(const struct session_opts *opts,
				  const struct session_feed_event *evs, int nev, char *err, size_t errlen)
{
	if (nev < 1 || nev > SAMPLER_MAX_EVENTS) {
		snprintf(err, errlen, "a feed needs 1 to %d events, not %d", SAMPLER_MAX_EVENTS, nev);
		return NULL;
	}
	struct session *s = xcalloc(1, sizeof(*s));
	s->feed = true;
	s->sym = symbolizer_new();
	symbolizer_set_offline(s->sym); /* the records' pids are the caller's, not this machine's */
	s->nev = nev;
	for (int e = 0; e < nev; e++) {
		struct session_event *ev = &s->ev[e];
		snprintf(ev->name, sizeof(ev->name), "%s", evs[e].name);
		ev->freq = evs[e].freq;
		ev->period = evs[e].period;
		ev->prof = profile_new(opts->keys, opts->nkeys);
	}
	if (opts->mode != PROFILE_SAMPLES) {
		struct offcpu_opts o = opts->offcpu; /* the caller's says where the fields are */
		session_pair_here(s, opts, &o);
	}
	session_mode_events(s, opts);
	session_names(s, opts, false);
	session_cgroups_open(s, opts, false); /* named by the caller's cgroup records, as a replay's */
	snprintf(s->target_text, sizeof(s->target_text), "%s", opts->target_text);
	if (opts->push_url && session_enable_push(s, opts, err, errlen) < 0) {
		session_close(s);
		return NULL;
	}
	return s;
}

void session_feed(struct session *s, const struct rec *r)
{
	if (!s->feed)
		return;
	if (r->time && (!s->feed_first || r->time < s->feed_first))
		s->feed_first = r->time;
	if (r->time > s->feed_last)
		s->feed_last = r->time;
	replay_sink_record(s, r);
}

/* Recorded time in seconds: a replay's position in its file, a feed's last record from its first. */
static double session_recorded_pos(const struct session *s)
{
	if (s->replay)
		return replay_position(s->replay);
	return s->feed_first ? (double)(s->feed_last - s->feed_first) / 1e9 : 0;
}

struct replay *session_replay(struct session *s)
{
	return s->replay;
}

/* perftop's CPU time so far, all threads (the sampler's too). */
static uint64_t self_cpu_ns(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
}

/* Reads the counters at the end of a window of secs (0: the start) and keeps the differences.
 * Counters only grow; a smaller value (a task gone with its counts) reads as no change. */
static void session_counters_window(struct session *s, double secs)
{
	struct session_counters *c = &s->ctr;
	struct counter_values v;
	uint64_t cpu = self_cpu_ns();
	if (sampler_read_counters(s->sampler, &v) != 0)
		memset(&v, 0, sizeof(v));
	c->live = true;
	c->window_secs = secs;
	for (int k = 0; k < COUNTER_NR; k++) {
		c->have[k] = v.have[k];
		uint64_t prev = s->ctr_prev.value[k];
		c->window[k] = v.value[k] > prev ? v.value[k] - prev : 0;
		c->per_sec[k] = secs > 0 ? (double)c->window[k] / secs : 0;
	}
	c->ipc = c->have[COUNTER_INSTRUCTIONS] && c->window[COUNTER_CYCLES]
			 ? (double)c->window[COUNTER_INSTRUCTIONS] / (double)c->window[COUNTER_CYCLES]
			 : -1;
	c->multiplexed = v.hw_time_running - s->ctr_prev.hw_time_running <
			 v.hw_time_enabled - s->ctr_prev.hw_time_enabled;
	c->cpu_pct = secs > 0 && cpu >= s->cpu_ns_prev ? (double)(cpu - s->cpu_ns_prev) / 1e9 / secs * 100
						      : -1;
	s->ctr_prev = v;
	s->cpu_ns_prev = cpu;
}

/* The status's counters: the last window's (live), or just the rate and losses (a replay). */
static void session_status_counters(struct session *s, struct session_status *st,
				    const struct sampler_stats *ss)
{
	struct session_counters *c = &st->counters;
	if (ss) {
		*c = s->ctr;
		c->throttled = ss->throttled;
	} else {
		memset(c, 0, sizeof(*c));
		c->window_secs = s->last_window_secs;
		c->ipc = -1;
		c->cpu_pct = -1;
	}
	c->samples_per_sec = st->samples_per_sec;
	c->lost = st->lost;
}

int session_start(struct session *s, char *err, size_t errlen)
{
	int rc = s->sampler ? sampler_start(s->sampler, err, errlen) : 0;
	s->start_ns = s->window_start_ns = now_ns();
	if (s->sampler)
		session_counters_window(s, 0);
	if (s->pusher) {
		int64_t from, until;
		pusher_due(s->pusher, false, &from, &until); /* the first window starts */
	}
	return rc < 0 ? -1 : 0;
}

void session_close(struct session *s)
{
	if (!s)
		return;
	if (getenv("PERFTOP_NAMES_FLOOR")) {
		/* the tests that make compactions frequent check that they happened */
		struct symbolizer_stats ys;
		symbolizer_get_stats(s->sym, &ys);
		fprintf(stderr, "perftop: names: %" PRIu64 " compactions, %" PRIu64 " bytes; binaries: %"
			PRIu64 " closed, %" PRIu64 " evicted\n", ys.name_compactions, ys.interned_bytes,
			ys.dsos_closed, ys.dsos_evicted);
	}
	if (s->py && getenv("PERFTOP_PY_STATS")) {
		/* the Python tests and bench/ read how late stacks were read */
		struct pystacks_stats ps;
		pystacks_get_stats(s->py, &ps);
		fprintf(stderr, "perftop: python: %" PRIu64 " samples, %" PRIu64 " with Python frames, %"
			PRIu64 " unreadable, %" PRIu64 " read late; gap mean %.3f ms max %.3f ms; "
			"<0.1,0.5,1,2,5,20,50,more ms:", ps.samples, ps.with_python, ps.read_failed,
			ps.late, ps.gap_n ? (double)ps.gap_sum_ns / (double)ps.gap_n / 1e6 : 0.0,
			(double)ps.gap_max_ns / 1e6);
		for (int i = 0; i < 8; i++)
			fprintf(stderr, " %" PRIu64, ps.gap_hist[i]);
		fprintf(stderr, "; watcher %" PRIu64 " reads, %.3f s CPU, every %.2f ms now",
			ps.watcher_reads, (double)ps.watcher_cpu_ns / 1e9,
			(double)ps.watcher_mean_ns / 1e6);
		double reads = ps.watcher_reads ? (double)ps.watcher_reads : 1.0;
		fprintf(stderr, "; watcher memory reads %" PRIu64 " (%" PRIu64 " failed), %.2f a stack, %.0f "
			"bytes a stack; session memory reads %" PRIu64 " (%" PRIu64 " failed), %" PRIu64
			" bytes", ps.watcher_calls, ps.watcher_failed, (double)ps.watcher_calls / reads,
			(double)ps.watcher_bytes / reads, ps.session_calls, ps.session_failed,
			ps.session_bytes);
		fprintf(stderr, "\n");
	}
	session_jvm_close(s);
	if (s->pusher && s->start_ns)
		session_push_window(s, true);
	pusher_close(s->pusher); /* flushes for a few seconds at most */
	if (s->sampler) {
		sampler_stop(s->sampler);
		sampler_free(s->sampler);
	}
	replay_close(s->replay);
	diff_base_free(s->diff);
	for (int e = 0; e < s->nev; e++) {
		struct session_event *ev = &s->ev[e];
		profile_free(ev->prof);
		calltree_free(ev->tree);
		annotate_free(ev->annot);
		an_snapshot_free(ev->annot_snap);
		snapshot_free(ev->held);
	}
	for (int i = 0; i < SESSION_CODE_CACHE; i++) {
		disasm_func_done(&s->code[i].fn);
		srcfile_done(&s->code[i].src);
		free(s->code[i].insns);
	}
	session_cgroups_close(s);
	symbolizer_free(s->sym);
	pystacks_free(s->py);
	int rc = pyrecord_close(s->pyrec);
	if (rc < 0)
		warn_msg("%s.python: %s: the recording's Python frames are incomplete", s->output,
			 strerror(-rc));
	pyreplay_free(s->pyrep);
	stackcol_free(s->col);
	stackcol_free(s->col_shown);
	stacklog_free(s->wlog);
	stacklog_free(s->wlog_shown);
	stackcol_free(s->col_push);
	sample_memo_free(s->memo);
	offcpu_free(s->offcpu);
	free(s);
}

/* The session's event of a record: the sampler's index live, the file's mapped in a replay; -1
 * for a sample of an event not played. Other records of an unknown event count as the first's. */
static int session_event_of(const struct session *s, const struct rec *r)
{
	int e = s->replay ? replay_event_of(s->replay, r->evidx) : (int)r->evidx;
	if (e >= 0 && e < s->nev)
		return e;
	return r->type == REC_SAMPLE && s->nev > 1 ? -1 : 0;
}

/* The memo's rows are of one profile: its layout, tagged with the event (the rows of a chain
 * sampled by two events are two profiles' rows). */
static uint64_t session_layout(const struct session *s, int e)
{
	return profile_layout(s->ev[e].prof) * SAMPLER_MAX_EVENTS + (uint64_t)e;
}

/* Live: the sample's Python frames into s->frames (*n of them), kept for the recording's side
 * file with -o. */
static void session_python_frames(struct session *s, const struct rec *r, int *n)
{
	*n = pystacks_sample(s->py, r->pid, r->tid, r->time, s->frames, *n, SESSION_MAX_FRAMES);
	const struct frame *py;
	const int *group;
	const char *dso;
	int npy = s->pyrec ? pystacks_last(s->py, &py, &group, &dso) : 0;
	if (npy > 0)
		pyrecord_add(s->pyrec, r->time, r->pid, r->tid, dso, py, group, npy);
}

/* What pystacks knew of a process no longer holds: it exec'ed, exited, or its pid is a new
 * process's. */
static void session_python_forget(struct session *s, const struct rec *r)
{
	if (!s->py)
		return;
	if ((r->type == REC_EXIT && r->u.task.pid == r->u.task.tid) ||
	    (r->type == REC_FORK && r->u.task.pid != r->u.task.ppid))
		pystacks_forget(s->py, r->u.task.pid);
	else if (r->type == REC_COMM && r->u.comm.exec)
		pystacks_forget(s->py, r->u.comm.pid);
}

static void session_collect(struct session *s, int e, uint64_t time, const struct sample_ctx *ctx)
{
	session_export_collect(s, e, time, ctx);
	if (time && (!s->export_first || time < s->export_first))
		s->export_first = time;
	if (time > s->export_last)
		s->export_last = time;
}

static void session_take_sample(struct session *s, const struct rec *r)
{
	int e = session_event_of(s, r);
	if (e < 0)
		return;
	struct session_event *ev = &s->ev[e];
	int n = 0;
	const char *comm = NULL;
	r = symbolizer_fp_head(s->sym, r);
	/* A replayed sample with Python frames is named alone: the memo's key is the native chain. */
	bool memo = s->memo && !(s->pyrep && pyreplay_has(s->pyrep, r->tid, r->time));
	const struct frame *frames = memo ? sample_memo_get(s->memo, r, &n, &comm) : NULL;
	if (!frames) {
		n = symbolizer_sample(s->sym, r, s->frames, SESSION_MAX_FRAMES);
		comm = symbolizer_comm(s->sym, r->pid, r->tid);
		if (s->py && r->pid)
			session_python_frames(s, r, &n);
		else if (s->pyrep && !memo)
			n = pyreplay_sample(s->pyrep, symbolizer_name, s->sym, r->tid, r->time, s->frames,
					    n, SESSION_MAX_FRAMES);
		frames = s->frames;
		if (memo)
			sample_memo_put(s->memo, r, frames, n, comm);
	}
	struct sample_ctx ctx = {
		.comm = comm,
		.pid = r->pid,
		.tid = r->tid,
		.period = r->u.sample.period,
		.state = r->u.sample.block_state,
		.block_begins = r->u.sample.block_begins,
		.block_ns = r->u.sample.block_ns,
		.frames = frames,
		.nframes = n,
	};
	session_cgroups_fill(s, r, &ctx);
	/* The push sends what was sampled, whatever the view zooms into. */
	if (s->col_push)
		stackcol_add(s->col_push, e, r->time, &ctx);
	uint64_t *layout = NULL;
	uint32_t *rows = memo ? sample_memo_rows(s->memo, &layout) : NULL;
	if (s->zoom.n) {
		if (!zoom_apply(&s->zoom, &ctx, &ctx, s->zframes, SESSION_MAX_FRAMES))
			return; /* outside the zoom: not counted at all, percentages are of the zoom */
		rows = NULL; /* other frames than those remembered */
	}
	if (rows && *layout == session_layout(s, e)) {
		profile_add_again(ev->prof, &ctx, rows);
	} else if (rows) {
		profile_add_rows(ev->prof, &ctx, rows);
		*layout = session_layout(s, e);
	} else {
		profile_add(ev->prof, &ctx);
	}
	if (ev->tree)
		calltree_add(ev->tree, &ctx);
	if (ev->annot)
		annotate_add(ev->annot, &ctx);
	if (s->col)
		session_collect(s, e, r->time, &ctx);
}

static void session_take(struct session *s, const struct rec *r)
{
	switch (r->type) {
	case REC_SAMPLE:
		session_take_sample(s, r);
		break;
	case REC_LOST:
	case REC_LOST_SAMPLES:
		profile_add_lost(s->ev[session_event_of(s, r)].prof, r->u.lost.lost);
		if (r->type == REC_LOST && s->py) /* an exec's record may be among them */
			pystacks_records_lost(s->py, r->time);
		break;
	case REC_CGROUP:
		session_cgroups_learn(s, r);
		break;
	default:
		if (s->memo)
			sample_memo_forget(s->memo, r);
		session_cgroups_forget(s, r);
		session_export_maps_changed(s, r);
		session_python_forget(s, r);
		symbolizer_feed(s->sym, r);
		break;
	}
}

long session_poll(struct session *s)
{
	symbolizer_poll(s->sym);  /* debuginfod fetches finished since the last tick */
	if (!s->replay && !s->feed)
		session_export_maps_changed(s, NULL); /* and, live, its sweep of processes gone */
	if (s->memo)
		sample_memo_forget_all(s->memo); /* names may have changed with them */
	if (s->replay)
		return replay_tick(s->replay, now_ns());
	if (s->feed) { /* its records came through session_feed */
		if (s->pusher)
			session_push_window(s, false);
		return 0;
	}
	pyrecord_flush(s->pyrec);
	struct queue *q = sampler_queue(s->sampler);
	sampler_wake_clear(s->sampler);  /* before the drain: what comes during it wakes again */
	long taken = 0;
	size_t len;
	const void *msg;
	uint64_t deadline = now_ns() + SESSION_DRAIN_NS;
	while (taken < SESSION_DRAIN_BUDGET && (msg = queue_peek(q, &len)) != NULL) {
		if (len >= sizeof(struct rec))
			session_take(s, msg);
		queue_pop(q);
		taken++;
		if (taken % SESSION_DRAIN_CHECK == 0 && now_ns() >= deadline)
			break;
	}
	if (s->output && !s->record_error_told) {
		/* A failed recording is told once, here on the main thread; the view goes on. */
		struct sampler_stats ss;
		sampler_get_stats(s->sampler, &ss);
		if (ss.record_error) {
			s->record_error_told = true;
			warn_msg("recording to %s stopped: %s", s->output, strerror(-ss.record_error));
		}
	}
	if (s->pusher)
		session_push_window(s, false);
	session_jvm_tick(s);
	return taken;
}

static const char *session_display_name(void *ctx, const char *raw)
{
	return symbolizer_display_name(ctx, raw);
}

/* A snapshot of an older names generation (a paused screen after a compaction) is brought into
 * the current one first, its hold with it: the demangler answers with the current generation's
 * names, which must live as long as the snapshot. The view moves the names it keeps before. */
static void session_snapshot_current(struct session *s, struct snapshot *snap)
{
	uint64_t gen = symbolizer_names_generation(s->sym);
	if (snap->names_gen == gen || !snap->names_release)
		return;
	void *hold = symbolizer_names_hold(s->sym);
	snapshot_move_names(snap, symbolizer_name, s->sym);
	snap->names_release(snap->names_hold);
	snap->names_hold = hold;
	snap->names_gen = gen;
}

void session_rename(struct session *s, struct snapshot *snap, bool demangle)
{
	if (demangle != symbolizer_demangling(s->sym))
		session_export_settle(s); /* the w key's samples named as they were when they came */
	symbolizer_set_demangle(s->sym, demangle);
	if (!snap)
		return;
	session_snapshot_current(s, snap);
	for (size_t i = 0; i < snap->nrows; i++)
		snap->rows[i].sym = symbolizer_display_name(s->sym, snap->rows[i].raw_sym);
	if (snap->tree)
		ct_snapshot_rename(snap->tree, session_display_name, s->sym);
}

void session_enable_calltree(struct session *s)
{
	for (int e = 0; e < s->nev; e++)
		if (!s->ev[e].tree)
			s->ev[e].tree = calltree_new(0);
}

void session_set_zoom(struct session *s, const struct sample_zoom *z)
{
	s->zoom = *z;
	/* The view's names may be of an older generation than the model's (a paused screen). */
	zoom_move_names(&s->zoom, symbolizer_name, s->sym);
	/* What was aggregated counted other samples and frames: start over, as a seek does. */
	session_zero_events(s);
	s->zoomed_ns = now_ns(); /* the profile's time starts over too (its per-second figures) */
}

void session_set_mode(struct session *s, enum profile_mode mode)
{
	for (int e = 0; e < s->nev; e++)
		profile_set_mode(s->ev[e].prof, mode);
}

void session_set_runq(struct session *s, enum runq_view v)
{
	s->runq = v;
}

enum runq_view session_runq(const struct session *s)
{
	return s->runq;
}

/* The call tree's picture of the window goes with the table's, then both decay alike. */
static void session_tree_window(struct session_event *ev, struct snapshot *snap, bool zero)
{
	if (ev->annot) {
		/* Annotate reads this window's picture, as the views read the snapshot's tree. */
		an_snapshot_free(ev->annot_snap);
		ev->annot_snap = annotate_snapshot(ev->annot);
		annotate_end_window(ev->annot, zero);
	}
	if (!ev->tree)
		return;
	snap->tree = calltree_snapshot(ev->tree);
	calltree_end_window(ev->tree, zero);
}

int session_wake_fd(struct session *s)
{
	return s->sampler ? sampler_wake_fd(s->sampler) : -1;
}

bool session_backlog(struct session *s)
{
	size_t len;
	return s->sampler && !s->replay && !s->feed && queue_peek(sampler_queue(s->sampler), &len);
}

const char *session_notice(struct session *s)
{
	if (s->event_notice[0])
		return s->event_notice;
	const char *n = symbolizer_notice(s->sym);
	if (!n)
		n = session_jvm_notice(s);
	return n || !s->py ? n : pystacks_notice(s->py);
}

const char *session_hint(struct session *s)
{
	return symbolizer_hint(s->sym);
}

const char *session_python_notice(struct session *s)
{
	return s->py ? pystacks_notice(s->py) : NULL;
}

const char *session_event_notice(struct session *s)
{
	return s->event_notice[0] ? s->event_notice : NULL;
}

int session_nevents(struct session *s)
{
	return s->nev;
}

int session_event(struct session *s)
{
	return s->cur;
}

void session_set_event(struct session *s, int ev)
{
	if (ev >= 0 && ev < s->nev)
		s->cur = ev;
}

/* The profile keeps raw symbols; the snapshot shows them demangled (or not), ordered by what shows.
 * It keeps its names' generation alive for as long as it lives (a view may show it after a
 * compaction). */
static struct snapshot *session_named(struct session *s, struct snapshot *snap, enum snap_col order)
{
	snap->names_gen = symbolizer_names_generation(s->sym);
	snap->names_hold = symbolizer_names_hold(s->sym);
	snap->names_release = symbolizer_names_release;
	if (s->diff)
		diff_apply(s->diff, snap); /* before the names: the gone rows are renamed too */
	session_rename(s, snap, symbolizer_demangling(s->sym));
	if (order == COL_SYM)
		snapshot_sort(snap, order);
	return snap;
}

int session_load_diff(struct session *s, const struct session_opts *opts, char *err, size_t errlen)
{
	struct session_opts *bo = xmalloc(sizeof(*bo)); /* inputs[] makes it 8 KB: off the stack */
	*bo = *opts;
	bo->input = opts->diff_base;
	bo->ninputs = 0;            /* BASE alone, not the session's -i files */
	bo->one_pass = true;        /* no scan: one pass, to the end */
	struct session *base = session_open_file(bo, err, errlen);
	free(bo);
	if (!base) {
		char why[512];
		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "--diff %s: %s", opts->diff_base, why);
		return -1;
	}
	replay_advance(base->replay, 1e300);
	/* Named as the table shows them, so a gone row reads like the others. */
	struct snapshot *snap = session_named(base, profile_snapshot(base->ev[0].prof, COL_SELF),
					      COL_SELF);
	s->diff = diff_base_new(snap);
	snapshot_free(snap);
	session_close(base);
	return 0;
}

/*
 * The symbolizer's names are bounded by compaction (symbolize/intern.h); it runs here, at the start
 * of a refresh, where no frame is in flight: everything the session and the model keep moves to
 * the new generation. What the view keeps comes back through session_name when it takes the
 * snapshot this refresh makes (tui_source.move_name).
 */
static void session_compact_names(struct session *s)
{
	symbolizer_compact_begin(s->sym);
	for (int e = 0; e < s->nev; e++) {
		struct session_event *ev = &s->ev[e];
		profile_move_names(ev->prof, symbolizer_name, s->sym);
		if (ev->tree)
			calltree_move_names(ev->tree, symbolizer_name, s->sym);
		if (ev->annot)
			annotate_move_names(ev->annot, symbolizer_name, s->sym);
		/* made again from the annotate histogram by this refresh */
		an_snapshot_free(ev->annot_snap);
		ev->annot_snap = NULL;
	}
	zoom_move_names(&s->zoom, symbolizer_name, s->sym);
	session_cgroups_move_names(s);
	if (s->col)
		stackcol_forget_names(s->col); /* its names are copies: only its pointer cache goes */
	if (s->col_push)
		stackcol_forget_names(s->col_push);
	session_export_move_names(s);
	if (s->memo)
		sample_memo_forget_all(s->memo); /* its names are the old generation's */
	for (int i = 0; i < SESSION_CODE_CACHE; i++)
		s->code[i].dso = symbolizer_name(s->sym, s->code[i].dso);
	symbolizer_compact_end(s->sym);
}

const char *session_name(void *session, const char *name)
{
	struct session *s = session;
	return symbolizer_name(s->sym, name);
}

/* cpu-clock and task-clock fire whenever anything runs: their silence is the target's. */
static bool session_event_always_fires(const struct session_event *ev)
{
	return ev->type == PERF_TYPE_SOFTWARE &&
	       (ev->config == PERF_COUNT_SW_CPU_CLOCK || ev->config == PERF_COUNT_SW_TASK_CLOCK);
}

/*
 * The not-fired notice of a live session: an event that opened but has had no sample after a few
 * refreshes, while the session saw other activity (another event's samples, or the target's
 * context switches or page faults), is named in the notice line: a probe on a function never
 * called, a breakpoint that the machine never fires (VMs). Cleared once it fires.
 */
static void session_check_fired(struct session *s, const struct sampler_stats *ss)
{
	s->event_notice[0] = '\0';
	if (++s->refreshes < SESSION_NOT_FIRED_REFRESHES)
		return;
	bool active = ss->samples > 0 ||
		      s->ctr_prev.value[COUNTER_CTX_SWITCHES] + s->ctr_prev.value[COUNTER_PAGE_FAULTS] > 0;
	int silent = -1, nsilent = 0;
	for (int e = 0; e < s->nev && active; e++) {
		if (ss->event_samples[e] || session_event_always_fires(&s->ev[e]))
			continue;
		if (!nsilent++)
			silent = e;
	}
	if (silent < 0)
		return;
	const struct session_event *ev = &s->ev[silent];
	char more[48] = "";
	if (nsilent > 1)
		snprintf(more, sizeof(more), " (nor %d other%s)", nsilent - 1, nsilent > 2 ? "s" : "");
	snprintf(s->event_notice, sizeof(s->event_notice), "event '%s' has not fired yet%s%s", ev->name,
		 ev->type == PERF_TYPE_BREAKPOINT ? " (hardware breakpoints may not fire in a VM)" : "",
		 more);
}

/* Ends every event's window, of secs seconds of what the profiles took in: each one's snapshot,
 * ordered and named, into snaps. */
static void session_end_windows(struct session *s, enum snap_col order, bool zero,
				struct snapshot **snaps, double secs)
{
	for (int e = 0; e < s->nev; e++) {
		struct session_event *ev = &s->ev[e];
		profile_add_window_secs(ev->prof, secs);
		struct snapshot *snap = profile_snapshot(ev->prof, order);
		profile_end_window(ev->prof, zero);
		session_tree_window(ev, snap, zero);
		ev->last_window_samples = snap->window_samples;
		snaps[e] = session_named(s, snap, order);
	}
}

int session_refresh_all(struct session *s, enum snap_col order, bool zero, struct snapshot **snaps)
{
	/* At a recording's end no sample brings names any more, so the pool stops growing where it
	 * is: a compaction there would move every name the rows hold (most of the last refresh of a
	 * batch replay of a big recording) for nothing. One that starts over compacts when due. */
	if (symbolizer_names_due(s->sym) && !(s->replay && replay_at_end(s->replay)))
		session_compact_names(s);
	for (int e = 0; e < s->nev; e++) {
		snapshot_free(s->ev[e].held);
		s->ev[e].held = NULL;
	}
	if (s->replay || s->feed) {
		/* windows of recorded time; the profiles' time is what of it the range lets in */
		double pos = session_recorded_pos(s), from = s->window_start_pos, to = pos;
		double rstart = 0, rend = -1;
		if (s->offcpu && s->offcpu_last_time)
			offcpu_flush(s->offcpu, s->offcpu_last_time, session_take_paired, s);
		if (s->replay)
			replay_get_range(s->replay, &rstart, &rend);
		from = rstart > from ? rstart : from;
		to = rend >= 0 && rend < to ? rend : to;
		session_end_windows(s, order, zero, snaps, to > from ? to - from : 0);
		session_export_window_end(s);
		s->last_window_secs = pos - s->window_start_pos;
		s->window_start_pos = pos;
		return s->nev;
	}
	symbolizer_release_pages(s->sym);
	uint64_t now = now_ns();
	uint64_t dropped = queue_dropped(sampler_queue(s->sampler));
	uint64_t from = s->zoomed_ns > s->window_start_ns ? s->zoomed_ns : s->window_start_ns;
	session_end_windows(s, order, zero, snaps, (double)(now - from) / 1e9);
	session_export_window_end(s);
	s->last_window_secs = (double)(now - s->window_start_ns) / 1e9;
	s->window_start_ns = now;
	session_counters_window(s, s->last_window_secs);
	s->last_window_dropped = dropped - s->dropped_at_window_start;
	if (s->last_window_dropped && s->py)  /* records the queue had no room for: as lost ones */
		pystacks_records_lost(s->py, 0);
	s->dropped_at_window_start = dropped;
	struct sampler_stats ss;
	sampler_get_stats(s->sampler, &ss);
	session_check_fired(s, &ss);
	return s->nev;
}

struct snapshot *session_refresh(struct session *s, enum snap_col order, bool zero)
{
	struct snapshot *snaps[SAMPLER_MAX_EVENTS];
	session_refresh_all(s, order, zero, snaps);
	for (int e = 0; e < s->nev; e++)
		if (e != s->cur)
			s->ev[e].held = snaps[e];
	return snaps[s->cur];
}

struct snapshot *session_switch_event(struct session *s, int ev, struct snapshot *shown)
{
	if (ev < 0 || ev >= s->nev || ev == s->cur)
		return shown;
	snapshot_free(s->ev[s->cur].held);
	s->ev[s->cur].held = shown;
	s->cur = ev;
	struct snapshot *snap = s->ev[ev].held;
	s->ev[ev].held = NULL;
	/* named as the view names now (m), in the names' current generation */
	if (snap)
		session_rename(s, snap, symbolizer_demangling(s->sym));
	return snap;
}

/* The share of DWARF-unwound samples whose chain reached the thread's root; -1 when none. */
static double session_unwound(struct session *s)
{
	struct symbolizer_stats ys;
	symbolizer_get_stats(s->sym, &ys);
	return ys.unwind_samples ? 100.0 * (double)ys.unwind_root / (double)ys.unwind_samples : -1;
}

void session_get_status_of(struct session *s, int e, struct session_status *st)
{
	struct sampler_stats ss;
	const struct session_event *ev = &s->ev[e >= 0 && e < s->nev ? e : s->cur];
	memset(st, 0, sizeof(*st));
	st->event = ev->name;
	st->freq = ev->freq;
	st->period = ev->period;
	st->window_secs = s->last_window_secs;
	if (s->last_window_secs > 0)
		st->samples_per_sec = (double)ev->last_window_samples / s->last_window_secs;
	st->target_text = s->target_text;
	st->unwound = session_unwound(s);
	if (s->pusher) {
		st->pushing = true;
		pusher_get_stats(s->pusher, &st->push);
	}
	if (s->replay || s->feed) {
		st->elapsed = session_recorded_pos(s);
		st->lost = s->replay_lost;
		session_status_counters(s, st, NULL);
		return;
	}
	sampler_get_stats(s->sampler, &ss);
	st->event_fell_back = sampler_event_fell_back(s->sampler);
	st->elapsed = s->start_ns ? (double)(now_ns() - s->start_ns) / 1e9 : 0;
	st->lost = ss.lost;
	st->dropped = ss.dropped;
	st->window_dropped = s->last_window_dropped;
	/* Exited only once the queue is empty too: the last records are part of the result. */
	size_t len;
	st->target_exited = ss.target_exited && !queue_peek(sampler_queue(s->sampler), &len);
	st->exit_status = ss.exit_status;
	st->command_name = s->command_name;
	st->has_pairing = s->mode != PROFILE_SAMPLES;
	st->pairing = ss.offcpu_stats;
	st->out_of_order = ss.out_of_order;
	session_status_counters(s, st, &ss);
}

void session_get_status(struct session *s, struct session_status *st)
{
	session_get_status_of(s, s->cur, st);
}
