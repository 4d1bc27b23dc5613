/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session_export: the session's stacks collected whole for the exports (--export at the end, the
 * view's w key per window) and for the pushes (one collection per push interval, handed to the
 * pusher's thread as an encoded body). The collectors describe each frame they see first through
 * the symbolizer (names, mappings, build-ids). Main thread only; the pusher owns its own thread.
 */
#include "session/session_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "container/container.h"
#include "model/filter.h"
#include "util/util.h"

/* What the collector asks of a frame it sees first: its demangled name and its mapping. */
static void session_describe_frame(void *ctx, uint32_t pid, const struct frame *f,
				   struct stackcol_desc *out)
{
	struct session *s = ctx;
	out->display = symbolizer_display_name(s->sym, f->sym);
	/* An inline frame's name carries perf's " (inlined)" mark; pprof says it with its lines
	 * instead, and its readers group by the function's own name. */
	static const char mark[] = " (inlined)";
	size_t n = strlen(out->display), m_len = sizeof(mark) - 1;
	if (f->inlined && n > m_len && strcmp(out->display + n - m_len, mark) == 0 &&
	    n - m_len < sizeof(s->export_name)) {
		memcpy(s->export_name, out->display, n - m_len);
		s->export_name[n - m_len] = '\0';
		out->display = s->export_name;
	}
	struct symbolizer_mapping m;
	if (f->dso && !strcmp(f->dso, PYSTACKS_DSO))
		return; /* a Python function: its address is its code object's, in no mapped file */
	if (f->kernel) {
		/* no range, but the running kernel's build-id, which symbol servers key vmlinux by */
		out->build_id_size = s->kernel_bid_size;
		memcpy(out->build_id, s->kernel_bid, s->kernel_bid_size);
		out->have_map = out->build_id_size > 0;
		return;
	}
	if (s->wframes && f >= s->wframes && f < s->wframes + s->wnframes) {
		/* read back from the w key's log: the mapping the address had when sampled */
		const struct stacklog_map *lm = stacklog_get_map(s->wread, s->wmaps[f - s->wframes]);
		if (!lm)
			return;
		m = (struct symbolizer_mapping){ .start = lm->start, .limit = lm->limit,
						 .offset = lm->offset, .path = lm->path,
						 .build_id = lm->build_id,
						 .build_id_size = lm->build_id_size };
	} else if (!symbolizer_mapping(s->sym, pid, f->addr, &m)) {
		return;
	}
	out->have_map = true;
	out->map_start = m.start;
	out->map_limit = m.limit;
	out->map_offset = m.offset;
	out->map_file = m.path;
	out->build_id_size = m.build_id_size <= sizeof(out->build_id) ? (uint8_t)m.build_id_size : 0;
	memcpy(out->build_id, m.build_id, out->build_id_size);
}

/* A collector whose frames the session describes; NULL with a message when out of memory. */
static struct stackcol *session_new_col(struct session *s, const char *what, char *err,
					size_t errlen)
{
	struct stackcol *c = stackcol_new(NULL);
	if (!c) {
		snprintf(err, errlen, "out of memory for the %s's stacks", what);
		return NULL;
	}
	stackcol_set_describe(c, session_describe_frame, s);
	return c;
}

/* What the w key's log keeps of a frame as it comes: the mapping session_describe_frame would ask
 * for (none for a Python function; the log asks nothing of kernel frames). */
static bool session_log_map(void *ctx, uint32_t pid, const struct frame *f,
			    struct stacklog_mapping *out)
{
	struct session *s = ctx;
	if (f->dso && !strcmp(f->dso, PYSTACKS_DSO)) {
		out->start = 0;  /* none for any of the process's Python functions */
		out->limit = UINT64_MAX;
		return false;
	}
	struct symbolizer_mapping m;
	if (!symbolizer_mapping(s->sym, pid, f->addr, &m))
		return false;
	*out = (struct stacklog_mapping){ .start = m.start, .limit = m.limit, .offset = m.offset,
					  .path = m.path, .build_id = m.build_id,
					  .build_id_size = m.build_id_size };
	return true;
}

/* Reads log into c in the order its samples came (frames described with the mappings they had),
 * then starts the log over. */
static void session_log_read(struct session *s, struct stacklog *log, struct stackcol *c)
{
	struct stacklog_entry e;
	size_t pos = 0;
	s->wread = log;
	while (stacklog_next(log, &pos, &e)) {
		s->wframes = e.ctx.frames;
		s->wmaps = e.maps;
		s->wnframes = (size_t)(e.ctx.nframes > 0 ? e.ctx.nframes : 0);
		stackcol_add(c, e.event, e.time, &e.ctx);
	}
	s->wframes = NULL;
	s->wmaps = NULL;
	s->wnframes = 0;
	s->wread = NULL;
	stacklog_reset(log);
}

void session_export_collect(struct session *s, int e, uint64_t time, const struct sample_ctx *ctx)
{
	if (s->wlog) {
		if (stacklog_add(s->wlog, e, time, ctx))
			return;
		session_log_read(s, s->wlog, s->col); /* full: the collector takes what it holds */
		if (stacklog_add(s->wlog, e, time, ctx))
			return;
	}
	stackcol_add(s->col, e, time, ctx);
}

void session_export_move_names(struct session *s)
{
	if (s->wlog)
		stacklog_move_names(s->wlog, symbolizer_name, s->sym);
	if (s->wlog_shown)
		stacklog_move_names(s->wlog_shown, symbolizer_name, s->sym);
	/* col_shown takes the shown log's samples later: its pointer cache must not outlive them */
	if (s->col_shown)
		stackcol_forget_names(s->col_shown);
}

void session_export_maps_changed(struct session *s, const struct rec *r)
{
	if (!s->wlog)
		return;
	uint32_t pid = 0;
	bool all = true; /* an EXIT may free any dead process's maps (maps.h's ring), r NULL: a sweep */
	if (r && r->type == REC_MMAP) {
		pid = r->u.mmap.pid;
		all = pid == UINT32_MAX; /* the kernel's */
	} else if (r && r->type == REC_COMM) {
		pid = r->u.comm.pid;
		all = false;
	} else if (r && r->type == REC_FORK) {
		pid = r->u.task.pid;
		all = false;
	}
	stacklog_maps_changed(s->wlog, pid, all);
}

void session_export_settle(struct session *s)
{
	if (s->wlog)
		session_log_read(s, s->wlog, s->col);
	if (s->wlog_shown)
		session_log_read(s, s->wlog_shown, s->col_shown);
}

/* The wall clock in ns since the epoch: what exports and pushes are dated with. */
static uint64_t session_real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int session_collect_start(struct session *s, char *err, size_t errlen)
{
	if (s->col)
		return 0;
	if (!(s->col = session_new_col(s, "export", err, errlen)))
		return -1;
	s->kernel_bid_size = (uint8_t)symbolizer_kernel_build_id(s->sym, s->kernel_bid,
								  sizeof(s->kernel_bid));
	session_export_reset(s);
	return 0;
}

/* pprof's lines and speedscope's files want the source lines of the addresses, native and Python
 * alike: an export and a push both turn them on. */
static void session_want_srclines(struct session *s)
{
	symbolizer_set_names(s->sym, s->inline_frames, true);
	if (s->py)
		pystacks_set_srclines(s->py, true);
}

int session_enable_export(struct session *s, char *err, size_t errlen)
{
	if (session_collect_start(s, err, errlen) < 0)
		return -1;
	session_want_srclines(s);
	return 0;
}

void session_export_reset(struct session *s)
{
	if (!s->col)
		return;
	stackcol_reset(s->col);
	if (s->wlog)
		stacklog_reset(s->wlog);
	s->export_start = s->replay || s->feed ? 0 : session_real_ns();
	s->export_first = s->export_last = 0;
}

/* What every export of the session says of its events and mode. */
static void session_export_events(const struct session *s, struct export_profile *out)
{
	out->mode = s->mode;
	out->nevents = s->nev < STACKCOL_MAX_EVENTS ? s->nev : STACKCOL_MAX_EVENTS;
	for (int e = 0; e < out->nevents; e++) {
		out->events[e].name = s->ev[e].name;
		out->events[e].period = s->ev[e].freq ? 0 : s->ev[e].period;
		out->events[e].freq = s->ev[e].freq;
	}
}

bool session_export_profile(struct session *s, struct export_profile *out)
{
	if (!s->col)
		return false;
	memset(out, 0, sizeof(*out));
	out->col = s->col;
	session_export_events(s, out);
	out->folded_container = s->fold_container;
	out->folded_cgroup = s->fold_cgroup;
	out->time_ns = s->export_start;
	if (s->export_start) {
		uint64_t now = session_real_ns();
		out->duration_ns = now > s->export_start ? now - s->export_start : 0;
	} else {
		out->duration_ns = s->export_last - s->export_first;
	}
	out->start_clock_ns = s->export_first;
	return true;
}

int session_export_write(struct session *s, const char *path, char *err, size_t errlen)
{
	struct export_profile p;
	if (!session_export_profile(s, &p)) {
		snprintf(err, errlen, "--export %s: nothing was collected", path);
		return -1;
	}
	return export_write_file(&p, path, err, errlen);
}

/* --- the view's exports: the window on screen --- */

int session_export_windows(struct session *s, char *err, size_t errlen)
{
	if (s->col_shown)
		return 0;
	/* No source lines asked for: the view pays for them only when one of its views needs them
	 * (the w key's files then have lines from that point on). */
	if (session_collect_start(s, err, errlen) < 0)
		return -1;
	if (!(s->col_shown = session_new_col(s, "export", err, errlen)))
		return -1;
	/* room for a few seconds of deep stacks at a high rate before the collector must take them */
	s->wlog = stacklog_new(SESSION_WLOG_BYTES, session_log_map, s);
	s->wlog_shown = stacklog_new(SESSION_WLOG_BYTES, session_log_map, s);
	if (!s->wlog || !s->wlog_shown) {
		stacklog_free(s->wlog);
		stacklog_free(s->wlog_shown);
		s->wlog = s->wlog_shown = NULL; /* the collector is fed as each sample comes instead */
	}
	return 0;
}

/* A window ended: what was collected in it is the one shown; the other starts over. */
void session_export_window_end(struct session *s)
{
	if (!s->col_shown)
		return;
	if (s->export_hold) {
		session_export_reset(s); /* a window the paused screen never shows */
		return;
	}
	struct stackcol *t = s->col_shown;
	s->col_shown = s->col;
	s->col = t;
	struct stacklog *l = s->wlog_shown;
	s->wlog_shown = s->wlog;
	s->wlog = l;
	struct export_profile p;
	session_export_profile(s, &p);
	s->shown_start = p.time_ns;
	s->shown_duration = p.duration_ns;
	s->shown_first = s->export_first;
	session_export_reset(s);
}

/* The view's filter over a collected stack: its command, its frames' names and dsos. */
static bool session_export_keep(void *ctx, const struct stackcol *c, const struct stackcol_key *k)
{
	const char *query = ctx;
	const char *comm = stackcol_string(c, k->comm);
	if (filter_names_match(query, &comm, 1))
		return true;
	size_t n;
	const uint32_t *ids = stackcol_stack(c, k->stack, &n);
	const struct stackcol_frame *fr = stackcol_frames(c);
	for (size_t i = 0; i < n; i++) {
		const char *names[2] = { stackcol_string(c, fr[ids[i]].display),
					 stackcol_string(c, fr[ids[i]].dso) };
		if (filter_names_match(query, names, 2))
			return true;
	}
	return false;
}

int session_export_window(struct session *s, const char *path, const char *filter, char *msg,
			  size_t len)
{
	struct export_profile p;
	if (!session_export_profile(s, &p)) {
		snprintf(msg, len, "this session collects no stacks to write");
		return -1;
	}
	if (s->col_shown) {
		if (s->wlog_shown)
			session_log_read(s, s->wlog_shown, s->col_shown);
		p.col = s->col_shown;
		p.time_ns = s->shown_start;
		p.duration_ns = s->shown_duration;
		p.start_clock_ns = s->shown_first;
	}
	if (filter && *filter) {
		p.keep = session_export_keep;
		p.keep_ctx = (void *)filter;
	}
	/* the view owns the terminal: the encoders' warnings go to the message instead */
	char err[512];
	if (export_write_file(&p, path, err, sizeof(err)) < 0) {
		snprintf(msg, len, "%s", err);
		return -1;
	}
	struct stackcol_stats st;
	stackcol_get_stats(p.col, &st);
	snprintf(msg, len, "wrote %s (of the window's %" PRIu64 " samples%s%s)", path, st.samples,
		 filter && *filter ? ", those matching " : "", filter && *filter ? filter : "");
	return 0;
}

void session_export_hold(struct session *s, bool hold)
{
	s->export_hold = hold;
}

/* --- push (pusher.h) --- */

/* --push: the pusher (its thread) and the push's collector; 0, or -1 with a message. */
int session_enable_push(struct session *s, const struct session_opts *opts, char *err, size_t errlen)
{
	if (!(s->pusher = pusher_open(opts, err, errlen)) ||
	    !(s->col_push = session_new_col(s, "push", err, errlen)))
		return -1;
	s->push_per_container = opts->push_per_container;
	session_want_srclines(s);
	return 0;
}

/* --- a window split per container (--push-per container) --- */

struct push_split {
	uint32_t ids[PUSHER_SERIES_MAX]; /* the series' containers (string ids; 0: unknown), sorted */
	int n;
	bool other;                      /* containers past them: summed into container=other */
};

/* What one series keeps of the collector's keys: its container's, or (other) those of none. */
struct push_keep {
	const struct push_split *sp;
	uint32_t id;
	bool other;
};

struct push_cw {
	uint32_t id;
	uint64_t samples;
};

static int push_cw_by_id(const void *a, const void *b)
{
	uint32_t x = ((const struct push_cw *)a)->id, y = ((const struct push_cw *)b)->id;
	return x < y ? -1 : x > y;
}

static int push_cw_by_samples(const void *a, const void *b)
{
	const struct push_cw *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return push_cw_by_id(a, b);
}

static int push_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The window's containers, those of most samples first, PUSHER_SERIES_MAX at most; false when
 * out of memory. */
static bool session_push_split(const struct stackcol *c, struct push_split *out)
{
	size_t nk = stackcol_nkeys(c), n = 0, m = 0;
	const struct stackcol_key *k = stackcol_keys(c);
	struct push_cw *cw = malloc((nk ? nk : 1) * sizeof(*cw));
	if (!cw)
		return false;
	for (size_t i = 0; i < nk; i++)
		if (k[i].samples)
			cw[n++] = (struct push_cw){ k[i].container, k[i].samples };
	qsort(cw, n, sizeof(*cw), push_cw_by_id);
	for (size_t i = 0; i < n; i++) {
		if (m && cw[m - 1].id == cw[i].id)
			cw[m - 1].samples += cw[i].samples;
		else
			cw[m++] = cw[i];
	}
	qsort(cw, m, sizeof(*cw), push_cw_by_samples);
	out->n = m > PUSHER_SERIES_MAX ? PUSHER_SERIES_MAX : (int)m;
	out->other = m > PUSHER_SERIES_MAX;
	for (int i = 0; i < out->n; i++)
		out->ids[i] = cw[i].id;
	qsort(out->ids, (size_t)out->n, sizeof(out->ids[0]), push_u32_cmp);
	free(cw);
	return true;
}

static bool session_push_keep(void *ctx, const struct stackcol *c, const struct stackcol_key *k)
{
	(void)c;
	const struct push_keep *pk = ctx;
	if (!pk->other)
		return k->container == pk->id;
	return !bsearch(&k->container, pk->sp->ids, (size_t)pk->sp->n, sizeof(pk->sp->ids[0]),
			push_u32_cmp);
}

/* ",key=value" appended to out when the value can be a label value: characters Pyroscope's series
 * syntax splits at become '_' (as the application name's do), a value cut at 200 bytes. */
static void push_series_label(char *out, size_t cap, const char *key, const char *value)
{
	char v[201];
	snprintf(v, sizeof(v), "%s", value ? value : "");
	push_sanitize_name(v);
	size_t n = strlen(out);
	if (v[0] && n < cap)
		snprintf(out + n, cap - n, "%s%s=%s", n ? "," : "", key, v);
}

/*
 * A series' labels: container=NAME, and pod=POD and namespace=NS where the container is a
 * Kubernetes one. Samples of no known cgroup get no container label at all rather than a made-up
 * value: Pyroscope's and Parca's selectors follow Prometheus's, where an absent label is the empty
 * one ({container=""} finds them), and no real container named "unknown" is mixed with them.
 */
static void session_push_labels(const struct session *s, const struct push_keep *pk, char *out,
				size_t cap)
{
	out[0] = '\0';
	if (pk->other) {
		push_series_label(out, cap, "container", "other");
		return;
	}
	if (!pk->id)
		return;
	const char *name = stackcol_string(s->col_push, pk->id);
	push_series_label(out, cap, "container", name);
	const struct container_name *cn = session_cgroups_labels(s, name);
	if (cn) {
		push_series_label(out, cap, "pod", cn->pod);
		push_series_label(out, cap, "namespace", cn->kns);
	}
}

/*
 * The body of the push window [from_ns, until_ns) (Unix ns): the push collector's stacks since the
 * last push (those keep takes, NULL: all) as a gzipped pprof dated with the window. Encoding is on
 * this thread (the collector is the session's); only the sending is the push thread's. NULL when
 * the encoder fails (said once).
 */
static void *session_push_body(struct session *s, int64_t from_ns, int64_t until_ns,
			       struct push_keep *keep, size_t *len)
{
	struct export_profile p;
	memset(&p, 0, sizeof(p));
	session_export_events(s, &p);
	p.col = s->col_push;
	p.time_ns = (uint64_t)from_ns;
	p.duration_ns = until_ns > from_ns ? (uint64_t)(until_ns - from_ns) : 0;
	if (keep) {
		p.keep = session_push_keep;
		p.keep_ctx = keep;
	}
	struct export_buf b = { 0 };
	char err[256];
	int rc = pprof_encode_gz(&p, &b, err, sizeof(err));
	if (rc < 0 || b.failed) {
		static bool told;
		if (!told)
			warn_msg("push: %s", rc < 0 ? err : "out of memory for the profile");
		told = true;
		export_buf_free(&b);
		return NULL;
	}
	*len = b.len;
	return b.data;
}

/* The window's series, one per container, each to the push thread. */
static void session_push_split_window(struct session *s, int64_t from, int64_t until, unsigned hz)
{
	struct push_split sp;
	if (!session_push_split(s->col_push, &sp)) {
		warn_msg("push: out of memory for the window's containers");
		return;
	}
	if (sp.other && !s->push_other_told) {
		warn_msg("push: more than %d containers in a window: the rest are pushed as "
			 "container=other", PUSHER_SERIES_MAX);
		s->push_other_told = true;
	}
	for (int i = 0; i < sp.n + sp.other; i++) {
		struct push_keep pk = { .sp = &sp, .id = i < sp.n ? sp.ids[i] : 0, .other = i == sp.n };
		char labels[PUSH_SERIES_LABELS];
		session_push_labels(s, &pk, labels, sizeof(labels));
		size_t len = 0;
		void *body = session_push_body(s, from, until, &pk, &len);
		if (body)
			pusher_submit(s->pusher, body, len, from, until, hz, labels);
	}
}

/* When a push window ends (or final: the session closes), its body goes to the push thread. */
void session_push_window(struct session *s, bool final)
{
	int64_t from, until;
	if (!pusher_due(s->pusher, final, &from, &until))
		return;
	unsigned hz = (unsigned)(s->ev[0].freq ? s->ev[0].freq : 100);
	if (s->push_per_container) {
		session_push_split_window(s, from, until, hz);
	} else {
		size_t len = 0;
		void *body = session_push_body(s, from, until, NULL, &len);
		if (body)
			pusher_submit(s->pusher, body, len, from, until, hz, NULL);
	}
	stackcol_reset(s->col_push);
}
