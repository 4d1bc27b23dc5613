/*
 * session: wires sampler -> symbolizer -> profile on the main thread.
 *
 * The drain is bounded per call so that a flood of records cannot starve the view's key handling;
 * what is left stays in the queue for the next tick (the queue, not this loop, is where the sampler
 * counts what it has to drop).
 */
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampler/sampler.h"
#include "symbolize/symbolizer.h"
#include "util/util.h"

#define SESSION_MAX_FRAMES 512
#define SESSION_DRAIN_BUDGET 200000

struct session {
	struct sampler *sampler;
	struct symbolizer *sym;
	struct profile *prof;
	struct frame frames[SESSION_MAX_FRAMES];
	uint64_t start_ns;
	uint64_t window_start_ns;
	double last_window_secs;
	uint64_t dropped_at_window_start;
	uint64_t last_window_dropped;
	uint64_t last_window_samples;
	bool drained_after_exit;
	char target_text[256];
	const char *command_name;
	const char *output;        /* -o FILE */
	bool record_error_told;
};

struct session *session_open(const struct cli *c, char *err, size_t errlen)
{
	struct sampler_opts so = c->sampler;
	so.record_path = c->output;   /* -o: the sampler thread tees the rings into the file */
	struct sampler *sampler = sampler_open(&so, err, errlen);
	if (!sampler)
		return NULL;
	struct session *s = xcalloc(1, sizeof(*s));
	s->sampler = sampler;
	s->sym = symbolizer_new();
	s->prof = profile_new(c->keys, c->nkeys);
	snprintf(s->target_text, sizeof(s->target_text), "%s", c->target_text);
	if (c->sampler.target == TARGET_COMMAND)
		s->command_name = c->sampler.argv[0];
	s->output = c->output;
	return s;
}

int session_start(struct session *s, char *err, size_t errlen)
{
	int rc = sampler_start(s->sampler, err, errlen);
	s->start_ns = s->window_start_ns = now_ns();
	return rc < 0 ? -1 : 0;
}

void session_close(struct session *s)
{
	if (!s)
		return;
	sampler_stop(s->sampler);
	sampler_free(s->sampler);
	profile_free(s->prof);
	symbolizer_free(s->sym);
	free(s);
}

static void session_take(struct session *s, const struct rec *r)
{
	switch (r->type) {
	case REC_SAMPLE: {
		int n = symbolizer_sample(s->sym, r, s->frames, SESSION_MAX_FRAMES);
		struct sample_ctx ctx = {
			.comm = symbolizer_comm(s->sym, r->pid, r->tid),
			.pid = r->pid,
			.tid = r->tid,
			.period = r->u.sample.period,
			.frames = s->frames,
			.nframes = n,
		};
		profile_add(s->prof, &ctx);
		break;
	}
	case REC_LOST:
	case REC_LOST_SAMPLES:
		profile_add_lost(s->prof, r->u.lost.lost);
		break;
	default:
		symbolizer_feed(s->sym, r);
		break;
	}
}

long session_poll(struct session *s)
{
	struct queue *q = sampler_queue(s->sampler);
	long taken = 0;
	size_t len;
	const void *msg;
	while (taken < SESSION_DRAIN_BUDGET && (msg = queue_peek(q, &len)) != NULL) {
		if (len >= sizeof(struct rec))
			session_take(s, msg);
		queue_pop(q);
		taken++;
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
	return taken;
}

struct snapshot *session_refresh(struct session *s, enum snap_col order, bool zero)
{
	uint64_t now = now_ns();
	uint64_t dropped = queue_dropped(sampler_queue(s->sampler));
	struct snapshot *snap = profile_snapshot(s->prof, order);
	profile_end_window(s->prof, zero);
	s->last_window_secs = (double)(now - s->window_start_ns) / 1e9;
	s->last_window_samples = snap->window_samples;
	s->window_start_ns = now;
	s->last_window_dropped = dropped - s->dropped_at_window_start;
	s->dropped_at_window_start = dropped;
	return snap;
}

void session_get_status(struct session *s, struct session_status *st)
{
	struct sampler_stats ss;
	sampler_get_stats(s->sampler, &ss);
	memset(st, 0, sizeof(*st));
	st->event = sampler_event_name(s->sampler);
	st->event_fell_back = sampler_event_fell_back(s->sampler);
	st->freq = sampler_freq(s->sampler);
	st->period = sampler_period(s->sampler);
	st->elapsed = s->start_ns ? (double)(now_ns() - s->start_ns) / 1e9 : 0;
	st->window_secs = s->last_window_secs;
	if (s->last_window_secs > 0)
		st->samples_per_sec = (double)s->last_window_samples / s->last_window_secs;
	st->lost = ss.lost;
	st->dropped = ss.dropped;
	st->window_dropped = s->last_window_dropped;
	/* Exited only once the queue is empty too: the last records are part of the result. */
	size_t len;
	st->target_exited = ss.target_exited && !queue_peek(sampler_queue(s->sampler), &len);
	st->exit_status = ss.exit_status;
	st->target_text = s->target_text;
	st->command_name = s->command_name;
}
