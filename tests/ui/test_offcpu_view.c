/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_offcpu_view: the views in the time modes (--off-cpu, --wall) without a terminal. A fake
 * off-CPU data set (threads that sleep, sync a file, wait on a lock and get preempted, their stacks
 * under the kernel's __schedule as sched_switch records them; in --wall a spinning thread beside
 * them) over a 2 s window is rendered and compared with golden files under tests/ui/golden/: the
 * off-CPU table (Time, Blocks/s, Longest instead of Samples, "off-CPU time" on the mode line), the
 * wall table with the state key and run-queue waits alone, and the flame graph. Keys: r cycles the
 * run-queue waits (and does nothing when sampling), its help line is there only in the time modes,
 * the order keys move through the new columns, F2 offers the session's kind of columns, and the
 * function view and the flame graph say time as threads.
 *
 *   test_offcpu_view GOLDEN_DIR          compare
 *   PERFTOP_UPDATE_GOLDEN=1 ...          rewrite the golden files (then review them)
 */
#include <stdlib.h>

#include "check.h"
#include "golden.h"
#include "model/calltree.h"
#include "model/profile.h"
#include "model/snapshot.h"
#include "ui/keys.h"
#include "ui/render.h"
#include "ui/render_table.h"
#include "ui/surface.h"
#include "ui/view.h"

enum { ST_CPU = 0, ST_S = 1, ST_D = 2, ST_R = 3, ST_RP = 4 };

static char s_sched[] = "__schedule", s_nano[] = "do_nanosleep", s_io[] = "io_schedule",
	    s_futex[] = "futex_wait", s_irq[] = "irqentry_exit", s_clock[] = "clock_nanosleep",
	    s_sync[] = "fdatasync", s_mutex[] = "pthread_mutex_lock", s_sleeper[] = "sleeper",
	    s_syncer[] = "syncer", s_locker[] = "locker", s_spin[] = "spin",
	    s_start[] = "start_thread";
static char d_app[] = "fixture", d_libc[] = "libc.so.6", d_k[] = "[kernel.kallsyms]";
static char s_comm[] = "fixture";

static struct frame fr(const char *sym, const char *dso)
{
	return (struct frame){ .sym = sym, .dso = dso, .kernel = dso == d_k };
}

struct data {
	struct profile *p;
	struct calltree *t;
};

static void add(struct data *d, uint8_t state, uint64_t ns, bool begins, uint64_t block_ns,
		const struct frame *f, int n)
{
	struct sample_ctx s = { .comm = s_comm, .pid = 7, .tid = 8, .period = ns, .state = state,
				.block_begins = begins, .block_ns = block_ns, .frames = f,
				.nframes = n };
	profile_add(d->p, &s);
	calltree_add(d->t, &s);
}

/* 2 s of a process whose threads block in known ways; wall mode adds a spinning thread (2 s of
 * on-CPU time in 1 ms samples). */
static struct snapshot *make_data(enum profile_mode mode, const enum sort_key *keys, int nkeys)
{
	struct data d = { profile_new(keys, nkeys), calltree_new(0) };
	profile_set_mode(d.p, mode);
	struct frame sl[] = { fr(s_sched, d_k), fr(s_nano, d_k), fr(s_clock, d_libc),
			      fr(s_sleeper, d_app), fr(s_start, d_libc) };
	struct frame sy[] = { fr(s_sched, d_k), fr(s_io, d_k), fr(s_sync, d_libc),
			      fr(s_syncer, d_app), fr(s_start, d_libc) };
	struct frame lk[] = { fr(s_sched, d_k), fr(s_futex, d_k), fr(s_mutex, d_libc),
			      fr(s_locker, d_app), fr(s_start, d_libc) };
	struct frame pr[] = { fr(s_sched, d_k), fr(s_irq, d_k), fr(s_locker, d_app),
			      fr(s_start, d_libc) };
	struct frame sp[] = { fr(s_spin, d_app), fr(s_start, d_libc) };
	for (int i = 0; i < 200; i++) /* 10 ms sleeps: 2 s */
		add(&d, ST_S, 9900000, true, 9900000, sl, 5);
	for (int i = 0; i < 40; i++) /* fdatasync: 40 x 25 ms, one of 120 ms */
		add(&d, ST_D, i ? 25000000 : 120000000, true, i ? 25000000 : 120000000, sy, 5);
	for (int i = 0; i < 30; i++) /* the lock held 30 ms at a time by another thread */
		add(&d, ST_S, 30000000, true, 30000000, lk, 5);
	for (int i = 0; i < 50; i++) /* preempted while spinning on it: run-queue waits */
		add(&d, ST_RP, 2000000, true, 2000000, pr, 4);
	for (int i = 0; mode == PROFILE_WALL && i < 2000; i++)
		add(&d, ST_CPU, 1000000, false, 0, sp, 2);
	profile_add_window_secs(d.p, 2.0);
	struct snapshot *s = profile_snapshot(d.p, COL_SELF);
	s->tree = calltree_snapshot(d.t);
	profile_free(d.p);
	calltree_free(d.t);
	return s;
}

static struct view_header header(void)
{
	return (struct view_header){ .target = "command: ./fixture", .event = "sched:sched_switch",
				     .period = 1, .samples_per_sec = 160, .elapsed = 2.0 };
}

static char *render_text(const struct snapshot *snap, const struct view_state *v, int w, int h)
{
	struct view_header hd = header();
	struct surface *s = surface_new(w, h);
	render_frame(s, snap, &hd, v);
	char *t = surface_to_text(s);
	surface_free(s);
	return t;
}

static void golden(const char *name, int w, int h, const struct snapshot *snap,
		   const struct view_state *v)
{
	char *t = render_text(snap, v, w, h);
	golden_check(name, t);
	free(t);
}

static bool screen_find(const struct snapshot *snap, const struct view_state *v, int w, int h,
			const char *needle, bool want)
{
	char *t = render_text(snap, v, w, h);
	bool found = strstr(t, needle) != NULL;
	if (found != want)
		fprintf(stderr, "'%s' %s on the screen:\n%s", needle, want ? "not" : "", t);
	free(t);
	return found;
}

static bool screen_has(const struct snapshot *snap, const struct view_state *v, int w, int h,
		       const char *needle)
{
	return screen_find(snap, v, w, h, needle, true);
}

static bool screen_lacks(const struct snapshot *snap, const struct view_state *v, int w, int h,
			 const char *needle)
{
	return !screen_find(snap, v, w, h, needle, false);
}

static void init(struct view_state *v, const struct snapshot *s)
{
	keys_state_init(v);
	v->refresh_secs = 1;
	v->color = true;
	keys_follow(v, s, 20);
}

/* What the loop shows after a key that says KEYS_ACT_FILTER (tui.c): the held snapshot seen
 * through v's run-queue view, in v's order. */
static struct snapshot *shown(const struct snapshot *full, const struct view_state *v)
{
	struct snapshot *s = snapshot_runq(full, v->runq);
	snapshot_sort(s, v->order);
	return s;
}

static void test_offcpu_table(void)
{
	struct snapshot *s = make_data(PROFILE_OFFCPU, NULL, 0);
	struct view_state v;
	init(&v, s);
	enum snap_col cols[COL_COUNT];
	int n = render_columns(s, cols);
	CHECK(n == 7 && cols[2] == COL_TIME && cols[3] == COL_BLOCKS && cols[4] == COL_LONGEST &&
	      cols[5] == COL_SYM);
	/* Ordered by Total: the functions that blocked, under the scheduler's Self. */
	v.order = COL_TOTAL;
	snapshot_sort(s, v.order);
	golden("table_offcpu_80x24.txt", 80, 24, s, &v);
	CHECK(screen_has(s, &v, 80, 24, "off-CPU time"));
	CHECK(screen_has(s, &v, 80, 24, "120.0ms")); /* fdatasync's longest, on __schedule */

	/* The order keys go through the new columns: Total -> Time -> Blocks/s -> Longest. */
	CHECK(keys_handle(&v, '>', s, 20) & KEYS_ACT_RESORT);
	CHECK(v.order == COL_TIME);
	keys_handle(&v, '>', s, 20);
	keys_handle(&v, '>', s, 20);
	CHECK(v.order == COL_LONGEST);
	snapshot_sort(s, v.order);
	CHECK(screen_has(s, &v, 80, 24, "Longest▼"));
	CHECK_STR(s->rows[0].sym, "__schedule");

	/* r: all -> hidden -> only -> all, said on the mode line. */
	v.order = COL_SELF;
	snapshot_sort(s, v.order);
	CHECK(keys_handle(&v, 'r', s, 20) == (KEYS_ACT_FILTER | KEYS_ACT_REDRAW));
	CHECK(v.runq == RUNQ_HIDE);
	struct snapshot *h = shown(s, &v);
	CHECK(screen_has(h, &v, 100, 24, "run-queue waits hidden"));
	CHECK(screen_lacks(h, &v, 100, 24, "irqentry_exit"));
	for (size_t i = 0; i < h->nrows; i++)
		CHECK(!h->rows[i].sym || strcmp(h->rows[i].sym, "irqentry_exit") != 0);
	keys_handle(&v, 'r', h, 20);
	CHECK(v.runq == RUNQ_ONLY);
	snapshot_free(h);
	h = shown(s, &v);
	CHECK(screen_has(h, &v, 100, 24, "run-queue waits only"));
	/* only the preempted stack: 50 x 2 ms over 2 s */
	CHECK(h->nrows == 4 && screen_has(h, &v, 100, 24, "0.05"));
	keys_handle(&v, 'r', h, 20);
	CHECK(v.runq == RUNQ_ALL);
	snapshot_free(h);

	/* The help lists r in the time modes only. */
	const struct keys_binding *list[64];
	size_t nh = keys_help_for(NULL, false, KEYS_TIME, list, 64), found = 0;
	for (size_t i = 0; i < nh; i++)
		found += strcmp(list[i]->keys, "r") == 0;
	CHECK(found == 1);
	nh = keys_help_for(NULL, false, 0, list, 64);
	for (size_t i = 0; i < nh; i++)
		CHECK(strcmp(list[i]->keys, "r") != 0);

	/* F2: the time columns are offered, Samples is not. */
	keys_handle(&v, KEYS_F2, s, 20);
	CHECK(screen_has(s, &v, 80, 24, "[x] Time (threads there)"));
	CHECK(screen_has(s, &v, 80, 24, "[x] Longest block"));
	CHECK(screen_lacks(s, &v, 80, 24, "Samples"));
	keys_handle(&v, KEYS_ESC, s, 20);
	keys_state_done(&v);
	snapshot_free(s);
}

static void test_wall_state_table(void)
{
	enum sort_key keys[] = { SORT_STATE, SORT_SYM };
	struct snapshot *s = make_data(PROFILE_WALL, keys, 2);
	struct view_state v;
	init(&v, s);
	enum snap_col cols[COL_COUNT];
	int n = render_columns(s, cols);
	CHECK(n == 7 && cols[5] == COL_STATE && cols[6] == COL_SYM);
	golden("table_wall_state_100x30.txt", 100, 30, s, &v);
	CHECK(screen_has(s, &v, 100, 30, "wall time"));
	CHECK(screen_has(s, &v, 100, 30, "on-CPU"));
	/* The spinner is one thread all the time: 1.00. */
	CHECK(screen_has(s, &v, 100, 30, "  1.00  "));
	keys_handle(&v, 'r', s, 20);
	keys_handle(&v, 'r', s, 20);
	struct snapshot *h = shown(s, &v);
	golden("table_wall_runq_only_100x30.txt", 100, 30, h, &v);
	for (size_t i = 0; i < h->nrows; i++)
		CHECK(h->rows[i].state == ST_RP);
	snapshot_free(h);
	keys_state_done(&v);
	snapshot_free(s);
}

/* r means nothing when sampling. */
static void test_samples_mode_r(void)
{
	struct snapshot *s = make_data(PROFILE_SAMPLES, NULL, 0);
	struct view_state v;
	init(&v, s);
	CHECK(keys_handle(&v, 'r', s, 20) == 0);
	CHECK(v.runq == RUNQ_ALL);
	enum snap_col cols[COL_COUNT];
	int n = render_columns(s, cols);
	CHECK(n == 5 && cols[2] == COL_SAMPLES);
	CHECK(screen_lacks(s, &v, 80, 24, "off-CPU"));
	keys_state_done(&v);
	snapshot_free(s);
}

static void test_drill_down(void)
{
	struct snapshot *s = make_data(PROFILE_OFFCPU, NULL, 0);
	struct view_state v;
	init(&v, s);
	CHECK(keys_handle(&v, 'f', s, 20) & KEYS_ACT_REDRAW);
	golden("flame_offcpu_80x24.txt", 80, 24, s, &v);
	/* the root: all the blocked time, (1.98 + 1.095 + 0.9 + 0.1) s over 2 s */
	CHECK(screen_has(s, &v, 120, 24, "Total 100.00% (2.04 threads)"));
	keys_handle(&v, 'q', s, 20);
	/* the function view of fdatasync: 1.095 s of 4.075 s blocked, over 2 s */
	v.order = COL_TOTAL;
	snapshot_sort(s, v.order);
	for (size_t i = 0; i < s->nrows && strcmp(s->rows[v.cursor].sym, "fdatasync"); i++)
		keys_handle(&v, KEYS_DOWN, s, 20);
	CHECK_STR(s->rows[v.cursor].sym, "fdatasync");
	keys_handle(&v, KEYS_ENTER, s, 20);
	CHECK(v.depth == 1);
	CHECK(screen_has(s, &v, 120, 24, "Self 0.00% (0.00)   Total 26.87% (0.55 threads)"));
	keys_state_done(&v);
	snapshot_free(s);
}

int main(int argc, char **argv)
{
	golden_init(argc > 1 ? argv[1] : "tests/ui/golden");
	test_offcpu_table();
	test_wall_state_table();
	test_samples_mode_r();
	test_drill_down();
	return CHECK_DONE();
}
