/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_views: the drill-down views without a terminal. A fixed fake data set (a profile and a call
 * tree fed the same stacks: main -> top -> mid -> leaf_a / leaf_b, a libc memcpy, an inline helper,
 * a kernel path, recursion) is rendered into surfaces and compared with golden files under
 * tests/ui/golden/ (the main table, the function view and the flame graph, at 80x24 and 200x60, and
 * the icicle and a zoom at 80x24); keys drive the views as a user would: Enter opens a function,
 * Enter on a caller re-roots, Backspace / Esc pop, q returns to the table, f opens the flame graph,
 * arrows move between frames, Enter zooms, and the cursor, expansion and selection survive a new
 * snapshot with other weights.
 *
 *   test_views GOLDEN_DIR            compare
 *   PERFTOP_UPDATE_GOLDEN=1 ...      rewrite the golden files from what is drawn (then review them)
 */
#include <stdlib.h>

#include "check.h"
#include "golden.h"
#include "frame_golden.h"
#include "model/calltree.h"
#include "model/profile.h"
#include "model/snapshot.h"
#include "ui/keys.h"
#include "ui/render.h"
#include "ui/surface.h"
#include "ui/view.h"
#include "util/util.h"

static char s_start[] = "__libc_start_call_main", s_main[] = "main", s_top[] = "top",
	    s_mid[] = "mid", s_la[] = "leaf_a", s_lb[] = "leaf_b", s_memcpy[] = "__memcpy_avx_unaligned",
	    s_inl[] = "mix_bits", s_write[] = "write", s_sys[] = "ksys_write",
	    s_entry[] = "entry_SYSCALL_64", s_fib[] = "fib";
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

static void add(struct data *d, uint64_t period, const struct frame *f, int n)
{
	struct sample_ctx s = { .comm = s_comm, .pid = 7, .tid = 7, .period = period, .frames = f,
				.nframes = n };
	profile_add(d->p, &s);
	calltree_add(d->t, &s);
}

/* w scales leaf_b's weight, so a second snapshot can move things around. */
static struct snapshot *make_data(int w)
{
	struct data d = { profile_new(NULL, 0), calltree_new(0) };
	struct frame a[] = { fr(s_la, d_app), fr(s_mid, d_app), fr(s_top, d_app), fr(s_main, d_app),
			     fr(s_start, d_libc) };
	struct frame b[] = { fr(s_lb, d_app), fr(s_mid, d_app), fr(s_top, d_app), fr(s_main, d_app),
			     fr(s_start, d_libc) };
	struct frame c[] = { fr(s_memcpy, d_libc), fr(s_lb, d_app), fr(s_mid, d_app),
			     fr(s_top, d_app), fr(s_main, d_app), fr(s_start, d_libc) };
	struct frame i[] = { { .sym = s_inl, .dso = d_app, .inlined = true }, fr(s_la, d_app),
			     fr(s_mid, d_app), fr(s_top, d_app), fr(s_main, d_app),
			     fr(s_start, d_libc) };
	struct frame k[] = { fr(s_sys, d_k), fr(s_entry, d_k), fr(s_write, d_libc),
			     fr(s_main, d_app), fr(s_start, d_libc) };
	struct frame r[] = { fr(s_fib, d_app), fr(s_fib, d_app), fr(s_fib, d_app), fr(s_top, d_app),
			     fr(s_main, d_app), fr(s_start, d_libc) };
	add(&d, 5200, a, 5);
	add(&d, 1000 * (uint64_t)w, b, 5);
	add(&d, 900, c, 6);
	add(&d, 700, i, 6);
	add(&d, 400, k, 5);
	add(&d, 600, r, 6);
	add(&d, 100, NULL, 0);
	struct snapshot *s = profile_snapshot(d.p, COL_SELF);
	s->tree = calltree_snapshot(d.t);
	profile_free(d.p);
	calltree_free(d.t);
	return s;
}

static bool screen_has(const struct snapshot *snap, const struct view_state *v, int w, int h,
		       const char *needle)
{
	struct view_header hd = header();
	struct surface *s = surface_new(w, h);
	render_frame(s, snap, &hd, v);
	char *t = surface_to_text(s);
	bool found = strstr(t, needle) != NULL;
	if (!found)
		fprintf(stderr, "no '%s' on the screen:\n%s", needle, t);
	free(t);
	surface_free(s);
	return found;
}

/* The text of the selected line of the frame (the first cell with ROLE_SELECTED). */
static bool selected_has(const struct snapshot *snap, const struct view_state *v, const char *name)
{
	struct view_header hd = header();
	struct surface *s = surface_new(100, 30);
	render_frame(s, snap, &hd, v);
	bool found = false;
	for (int y = 0; y < s->h && !found; y++) {
		if (surface_cell_const(s, 0, y)->role != ROLE_SELECTED)
			continue;
		char line[512] = "";
		size_t n = 0;
		for (int x = 0; x < s->w && n + 5 < sizeof(line); x++) {
			const char *ch = surface_cell_const(s, x, y)->ch;
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s", ch);
		}
		found = strstr(line, name) != NULL;
	}
	surface_free(s);
	return found;
}

/* Moves the function view's cursor down from the top to the node named name. */
static bool func_to(struct view_state *v, const struct snapshot *s, const char *name)
{
	keys_handle(v, KEYS_HOME, s, 20);
	for (int i = 0; i < 40; i++) {
		if (selected_has(s, v, name))
			return true;
		keys_handle(v, KEYS_DOWN, s, 20);
	}
	return false;
}

static long row_of(const struct snapshot *s, const char *sym)
{
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].sym && strcmp(s->rows[i].sym, sym) == 0)
			return (long)i;
	return -1;
}

/* Moves the table's cursor to sym's row. */
static void table_to(struct view_state *v, const struct snapshot *s, const char *sym)
{
	long at = row_of(s, sym);
	CHECK(at >= 0);
	keys_handle(v, KEYS_HOME, s, 20);
	for (long i = 0; i < at; i++)
		keys_handle(v, KEYS_DOWN, s, 20);
}

static void init(struct view_state *v, const struct snapshot *s)
{
	keys_state_init(v);
	v->refresh_secs = 1;
	v->color = true;
	keys_follow(v, s, 20);
}

static void test_goldens(void)
{
	struct snapshot *s = make_data(2);
	struct view_state v;
	init(&v, s);
	golden("table_80x24.txt", 80, 24, s, &v);
	golden("table_200x60.txt", 200, 60, s, &v);

	table_to(&v, s, "mid");
	CHECK(keys_handle(&v, KEYS_ENTER, s, 20) & KEYS_ACT_REDRAW);
	CHECK(v.depth == 1 && strcmp(view_top(&v)->ops->name, "function") == 0);
	golden("func_mid_80x24.txt", 80, 24, s, &v);
	golden("func_mid_200x60.txt", 200, 60, s, &v);
	keys_handle(&v, 'e', s, 20);
	golden("func_mid_expanded_80x24.txt", 80, 24, s, &v);
	keys_handle(&v, '?', s, 20);
	golden("func_help_80x24.txt", 80, 24, s, &v);
	keys_handle(&v, KEYS_ESC, s, 20); /* closes the help only */
	CHECK(!v.help && v.depth == 1);
	keys_handle(&v, 'q', s, 20);
	CHECK(v.depth == 0 && !v.quit);

	CHECK(keys_handle(&v, 'f', s, 20) & KEYS_ACT_REDRAW);
	CHECK(v.depth == 1 && strcmp(view_top(&v)->ops->name, "flame") == 0);
	golden("flame_80x24.txt", 80, 24, s, &v);
	golden("flame_200x60.txt", 200, 60, s, &v);
	keys_handle(&v, 'v', s, 20);
	golden("flame_icicle_80x24.txt", 80, 24, s, &v);
	keys_handle(&v, 'v', s, 20);
	/* all -> __libc_start_call_main -> main -> top (the widest child each time), zoom. */
	for (int i = 0; i < 3; i++)
		keys_handle(&v, KEYS_UP, s, 20);
	keys_handle(&v, KEYS_ENTER, s, 20);
	golden("flame_zoom_top_80x24.txt", 80, 24, s, &v);
	keys_state_done(&v);
	snapshot_free(s);
}

static void test_function_keys(void)
{
	struct snapshot *s = make_data(2);
	struct view_state v;
	init(&v, s);

	/* Enter on leaf_a: mid is its caller (the chain of single callers is open). */
	table_to(&v, s, "leaf_a");
	keys_handle(&v, KEYS_ENTER, s, 20);
	CHECK(screen_has(s, &v, 100, 30, "Callers of leaf_a"));
	CHECK(screen_has(s, &v, 100, 30, "100.00%  ▾ mid  fixture"));
	CHECK(screen_has(s, &v, 100, 30, "table › leaf_a"));
	/* The cursor is on mid (the first node); Enter re-roots on it: leaf_a and leaf_b are callees. */
	keys_handle(&v, KEYS_ENTER, s, 20);
	CHECK(v.depth == 2);
	CHECK(screen_has(s, &v, 100, 30, "table › leaf_a › mid"));
	CHECK(screen_has(s, &v, 100, 30, "▸ leaf_a  fixture"));
	CHECK(screen_has(s, &v, 100, 30, "▸ leaf_b  fixture"));
	/* Backspace goes back to leaf_a, Esc to the table. */
	keys_handle(&v, KEYS_BACKSPACE, s, 20);
	CHECK(v.depth == 1 && screen_has(s, &v, 100, 30, "Callers of leaf_a"));
	keys_handle(&v, KEYS_ESC, s, 20);
	CHECK(v.depth == 0 && screen_has(s, &v, 100, 30, "Self%▼"));

	/* mid: walk to the callees, collapse/expand with - + and Left/Right, c and e. */
	table_to(&v, s, "mid");
	keys_handle(&v, KEYS_ENTER, s, 20);
	CHECK(screen_has(s, &v, 100, 30, "▸ leaf_b  fixture"));
	CHECK(func_to(&v, s, " leaf_a "));
	keys_handle(&v, '+', s, 20);
	CHECK(screen_has(s, &v, 100, 30, "▾ leaf_a  fixture"));
	CHECK(screen_has(s, &v, 100, 30, "(inlined)"));
	keys_handle(&v, '-', s, 20);
	CHECK(screen_has(s, &v, 100, 30, "▸ leaf_a  fixture"));
	keys_handle(&v, KEYS_RIGHT, s, 20);
	CHECK(screen_has(s, &v, 100, 30, "▾ leaf_a  fixture"));
	keys_handle(&v, KEYS_LEFT, s, 20);
	CHECK(screen_has(s, &v, 100, 30, "▸ leaf_a  fixture"));
	keys_handle(&v, 'e', s, 20);
	CHECK(screen_has(s, &v, 100, 30, "__memcpy_avx_unaligned  libc.so.6"));
	keys_handle(&v, 'c', s, 20);
	CHECK(screen_has(s, &v, 100, 30, "▸ leaf_b  fixture"));
	CHECK(screen_has(s, &v, 100, 30, "▸ top  fixture"));
	/* Left on a closed node goes to its parent. */
	keys_handle(&v, 'e', s, 20);
	CHECK(func_to(&v, s, "__memcpy_avx_unaligned"));
	keys_handle(&v, KEYS_LEFT, s, 20);
	CHECK(selected_has(s, &v, " leaf_b "));

	/* The expansion and the cursor survive a new snapshot in which leaf_b has become hotter than
	 * leaf_a (the order of the callees changes). */
	CHECK(func_to(&v, s, "mix_bits"));
	struct snapshot *s2 = make_data(9);
	keys_follow(&v, s2, 20);
	CHECK(screen_has(s2, &v, 100, 30, "__memcpy_avx_unaligned  libc.so.6"));
	CHECK(screen_has(s2, &v, 100, 30, "mix_bits  fixture (inlined)"));
	CHECK(selected_has(s2, &v, "mix_bits"));

	/* f from the function view: the flame graph of mid's subtree. */
	keys_handle(&v, 'f', s2, 20);
	CHECK(v.depth == 2 && screen_has(s2, &v, 100, 30, "Flame graph of mid"));
	/* q from two levels deep: the table; q there quits. */
	keys_handle(&v, 'q', s2, 20);
	CHECK(v.depth == 0 && !v.quit);
	CHECK(keys_handle(&v, 'q', s2, 20) & KEYS_ACT_QUIT);

	/* A session without stacks: the views say so. */
	keys_state_init(&v);
	ct_snapshot_free(s2->tree);
	s2->tree = NULL;
	keys_follow(&v, s2, 20);
	keys_handle(&v, KEYS_ENTER, s2, 20);
	CHECK(screen_has(s2, &v, 100, 30, "no call stacks in this session"));
	keys_handle(&v, KEYS_ESC, s2, 20);
	keys_handle(&v, 'f', s2, 20);
	CHECK(screen_has(s2, &v, 100, 30, "no call stacks in this session"));
	/* Tiny sizes never write outside the surface. */
	static const int sizes[][2] = { { 1, 1 }, { 5, 2 }, { 20, 4 }, { 30, 6 }, { 300, 8 } };
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		screen_has(s, &v, sizes[i][0], sizes[i][1], "");
	keys_state_done(&v);
	snapshot_free(s);
	snapshot_free(s2);
}

static bool bar_cell(const struct surface *s, int x, int y)
{
	enum surface_role r = surface_cell_const(s, x, y)->role;
	return r == ROLE_SELECTED || (r >= ROLE_FLAME_1 && r <= ROLE_FLAME_KERNEL);
}

/*
 * A frame one cell wide at its parent's right end: that cell is the parent's gap (a bar ends a
 * cell early), so it is not drawn there, where it would stand outside its parent's bar. Root at
 * the bottom: every bar cell has a bar cell under it, down to the root's row.
 */
static void test_flame_edge(void)
{
	static char s_big[] = "big", s_tiny[] = "zz_tiny";
	struct data d = { profile_new(NULL, 0), calltree_new(0) };
	struct frame big[] = { fr(s_big, d_app), fr(s_main, d_app) };
	struct frame tiny[] = { fr(s_tiny, d_app), fr(s_main, d_app) };
	add(&d, 999, big, 2);
	add(&d, 1, tiny, 2);
	struct snapshot *snap = profile_snapshot(d.p, COL_SELF);
	snap->tree = calltree_snapshot(d.t);
	profile_free(d.p);
	calltree_free(d.t);
	struct view_state v;
	init(&v, snap);
	keys_handle(&v, 'f', snap, 20);
	for (int w = 100; w <= 140; w++) {
		struct view_header hd = header();
		struct surface *sf = surface_new(w, 30);
		render_frame(sf, snap, &hd, &v);
		int bottom = -1;
		for (int y = 0; y < sf->h; y++)
			for (int x = 0; x < sf->w; x++)
				if (bar_cell(sf, x, y))
					bottom = y;
		/* all, main, then big and zz_tiny: the two rows over the root's */
		bool within = bottom >= 2;
		for (int y = bottom - 2; y < bottom && within; y++)
			for (int x = 0; x < sf->w && within; x++)
				if (bar_cell(sf, x, y) && !bar_cell(sf, x, y + 1))
					within = false;
		if (!within) {
			char *t = surface_to_text(sf);
			fprintf(stderr, "width %d: a bar cell over no bar:\n%s", w, t);
			free(t);
		}
		CHECK(within);
		surface_free(sf);
	}
	keys_state_done(&v);
	snapshot_free(snap);
}

static void test_flame_keys(void)
{
	struct snapshot *s = make_data(2);
	struct view_state v;
	init(&v, s);
	keys_handle(&v, 'f', s, 20);
	CHECK(screen_has(s, &v, 100, 30, "▶ all"));
	CHECK(keys_handle(&v, KEYS_DOWN, s, 20) == 0); /* the root has no parent */
	for (int i = 0; i < 4; i++)
		keys_handle(&v, KEYS_UP, s, 20);
	CHECK(screen_has(s, &v, 100, 30, "▶ mid  fixture"));
	keys_handle(&v, KEYS_UP, s, 20);
	CHECK(screen_has(s, &v, 100, 30, "▶ leaf_a  fixture")); /* the widest child */
	keys_handle(&v, KEYS_RIGHT, s, 20);
	CHECK(screen_has(s, &v, 100, 30, "▶ leaf_b  fixture"));
	keys_handle(&v, KEYS_LEFT, s, 20);
	CHECK(screen_has(s, &v, 100, 30, "▶ leaf_a  fixture"));
	keys_handle(&v, KEYS_DOWN, s, 20);
	CHECK(screen_has(s, &v, 100, 30, "▶ mid  fixture"));
	/* Zoom into mid, zoom out with Backspace; Backspace at the top zoom pops the view. */
	keys_handle(&v, KEYS_ENTER, s, 20);
	CHECK(screen_has(s, &v, 140, 30, "zoom: all › __libc_start_call_main › main › top › mid"));
	CHECK(keys_handle(&v, KEYS_DOWN, s, 20) == 0); /* the zoomed frame is the bottom */
	/* Live: a new snapshot keeps the zoom and the selection. */
	struct snapshot *s2 = make_data(9);
	keys_follow(&v, s2, 20);
	CHECK(screen_has(s2, &v, 140, 30, "zoom: all › __libc_start_call_main › main › top › mid"));
	CHECK(screen_has(s2, &v, 100, 30, "▶ mid  fixture"));
	keys_handle(&v, KEYS_BACKSPACE, s2, 20);
	CHECK(v.depth == 1 && screen_has(s2, &v, 100, 30, "▶ mid  fixture"));
	keys_handle(&v, KEYS_BACKSPACE, s2, 20);
	CHECK(v.depth == 0);
	/* The kernel frames: another role, and dots under NO_COLOR. */
	keys_handle(&v, 'f', s2, 20);
	v.color = false;
	CHECK(screen_has(s2, &v, 600, 30, "ksys_write.."));
	keys_state_done(&v);
	snapshot_free(s);
	snapshot_free(s2);
}

int main(int argc, char **argv)
{
	unsetenv("NO_COLOR");
	golden_init(argc > 1 ? argv[1] : "tests/ui/golden");
	test_goldens();
	test_function_keys();
	test_flame_keys();
	test_flame_edge();
	return CHECK_DONE();
}
