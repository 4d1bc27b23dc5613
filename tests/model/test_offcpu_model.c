/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_offcpu_model: what the model does with off-CPU and wall time (hand-made pieces of blocks,
 * as session_take_sample hands them over): the state sort key (parsing, rows per state, ids,
 * names, a replay's rows made again in another state), blocks and the longest block per row over
 * windows (decay, the reset at each window end, -z), the run-queue part of every count seen
 * through snapshot_runq and ct_snapshot_runq (exact across decays, percentages of what is left),
 * and the held seconds behind the per-second figures (a steady rate reads as itself over decayed
 * windows), and --diff's change in Total% (Self is the scheduler's in every off-CPU stack).
 *
 * State numbers are sampler/offcpu.h's (1 S, 2 D, 3 R, 4 R+): the model keeps its own table of
 * their names, which this test pins down.
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "model/calltree.h"
#include "model/diff.h"
#include "model/profile.h"
#include "model/snapshot.h"

enum { ST_CPU = 0, ST_S = 1, ST_D = 2, ST_R = 3, ST_RP = 4 };

static char s_main[] = "main", s_sleep[] = "nanosleep", s_sync[] = "fdatasync",
	    s_lock[] = "lock_wait", s_spin[] = "spin", s_sched[] = "__schedule";
static char s_app[] = "app", s_libc[] = "libc.so.6", s_k[] = "[kernel.kallsyms]";
static char s_comm[] = "fixture";

static struct frame fr(const char *sym, const char *dso)
{
	return (struct frame){ .sym = sym, .dso = dso };
}

/* One piece of a block (state != 0) or an on-CPU sample (state 0) of ns nanoseconds. */
static struct sample_ctx piece(uint8_t state, uint64_t ns, bool begins, uint64_t block_ns,
			       const struct frame *f, int n)
{
	return (struct sample_ctx){ .comm = s_comm, .pid = 7, .tid = 7, .period = ns,
				    .state = state, .block_begins = begins, .block_ns = block_ns,
				    .frames = f, .nframes = n };
}

static void add(struct profile *p, struct calltree *t, struct sample_ctx s)
{
	profile_add(p, &s);
	if (t)
		calltree_add(t, &s);
}

static const struct snap_row *row_of(const struct snapshot *s, const char *sym, int state)
{
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].sym && strcmp(s->rows[i].sym, sym) == 0 &&
		    (state < 0 || s->rows[i].state == state))
			return &s->rows[i];
	return NULL;
}

static void test_state_names_and_parse(void)
{
	CHECK_STR(profile_state_name(ST_CPU), "on-CPU");
	CHECK_STR(profile_state_name(ST_S), "S");
	CHECK_STR(profile_state_name(ST_D), "D");
	CHECK_STR(profile_state_name(ST_R), "R");
	CHECK_STR(profile_state_name(ST_RP), "R+");
	CHECK_STR(profile_state_name(PROFILE_NSTATES - 1), "?");
	CHECK_STR(profile_state_name(200), "?");
	CHECK(profile_state_is_runq(ST_R) && profile_state_is_runq(ST_RP));
	CHECK(!profile_state_is_runq(ST_S) && !profile_state_is_runq(ST_D) &&
	      !profile_state_is_runq(ST_CPU));
	CHECK_STR(profile_mode_name(PROFILE_OFFCPU), "off-cpu");
	CHECK_STR(profile_mode_name(PROFILE_WALL), "wall");
	CHECK_STR(profile_mode_title(PROFILE_OFFCPU), "off-CPU");

	enum sort_key k[PROFILE_MAX_KEYS];
	char err[256];
	CHECK(sort_keys_parse("state", k, PROFILE_MAX_KEYS, err, sizeof(err)) == 1 &&
	      k[0] == SORT_STATE);
	CHECK(sort_keys_parse("State, sym", k, PROFILE_MAX_KEYS, err, sizeof(err)) == 2 &&
	      k[0] == SORT_STATE && k[1] == SORT_SYM);
	CHECK(sort_keys_parse("comm,pid,tid,dso,sym,srcline,state", k, PROFILE_MAX_KEYS, err,
			      sizeof(err)) == 7);
	CHECK_STR(sort_key_name(SORT_STATE), "state");
}

/* -s state,sym: one row per (state, function); ids differ by state and hash contents. */
static void test_state_key_rows(void)
{
	enum sort_key keys[] = { SORT_STATE, SORT_SYM };
	struct profile *p = profile_new(keys, 2);
	profile_set_mode(p, PROFILE_WALL);
	struct frame sl[] = { fr(s_sched, s_k), fr(s_sleep, s_libc), fr(s_main, s_app) };
	struct frame sp[] = { fr(s_spin, s_app), fr(s_main, s_app) };
	add(p, NULL, piece(ST_S, 3000, true, 3000, sl, 3));
	add(p, NULL, piece(ST_RP, 1000, true, 1000, sl, 3)); /* same stack, preempted */
	add(p, NULL, piece(ST_CPU, 4000, false, 0, sp, 2));
	struct snapshot *s = profile_snapshot(p, COL_SELF);
	CHECK(s->mode == PROFILE_WALL);
	const struct snap_row *sched_s = row_of(s, "__schedule", ST_S);
	const struct snap_row *sched_r = row_of(s, "__schedule", ST_RP);
	const struct snap_row *spin = row_of(s, "spin", ST_CPU);
	const struct snap_row *main_s = row_of(s, "main", ST_S);
	const struct snap_row *main_c = row_of(s, "main", ST_CPU);
	CHECK(sched_s && sched_r && spin && main_s && main_c);
	if (sched_s && sched_r && spin && main_s && main_c) {
		CHECK_EQ_U64(sched_s->self_period, 3000);
		CHECK_EQ_U64(sched_r->self_period, 1000);
		CHECK(sched_s->id != sched_r->id);
		CHECK_EQ_U64(spin->self_period, 4000);
		CHECK_EQ_U64(main_s->total_period, 3000);
		CHECK_EQ_U64(main_c->total_period, 4000);
		/* The scheduler is the leaf of an off-CPU stack: blocks are its Self, the
		 * callers' Total. */
		CHECK_EQ_U64(snap_row_blocks(sched_s), 1);
		CHECK_EQ_U64(snap_row_blocks(main_s), 0);
		CHECK_EQ_U64(snap_row_total_blocks(main_s), 1);
		CHECK_EQ_U64(snap_row_longest_ns(sched_s), 3000);
		CHECK_EQ_U64(snap_row_blocks(spin) + snap_row_total_blocks(spin) +
				     snap_row_longest_ns(spin), 0);
	}
	uint64_t sched_r_id = sched_r ? sched_r->id : 0;
	/* Order by state: on-CPU, S, R+ (numbers ascending), then heat (the rows move). */
	snapshot_sort(s, COL_STATE);
	CHECK(s->rows[0].state == ST_CPU && s->rows[s->nrows - 1].state == ST_RP);
	/* A second profile with the same keys gives the same ids (contents, not pointers). */
	struct profile *q = profile_new(keys, 2);
	add(q, NULL, piece(ST_RP, 5, true, 5, sl, 3));
	struct snapshot *t = profile_snapshot(q, COL_SELF);
	CHECK(row_of(t, "__schedule", ST_RP) && row_of(t, "__schedule", ST_RP)->id == sched_r_id);
	snapshot_free(t);
	profile_free(q);
	snapshot_free(s);
	profile_free(p);

	/* Without the state key the states share the row. */
	p = profile_new(NULL, 0);
	add(p, NULL, piece(ST_S, 3000, true, 3000, sl, 3));
	add(p, NULL, piece(ST_RP, 1000, true, 1000, sl, 3));
	s = profile_snapshot(p, COL_SELF);
	CHECK(row_of(s, "__schedule", -1) && row_of(s, "__schedule", -1)->self_period == 4000);
	CHECK(row_of(s, "__schedule", -1)->state == 0);
	snapshot_free(s);
	profile_free(p);
}

/* A replay adds a chain again through its remembered rows: with the state a key, the same chain in
 * another state must still land on that state's rows. */
static void test_add_again_other_state(void)
{
	enum sort_key keys[] = { SORT_STATE, SORT_SYM };
	struct profile *a = profile_new(keys, 2), *b = profile_new(keys, 2);
	struct frame sl[] = { fr(s_sched, s_k), fr(s_sleep, s_libc), fr(s_main, s_app) };
	uint32_t rows[4];
	struct sample_ctx first = piece(ST_S, 100, true, 100, sl, 3);
	profile_add_rows(a, &first, rows);
	profile_add(b, &first);
	static const uint8_t states[] = { ST_S, ST_RP, ST_D, ST_S, ST_RP };
	for (size_t i = 0; i < sizeof(states); i++) {
		struct sample_ctx again = piece(states[i], 10 + i, i % 2 == 0, 50 + i, sl, 3);
		profile_add_again(a, &again, rows);
		profile_add(b, &again);
	}
	struct snapshot *sa = profile_snapshot(a, COL_SELF), *sb = profile_snapshot(b, COL_SELF);
	CHECK_EQ_U64(sa->nrows, sb->nrows);
	for (size_t i = 0; i < sa->nrows && i < sb->nrows; i++) {
		CHECK(sa->rows[i].id == sb->rows[i].id);
		CHECK_EQ_U64(sa->rows[i].self_period, sb->rows[i].self_period);
		CHECK_EQ_U64(sa->rows[i].total_period, sb->rows[i].total_period);
		CHECK_EQ_U64(snap_row_blocks(&sa->rows[i]), snap_row_blocks(&sb->rows[i]));
		CHECK_EQ_U64(snap_row_longest_ns(&sa->rows[i]), snap_row_longest_ns(&sb->rows[i]));
	}
	snapshot_free(sa);
	snapshot_free(sb);
	profile_free(a);
	profile_free(b);
}

/* Blocks count the first piece of each block on its Self row, decay like samples; the longest
 * block is the window's: pieces report the block's length so far, and it starts over at each
 * window end. */
static void test_blocks_and_longest(void)
{
	struct profile *p = profile_new(NULL, 0);
	profile_set_mode(p, PROFILE_OFFCPU);
	struct frame sl[] = { fr(s_sleep, s_libc), fr(s_main, s_app) };
	struct frame sy[] = { fr(s_sync, s_libc), fr(s_main, s_app) };
	/* 16 short sleeps of 10 ms. */
	for (int i = 0; i < 16; i++)
		add(p, NULL, piece(ST_S, 10000000, true, 10000000, sl, 2));
	/* One long fdatasync still going at the refresh: a first piece of 300 ms. */
	add(p, NULL, piece(ST_D, 300000000, true, 300000000, sy, 2));
	struct snapshot *s = profile_snapshot(p, COL_SELF);
	const struct snap_row *sleep = row_of(s, "nanosleep", -1);
	const struct snap_row *sync = row_of(s, "fdatasync", -1);
	const struct snap_row *m = row_of(s, "main", -1);
	CHECK(sleep && sync && m);
	if (sleep && sync && m) {
		CHECK_EQ_U64(snap_row_blocks(sleep), 16);
		CHECK_EQ_U64(snap_row_longest_ns(sleep), 10000000);
		CHECK_EQ_U64(snap_row_blocks(sync), 1);
		CHECK_EQ_U64(snap_row_longest_ns(sync), 300000000);
		CHECK_EQ_U64(snap_row_blocks(m), 0); /* blocks are Self's */
		/* the longest block is Total's: main called both */
		CHECK_EQ_U64(snap_row_longest_ns(m), 300000000);
	}
	snapshot_free(s);
	profile_end_window(p, false);

	/* The next window: the fdatasync's second piece (the block is 500 ms long now) and its end
	 * piece; no sleeps. */
	add(p, NULL, piece(ST_D, 150000000, false, 450000000, sy, 2));
	add(p, NULL, piece(ST_D, 50000000, false, 500000000, sy, 2));
	s = profile_snapshot(p, COL_SELF);
	sleep = row_of(s, "nanosleep", -1);
	sync = row_of(s, "fdatasync", -1);
	CHECK(sleep && sync);
	if (sleep && sync) {
		CHECK_EQ_U64(snap_row_blocks(sleep), 14);        /* 16 * 7 / 8 */
		CHECK_EQ_U64(sleep->self_period, 140000000);
		CHECK_EQ_U64(snap_row_longest_ns(sleep), 0);     /* none in this window */
		CHECK_EQ_U64(snap_row_blocks(sync), 0); /* 1 * 7 / 8: the block counted once */
		CHECK_EQ_U64(sync->self_period, 262500000 + 200000000);
		CHECK_EQ_U64(snap_row_longest_ns(sync), 500000000);
	}
	snapshot_free(s);

	/* -z: everything goes, the longest with it. */
	profile_end_window(p, true);
	add(p, NULL, piece(ST_S, 1000, true, 1000, sl, 2));
	s = profile_snapshot(p, COL_SELF);
	const struct snap_row *ns = row_of(s, "nanosleep", -1);
	CHECK(ns && snap_row_longest_ns(ns) == 1000 && snap_row_blocks(ns) == 1);
	CHECK(row_of(s, "fdatasync", -1) == NULL);
	snapshot_free(s);
	profile_free(p);
}

/* The run-queue part: hidden, the rows are exactly what was added outside the run queue, decayed;
 * alone, what was added in it; the percentages are shares of what is shown. The stacks are as K
 * leaves them (no kernel frames: the user function that blocked is Self). */
static void test_runq_view(void)
{
	struct profile *p = profile_new(NULL, 0);
	struct calltree *t = calltree_new(0);
	profile_set_mode(p, PROFILE_OFFCPU);
	struct frame lk[] = { fr(s_lock, s_app), fr(s_main, s_app) };
	struct frame sl[] = { fr(s_sleep, s_libc), fr(s_main, s_app) };
	uint64_t other = 0, runq = 0;
	for (int w = 0; w < 6; w++) {
		for (int i = 0; i < 5; i++) {
			uint64_t a = 1000003 * (uint64_t)(i + 1), b = 70001 * (uint64_t)(w + 2);
			add(p, t, piece(ST_S, a, true, a, sl, 2));
			add(p, t, piece(i % 2 ? ST_R : ST_RP, b, true, b, lk, 2));
			add(p, t, piece(ST_D, 13, false, 13 + (uint64_t)i, lk, 2));
			other += a + 13;
			runq += b;
		}
		/* A frameless piece in the run queue: in the totals only. */
		add(p, t, piece(ST_RP, 7, true, 7, NULL, 0));
		runq += 7;
		if (w < 5) {
			profile_end_window(p, false);
			calltree_end_window(t, false);
			other = other / 8 * 7 + other % 8 * 7 / 8;
			runq = runq / 8 * 7 + runq % 8 * 7 / 8;
		}
	}
	struct snapshot *full = profile_snapshot(p, COL_SELF);
	full->tree = calltree_snapshot(t);
	/* The tally decays the sums, the model each row: equal to within a unit per row and
	 * window. */
	CHECK(full->total_period >= other + runq - 40 && full->total_period <= other + runq);
	CHECK(full->runq_period >= runq - 20 && full->runq_period <= runq);

	struct snapshot *hide = snapshot_runq(full, RUNQ_HIDE);
	struct snapshot *only = snapshot_runq(full, RUNQ_ONLY);
	CHECK(hide->runq == RUNQ_HIDE && only->runq == RUNQ_ONLY);
	CHECK_EQ_U64(hide->total_period + only->total_period, full->total_period);
	CHECK_EQ_U64(hide->runq_period, 0);
	CHECK_EQ_U64(only->runq_period, only->total_period);
	/* lock_wait: R/R+ and D pieces; nanosleep: S only. */
	const struct snap_row *lf = row_of(full, "lock_wait", -1);
	const struct snap_row *lh = row_of(hide, "lock_wait", -1), *lo = row_of(only, "lock_wait", -1);
	CHECK(lf && lh && lo && row_of(only, "nanosleep", -1) == NULL);
	CHECK(row_of(hide, "nanosleep", -1) != NULL);
	if (lf && lh && lo) {
		CHECK_EQ_U64(lh->total_period + lo->total_period, lf->total_period);
		CHECK_EQ_U64(snap_row_blocks(lh), 0);          /* its D pieces began no block */
		CHECK(snap_row_blocks(lo) > 0);
		CHECK_EQ_U64(snap_row_blocks(lo), snap_row_blocks(lf));
		CHECK_EQ_U64(snap_row_total_blocks(lo), snap_row_blocks(lf));
		CHECK_EQ_U64(snap_row_longest_ns(lh), 17); /* the D pieces' longest, this window */
		CHECK_EQ_U64(snap_row_longest_ns(lo), 70001 * 7);
		CHECK_EQ_U64(snap_row_longest_ns(lf), 70001 * 7);
		CHECK(fabs(lo->total_pct - 100.0 * (double)lo->total_period /
					     (double)only->total_period) < 1e-9);
	}
	/* main holds every block in Total, none as Self; seen either way they add up. */
	const struct snap_row *mf = row_of(full, "main", -1), *mh = row_of(hide, "main", -1),
			      *mo = row_of(only, "main", -1);
	CHECK(mf && mh && mo);
	if (mf && mh && mo) {
		CHECK_EQ_U64(snap_row_blocks(mf), 0);
		CHECK_EQ_U64(snap_row_total_blocks(mh) + snap_row_total_blocks(mo),
			     snap_row_total_blocks(mf));
		CHECK(snap_row_total_blocks(mf) > 0 &&
		      snap_row_total_blocks(mo) == snap_row_blocks(lf));
	}
	/* Self% of what is shown sums to 100 (the frameless piece was a run-queue wait). */
	double sum = 0;
	for (size_t i = 0; i < hide->nrows; i++)
		sum += hide->rows[i].self_pct;
	CHECK(fabs(sum - 100.0) < 1e-6);

	/* The call trees agree with the rows. */
	CHECK(hide->tree && only->tree && !hide->tree_borrowed);
	CHECK_EQ_U64(hide->tree->total + only->tree->total, full->tree->total);
	struct ct_func f = { s_lock, s_app };
	struct ct_result *ch = calltree_callees(hide->tree, f);
	struct ct_result *co = calltree_callees(only->tree, f);
	CHECK(lh && ch->nodes[0].total == lh->total_period);
	CHECK(lo && co->nodes[0].total == lo->total_period);
	ct_result_free(ch);
	ct_result_free(co);
	struct ct_result *fh = calltree_flame(hide->tree, (struct ct_func){ 0 });
	struct ct_result *fo = calltree_flame(only->tree, (struct ct_func){ 0 });
	/* only: no sleeper below main */
	bool sleeper = false;
	for (size_t i = 0; i < fo->n; i++)
		sleeper |= fo->nodes[i].sym && strcmp(fo->nodes[i].sym, "nanosleep") == 0;
	CHECK(!sleeper);
	CHECK_EQ_U64(fh->nodes[0].total + fo->nodes[0].total,
		     full->tree->nodes[0].total);
	ct_result_free(fh);
	ct_result_free(fo);

	/* Seen through the same view again, a copy stays as it is; ALL is a plain copy. */
	struct snapshot *again = snapshot_runq(hide, RUNQ_HIDE);
	struct snapshot *all = snapshot_runq(full, RUNQ_ALL);
	CHECK_EQ_U64(again->total_period, hide->total_period);
	CHECK_EQ_U64(again->nrows, hide->nrows);
	CHECK_EQ_U64(all->total_period, full->total_period);
	CHECK_EQ_U64(all->nrows, full->nrows);
	snapshot_free(again);
	snapshot_free(all);
	snapshot_free(hide);
	snapshot_free(only);
	snapshot_free(full);
	calltree_free(t);
	profile_free(p);
}

/* Samples mode is untouched: no run-queue part, and the decay is the plain x7/8. */
static void test_samples_mode_untouched(void)
{
	struct profile *p = profile_new(NULL, 0);
	struct calltree *t = calltree_new(0);
	struct frame sp[] = { fr(s_spin, s_app), fr(s_main, s_app) };
	for (int i = 0; i < 9; i++)
		add(p, t, piece(0, 1000001, false, 0, sp, 2));
	profile_end_window(p, false);
	struct snapshot *s = profile_snapshot(p, COL_SELF);
	CHECK(s->mode == PROFILE_SAMPLES && !snapshot_is_time(s));
	CHECK_EQ_U64(s->total_period, 9000009 / 8 * 7 + 9000009 % 8 * 7 / 8);
	CHECK_EQ_U64(s->runq_period, 0);
	/* A sampling profile has no time figures at all: its rows cost what they did. */
	CHECK(profile_times(p) == NULL && s->times == NULL);
	CHECK(row_of(s, "spin", -1) && row_of(s, "spin", -1)->time == NULL &&
	      snap_row_blocks(row_of(s, "spin", -1)) == 0);
	snapshot_free(s);
	/* Nor has a call tree without run-queue waits (off-CPU pieces in S or D are not). */
	add(p, t, piece(ST_S, 5, true, 5, sp, 2));
	struct ct_snapshot *ct = calltree_snapshot(t);
	CHECK(ct->runq == NULL && ct->runq_total == 0);
	ct_snapshot_free(ct);
	CHECK(profile_times(p) != NULL);
	calltree_free(t);
	profile_free(p);
}

/* Held seconds decay like the rows: a steady 0.5 thread blocked reads 0.5 in every window, decayed
 * or zeroed; the window's own length rides along. */
static void test_held_seconds(void)
{
	struct profile *p = profile_new(NULL, 0);
	profile_set_mode(p, PROFILE_OFFCPU);
	struct frame sl[] = { fr(s_sleep, s_libc), fr(s_main, s_app) };
	for (int w = 0; w < 12; w++) {
		double secs = w % 3 ? 1.0 : 2.0; /* windows of uneven length */
		/* 0.5 s blocked per second, 10 blocks per second */
		for (int i = 0; i < (int)(secs * 10); i++)
			add(p, NULL, piece(ST_S, 50000000, true, 50000000, sl, 2));
		profile_add_window_secs(p, secs);
		struct snapshot *s = profile_snapshot(p, COL_SELF);
		const struct snap_row *r = row_of(s, "nanosleep", -1);
		CHECK(r && fabs(snapshot_per_sec(s, r->self_period) / 1e9 - 0.5) < 0.005);
		CHECK(r && fabs(snapshot_per_sec(s, snap_row_blocks(r)) - 10) < 1.5);
		CHECK(fabs(s->window_secs - secs) < 1e-12);
		CHECK(s->held_secs >= secs);
		snapshot_free(s);
		profile_end_window(p, w == 6);
	}
	CHECK(profile_window_secs(p) == 0);
	profile_end_window(p, true);
	CHECK(profile_held_secs(p) == 0);
	/* No window length: no rate rather than a division by zero. */
	struct snapshot *s = profile_snapshot(p, COL_SELF);
	CHECK(snapshot_per_sec(s, 1000) == 0);
	snapshot_free(s);
	profile_free(p);
}

/* --diff in a time mode: the change of each row's Total%, the base's Total% beside it (an off-CPU
 * stack's leaf is the scheduler: Self% would never move anywhere else). Base: 3 s of sleeps, 1 s of
 * fdatasync; now 1 s and 3 s. */
static void test_diff_by_total(void)
{
	struct frame sl[] = { fr(s_sched, s_k), fr(s_sleep, s_libc), fr(s_main, s_app) };
	struct frame sy[] = { fr(s_sched, s_k), fr(s_sync, s_libc), fr(s_main, s_app) };
	struct snapshot *snap[2];
	for (int k = 0; k < 2; k++) {
		struct profile *p = profile_new(NULL, 0);
		profile_set_mode(p, PROFILE_OFFCPU);
		add(p, NULL, piece(ST_S, k ? 1000000000 : 3000000000, true, 1000, sl, 3));
		add(p, NULL, piece(ST_D, k ? 3000000000 : 1000000000, true, 1000, sy, 3));
		snap[k] = profile_snapshot(p, COL_SELF);
		profile_free(p);
	}
	struct diff_base *b = diff_base_new(snap[0]);
	diff_apply(b, snap[1]);
	const struct snap_row *sleep = row_of(snap[1], "nanosleep", -1);
	const struct snap_row *sync = row_of(snap[1], "fdatasync", -1);
	const struct snap_row *sched = row_of(snap[1], "__schedule", -1);
	CHECK(sleep && sync && sched);
	if (sleep && sync && sched) {
		CHECK(fabs(sleep->base_self - 75.0) < 1e-9 && fabs(sleep->delta + 50.0) < 1e-9);
		CHECK(fabs(sync->base_self - 25.0) < 1e-9 && fabs(sync->delta - 50.0) < 1e-9);
		CHECK(fabs(sched->delta) < 1e-9);
	}
	diff_base_free(b);
	snapshot_free(snap[0]);
	snapshot_free(snap[1]);
}

int main(void)
{
	test_diff_by_total();
	test_state_names_and_parse();
	test_state_key_rows();
	test_add_again_other_state();
	test_blocks_and_longest();
	test_runq_view();
	test_samples_mode_untouched();
	test_held_seconds();
	return CHECK_DONE();
}
