/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pusher: the session's side of --push (pusher.h).
 *
 * Windows are cut on the monotonic clock (the session's) and dated on the real-time clock (the
 * server's). The interval is jittered by up to 10% each way at every window, so that a fleet of
 * agents started together does not push in step. Pyroscope dates a window in whole seconds: both
 * ends are rounded down, so that a window's from is the last one's until, and a window shorter
 * than a second (the last) is given one (until > from: the server refuses an empty range).
 *
 * The default application name: the command's name for a command, the process's name for -p, and
 * the host name for the whole system (-a, -C) and for -t; a label hostname=HOST is added unless
 * --push-label gives one.
 */
#include "session/pusher.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

#define PUSHER_FLUSH_SECS 5.0

struct pusher {
	struct push *push;
	double interval;
	unsigned rng;
	bool started;
	uint64_t next_ns;            /* monotonic: when the window ends */
	int64_t from_ns;             /* real time: when it began */
};

static int64_t real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void default_name(const struct session_opts *c, const char *host, char *out, size_t cap)
{
	const struct sampler_opts *o = &c->sampler;
	out[0] = '\0';
	if (o->target == TARGET_COMMAND && o->argv && o->argv[0]) {
		const char *slash = strrchr(o->argv[0], '/');
		snprintf(out, cap, "%s", slash ? slash + 1 : o->argv[0]);
	} else if (o->target == TARGET_PIDS && o->nids > 0) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/comm", o->ids[0]);
		if (read_small_file(path, out, cap) > 0)
			out[strcspn(out, "\n")] = '\0';
	}
	if (!out[0])
		snprintf(out, cap, "%s", host);
	push_sanitize_name(out);
}

struct pusher *pusher_open(const struct session_opts *c, char *err, size_t errlen)
{
	err[0] = '\0';
	if (!c->push_url)
		return NULL;
	char host[256] = "";
	if (gethostname(host, sizeof(host) - 1) != 0 || !host[0])
		snprintf(host, sizeof(host), "localhost");
	char name[256];
	if (c->push_name)
		snprintf(name, sizeof(name), "%s", c->push_name);
	else
		default_name(c, host, name, sizeof(name));
	struct push_opts o = { .url = c->push_url, .app = name, .queue_max = c->push_queue,
			       .ca_file = c->push_cacert };
	/* --push-queue counts windows: a window split per container is up to PUSHER_SERIES_MAX + 1
	 * profiles, which the queue makes room for, as many windows' worth */
	if (c->push_per_container) {
		int q = c->push_queue > 0 ? c->push_queue : PUSH_QUEUE_DEFAULT;
		long want = (long)q * (PUSHER_SERIES_MAX + 1);
		o.queue_max = want > PUSH_QUEUE_MAX ? PUSH_QUEUE_MAX : (int)want;
	}
	bool have_host = false;
	for (int i = 0; i < c->npush_labels; i++) {
		o.labels[o.nlabels++] = c->push_labels[i];
		have_host = have_host || !strncmp(c->push_labels[i], "hostname=", 9);
	}
	char hostlabel[300];
	snprintf(hostlabel, sizeof(hostlabel), "hostname=%s", host);
	push_sanitize_name(hostlabel + 9);
	if (!have_host && o.nlabels < PUSH_MAX_LABELS)
		o.labels[o.nlabels++] = hostlabel;
	for (int i = 0; i < c->npush_headers; i++)
		o.headers[o.nheaders++] = c->push_headers[i];
	struct pusher *pp = xcalloc(1, sizeof(*pp));
	pp->push = push_new(&o, err, errlen); /* it copies what it keeps */
	if (!pp->push) {
		free(pp);
		return NULL;
	}
	pp->interval = c->push_interval > 0 ? c->push_interval : 10;
	pp->rng = (unsigned)(now_ns() ^ ((uint64_t)getpid() << 20));
	return pp;
}

static uint64_t jittered(struct pusher *pp)
{
	double r = (double)rand_r(&pp->rng) / ((double)RAND_MAX + 1);
	return (uint64_t)(pp->interval * (0.9 + 0.2 * r) * 1e9);
}

bool pusher_due(struct pusher *pp, bool final, int64_t *from_ns, int64_t *until_ns)
{
	uint64_t now = now_ns();
	if (!pp->started) {
		pp->started = true;
		pp->from_ns = real_ns();
		pp->next_ns = now + jittered(pp);
		if (!final)
			return false;
	}
	if (!final && now < pp->next_ns)
		return false;
	*from_ns = pp->from_ns;
	*until_ns = real_ns();
	pp->from_ns = *until_ns;
	pp->next_ns = now + jittered(pp);
	return true;
}

void pusher_submit(struct pusher *pp, void *body, size_t len, int64_t from_ns, int64_t until_ns,
		   unsigned hz, const char *series)
{
	int64_t from = from_ns / 1000000000, until = until_ns / 1000000000;
	if (until <= from)
		until = from + 1;
	push_submit_series(pp->push, body, len, from, until, hz, series);
}

void pusher_get_stats(struct pusher *pp, struct push_stats *st)
{
	push_get_stats(pp->push, st);
}

void pusher_close(struct pusher *pp)
{
	if (!pp)
		return;
	struct push_stats st;
	push_close(pp->push, PUSHER_FLUSH_SECS, &st);
	if (st.dropped)
		warn_msg("push: %llu of %llu profiles not sent (%llu failed requests; last: %s)",
			 (unsigned long long)st.dropped, (unsigned long long)st.submitted,
			 (unsigned long long)st.failed, st.last_error);
	free(pp);
}
