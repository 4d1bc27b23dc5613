/*
 * keys: key -> action on the view state -> what the loop must redo. Pure functions of the state and
 * the displayed snapshot, so every key is unit-tested without a terminal.
 *
 * The cursor is held twice: as an index (what is drawn) and as the row's stable id (what the user
 * means). A new snapshot or a re-sort moves rows around; keys_follow puts the index back on the id.
 */
#include "ui/keys.h"

#include <stdlib.h>

#include "ui/render.h"
#include "util/util.h"

static const struct keys_help help_list[] = {
	{ "Up/Down j/k", "move the cursor one row" },
	{ "PgUp/PgDn", "move the cursor one page" },
	{ "Home/End g/G", "first / last row" },
	{ "< >", "order by the column to the left / right" },
	{ "F6", "order by the next column (cycles)" },
	{ "z", "toggle decay / zero at each refresh" },
	{ "Space", "pause the display (sampling goes on)" },
	{ "Ctrl-L", "repaint the screen" },
	{ "?  F1", "show / hide this help" },
	{ "Esc", "close this help" },
	{ "q", "quit" },
};

const struct keys_help *keys_help_list(size_t *n)
{
	*n = ARRAY_SIZE(help_list);
	return help_list;
}

void keys_state_init(struct view_state *v)
{
	*v = (struct view_state){ .view = VIEW_TOP, .order = COL_SELF };
	const char *nc = getenv("NO_COLOR");
	/* no-color.org: present and not empty disables colour. */
	v->color = !(nc && *nc);
}

size_t keys_scroll_top(const struct view_state *v, size_t nrows, int visible_rows)
{
	if (visible_rows <= 0 || nrows == 0)
		return 0;
	size_t vis = (size_t)visible_rows, top = v->top, cur = v->cursor;
	if (cur >= nrows)
		cur = nrows - 1;
	if (cur < top)
		top = cur;
	if (cur >= top + vis)
		top = cur - vis + 1;
	/* After a shrink (fewer rows or a taller window), show as many rows as fit. */
	if (top + vis > nrows)
		top = nrows > vis ? nrows - vis : 0;
	return top;
}

static void cursor_set(struct view_state *v, const struct snapshot *s, size_t idx, int visible_rows)
{
	if (!s || s->nrows == 0) {
		v->cursor = 0;
		v->top = 0;
		return;
	}
	if (idx >= s->nrows)
		idx = s->nrows - 1;
	v->cursor = idx;
	v->cursor_id = s->rows[idx].id;
	v->have_cursor_id = true;
	v->top = keys_scroll_top(v, s->nrows, visible_rows);
}

void keys_follow(struct view_state *v, const struct snapshot *s, int visible_rows)
{
	if (!s || s->nrows == 0) {
		/* Keep the id: the row may come back in the next window. */
		v->cursor = 0;
		v->top = 0;
		return;
	}
	size_t idx = v->cursor;
	if (v->have_cursor_id) {
		long found = snapshot_find(s, v->cursor_id);
		if (found >= 0)
			idx = (size_t)found;
	}
	cursor_set(v, s, idx, visible_rows);
}

/* Moves the order among the visible columns by step; wraps only when asked (F6 cycles, < > stop
 * at the ends so that holding a key does not spin). */
static unsigned order_move(struct view_state *v, const struct snapshot *s, int step, bool wrap)
{
	enum snap_col cols[COL_COUNT];
	int n = render_columns(s, cols), at = -1;
	for (int i = 0; i < n; i++)
		if (cols[i] == v->order)
			at = i;
	int next;
	if (at < 0)
		next = 0; /* the order column is not shown (keys changed): start over */
	else if (wrap)
		next = ((at + step) % n + n) % n;
	else
		next = at + step < 0 ? 0 : at + step >= n ? n - 1 : at + step;
	if (at == next)
		return 0;
	v->order = cols[next];
	return KEYS_ACT_RESORT | KEYS_ACT_REDRAW;
}

static unsigned move(struct view_state *v, const struct snapshot *s, long delta, int visible_rows)
{
	if (!s || s->nrows == 0)
		return 0;
	long idx = (long)v->cursor + delta;
	if (idx < 0)
		idx = 0;
	if (idx >= (long)s->nrows)
		idx = (long)s->nrows - 1;
	size_t old_cursor = v->cursor, old_top = v->top;
	cursor_set(v, s, (size_t)idx, visible_rows);
	return v->cursor != old_cursor || v->top != old_top ? KEYS_ACT_REDRAW : 0;
}

unsigned keys_handle(struct view_state *v, int key, const struct snapshot *s, int visible_rows)
{
	long page = visible_rows > 1 ? visible_rows : 1;

	if (key == 'q' || key == 'Q') {
		v->quit = true;
		return KEYS_ACT_QUIT;
	}
	if (key == KEYS_RESIZE || key == KEYS_CTRL_L) {
		if (s)
			v->top = keys_scroll_top(v, s->nrows, visible_rows);
		return KEYS_ACT_REDRAW | KEYS_ACT_CLEAR;
	}
	if (v->help) {
		/* The overlay swallows the next key (like htop's help screen), except the quit above. */
		v->help = false;
		return KEYS_ACT_REDRAW;
	}
	switch (key) {
	case '?':
	case KEYS_F1:
		v->help = true;
		return KEYS_ACT_REDRAW;
	case KEYS_UP:
	case 'k':
		return move(v, s, -1, visible_rows);
	case KEYS_DOWN:
	case 'j':
		return move(v, s, 1, visible_rows);
	case KEYS_PGUP:
		return move(v, s, -page, visible_rows);
	case KEYS_PGDN:
		return move(v, s, page, visible_rows);
	case KEYS_HOME:
	case 'g':
		return move(v, s, -(long)(s ? s->nrows : 0), visible_rows);
	case KEYS_END:
	case 'G':
		return move(v, s, (long)(s ? s->nrows : 0), visible_rows);
	case '<':
	case ',':
		return order_move(v, s, -1, false);
	case '>':
	case '.':
		return order_move(v, s, 1, false);
	case KEYS_F6:
		return order_move(v, s, 1, true);
	case 'z':
	case 'Z':
		v->zero = !v->zero;
		return KEYS_ACT_ZERO | KEYS_ACT_REDRAW;
	case ' ':
		v->paused = !v->paused;
		return KEYS_ACT_PAUSE | KEYS_ACT_REDRAW;
	default:
		return 0;
	}
}
