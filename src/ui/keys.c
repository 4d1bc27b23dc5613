/*
 * keys: key -> action on the view state -> what the loop must redo. Pure functions of the state and
 * the displayed snapshot, so every key is unit-tested without a terminal.
 *
 * The cursor is held twice: as an index (what is drawn) and as the row's stable id (what the user
 * means). A new snapshot or a re-sort moves rows around; keys_follow puts the index back on the id.
 *
 * Replay keys are like mpv's: Space pause, + - speed, Left Right seek 10 s; [ ] set the range's
 * start and end at the current position and \ clears it (a second [ moves the start rather than
 * clearing it, since moving is what one does while scrubbing). The view keeps the speed, pause and
 * range it asked for and calls the source's setter only on a change.
 *
 * Drill-down views (ui/view.h) sit on a stack above the table. The top one sees a key first; what
 * it leaves goes to the framework (Esc and Backspace pop it, q returns to the table: q only quits
 * from the table, so a user deep in a drill-down never loses the session by reflex), then to the
 * keys every view shares (help, pause, decay, names, replay), and the table's own keys only reach
 * the table.
 */
#include "ui/keys.h"

#include <stdlib.h>

#include "ui/render.h"
#include "util/util.h"

static const struct keys_help help_list[] = {
	{ "Up/Down j/k", "move the cursor one row", KEYS_HELP_ALL },
	{ "PgUp/PgDn", "move the cursor one page", KEYS_HELP_ALL },
	{ "Home/End g/G", "first / last row", KEYS_HELP_ALL },
	{ "< >", "order by the column to the left / right", KEYS_HELP_ALL },
	{ "F6", "order by the next column (cycles)", KEYS_HELP_ALL },
	{ "Enter", "callers and callees of the function", KEYS_HELP_ALL },
	{ "f", "flame graph of the window", KEYS_HELP_ALL },
	{ "z", "toggle decay / zero at each refresh", KEYS_HELP_ALL },
	{ "m", "C++/Rust names: demangled / raw", KEYS_HELP_ALL },
	{ "Space", "pause the display (sampling goes on)", KEYS_HELP_LIVE },
	{ "Space", "pause / resume the replay", KEYS_HELP_REPLAY },
	{ "+ -", "replay faster / slower (0.25x .. 16x, max)", KEYS_HELP_REPLAY },
	{ "Left/Right", "seek back / forward 10 s", KEYS_HELP_REPLAY },
	{ "[ ]", "set the range start / end here (table = range)", KEYS_HELP_REPLAY },
	{ "\\", "clear the range", KEYS_HELP_REPLAY },
	{ "i", "session information view", KEYS_HELP_LIVE },
	{ "i", "recording header view (Esc, i, q close it)", KEYS_HELP_REPLAY },
	{ "Ctrl-L", "repaint the screen", KEYS_HELP_ALL },
	{ "?  F1", "show / hide this help", KEYS_HELP_ALL },
	{ "Esc", "close this help", KEYS_HELP_ALL },
	{ "q", "quit", KEYS_HELP_ALL },
};

/* Listed under a drill-down view's own keys. */
static const struct keys_help common_list[] = {
	{ "Esc Backspace", "back to the previous view", KEYS_HELP_ALL },
	{ "q", "back to the table", KEYS_HELP_ALL },
	{ "z", "toggle decay / zero at each refresh", KEYS_HELP_ALL },
	{ "m", "C++/Rust names: demangled / raw", KEYS_HELP_ALL },
	{ "Space", "pause the display (sampling goes on)", KEYS_HELP_LIVE },
	{ "Space", "pause / resume the replay", KEYS_HELP_REPLAY },
	{ "?  F1", "show / hide this help", KEYS_HELP_ALL },
};

static const double speeds[KEYS_SPEED_STEPS] = { 0.25, 0.5, 1, 2, 4, 8, 16, TUI_SPEED_MAX };
static const char *const speed_labels[KEYS_SPEED_STEPS] = { "0.25x", "0.5x", "1x", "2x",
							    "4x",    "8x",   "16x", "max" };

double keys_speed(int step)
{
	return step >= 0 && step < KEYS_SPEED_STEPS ? speeds[step] : 1.0;
}

const char *keys_speed_label(int step)
{
	return step >= 0 && step < KEYS_SPEED_STEPS ? speed_labels[step] : "?";
}

const struct keys_help *keys_help_list(size_t *n)
{
	*n = ARRAY_SIZE(help_list);
	return help_list;
}

const struct keys_help *keys_help_common(size_t *n)
{
	*n = ARRAY_SIZE(common_list);
	return common_list;
}

void keys_state_done(struct view_state *v)
{
	view_pop_all(v);
}

void keys_state_init(struct view_state *v)
{
	*v = (struct view_state){ .view = VIEW_TOP, .order = COL_SELF,
				  .speed_step = KEYS_SPEED_DEFAULT, .range_start = TUI_RANGE_NONE,
				  .range_end = TUI_RANGE_NONE };
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

/* The drill-down views rebuild from every new snapshot (only the top one: the others are rebuilt
 * when uncovered). */
static void follow_views(struct view_state *v, const struct snapshot *s)
{
	struct view *top = view_top(v);
	if (top && s)
		top->ops->update(top, s);
}

void keys_follow(struct view_state *v, const struct snapshot *s, int visible_rows)
{
	follow_views(v, s);
	if (!s || s->nrows == 0) {
		/* Keep the id: the row may come back in the next window. */
		v->cursor = 0;
		v->top = 0;
		return;
	}
	size_t idx = v->cursor;
	/* Until the user picks a row the cursor stays on the top one: following whatever function
	 * happened to be first in the opening window (often the loader's) would look like drift. */
	if (v->have_cursor_id && v->cursor_chosen) {
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
	v->cursor_chosen = true;
	cursor_set(v, s, (size_t)idx, visible_rows);
	return v->cursor != old_cursor || v->top != old_top ? KEYS_ACT_REDRAW : 0;
}

/* Enter on a row: the function view of its function. A table without a sym key (-s comm) has no
 * function to open. */
static unsigned open_function(struct view_state *v, const struct snapshot *s)
{
	if (!s || v->cursor >= s->nrows || !s->rows[v->cursor].raw_sym)
		return 0;
	const struct snap_row *r = &s->rows[v->cursor];
	view_push(v, view_func_new(r->raw_sym, r->dso, r->sym), s);
	return KEYS_ACT_REDRAW;
}

/* --- replay --- */

static double replay_position(const struct view_state *v)
{
	return v->replay->position ? v->replay->position(v->replay_ctx) : 0;
}

static double replay_duration(const struct view_state *v)
{
	return v->replay->duration ? v->replay->duration(v->replay_ctx) : 0;
}

static unsigned replay_speed(struct view_state *v, int step)
{
	int next = v->speed_step + step;
	if (next < 0 || next >= KEYS_SPEED_STEPS)
		return 0; /* at the end of the steps: holding + does not wrap round to the slowest */
	v->speed_step = next;
	if (v->replay->set_speed)
		v->replay->set_speed(v->replay_ctx, speeds[next]);
	return KEYS_ACT_REDRAW;
}

static unsigned replay_seek(struct view_state *v, double delta)
{
	double pos = replay_position(v), dur = replay_duration(v), to = pos + delta;
	if (to > dur)
		to = dur;
	if (to < 0)
		to = 0;
	if (to == pos)
		return 0; /* at an end already */
	if (v->replay->seek)
		v->replay->seek(v->replay_ctx, to);
	return KEYS_ACT_REDRAW | KEYS_ACT_REFRESH;
}

/* [ and ]: the range end at the position; an end on the wrong side of the new one is dropped, so
 * the range is never empty or backwards. */
static unsigned replay_range(struct view_state *v, int key)
{
	if (key == '\\') {
		if (v->range_start < 0 && v->range_end < 0)
			return 0;
		v->range_start = v->range_end = TUI_RANGE_NONE;
	} else {
		double pos = replay_position(v);
		if (key == '[') {
			v->range_start = pos;
			if (v->range_end >= 0 && v->range_end <= pos)
				v->range_end = TUI_RANGE_NONE;
		} else {
			v->range_end = pos;
			if (v->range_start >= 0 && v->range_start >= pos)
				v->range_start = TUI_RANGE_NONE;
		}
	}
	if (v->replay->set_range)
		v->replay->set_range(v->replay_ctx, v->range_start, v->range_end);
	return KEYS_ACT_REDRAW | KEYS_ACT_REFRESH;
}

/* Keys of the replay, in every view; 0 when key is not one (or not a replay). */
static unsigned replay_key(struct view_state *v, int key, bool *handled)
{
	*handled = true;
	switch (key) {
	case ' ':
		v->paused = !v->paused;
		if (v->replay->set_paused)
			v->replay->set_paused(v->replay_ctx, v->paused);
		return KEYS_ACT_PAUSE | KEYS_ACT_REDRAW;
	case '+':
	case '=': /* + without shift on most layouts */
		return replay_speed(v, 1);
	case '-':
		return replay_speed(v, -1);
	case KEYS_RIGHT:
		return replay_seek(v, KEYS_SEEK_SECS);
	case KEYS_LEFT:
		return replay_seek(v, -KEYS_SEEK_SECS);
	case '[':
	case ']':
	case '\\':
		return replay_range(v, key);
	default:
		*handled = false;
		return 0;
	}
}

/* --- the i view --- */

static unsigned info_scroll(struct view_state *v, long delta, int visible_rows)
{
	size_t rows = visible_rows > 0 ? (size_t)visible_rows : 1;
	size_t max = v->info_count > rows ? v->info_count - rows : 0;
	long top = (long)(v->info_top > max ? max : v->info_top) + delta;
	size_t next = top < 0 ? 0 : (size_t)top > max ? max : (size_t)top;
	if (next == v->info_top)
		return 0;
	v->info_top = next;
	return KEYS_ACT_REDRAW;
}

/* Keys of the i view; *handled false for the ones it leaves to the common keys. q closes the view
 * rather than quitting, like a pager: it is the key people press to get out of a list. */
static unsigned info_key(struct view_state *v, int key, int visible_rows, bool *handled)
{
	long page = visible_rows > 1 ? visible_rows : 1;
	*handled = true;
	switch (key) {
	case 'q':
	case 'Q':
	case 'i':
	case 'I':
	case KEYS_ESC:
		v->view = VIEW_TOP;
		return KEYS_ACT_REDRAW;
	case KEYS_UP:
	case 'k':
		return info_scroll(v, -1, visible_rows);
	case KEYS_DOWN:
	case 'j':
		return info_scroll(v, 1, visible_rows);
	case KEYS_PGUP:
		return info_scroll(v, -page, visible_rows);
	case KEYS_PGDN:
		return info_scroll(v, page, visible_rows);
	case KEYS_HOME:
	case 'g':
		return info_scroll(v, -(long)v->info_count - 1, visible_rows);
	case KEYS_END:
	case 'G':
		return info_scroll(v, (long)v->info_count + 1, visible_rows);
	default:
		*handled = false;
		return 0;
	}
}

unsigned keys_handle(struct view_state *v, int key, const struct snapshot *s, int visible_rows)
{
	long page = visible_rows > 1 ? visible_rows : 1;
	bool handled;

	if (v->view == VIEW_INFO && !v->help) {
		unsigned act = info_key(v, key, visible_rows, &handled);
		if (handled)
			return act;
	}
	if (v->depth && !v->help && v->view != VIEW_INFO && key != KEYS_RESIZE && key != KEYS_CTRL_L) {
		struct view *top = view_top(v);
		unsigned act = top->ops->key(top, v, key, s, visible_rows, &handled);
		if (handled)
			return act;
		switch (key) {
		case KEYS_ESC:
		case KEYS_BACKSPACE:
			view_pop(v, s);
			return KEYS_ACT_REDRAW;
		default:
			break;
		}
	}
	if ((key == 'q' || key == 'Q') && v->depth) {
		v->help = false; /* q over the help of a drill-down view: back to the table too */
		view_pop_all(v);
		return KEYS_ACT_REDRAW;
	}
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
	if (v->replay) {
		unsigned act = replay_key(v, key, &handled);
		if (handled)
			return act;
	}
	switch (key) {
	case '?':
	case KEYS_F1:
		v->help = true;
		return KEYS_ACT_REDRAW;
	case 'i':
	case 'I':
		v->view = VIEW_INFO;
		v->info_top = 0;
		return KEYS_ACT_REDRAW;
	case 'z':
	case 'Z':
		v->zero = !v->zero;
		return KEYS_ACT_ZERO | KEYS_ACT_REDRAW;
	case 'm':
		v->raw_names = !v->raw_names;
		return KEYS_ACT_NAMES | KEYS_ACT_REDRAW;
	case ' ':
		v->paused = !v->paused;
		return KEYS_ACT_PAUSE | KEYS_ACT_REDRAW;
	default:
		break;
	}
	if (v->view != VIEW_TOP || v->depth)
		return 0;
	switch (key) {
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
	case KEYS_ENTER:
		return open_function(v, s);
	case 'f':
	case 'F':
		view_push(v, view_flame_new(NULL, NULL, NULL), s);
		return KEYS_ACT_REDRAW;
	default:
		return 0;
	}
}
