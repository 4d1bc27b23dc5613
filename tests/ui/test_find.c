/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_find: find, filter, zoom, order, setup, mouse and the key bar without a terminal. A small profile (two processes, a kernel path, a libc frame) is snapshotted;
 * keys drive the view state as a user would: / typed letter by letter moves the cursor, Enter keeps
 * it, Esc puts it back, n / N walk the matches; \ with a|b alternatives filters (model/filter.h, as
 * the loop does), Esc clears; t d K U push zoom levels and Esc pops them, and the levels applied to
 * samples (model/zoom.h) keep the right samples and frames; I inverts; F2's Space hides a column;
 * mouse clicks select, order, open. Golden frames: the table with a filter, and with the search
 * field, at 80x24.
 *
 *   test_find GOLDEN_DIR            compare
 *   PERFTOP_UPDATE_GOLDEN=1 ...     rewrite the golden files
 */
#include <stdlib.h>

#include "check.h"
#include "golden.h"
#include "model/filter.h"
#include "model/profile.h"
#include "model/snapshot.h"
#include "model/zoom.h"
#include "ui/keys.h"
#include "ui/render.h"
#include "ui/surface.h"
#include "util/util.h"

static char s_main[] = "main", s_mid[] = "mid", s_la[] = "leaf_a", s_lb[] = "leaf_b",
	    s_memcpy[] = "memcpy", s_sys[] = "ksys_write", s_entry[] = "entry_SYSCALL_64";
static char d_app[] = "fixture", d_libc[] = "libc.so.6", d_k[] = "[kernel.kallsyms]";
static char c_fix[] = "fixture", c_other[] = "other";

static struct frame fr(const char *sym, const char *dso)
{
	return (struct frame){ .sym = sym, .dso = dso, .kernel = dso == d_k };
}

/* Samples of two processes: fixture (pid 7) runs main -> mid -> leaf_a / leaf_b, and a write into
 * the kernel; other (pid 9) copies with memcpy from its main. With zoom z applied, as the session
 * does. */
static struct snapshot *make(const struct sample_zoom *z)
{
	struct profile *p = profile_new(NULL, 0);
	struct frame a[] = { fr(s_la, d_app), fr(s_mid, d_app), fr(s_main, d_app) };
	struct frame b[] = { fr(s_lb, d_app), fr(s_mid, d_app), fr(s_main, d_app) };
	struct frame k[] = { fr(s_sys, d_k), fr(s_entry, d_k), fr(s_memcpy, d_libc), fr(s_main, d_app) };
	struct frame m[] = { fr(s_memcpy, d_libc), fr(s_main, d_app) };
	struct {
		const struct frame *f;
		int n, times;
		uint32_t pid;
		const char *comm;
	} add[] = { { a, 3, 50, 7, c_fix }, { b, 3, 30, 7, c_fix }, { k, 4, 10, 7, c_fix },
		    { m, 2, 20, 9, c_other }, { m, 2, 5, 7, c_fix } };
	struct frame buf[16];
	for (size_t i = 0; i < ARRAY_SIZE(add); i++)
		for (int t = 0; t < add[i].times; t++) {
			struct sample_ctx s = { .comm = add[i].comm, .pid = add[i].pid,
						.tid = add[i].pid, .period = 100, .frames = add[i].f,
						.nframes = add[i].n };
			if (z && z->n && !zoom_apply(z, &s, &s, buf, 16))
				continue;
			profile_add(p, &s);
		}
	struct snapshot *snap = profile_snapshot(p, COL_SELF);
	profile_free(p);
	return snap;
}

static long row_of(const struct snapshot *s, const char *sym)
{
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].sym && strcmp(s->rows[i].sym, sym) == 0)
			return (long)i;
	return -1;
}

static const char *cur_sym(const struct view_state *v, const struct snapshot *s)
{
	return v->cursor < s->nrows ? s->rows[v->cursor].sym : "(none)";
}

static void type(struct view_state *v, const struct snapshot *s, const char *text)
{
	for (; *text; text++)
		keys_handle(v, (unsigned char)*text, s, 20);
}

static void test_search(void)
{
	struct snapshot *s = make(NULL);
	struct view_state v;
	keys_state_init(&v);
	keys_follow(&v, s, 20);
	CHECK(keys_handle(&v, '/', s, 20) == KEYS_ACT_REDRAW);
	CHECK(v.input == KEYS_INPUT_SEARCH);
	/* Incremental: "l" finds leaf_a (the hottest row with an l), "leaf_b" moves on to leaf_b. */
	type(&v, s, "l");
	CHECK_STR(cur_sym(&v, s), "leaf_a");
	type(&v, s, "eaf_b");
	CHECK_STR(cur_sym(&v, s), "leaf_b");
	/* q and n are text while typing, not quit / next. */
	CHECK(keys_handle(&v, KEYS_ENTER, s, 20) == KEYS_ACT_REDRAW);
	CHECK(v.input == KEYS_INPUT_NONE && !v.quit);
	CHECK_STR(cur_sym(&v, s), "leaf_b");
	CHECK_STR(v.search, "leaf_b");

	/* n / N over "leaf": the two leaves in turn, wrapping. */
	keys_handle(&v, '/', s, 20);
	type(&v, s, "LEAF"); /* case does not matter */
	keys_handle(&v, KEYS_ENTER, s, 20);
	const char *first = cur_sym(&v, s);
	keys_handle(&v, 'n', s, 20);
	const char *second = cur_sym(&v, s);
	CHECK(strcmp(first, second) != 0);
	CHECK(strncmp(second, "leaf_", 5) == 0);
	keys_handle(&v, 'n', s, 20);
	CHECK_STR(cur_sym(&v, s), first);
	keys_handle(&v, 'N', s, 20);
	CHECK_STR(cur_sym(&v, s), second);

	/* Esc cancels: the cursor goes back where / was pressed. */
	keys_handle(&v, KEYS_HOME, s, 20);
	keys_handle(&v, '/', s, 20);
	type(&v, s, "memcpy");
	CHECK_STR(cur_sym(&v, s), "memcpy");
	keys_handle(&v, KEYS_ESC, s, 20);
	CHECK(v.cursor == 0 && v.input == KEYS_INPUT_NONE);
	/* No match: the cursor stays, the field says so; Backspace edits. */
	keys_handle(&v, '/', s, 20);
	type(&v, s, "zzz");
	CHECK(v.search_miss && v.cursor == 0);
	keys_handle(&v, KEYS_BACKSPACE, s, 20);
	CHECK_STR(v.input_text, "zz");
	/* An arrow ends the typing and moves. */
	CHECK(keys_handle(&v, KEYS_DOWN, s, 20) == KEYS_ACT_REDRAW);
	CHECK(v.input == KEYS_INPUT_NONE && v.cursor == 1);
	keys_state_done(&v);
	snapshot_free(s);
}

static void test_filter(void)
{
	struct snapshot *s = make(NULL);
	/* The model's matching: symbol, dso or command, any alternative, no case. */
	CHECK(filter_row_matches(&s->rows[row_of(s, "leaf_a")], "leaf"));
	CHECK(filter_row_matches(&s->rows[row_of(s, "memcpy")], "LIBC"));
	CHECK(filter_row_matches(&s->rows[row_of(s, "memcpy")], "nothing|memc"));
	CHECK(!filter_row_matches(&s->rows[row_of(s, "mid")], "leaf|memcpy"));
	CHECK(!filter_row_matches(&s->rows[row_of(s, "mid")], "leaf|")); /* typing the next one */
	CHECK(filter_row_matches(&s->rows[row_of(s, "mid")], ""));

	struct view_state v;
	keys_state_init(&v);
	keys_follow(&v, s, 20);
	CHECK(keys_handle(&v, '\\', s, 20) == KEYS_ACT_REDRAW);
	CHECK(v.input == KEYS_INPUT_FILTER);
	unsigned act = 0;
	for (const char *c = "leaf"; *c; c++)
		act |= keys_handle(&v, *c, s, 20);
	CHECK(act & KEYS_ACT_FILTER); /* applied as typed */
	CHECK(keys_handle(&v, KEYS_ENTER, s, 20) == KEYS_ACT_REDRAW);
	CHECK_STR(v.filter, "leaf");
	struct snapshot *f = snapshot_filter(s, v.filter);
	CHECK_EQ_U64(f->nrows, 2);
	CHECK(row_of(f, "leaf_a") >= 0 && row_of(f, "leaf_b") >= 0);
	/* Percentages stay shares of the whole window. */
	CHECK(f->rows[row_of(f, "leaf_a")].self_pct == s->rows[row_of(s, "leaf_a")].self_pct);
	keys_follow(&v, f, 20);
	snapshot_free(f);
	/* Alternatives, edited from the filter in force (\ again starts from it). */
	keys_handle(&v, '\\', s, 20);
	CHECK_STR(v.input_text, "leaf");
	type(&v, s, "|memcpy");
	keys_handle(&v, KEYS_ENTER, s, 20);
	f = snapshot_filter(s, v.filter);
	CHECK_EQ_U64(f->nrows, 3);
	CHECK(f->tree_borrowed);
	snapshot_free(f);
	/* Esc at the table clears it. */
	CHECK(keys_handle(&v, KEYS_ESC, s, 20) == (KEYS_ACT_FILTER | KEYS_ACT_REDRAW));
	CHECK_STR(v.filter, "");
	CHECK(keys_handle(&v, KEYS_ESC, s, 20) == 0); /* nothing left to undo */
	/* F4 is \ too; Esc while typing clears. */
	keys_handle(&v, KEYS_F4, s, 20);
	type(&v, s, "mid");
	CHECK_STR(v.filter, "mid");
	keys_handle(&v, KEYS_ESC, s, 20);
	CHECK(v.input == KEYS_INPUT_NONE && !v.filter[0]);
	keys_state_done(&v);
	snapshot_free(s);
}

static void test_zoom(void)
{
	struct snapshot *s = make(NULL);
	struct view_state v;
	keys_state_init(&v);
	keys_follow(&v, s, 20);
	/* Without a source that zooms, the keys do nothing. */
	CHECK(keys_handle(&v, 'K', s, 20) == 0);
	v.can_zoom = true;

	/* t on leaf_a (a dso,sym row: no pid key): the process with most of its samples. */
	v.cursor = (size_t)row_of(s, "leaf_a");
	CHECK(keys_handle(&v, 't', s, 20) == (KEYS_ACT_ZOOM | KEYS_ACT_REDRAW));
	CHECK(v.zoom.n == 1 && v.zoom.lv[0].kind == ZOOM_PID && v.zoom.lv[0].id == 7);
	CHECK_STR(v.zoom.lv[0].label, "process 7 (fixture)");
	v.cursor = (size_t)row_of(s, "memcpy");
	CHECK(keys_handle(&v, 'd', s, 20) == (KEYS_ACT_ZOOM | KEYS_ACT_REDRAW));
	CHECK(keys_handle(&v, 'd', s, 20) == 0); /* already in that dso */
	CHECK(keys_handle(&v, 'K', s, 20) == (KEYS_ACT_ZOOM | KEYS_ACT_REDRAW));
	char d[256];
	zoom_describe(&v.zoom, d, sizeof(d));
	CHECK_STR(d, "process 7 (fixture) › dso libc.so.6 › kernel hidden");
	/* U replaces K (hiding both would hide everything); K again shows the kernel. */
	keys_handle(&v, 'U', s, 20);
	CHECK(zoom_find(&v.zoom, ZOOM_HIDE_KERNEL) < 0 && zoom_find(&v.zoom, ZOOM_HIDE_USER) == 2);
	keys_handle(&v, 'U', s, 20);
	CHECK(v.zoom.n == 2);
	/* The header says it. */
	struct view_header h = { .target = "t", .event = "cpu-clock" };
	struct surface *sf = surface_new(120, 10);
	render_frame(sf, s, &h, &v);
	char *txt = surface_to_text(sf);
	CHECK(strstr(txt, "zoom: process 7 (fixture) › dso libc.so.6   mode: decay") != NULL);
	free(txt);
	surface_free(sf);
	/* Esc pops one level at a time. */
	CHECK(keys_handle(&v, KEYS_ESC, s, 20) == (KEYS_ACT_ZOOM | KEYS_ACT_REDRAW));
	CHECK(v.zoom.n == 1);
	keys_handle(&v, KEYS_ESC, s, 20);
	CHECK(v.zoom.n == 0);
	keys_state_done(&v);
	snapshot_free(s);

	/* Applied to samples: process 9 only has memcpy and main. */
	struct sample_zoom z = { 0 };
	zoom_push(&z, ZOOM_PID, 9, NULL, c_other);
	s = make(&z);
	CHECK_EQ_U64(s->nrows, 2);
	CHECK(row_of(s, "memcpy") >= 0 && row_of(s, "leaf_a") < 0);
	snapshot_free(s);
	/* Kernel hidden: the write's time is memcpy's own, no kernel rows. */
	z = (struct sample_zoom){ 0 };
	zoom_push(&z, ZOOM_HIDE_KERNEL, 0, NULL, NULL);
	s = make(&z);
	CHECK(row_of(s, "ksys_write") < 0 && row_of(s, "entry_SYSCALL_64") < 0);
	CHECK_EQ_U64(s->rows[row_of(s, "memcpy")].self_period, 35 * 100);
	snapshot_free(s);
	/* User hidden: only the kernel path is left; the other samples are left out entirely, so
	 * the kernel is 100%. */
	z = (struct sample_zoom){ 0 };
	zoom_push(&z, ZOOM_HIDE_USER, 0, NULL, NULL);
	s = make(&z);
	CHECK_EQ_U64(s->nrows, 2);
	CHECK(s->rows[row_of(s, "ksys_write")].self_pct == 100.0);
	snapshot_free(s);
	/* A dso: only its frames; leaf_a keeps its own time. */
	z = (struct sample_zoom){ 0 };
	zoom_push(&z, ZOOM_DSO, 0, d_app, NULL);
	s = make(&z);
	CHECK(row_of(s, "memcpy") < 0);
	CHECK_EQ_U64(s->rows[row_of(s, "main")].self_period, 35 * 100); /* memcpy's callers */
	CHECK_EQ_U64(s->rows[row_of(s, "leaf_a")].self_period, 50 * 100);
	snapshot_free(s);
}

static void test_order_and_setup(void)
{
	struct snapshot *s = make(NULL);
	struct view_state v;
	keys_state_init(&v);
	keys_follow(&v, s, 20);
	CHECK(keys_handle(&v, 'I', s, 20) == (KEYS_ACT_RESORT | KEYS_ACT_REDRAW));
	CHECK(v.invert);
	snapshot_sort(s, v.order);
	const char *hottest = s->rows[0].sym;
	snapshot_invert(s);
	CHECK_STR(s->rows[s->nrows - 1].sym, hottest);
	struct view_header h = { .target = "t", .event = "cpu-clock" };
	struct surface *sf = surface_new(100, 12);
	render_frame(sf, s, &h, &v);
	char *txt = surface_to_text(sf);
	CHECK(strstr(txt, "Self%▲") != NULL);
	free(txt);
	keys_handle(&v, 'I', s, 20);
	snapshot_sort(s, v.order);

	/* F2: the setup; Down to Samples (Self, Total, Δ, Samples), Space hides it. */
	keys_handle(&v, KEYS_F2, s, 20);
	CHECK(v.depth == 1);
	render_frame(sf, s, &h, &v);
	txt = surface_to_text(sf);
	CHECK(strstr(txt, "[x] Samples") != NULL);
	CHECK(strstr(txt, "[-] Command") != NULL); /* not a key of this table */
	free(txt);
	keys_handle(&v, KEYS_DOWN, s, 20);
	keys_handle(&v, KEYS_DOWN, s, 20);
	CHECK(keys_handle(&v, ' ', s, 20) == 0); /* Δ: not without --diff */
	keys_handle(&v, KEYS_DOWN, s, 20);
	CHECK(keys_handle(&v, ' ', s, 20) == KEYS_ACT_REDRAW);
	CHECK(v.hidden_cols == 1u << COL_SAMPLES);
	CHECK(!v.paused); /* Space was the setup's */
	keys_handle(&v, KEYS_ESC, s, 20);
	CHECK(v.depth == 0);
	enum snap_col cols[COL_COUNT];
	int n = render_visible_columns(s, v.hidden_cols, cols);
	CHECK(n == 4 && cols[2] == COL_SYM);
	/* The order keys skip the hidden column: Total then Symbol. */
	keys_handle(&v, '>', s, 20);
	keys_handle(&v, '>', s, 20);
	CHECK(v.order == COL_SYM);
	render_frame(sf, s, &h, &v);
	txt = surface_to_text(sf);
	CHECK(strstr(txt, "Samples") == NULL);
	free(txt);
	surface_free(sf);
	keys_state_done(&v);
	snapshot_free(s);
}

static void test_mouse_and_bar(void)
{
	struct snapshot *s = make(NULL);
	struct view_state v;
	keys_state_init(&v);
	keys_follow(&v, s, 20);
	struct view_header h = { .target = "t", .event = "cpu-clock" };
	struct keys_geom g = { .title_y = render_table_y(&h), .rows = render_table_rows(24, &h),
			       .width = 80, .bar_y = 23 };
	CHECK(g.title_y == 2);
	/* A click on the third row. */
	struct keys_mouse m = { KEYS_MOUSE_CLICK, 20, g.title_y + 3 };
	CHECK(keys_mouse(&v, &m, s, &g) == KEYS_ACT_REDRAW);
	CHECK(v.cursor == 2 && v.cursor_chosen);
	/* The wheel: three rows a notch. */
	m.kind = KEYS_MOUSE_WHEEL_DOWN;
	keys_mouse(&v, &m, s, &g);
	CHECK(v.cursor == 5);
	m.kind = KEYS_MOUSE_WHEEL_UP;
	keys_mouse(&v, &m, s, &g);
	CHECK(v.cursor == 2);
	/* A click on the Total% title orders by it; again inverts. */
	m = (struct keys_mouse){ KEYS_MOUSE_CLICK, 11, g.title_y };
	CHECK(keys_mouse(&v, &m, s, &g) == (KEYS_ACT_RESORT | KEYS_ACT_REDRAW));
	CHECK(v.order == COL_TOTAL && !v.invert);
	keys_mouse(&v, &m, s, &g);
	CHECK(v.order == COL_TOTAL && v.invert);
	/* Below the last row: nothing. */
	m = (struct keys_mouse){ KEYS_MOUSE_CLICK, 20, g.title_y + 1 + (int)s->nrows };
	CHECK(keys_mouse(&v, &m, s, &g) == 0);
	/* The bar: F10 quits, F2 opens the setup. */
	CHECK(keys_bar_at(0) == KEYS_F1 && keys_bar_at(8) == KEYS_F2 && keys_bar_at(999) == KEYS_NONE);
	m = (struct keys_mouse){ KEYS_MOUSE_CLICK, 9, 23 };
	keys_mouse(&v, &m, s, &g);
	CHECK(v.depth == 1);
	keys_handle(&v, KEYS_ESC, s, 20);
	CHECK(keys_handle(&v, KEYS_F10, s, 20) == KEYS_ACT_QUIT);
	keys_state_done(&v);
	snapshot_free(s);
}

static void golden(const char *name, const struct snapshot *snap, const struct view_state *v)
{
	struct view_header h = { .target = "command: ./fixture", .event = "cpu-clock", .freq = 999,
				 .samples_per_sec = 998, .elapsed = 9.2 };
	struct surface *s = surface_new(80, 24);
	render_frame(s, snap, &h, v);
	char *got = surface_to_text(s);
	golden_check(name, got);
	free(got);
	surface_free(s);
}

static void test_goldens(void)
{
	struct snapshot *s = make(NULL);
	struct view_state v;
	keys_state_init(&v);
	v.refresh_secs = 1;
	keys_follow(&v, s, 20);
	/* The table with a filter in force: two rows, "filter: leaf" in the mode line, the bar. */
	keys_handle(&v, '\\', s, 20);
	type(&v, s, "leaf");
	keys_handle(&v, KEYS_ENTER, s, 20);
	struct snapshot *f = snapshot_filter(s, v.filter);
	keys_follow(&v, f, 20);
	golden("table_filter_80x24.txt", f, &v);
	/* The search field while typing. */
	keys_handle(&v, '/', f, 20);
	type(&v, f, "leaf_b");
	golden("table_search_80x24.txt", f, &v);
	keys_state_done(&v);
	snapshot_free(f);
	snapshot_free(s);
}

int main(int argc, char **argv)
{
	golden_init(argc > 1 ? argv[1] : "tests/ui/golden");
	test_search();
	test_filter();
	test_zoom();
	test_order_and_setup();
	test_mouse_and_bar();
	test_goldens();
	printf("%d checks, %d failed\n", check_count, check_failures);
	return check_failures ? 1 : 0;
}
