/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_keys: the key actions on the view state, with no terminal: cursor moves and paging, the
 * order keys among the visible columns, pause, zero, help, quit, and the cursor following its row
 * across snapshots. Replay keys (pause, speed steps, seek, range set and clear with R) against a fake
 * replay that records every call, and the i view's open / scroll / close keys. Tab and Shift-Tab
 * cycling the events of a session of several (and doing nothing with one), and the help listing
 * them only then.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ui/keys.h"
#include "ui/render.h"
#include "util/util.h"

static struct snapshot *make(size_t n, const enum sort_key *keys, int nkeys)
{
	struct snapshot *s = xcalloc(1, sizeof(*s));
	s->rows = xcalloc(n, sizeof(*s->rows));
	s->nrows = n;
	for (size_t i = 0; i < n; i++) {
		s->rows[i].id = 1000 + i;
		s->rows[i].self_period = s->rows[i].total_period = 100 - i;
		s->rows[i].samples = 100 - i;
	}
	for (int i = 0; i < nkeys; i++)
		s->keys[i] = keys[i];
	s->nkeys = nkeys;
	return s;
}

static void test_moves(void)
{
	static const enum sort_key k[] = { SORT_DSO, SORT_SYM };
	struct snapshot *s = make(30, k, 2);
	struct view_state v;
	keys_state_init(&v);

	CHECK(keys_handle(&v, KEYS_UP, s, 10) == 0); /* already at the top: nothing to redraw */
	CHECK(keys_handle(&v, KEYS_DOWN, s, 10) == KEYS_ACT_REDRAW);
	CHECK_EQ_U64(v.cursor, 1);
	CHECK_EQ_U64(v.cursor_id, 1001);
	keys_handle(&v, KEYS_PGDN, s, 10);
	CHECK_EQ_U64(v.cursor, 11);
	CHECK_EQ_U64(v.top, 2); /* the cursor is the last visible row */
	keys_handle(&v, KEYS_END, s, 10);
	CHECK_EQ_U64(v.cursor, 29);
	CHECK_EQ_U64(v.top, 20);
	CHECK(keys_handle(&v, KEYS_DOWN, s, 10) == 0);
	keys_handle(&v, KEYS_PGUP, s, 10);
	CHECK_EQ_U64(v.cursor, 19);
	CHECK_EQ_U64(v.top, 19);
	keys_handle(&v, KEYS_HOME, s, 10);
	CHECK_EQ_U64(v.cursor, 0);
	CHECK_EQ_U64(v.top, 0);
	keys_handle(&v, 'j', s, 10);
	keys_handle(&v, 'j', s, 10);
	keys_handle(&v, 'k', s, 10);
	CHECK_EQ_U64(v.cursor, 1);

	/* No snapshot, or an empty one: moves are no-ops, not crashes. */
	CHECK(keys_handle(&v, KEYS_DOWN, NULL, 10) == 0);
	struct snapshot *e = make(0, k, 2);
	CHECK(keys_handle(&v, KEYS_END, e, 0) == 0);
	snapshot_free(e);
	snapshot_free(s);
}

static void test_order(void)
{
	static const enum sort_key k[] = { SORT_COMM, SORT_PID, SORT_SYM };
	struct snapshot *s = make(3, k, 3);
	struct view_state v;
	keys_state_init(&v);
	enum snap_col cols[COL_COUNT];
	int n = render_columns(s, cols);
	CHECK(n == 6);
	CHECK(cols[3] == COL_COMM && cols[4] == COL_PID && cols[5] == COL_SYM);

	CHECK(keys_handle(&v, '<', s, 10) == 0); /* Self is the leftmost: < stops there */
	CHECK(v.order == COL_SELF);
	CHECK(keys_handle(&v, '>', s, 10) == (KEYS_ACT_RESORT | KEYS_ACT_REDRAW));
	CHECK(v.order == COL_TOTAL);
	keys_handle(&v, '>', s, 10);
	keys_handle(&v, '>', s, 10);
	CHECK(v.order == COL_COMM);
	keys_handle(&v, '>', s, 10);
	keys_handle(&v, '>', s, 10);
	CHECK(v.order == COL_SYM);
	CHECK(keys_handle(&v, '>', s, 10) == 0); /* the rightmost */
	CHECK(keys_handle(&v, KEYS_F6, s, 10) & KEYS_ACT_RESORT); /* F6 wraps */
	CHECK(v.order == COL_SELF);
	keys_handle(&v, '<', s, 10);
	CHECK(v.order == COL_SELF);

	/* DSO is not a key here, so it cannot be the order; F6 starts over from Self. */
	v.order = COL_DSO;
	keys_handle(&v, KEYS_F6, s, 10);
	CHECK(v.order == COL_SELF);
	snapshot_free(s);
}

static void test_toggles(void)
{
	struct view_state v;
	keys_state_init(&v);
	CHECK(!v.paused && !v.zero && !v.help && !v.quit);

	CHECK(keys_handle(&v, ' ', NULL, 10) == (KEYS_ACT_PAUSE | KEYS_ACT_REDRAW));
	CHECK(v.paused);
	keys_handle(&v, ' ', NULL, 10);
	CHECK(!v.paused);
	CHECK(keys_handle(&v, 'z', NULL, 10) == (KEYS_ACT_ZERO | KEYS_ACT_REDRAW));
	CHECK(v.zero);
	keys_handle(&v, 'z', NULL, 10);
	CHECK(!v.zero);

	CHECK(keys_handle(&v, KEYS_ESC, NULL, 10) == 0); /* Esc without help does nothing */
	CHECK(keys_handle(&v, '?', NULL, 10) == KEYS_ACT_REDRAW);
	CHECK(v.help);
	CHECK(keys_handle(&v, KEYS_ESC, NULL, 10) == KEYS_ACT_REDRAW);
	CHECK(!v.help && !v.quit);
	keys_handle(&v, KEYS_F1, NULL, 10);
	CHECK(v.help);
	/* While help shows, a key closes it and does nothing else. */
	keys_handle(&v, 'z', NULL, 10);
	CHECK(!v.help && !v.zero);
	keys_handle(&v, '?', NULL, 10);
	keys_handle(&v, '?', NULL, 10);
	CHECK(!v.help);

	CHECK(keys_handle(&v, KEYS_CTRL_L, NULL, 10) == (KEYS_ACT_REDRAW | KEYS_ACT_CLEAR));
	CHECK(keys_handle(&v, KEYS_RESIZE, NULL, 10) & KEYS_ACT_CLEAR);
	CHECK(keys_handle(&v, 'x', NULL, 10) == 0);

	keys_handle(&v, '?', NULL, 10);
	CHECK(keys_handle(&v, 'q', NULL, 10) == KEYS_ACT_QUIT); /* q quits even from help */
	CHECK(v.quit);
}

static void test_follow(void)
{
	static const enum sort_key k[] = { SORT_SYM };
	struct snapshot *s = make(5, k, 1);
	struct view_state v;
	keys_state_init(&v);
	keys_follow(&v, s, 3);
	CHECK_EQ_U64(v.cursor_id, 1000);
	keys_handle(&v, KEYS_DOWN, s, 3);
	keys_handle(&v, KEYS_DOWN, s, 3); /* on id 1002 */

	/* The next snapshot has that row last. */
	struct snapshot *t = make(5, k, 1);
	t->rows[4].id = 1002;
	t->rows[2].id = 1004;
	keys_follow(&v, t, 3);
	CHECK_EQ_U64(v.cursor, 4);
	CHECK_EQ_U64(v.cursor_id, 1002);
	CHECK_EQ_U64(v.top, 2);

	/* Gone, and fewer rows: the index is clamped and the cursor takes that row's id. */
	struct snapshot *u = make(2, k, 1);
	keys_follow(&v, u, 3);
	CHECK_EQ_U64(v.cursor, 1);
	CHECK_EQ_U64(v.cursor_id, 1001);
	CHECK_EQ_U64(v.top, 0);

	/* An empty window keeps the id, so the row is found again when it comes back. */
	struct snapshot *e = make(0, k, 1);
	keys_follow(&v, e, 3);
	CHECK_EQ_U64(v.cursor, 0);
	keys_follow(&v, s, 3);
	CHECK_EQ_U64(v.cursor, 1);
	snapshot_free(s);
	snapshot_free(t);
	snapshot_free(u);
	snapshot_free(e);
}

/* --- replay --- */

/* A fake replay: fixed duration, a position the test moves, and a log of the setter calls. */
struct fake {
	double dur, pos;
	int paused_calls, speed_calls, seek_calls, range_calls;
	bool paused;
	double speed, seek_to, start, end;
};

static double f_duration(void *ctx) { return ((struct fake *)ctx)->dur; }
static double f_position(void *ctx) { return ((struct fake *)ctx)->pos; }

static void f_set_paused(void *ctx, bool paused)
{
	struct fake *f = ctx;
	f->paused_calls++;
	f->paused = paused;
}

static void f_set_speed(void *ctx, double speed)
{
	struct fake *f = ctx;
	f->speed_calls++;
	f->speed = speed;
}

static void f_seek(void *ctx, double secs)
{
	struct fake *f = ctx;
	f->seek_calls++;
	f->seek_to = secs;
	f->pos = secs; /* as the engine would */
}

static void f_set_range(void *ctx, double start, double end)
{
	struct fake *f = ctx;
	f->range_calls++;
	f->start = start;
	f->end = end;
}

static const struct tui_replay fake_replay = {
	.duration = f_duration, .position = f_position, .histogram = NULL,
	.set_paused = f_set_paused, .set_speed = f_set_speed, .seek = f_seek,
	.set_range = f_set_range,
};

static void replay_state(struct view_state *v, struct fake *f)
{
	*f = (struct fake){ .dur = 60, .pos = 12.5, .speed = -1, .seek_to = -1 };
	keys_state_init(v);
	v->replay = &fake_replay;
	v->replay_ctx = f;
}

static void test_replay_pause_speed(void)
{
	struct view_state v;
	struct fake f;
	replay_state(&v, &f);
	CHECK(v.speed_step == KEYS_SPEED_DEFAULT);
	CHECK(keys_speed(v.speed_step) == 1.0);
	CHECK_STR(keys_speed_label(v.speed_step), "1x");

	/* Space pauses the replay itself. */
	CHECK(keys_handle(&v, ' ', NULL, 10) == (KEYS_ACT_PAUSE | KEYS_ACT_REDRAW));
	CHECK(v.paused && f.paused && f.paused_calls == 1);
	keys_handle(&v, ' ', NULL, 10);
	CHECK(!v.paused && !f.paused && f.paused_calls == 2);

	/* + goes 2x 4x 8x 16x max and stops there; - goes back down to 0.25x and stops. */
	static const double up[] = { 2, 4, 8, 16, TUI_SPEED_MAX };
	static const char *const up_label[] = { "2x", "4x", "8x", "16x", "max" };
	for (size_t i = 0; i < ARRAY_SIZE(up); i++) {
		CHECK(keys_handle(&v, '+', NULL, 10) == KEYS_ACT_REDRAW);
		CHECK(f.speed == up[i]);
		CHECK_STR(keys_speed_label(v.speed_step), up_label[i]);
	}
	CHECK(f.speed_calls == 5);
	CHECK(keys_handle(&v, '+', NULL, 10) == 0);
	CHECK(keys_handle(&v, '=', NULL, 10) == 0); /* + without shift */
	CHECK(f.speed_calls == 5);
	static const double down[] = { 16, 8, 4, 2, 1, 0.5, 0.25 };
	for (size_t i = 0; i < ARRAY_SIZE(down); i++) {
		keys_handle(&v, '-', NULL, 10);
		CHECK(f.speed == down[i]);
	}
	CHECK_STR(keys_speed_label(v.speed_step), "0.25x");
	CHECK(keys_handle(&v, '-', NULL, 10) == 0);
	CHECK(f.speed_calls == 12);
	keys_handle(&v, '=', NULL, 10);
	CHECK(f.speed == 0.5);

	/* Nothing of this reached the seek or the range. */
	CHECK(f.seek_calls == 0 && f.range_calls == 0);
}

static void test_replay_seek(void)
{
	struct view_state v;
	struct fake f;
	replay_state(&v, &f);
	CHECK(keys_handle(&v, KEYS_RIGHT, NULL, 10) == (KEYS_ACT_REDRAW | KEYS_ACT_REFRESH));
	CHECK(f.seek_to == 22.5);
	keys_handle(&v, KEYS_LEFT, NULL, 10);
	keys_handle(&v, KEYS_LEFT, NULL, 10);
	CHECK(f.seek_to == 2.5);
	keys_handle(&v, KEYS_LEFT, NULL, 10); /* clamped at the start */
	CHECK(f.seek_to == 0);
	CHECK(keys_handle(&v, KEYS_LEFT, NULL, 10) == 0); /* already there: no call */
	CHECK(f.seek_calls == 4);
	f.pos = 55;
	keys_handle(&v, KEYS_RIGHT, NULL, 10); /* clamped at the end */
	CHECK(f.seek_to == 60);
	CHECK(keys_handle(&v, KEYS_RIGHT, NULL, 10) == 0);
	CHECK(f.seek_calls == 5);

	/* In the table, Up/Down still move the cursor in a replay. */
	static const enum sort_key k[] = { SORT_SYM };
	struct snapshot *s = make(5, k, 1);
	CHECK(keys_handle(&v, KEYS_DOWN, s, 3) == KEYS_ACT_REDRAW);
	CHECK_EQ_U64(v.cursor, 1);
	snapshot_free(s);

	/* Live: Left / Right do nothing, Space pauses the display only. */
	struct view_state live;
	keys_state_init(&live);
	CHECK(keys_handle(&live, KEYS_RIGHT, NULL, 10) == 0);
	CHECK(keys_handle(&live, '+', NULL, 10) == 0);
	CHECK(keys_handle(&live, '[', NULL, 10) == 0);
	CHECK(keys_handle(&live, ' ', NULL, 10) == (KEYS_ACT_PAUSE | KEYS_ACT_REDRAW));
	CHECK(live.paused);
}

static void test_replay_range(void)
{
	struct view_state v;
	struct fake f;
	replay_state(&v, &f);
	CHECK(keys_handle(&v, 'R', NULL, 10) == 0); /* no range to clear: no call */
	CHECK(f.range_calls == 0);

	f.pos = 10;
	CHECK(keys_handle(&v, '[', NULL, 10) == (KEYS_ACT_REDRAW | KEYS_ACT_REFRESH));
	CHECK(f.range_calls == 1 && f.start == 10 && f.end == TUI_RANGE_NONE);
	CHECK(v.range_start == 10 && v.range_end == TUI_RANGE_NONE);
	f.pos = 30;
	keys_handle(&v, ']', NULL, 10);
	CHECK(f.range_calls == 2 && f.start == 10 && f.end == 30);

	/* [ again moves the start; past the end, the end is dropped (never a backwards range). */
	f.pos = 20;
	keys_handle(&v, '[', NULL, 10);
	CHECK(f.start == 20 && f.end == 30);
	f.pos = 40;
	keys_handle(&v, '[', NULL, 10);
	CHECK(f.start == 40 && f.end == TUI_RANGE_NONE);
	/* ] before the start drops the start. */
	f.pos = 35;
	keys_handle(&v, ']', NULL, 10);
	CHECK(f.start == TUI_RANGE_NONE && f.end == 35);
	CHECK(v.range_start == TUI_RANGE_NONE && v.range_end == 35);

	/* R clears both ends (\ is the filter). */
	CHECK(keys_handle(&v, 'R', NULL, 10) == (KEYS_ACT_REDRAW | KEYS_ACT_REFRESH));
	CHECK(f.range_calls == 6 && f.start == TUI_RANGE_NONE && f.end == TUI_RANGE_NONE);
	CHECK(v.range_start == TUI_RANGE_NONE && v.range_end == TUI_RANGE_NONE);
	CHECK(f.seek_calls == 0 && f.speed_calls == 0 && f.paused_calls == 0);

	/* A replay without setters (a source that only plays) does not crash. */
	static const struct tui_replay bare = { .duration = f_duration, .position = f_position };
	v.replay = &bare;
	keys_handle(&v, '[', NULL, 10);
	keys_handle(&v, ' ', NULL, 10);
	keys_handle(&v, '+', NULL, 10);
	keys_handle(&v, KEYS_RIGHT, NULL, 10);
	CHECK(v.range_start == 35 && v.paused);
}

static void test_info_keys(void)
{
	struct view_state v;
	struct fake f;
	replay_state(&v, &f);
	CHECK(keys_handle(&v, 'i', NULL, 10) == KEYS_ACT_REDRAW);
	CHECK(v.view == VIEW_INFO && v.info_top == 0);
	v.info_count = 25;
	/* Scrolling: 10 rows of 25 lines, the top stops at 15. */
	CHECK(keys_handle(&v, KEYS_UP, NULL, 10) == 0);
	keys_handle(&v, KEYS_DOWN, NULL, 10);
	keys_handle(&v, 'j', NULL, 10);
	CHECK_EQ_U64(v.info_top, 2);
	keys_handle(&v, KEYS_PGDN, NULL, 10);
	CHECK_EQ_U64(v.info_top, 12);
	keys_handle(&v, KEYS_PGDN, NULL, 10);
	CHECK_EQ_U64(v.info_top, 15);
	CHECK(keys_handle(&v, KEYS_END, NULL, 10) == 0);
	keys_handle(&v, KEYS_HOME, NULL, 10);
	CHECK_EQ_U64(v.info_top, 0);
	keys_handle(&v, 'G', NULL, 10);
	keys_handle(&v, 'k', NULL, 10);
	CHECK_EQ_U64(v.info_top, 14);

	/* Replay keys still work there (the replay goes on while one reads). */
	keys_handle(&v, ' ', NULL, 10);
	CHECK(f.paused_calls == 1 && v.view == VIEW_INFO);

	/* q, Esc and i close the view; q does not quit from it. */
	CHECK(keys_handle(&v, 'q', NULL, 10) == KEYS_ACT_REDRAW);
	CHECK(v.view == VIEW_TOP && !v.quit);
	keys_handle(&v, 'i', NULL, 10);
	CHECK(v.info_top == 0); /* reopened at the top */
	keys_handle(&v, KEYS_ESC, NULL, 10);
	CHECK(v.view == VIEW_TOP);
	keys_handle(&v, 'i', NULL, 10);
	keys_handle(&v, 'i', NULL, 10);
	CHECK(v.view == VIEW_TOP && !v.quit);
	/* Help over the i view: a key closes the help only; q there quits, as everywhere in help. */
	keys_handle(&v, 'i', NULL, 10);
	keys_handle(&v, '?', NULL, 10);
	CHECK(v.help && v.view == VIEW_INFO);
	keys_handle(&v, KEYS_ESC, NULL, 10);
	CHECK(!v.help && v.view == VIEW_INFO);
	/* The table's order keys do nothing in the i view. */
	CHECK(keys_handle(&v, '>', NULL, 10) == 0);
	CHECK(v.order == COL_SELF);
	keys_handle(&v, 'q', NULL, 10);
	CHECK(keys_handle(&v, 'q', NULL, 10) == KEYS_ACT_QUIT);

	/* Live: i opens it too, with whatever lines the source has (maybe none). */
	struct view_state live;
	keys_state_init(&live);
	keys_handle(&live, 'i', NULL, 10);
	CHECK(live.view == VIEW_INFO);
	CHECK(keys_handle(&live, KEYS_DOWN, NULL, 10) == 0);
	keys_handle(&live, 'q', NULL, 10);
	CHECK(live.view == VIEW_TOP && !live.quit);
}

static bool help_has(bool several, const char *keys)
{
	const struct keys_binding *list[64];
	size_t n = keys_help(NULL, false, several, list, 64);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i]->keys, keys))
			return true;
	return false;
}

static void test_events(void)
{
	struct view_state v;
	keys_state_init(&v);
	v.nevents = 1;
	CHECK(keys_handle(&v, '\t', NULL, 10) == 0);
	CHECK(v.event == 0);
	v.nevents = 3;
	CHECK(keys_handle(&v, '\t', NULL, 10) == (KEYS_ACT_EVENT | KEYS_ACT_REDRAW));
	CHECK(v.event == 1);
	keys_handle(&v, '\t', NULL, 10);
	keys_handle(&v, '\t', NULL, 10);
	CHECK(v.event == 0); /* round */
	CHECK(keys_handle(&v, KEYS_BTAB, NULL, 10) == (KEYS_ACT_EVENT | KEYS_ACT_REDRAW));
	CHECK(v.event == 2);
	CHECK(!help_has(false, "Tab  Shift-Tab"));
	CHECK(help_has(true, "Tab  Shift-Tab"));
	keys_state_done(&v);
}

/* w: a prompt with a default name (pprof, stamped), edited, Enter asks the loop to write it, Esc
 * leaves it; the message is cleared by the next key. */
static void test_export_key(void)
{
	static const enum sort_key k[] = { SORT_DSO, SORT_SYM };
	struct snapshot *s = make(5, k, 2);
	struct view_state v;
	keys_state_init(&v);
	CHECK(keys_handle(&v, 'w', s, 10) == KEYS_ACT_REDRAW);
	CHECK(v.input == KEYS_INPUT_EXPORT);
	size_t n = strlen(v.input_text);
	CHECK(strncmp(v.input_text, "perftop-", 8) == 0 && n == strlen("perftop-YYYYmmdd-HHMMSS.pb.gz") &&
	      strcmp(v.input_text + n - 6, ".pb.gz") == 0);
	for (size_t i = 0; i < 6; i++)
		keys_handle(&v, KEYS_BACKSPACE, s, 10);
	for (const char *c = ".folded"; *c; c++)
		CHECK(keys_handle(&v, *c, s, 10) == KEYS_ACT_REDRAW); /* typing filters nothing */
	CHECK(v.filter[0] == '\0');
	CHECK(keys_handle(&v, KEYS_ENTER, s, 10) == (KEYS_ACT_EXPORT | KEYS_ACT_REDRAW));
	CHECK(v.input == KEYS_INPUT_NONE);
	CHECK(strcmp(v.export_path + strlen(v.export_path) - 7, ".folded") == 0);
	snprintf(v.message, sizeof(v.message), "wrote it");
	keys_handle(&v, 'w', s, 10);
	CHECK(v.message[0] == '\0');
	CHECK(keys_handle(&v, KEYS_ESC, s, 10) == KEYS_ACT_REDRAW);
	CHECK(v.input == KEYS_INPUT_NONE);
	snapshot_free(s);
}

int main(void)
{
	unsetenv("NO_COLOR");
	test_moves();
	test_order();
	test_toggles();
	test_follow();
	test_replay_pause_speed();
	test_replay_seek();
	test_replay_range();
	test_info_keys();
	test_events();
	test_export_key();
	return CHECK_DONE();
}
