/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_profile: the profile and its snapshots with hand-made frames.
 *
 * The strings stand in for interned ones: one static array per name, so equal pointers mean equal
 * names, and a second set of arrays with the same contents checks that row ids hash contents, not
 * pointers. A randomized run against a plain per-symbol tally covers table growth and compaction,
 * with the samples of several threads interleaved, each keeping its callers for a while.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "model/filter.h"
#include "model/profile.h"
#include "model/snapshot.h"

static char s_main[] = "main", s_foo[] = "foo", s_bar[] = "bar", s_fib[] = "fib";
static char s_app[] = "app", s_libc[] = "libc.so.6";
static char s_comm_a[] = "worker", s_comm_b[] = "server";
static char s_line1[] = "a.c:1";

static struct frame fr(const char *sym, const char *dso)
{
	return (struct frame){ .sym = sym, .dso = dso };
}

static void add_tid(struct profile *p, uint32_t tid, uint64_t period, const struct frame *frames,
		    int n)
{
	struct sample_ctx s = { .comm = s_comm_a, .pid = 1, .tid = tid, .period = period,
				.frames = frames, .nframes = n };
	profile_add(p, &s);
}

static void add(struct profile *p, uint64_t period, const struct frame *frames, int n)
{
	add_tid(p, 1, period, frames, n);
}

static const struct snap_row *row_of(const struct snapshot *s, const char *sym)
{
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].sym && strcmp(s->rows[i].sym, sym) == 0)
			return &s->rows[i];
	return NULL;
}

static void test_simple_chain(void)
{
	struct profile *p = profile_new(NULL, 0);
	struct frame chain[] = { fr(s_bar, s_app), fr(s_foo, s_app), fr(s_main, s_app) };
	add(p, 100, chain, 3);
	add(p, 50, chain + 1, 2);

	struct snapshot *s = profile_snapshot(p, COL_SELF);
	CHECK_EQ_U64(s->nrows, 3);
	CHECK_EQ_U64(s->total_period, 150);
	CHECK_EQ_U64(s->held_samples, 2);
	const struct snap_row *bar = row_of(s, "bar"), *foo = row_of(s, "foo"), *m = row_of(s, "main");
	CHECK(bar && foo && m);
	if (bar && foo && m) {
		CHECK_EQ_U64(bar->self_period, 100);
		CHECK_EQ_U64(bar->total_period, 100);
		CHECK_EQ_U64(bar->samples, 1);
		CHECK_EQ_U64(foo->self_period, 50);
		CHECK_EQ_U64(foo->total_period, 150);
		CHECK_EQ_U64(foo->samples, 1);
		CHECK_EQ_U64(m->self_period, 0);
		CHECK_EQ_U64(m->total_period, 150);
		CHECK_EQ_U64(m->samples, 0);
		CHECK(fabs(m->total_pct - 100.0) < 1e-9);
		CHECK(fabs(bar->self_pct - 100.0 * 100 / 150) < 1e-9);
		CHECK_STR(bar->dso, "app");
		CHECK(bar->comm == NULL && bar->pid == 0 && bar->tid == 0 && bar->srcline == NULL);
	}
	/* Self order: bar (100), foo (50), main (0). */
	CHECK_STR(s->rows[0].sym, "bar");
	CHECK_STR(s->rows[1].sym, "foo");
	CHECK_STR(s->rows[2].sym, "main");
	/* Total order: main and foo tie at 150; foo wins on Self. */
	snapshot_sort(s, COL_TOTAL);
	CHECK(s->order == COL_TOTAL);
	CHECK_STR(s->rows[0].sym, "foo");
	CHECK_STR(s->rows[1].sym, "main");
	CHECK_STR(s->rows[2].sym, "bar");
	snapshot_free(s);
	profile_free(p);
}

static void test_recursion_counts_total_once(void)
{
	struct profile *p = profile_new(NULL, 0);
	struct frame chain[] = { fr(s_fib, s_app), fr(s_fib, s_app), fr(s_fib, s_app),
				 fr(s_main, s_app) };
	add(p, 10, chain, 4);
	add(p, 10, chain + 1, 3);
	struct snapshot *s = profile_snapshot(p, COL_SELF);
	const struct snap_row *fib = row_of(s, "fib");
	CHECK(fib != NULL);
	if (fib) {
		CHECK_EQ_U64(fib->self_period, 20);
		CHECK_EQ_U64(fib->total_period, 20);
		CHECK_EQ_U64(fib->samples, 2);
		CHECK(fabs(fib->total_pct - 100.0) < 1e-9);
	}
	CHECK_EQ_U64(s->total_period, 20);
	snapshot_free(s);
	profile_free(p);
}

static double self_pct_sum(const struct snapshot *s)
{
	double sum = 0;
	for (size_t i = 0; i < s->nrows; i++)
		sum += s->rows[i].self_pct;
	return sum;
}

static void test_self_pct_sums_to_100(void)
{
	const char *syms[] = { s_main, s_foo, s_bar, s_fib };
	struct profile *p = profile_new(NULL, 0);
	srand(7);
	for (int i = 0; i < 500; i++) {
		struct frame f[4];
		int n = 1 + rand() % 4;
		for (int j = 0; j < n; j++)
			f[j] = fr(syms[rand() % 4], rand() % 2 ? s_app : s_libc);
		add(p, 1 + (uint64_t)(rand() % 1000), f, n);
	}
	for (int w = 0; w < 5; w++) {
		struct snapshot *s = profile_snapshot(p, COL_SELF);
		CHECK(s->nrows > 0);
		CHECK(fabs(self_pct_sum(s) - 100.0) < 1e-6);
		uint64_t sum = 0, samples = 0;
		for (size_t i = 0; i < s->nrows; i++) {
			sum += s->rows[i].self_period;
			samples += s->rows[i].samples;
			CHECK(s->rows[i].total_period >= s->rows[i].self_period);
		}
		/* Decay keeps the totals the sums of the rows. */
		CHECK_EQ_U64(sum, s->total_period);
		CHECK_EQ_U64(samples, s->held_samples);
		snapshot_free(s);
		profile_end_window(p, false);
	}
	profile_free(p);
}

static void test_decay(void)
{
	struct profile *p = profile_new(NULL, 0);
	struct frame big[] = { fr(s_foo, s_app) };
	struct frame tiny[] = { fr(s_bar, s_app), fr(s_main, s_app) };
	for (int i = 0; i < 8; i++)
		add(p, 125, big, 1); /* foo: self 1000, samples 8 */
	add(p, 1, tiny, 2);          /* bar: self 1; main: total 1 */

	profile_end_window(p, false);
	struct snapshot *s = profile_snapshot(p, COL_SELF);
	/* 1 * 7 / 8 == 0: bar and main (Total only) are gone. */
	CHECK_EQ_U64(s->nrows, 1);
	CHECK_EQ_U64(s->rows[0].self_period, 875);
	CHECK_EQ_U64(s->rows[0].total_period, 875);
	CHECK_EQ_U64(s->rows[0].samples, 7);
	CHECK_EQ_U64(s->total_period, 875);
	CHECK_EQ_U64(s->held_samples, 7);
	CHECK(row_of(s, "bar") == NULL && row_of(s, "main") == NULL);
	snapshot_free(s);

	profile_end_window(p, false);
	s = profile_snapshot(p, COL_SELF);
	CHECK_EQ_U64(s->rows[0].self_period, 765); /* 875 * 7 / 8 = 765.6 */
	CHECK_EQ_U64(s->rows[0].samples, 6);       /* 7 * 7 / 8 = 6.1 */
	CHECK_EQ_U64(s->total_period, 765);
	snapshot_free(s);

	/* A dropped row comes back as a new row with the same id. */
	add(p, 1, tiny, 2);
	s = profile_snapshot(p, COL_SELF);
	CHECK_EQ_U64(s->nrows, 3);
	CHECK_EQ_U64(s->total_period, 766);
	snapshot_free(s);

	/* Everything decays away eventually. */
	for (int i = 0; i < 100; i++)
		profile_end_window(p, false);
	s = profile_snapshot(p, COL_SELF);
	CHECK_EQ_U64(s->nrows, 0);
	CHECK_EQ_U64(s->total_period, 0);
	CHECK_EQ_U64(s->held_samples, 0);
	snapshot_free(s);
	profile_free(p);
}

/* A row whose Total falls under 1/20000 of the total goes at the next decay instead of after the
 * ~100 windows its period needs to reach 0; the Self it held stays in the total, so the others'
 * shares do not move. */
static void test_faded_rows_go(void)
{
	struct profile *p = profile_new(NULL, 0);
	struct frame hot[] = { fr(s_foo, s_app), fr(s_main, s_app) };
	struct frame cold[] = { fr(s_bar, s_libc) };
	add(p, 1000000, hot, 2);
	add(p, 40, cold, 1);
	profile_end_window(p, false);
	struct snapshot *s = profile_snapshot(p, COL_SELF);
	CHECK_EQ_U64(s->nrows, 2);
	CHECK(row_of(s, "bar") == NULL);
	CHECK_EQ_U64(s->total_period, 875000 + 35);
	const struct snap_row *foo = row_of(s, "foo");
	CHECK(foo && fabs(foo->self_pct - 100.0 * 875000 / 875035) < 1e-9);
	snapshot_free(s);
	profile_free(p);
}

static void test_zero_mode(void)
{
	struct profile *p = profile_new(NULL, 0);
	struct frame chain[] = { fr(s_bar, s_app), fr(s_main, s_app) };
	add(p, 100, chain, 2);
	profile_end_window(p, true);
	struct snapshot *s = profile_snapshot(p, COL_SELF);
	CHECK_EQ_U64(s->nrows, 0);
	CHECK_EQ_U64(s->total_period, 0);
	CHECK_EQ_U64(s->held_samples, 0);
	snapshot_free(s);

	add(p, 40, chain, 2);
	s = profile_snapshot(p, COL_SELF);
	CHECK_EQ_U64(s->nrows, 2);
	CHECK_EQ_U64(s->total_period, 40);
	CHECK(row_of(s, "bar") && row_of(s, "bar")->self_period == 40);
	snapshot_free(s);
	profile_free(p);
}

static void test_window_counters(void)
{
	struct profile *p = profile_new(NULL, 0);
	struct frame f[] = { fr(s_foo, s_app) };
	for (int i = 0; i < 3; i++)
		add(p, 8, f, 1);
	profile_add_lost(p, 2);
	profile_add_lost(p, 3);
	struct snapshot *s = profile_snapshot(p, COL_SELF);
	CHECK_EQ_U64(s->window_samples, 3);
	CHECK_EQ_U64(s->window_lost, 5);
	CHECK_EQ_U64(s->held_samples, 3);
	snapshot_free(s);

	profile_end_window(p, false);
	add(p, 8, f, 1);
	s = profile_snapshot(p, COL_SELF);
	CHECK_EQ_U64(s->window_samples, 1);
	CHECK_EQ_U64(s->window_lost, 0);
	CHECK_EQ_U64(s->held_samples, 3); /* 3 * 7 / 8 = 2, + 1 */
	snapshot_free(s);

	profile_end_window(p, true);
	s = profile_snapshot(p, COL_SELF);
	CHECK_EQ_U64(s->window_samples, 0);
	CHECK_EQ_U64(s->window_lost, 0);
	snapshot_free(s);
	profile_free(p);
}

static void test_frameless_sample(void)
{
	struct profile *p = profile_new(NULL, 0);
	struct frame f[] = { fr(s_foo, s_app) };
	add(p, 300, f, 1);
	add(p, 100, NULL, 0);
	struct snapshot *s = profile_snapshot(p, COL_SELF);
	CHECK_EQ_U64(s->nrows, 1);
	CHECK_EQ_U64(s->total_period, 400);
	CHECK_EQ_U64(s->window_samples, 2);
	CHECK(fabs(s->rows[0].self_pct - 75.0) < 1e-9);
	snapshot_free(s);
	profile_end_window(p, false);
	s = profile_snapshot(p, COL_SELF);
	CHECK_EQ_U64(s->total_period, 262 + 87); /* each part decays on its own */
	snapshot_free(s);
	profile_free(p);
}

static void test_context_keys(void)
{
	enum sort_key keys[] = { SORT_COMM, SORT_PID, SORT_SYM };
	struct profile *p = profile_new(keys, 3);
	CHECK(profile_nkeys(p) == 3);
	CHECK(profile_has_key(p, SORT_PID) && !profile_has_key(p, SORT_DSO));
	struct frame f[] = { fr(s_foo, s_app), fr(s_main, s_app) };
	struct sample_ctx a = { .comm = s_comm_a, .pid = 10, .tid = 11, .period = 5, .frames = f,
				.nframes = 2 };
	struct sample_ctx b = a;
	b.pid = 9;
	b.tid = 12;
	struct sample_ctx c = a;
	c.comm = s_comm_b;
	c.tid = 13;
	profile_add(p, &a);
	profile_add(p, &a);
	profile_add(p, &b);
	profile_add(p, &c);

	struct snapshot *s = profile_snapshot(p, COL_PID);
	CHECK_EQ_U64(s->nrows, 6); /* {foo, main} x {worker/10, worker/9, server/10} */
	CHECK(s->nkeys == 3 && s->keys[0] == SORT_COMM && s->keys[2] == SORT_SYM);
	/* PID ascending numerically: 9 before 10. */
	CHECK_EQ_U64(s->rows[0].pid, 9);
	CHECK_EQ_U64(s->rows[1].pid, 9);
	CHECK_EQ_U64(s->rows[2].pid, 10);
	for (size_t i = 0; i < s->nrows; i++) {
		CHECK(s->rows[i].dso == NULL && s->rows[i].srcline == NULL && s->rows[i].tid == 0);
		CHECK(s->rows[i].comm != NULL);
	}
	/* Within pid 10, worker's foo (self 10) comes before server's foo (self 5), mains last. */
	CHECK_STR(s->rows[2].comm, "worker");
	CHECK_STR(s->rows[2].sym, "foo");
	CHECK_EQ_U64(s->rows[2].self_period, 10);
	CHECK_STR(s->rows[3].comm, "server");
	CHECK_STR(s->rows[3].sym, "foo");

	snapshot_sort(s, COL_COMM);
	CHECK_STR(s->rows[0].comm, "server");
	CHECK_STR(s->rows[2].comm, "worker");
	snapshot_free(s);
	profile_free(p);

	/* tid: one row per thread. */
	enum sort_key tkeys[] = { SORT_TID };
	p = profile_new(tkeys, 1);
	profile_add(p, &a);
	profile_add(p, &b);
	profile_add(p, &c);
	profile_add(p, &c);
	s = profile_snapshot(p, COL_TID);
	CHECK_EQ_U64(s->nrows, 3);
	CHECK_EQ_U64(s->rows[0].tid, 11);
	CHECK_EQ_U64(s->rows[1].tid, 12);
	CHECK_EQ_U64(s->rows[2].tid, 13);
	CHECK_EQ_U64(s->rows[2].samples, 2);
	CHECK(s->rows[0].sym == NULL && s->rows[0].pid == 0);
	/* One row per thread, so each sample's whole chain lands in it: Total counted once. */
	CHECK_EQ_U64(s->rows[2].total_period, 10);
	snapshot_free(s);
	profile_free(p);
}

/* The container and cgroup keys: one row per container and function, the header's shares, the
 * filter by container, the namespace pids beside pid and tid, and a memoized chain (profile_add_again)
 * seen in another container going to that container's rows. */
static void test_container_keys(void)
{
	static char s_web[] = "web", s_db[] = "db", s_cg_web[] = "/docker/aaa", s_cg_db[] = "/docker/bbb";
	enum sort_key keys[3];
	CHECK_EQ_U64(sort_keys_parse("container,sym,cgroup", keys, 3, NULL, 0), 3);
	CHECK(keys[0] == SORT_CONTAINER && keys[2] == SORT_CGROUP);
	keys[0] = SORT_CONTAINER;
	keys[1] = SORT_SYM;
	struct profile *p = profile_new(keys, 2);
	struct frame f[] = { fr(s_foo, s_app), fr(s_main, s_app) };
	struct sample_ctx web = { .comm = s_comm_a, .pid = 10, .tid = 10, .period = 3, .frames = f,
				  .nframes = 2, .cgroup = s_cg_web, .container = s_web };
	struct sample_ctx db = web;
	db.pid = 20;
	db.cgroup = s_cg_db;
	db.container = s_db;
	uint32_t rows[3];
	profile_add_rows(p, &web, rows);
	profile_add_again(p, &web, rows);
	profile_add_again(p, &web, rows);
	profile_add_again(p, &db, rows); /* the same chain in another container: its own rows */
	struct snapshot *s = profile_snapshot(p, COL_CONTAINER);
	CHECK_EQ_U64(s->nrows, 4);
	CHECK_STR(s->rows[0].container, "db");
	CHECK_STR(s->rows[2].container, "web");
	CHECK(s->rows[0].cgroup == NULL); /* not a key */
	struct snap_share sh[4];
	CHECK_EQ_U64(snapshot_container_shares(s, sh, 4), 2);
	CHECK_STR(sh[0].container, "web");
	CHECK(fabs(sh[0].pct - 75.0) < 1e-9 && fabs(sh[1].pct - 25.0) < 1e-9);
	CHECK_EQ_U64(snapshot_container_shares(s, sh, 1), 1);
	struct snapshot *fs = snapshot_filter(s, "WEB");
	CHECK_EQ_U64(fs->nrows, 2);
	snapshot_free(fs);
	snapshot_free(s);
	profile_free(p);

	/* Without the container key: no shares, and the filter goes by the main process's container. */
	enum sort_key pkeys[] = { SORT_PID, SORT_SYM };
	p = profile_new(pkeys, 2);
	web.nspid = 7;
	profile_add(p, &web);
	profile_add(p, &db);
	s = profile_snapshot(p, COL_PID);
	CHECK_EQ_U64(snapshot_container_shares(s, sh, 4), 0);
	CHECK_EQ_U64(s->rows[0].pid, 10);
	CHECK_EQ_U64(s->rows[0].nspid, 7);
	CHECK_EQ_U64(s->rows[2].nspid, 0);
	char buf[32];
	snap_pid_text(s->rows[0].pid, s->rows[0].nspid, buf, sizeof(buf));
	CHECK_STR(buf, "10 (7)");
	snap_pid_text(20, 20, buf, sizeof(buf));
	CHECK_STR(buf, "20");
	fs = snapshot_filter(s, "db");
	CHECK_EQ_U64(fs->nrows, 2);
	CHECK_EQ_U64(fs->rows[0].pid, 20);
	snapshot_free(fs);
	snapshot_free(s);
	profile_free(p);
}

static void test_srcline_null_is_a_value(void)
{
	enum sort_key keys[] = { SORT_SYM, SORT_SRCLINE };
	struct profile *p = profile_new(keys, 2);
	struct frame f1[] = { { .sym = s_foo, .dso = s_app, .srcline = s_line1 } };
	struct frame f2[] = { { .sym = s_foo, .dso = s_app, .srcline = NULL } };
	add(p, 10, f1, 1);
	add(p, 20, f2, 1);
	struct snapshot *s = profile_snapshot(p, COL_SRCLINE);
	CHECK_EQ_U64(s->nrows, 2);
	CHECK_STR(s->rows[0].srcline, "a.c:1");
	CHECK(s->rows[1].srcline == NULL); /* unknown lines sort last */
	CHECK(s->rows[0].id != s->rows[1].id);
	snapshot_free(s);
	profile_free(p);
}

/* A leaf inlined into foo: Self is foo at the leaf's line, and foo also has a row of its own line
 * (where it called the inlined code), which holds it in Total; the two must not be taken for one. */
static void test_srcline_inline_self(void)
{
	static char s_inl[] = "inl", s_line2[] = "b.c:2", s_line3[] = "c.c:3";
	enum sort_key keys[] = { SORT_SYM, SORT_SRCLINE };
	struct profile *p = profile_new(keys, 2);
	struct frame f[] = { { .sym = s_inl, .dso = s_app, .srcline = s_line2, .inlined = true },
			     { .sym = s_foo, .dso = s_app, .srcline = s_line1 },
			     { .sym = s_main, .dso = s_app, .srcline = s_line3 } };
	add(p, 10, f, 3);
	add(p, 10, f, 3);
	struct snapshot *s = profile_snapshot(p, COL_SELF);
	CHECK_EQ_U64(s->nrows, 4);
	bool self_row = false, own_row = false;
	for (size_t i = 0; i < s->nrows; i++) {
		const struct snap_row *r = &s->rows[i];
		if (r->sym == s_foo && r->srcline == s_line2)
			self_row = r->self_period == 20 && r->total_period == 20;
		if (r->sym == s_foo && r->srcline == s_line1)
			own_row = r->self_period == 0 && r->total_period == 20;
	}
	CHECK(self_row);
	CHECK(own_row);
	snapshot_free(s);
	profile_free(p);
}

/* A tie between names alike in their first 16 bytes (unresolved addresses) and names that differ
 * only in a byte above 0x7f: the whole names decide, as strcmp orders them (unsigned bytes). */
static void test_tie_long_names(void)
{
	static char n_1[] = "0x00007f674f8562a1", n_0[] = "0x00007f674f8562a0", n_2[] = "0x00007f674f8562",
		    n_hi[] = "\xc3\xa9t\xc3\xa9", n_lo[] = "et\xc3\xa9";
	struct profile *p = profile_new(NULL, 0);
	const char *order[] = { n_2, n_0, n_1, n_lo, n_hi };
	struct frame f1[] = { fr(n_1, s_app) }, f0[] = { fr(n_0, s_app) }, f2[] = { fr(n_2, s_app) },
		     fh[] = { fr(n_hi, s_app) }, fl[] = { fr(n_lo, s_app) };
	add(p, 10, fh, 1);
	add(p, 10, f1, 1);
	add(p, 10, f0, 1);
	add(p, 10, fl, 1);
	add(p, 10, f2, 1);
	struct snapshot *s = profile_snapshot(p, COL_SELF);
	CHECK_EQ_U64(s->nrows, 5);
	for (size_t i = 0; i < 5 && i < s->nrows; i++)
		CHECK_STR(s->rows[i].sym, order[i]);
	snapshot_free(s);
	profile_free(p);
}

static void test_sort_orders(void)
{
	static char n_a[] = "alpha", n_b[] = "beta", n_c[] = "gamma", n_d[] = "delta";
	struct profile *p = profile_new(NULL, 0);
	struct frame fa[] = { fr(n_a, s_app), fr(n_d, s_app) };
	struct frame fb[] = { fr(n_b, s_app) };
	struct frame fc[] = { fr(n_c, s_libc) };
	struct frame fc2[] = { fr(n_c, s_app) };
	add(p, 10, fa, 2); /* alpha: self 10 total 10; delta: self 0 total 10 */
	add(p, 10, fb, 1); /* beta: self 10 total 10 */
	add(p, 5, fc, 1);  /* gamma@libc: self 10 total 10 */
	add(p, 5, fc, 1);
	add(p, 10, fc2, 1); /* gamma@app: self 10 total 10, one sample */

	struct snapshot *s = profile_snapshot(p, COL_SELF);
	CHECK_EQ_U64(s->nrows, 5);
	/* All four leaves tie on Self and Total: by name, then dso. */
	CHECK_STR(s->rows[0].sym, "alpha");
	CHECK_STR(s->rows[1].sym, "beta");
	CHECK_STR(s->rows[2].sym, "gamma");
	CHECK_STR(s->rows[2].dso, "app");
	CHECK_STR(s->rows[3].sym, "gamma");
	CHECK_STR(s->rows[3].dso, "libc.so.6");
	CHECK_STR(s->rows[4].sym, "delta");

	snapshot_sort(s, COL_SAMPLES);
	CHECK_STR(s->rows[0].sym, "gamma");
	CHECK_STR(s->rows[0].dso, "libc.so.6");
	CHECK_EQ_U64(s->rows[0].samples, 2);
	CHECK_STR(s->rows[1].sym, "alpha");
	CHECK_STR(s->rows[4].sym, "delta");

	snapshot_sort(s, COL_SYM);
	CHECK_STR(s->rows[0].sym, "alpha");
	CHECK_STR(s->rows[1].sym, "beta");
	CHECK_STR(s->rows[2].sym, "delta");
	CHECK_STR(s->rows[3].sym, "gamma");
	CHECK_STR(s->rows[4].sym, "gamma");

	snapshot_sort(s, COL_DSO);
	CHECK_STR(s->rows[4].dso, "libc.so.6");
	CHECK_STR(s->rows[0].dso, "app");
	CHECK_STR(s->rows[0].sym, "alpha"); /* app rows: hottest first, then by name */
	CHECK_STR(s->rows[3].sym, "delta");

	/* Same data, another profile fed in another order: the same listing. */
	struct profile *q = profile_new(NULL, 0);
	add(q, 10, fc2, 1);
	add(q, 5, fc, 1);
	add(q, 10, fb, 1);
	add(q, 5, fc, 1);
	add(q, 10, fa, 2);
	struct snapshot *t = profile_snapshot(q, COL_DSO);
	CHECK_EQ_U64(t->nrows, s->nrows);
	for (size_t i = 0; i < s->nrows && i < t->nrows; i++)
		CHECK_EQ_U64(t->rows[i].id, s->rows[i].id);
	snapshot_free(t);
	profile_free(q);

	CHECK_STR(snap_col_name(COL_SELF), "Self");
	CHECK_STR(snap_col_name(COL_DSO), "Shared Object");
	CHECK_STR(snap_col_name(COL_SRCLINE), "Source:Line");
	CHECK_STR(snap_col_name(COL_COMM), "Command");
	snapshot_free(s);
	profile_free(p);
}

/* Strictly before in the heat orders, by an independent reading of them: the first number then the
 * second descending, then symbol, dso (unknown last) and the id ascending (these rows have no
 * other keys). */
static bool heat_before(const struct snap_row *a, const struct snap_row *b, bool self_first)
{
	uint64_t a1 = self_first ? a->self_period : a->total_period;
	uint64_t b1 = self_first ? b->self_period : b->total_period;
	uint64_t a2 = self_first ? a->total_period : a->self_period;
	uint64_t b2 = self_first ? b->total_period : b->self_period;
	if (a1 != b1)
		return a1 > b1;
	if (a2 != b2)
		return a2 > b2;
	int c = strcmp(a->sym, b->sym);
	if (c)
		return c < 0;
	if (a->dso != b->dso)
		return !b->dso || (a->dso && strcmp(a->dso, b->dso) < 0);
	return a->id < b->id;
}

/* Thousands of rows, most of them tied on both numbers (leaves of one sample, callers with none):
 * the heat orders list every row once, each before the next by the orders' own rules, and the same
 * whichever order the rows were in before. */
static void test_heat_orders_with_ties(void)
{
	enum { NAMES = 1500 };
	static char names[NAMES][16];
	static const char *dsos[] = { "app", "libc.so.6", NULL };
	struct profile *p = profile_new(NULL, 0);
	srand(7);
	for (int i = 0; i < NAMES; i++)
		snprintf(names[i], sizeof(names[i]), "f%04d", (i * 7919) % NAMES);
	for (int k = 0; k < 6000; k++) {
		struct frame f[2] = { fr(names[rand() % NAMES], dsos[rand() % 3]),
				      fr(names[rand() % 40], dsos[rand() % 2]) };
		add(p, (uint64_t)(1 + rand() % 3), f, 1 + rand() % 2);
	}
	const enum snap_col orders[] = { COL_SELF, COL_TOTAL, COL_TIME };
	for (size_t o = 0; o < sizeof(orders) / sizeof(orders[0]); o++) {
		struct snapshot *s = profile_snapshot(p, COL_SYM);
		CHECK(s->nrows > 2000);
		snapshot_sort(s, orders[o]);
		bool self_first = orders[o] == COL_SELF;
		size_t bad = 0;
		for (size_t i = 0; i + 1 < s->nrows; i++)
			bad += !heat_before(&s->rows[i], &s->rows[i + 1], self_first);
		CHECK_EQ_U64(bad, 0);
		struct snapshot *t = profile_snapshot(p, COL_DSO);
		snapshot_sort(t, orders[o]);
		CHECK_EQ_U64(t->nrows, s->nrows);
		size_t differ = 0;
		for (size_t i = 0; i < s->nrows && i < t->nrows; i++)
			differ += t->rows[i].id != s->rows[i].id;
		CHECK_EQ_U64(differ, 0);
		snapshot_free(t);
		snapshot_free(s);
	}
	profile_free(p);
}

static void test_stable_ids_and_find(void)
{
	/* The same names at other addresses, as another run's interner would give. */
	static char o_main[] = "main", o_foo[] = "foo", o_app[] = "app";
	struct profile *p = profile_new(NULL, 0);
	struct frame f[] = { fr(s_foo, s_app), fr(s_main, s_app) };
	add(p, 3, f, 2);
	enum sort_key rev[] = { SORT_SYM, SORT_DSO };
	struct profile *q = profile_new(rev, 2);
	struct frame g[] = { fr(o_foo, o_app), fr(o_main, o_app) };
	add(q, 7, g, 2);
	CHECK((const char *)o_foo != (const char *)s_foo);

	struct snapshot *s = profile_snapshot(p, COL_SYM), *t = profile_snapshot(q, COL_SYM);
	CHECK_EQ_U64(s->nrows, 2);
	CHECK_EQ_U64(t->nrows, 2);
	CHECK_EQ_U64(s->rows[0].id, t->rows[0].id);
	CHECK_EQ_U64(s->rows[1].id, t->rows[1].id);
	CHECK(s->rows[0].id != 0 && s->rows[1].id != 0 && s->rows[0].id != s->rows[1].id);

	uint64_t main_id = row_of(s, "main")->id;
	CHECK(snapshot_find(s, main_id) == (long)(row_of(s, "main") - s->rows));
	CHECK(snapshot_find(s, 12345) == -1);
	snapshot_sort(s, COL_SELF);
	CHECK(snapshot_find(s, main_id) == 1);
	CHECK_STR(s->rows[snapshot_find(s, main_id)].sym, "main");

	/* The id survives a decay that compacts rows around it. */
	struct frame h[] = { fr(s_bar, s_app) };
	add(p, 1, h, 1);
	profile_end_window(p, false);
	struct snapshot *u = profile_snapshot(p, COL_SELF);
	CHECK(snapshot_find(u, main_id) >= 0);
	snapshot_free(u);

	/* Other keys, other ids. */
	enum sort_key symonly[] = { SORT_SYM };
	struct profile *r = profile_new(symonly, 1);
	add(r, 1, f, 2);
	u = profile_snapshot(r, COL_SYM);
	CHECK(snapshot_find(u, main_id) == -1);
	snapshot_free(u);
	profile_free(r);

	snapshot_free(s);
	snapshot_free(t);
	profile_free(p);
	profile_free(q);
}

static void test_sort_keys_parse(void)
{
	enum sort_key k[PROFILE_MAX_KEYS];
	char err[128];

	CHECK(sort_keys_parse("dso,sym", k, PROFILE_MAX_KEYS, err, sizeof(err)) == 2);
	CHECK(k[0] == SORT_DSO && k[1] == SORT_SYM);
	CHECK(sort_keys_parse(SORT_KEYS_DEFAULT, k, PROFILE_MAX_KEYS, err, sizeof(err)) == 2);
	CHECK(sort_keys_parse("comm", k, PROFILE_MAX_KEYS, err, sizeof(err)) == 1 && k[0] == SORT_COMM);
	CHECK(sort_keys_parse(" pid , Sym,tid", k, PROFILE_MAX_KEYS, err, sizeof(err)) == 3);
	CHECK(k[0] == SORT_PID && k[1] == SORT_SYM && k[2] == SORT_TID);
	CHECK(sort_keys_parse("sym,dso,sym", k, PROFILE_MAX_KEYS, err, sizeof(err)) == 2);
	CHECK(sort_keys_parse("comm,pid,tid,dso,sym,srcline", k, PROFILE_MAX_KEYS, err, sizeof(err)) ==
	      6);
	CHECK(k[5] == SORT_SRCLINE);

	CHECK(sort_keys_parse("dso,foo", k, PROFILE_MAX_KEYS, err, sizeof(err)) == -1);
	CHECK_STR(err, "unknown sort key 'foo' (known: comm, pid, tid, dso, sym, srcline, state, cgroup, "
		       "container)");
	CHECK(sort_keys_parse("symbol", k, PROFILE_MAX_KEYS, err, sizeof(err)) == -1);
	CHECK(strstr(err, "'symbol'") != NULL);
	CHECK(sort_keys_parse("", k, PROFILE_MAX_KEYS, err, sizeof(err)) == -1);
	CHECK(sort_keys_parse("dso,,sym", k, PROFILE_MAX_KEYS, err, sizeof(err)) == -1);
	CHECK(strstr(err, "empty") != NULL);
	CHECK(sort_keys_parse("dso,sym", k, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "too many") != NULL);

	CHECK_STR(sort_key_name(SORT_SRCLINE), "srcline");
	CHECK_STR(sort_key_name(SORT_COMM), "comm");
}

/* Many rows against a plain tally per symbol: covers table growth, compaction and rebuilds. */
enum { NSYM = 3000 };

/* The profile's decay on a plain tally: x7/8 per row and of what is held without a row (*faded),
 * then a row whose Total is under 1/20000 of what is held goes, the Self it held joining *faded
 * (model/decay.h). Returns the new total: the rows' Self plus *faded. */
static uint64_t x78(uint64_t x)
{
	return x / 8 * 7 + x % 8 * 7 / 8;
}

static uint64_t tally_decay(uint64_t *self, uint64_t *total, uint64_t *samples, uint64_t *faded)
{
	uint64_t held = *faded = x78(*faded);
	for (int i = 0; i < NSYM; i++) {
		self[i] = x78(self[i]);
		total[i] = x78(total[i]);
		samples[i] = x78(samples[i]);
		held += self[i];
	}
	for (int i = 0; i < NSYM; i++) {
		if (total[i] < held / 20000) {
			*faded += self[i];
			self[i] = total[i] = samples[i] = 0;
		}
	}
	return held;
}

static void test_against_tally(void)
{
	static char names[NSYM][16];
	static uint64_t self[NSYM], total[NSYM], samples[NSYM], stamp[NSYM];
	struct profile *p = profile_new(NULL, 0);
	uint64_t all = 0, faded = 0;

	for (int i = 0; i < NSYM; i++)
		snprintf(names[i], sizeof(names[i]), "fn%d", i);
	/* Seven threads (the profile remembers the rows of each one's last callers), each mostly
	 * keeping its callers from one sample to its next: a new leaf, or now and then all new. */
	static int stack[7][8];
	static int depth[7];
	srand(42);
	for (int round = 0; round < 3; round++) {
		for (int n = 0; n < 20000; n++) {
			struct frame f[8];
			int th = rand() % 7;
			if (depth[th] == 0 || rand() % 4 == 0) {
				depth[th] = 1 + rand() % 8;
				for (int j = 0; j < depth[th]; j++)
					stack[th][j] = rand() % (round == 1 ? 100 : NSYM); /* round 1: few rows survive */
			}
			stack[th][0] = rand() % (round == 1 ? 100 : NSYM);
			int nf = depth[th];
			uint64_t period = 1 + (uint64_t)(rand() % 5000);
			uint64_t tag = (uint64_t)round * 100000 + (uint64_t)n + 1;
			for (int j = 0; j < nf; j++) {
				int sym = stack[th][j];
				f[j] = fr(names[sym], s_app);
				if (j == 0) {
					self[sym] += period;
					samples[sym]++;
				}
				if (stamp[sym] != tag) {
					stamp[sym] = tag;
					total[sym] += period;
				}
			}
			all += period;
			add_tid(p, 100 + (uint32_t)th, period, f, nf);
		}
		struct snapshot *s = profile_snapshot(p, COL_SELF);
		size_t live = 0;
		bool ok = true;
		for (int i = 0; i < NSYM; i++) {
			const struct snap_row *r = NULL;
			if (total[i] || self[i]) {
				live++;
				r = row_of(s, names[i]);
				ok &= r && r->self_period == self[i] && r->total_period == total[i] &&
				      r->samples == samples[i];
			}
		}
		CHECK(ok);
		CHECK_EQ_U64(s->nrows, live);
		CHECK_EQ_U64(s->total_period, all);
		snapshot_free(s);

		/* Decay both sides the same way. */
		profile_end_window(p, false);
		all = tally_decay(self, total, samples, &faded);
		for (int k = 0; k < 20 && round == 0; k++) { /* let most rows fade before round 1 */
			profile_end_window(p, false);
			all = tally_decay(self, total, samples, &faded);
		}
	}
	profile_free(p);
}

/* Budgets: the spec is ~8000 samples/s of ~30 frames and a 10k-row snapshot well under 10 ms;
 * the speed itself is the benchmarks' (bench/), which a test's time limit would only turn into a
 * verdict on the machine. What is checked here is the complexity, which no machine changes: four
 * times the samples take about four times as long to add, and four times the rows to snapshot
 * (linear), not sixteen (quadratic): under ten times, each time the thread's CPU time (a busy
 * machine's other work is not counted in it) and the least of 5 runs (what the machine still adds,
 * its caches' misses, only lengthens one), plus a few ms for the clock's noise on small figures. */
static char speed_names[40000][16];

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void time_profile(int nsamples, int nrows, double *add_ms, double *snap_ms)
{
	*add_ms = *snap_ms = INFINITY;
	for (int run = 0; run < 5; run++) {
		struct profile *p = profile_new(NULL, 0);
		double t0 = cpu_ms();
		struct frame f[30];
		for (int n = 0; n < nsamples; n++) {
			for (int j = 0; j < 30; j++)
				f[j] = fr(speed_names[(n * 31 + j * 7919) % nrows], s_app);
			add(p, 1000 + (uint64_t)(n % 97), f, 30);
		}
		double t1 = cpu_ms();
		struct snapshot *s = profile_snapshot(p, COL_SELF);
		double t2 = cpu_ms();
		CHECK_EQ_U64(s->nrows, (uint64_t)nrows);
		snapshot_free(s);
		profile_free(p);
		*add_ms = fmin(*add_ms, t1 - t0);
		*snap_ms = fmin(*snap_ms, t2 - t1);
	}
}

static void test_speed(void)
{
	for (int i = 0; i < 40000; i++)
		snprintf(speed_names[i], sizeof(speed_names[i]), "f%05d", i);
	double add1, snap1, add4, snap_unused, add_unused, snap4;
	time_profile(8000, 10000, &add1, &snap1);
	time_profile(32000, 10000, &add4, &snap_unused);   /* four times the samples */
	time_profile(8000, 40000, &add_unused, &snap4);    /* four times the rows */
	printf("8000 samples x 30 frames over 10000 names: %.2f ms; its snapshot: %.2f ms\n", add1,
	       snap1);
	printf("32000 samples: %.2f ms (%.1fx); a snapshot of 40000 rows: %.2f ms (%.1fx)\n", add4,
	       add4 / add1, snap4, snap4 / snap1);
	CHECK(add4 < 10 * add1 + 5);
	CHECK(snap4 < 10 * snap1 + 5);
}

int main(void)
{
	test_simple_chain();
	test_recursion_counts_total_once();
	test_self_pct_sums_to_100();
	test_decay();
	test_faded_rows_go();
	test_zero_mode();
	test_window_counters();
	test_frameless_sample();
	test_context_keys();
	test_container_keys();
	test_srcline_null_is_a_value();
	test_srcline_inline_self();
	test_tie_long_names();
	test_sort_orders();
	test_heat_orders_with_ties();
	test_stable_ids_and_find();
	test_sort_keys_parse();
	test_against_tally();
	test_speed();
	return CHECK_DONE();
}
