/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * push: sends profiles to a continuous-profiling server (Pyroscope's POST /ingest) from a thread of
 * its own. This is the project's second thread boundary, besides the sampler's queue: a push owns
 * one thread, a bounded queue of encoded profiles waiting to go, and a libcurl handle that only
 * that thread touches. The caller (the session, on the main thread) hands it opaque bodies (a
 * gzipped pprof, the window's start and end, the sample rate) and never waits on the network: a
 * slow or absent server costs queued memory up to the bound, never sampling or drawing time.
 *
 * What is counted (push_stats): sent, profiles the server accepted; failed, requests that did not
 * succeed (a network error, a timeout, any answer but 2xx; retries included); dropped, profiles
 * given up on: pushed out of the full queue (oldest first), rejected by a 4xx, still failing after
 * PUSH_MAX_ATTEMPTS tries, or left when the push was closed. So sent + dropped + queued is the
 * number submitted. Network errors and 5xx are retried with exponential backoff and jitter; a 4xx
 * is the request's fault and is reported (last_error), not retried.
 *
 * The pure parts (the queue, the backoff, the ingest URL and the option checks) are exposed for
 * the unit tests.
 */
#ifndef PERFTOP_PUSH_H
#define PERFTOP_PUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PUSH_MAX_LABELS 32
#define PUSH_MAX_HEADERS 16
#define PUSH_MAX_ATTEMPTS 5          /* tries of one profile on network errors and 5xx */
#define PUSH_QUEUE_DEFAULT 16        /* profiles waiting */
#define PUSH_QUEUE_MAX 4096

/* The server: Pyroscope (http[s]://: POST BASE/ingest?name=..., the pprof as the body) or Parca
 * (parca[s]://: POST BASE/api/profiles/writeraw, the JSON route of its profilestore WriteRaw, the
 * pprof in base64 under the series' labels, __name__ "perftop" and job APP). */
enum push_kind { PUSH_PYROSCOPE, PUSH_PARCA };

struct push_opts {
	const char *url;             /* {http,https,parca,parcas}://[user:password@]host[:port][/prefix] */
	const char *app;             /* the application name (push_check_name) */
	const char *labels[PUSH_MAX_LABELS]; /* "key=value" (push_check_label) */
	int nlabels;
	const char *headers[PUSH_MAX_HEADERS]; /* "Name: value" (push_check_header) */
	int nheaders;
	const char *ca_file;         /* --push-cacert: the CAs a server's certificate is checked
				      * against (a private CA's); NULL: CURL_CA_BUNDLE, SSL_CERT_FILE,
				      * else the system's */
	int queue_max;               /* profiles waiting; 0: PUSH_QUEUE_DEFAULT */
	double connect_timeout;      /* seconds; 0: 5 */
	double timeout;              /* seconds for a whole request; 0: 15 */
	double backoff_base;         /* seconds before the first retry; 0: 0.5 (doubles, jittered) */
	double backoff_max;          /* the longest wait between tries; 0: 8 */
};

struct push_stats {
	uint64_t sent, failed, dropped;
	uint64_t submitted;
	unsigned queued;             /* waiting now, the one being sent included */
	char last_error[160];        /* "" until a request fails */
};

struct push;

/* Checks of the options, for the command line (0, or -1 and a one-line message in err). */
int push_check_url(const char *url, char *err, size_t errlen);
int push_check_name(const char *name, char *err, size_t errlen);
int push_check_label(const char *label, char *err, size_t errlen);
int push_check_header(const char *header, char *err, size_t errlen);
/* --- credentials (secrets.c) --- */

/* --push-header-file FILE's text (malloc'd), or NULL with a one-line message: refused when FILE
 * is a symbolic link, not a regular file, larger than 64 KiB, or readable or writable by its
 * group or others. */
char *push_read_header_file(const char *path, char *err, size_t errlen);
/* "Name: value" lines of text (split in place; blank lines and '#' comments skipped) appended to
 * out (*n of max), each checked; from names the source in a message ("--push-header-file F",
 * "PERFTOP_PUSH_HEADERS"). 0, or -1 with a message that holds no value. */
int push_parse_headers(char *text, const char *from, const char **out, int max, int *n,
		       char *err, size_t errlen);
/* In place, for perftop's own argv (/proc/PID/cmdline): a header's value, a URL's password,
 * overwritten with '*'. */
void push_mask_header_arg(char *arg);
void push_mask_url_arg(char *url);
/* url as it may be shown: its password as '*'. */
void push_url_shown(const char *url, char *out, size_t cap);
/* Whether url goes over plain http (http://, parca://) to a host that is not this machine's
 * loopback (127.0.0.0/8, [::1], localhost); host: its host, for the warning. */
bool push_plain_remote(const char *url, char *host, size_t cap);

/* name as an application name: characters push_check_name refuses become '_' (in place). */
void push_sanitize_name(char *name);

/* The push, its thread started by the first push_submit. NULL with a one-line message in err
 * (options that do not check). */
struct push *push_new(const struct push_opts *o, char *err, size_t errlen);
/* Queues a profile: data (len bytes, malloc'd) becomes the push's. from and until are Unix times in
 * seconds (until > from: the server refuses an empty range), hz the sampling rate. Never blocks on
 * the network; a full queue drops its oldest. */
void push_submit(struct push *p, void *data, size_t len, int64_t from, int64_t until,
		 unsigned hz);
/* The same for one series of several a window is split into (--push-per container): series holds
 * the labels it adds to the push's, "k=v,k=v" (each passing push_check_label; at most
 * PUSH_SERIES_LABELS - 1 bytes, else it is refused: the profile is dropped). NULL or "": none. */
#define PUSH_SERIES_LABELS 512
void push_submit_series(struct push *p, void *data, size_t len, int64_t from, int64_t until,
			unsigned hz, const char *series);
void push_get_stats(struct push *p, struct push_stats *st);
/* Sends what is queued for at most flush_secs more (and about a second: an idle transfer is
 * aborted at curl's next progress call), stops the thread and frees everything; what is left is
 * dropped (counted in the stats given back in st, when st is not NULL). */
void push_close(struct push *p, double flush_secs, struct push_stats *st);

/* --- the pure parts --- */

/* The queue: a ring of at most max profiles, oldest first. */
struct push_item {
	void *data;
	size_t len;
	int64_t from, until;
	unsigned hz;
	int attempts;                /* tries so far */
	char series[PUSH_SERIES_LABELS]; /* its own labels, "k=v,k=v" ("": the push's alone) */
};
struct push_queue {
	struct push_item *items;
	unsigned max, head, n;
};
void push_queue_init(struct push_queue *q, unsigned max);
void push_queue_done(struct push_queue *q); /* frees the items' data too */
/* Appends it; when full, the oldest is freed first. Returns the number dropped (0 or 1). */
unsigned push_queue_add(struct push_queue *q, const struct push_item *it);
/* Puts it back at the front (a retry keeps its place); when full, it is the oldest and is freed
 * instead. Returns the number dropped (0 or 1). */
unsigned push_queue_unget(struct push_queue *q, const struct push_item *it);
/* Takes the oldest out; false when empty. */
bool push_queue_take(struct push_queue *q, struct push_item *out);

/* The wait before try attempt + 1 (attempt >= 1 failed ones), in seconds: base * 2^(attempt-1)
 * capped at max, times a jitter factor in [0.75, 1.25) from r (uniform in [0, 1)). */
double push_backoff(int attempt, double base, double max, double r);
/* What a request's outcome means: 2xx sent; network errors (status 0) and 5xx (and 408, 429)
 * retried; the other 4xx (and anything else) given up. */
enum push_verdict { PUSH_SENT, PUSH_RETRY, PUSH_GIVE_UP };
enum push_verdict push_verdict_of(long status);

/* "BASE/ingest?name=APP%7Bk%3Dv%2C...%7D&from=..&until=..&format=pprof&sampleRate=HZ&spyName=
 * perftop" into out (base without its user:password@, no trailing '/'); the labels are given as
 * "k=v". Returns the length, or -1 when out is too small. */
int push_ingest_url(char *out, size_t cap, const char *base, const char *app,
		    const char *const *labels, int nlabels, int64_t from, int64_t until,
		    unsigned hz);
/* Parca's WriteRaw request as JSON (grpc-gateway's mapping of WriteRawRequest) for the pprof at
 * data: one series, labels __name__=perftop, job=app and the "k=v" labels, one raw sample.
 * malloc'd, *outlen bytes. */
char *push_parca_body(const void *data, size_t len, const char *app,
		      const char *const *labels, int nlabels, size_t *outlen);
/* Percent-encodes s (all but RFC 3986's unreserved characters) into out; -1 when too small. */
int push_urlencode(char *out, size_t cap, const char *s);

#endif
