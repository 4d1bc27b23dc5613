/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_push: the push module on its own (src/push): the bounded queue (oldest dropped first), the
 * backoff and the verdicts, the ingest URL and the option checks as pure functions; then the thread
 * against a small HTTP responder on 127.0.0.1 in this program (a port of its own, no other
 * address): 500 then 200 (retried, then sent), 400 (given up at once), nothing listening
 * (failures counted, a queue of 2 dropping its oldest, a close that ends within its flush time),
 * a server that never answers (the close aborts the transfer at its deadline).
 * Its TSan twin checks the main thread's submit and stats against the push thread.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "push/push.h"
#include "push/push_int.h"
#include "util/util.h"

static struct push_item item(int tag)
{
	int *d = xmalloc(sizeof(int));
	*d = tag;
	return (struct push_item){ .data = d, .len = sizeof(int), .from = tag, .until = tag + 1 };
}

static void test_queue(void)
{
	struct push_queue q;
	push_queue_init(&q, 3);
	struct push_item it;
	CHECK(!push_queue_take(&q, &it));
	unsigned dropped = 0;
	for (int i = 1; i <= 5; i++) {
		struct push_item x = item(i);
		dropped += push_queue_add(&q, &x);
	}
	CHECK_EQ_U64(dropped, 2);
	CHECK_EQ_U64(q.n, 3);
	CHECK(push_queue_take(&q, &it));
	CHECK_EQ_U64(*(int *)it.data, 3); /* 1 and 2 went first */
	/* a retry keeps its place at the front */
	CHECK_EQ_U64(push_queue_unget(&q, &it), 0);
	CHECK(push_queue_take(&q, &it));
	CHECK_EQ_U64(*(int *)it.data, 3);
	struct push_item y = item(6);
	CHECK_EQ_U64(push_queue_add(&q, &y), 0);
	CHECK_EQ_U64(push_queue_unget(&q, &it), 1); /* full: the retried one is the oldest */
	int want[] = { 4, 5, 6 };
	for (int i = 0; i < 3; i++) {
		CHECK(push_queue_take(&q, &it));
		CHECK_EQ_U64(*(int *)it.data, want[i]);
		free(it.data);
	}
	CHECK(!push_queue_take(&q, &it));
	struct push_item z = item(7);
	push_queue_add(&q, &z);
	push_queue_done(&q); /* frees what waits (ASan: no leak) */
}

static void test_backoff(void)
{
	CHECK(push_backoff(1, 0.5, 8, 0.5) == 0.5);
	CHECK(push_backoff(2, 0.5, 8, 0.5) == 1.0);
	CHECK(push_backoff(4, 0.5, 8, 0.5) == 4.0);
	CHECK(push_backoff(9, 0.5, 8, 0.5) == 8.0);
	CHECK(push_backoff(50, 0.5, 8, 0.5) == 8.0);
	CHECK(push_backoff(1, 1, 8, 0) == 0.75);
	CHECK(push_backoff(1, 1, 8, 0.999999) < 1.25);
	CHECK(push_verdict_of(200) == PUSH_SENT);
	CHECK(push_verdict_of(204) == PUSH_SENT);
	CHECK(push_verdict_of(0) == PUSH_RETRY);
	CHECK(push_verdict_of(500) == PUSH_RETRY);
	CHECK(push_verdict_of(503) == PUSH_RETRY);
	CHECK(push_verdict_of(429) == PUSH_RETRY);
	CHECK(push_verdict_of(400) == PUSH_GIVE_UP);
	CHECK(push_verdict_of(401) == PUSH_GIVE_UP);
	CHECK(push_verdict_of(404) == PUSH_GIVE_UP);
	CHECK(push_verdict_of(301) == PUSH_GIVE_UP);
}

static void test_url(void)
{
	char out[2048];
	const char *labels[] = { "env=test", "hostname=box-1" };
	int n = push_ingest_url(out, sizeof(out), "http://127.0.0.1:4040", "my.app", labels, 2, 100,
				110, 999);
	CHECK(n > 0);
	CHECK_STR(out, "http://127.0.0.1:4040/ingest?name=my.app%7Benv%3Dtest%2Chostname%3Dbox-1%7D"
		       "&from=100&until=110&format=pprof&sampleRate=999&spyName=perftop");
	CHECK(push_ingest_url(out, 40, "http://127.0.0.1:4040", "a", labels, 2, 1, 2, 1) == -1);
	char enc[64];
	CHECK(push_urlencode(enc, sizeof(enc), "a b/c~") > 0);
	CHECK_STR(enc, "a%20b%2Fc~");
	CHECK(push_urlencode(enc, 4, "abcd") == -1);

	struct push_target t;
	CHECK(push_split_url("https://u%40x:p%3Aw@host.example:8443/pyro/", &t) == 0);
	CHECK_STR(t.base, "https://host.example:8443/pyro");
	CHECK(t.auth);
	CHECK_STR(t.user, "u@x");
	CHECK_STR(t.password, "p:w");
	CHECK(t.kind == PUSH_PYROSCOPE);
	CHECK(push_split_url("http://127.0.0.1:4040", &t) == 0);
	CHECK(!t.auth);
	CHECK_STR(t.base, "http://127.0.0.1:4040");
	CHECK(push_split_url("parca://127.0.0.1:7070/", &t) == 0);
	CHECK(t.kind == PUSH_PARCA);
	CHECK_STR(t.base, "http://127.0.0.1:7070");
	CHECK(push_split_url("parcas://k:s@p.example", &t) == 0);
	CHECK(t.kind == PUSH_PARCA && t.auth);
	CHECK_STR(t.base, "https://p.example");

	size_t blen;
	const char *pl[] = { "env=test" };
	char *body = push_parca_body("\x1f\x8b\x08xyz", 6, "app", pl, 1, &blen);
	CHECK_STR(body, "{\"series\": [{\"labels\": {\"labels\": [{\"name\": \"__name__\", "
			"\"value\": \"perftop\"}, {\"name\": \"job\", \"value\": \"app\"}, "
			"{\"name\": \"env\", \"value\": \"test\"}]}, \"samples\": [{\"rawProfile\": "
			"\"H4sIeHl6\"}]}]}");
	CHECK_EQ_U64(blen, strlen(body));
	free(body);
	body = push_parca_body("ab", 2, "a", NULL, 0, &blen); /* base64 padding */
	CHECK(strstr(body, "\"YWI=\"") != NULL);
	free(body);

	char err[256];
	const char *good[] = { "http://h", "http://h:1", "https://a.b-c:65535/x/y", "http://[::1]:80",
			       "http://u:p@h", "parca://h:7070", "PARCAS://u:p@h/prefix" };
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		CHECK(push_check_url(good[i], err, sizeof(err)) == 0);
	const char *bad[] = { "ftp://h", "h:80", "http://", "http://h:0", "http://h:70000",
			      "http://h:x", "http://h?x=1", "http://h/a#f", "http://h /", "http://@h",
			      "http://:p@h", "parca://" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = '\0';
		CHECK(push_check_url(bad[i], err, sizeof(err)) == -1);
		CHECK(err[0] && !strchr(err, '\n'));
	}
	CHECK(push_check_label("env=prod", err, sizeof(err)) == 0);
	CHECK(push_check_label("k_1=v-2:3/4.5", err, sizeof(err)) == 0);
	const char *badl[] = { "env", "=v", "env=", "1k=v", "k-x=v", "k.x=v", "k=a,b", "k=a}", "k=a b",
			       "k=a=b", "k=a\"b" };
	for (size_t i = 0; i < ARRAY_SIZE(badl); i++)
		CHECK(push_check_label(badl[i], err, sizeof(err)) == -1);
	CHECK(push_check_header("Authorization: Bearer abc", err, sizeof(err)) == 0);
	CHECK(push_check_header("X-Scope-OrgID:t1", err, sizeof(err)) == 0);
	CHECK(push_check_header("NoColon", err, sizeof(err)) == -1);
	CHECK(push_check_header(": v", err, sizeof(err)) == -1);
	CHECK(push_check_header("Bad Name: v", err, sizeof(err)) == -1);
	CHECK(push_check_header("X: a\r\nInjected: b", err, sizeof(err)) == -1);
	CHECK(push_check_name("python3.11", err, sizeof(err)) == 0);
	CHECK(push_check_name("a{b}", err, sizeof(err)) == -1);
	CHECK(push_check_name("", err, sizeof(err)) == -1);
	char name[] = "my app{x}";
	push_sanitize_name(name);
	CHECK_STR(name, "my_app_x_");
}

/* --- a responder on 127.0.0.1: answers each request with the next status of its list --- */

struct responder {
	int fd;
	int port;
	const int *statuses;
	int nstatuses;
	int served;                  /* read by main after the join */
	char first_request[4096];
};

static void read_request(int c, char *keep, size_t cap)
{
	char buf[8192];
	size_t got = 0;
	long body = -1;
	size_t head_end = 0;
	while (got < sizeof(buf) - 1) {
		ssize_t n = read(c, buf + got, sizeof(buf) - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
		buf[got] = '\0';
		if (body < 0) {
			char *e = strstr(buf, "\r\n\r\n");
			if (!e)
				continue;
			head_end = (size_t)(e - buf) + 4;
			char *cl = strcasestr(buf, "Content-Length:");
			body = cl ? strtol(cl + 15, NULL, 10) : 0;
		}
		if (got >= head_end + (size_t)body)
			break;
	}
	if (keep && !keep[0])
		snprintf(keep, cap, "%.*s", (int)(head_end ? head_end : got), buf);
}

static void *responder_main(void *arg)
{
	struct responder *r = arg;
	for (int i = 0; i < r->nstatuses; i++) {
		int c = accept(r->fd, NULL, NULL);
		if (c < 0)
			break;
		read_request(c, r->first_request, sizeof(r->first_request));
		char reply[256];
		int st = r->statuses[i];
		const char *text = st == 200 ? "ok" : "bad series name";
		int n = snprintf(reply, sizeof(reply),
				 "HTTP/1.1 %d X\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
				 st, strlen(text), text);
		if (write(c, reply, (size_t)n) != n)
			perror("responder write");
		close(c);
		r->served++;
	}
	return NULL;
}

/* A socket on 127.0.0.1, port chosen by the kernel; listening or not. */
static int local_socket(bool listening, int *port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len) || (listening && listen(fd, 8)))
		return -1;
	*port = ntohs(a.sin_port);
	return fd;
}

static struct push *open_push_url(const char *scheme, int port, int queue_max, const char *user)
{
	char url[128], err[256];
	snprintf(url, sizeof(url), "%s://%s127.0.0.1:%d", scheme, user ? user : "", port);
	struct push_opts o = { .url = url, .app = "testapp", .labels = { "env=test" }, .nlabels = 1,
			       .headers = { "X-Scope-OrgID: tenant-7" }, .nheaders = 1,
			       .queue_max = queue_max, .connect_timeout = 2, .timeout = 5,
			       .backoff_base = 0.01, .backoff_max = 0.05 };
	struct push *p = push_new(&o, err, sizeof(err));
	if (!p)
		fprintf(stderr, "push_new: %s\n", err);
	return p;
}

static struct push *open_push(int port, int queue_max, const char *user)
{
	return open_push_url("http", port, queue_max, user);
}

static void submit(struct push *p, int tag)
{
	char *d = xstrdup("body");
	push_submit(p, d, 4, 1000 + tag, 1010 + tag, 99);
}

/* Polls the stats (from this thread, as the session does) until sent + dropped reach want. */
static void wait_settled(struct push *p, uint64_t want, struct push_stats *st)
{
	for (int i = 0; i < 1000; i++) {
		push_get_stats(p, st);
		if (st->sent + st->dropped >= want && !st->queued)
			return;
		usleep(10000);
	}
}

static void test_retry_then_sent(void)
{
	static const int statuses[] = { 500, 200 };
	struct responder r = { .statuses = statuses, .nstatuses = 2 };
	r.fd = local_socket(true, &r.port);
	CHECK(r.fd >= 0);
	pthread_t t;
	pthread_create(&t, NULL, responder_main, &r);
	struct push *p = open_push(r.port, 4, "alice:s3cret@");
	CHECK(p != NULL);
	if (!p)
		return;
	submit(p, 1);
	struct push_stats st;
	wait_settled(p, 1, &st);
	CHECK_EQ_U64(st.sent, 1);
	CHECK_EQ_U64(st.failed, 1);
	CHECK_EQ_U64(st.dropped, 0);
	CHECK(strstr(st.last_error, "HTTP 500") != NULL);
	push_close(p, 1, &st);
	pthread_join(t, NULL);
	close(r.fd);
	CHECK_EQ_U64(r.served, 2);
	const char *q = r.first_request;
	CHECK(strncmp(q, "POST /ingest?name=testapp%7Benv%3Dtest%7D&from=1001&until=1011&format=pprof"
			 "&sampleRate=99&spyName=perftop HTTP/1.1\r\n", 100) == 0);
	CHECK(strcasestr(q, "\r\nAuthorization: Basic YWxpY2U6czNjcmV0\r\n") != NULL);
	CHECK(strcasestr(q, "\r\nX-Scope-OrgID: tenant-7\r\n") != NULL);
	CHECK(strcasestr(q, "\r\nContent-Type: application/octet-stream\r\n") != NULL);
}

static void test_rejected(void)
{
	static const int statuses[] = { 400, 200 };
	struct responder r = { .statuses = statuses, .nstatuses = 2 };
	r.fd = local_socket(true, &r.port);
	pthread_t t;
	pthread_create(&t, NULL, responder_main, &r);
	struct push *p = open_push(r.port, 4, NULL);
	if (!p)
		return;
	submit(p, 1);
	struct push_stats st;
	wait_settled(p, 1, &st);
	CHECK_EQ_U64(st.sent, 0);
	CHECK_EQ_U64(st.failed, 1);
	CHECK_EQ_U64(st.dropped, 1); /* given up at once: the next profile is the next request */
	CHECK_STR(st.last_error, "HTTP 400: bad series name");
	submit(p, 2);
	wait_settled(p, 2, &st);
	CHECK_EQ_U64(st.sent, 1);
	push_close(p, 1, NULL);
	pthread_join(t, NULL);
	close(r.fd);
	CHECK_EQ_U64(r.served, 2);
}

/* A series' own labels after the push's; one that does not check is dropped, never sent. */
static void test_series(void)
{
	static const int statuses[] = { 200 };
	struct responder r = { .statuses = statuses, .nstatuses = 1 };
	r.fd = local_socket(true, &r.port);
	pthread_t t;
	pthread_create(&t, NULL, responder_main, &r);
	struct push *p = open_push(r.port, 4, NULL);
	if (!p)
		return;
	push_submit_series(p, xstrdup("body"), 4, 1000, 1010, 99, "container=a b");
	struct push_stats st;
	push_get_stats(p, &st);
	CHECK_EQ_U64(st.dropped, 1);
	push_submit_series(p, xstrdup("body"), 4, 1000, 1010, 99, "container=web,pod=p1");
	wait_settled(p, 2, &st);
	CHECK_EQ_U64(st.sent, 1);
	push_close(p, 1, NULL);
	pthread_join(t, NULL);
	close(r.fd);
	CHECK_EQ_U64(r.served, 1);
	CHECK(strncmp(r.first_request, "POST /ingest?name=testapp%7Benv%3Dtest%2Ccontainer%3Dweb%2C"
				       "pod%3Dp1%7D&from=1000", 80) == 0);
}

static void test_parca(void)
{
	static const int statuses[] = { 200 };
	struct responder r = { .statuses = statuses, .nstatuses = 1 };
	r.fd = local_socket(true, &r.port);
	pthread_t t;
	pthread_create(&t, NULL, responder_main, &r);
	struct push *p = open_push_url("parca", r.port, 4, NULL);
	if (!p)
		return;
	submit(p, 1);
	struct push_stats st;
	wait_settled(p, 1, &st);
	CHECK_EQ_U64(st.sent, 1);
	push_close(p, 1, NULL);
	pthread_join(t, NULL);
	close(r.fd);
	const char *q = r.first_request;
	CHECK(strncmp(q, "POST /api/profiles/writeraw HTTP/1.1\r\n", 38) == 0);
	CHECK(strcasestr(q, "\r\nContent-Type: application/json\r\n") != NULL);
}

static void test_down(void)
{
	int port;
	int fd = local_socket(false, &port); /* bound, not listening: connections are refused */
	CHECK(fd >= 0);
	struct push *p = open_push(port, 2, NULL);
	if (!p)
		return;
	for (int i = 0; i < 20; i++) {
		submit(p, i);
		struct push_stats st;
		push_get_stats(p, &st);
		CHECK(st.queued <= 3); /* the queue's 2 and the one on the network */
		usleep(2000);
	}
	uint64_t t0 = now_ns();
	struct push_stats st;
	push_close(p, 0.5, &st);
	double secs = (double)(now_ns() - t0) / 1e9;
	CHECK(secs < 3);
	close(fd);
	CHECK_EQ_U64(st.submitted, 20);
	CHECK_EQ_U64(st.sent, 0);
	CHECK(st.failed >= 1);
	CHECK_EQ_U64(st.dropped, 20); /* every one given up, pushed out, or left at the close */
	CHECK(st.last_error[0] != '\0');
}

/* A server that takes the connection and never answers: the close still ends at its deadline (the
 * transfer in flight is aborted by the progress callback, which an idle transfer calls about once
 * a second), before the request's own 5 s timeout. */
static void test_hanging(void)
{
	int port;
	int fd = local_socket(true, &port); /* listening, never accepting: the kernel completes the
					     * handshake, nobody reads */
	struct push *p = open_push(port, 4, NULL);
	if (!p)
		return;
	submit(p, 1);
	submit(p, 2);
	usleep(200000);
	struct push_stats st;
	push_get_stats(p, &st);
	CHECK_EQ_U64(st.queued, 2); /* one in flight, one waiting */
	uint64_t t0 = now_ns();
	push_close(p, 0.3, &st);
	double secs = (double)(now_ns() - t0) / 1e9;
	CHECK(secs < 2.5);
	CHECK_EQ_U64(st.dropped, 2);
	CHECK_EQ_U64(st.sent, 0);
	close(fd);
}

/* Credentials: never in a message, masked in argv, and plain http to another host told apart
 * from this machine's loopback (nothing is sent: pure functions). */
static void test_secrets(void)
{
	char err[256];
	CHECK(push_check_header("Bearer-tok3n-xyz", err, sizeof(err)) == -1);
	CHECK(!strstr(err, "tok3n"));
	CHECK(push_check_url("http://al:pa55word@127.0.0.1:99999", err, sizeof(err)) == -1);
	CHECK(!strstr(err, "pa55word") && strstr(err, "al:********@"));
	char arg[] = "Authorization: Bearer abc.def ";
	push_mask_header_arg(arg);
	CHECK_STR(arg, "Authorization: ************** ");
	char url[] = "https://user:p%40ss@host:1/x";
	push_mask_url_arg(url);
	CHECK_STR(url, "https://user:******@host:1/x");

	struct push_secrets sec = { 0 };
	push_secrets_add_header(&sec, "Authorization: Bearer tok123");
	push_secrets_add(&sec, "hunter2", 7);
	char msg[200] = "HTTP 401: token tok123 refused for Bearer tok123 (hunter2)";
	push_secrets_mask(&sec, msg);
	CHECK_STR(msg, "HTTP 401: token *** refused for *** (***)");
	push_secrets_free(&sec);

	char text[] = "# a comment\nAuthorization: Bearer x1\r\n\nX-Scope-OrgID: t\n";
	const char *hs[PUSH_MAX_HEADERS];
	int n = 0;
	CHECK(push_parse_headers(text, "F", hs, PUSH_MAX_HEADERS, &n, err, sizeof(err)) == 0);
	CHECK(n == 2);
	CHECK_STR(hs[0], "Authorization: Bearer x1");
	CHECK_STR(hs[1], "X-Scope-OrgID: t");
	char bad[] = "X: ok\nsecretvalue-without-name\n";
	n = 0;
	CHECK(push_parse_headers(bad, "F", hs, PUSH_MAX_HEADERS, &n, err, sizeof(err)) == -1);
	CHECK(strstr(err, "line 2") && !strstr(err, "secretvalue"));

	static const struct {
		const char *url;
		bool plain_remote;
	} cases[] = {
		{ "http://127.0.0.1:4040", false }, { "http://127.9.8.7", false },
		{ "http://localhost:4040/p", false }, { "http://LOCALHOST", false },
		{ "http://[::1]:4040", false }, { "http://u:p@127.0.0.1:1", false },
		{ "https://example.com", false }, { "parcas://example.com:443", false },
		{ "http://example.com", true }, { "http://10.0.0.1:4040", true },
		{ "parca://parca.internal:7070", true }, { "http://127.0.0.1.example.com", true },
		{ "http://128.0.0.1", true }, { "http://[::2]:80", true },
		{ "HTTP://u:p@pyroscope:4040/x", true }, { "http://localhost.example.com", true },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char host[64];
		bool got = push_plain_remote(cases[i].url, host, sizeof(host));
		if (got != cases[i].plain_remote)
			fprintf(stderr, "push_plain_remote(%s) = %d\n", cases[i].url, got);
		CHECK(got == cases[i].plain_remote);
	}
	char host[64];
	CHECK(push_plain_remote("http://u:p@example.com:80/x", host, sizeof(host)));
	CHECK_STR(host, "example.com");
}

int main(void)
{
	test_queue();
	test_backoff();
	test_url();
	test_secrets();
	test_retry_then_sent();
	test_rejected();
	test_series();
	test_parca();
	test_down();
	test_hanging();
	return CHECK_DONE();
}
