/*
 * keys: key -> action on the view state -> what the loop must redo. Pure functions of the state and
 * the displayed snapshot, so every key is unit-tested without a terminal.
 *
 * The cursor is held twice: as an index (what is drawn) and as the row's stable id (what the user
 * means). A new snapshot or a re-sort moves rows around; keys_follow puts the index back on the id.
 *
 * Replay keys are like mpv's: Space pause, + - speed, Left Right seek 10 s; [ ] set the range's
 * start and end at the current position and R clears it (a second [ moves the start rather than
 * clearing it, since moving is what one does while scrubbing; \ is htop's filter key). The view keeps the speed, pause and
 * range it asked for and calls the source's setter only on a change.
 *
 * Drill-down views (ui/view.h) sit on a stack above the table. The top one sees a key first; what
 * it leaves goes to the framework (Esc and Backspace pop it, q returns to the table: q only quits
 * from the table, so a user deep in a drill-down never loses the session by reflex), then to the
 * keys every view shares (help, pause, decay, names, replay), and the table's own keys only reach
 * the table.
 *
 * Find and filter are htop's: / and \ turn the bottom line into a text field that takes every key
 * until Enter or Esc (so q or n typed there are text); / moves the cursor to the first match as it
 * is typed, \ hides the rows that do not match (the loop filters the snapshot it holds when told
 * KEYS_ACT_FILTER). Zoom keys push levels onto v->zoom and leave applying them to the source
 * (KEYS_ACT_ZOOM), since a zoom changes which samples are counted, not just which rows show.
 */
#include "ui/keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/filter.h"
#include "ui/render.h"
#include "util/util.h"

static const struct keys_help help_list[] = {
	/* Dense, two keys a line where they go together: the list has to fit a 24-line terminal. */
	{ "Up/Down PgUp/PgDn", "move the cursor a row / a page (also j k)", KEYS_HELP_ALL },
	{ "Home/End g/G", "first / last row", KEYS_HELP_ALL },
	{ "< >  F6  I", "order by the column left / right, next; invert", KEYS_HELP_ALL },
	{ "/  F3  n N", "search (Enter ends, Esc cancels); next / previous", KEYS_HELP_ALL },
	{ "\\  F4", "filter by symbol, dso, command (a|b: either)", KEYS_HELP_ALL },
	{ "t  d", "zoom into the row's process (thread) / dso", KEYS_HELP_ALL },
	{ "K  U", "hide kernel / user frames (again: show)", KEYS_HELP_ALL },
	{ "Esc", "clear the filter, else undo the last zoom", KEYS_HELP_ALL },
	{ "F2", "setup: show / hide columns", KEYS_HELP_ALL },
	{ "Enter", "callers and callees of the function", KEYS_HELP_ALL },
	{ "a", "annotate: source and asm", KEYS_HELP_ALL },
	{ "f  F5", "flame graph of the window", KEYS_HELP_ALL },
	{ "mouse", "click: select, order; wheel: scroll; double: open", KEYS_HELP_ALL },
	{ "z", "toggle decay / zero at each refresh", KEYS_HELP_ALL },
	{ "m", "C++/Rust names: demangled / raw", KEYS_HELP_ALL },
	{ "Space", "pause the display (sampling goes on)", KEYS_HELP_LIVE },
	{ "Space", "pause / resume the replay", KEYS_HELP_REPLAY },
	{ "+ -", "replay faster / slower (0.25x .. 16x, max)", KEYS_HELP_REPLAY },
	{ "Left/Right", "seek back / forward 10 s", KEYS_HELP_REPLAY },
	{ "[ ]", "set the range start / end here (table = range)", KEYS_HELP_REPLAY },
	{ "R", "clear the range", KEYS_HELP_REPLAY },
	{ "i", "session information view", KEYS_HELP_LIVE },
	{ "i", "recording header view (Esc, i, q close it)", KEYS_HELP_REPLAY },
	{ "Ctrl-L", "repaint the screen", KEYS_HELP_ALL },
	{ "?  F1", "show / hide this help (Esc closes it)", KEYS_HELP_ALL },
	{ "q  F10", "quit", KEYS_HELP_ALL },
};

/* The same bar live and in replay: the keys are the same. */
static const struct keys_bar_item bar_items[] = {
	{ "F1", "Help", KEYS_F1 },     { "F2", "Setup", KEYS_F2 },   { "F3", "Search", KEYS_F3 },
	{ "F4", "Filter", KEYS_F4 },   { "F5", "Flame", KEYS_F5 },   { "F6", "SortBy", KEYS_F6 },
	{ "F10", "Quit", KEYS_F10 },
};

const struct keys_bar_item *keys_bar(size_t *n)
{
	*n = ARRAY_SIZE(bar_items);
	return bar_items;
}

int keys_bar_at(int x)
{
	int at = 0;
	for (size_t i = 0; i < ARRAY_SIZE(bar_items); i++) {
		int w = (int)strlen(bar_items[i].key) + KEYS_BAR_LABEL_WIDTH;
		if (x >= at && x < at + w)
			return bar_items[i].code;
		at += w;
	}
	return KEYS_NONE;
}

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
	int n = render_visible_columns(s, v->hidden_cols, cols), at = -1;
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

/* a on a row: the annotate view of its function. */
static unsigned open_annotate(struct view_state *v, const struct snapshot *s)
{
	if (!s || v->cursor >= s->nrows || !s->rows[v->cursor].raw_sym)
		return 0;
	const struct snap_row *r = &s->rows[v->cursor];
	view_push(v, view_annotate_new(r->raw_sym, r->dso, r->sym, v->annotate, v->annotate_ctx), s);
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
	if (key == 'R') {
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
	case 'R':
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

/* --- find and filter --- */

/* The index of the first row matching q from index from on, forward or backward, wrapping; -1 when
 * none does. */
static long find_row(const struct snapshot *s, const char *q, size_t from, int dir)
{
	if (!s || s->nrows == 0 || !*q)
		return -1;
	size_t n = s->nrows;
	for (size_t k = 0; k < n; k++) {
		size_t i = dir > 0 ? (from + k) % n : (from + n - k % n) % n;
		if (filter_row_matches(&s->rows[i], q))
			return (long)i;
	}
	return -1;
}

/* Puts the cursor on the next (dir 1) or previous (dir -1) match of the last search, starting past
 * the cursor. */
static unsigned search_next(struct view_state *v, const struct snapshot *s, int dir,
			    int visible_rows)
{
	if (!s || s->nrows == 0 || !v->search[0])
		return 0;
	size_t from = dir > 0 ? (v->cursor + 1) % s->nrows : (v->cursor + s->nrows - 1) % s->nrows;
	long at = find_row(s, v->search, from, dir);
	v->search_miss = at < 0;
	if (at < 0)
		return KEYS_ACT_REDRAW;
	v->cursor_chosen = true;
	cursor_set(v, s, (size_t)at, visible_rows);
	return KEYS_ACT_REDRAW;
}

static void input_start(struct view_state *v, enum keys_input mode)
{
	v->input = mode;
	v->search_miss = false;
	v->search_from = v->cursor;
	/* \ edits the filter in force; / starts a new search, as htop's do. */
	snprintf(v->input_text, sizeof(v->input_text), "%s", mode == KEYS_INPUT_FILTER ? v->filter : "");
}

/* The text changed: a search moves to its first match from where it started, a filter applies. */
static unsigned input_changed(struct view_state *v, const struct snapshot *s, int visible_rows)
{
	if (v->input == KEYS_INPUT_FILTER) {
		snprintf(v->filter, sizeof(v->filter), "%s", v->input_text);
		return KEYS_ACT_FILTER | KEYS_ACT_REDRAW;
	}
	long at = find_row(s, v->input_text, v->search_from, 1);
	v->search_miss = v->input_text[0] && at < 0;
	if (at >= 0) {
		v->cursor_chosen = true;
		cursor_set(v, s, (size_t)at, visible_rows);
	}
	return KEYS_ACT_REDRAW;
}

/* A key while the bottom line is a text field. *handled false for the keys that end the typing and
 * then do what they always do (arrows, paging: the user moves on from the match). */
static unsigned input_key(struct view_state *v, int key, const struct snapshot *s, int visible_rows,
			  bool *handled)
{
	size_t len = strlen(v->input_text);
	*handled = true;
	switch (key) {
	case KEYS_ENTER:
		if (v->input == KEYS_INPUT_SEARCH && v->input_text[0])
			snprintf(v->search, sizeof(v->search), "%s", v->input_text);
		v->input = KEYS_INPUT_NONE;
		return KEYS_ACT_REDRAW;
	case KEYS_ESC:
		if (v->input == KEYS_INPUT_FILTER) {
			v->input = KEYS_INPUT_NONE;
			v->filter[0] = '\0';
			return KEYS_ACT_FILTER | KEYS_ACT_REDRAW;
		}
		/* Cancelled: back where the search started. */
		v->input = KEYS_INPUT_NONE;
		v->search_miss = false;
		cursor_set(v, s, v->search_from, visible_rows);
		return KEYS_ACT_REDRAW;
	case KEYS_BACKSPACE:
		/* One character, not one byte: UTF-8 continuation bytes go with their lead. */
		while (len && ((unsigned char)v->input_text[len - 1] & 0xc0) == 0x80)
			len--;
		if (len)
			len--;
		v->input_text[len] = '\0';
		return input_changed(v, s, visible_rows);
	case KEYS_F3:
		if (v->input == KEYS_INPUT_SEARCH) {
			snprintf(v->search, sizeof(v->search), "%s", v->input_text);
			return search_next(v, s, 1, visible_rows);
		}
		return 0;
	case KEYS_RESIZE:
	case KEYS_CTRL_L:
		*handled = false;
		return 0;
	default:
		break;
	}
	if (key >= 0x20 && key < 0x100 && key != 0x7f) {
		if (len + 1 < sizeof(v->input_text)) {
			v->input_text[len] = (char)key;
			v->input_text[len + 1] = '\0';
		}
		return input_changed(v, s, visible_rows);
	}
	/* Anything else (arrows, F keys) ends the typing, keeping what it did, and acts as usual. */
	if (v->input == KEYS_INPUT_SEARCH && v->input_text[0])
		snprintf(v->search, sizeof(v->search), "%s", v->input_text);
	v->input = KEYS_INPUT_NONE;
	*handled = false;
	return 0;
}

/* --- zoom --- */

static bool snap_key(const struct snapshot *s, enum sort_key k)
{
	for (int i = 0; i < s->nkeys; i++)
		if (s->keys[i] == k)
			return true;
	return false;
}

/* t: the row's thread when tid is a key, its process when pid is, its command when comm is; else
 * the process that contributed most of the row's samples (a dso,sym row has no single thread, and
 * the process behind a hot function is what one means by "its"). */
static unsigned zoom_thread(struct view_state *v, const struct snapshot *s)
{
	if (!s || v->cursor >= s->nrows)
		return 0;
	const struct snap_row *r = &s->rows[v->cursor];
	bool ok;
	if (snap_key(s, SORT_TID))
		ok = zoom_push(&v->zoom, ZOOM_TID, r->tid, NULL, r->comm ? r->comm : r->main_comm);
	else if (snap_key(s, SORT_PID))
		ok = zoom_push(&v->zoom, ZOOM_PID, r->pid, NULL, r->comm ? r->comm : r->main_comm);
	else if (snap_key(s, SORT_COMM) && r->comm)
		ok = zoom_push(&v->zoom, ZOOM_COMM, 0, r->comm, NULL);
	else if (r->main_pid)
		ok = zoom_push(&v->zoom, ZOOM_PID, r->main_pid, NULL, r->main_comm);
	else
		return 0;
	return ok ? KEYS_ACT_ZOOM | KEYS_ACT_REDRAW : 0;
}

static unsigned zoom_dso(struct view_state *v, const struct snapshot *s)
{
	if (!s || v->cursor >= s->nrows || !s->rows[v->cursor].dso)
		return 0;
	const char *dso = s->rows[v->cursor].dso;
	/* Zoomed into it already: a second d would only stack a level that changes nothing. */
	for (int i = 0; i < v->zoom.n; i++)
		if (v->zoom.lv[i].kind == ZOOM_DSO && v->zoom.lv[i].name == dso)
			return 0;
	return zoom_push(&v->zoom, ZOOM_DSO, 0, dso, NULL) ? KEYS_ACT_ZOOM | KEYS_ACT_REDRAW : 0;
}

/* K and U toggle; hiding one kind takes away hiding the other, which would leave nothing. */
static unsigned zoom_hide(struct view_state *v, enum zoom_kind kind)
{
	enum zoom_kind other = kind == ZOOM_HIDE_KERNEL ? ZOOM_HIDE_USER : ZOOM_HIDE_KERNEL;
	int at = zoom_find(&v->zoom, kind);
	if (at >= 0) {
		zoom_remove(&v->zoom, at);
	} else {
		zoom_remove(&v->zoom, zoom_find(&v->zoom, other));
		if (!zoom_push(&v->zoom, kind, 0, NULL, NULL))
			return 0;
	}
	return KEYS_ACT_ZOOM | KEYS_ACT_REDRAW;
}

/* --- mouse --- */

unsigned keys_mouse(struct view_state *v, const struct keys_mouse *m, const struct snapshot *s,
		    const struct keys_geom *g)
{
	if (m->kind == KEYS_MOUSE_WHEEL_UP || m->kind == KEYS_MOUSE_WHEEL_DOWN) {
		/* Three rows a notch, like most terminals' scrollback; through the keys, so a drill-down
		 * view scrolls its own way. */
		int key = m->kind == KEYS_MOUSE_WHEEL_UP ? KEYS_UP : KEYS_DOWN;
		unsigned act = 0;
		for (int i = 0; i < 3; i++)
			act |= keys_handle(v, key, s, g->rows);
		return act;
	}
	if (m->y == g->bar_y && !v->depth && v->view == VIEW_TOP && v->input == KEYS_INPUT_NONE) {
		int key = keys_bar_at(m->x);
		return key == KEYS_NONE ? 0 : keys_handle(v, key, s, g->rows);
	}
	if (v->depth || v->view != VIEW_TOP || v->help || v->input != KEYS_INPUT_NONE)
		return 0;
	if (m->y == g->title_y) {
		enum snap_col c = render_column_at(s, v, g->width, g->rows, m->x);
		if (c == COL_COUNT)
			return 0;
		/* htop: a click on the ordered column flips it. */
		if (c == v->order)
			v->invert = !v->invert;
		else
			v->order = c;
		return KEYS_ACT_RESORT | KEYS_ACT_REDRAW;
	}
	long row = (long)m->y - g->title_y - 1;
	if (!s || row < 0 || row >= g->rows)
		return 0;
	size_t idx = keys_scroll_top(v, s->nrows, g->rows) + (size_t)row;
	if (idx >= s->nrows)
		return 0;
	v->cursor_chosen = true;
	cursor_set(v, s, idx, g->rows);
	if (m->kind == KEYS_MOUSE_DOUBLE)
		return open_function(v, s) | KEYS_ACT_REDRAW;
	return KEYS_ACT_REDRAW;
}

unsigned keys_handle(struct view_state *v, int key, const struct snapshot *s, int visible_rows)
{
	long page = visible_rows > 1 ? visible_rows : 1;
	bool handled;

	if (v->input != KEYS_INPUT_NONE && v->view == VIEW_TOP && !v->depth) {
		unsigned act = input_key(v, key, s, visible_rows, &handled);
		if (handled)
			return act;
	}
	if (key == KEYS_F10)
		key = 'q'; /* htop's quit key; q's rules (back to the table first) */
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
	case 'I':
		v->invert = !v->invert;
		return KEYS_ACT_RESORT | KEYS_ACT_REDRAW;
	case KEYS_ENTER:
		return open_function(v, s);
	case 'a':
	case 'A':
		return open_annotate(v, s);
	case 'f':
	case 'F':
	case KEYS_F5:
		view_push(v, view_flame_new(NULL, NULL, NULL), s);
		return KEYS_ACT_REDRAW;
	case KEYS_F2:
		view_push(v, view_setup_new(), s);
		return KEYS_ACT_REDRAW;
	case '/':
	case KEYS_F3:
		input_start(v, KEYS_INPUT_SEARCH);
		return KEYS_ACT_REDRAW;
	case '\\':
	case KEYS_F4:
		input_start(v, KEYS_INPUT_FILTER);
		return KEYS_ACT_REDRAW;
	case 'n':
		return search_next(v, s, 1, visible_rows);
	case 'N':
		return search_next(v, s, -1, visible_rows);
	case 't':
		return v->can_zoom ? zoom_thread(v, s) : 0;
	case 'd':
		return v->can_zoom ? zoom_dso(v, s) : 0;
	case 'K':
		return v->can_zoom ? zoom_hide(v, ZOOM_HIDE_KERNEL) : 0;
	case 'U':
		return v->can_zoom ? zoom_hide(v, ZOOM_HIDE_USER) : 0;
	case KEYS_ESC:
		/* The filter first (it is what is on screen), then one zoom level at a time. */
		if (v->filter[0]) {
			v->filter[0] = '\0';
			return KEYS_ACT_FILTER | KEYS_ACT_REDRAW;
		}
		if (zoom_pop(&v->zoom))
			return KEYS_ACT_ZOOM | KEYS_ACT_REDRAW;
		return 0;
	default:
		return 0;
	}
}
