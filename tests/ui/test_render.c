/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_render: golden frames. A hand-made snapshot is rendered into a surface and the text dump is
 * compared with the expected screen below; roles are checked cell by cell where they matter
 * (hot percentages, the selected row, NO_COLOR). Also: the order marker after '>', the cursor
 * following its row across a re-ordered snapshot, the help overlay, and tiny sizes.
 * Replay: the mode line with position and speed, the sparkline with the position and the range
 * marked (at 100 and 60 columns, roles included), the replay help and footer, and the i view.
 */
#include <stdlib.h>

#include "check.h"
#include "ui/keys.h"
#include "ui/render.h"
#include "ui/surface.h"
#include "util/util.h"

static struct snapshot *make_snapshot(void)
{
	static const struct {
		const char *sym, *dso;
		double self, total;
		uint64_t samples;
	} rows[] = {
		{ "compute_checksum", "libcrc.so.1", 41.25, 62.50, 3300 },
		{ "main", "demo", 22.50, 99.00, 1800 },
		{ "__memmove_avx_unaligned_erms", "libc.so.6", 3.75, 3.75, 300 },
		{ "do_syscall_64", "[kernel.kallsyms]", 0.25, 10.00, 20 },
	};
	struct snapshot *s = xcalloc(1, sizeof(*s));
	s->nrows = ARRAY_SIZE(rows);
	s->rows = xcalloc(s->nrows, sizeof(*s->rows));
	for (size_t i = 0; i < s->nrows; i++) {
		struct snap_row *r = &s->rows[i];
		r->id = 100 + i;
		r->sym = rows[i].sym;
		r->dso = rows[i].dso;
		r->self_pct = rows[i].self;
		r->total_pct = rows[i].total;
		r->samples = rows[i].samples;
		r->self_period = (uint64_t)(rows[i].self * 1000);
		r->total_period = (uint64_t)(rows[i].total * 1000);
	}
	s->total_period = 100000;
	s->keys[0] = SORT_DSO;
	s->keys[1] = SORT_SYM;
	s->nkeys = 2;
	s->order = COL_SELF;
	return s;
}

static struct view_header make_header(void)
{
	return (struct view_header){ .target = "command: python3 -c busy()", .event = "cpu-clock",
				     .freq = 4000, .samples_per_sec = 3999.6, .lost = 0,
				     .dropped = 0, .elapsed = 12.7 };
}

static int expect_text(const struct surface *s, const char *want, int line)
{
	char *got = surface_to_text(s);
	int ok = strcmp(got, want) == 0;
	check_count++;
	if (!ok) {
		check_failures++;
		fprintf(stderr, "%s:%d: frame differs\n--- want\n%s--- got\n%s---\n", __FILE__, line, want,
			got);
	}
	free(got);
	return ok;
}
#define EXPECT_TEXT(s, want) expect_text(s, want, __LINE__)

static enum surface_role role_at(const struct surface *s, int x, int y)
{
	return (enum surface_role)surface_cell_const(s, x, y)->role;
}

/* x of the first cell of needle on line y, or -1. */
static int find_on_line(const struct surface *s, int y, const char *needle)
{
	char *text = surface_to_text(s);
	char *line = text;
	for (int i = 0; i < y && line; i++) {
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	int x = -1;
	if (line) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		char *hit = strstr(line, needle);
		if (hit) {
			*hit = '\0';
			x = surface_text_width(line);
		}
	}
	free(text);
	return x;
}

static const char golden_top[] =
	" perftop — command: python3 -c busy()   event: cpu-clock @ 4000 Hz   4000 samples/s   12s\n"
	" mode: decay   refresh: 2.0s   order: Self%   rows: 4\n"
	"  Self%▼   Total%   Samples  Symbol                        Shared Object\n"
	"  41.25%   62.50%      3300  compute_checksum              libcrc.so.1\n"
	"  22.50%   99.00%      1800  main                          demo\n"
	"   3.75%    3.75%       300  __memmove_avx_unaligned_erms  libc.so.6\n"
	"   0.25%   10.00%        20  do_syscall_64                 [kernel.kallsyms]\n"
	"\n"
	"\n"
	"\n"
	"\n"
	"F1Help  F2Setup F3SearchF4FilterF5Flame F6SortByF10Quit                                         1/4\n";

static void test_golden(void)
{
	struct snapshot *snap = make_snapshot();
	struct view_header h = make_header();
	struct view_state v;
	keys_state_init(&v);
	v.refresh_secs = 2;
	keys_follow(&v, snap, render_table_rows(12, &h));
	struct surface *s = surface_new(100, 12);
	render_frame(s, snap, &h, &v);
	EXPECT_TEXT(s, golden_top);

	/* Roles: summary, column titles (Self sorted), the selected first row, hot levels. */
	CHECK(role_at(s, 1, 0) == ROLE_HEADER);
	CHECK(role_at(s, 1, 2) == ROLE_COLHDR_SORTED);
	CHECK(role_at(s, 12, 2) == ROLE_COLHDR);
	CHECK(role_at(s, 3, 3) == ROLE_SELECTED);
	CHECK(role_at(s, 99, 3) == ROLE_SELECTED);
	CHECK(role_at(s, 3, 4) == ROLE_HOT_HIGH);  /* 22.50% */
	CHECK(role_at(s, 3, 5) == ROLE_HOT_MID);   /* 3.75% */
	CHECK(role_at(s, 3, 6) == ROLE_NORMAL);    /* 0.25% */
	CHECK(role_at(s, 12, 6) == ROLE_HOT_HIGH); /* Total 10.00% */
	CHECK(role_at(s, 0, 11) == ROLE_NORMAL); /* the bar: "F1" plain, "Help" in the bar colour */
	CHECK(role_at(s, 3, 11) == ROLE_STATUS);
	surface_free(s);
	snapshot_free(snap);
}

static void test_order_marker_and_follow(void)
{
	struct snapshot *snap = make_snapshot();
	struct view_header h = make_header();
	struct view_state v;
	keys_state_init(&v);
	int rows = render_table_rows(12, &h);
	keys_follow(&v, snap, rows);
	struct surface *s = surface_new(100, 12);
	render_frame(s, snap, &h, &v);
	CHECK(find_on_line(s, 2, "Self%▼") >= 0);
	CHECK(find_on_line(s, 2, "Total%▼") < 0);

	/* Cursor on "main" (id 101), then '>' orders by Total: main moves to the top. */
	keys_handle(&v, KEYS_DOWN, snap, rows);
	CHECK_EQ_U64(v.cursor_id, 101);
	unsigned act = keys_handle(&v, '>', snap, rows);
	CHECK(act & KEYS_ACT_RESORT);
	snapshot_sort(snap, v.order);
	keys_follow(&v, snap, rows);
	render_frame(s, snap, &h, &v);
	CHECK(find_on_line(s, 2, "Self%▼") < 0);
	int x = find_on_line(s, 2, "Total%▼");
	CHECK(x >= 0);
	CHECK(x >= 0 && role_at(s, x, 2) == ROLE_COLHDR_SORTED);
	CHECK(find_on_line(s, 1, "order: Total%") >= 0);
	CHECK_EQ_U64(v.cursor, 0);
	CHECK(find_on_line(s, 3, "main") >= 0);
	CHECK(role_at(s, 30, 3) == ROLE_SELECTED);

	/* A new snapshot in yet another order (by Symbol): the cursor is still on main. */
	struct snapshot *next = make_snapshot();
	next->rows[1].self_pct = 30.0;
	snapshot_sort(next, COL_SYM);
	v.order = COL_SYM;
	keys_follow(&v, next, rows);
	CHECK_EQ_U64(v.cursor_id, 101);
	CHECK_STR(next->rows[v.cursor].sym, "main");
	render_frame(s, next, &h, &v);
	int y = 3 + (int)v.cursor;
	CHECK(find_on_line(s, y, "main") >= 0);
	CHECK(role_at(s, 50, y) == ROLE_SELECTED);
	CHECK(find_on_line(s, 2, "Symbol▲") >= 0);
	surface_free(s);
	snapshot_free(snap);
	snapshot_free(next);
}

static const char golden_help[] =
	" perftop — command: python3 -c busy()   event: cpu-clock @ 4000 Hz   4000 samples/s   12s\n"
	" mode: decay   order: Self%   rows: 4\n"
	"┌─ perftop keys ───────────────────────────────────────────────────────────────────────────────────┐\n"
	"│ Up/Down PgUp/PgDn   move the cursor a row / a…   a                   annotate: source and asm    │\n"
	"│ Home/End g/G        first / last row             f  F5               flame graph of the window   │\n"
	"│ < >  F6  I          order by the column left …   mouse               click: select, order; whe…  │\n"
	"│ /  F3  n N          search (Enter ends, Esc c…   z                   toggle decay / zero at ea…  │\n"
	"│ \\  F4               filter by symbol, dso, co…   m                   C++/Rust names: demangled…  │\n"
	"│ w                   write the window (filter,…   Space               pause the display (sampli…  │\n"
	"│ t  d                zoom into the row's proce…   i                   session information view    │\n"
	"│ K  U                hide kernel / user frames…   Ctrl-L              repaint the screen          │\n"
	"│ Esc                 clear the filter, else un…   ?  F1               show / hide this help (Es…  │\n"
	"│ F2                  setup: show / hide columns   q  F10              quit                        │\n"
	"│ Enter               callers and callees of th…                                                   │\n"
	"│                                                                                                  │\n"
	"│ Esc or ? closes this help                                                                        │\n"
	"└──────────────────────────────────────────────────────────────────────────────────────────────────┘\n"
	"\n"
	"\n"
	"F1Help  F2Setup F3SearchF4FilterF5Flame F6SortByF10Quit                                         1/4\n";

static void test_help(void)
{
	struct snapshot *snap = make_snapshot();
	struct view_header h = make_header();
	struct view_state v;
	keys_state_init(&v);
	keys_follow(&v, snap, 10);
	keys_handle(&v, '?', snap, 10);
	struct surface *s = surface_new(100, 20);
	render_frame(s, snap, &h, &v);
	EXPECT_TEXT(s, golden_help);
	surface_free(s);
	snapshot_free(snap);
}

static const char golden_notice[] =
	" perftop — command: python3 -c busy()   lost: 12  dropped: 0\n"
	" PAUSED   mode: zero   order: Self%   rows: 4\n"
	" python3 exited with status 0 — showing the last data; q quits\n"
	" cycles not supported here; using cpu-clock\n"
	"  Self%▼   Total%   Samples  Symbol                        Shared Object\n"
	"  41.25%   62.50%      3300  compute_checksum              libcrc.so.1\n"
	"  22.50%   99.00%      1800  main                          demo\n"
	"   3.75%    3.75%       300  __memmove_avx_unaligned_erms  libc.so.6\n"
	"   0.25%   10.00%        20  do_syscall_64                 [kernel.kallsyms]\n"
	"F1Help  F2Setup F3SearchF4FilterF5Flame F6SortByF10Quit                     1/4\n";

static void test_notice_and_paused(void)
{
	struct snapshot *snap = make_snapshot();
	struct view_header h = make_header();
	h.target_exited = true;
	h.exit_text = "python3 exited with status 0";
	h.notice = "cycles not supported here; using cpu-clock";
	h.lost = 12;
	struct view_state v;
	keys_state_init(&v);
	v.paused = true;
	v.zero = true;
	keys_follow(&v, snap, render_table_rows(10, &h));
	CHECK(render_table_rows(10, &h) == 4);
	struct surface *s = surface_new(80, 10);
	render_frame(s, snap, &h, &v);
	EXPECT_TEXT(s, golden_notice);
	CHECK(role_at(s, 1, 1) == ROLE_NOTICE); /* PAUSED */
	CHECK(role_at(s, 1, 2) == ROLE_NOTICE);
	surface_free(s);
	snapshot_free(snap);
}

static void test_no_color(void)
{
	setenv("NO_COLOR", "1", 1);
	struct snapshot *snap = make_snapshot();
	struct view_header h = make_header();
	struct view_state v;
	keys_state_init(&v);
	CHECK(!v.color);
	keys_follow(&v, snap, 8);
	struct surface *s = surface_new(100, 12);
	render_frame(s, snap, &h, &v);
	for (int y = 0; y < s->h; y++)
		for (int x = 0; x < s->w; x++) {
			enum surface_role r = role_at(s, x, y);
			CHECK(r != ROLE_HOT_HIGH && r != ROLE_HOT_MID && r != ROLE_KERNEL);
		}
	/* Still distinguishable through attributes: selected row, sorted column title. */
	CHECK(role_at(s, 3, 3) == ROLE_SELECTED);
	CHECK(role_at(s, 1, 2) == ROLE_COLHDR_SORTED);
	unsetenv("NO_COLOR");
	setenv("NO_COLOR", "", 1); /* empty means not set (no-color.org) */
	keys_state_init(&v);
	CHECK(v.color);
	unsetenv("NO_COLOR");
	surface_free(s);
	snapshot_free(snap);
}

static void test_tiny_and_long(void)
{
	struct snapshot *snap = make_snapshot();
	struct view_header h = make_header();
	h.target_exited = true;
	h.exit_text = "a command with a very long name exited with status 1";
	struct view_state v;
	keys_state_init(&v);
	static const int sizes[][2] = { { 20, 5 }, { 1, 1 }, { 0, 0 }, { 5, 2 }, { 30, 3 },
					{ 12, 40 }, { 300, 4 } };
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct surface *s = surface_new(sizes[i][0], sizes[i][1]);
		keys_follow(&v, snap, render_table_rows(s->h, &h));
		render_frame(s, snap, &h, &v);
		v.help = true;
		render_frame(s, snap, &h, &v);
		v.help = false;
		render_frame(s, NULL, NULL, &v);
		char *t = surface_to_text(s);
		free(t);
		surface_free(s);
	}
	struct surface *s = surface_new(20, 5);
	h.target_exited = false;
	render_frame(s, snap, &h, &v);
	char *t = surface_to_text(s);
	fprintf(stderr, "20x5:\n%s", t);
	free(t);
	CHECK(role_at(s, 3, 4) == ROLE_STATUS);

	/* A very long symbol is cut with an ellipsis, and nothing passes the right edge. */
	snap->rows[0].sym = "std::vector<std::pair<std::string, std::map<int, std::string>>>::_M_realloc_insert_with_a_long_tail";
	surface_resize(s, 60, 8);
	keys_follow(&v, snap, 4);
	render_frame(s, snap, &h, &v);
	CHECK(find_on_line(s, 3, "…") > 0);
	/* Broken UTF-8 in a name shows as '?', not as bytes the terminal would misread. */
	snap->rows[1].sym = "bad\xff\xc3name";
	render_frame(s, snap, &h, &v);
	CHECK(find_on_line(s, 4, "bad??name") > 0);
	surface_free(s);
	snapshot_free(snap);
}

/* --- replay --- */

/* 60 s of recorded time: a slow rise, a burst from 35 to 40 s, a quiet second at 50 s. */
static uint64_t replay_hist[60];

static struct view_header make_replay_header(void)
{
	for (int i = 0; i < 60; i++)
		replay_hist[i] = (uint64_t)(1000 + i * 40) + (i >= 35 && i < 40 ? 3000u : 0u);
	replay_hist[50] = 0;
	struct view_header h = make_header();
	h.target = "perf.data: python3 -c busy()";
	h.replay = true;
	h.position = 12.3;
	h.duration = 60.0;
	h.hist = replay_hist;
	h.nhist = 60;
	return h;
}

static const char golden_replay_100[] =
	" perftop — perf.data: python3 -c busy()   event: cpu-clock @ 4000 Hz   4000 samples/s   12s\n"
	" PAUSED   12.3s / 60.0s   speed 2x   range 10.0s–30.0s   mode: decay   refresh: 2.0s   order: Self%…\n"
	" ▂▂▂▂▂▂▂▂▂▂▂▂▂▂▂▂▂▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▄▄▄▄▄▄▄▄▄▄▄▄████████▄▄▄▄▄▄▄▄▅▅▅▅▅▅▅▅  ▅▅▅▅▅▅▅▅▅▅▅▅▅▅\n"
	"                 [───▲───────────────────────────]\n"
	"  Self%▼   Total%   Samples  Symbol                        Shared Object\n"
	"  41.25%   62.50%      3300  compute_checksum              libcrc.so.1\n"
	"  22.50%   99.00%      1800  main                          demo\n"
	"   3.75%    3.75%       300  __memmove_avx_unaligned_erms  libc.so.6\n"
	"   0.25%   10.00%        20  do_syscall_64                 [kernel.kallsyms]\n"
	"\n"
	"\n"
	"F1Help  F2Setup F3SearchF4FilterF5Flame F6SortByF10Quit                                         1/4\n";

static const char golden_replay_60[] =
	" perftop — perf.data: python3 -c busy()\n"
	" PAUSED   12.3s / 60.0s   speed 2x   range 10.0s–30.0s   mo…\n"
	" ▂▂▂▂▂▂▂▂▂▂▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▄▄▄▄▄▄█████▄▄▄▄▄▅▅▅▅▅ ▅▅▅▅▅▅▅▅\n"
	"          [─▲────────────────]\n"
	"  Self%▼   Total%   Samples  Symbol        Shared Object\n"
	"  41.25%   62.50%      3300  compute_che…  libcrc.so.1\n"
	"  22.50%   99.00%      1800  main          demo\n"
	"   3.75%    3.75%       300  __memmove_a…  libc.so.6\n"
	"   0.25%   10.00%        20  do_syscall_…  [kernel.kallsyms]\n"
	"\n"
	"\n"
	"F1Help  F2Setup F3SearchF4FilterF5Flame F6SortByF10Quit\n";

static void test_replay_header(void)
{
	struct snapshot *snap = make_snapshot();
	struct view_header h = make_replay_header();
	struct view_state v;
	keys_state_init(&v);
	v.refresh_secs = 2;
	v.paused = true;
	v.speed_step = KEYS_SPEED_DEFAULT + 1;
	v.range_start = 10.0;
	v.range_end = 30.0;
	CHECK(render_table_rows(12, &h) == 6); /* two lines fewer than live: sparkline and marks */
	keys_follow(&v, snap, render_table_rows(12, &h));
	struct surface *s = surface_new(100, 12);
	render_frame(s, snap, &h, &v);
	EXPECT_TEXT(s, golden_replay_100);
	/* 98 cells for 60 s: the position 12.3 s is cell 20, the range 10-30 s cells 16..48. */
	CHECK(role_at(s, 1 + 20, 2) == ROLE_SPARK_POS);
	CHECK(role_at(s, 1 + 16, 2) == ROLE_SPARK_RANGE);
	CHECK(role_at(s, 1 + 48, 2) == ROLE_SPARK_RANGE);
	CHECK(role_at(s, 1 + 15, 2) == ROLE_SPARK);
	CHECK(role_at(s, 1 + 49, 2) == ROLE_SPARK);
	CHECK(role_at(s, 1, 1) == ROLE_NOTICE); /* PAUSED */

	surface_resize(s, 60, 12);
	render_frame(s, snap, &h, &v);
	EXPECT_TEXT(s, golden_replay_60);
	CHECK(find_on_line(s, 3, "▲") == 1 + 11); /* 58 cells: 12.3 s is cell 11.9 -> 11 */
	CHECK(role_at(s, 1 + 11, 2) == ROLE_SPARK_POS);

	/* Only a start: the range runs to the right edge without a closing bracket. No range: just
	 * the position. At the end and playing: END instead of PAUSED; max speed reads "max". */
	v.range_end = TUI_RANGE_NONE;
	render_frame(s, snap, &h, &v);
	CHECK(find_on_line(s, 3, "[─▲") == 10);
	CHECK(find_on_line(s, 3, "]") < 0);
	CHECK(role_at(s, 58, 2) == ROLE_SPARK_RANGE);
	CHECK(find_on_line(s, 1, "range 10.0s–60.0s") > 0);
	/* Right after [ the position and the start share a cell: the bracket shows. */
	h.position = 10.0;
	render_frame(s, snap, &h, &v);
	CHECK(find_on_line(s, 3, "[───") == 10);
	CHECK(find_on_line(s, 3, "▲") < 0);
	CHECK(role_at(s, 10, 2) == ROLE_SPARK_POS);
	h.position = 12.3;
	v.range_start = TUI_RANGE_NONE;
	v.paused = false;
	v.speed_step = KEYS_SPEED_STEPS - 1;
	h.position = 60.0;
	render_frame(s, snap, &h, &v);
	CHECK(find_on_line(s, 1, "END   60.0s / 60.0s   speed max   mode:") == 1);
	CHECK(find_on_line(s, 3, "▲") == 58); /* the last cell */
	CHECK(find_on_line(s, 3, "─") < 0);
	for (int x = 1; x < 58; x++)
		CHECK(role_at(s, x, 2) == ROLE_SPARK);

	/* NO_COLOR keeps the sparkline roles: term.c draws them as reverse / bold+underline. */
	setenv("NO_COLOR", "1", 1);
	keys_state_init(&v);
	v.range_start = 5;
	h.position = 30;
	render_frame(s, snap, &h, &v);
	CHECK(role_at(s, 1 + 29, 2) == ROLE_SPARK_POS);
	CHECK(role_at(s, 1 + 10, 2) == ROLE_SPARK_RANGE);
	unsetenv("NO_COLOR");

	/* No histogram yet, or none at all: an empty line, the position still marked; tiny sizes. */
	h.hist = NULL;
	h.nhist = 0;
	render_frame(s, snap, &h, &v);
	CHECK(role_at(s, 1 + 29, 2) == ROLE_SPARK_POS);
	h.duration = 0;
	render_frame(s, snap, &h, &v);
	static const int sizes[][2] = { { 1, 1 }, { 2, 3 }, { 3, 4 }, { 20, 5 }, { 300, 6 } };
	h = make_replay_header();
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		surface_resize(s, sizes[i][0], sizes[i][1]);
		render_frame(s, snap, &h, &v);
	}
	surface_free(s);
	snapshot_free(snap);
}

static const char golden_replay_help[] =
	" perftop — perf.data: python3 -c busy()   event: cpu-clock @ 4000 Hz   4000 samples/s   12s\n"
	" 12.3s / 60.0s   speed 1x   mode: decay   order: Self%   rows: 4\n"
	" ▂▂▂▂▂▂▂▂▂▂▂▂▂▂▂▂▂▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▃▄▄▄▄▄▄▄▄▄▄▄▄████████▄▄▄▄▄▄▄▄▅▅▅▅▅▅▅▅  ▅▅▅▅▅▅▅▅▅▅▅▅▅▅\n"
	"┌─ perftop keys ───────────────────────────────────────────────────────────────────────────────────┐\n"
	"│ Up/Down PgUp/PgDn   move the cursor a row / a…   mouse               click: select, order; whe…  │\n"
	"│ Home/End g/G        first / last row             z                   toggle decay / zero at ea…  │\n"
	"│ < >  F6  I          order by the column left …   m                   C++/Rust names: demangled…  │\n"
	"│ /  F3  n N          search (Enter ends, Esc c…   Space               pause / resume the replay   │\n"
	"│ \\  F4               filter by symbol, dso, co…   + -                 replay faster / slower (0…  │\n"
	"│ w                   write the window (filter,…   Left/Right          seek back / forward 10 s    │\n"
	"│ t  d                zoom into the row's proce…   [ ]                 set the range start / end…  │\n"
	"│ K  U                hide kernel / user frames…   R                   clear the range             │\n"
	"│ Esc                 clear the filter, else un…   i                   recording header view (Es…  │\n"
	"│ F2                  setup: show / hide columns   Ctrl-L              repaint the screen          │\n"
	"│ Enter               callers and callees of th…   ?  F1               show / hide this help (Es…  │\n"
	"│ a                   annotate: source and asm     q  F10              quit                        │\n"
	"│ f  F5               flame graph of the window                                                    │\n"
	"│                                                                                                  │\n"
	"│ Esc or ? closes this help                                                                        │\n"
	"└──────────────────────────────────────────────────────────────────────────────────────────────────┘\n"
	"\n"
	"\n"
	"\n"
	"F1Help  F2Setup F3SearchF4FilterF5Flame F6SortByF10Quit                                         1/4\n";

static void test_replay_help(void)
{
	struct snapshot *snap = make_snapshot();
	struct view_header h = make_replay_header();
	struct view_state v;
	keys_state_init(&v);
	keys_follow(&v, snap, 10);
	v.help = true;
	struct surface *s = surface_new(100, 24);
	render_frame(s, snap, &h, &v);
	EXPECT_TEXT(s, golden_replay_help);
	surface_free(s);
	snapshot_free(snap);
}

static const char *const info_lines[] = {
	"hostname: build-7",
	"os release: 6.1.0-18-amd64",
	"perf version: 6.1.76",
	"arch: x86_64",
	"nrcpus online: 8",
	"nrcpus avail: 8",
	"cpudesc: Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz",
	"cpuid: GenuineIntel,6,142,10",
	"total memory: 16166400 kB",
	"cmdline: perf record -g -o /tmp/a.data -- python3 -c busy()",
	"sibling sockets: 0-7",
	" (one line per socket)",
	"a name that is far too long to be worth indenting every value for: x",
	"not a name-value line",
	"build-id: 3f2a9c1e... /usr/lib/x86_64-linux-gnu/libc.so.6",
};

static const char golden_info[] =
	" perftop — recording header (15 lines)\n"
	" hostname:        build-7\n"
	" os release:      6.1.0-18-amd64\n"
	" perf version:    6.1.76\n"
	" arch:            x86_64\n"
	" nrcpus online:   8\n"
	" nrcpus avail:    8\n"
	" cpudesc:         Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz\n"
	" Esc/i/q close  Up/Down PgUp/PgDn Home/End scroll      1-7/15\n";

static const char golden_info_end[] =
	" perftop — recording header (15 lines)\n"
	" total memory:    16166400 kB\n"
	" cmdline:         perf record -g -o /tmp/a.data -- python3 -c…\n"
	" sibling sockets: 0-7\n"
	"                  (one line per socket)\n"
	" a name that is far too long to be worth indenting every valu…\n"
	" not a name-value line\n"
	" build-id:        3f2a9c1e... /usr/lib/x86_64-linux-gnu/libc.…\n"
	" Esc/i/q close  Up/Down PgUp/PgDn Home/End scroll     9-15/15\n";

static void test_info_view(void)
{
	struct snapshot *snap = make_snapshot();
	struct view_header h = make_replay_header();
	h.info = info_lines;
	h.ninfo = ARRAY_SIZE(info_lines);
	struct view_state v;
	keys_state_init(&v);
	v.view = VIEW_INFO;
	v.info_count = h.ninfo;
	struct surface *s = surface_new(62, 9);
	CHECK(render_body_rows(9, &h, &v) == 7);
	render_frame(s, snap, &h, &v);
	EXPECT_TEXT(s, golden_info);
	CHECK(role_at(s, 1, 0) == ROLE_HEADER);
	CHECK(role_at(s, 1, 1) == ROLE_HEADER);  /* a name */
	CHECK(role_at(s, 18, 1) == ROLE_NORMAL); /* its value */
	CHECK(role_at(s, 1, 8) == ROLE_STATUS);
	/* Scrolled past the end: the last page, nothing blank below it. */
	v.info_top = 100;
	render_frame(s, snap, &h, &v);
	EXPECT_TEXT(s, golden_info_end);

	/* Live, nothing to show; and tiny sizes. */
	h.replay = false;
	h.info = NULL;
	h.ninfo = 0;
	render_frame(s, snap, &h, &v);
	CHECK(find_on_line(s, 0, "perftop — session information (0 lines)") == 1);
	CHECK(find_on_line(s, 1, "no header information for this session") == 1);
	h.info = info_lines;
	h.ninfo = ARRAY_SIZE(info_lines);
	static const int sizes[][2] = { { 1, 1 }, { 5, 2 }, { 20, 3 }, { 300, 4 } };
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		surface_resize(s, sizes[i][0], sizes[i][1]);
		render_frame(s, snap, &h, &v);
		v.help = true;
		render_frame(s, snap, &h, &v);
		v.help = false;
	}
	surface_free(s);
	snapshot_free(snap);
}

static void test_surface(void)
{
	struct surface *s = surface_new(6, 2);
	CHECK(surface_put_text(s, 4, 0, -1, "abcdef", ROLE_HEADER) == 6);
	CHECK(surface_put_text(s, -2, 1, -1, "xy—z", ROLE_NORMAL) == 4);
	char *t = surface_to_text(s);
	CHECK_STR(t, "    ab\n—z\n");
	free(t);
	surface_put_text_cut(s, 0, 0, 4, "abcdef", ROLE_NORMAL);
	t = surface_to_text(s);
	CHECK_STR(t, "abc…ab\n—z\n");
	free(t);
	CHECK(surface_text_width("a▼…") == 3);
	struct surface *c = surface_new(1, 1);
	CHECK(!surface_equal(s, c));
	surface_copy(c, s);
	CHECK(surface_equal(s, c));
	surface_set_role(c, 0, 0, 1, ROLE_DIM);
	CHECK(!surface_equal(s, c));
	CHECK(surface_cell(s, 6, 0) == NULL && surface_cell(s, 0, -1) == NULL);
	surface_free(c);
	surface_free(s);
}

int main(void)
{
	unsetenv("NO_COLOR");
	test_surface();
	test_golden();
	test_order_marker_and_follow();
	test_help();
	test_notice_and_paused();
	test_no_color();
	test_tiny_and_long();
	test_replay_header();
	test_replay_help();
	test_info_view();
	return CHECK_DONE();
}
