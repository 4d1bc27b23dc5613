/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_table: the table's keys, the base of the view stack. Its key table moves the cursor, orders
 * by a column, finds and filters, zooms, and opens the drill-down views on the row under the
 * cursor; keys.c tries it last, when no view is stacked on the table and the i page is not up.
 *
 * The cursor is held twice: as an index (what is drawn) and as the row's stable id (what the user
 * means). A new snapshot or a re-sort moves rows around; view_table_follow puts the index back on
 * the id.
 *
 * Find and filter are htop's: / and \ turn the bottom line into a text field that takes every key
 * until Enter or Esc (so q or n typed there are text); / moves the cursor to the first match as it
 * is typed, \ hides the rows that do not match (the loop filters the snapshot it holds when told
 * KEYS_ACT_FILTER). r, in the time modes, cycles what is shown of the run-queue waits (all, none,
 * only them); the loop applies it to the snapshot it holds like the filter, so it works paused and
 * takes no new aggregation (model/snapshot.h snapshot_runq). Zoom keys push levels onto v->zoom
 * and leave applying them to the source (KEYS_ACT_ZOOM), since a zoom changes which samples are
 * counted, not just which rows show.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "model/filter.h"
#include "ui/render_table.h"
#include "ui/view.h"

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
	v->top = render_scroll_top(v, s->nrows, visible_rows);
}

void view_table_follow(struct view_state *v, const struct snapshot *s, int visible_rows)
{
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

/* Up, Down, PgUp, PgDn, Home, End (keys_step). */
static unsigned move(const struct keys_call *c)
{
	struct view_state *v = c->v;
	const struct snapshot *s = c->snap;
	if (!s || s->nrows == 0)
		return 0;
	long idx = (long)v->cursor + keys_step(c->arg, c->rows > 1 ? c->rows : 1, (long)s->nrows);
	if (idx < 0)
		idx = 0;
	if (idx >= (long)s->nrows)
		idx = (long)s->nrows - 1;
	size_t old_cursor = v->cursor, old_top = v->top;
	v->cursor_chosen = true;
	cursor_set(v, s, (size_t)idx, c->rows);
	return v->cursor != old_cursor || v->top != old_top ? KEYS_ACT_REDRAW : 0;
}

/* Moves the order among the visible columns by arg; F6 (key) wraps, < > stop at the ends so that
 * holding a key does not spin. */
static unsigned order_move(const struct keys_call *c)
{
	struct view_state *v = c->v;
	bool wrap = c->key == KEYS_F6;
	enum snap_col cols[COL_COUNT];
	int n = render_visible_columns(c->snap, v->hidden_cols, cols), at = -1, step = (int)c->arg;
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

static unsigned invert(const struct keys_call *c)
{
	c->v->invert = !c->v->invert;
	return KEYS_ACT_RESORT | KEYS_ACT_REDRAW;
}

/* The row under the cursor, when it is a function's (a table without a sym key, -s comm, has
 * none to open). */
static const struct snap_row *cursor_function(const struct keys_call *c)
{
	const struct snapshot *s = c->snap;
	if (!s || c->v->cursor >= s->nrows || !s->rows[c->v->cursor].raw_sym)
		return NULL;
	return &s->rows[c->v->cursor];
}

/* Enter on a row: the function view of its function. */
static unsigned open_function(const struct keys_call *c)
{
	const struct snap_row *r = cursor_function(c);
	if (!r)
		return 0;
	view_push(c->v, view_func_new(r->raw_sym, r->dso, r->sym), c->snap);
	return KEYS_ACT_REDRAW;
}

/* a on a row: the annotate view of its function. */
static unsigned open_annotate(const struct keys_call *c)
{
	const struct snap_row *r = cursor_function(c);
	if (!r)
		return 0;
	view_push(c->v, view_annotate_new(r->raw_sym, r->dso, r->sym, c->v->annotate,
					  c->v->annotate_ctx), c->snap);
	return KEYS_ACT_REDRAW;
}

static unsigned open_flame(const struct keys_call *c)
{
	view_push(c->v, view_flame_new(NULL, NULL, NULL), c->snap);
	return KEYS_ACT_REDRAW;
}

static unsigned open_setup(const struct keys_call *c)
{
	view_push(c->v, view_setup_new(), c->snap);
	return KEYS_ACT_REDRAW;
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

static unsigned search_again(const struct keys_call *c)
{
	return search_next(c->v, c->snap, (int)c->arg, c->rows);
}

/* / and \ and w (arg: the mode). */
static unsigned input_start(const struct keys_call *c)
{
	struct view_state *v = c->v;
	v->input = (enum keys_input)c->arg;
	v->search_miss = false;
	v->search_from = v->cursor;
	if (v->input == KEYS_INPUT_EXPORT) {
		/* a default name that says when, in pprof's format: the one most tools read */
		time_t now = time(NULL);
		struct tm tm;
		char stamp[32] = "now";
		if (localtime_r(&now, &tm))
			strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		snprintf(v->input_text, sizeof(v->input_text), "perftop-%s.pb.gz", stamp);
		return KEYS_ACT_REDRAW;
	}
	/* \ edits the filter in force; / starts a new search, as htop's do. */
	snprintf(v->input_text, sizeof(v->input_text), "%s",
		 v->input == KEYS_INPUT_FILTER ? v->filter : "");
	return KEYS_ACT_REDRAW;
}

/* The text changed: a search moves to its first match from where it started, a filter applies. */
static unsigned input_changed(struct view_state *v, const struct snapshot *s, int visible_rows)
{
	if (v->input == KEYS_INPUT_EXPORT)
		return KEYS_ACT_REDRAW;
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

/* Enter keeps what is typed, Esc cancels a search (back where it started) or clears the filter. */
static unsigned input_end(struct view_state *v, int key, const struct snapshot *s, int visible_rows)
{
	bool filter = v->input == KEYS_INPUT_FILTER;
	if (v->input == KEYS_INPUT_EXPORT) {
		/* Enter writes (the loop asks the source), Esc leaves it */
		v->input = KEYS_INPUT_NONE;
		if (key != KEYS_ENTER || !v->input_text[0])
			return KEYS_ACT_REDRAW;
		snprintf(v->export_path, sizeof(v->export_path), "%s", v->input_text);
		return KEYS_ACT_EXPORT | KEYS_ACT_REDRAW;
	}
	if (key == KEYS_ENTER && !filter && v->input_text[0])
		snprintf(v->search, sizeof(v->search), "%s", v->input_text);
	v->input = KEYS_INPUT_NONE;
	if (key == KEYS_ENTER)
		return KEYS_ACT_REDRAW;
	if (filter) {
		v->filter[0] = '\0';
		return KEYS_ACT_FILTER | KEYS_ACT_REDRAW;
	}
	v->search_miss = false;
	cursor_set(v, s, v->search_from, visible_rows);
	return KEYS_ACT_REDRAW;
}

/* The text field is a mode rather than a table (like tmux's prompt): every character is text.
 * *handled false for the keys that end the typing and then do what they always do (arrows,
 * paging: the user moves on from the match). */
unsigned view_table_input(struct view_state *v, int key, const struct snapshot *s, int visible_rows,
			  bool *handled)
{
	size_t len = strlen(v->input_text);
	*handled = true;
	switch (key) {
	case KEYS_ENTER:
	case KEYS_ESC:
		return input_end(v, key, s, visible_rows);
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
	/* Anything else (arrows, F keys) ends the typing, keeping what it did, and acts as
	 * usual. */
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
static unsigned zoom_thread(const struct keys_call *c)
{
	struct view_state *v = c->v;
	const struct snapshot *s = c->snap;
	if (!v->can_zoom || !s || v->cursor >= s->nrows)
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

static unsigned zoom_dso(const struct keys_call *c)
{
	struct view_state *v = c->v;
	const struct snapshot *s = c->snap;
	if (!v->can_zoom || !s || v->cursor >= s->nrows || !s->rows[v->cursor].dso)
		return 0;
	const char *dso = s->rows[v->cursor].dso;
	/* Zoomed into it already: a second d would only stack a level that changes nothing. */
	for (int i = 0; i < v->zoom.n; i++)
		if (v->zoom.lv[i].kind == ZOOM_DSO && v->zoom.lv[i].name == dso)
			return 0;
	return zoom_push(&v->zoom, ZOOM_DSO, 0, dso, NULL) ? KEYS_ACT_ZOOM | KEYS_ACT_REDRAW : 0;
}

/* K and U (arg: the zoom kind) toggle; hiding one kind takes away hiding the other, which would
 * leave nothing. */
static unsigned zoom_hide(const struct keys_call *c)
{
	struct view_state *v = c->v;
	enum zoom_kind kind = (enum zoom_kind)c->arg;
	enum zoom_kind other = kind == ZOOM_HIDE_KERNEL ? ZOOM_HIDE_USER : ZOOM_HIDE_KERNEL;
	if (!v->can_zoom)
		return 0;
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

/* r: all -> run-queue waits hidden -> only them -> all. Only where there are waits to tell apart
 * (the time modes); the header says which is shown. */
static unsigned runq_cycle(const struct keys_call *c)
{
	if (!snapshot_is_time(c->snap))
		return 0;
	struct view_state *v = c->v;
	v->runq = v->runq == RUNQ_ALL ? RUNQ_HIDE : v->runq == RUNQ_HIDE ? RUNQ_ONLY : RUNQ_ALL;
	return KEYS_ACT_FILTER | KEYS_ACT_REDRAW;
}

/* Esc: the filter first (it is what is on screen), then one zoom level at a time. */
static unsigned unfilter(const struct keys_call *c)
{
	struct view_state *v = c->v;
	if (v->filter[0]) {
		v->filter[0] = '\0';
		return KEYS_ACT_FILTER | KEYS_ACT_REDRAW;
	}
	if (zoom_pop(&v->zoom))
		return KEYS_ACT_ZOOM | KEYS_ACT_REDRAW;
	return 0;
}

/* In the order of the ? help, which is dense, two keys a line where they go together: the list has
 * to fit a 24-line terminal. */
static const struct keys_binding table_bindings[] = {
	{ .key = { KEYS_UP, 'k' }, .run = move, .arg = -1, .keys = "Up/Down PgUp/PgDn",
	  .help = "move the cursor a row / a page (also j k)" },
	{ .key = { KEYS_DOWN, 'j' }, .run = move, .arg = 1 },
	{ .key = { KEYS_PGUP }, .run = move, .arg = -KEYS_PAGE },
	{ .key = { KEYS_PGDN }, .run = move, .arg = KEYS_PAGE },
	{ .key = { KEYS_HOME, 'g' }, .run = move, .arg = -KEYS_ALL, .keys = "Home/End g/G",
	  .help = "first / last row" },
	{ .key = { KEYS_END, 'G' }, .run = move, .arg = KEYS_ALL },
	{ .key = { '<', ',' }, .run = order_move, .arg = -1, .keys = "< >  F6  I",
	  .help = "order by the column left / right, next; invert" },
	{ .key = { '>', '.' }, .run = order_move, .arg = 1 },
	{ .key = { KEYS_F6 }, .run = order_move, .arg = 1, .bar = "SortBy" },
	{ .key = { 'I' }, .run = invert },
	{ .key = { '/', KEYS_F3 }, .run = input_start, .arg = KEYS_INPUT_SEARCH,
	  .keys = "/  F3  n N", .help = "search (Enter ends, Esc cancels); next / previous",
	  .bar = "Search" },
	{ .key = { 'n' }, .run = search_again, .arg = 1 },
	{ .key = { 'N' }, .run = search_again, .arg = -1 },
	{ .key = { '\\', KEYS_F4 }, .run = input_start, .arg = KEYS_INPUT_FILTER, .keys = "\\  F4",
	  .help = "filter by symbol, dso, command (a|b: either)", .bar = "Filter" },
	{ .key = { 'w' }, .run = input_start, .arg = KEYS_INPUT_EXPORT, .keys = "w",
	  .help = "write the window (filter, zoom) to a file: .pb.gz .speedscope.json .folded" },
	{ .key = { 't' }, .run = zoom_thread, .keys = "t  d",
	  .help = "zoom into the row's process (thread) / dso" },
	{ .key = { 'd' }, .run = zoom_dso },
	{ .key = { 'K' }, .run = zoom_hide, .arg = ZOOM_HIDE_KERNEL, .keys = "K  U",
	  .help = "hide kernel / user frames (again: show)" },
	{ .key = { 'U' }, .run = zoom_hide, .arg = ZOOM_HIDE_USER },
	{ .key = { 'r' }, .run = runq_cycle, .flags = KEYS_TIME, .keys = "r",
	  .help = "run-queue waits (R, R+): shown / hidden / only" },
	{ .key = { KEYS_ESC }, .run = unfilter, .keys = "Esc",
	  .help = "clear the filter, else undo the last zoom" },
	{ .key = { KEYS_F2 }, .run = open_setup, .keys = "F2", .help = "setup: show / hide columns",
	  .bar = "Setup" },
	{ .key = { KEYS_ENTER }, .run = open_function, .keys = "Enter",
	  .help = "callers and callees of the function" },
	{ .key = { 'a', 'A' }, .run = open_annotate, .keys = "a",
	  .help = "annotate: source and asm" },
	{ .key = { 'f', 'F', KEYS_F5 }, .run = open_flame, .keys = "f  F5",
	  .help = "flame graph of the window", .bar = "Flame" },
	{ .keys = "mouse", .help = "click: select, order; wheel: scroll; double: open" },
};
static const struct keys_table table_keys = KEYS_TABLE(table_bindings);

const struct keys_table *view_table_keys(void)
{
	return &table_keys;
}

/* --- mouse --- */

unsigned view_table_click(struct view_state *v, const struct keys_mouse *m,
			  const struct snapshot *s, const struct keys_geom *g)
{
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
	size_t idx = render_scroll_top(v, s->nrows, g->rows) + (size_t)row;
	if (idx >= s->nrows)
		return 0;
	v->cursor_chosen = true;
	cursor_set(v, s, idx, g->rows);
	if (m->kind == KEYS_MOUSE_DOUBLE)
		return open_function(&(struct keys_call){ .v = v, .snap = s, .rows = g->rows }) |
		       KEYS_ACT_REDRAW;
	return KEYS_ACT_REDRAW;
}
