/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay: plays a perf.data file into a sink in recorded time.
 *
 * One record is looked at ahead (the reader's record by reference stays valid until the next
 * read), so "feed up to time t" stops exactly at the first record past t and picks it up on the
 * next call. The optional scan at open reads the file once (parse only, nothing is symbolized) to
 * find the first event with samples, the recording's duration and its samples-per-second histogram;
 * then the reader is rewound. Pipes cannot be scanned: their histogram grows as they are played.
 *
 * The events played: the one --select-event names, else every event of the file but perf's dummy
 * ones (side-band only); their samples make the duration and the histogram together.
 */
#include "session/replay.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perfdata/perfdata_ahead.h"
#include "util/util.h"

#define REPLAY_MAX_BINS (1u << 22)     /* seconds of histogram: weeks */
#define REPLAY_MAX_EVENTS 64           /* events played (a file may have more: the first ones) */
#define REPLAY_TICK_BUDGET 300000      /* records per tick at "as fast as it can go" */

struct hist {
	uint64_t *bins;
	size_t n, cap;
	uint64_t base;             /* time (ns) of bin 0 */
	bool based;
};

struct replay {
	struct perfdata_reader *rd;
	struct perfdata_ahead *ahead; /* reads rd on its own thread (a file in memory), or NULL */
	struct replay_sink sink;
	char path[256];
	/* The events played (file indices), and each file event's index among them (-1: not
	 * played). */
	size_t ev[REPLAY_MAX_EVENTS];
	size_t nev;
	int *played;
	size_t nfile_ev;
	size_t start_ev;           /* the first played event with samples (after a scan), else 0 */

	uint64_t t0;               /* first sample of the played events (ns) */
	bool t0_known;
	uint64_t last_time;        /* last sample of the played events seen (ns) */
	bool scanned;              /* duration and histogram are those of the whole file */
	bool no_histogram;
	double duration;

	const struct rec *pending; /* read but not fed yet (past the time asked for) */
	size_t bids_seen;          /* perfdata_build_ids already passed to the sink */
	bool at_end;
	double pos;

	double range_start, range_end;

	struct hist hist;

	double speed;
	bool paused;
	uint64_t last_wall;

	char **lines;
	size_t nlines;
	char warning[512];
};

static void hist_add(struct hist *h, uint64_t time)
{
	if (!h->based) {
		h->base = time;
		h->based = true;
	}
	uint64_t b = time > h->base ? (time - h->base) / 1000000000ull : 0;
	if (b >= REPLAY_MAX_BINS)
		b = REPLAY_MAX_BINS - 1;
	if (b >= h->n) {
		xgrow((void **)&h->bins, &h->cap, (size_t)b + 1, sizeof(uint64_t));
		memset(h->bins + h->n, 0, ((size_t)b + 1 - h->n) * sizeof(uint64_t));
		h->n = (size_t)b + 1;
	}
	h->bins[b]++;
}

/* "cpu-clock" matches "cpu-clock" and "cpu-clock:ppp" (perf's modifiers). */
static bool name_matches(const char *have, const char *want)
{
	size_t n = strlen(want);
	return strcasecmp(have, want) == 0 ||
	       (strncasecmp(have, want, n) == 0 && have[n] == ':');
}

/* Reads the whole file once: the played events' time span and histogram (one, of all of them),
 * and the first of them with samples; then rewinds. */
static void replay_scan_played(struct replay *rp)
{
	const struct rec *r;
	uint64_t first = 0, last = 0, samples = 0;
	bool has[REPLAY_MAX_EVENTS] = { false };
	while (perfdata_next_ref(rp->rd, &r) > 0) {
		if (r->type != REC_SAMPLE || r->evidx >= rp->nfile_ev || rp->played[r->evidx] < 0)
			continue;
		has[rp->played[r->evidx]] = true;
		if (!samples++)
			first = r->time;
		if (r->time > last)
			last = r->time;
		hist_add(&rp->hist, r->time);
	}
	for (size_t k = rp->nev; k-- > 0;)
		if (has[k])
			rp->start_ev = k;
	rp->scanned = true;
	rp->duration = samples ? (double)(last - first) / 1e9 : 0;
	perfdata_rewind(rp->rd);
}

/* "no event named X in FILE (it has: a, b)". */
static void replay_no_event(struct replay *rp, const char *want, char *err, size_t errlen)
{
	char names[256] = "";
	size_t used = 0, nev = perfdata_nevents(rp->rd);
	for (size_t i = 0; i < nev && used < sizeof(names) - 1; i++) {
		int n = snprintf(names + used, sizeof(names) - used, "%s%s", i ? ", " : "",
				 perfdata_event(rp->rd, i)->name);
		if (n > 0)
			used += (size_t)n;
	}
	snprintf(err, errlen, "no event named '%s' in %s (it has: %s)", want, rp->path, names);
}

struct replay *replay_open(const struct replay_opts *o, const struct replay_sink *sink, char *err,
			   size_t errlen)
{
	struct perfdata_reader *rd = o->npaths > 1 ? perfdata_open_files(o->paths, o->npaths, err, errlen)
						 : perfdata_open(o->path, err, errlen);
	if (!rd)
		return NULL;
	struct replay *rp = xcalloc(1, sizeof(*rp));
	rp->rd = rd;
	rp->sink = *sink;
	snprintf(rp->path, sizeof(rp->path), "%s", o->path);
	rp->range_start = 0;
	rp->range_end = INFINITY;
	rp->speed = 1.0;
	rp->no_histogram = o->no_histogram;
	rp->lines = perfdata_header_lines(rd, &rp->nlines);

	size_t nev = perfdata_nevents(rd);
	if (o->event) {
		for (size_t i = 0; i < nev && !rp->nev; i++)
			if (name_matches(perfdata_event(rd, i)->name, o->event))
				rp->ev[rp->nev++] = i;
		if (!rp->nev) {
			replay_no_event(rp, o->event, err, errlen);
			replay_close(rp);
			return NULL;
		}
	} else {
		for (size_t i = 0; i < nev && rp->nev < REPLAY_MAX_EVENTS; i++)
			if (!perfdata_event_is_dummy(rd, i))
				rp->ev[rp->nev++] = i;
		if (!rp->nev)
			rp->ev[rp->nev++] = 0; /* only dummies: nothing will show, but say which */
	}
	rp->nfile_ev = nev;
	rp->played = xmalloc((nev ? nev : 1) * sizeof(*rp->played));
	for (size_t i = 0; i < nev; i++)
		rp->played[i] = -1;
	for (size_t k = 0; k < rp->nev; k++)
		rp->played[rp->ev[k]] = (int)k;
	if (o->scan && perfdata_rewind(rd) == 0)
		replay_scan_played(rp);
	if (perfdata_in_memory(rd)) {
		rp->ahead = perfdata_ahead_new(rd);
	} else if (o->nowait && perfdata_is_stream(rd)) {
		rp->ahead = perfdata_ahead_new(rd);
		perfdata_ahead_set_nowait(rp->ahead);
	}
	return rp;
}

void replay_close(struct replay *rp)
{
	if (!rp)
		return;
	perfdata_ahead_free(rp->ahead);
	perfdata_close(rp->rd);
	perfdata_free_lines(rp->lines, rp->nlines);
	free(rp->hist.bins);
	free(rp->played);
	free(rp);
}

size_t replay_nevents(const struct replay *rp)
{
	return rp->nev;
}

size_t replay_start_event(const struct replay *rp)
{
	return rp->start_ev;
}

int replay_event_of(const struct replay *rp, uint32_t evidx)
{
	return evidx < rp->nfile_ev ? rp->played[evidx] : -1;
}

static const struct perfdata_event *played_event(const struct replay *rp, size_t k)
{
	return perfdata_event(rp->rd, rp->ev[k < rp->nev ? k : 0]);
}

const char *replay_event_name(const struct replay *rp, size_t k)
{
	return played_event(rp, k)->name;
}

void replay_event_rate(const struct replay *rp, size_t k, uint64_t *freq, uint64_t *period)
{
	const struct perf_event_attr *a = &played_event(rp, k)->attr;
	*freq = a->freq ? a->sample_freq : 0;
	*period = a->freq ? 0 : a->sample_period;
}

const char *replay_switch_format(const struct replay *rp)
{
	const char *f = perfdata_info(rp->rd)->switch_format;
	return f[0] ? f : NULL;
}

bool replay_user_stacks(const struct replay *rp)
{
	bool any = false;
	/* A user stack with the user part of the callchain left out is DWARF mode's; with it, the
	 * stack serves the first frames of a frame-pointer chain (--call-graph fp+cfi). */
	for (size_t k = 0; k < rp->nev; k++) {
		const struct perf_event_attr *a = &played_event(rp, k)->attr;
		any |= (a->sample_type & PERF_SAMPLE_STACK_USER) && a->exclude_callchain_user;
	}
	return any;
}

const char *replay_path(const struct replay *rp)
{
	return rp->path;
}

bool replay_seekable(const struct replay *rp)
{
	return strcmp(rp->path, "-") != 0;
}

static double rel_secs(const struct replay *rp, uint64_t time)
{
	return time > rp->t0 ? (double)(time - rp->t0) / 1e9 : 0.0;
}

double replay_duration(const struct replay *rp)
{
	if (rp->scanned)
		return rp->duration;
	return rp->t0_known ? rel_secs(rp, rp->last_time) : 0;
}

const uint64_t *replay_histogram(const struct replay *rp, size_t *nsecs)
{
	*nsecs = rp->hist.n;
	return rp->hist.bins;
}

double replay_position(const struct replay *rp)
{
	return rp->pos;
}

bool replay_at_end(const struct replay *rp)
{
	return rp->at_end;
}

bool replay_is_stream(const struct replay *rp)
{
	return perfdata_is_stream(rp->rd);
}

void replay_set_range(struct replay *rp, double start, double end)
{
	rp->range_start = start > 0 ? start : 0;
	/* The range is half-open, but an end at the recording's end (] at END) is the end of the
	 * recording: its last sample, at exactly that time, is in. */
	bool at_recording_end = (rp->scanned || rp->at_end) && end >= replay_duration(rp);
	rp->range_end = end < 0 || at_recording_end ? INFINITY : end;
}

void replay_get_range(const struct replay *rp, double *start, double *end)
{
	*start = rp->range_start;
	*end = rp->range_end;
}

/* The build-ids the reader has met since the last call, to the sink. A stream's come as binaries
 * are first hit, just before the samples in them: asked after each record is read, so that the
 * symbolizer has a binary's before its first sample (the reader publishes them before handing
 * over the records that follow). */
static void replay_pass_build_ids(struct replay *rp)
{
	size_t n;
	const struct perfdata_build_id *const *b = perfdata_build_ids(rp->rd, &n);
	for (; rp->bids_seen < n; rp->bids_seen++)
		rp->sink.build_id(rp->sink.ctx, b[rp->bids_seen]->path, b[rp->bids_seen]->bid,
				  b[rp->bids_seen]->size);
}

/* The next record in time order: from the reader's thread when it has one. */
static int replay_next(struct replay *rp, const struct rec **r)
{
	int rc = rp->ahead ? perfdata_ahead_next(rp->ahead, r) : perfdata_next_ref(rp->rd, r);
	if (rp->sink.build_id)
		replay_pass_build_ids(rp);
	return rc;
}

/* Feeds records up to recorded time t, at most budget of them (0: no limit). */
static long feed_until(struct replay *rp, double t, long budget)
{
	long fed = 0;
	double last_rel = rp->pos;
	bool waiting = false;      /* a stream's records have not come yet */
	for (;;) {
		if (!rp->pending) {
			int rc = rp->at_end ? 0 : replay_next(rp, &rp->pending);
			if (rc == -EAGAIN) {   /* a stream: nothing more yet */
				rp->pending = NULL;
				waiting = true;
				break;
			}
			if (rc <= 0) {
				rp->pending = NULL;
				rp->at_end = true;
				break;
			}
		}
		const struct rec *r = rp->pending;
		if (r->type == REC_SAMPLE) {
			if (r->evidx < rp->nfile_ev && rp->played[r->evidx] >= 0) {
				if (!rp->t0_known) {
					rp->t0 = r->time;
					rp->t0_known = true;
				}
				double rel = rel_secs(rp, r->time);
				if (rel > t)
					break;
				if (r->time > rp->last_time)
					rp->last_time = r->time;
				if (!rp->scanned && !rp->no_histogram)
					hist_add(&rp->hist, r->time);
				if (rel >= rp->range_start && rel < rp->range_end)
					rp->sink.record(rp->sink.ctx, r);
				last_rel = rel;
			}
			/* samples of the other events are not part of this view */
		} else {
			if (rp->t0_known && r->time > rp->t0 && rel_secs(rp, r->time) > t)
				break;
			rp->sink.record(rp->sink.ctx, r);
		}
		rp->pending = NULL;
		if (++fed >= budget && budget > 0)
			break;
	}
	if (rp->at_end)
		rp->pos = isfinite(t) && t < replay_duration(rp) ? t : replay_duration(rp);
	else if (budget > 0 && fed >= budget)
		rp->pos = last_rel;
	else if (waiting && t > replay_duration(rp)) /* playback waits at the stream's edge */
		rp->pos = rp->pos > replay_duration(rp) ? rp->pos : replay_duration(rp);
	else if (t > rp->pos)
		rp->pos = t;
	return fed;
}

long replay_advance(struct replay *rp, double t)
{
	return feed_until(rp, t, 0);
}

int replay_seek(struct replay *rp, double t)
{
	int rc = rp->ahead ? perfdata_ahead_rewind(rp->ahead) : perfdata_rewind(rp->rd);
	if (rc < 0)
		return rc;
	rp->pending = NULL;
	rp->at_end = false;
	rp->pos = 0;
	if (rp->sink.reset)
		rp->sink.reset(rp->sink.ctx);
	feed_until(rp, t < 0 ? 0 : t, 0);
	return 0;
}

void replay_set_speed(struct replay *rp, double speed)
{
	rp->speed = speed;
}

double replay_speed(const struct replay *rp)
{
	return rp->speed;
}

void replay_set_paused(struct replay *rp, bool paused)
{
	rp->paused = paused;
}

bool replay_paused(const struct replay *rp)
{
	return rp->paused;
}

long replay_tick(struct replay *rp, uint64_t wall_ns)
{
	uint64_t dt = rp->last_wall && wall_ns > rp->last_wall ? wall_ns - rp->last_wall : 0;
	rp->last_wall = wall_ns;
	if (rp->paused || rp->at_end)
		return 0;
	if (rp->speed <= 0)
		return feed_until(rp, INFINITY, REPLAY_TICK_BUDGET);
	/* the first tick feeds what precedes the first sample (the side-band of the start) */
	return feed_until(rp, rp->pos + (double)dt / 1e9 * rp->speed, REPLAY_TICK_BUDGET);
}

char *const *replay_header_lines(const struct replay *rp, size_t *n)
{
	*n = rp->nlines;
	return rp->lines;
}

void replay_get_stats(const struct replay *rp, struct perfdata_stats *st)
{
	if (rp->ahead)
		perfdata_ahead_get_stats(rp->ahead, st);
	else
		perfdata_get_stats(rp->rd, st);
}

/* perf's enum auxtrace_type, as its tools name the traces. */
static const char *aux_kind(uint32_t type)
{
	static const char *const kinds[] = { "an AUX area", "an Intel PT", "an Intel BTS",
					     "a CoreSight ETM", "an Arm SPE", "an s390 CPU-MF",
					     "a HiSilicon PTT" };
	return type < sizeof(kinds) / sizeof(kinds[0]) ? kinds[type] : kinds[0];
}

const char *replay_warning(struct replay *rp)
{
	struct perfdata_stats st;
	replay_get_stats(rp, &st);
	char aux[160] = "";
	/* The trace's branches are perf's to decode into samples: what is shown here lacks them. */
	if (st.aux_records)
		snprintf(aux, sizeof(aux), "%s trace is in the recording and not decoded here "
			 "(perf script --itrace decodes it)%s", aux_kind(st.aux_type),
			 st.warning[0] || st.bad_records ? "; " : "");
	if (st.warning[0])
		snprintf(rp->warning, sizeof(rp->warning), "%.60s: %s%.255s", rp->path, aux, st.warning);
	else if (st.bad_records) {
		/* which kinds: "7 records did not parse and were skipped (5 MMAP2, 2 type 99)" */
		char kinds[128] = "";
		size_t k = 0;
		for (size_t i = 0; i < sizeof(st.bad_kinds) / sizeof(st.bad_kinds[0]); i++) {
			if (!st.bad_kinds[i].n || k >= sizeof(kinds))
				continue;
			const char *name = perfdata_record_name(st.bad_kinds[i].type);
			int w = name ? snprintf(kinds + k, sizeof(kinds) - k, "%s%llu %s", k ? ", " : "",
						(unsigned long long)st.bad_kinds[i].n, name)
				     : snprintf(kinds + k, sizeof(kinds) - k, "%s%llu of type %u",
						k ? ", " : "", (unsigned long long)st.bad_kinds[i].n,
						st.bad_kinds[i].type);
			k += w > 0 ? (size_t)w : 0;
		}
		snprintf(rp->warning, sizeof(rp->warning),
			 "%.60s: %s%llu records did not parse and were skipped (%s)", rp->path, aux,
			 (unsigned long long)st.bad_records, kinds[0] ? kinds : "?");
	}
	else if (aux[0])
		snprintf(rp->warning, sizeof(rp->warning), "%.60s: %s", rp->path, aux);
	else
		return NULL;
	return rp->warning;
}
