/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * push: the push thread (push.h says what it is for and what it counts).
 *
 * DESIGN: one mutex guards the queue, the stats and the stop request; the thread holds it except
 * while a request is on the network, so push_submit and push_get_stats on the main thread wait at
 * most for a queue operation. The curl handle and the request's buffers are the thread's alone.
 * The thread sends the oldest profile; a failure that may pass (no connection, a timeout, a 5xx)
 * puts it back at the front and waits a backoff, on the condition variable so that a close wakes
 * it; a 4xx, or the fifth failure, gives it up. Closing sets a deadline: queued profiles get one
 * try each until then (no more backoff), and the transfer in flight is aborted at it by curl's
 * progress callback (which curl calls about once a second on an idle transfer), so a dead or
 * hanging server delays an exit by at most the flush time and a second.
 */
#include "push/push.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "push/lazycurl.h"
#include "push/push_int.h"
#include "util/util.h"

struct push {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;           /* a profile came, or a close */
	/* Under mu. */
	struct push_queue q;
	struct push_stats st;
	bool inflight;
	bool stopping;
	bool started;                /* the thread: started at the first submit (below) */
	uint64_t deadline_ns;        /* when stopping: the end of the flush */
	/* Set before the thread starts, read-only after. */
	const struct lazy_curl *curl; /* libcurl's functions (loaded by push_new) */
	struct push_target t;
	char *app;
	char *labels[PUSH_MAX_LABELS];
	int nlabels;
	struct curl_slist *headers;
	long connect_ms, timeout_ms;
	double backoff_base, backoff_max;
	/* The CA certificates to trust instead of the system's, as curl(1) takes them from the
	 * environment (CURL_CA_BUNDLE, else SSL_CERT_FILE; SSL_CERT_DIR): for a server whose
	 * certificate a private CA signed. NULL: libcurl's default. */
	const char *ca_file, *ca_dir;
	struct push_secrets secrets; /* masked out of last_error */
	/* The thread's own. */
	unsigned rng;
	char reply[200];             /* the start of the server's answer, for last_error */
	size_t reply_len;
};

static uint64_t mono_ns(void)
{
	return now_ns();
}

/* now + ns as the condition variable's absolute CLOCK_MONOTONIC time. */
static struct timespec abs_after(uint64_t ns)
{
	uint64_t t = mono_ns() + ns;
	return (struct timespec){ .tv_sec = (time_t)(t / 1000000000ull),
				  .tv_nsec = (long)(t % 1000000000ull) };
}

static size_t push_on_reply(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct push *p = ctx;
	size_t n = size * nmemb, room = sizeof(p->reply) - 1 - p->reply_len;
	memcpy(p->reply + p->reply_len, data, n < room ? n : room);
	p->reply_len += n < room ? n : room;
	p->reply[p->reply_len] = '\0';
	return n;
}

/* Aborts the transfer once a close's deadline has passed. */
static int push_on_progress(void *ctx, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	(void)dt, (void)dn, (void)ut, (void)un;
	struct push *p = ctx;
	pthread_mutex_lock(&p->mu);
	bool late = p->stopping && mono_ns() >= p->deadline_ns;
	pthread_mutex_unlock(&p->mu);
	return late;
}

/* The server's answer as one short line for last_error. */
static void reply_line(char *out, size_t cap, long status, const char *reply)
{
	char text[120];
	size_t n = 0;
	for (const char *c = reply; *c && n + 1 < sizeof(text); c++)
		text[n++] = (*c == '\n' || *c == '\r' || *c == '\t') ? ' ' : *c;
	while (n && text[n - 1] == ' ')
		n--;
	text[n] = '\0';
	snprintf(out, cap, "HTTP %ld%s%s", status, n ? ": " : "", text);
}

/* One request for it: the HTTP status, or 0 on a network error; err says what went wrong. */
static long push_send(struct push *p, CURL *curl, const struct push_item *it, char *err,
		      size_t errlen)
{
	char url[sizeof(p->t.base) + 16384];
	const void *body = it->data;
	size_t body_len = it->len;
	char *json = NULL;
	/* the push's labels, then the series' own (split at their commas, which no value holds) */
	const char *labels[PUSH_MAX_LABELS + PUSH_SERIES_LABELS / 4];
	char series[PUSH_SERIES_LABELS];
	int nlabels = 0;
	for (int i = 0; i < p->nlabels; i++)
		labels[nlabels++] = p->labels[i];
	snprintf(series, sizeof(series), "%s", it->series);
	for (char *tok = series, *next; tok && *tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		if (nlabels < (int)(sizeof(labels) / sizeof(labels[0])))
			labels[nlabels++] = tok;
	}
	if (p->t.kind == PUSH_PARCA) {
		snprintf(url, sizeof(url), "%s/api/profiles/writeraw", p->t.base);
		body = json = push_parca_body(it->data, it->len, p->app, labels, nlabels, &body_len);
	} else if (push_ingest_url(url, sizeof(url), p->t.base, p->app, labels, nlabels, it->from,
				   it->until, it->hz) < 0) {
		snprintf(err, errlen, "the ingest URL is too long");
		return 400; /* it will not get shorter: given up */
	}
	const struct lazy_curl *lc = p->curl;
	char cerr[CURL_ERROR_SIZE] = "";
	lc->easy_reset(curl);
	lc->easy_setopt(curl, CURLOPT_URL, url);
	lc->easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
	lc->easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	lc->easy_setopt(curl, CURLOPT_USERAGENT, "perftop");
	lc->easy_setopt(curl, CURLOPT_POST, 1L);
	lc->easy_setopt(curl, CURLOPT_POSTFIELDS, body);
	lc->easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
	lc->easy_setopt(curl, CURLOPT_HTTPHEADER, p->headers);
	lc->easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, p->connect_ms);
	lc->easy_setopt(curl, CURLOPT_TIMEOUT_MS, p->timeout_ms);
	lc->easy_setopt(curl, CURLOPT_ERRORBUFFER, cerr);
	lc->easy_setopt(curl, CURLOPT_WRITEFUNCTION, push_on_reply);
	lc->easy_setopt(curl, CURLOPT_WRITEDATA, p);
	lc->easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
	lc->easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, push_on_progress);
	lc->easy_setopt(curl, CURLOPT_XFERINFODATA, p);
	/* libcurl's defaults, said here so that no change turns them off: the server's certificate
	 * is checked against the CAs, and its name against the URL's host */
	lc->easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
	lc->easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
	if (p->ca_file)
		lc->easy_setopt(curl, CURLOPT_CAINFO, p->ca_file);
	if (p->ca_dir)
		lc->easy_setopt(curl, CURLOPT_CAPATH, p->ca_dir);
	if (p->t.auth) {
		lc->easy_setopt(curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		lc->easy_setopt(curl, CURLOPT_USERNAME, p->t.user);
		lc->easy_setopt(curl, CURLOPT_PASSWORD, p->t.password);
	}
	p->reply_len = 0;
	p->reply[0] = '\0';
	CURLcode rc = lc->easy_perform(curl);
	free(json);
	if (rc != CURLE_OK) {
		snprintf(err, errlen, "%s", cerr[0] ? cerr : lc->easy_strerror(rc));
		return 0;
	}
	long status = 0;
	lc->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	if (push_verdict_of(status) != PUSH_SENT)
		reply_line(err, errlen, status, p->reply);
	return status;
}

/* After a failure that may pass: waits the backoff, or until a close. Holds mu. */
static void push_wait_backoff(struct push *p, int attempts)
{
	double r = (double)rand_r(&p->rng) / ((double)RAND_MAX + 1);
	double secs = push_backoff(attempts, p->backoff_base, p->backoff_max, r);
	struct timespec until = abs_after((uint64_t)(secs * 1e9));
	while (!p->stopping) {
		if (pthread_cond_timedwait(&p->cv, &p->mu, &until) != 0)
			break; /* ETIMEDOUT */
	}
}

/* What one request's outcome does to it and the stats. Holds mu. */
static void push_settle(struct push *p, struct push_item *it, long status, const char *err)
{
	it->attempts++;
	enum push_verdict v = push_verdict_of(status);
	if (v == PUSH_SENT) {
		p->st.sent++;
		free(it->data);
		return;
	}
	p->st.failed++;
	snprintf(p->st.last_error, sizeof(p->st.last_error), "%s", err);
	push_secrets_mask(&p->secrets, p->st.last_error);
	if (v == PUSH_GIVE_UP || it->attempts >= PUSH_MAX_ATTEMPTS || p->stopping) {
		p->st.dropped++;
		free(it->data);
		return;
	}
	p->st.dropped += push_queue_unget(&p->q, it);
	push_wait_backoff(p, it->attempts);
}

static void *push_main(void *arg)
{
	struct push *p = arg;
	CURL *curl = p->curl->easy_init();
	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct push_item it;
		if (!push_queue_take(&p->q, &it)) {
			if (p->stopping)
				break;
			pthread_cond_wait(&p->cv, &p->mu);
			continue;
		}
		if (!curl || (p->stopping && mono_ns() >= p->deadline_ns)) {
			if (!curl)
				snprintf(p->st.last_error, sizeof(p->st.last_error), "libcurl would not start");
			free(it.data);
			p->st.dropped++;
			continue;
		}
		p->inflight = true;
		pthread_mutex_unlock(&p->mu);
		char err[160] = "";
		long status = push_send(p, curl, &it, err, sizeof(err));
		pthread_mutex_lock(&p->mu);
		p->inflight = false;
		push_settle(p, &it, status, err);
	}
	pthread_mutex_unlock(&p->mu);
	if (curl)
		p->curl->easy_cleanup(curl);
	return NULL;
}

static long ms_or(double secs, long dflt)
{
	return secs > 0 ? (long)(secs * 1000) : dflt;
}

static void push_free(struct push *p)
{
	push_queue_done(&p->q);
	push_secrets_free(&p->secrets);
	if (p->headers)
		p->curl->slist_free_all(p->headers);
	for (int i = 0; i < p->nlabels; i++)
		free(p->labels[i]);
	free(p->app);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

/* The options' checks again (a caller other than the command line) and their copies. */
static int push_configure(struct push *p, const struct push_opts *o, char *err, size_t errlen)
{
	if (push_check_url(o->url, err, errlen) || push_split_url(o->url, &p->t) ||
	    push_check_name(o->app, err, errlen))
		return -1;
	if (o->nlabels > PUSH_MAX_LABELS || o->nheaders > PUSH_MAX_HEADERS) {
		snprintf(err, errlen, "at most %d labels and %d headers", PUSH_MAX_LABELS,
			 PUSH_MAX_HEADERS);
		return -1;
	}
	p->app = xstrdup(o->app);
	for (int i = 0; i < o->nlabels; i++) {
		if (push_check_label(o->labels[i], err, errlen))
			return -1;
		p->labels[p->nlabels++] = xstrdup(o->labels[i]);
	}
	/* Pyroscope's body is a gzipped pprof file as it is (no Content-Encoding: the server unpacks
	 * it as pprof files are), Parca's the JSON of a WriteRawRequest; "Expect:" off, so curl does
	 * not wait for a 100 Continue. */
	p->headers = p->curl->slist_append(p->headers, p->t.kind == PUSH_PARCA
							       ? "Content-Type: application/json"
							       : "Content-Type: application/octet-stream");
	p->headers = p->curl->slist_append(p->headers, "Expect:");
	for (int i = 0; i < o->nheaders; i++) {
		if (push_check_header(o->headers[i], err, errlen))
			return -1;
		p->headers = p->curl->slist_append(p->headers, o->headers[i]);
		push_secrets_add_header(&p->secrets, o->headers[i]);
	}
	if (p->t.auth) {
		/* the password, and basic auth's header value as a server would quote it back */
		char pair[sizeof(p->t.user) + sizeof(p->t.password)];
		char b64[4 * (sizeof(pair) + 2) / 3 + 1];
		int n = snprintf(pair, sizeof(pair), "%s:%s", p->t.user, p->t.password);
		push_secrets_add(&p->secrets, p->t.password, strlen(p->t.password));
		push_secrets_add(&p->secrets, b64, push_base64(b64, (const unsigned char *)pair,
							       (size_t)n));
	}
	if (!p->headers) {
		snprintf(err, errlen, "out of memory for the push's headers");
		return -1;
	}
	p->connect_ms = ms_or(o->connect_timeout, 5000);
	p->timeout_ms = ms_or(o->timeout, 15000);
	p->backoff_base = o->backoff_base > 0 ? o->backoff_base : 0.5;
	p->backoff_max = o->backoff_max > 0 ? o->backoff_max : 8;
	return 0;
}

/* An environment variable's value, NULL when unset or empty (read once, before the thread
 * starts: getenv is not safe beside a setenv elsewhere). */
static const char *push_env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

struct push *push_new(const struct push_opts *o, char *err, size_t errlen)
{
	/* libcurl is loaded here, not linked (lazycurl.h): its global set-up, which is not
	 * thread-safe, is done once, on the caller's thread, before any push thread exists. */
	const char *why;
	const struct lazy_curl *lc = lazy_curl(&why);
	if (!lc) {
		snprintf(err, errlen, "--push needs libcurl: %s", why);
		return NULL;
	}
	struct push *p = xcalloc(1, sizeof(*p));
	p->curl = lc;
	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	int qmax = o->queue_max > 0 ? o->queue_max : PUSH_QUEUE_DEFAULT;
	push_queue_init(&p->q, (unsigned)(qmax < PUSH_QUEUE_MAX ? qmax : PUSH_QUEUE_MAX));
	p->rng = (unsigned)(mono_ns() ^ ((uint64_t)getpid() << 16));
	p->ca_file = o->ca_file ? o->ca_file : push_env("CURL_CA_BUNDLE");
	if (!p->ca_file)
		p->ca_file = push_env("SSL_CERT_FILE");
	p->ca_dir = push_env("SSL_CERT_DIR");
	if (push_configure(p, o, err, errlen)) {
		push_free(p);
		return NULL;
	}
	return p;
}

/* The thread starts with the first profile, not in push_new: a thread takes its creator's
 * capabilities, and by the first window's end the session has dropped the ones it no longer
 * needs (util/privs.h), which a thread started at the session's opening would have kept. Holds
 * mu. */
static void push_start(struct push *p)
{
	if (p->started)
		return;
	p->started = pthread_create(&p->thread, NULL, push_main, p) == 0;
	if (!p->started) {
		snprintf(p->st.last_error, sizeof(p->st.last_error), "cannot start the push thread");
		unsigned max = p->q.max;
		p->st.dropped += p->q.n;
		push_queue_done(&p->q);
		push_queue_init(&p->q, max);
	}
}

void push_submit(struct push *p, void *data, size_t len, int64_t from, int64_t until,
		 unsigned hz)
{
	push_submit_series(p, data, len, from, until, hz, NULL);
}

/* A series' labels are checked here, on the caller's thread, so that the push thread sends only
 * what the server's series syntax can hold. */
static bool push_series_ok(const char *series)
{
	char buf[PUSH_SERIES_LABELS], err[256];
	if (strlen(series) >= sizeof(buf))
		return false;
	snprintf(buf, sizeof(buf), "%s", series);
	for (char *tok = buf, *next; tok && *tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		if (push_check_label(tok, err, sizeof(err)) < 0)
			return false;
	}
	return true;
}

void push_submit_series(struct push *p, void *data, size_t len, int64_t from, int64_t until,
			unsigned hz, const char *series)
{
	struct push_item it = { .data = data, .len = len, .from = from, .until = until, .hz = hz };
	if (series && !push_series_ok(series)) {
		free(data);
		pthread_mutex_lock(&p->mu);
		p->st.submitted++;
		p->st.dropped++;
		snprintf(p->st.last_error, sizeof(p->st.last_error), "a series' labels do not check");
		pthread_mutex_unlock(&p->mu);
		return;
	}
	snprintf(it.series, sizeof(it.series), "%s", series ? series : "");
	pthread_mutex_lock(&p->mu);
	p->st.submitted++;
	p->st.dropped += push_queue_add(&p->q, &it);
	push_start(p);
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

void push_get_stats(struct push *p, struct push_stats *st)
{
	pthread_mutex_lock(&p->mu);
	*st = p->st;
	st->queued = p->q.n + p->inflight;
	pthread_mutex_unlock(&p->mu);
}

void push_close(struct push *p, double flush_secs, struct push_stats *st)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stopping = true;
	p->deadline_ns = mono_ns() + (uint64_t)((flush_secs > 0 ? flush_secs : 0) * 1e9);
	pthread_cond_broadcast(&p->cv);
	bool started = p->started;
	pthread_mutex_unlock(&p->mu);
	if (started)
		pthread_join(p->thread, NULL);
	if (st) {
		*st = p->st;
		st->queued = 0;
	}
	push_free(p);
}
