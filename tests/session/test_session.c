/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_session: the session engine on a feed (session_open_feed): records built here, in memory,
 * handed in as a replay hands its file's, no kernel and no perf. The samples' addresses are this
 * program's own functions, mapped by an MMAP2 record of its executable as /proc/self/maps has it,
 * so the names that come back are the symbolizer's reading of a real binary. Each case states the
 * times and counts it feeds, so what the snapshots must hold is arithmetic on them: windows of
 * recorded time, zeroing and decay, two events, off-CPU pairing of switch-outs and switch-ins,
 * an export written and read back, and a push handed to the pusher's thread and received by a
 * responder on 127.0.0.1 (the TSan twin checks that hand-off), and a push per container of more
 * containers than a window's series (cgroup records name them).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "mkrec.h"
#include "session/session.h"
#include "util/util.h"

#define PID 0x7ffffff0u  /* above any pid_max: never read from /proc */
#define MS 1000000ull
#define SEC 1000000000ull
#define T0 (100 * SEC)   /* the records' clock starts here */

__attribute__((noinline)) int work_alpha(int x) { return x * 3 + 1; }
__attribute__((noinline)) int work_beta(int x) { return x * 5 + 2; }
__attribute__((noinline)) int work_gamma(int x) { return x * 7 + 3; }

/* A record with room for its trailing data (a callchain, raw fields). */
struct built {
	union {
		struct rec r;
		uint64_t words[128];
	} u;
};

static uint64_t addr_in(int (*fn)(int))
{
	return (uint64_t)(uintptr_t)fn + 1; /* inside the function, past its first byte */
}

/* The executable mapping of this program that holds fn, as an MMAP2 record of PID (free it), or
 * NULL. */
static struct rec *mmap_self(int (*fn)(int))
{
	uint64_t want = addr_in(fn);
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	struct rec *r = NULL;
	while (f && !r && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off, ino;
		unsigned maj, min;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &s, &e, perms, &off, &maj, &min, &ino,
			   &pos) < 7 || perms[2] != 'x' || want < s || want >= e)
			continue;
		line[strcspn(line, "\n")] = '\0';
		r = mk_mmap(PID, s, e - s, off, maj, min, ino, line + pos);
	}
	if (f)
		fclose(f);
	return r;
}

static const struct rec *comm_rec(struct built *b, const char *comm)
{
	memset(b, 0, sizeof(*b));
	struct rec *r = &b->u.r;
	r->size = sizeof(*r);
	r->type = REC_COMM;
	r->pid = r->tid = PID;
	r->cpu = REC_NO_CPU;
	r->u.comm.pid = r->u.comm.tid = PID;
	snprintf(r->u.comm.comm, sizeof(r->u.comm.comm), "%s", comm);
	return r;
}

/* A sample of event ev at t in fn, called from caller (0: none), of period. */
static const struct rec *sample_rec(struct built *b, uint32_t ev, uint64_t t, int (*fn)(int),
				    int (*caller)(int), uint64_t period)
{
	memset(b, 0, sizeof(*b));
	struct rec *r = &b->u.r;
	r->type = REC_SAMPLE;
	r->evidx = ev;
	r->time = t;
	r->pid = r->tid = PID;
	r->cpu = 0;
	r->u.sample.ip = addr_in(fn);
	r->u.sample.period = period;
	uint64_t chain[3] = { PERF_CONTEXT_USER, addr_in(fn), caller ? addr_in(caller) : 0 };
	uint32_t n = caller ? 3 : 2;
	r->u.sample.callchain_off = sizeof(*r);
	r->u.sample.callchain_nr = n;
	memcpy((char *)r + sizeof(*r), chain, n * 8);
	r->size = (uint32_t)(sizeof(*r) + n * 8);
	return r;
}

/* Options with the keys dso,sym (perftop's default) and nothing else. */
static struct session_opts *opts_new(void)
{
	struct session_opts *o = xcalloc(1, sizeof(*o));
	o->keys[0] = SORT_DSO;
	o->keys[1] = SORT_SYM;
	o->nkeys = 2;
	o->no_python = true;
	snprintf(o->target_text, sizeof(o->target_text), "a feed");
	return o;
}

/* A session on a feed of nev events (cpu-clock at 1 kHz and a second one), the program mapped. */
static struct session *feed_open(const struct session_opts *o, int nev)
{
	const struct session_feed_event evs[2] = { { "cpu-clock", 1000, 0 }, { "task-clock", 1000, 0 } };
	char err[256] = "";
	struct session *s = session_open_feed(o, evs, nev, err, sizeof(err));
	CHECK(s != NULL);
	if (!s) {
		fprintf(stderr, "session_open_feed: %s\n", err);
		exit(1);
	}
	struct rec *map = mmap_self(work_alpha);
	CHECK(map != NULL);
	if (map)
		session_feed(s, map);
	free(map);
	struct built b;
	session_feed(s, comm_rec(&b, "feeder"));
	CHECK(session_start(s, err, sizeof(err)) == 0);
	return s;
}

static const struct snap_row *row_of(const struct snapshot *snap, const char *sym)
{
	for (size_t i = 0; i < snap->nrows; i++)
		if (snap->rows[i].raw_sym && !strcmp(snap->rows[i].raw_sym, sym))
			return &snap->rows[i];
	return NULL;
}

static uint64_t self_of(const struct snapshot *snap, const char *sym)
{
	const struct snap_row *r = row_of(snap, sym);
	return r ? r->self_period : 0;
}

/* Two windows of recorded time: counts and lengths as fed; zero starts each over, decay keeps a
 * fading part of the last. */
static void test_windows(bool zero)
{
	struct session_opts *o = opts_new();
	struct session *s = feed_open(o, 1);
	struct built b;
	/* window 1: alpha 3 samples, beta 1, over 300 ms of records */
	for (int i = 0; i < 3; i++)
		session_feed(s, sample_rec(&b, 0, T0 + (uint64_t)i * 100 * MS, work_alpha, NULL, 1));
	session_feed(s, sample_rec(&b, 0, T0 + 300 * MS, work_beta, NULL, 1));
	struct snapshot *w1 = session_refresh(s, COL_SELF, zero);
	CHECK_EQ_U64(self_of(w1, "work_alpha"), 3);
	CHECK_EQ_U64(self_of(w1, "work_beta"), 1);
	CHECK_EQ_U64(w1->window_samples, 4);
	CHECK(w1->window_secs > 0.299 && w1->window_secs < 0.301);
	CHECK(w1->nrows == 2); /* nothing the feed did not have */
	const struct snap_row *top = w1->nrows ? &w1->rows[0] : NULL;
	CHECK(top && !strcmp(top->raw_sym, "work_alpha") && top->self_pct > 74.9 && top->self_pct < 75.1);
	CHECK(top && top->dso && strstr(top->dso, "test_session"));
	/* window 2: beta 2 samples, 200 ms on */
	session_feed(s, sample_rec(&b, 0, T0 + 400 * MS, work_beta, NULL, 1));
	session_feed(s, sample_rec(&b, 0, T0 + 500 * MS, work_beta, NULL, 1));
	struct snapshot *w2 = session_refresh(s, COL_SELF, zero);
	CHECK_EQ_U64(w2->window_samples, 2);
	CHECK(w2->window_secs > 0.199 && w2->window_secs < 0.201);
	if (zero) {
		CHECK_EQ_U64(self_of(w2, "work_alpha"), 0);
		CHECK_EQ_U64(self_of(w2, "work_beta"), 2);
	} else {
		/* alpha faded but still there; beta has its 2 and a faded part of its 1 */
		uint64_t a = self_of(w2, "work_alpha"), be = self_of(w2, "work_beta");
		CHECK(a < 3);
		CHECK(row_of(w2, "work_alpha") != NULL);
		CHECK(be >= 2 && be <= 3);
	}
	struct session_status st;
	session_get_status(s, &st);
	CHECK(st.elapsed > 0.499 && st.elapsed < 0.501);
	CHECK(!strcmp(st.target_text, "a feed"));
	snapshot_free(w1);
	snapshot_free(w2);
	session_close(s);
	free(o);
}

/* Two events: each sample goes to its own event's profile; a switch hands the held snapshot. */
static void test_events(void)
{
	struct session_opts *o = opts_new();
	struct session *s = feed_open(o, 2);
	CHECK(session_nevents(s) == 2);
	struct built b;
	for (int i = 0; i < 4; i++)
		session_feed(s, sample_rec(&b, 0, T0 + (uint64_t)i * MS, work_alpha, NULL, 1));
	for (int i = 0; i < 2; i++)
		session_feed(s, sample_rec(&b, 1, T0 + (uint64_t)(10 + i) * MS, work_gamma, NULL, 1));
	struct snapshot *snaps[SAMPLER_MAX_EVENTS];
	CHECK(session_refresh_all(s, COL_SELF, true, snaps) == 2);
	CHECK_EQ_U64(self_of(snaps[0], "work_alpha"), 4);
	CHECK_EQ_U64(self_of(snaps[0], "work_gamma"), 0);
	CHECK_EQ_U64(self_of(snaps[1], "work_gamma"), 2);
	CHECK_EQ_U64(self_of(snaps[1], "work_alpha"), 0);
	snapshot_free(snaps[0]);
	snapshot_free(snaps[1]);
	/* the view's way: refresh shows event 0 and holds event 1's of the same window */
	session_feed(s, sample_rec(&b, 1, T0 + 20 * MS, work_beta, NULL, 1));
	struct snapshot *shown = session_refresh(s, COL_SELF, true);
	CHECK(shown && shown->window_samples == 0);
	struct snapshot *other = session_switch_event(s, 1, shown);
	CHECK(session_event(s) == 1);
	CHECK(other && self_of(other, "work_beta") == 1);
	struct session_status st;
	session_get_status(s, &st);
	CHECK(!strcmp(st.event, "task-clock"));
	snapshot_free(other);
	session_close(s);
	free(o);
}

/* sched_switch's raw fields, as the tracepoint's format file of 6.x kernels lays them out. */
#define PREV_STATE_OFF 32
#define NEXT_PID_OFF 56
#define RAW_SIZE 68
#define SWITCH_EV 0

/* A switch-out sample of PID at t, blocked (prev_state S) in fn called from caller. */
static const struct rec *switch_out(struct built *b, uint64_t t, int (*fn)(int), int (*caller)(int))
{
	sample_rec(b, SWITCH_EV, t, fn, caller, 1);
	struct rec *r = &b->u.r;
	unsigned char *raw = (unsigned char *)r + r->size;
	int64_t state = 1; /* TASK_INTERRUPTIBLE */
	int32_t prev = PID, next = 0;
	memset(raw, 0, 72);
	memcpy(raw + 24, &prev, 4);
	memcpy(raw + PREV_STATE_OFF, &state, 8);
	memcpy(raw + NEXT_PID_OFF, &next, 4);
	r->u.sample.raw_off = r->size;
	r->u.sample.raw_size = RAW_SIZE;
	r->size += 72;
	return r;
}

static const struct rec *switch_in(struct built *b, uint64_t t)
{
	memset(b, 0, sizeof(*b));
	struct rec *r = &b->u.r;
	r->size = sizeof(*r);
	r->type = REC_SWITCH;
	r->time = t;
	r->pid = r->tid = PID;
	r->cpu = 0;
	return r;
}

/* --off-cpu on a feed: each block is its switch-out's stack charged with the time to its
 * switch-in; blocks under --min-block are dropped. */
static void test_offcpu(void)
{
	struct session_opts *o = opts_new();
	o->mode = PROFILE_OFFCPU;
	o->min_block_ns = 1 * MS;
	o->offcpu = (struct offcpu_opts){ .switch_evidx = SWITCH_EV, .prev_state_off = PREV_STATE_OFF,
					  .prev_state_size = 8, .next_pid_off = NEXT_PID_OFF,
					  .next_pid_size = 4 };
	struct session *s = feed_open(o, 1);
	struct built b;
	/* alpha blocks 30 ms, beta 10 ms, gamma 0.5 ms (under --min-block), alpha again 20 ms */
	session_feed(s, switch_out(&b, T0, work_alpha, work_gamma));
	session_feed(s, switch_in(&b, T0 + 30 * MS));
	session_feed(s, switch_out(&b, T0 + 40 * MS, work_beta, work_gamma));
	session_feed(s, switch_in(&b, T0 + 50 * MS));
	session_feed(s, switch_out(&b, T0 + 60 * MS, work_gamma, NULL));
	session_feed(s, switch_in(&b, T0 + 60 * MS + MS / 2));
	session_feed(s, switch_out(&b, T0 + 70 * MS, work_alpha, work_gamma));
	session_feed(s, switch_in(&b, T0 + 90 * MS));
	struct snapshot *w = session_refresh(s, COL_SELF, true);
	CHECK(w->mode == PROFILE_OFFCPU);
	CHECK_EQ_U64(self_of(w, "work_alpha"), 50 * MS);
	CHECK_EQ_U64(self_of(w, "work_beta"), 10 * MS);
	CHECK_EQ_U64(self_of(w, "work_gamma"), 0);
	const struct snap_row *g = row_of(w, "work_gamma");
	CHECK(g && g->total_period == 60 * MS); /* the caller of the counted blocks */
	const struct snap_row *a = row_of(w, "work_alpha");
	CHECK(a && snap_row_blocks(a) == 2);
	struct session_status st;
	session_get_status(s, &st);
	CHECK(!strcmp(st.event, "off-cpu"));
	snapshot_free(w);
	session_close(s);
	free(o);
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = xcalloc(1, 65536);
	size_t n = fread(buf, 1, 65535, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* --export: what the session took, as folded stacks: one line per stack, its count. */
static void test_export(void)
{
	struct session_opts *o = opts_new();
	struct session *s = feed_open(o, 1);
	char err[256] = "";
	CHECK(session_enable_export(s, err, sizeof(err)) == 0);
	struct built b;
	for (int i = 0; i < 5; i++)
		session_feed(s, sample_rec(&b, 0, T0 + (uint64_t)i * MS, work_alpha, work_gamma, 1));
	for (int i = 0; i < 2; i++)
		session_feed(s, sample_rec(&b, 0, T0 + (uint64_t)(10 + i) * MS, work_beta, NULL, 1));
	char dir[] = "/tmp/perftop-session-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char path[128];
	snprintf(path, sizeof(path), "%s/out.folded", dir);
	CHECK(session_export_write(s, path, err, sizeof(err)) == 0);
	char *text = read_all(path);
	CHECK(text != NULL);
	if (text) {
		/* exactly two lines: the two stacks, root first, with their counts */
		CHECK(strstr(text, "feeder;work_gamma;work_alpha 5\n") != NULL);
		CHECK(strstr(text, "feeder;work_beta 2\n") != NULL);
		int lines = 0;
		for (const char *p = text; *p; p++)
			lines += *p == '\n';
		CHECK(lines == 2);
		if (lines != 2 || !strstr(text, "work_alpha 5"))
			fprintf(stderr, "folded:\n%s", text);
	}
	free(text);
	unlink(path);
	rmdir(dir);
	session_close(s);
	free(o);
}

/* --- a responder on 127.0.0.1 for the push: answers each request 200, keeps the first --- */

struct responder {
	int fd;
	int served, want;       /* want: requests to serve (0: 1) */
	int other;              /* requests of the series container=other */
	char first[4096];
	size_t first_body;
};

static void *responder_main(void *arg)
{
	struct responder *r = arg;
	int want = r->want ? r->want : 1;
	for (int i = 0; i < want + 3; i++) { /* bounded: a session pushes want times here */
		int c = accept(r->fd, NULL, NULL);
		if (c < 0)
			break;
		char buf[65536];
		size_t got = 0, head = 0;
		long body = -1;
		while (got < sizeof(buf) - 1) {
			ssize_t n = read(c, buf + got, sizeof(buf) - 1 - got);
			if (n <= 0)
				break;
			got += (size_t)n;
			buf[got] = '\0';
			char *e = body < 0 ? strstr(buf, "\r\n\r\n") : NULL;
			if (e) {
				head = (size_t)(e - buf) + 4;
				char *cl = strcasestr(buf, "Content-Length:");
				body = cl ? strtol(cl + 15, NULL, 10) : 0;
			}
			if (body >= 0 && got >= head + (size_t)body)
				break;
		}
		r->other += head && strstr(buf, "container%3Dother%7D") != NULL;
		if (!r->first[0]) {
			snprintf(r->first, sizeof(r->first), "%.*s", (int)head, buf);
			r->first_body = got - head;
		}
		static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
		if (write(c, ok, sizeof(ok) - 1) < 0)
			perror("responder write");
		close(c);
		r->served++;
		if (r->served == want)
			break; /* the pushes this test makes */
	}
	return NULL;
}

/* The responder listening on an ephemeral port of 127.0.0.1 and its thread started; url is the
 * push's address. False (the check failed) when the socket cannot be made. */
static bool responder_start(struct responder *r, pthread_t *th, char *url, size_t urllen)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &alen) || listen(fd, 16)) {
		perror("responder socket");
		CHECK(0);
		if (fd >= 0)
			close(fd);
		return false;
	}
	r->fd = fd;
	snprintf(url, urllen, "http://127.0.0.1:%d", ntohs(a.sin_port));
	CHECK(pthread_create(th, NULL, responder_main, r) == 0);
	return true;
}

/* After the session's close: the responder's thread woken out of accept and joined. */
static void responder_stop(struct responder *r, pthread_t th)
{
	shutdown(r->fd, SHUT_RDWR);
	pthread_join(th, NULL);
	close(r->fd);
}

/* --push: the window's profile goes to the pusher's thread at close, which sends it. */
static void test_push(void)
{
	struct responder resp = { .fd = -1 };
	pthread_t th;
	char url[64];
	if (!responder_start(&resp, &th, url, sizeof(url)))
		return;
	struct session_opts *o = opts_new();
	o->push_url = url;
	o->push_name = "sessiontest";
	o->push_interval = 3600; /* no window ends on its own: the one push is close's */
	struct session *s = feed_open(o, 1);
	struct built b;
	for (int i = 0; i < 3; i++)
		session_feed(s, sample_rec(&b, 0, T0 + (uint64_t)i * MS, work_alpha, NULL, 1));
	CHECK(session_poll(s) == 0);
	session_close(s); /* pushes the last window and waits for it (a few seconds at most) */
	responder_stop(&resp, th);
	CHECK(resp.served == 1);
	CHECK(strncmp(resp.first, "POST /ingest?", 13) == 0);
	CHECK(strstr(resp.first, "name=sessiontest") != NULL);
	CHECK(resp.first_body > 0);
	if (resp.served != 1 || !strstr(resp.first, "name=sessiontest"))
		fprintf(stderr, "served %d, first request:\n%s\n", resp.served, resp.first);
	free(o);
}

/* A cgroup record: id's path, as the kernel's PERF_RECORD_CGROUP names it. */
static const struct rec *cgroup_rec(struct built *b, uint64_t id, const char *path)
{
	memset(b, 0, sizeof(*b));
	struct rec *r = &b->u.r;
	r->type = REC_CGROUP;
	r->pid = r->tid = PID;
	r->cpu = REC_NO_CPU;
	r->u.cgroup.id = id;
	r->u.cgroup.path_off = sizeof(*r);
	snprintf((char *)r + sizeof(*r), 64, "%s", path);
	r->size = (uint32_t)(sizeof(*r) + ((strlen(path) + 8) & ~(size_t)7));
	return r;
}

/* --push-per container: 70 cgroups, cgroup i with i samples, make 64 series (the cgroups of most
 * samples) and one container=other of the 6 left, all pushed at close (the queue holds a window's
 * series). */
static void test_push_per_container(void)
{
	struct responder resp = { .fd = -1, .want = 65 };
	pthread_t th;
	char url[64];
	if (!responder_start(&resp, &th, url, sizeof(url)))
		return;
	struct session_opts *o = opts_new();
	o->push_url = url;
	o->push_name = "sessiontest";
	o->push_interval = 3600;
	o->push_per_container = true;
	struct session *s = feed_open(o, 1);
	struct built b;
	uint64_t t = T0;
	for (uint64_t id = 1; id <= 70; id++) {
		char path[32];
		snprintf(path, sizeof(path), "/cg%llu", (unsigned long long)id);
		session_feed(s, cgroup_rec(&b, id, path));
		for (uint64_t k = 0; k < id; k++) {
			sample_rec(&b, 0, t += MS / 4, work_alpha, NULL, 1);
			b.u.r.u.sample.cgroup = id;
			session_feed(s, &b.u.r);
		}
	}
	CHECK(session_poll(s) == 0);
	session_close(s);
	responder_stop(&resp, th);
	CHECK(resp.served == 65);
	CHECK(resp.other == 1);
	if (resp.served != 65 || resp.other != 1)
		fprintf(stderr, "served %d, other %d, first request:\n%s\n", resp.served, resp.other,
			resp.first);
	free(o);
}

int main(void)
{
	test_windows(true);
	test_windows(false);
	test_events();
	test_offcpu();
	test_export();
	test_push();
	test_push_per_container();
	return CHECK_DONE();
}
