/*
 * test_keys: the key actions on the view state, with no terminal: cursor moves and paging, the
 * order keys among the visible columns, pause, zero, help, quit, and the cursor following its row
 * across snapshots.
 */
#include <stdlib.h>

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

int main(void)
{
	unsetenv("NO_COLOR");
	test_moves();
	test_order();
	test_toggles();
	test_follow();
	return CHECK_DONE();
}
