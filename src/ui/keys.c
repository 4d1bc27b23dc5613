/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * keys: the framework's keys and the order the key tables are tried in (keys.h). Pure functions of
 * the state and the displayed snapshot, so every key is unit-tested without a terminal.
 *
 * Replay keys are like mpv's: Space pause, + - speed, Left Right seek 10 s; [ ] set the range's
 * start and end at the current position and R clears it (a second [ moves the start rather than
 * clearing it, since moving is what one does while scrubbing; \ is htop's filter key). The view
 * keeps the speed, pause and range it asked for and calls the source's setter only on a change.
 *
 * Drill-down views (ui/view.h) sit on a stack above the table. The top one sees a key first; what
 * it leaves goes to the framework (Esc and Backspace pop it, q returns to the table: q only quits
 * from the table, so a user deep in a drill-down never loses the session by reflex), then to the
 * keys every view shares (help, pause, decay, names, replay), and the table's own keys only reach
 * the table.
 */
#include "ui/keys.h"

#include <stdlib.h>

#include "ui/render_table.h"
#include "ui/view.h"
#include "util/util.h"

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

void keys_follow(struct view_state *v, const struct snapshot *s, int visible_rows)
{
	/* The drill-down views rebuild from every new snapshot (only the top one: the others are
	 * rebuilt when uncovered). */
	struct view *top = view_top(v);
	if (top && s)
		top->ops->update(top, s);
	view_table_follow(v, s, visible_rows);
}

/* --- the keys every view shares --- */

/* q: back to the table from a drill-down view (over its help too), else quit. */
static unsigned quit(const struct keys_call *c)
{
	struct view_state *v = c->v;
	if (v->depth) {
		v->help = false;
		view_pop_all(v);
		return KEYS_ACT_REDRAW;
	}
	v->quit = true;
	return KEYS_ACT_QUIT;
}

static unsigned repaint(const struct keys_call *c)
{
	if (c->snap)
		c->v->top = render_scroll_top(c->v, c->snap->nrows, c->rows);
	return KEYS_ACT_REDRAW | KEYS_ACT_CLEAR;
}

static unsigned show_help(const struct keys_call *c)
{
	c->v->help = true;
	return KEYS_ACT_REDRAW;
}

static unsigned show_info(const struct keys_call *c)
{
	c->v->view = VIEW_INFO;
	c->v->info_top = 0;
	return KEYS_ACT_REDRAW;
}

static unsigned toggle_zero(const struct keys_call *c)
{
	c->v->zero = !c->v->zero;
	return KEYS_ACT_ZERO | KEYS_ACT_REDRAW;
}

static unsigned toggle_names(const struct keys_call *c)
{
	c->v->raw_names = !c->v->raw_names;
	return KEYS_ACT_NAMES | KEYS_ACT_REDRAW;
}

/* Space, live: the display stops, sampling goes on; replay: the replay itself stops. */
static unsigned pause(const struct keys_call *c)
{
	struct view_state *v = c->v;
	v->paused = !v->paused;
	if (v->replay && v->replay->set_paused)
		v->replay->set_paused(v->replay_ctx, v->paused);
	return KEYS_ACT_PAUSE | KEYS_ACT_REDRAW;
}

static double replay_position(const struct view_state *v)
{
	return v->replay->position ? v->replay->position(v->replay_ctx) : 0;
}

static double replay_duration(const struct view_state *v)
{
	return v->replay->duration ? v->replay->duration(v->replay_ctx) : 0;
}

/* + and - (arg: the step). */
static unsigned replay_speed(const struct keys_call *c)
{
	struct view_state *v = c->v;
	int next = v->speed_step + (int)c->arg;
	if (next < 0 || next >= KEYS_SPEED_STEPS)
		return 0; /* at the end of the steps: holding + does not wrap round to the slowest */
	v->speed_step = next;
	if (v->replay->set_speed)
		v->replay->set_speed(v->replay_ctx, speeds[next]);
	return KEYS_ACT_REDRAW;
}

/* Left and Right (arg: the direction). */
static unsigned replay_seek(const struct keys_call *c)
{
	struct view_state *v = c->v;
	double pos = replay_position(v), dur = replay_duration(v);
	double to = pos + (double)c->arg * KEYS_SEEK_SECS;
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
 * the range is never empty or backwards. R clears the range. */
static unsigned replay_range(const struct keys_call *c)
{
	struct view_state *v = c->v;
	if (c->key == 'R') {
		if (v->range_start < 0 && v->range_end < 0)
			return 0;
		v->range_start = v->range_end = TUI_RANGE_NONE;
	} else {
		double pos = replay_position(v);
		if (c->key == '[') {
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

/* Tab and Shift-Tab (arg: the direction): the next / previous event, round. */
static unsigned switch_event(const struct keys_call *c)
{
	struct view_state *v = c->v;
	if (v->nevents < 2)
		return 0;
	v->event = ((v->event + (int)c->arg) % v->nevents + v->nevents) % v->nevents;
	return KEYS_ACT_EVENT | KEYS_ACT_REDRAW;
}

/* One table for the table and the views: the flags say where the help lists a line (the table's
 * help has the replay's keys and i, a view's keeps to what it needs), and which keys act over the
 * help. Lines that differ between the two are two bindings of the same action. */
static const struct keys_binding common_bindings[] = {
	{ .key = { 'q', 'Q', KEYS_F10 }, .run = quit, .flags = KEYS_IN_VIEW | KEYS_OVER_HELP,
	  .keys = "q", .help = "back to the table" },
	{ .key = { 'z', 'Z' }, .run = toggle_zero, .keys = "z",
	  .help = "toggle decay / zero at each refresh" },
	{ .key = { 'm' }, .run = toggle_names, .keys = "m",
	  .help = "C++/Rust names: demangled / raw" },
	{ .key = { '\t' }, .run = switch_event, .arg = 1, .flags = KEYS_SEVERAL,
	  .keys = "Tab  Shift-Tab", .help = "next / previous event" },
	{ .key = { KEYS_BTAB }, .run = switch_event, .arg = -1 },
	{ .key = { ' ' }, .run = pause, .when = KEYS_LIVE, .keys = "Space",
	  .help = "pause the display (sampling goes on)" },
	{ .key = { ' ' }, .run = pause, .when = KEYS_REPLAY, .keys = "Space",
	  .help = "pause / resume the replay" },
	{ .key = { '+', '=' /* + without shift on most layouts */ }, .run = replay_speed, .arg = 1,
	  .when = KEYS_REPLAY, .flags = KEYS_IN_TABLE, .keys = "+ -",
	  .help = "replay faster / slower (0.25x .. 16x, max)" },
	{ .key = { '-' }, .run = replay_speed, .arg = -1, .when = KEYS_REPLAY },
	{ .key = { KEYS_LEFT }, .run = replay_seek, .arg = -1, .when = KEYS_REPLAY,
	  .flags = KEYS_IN_TABLE, .keys = "Left/Right", .help = "seek back / forward 10 s" },
	{ .key = { KEYS_RIGHT }, .run = replay_seek, .arg = 1, .when = KEYS_REPLAY },
	{ .key = { '[', ']' }, .run = replay_range, .when = KEYS_REPLAY, .flags = KEYS_IN_TABLE,
	  .keys = "[ ]", .help = "set the range start / end here (table = range)" },
	{ .key = { 'R' }, .run = replay_range, .when = KEYS_REPLAY, .flags = KEYS_IN_TABLE,
	  .keys = "R", .help = "clear the range" },
	{ .key = { 'i' }, .run = show_info, .when = KEYS_LIVE, .flags = KEYS_IN_TABLE,
	  .keys = "i", .help = "session information view" },
	{ .key = { 'i' }, .run = show_info, .when = KEYS_REPLAY, .flags = KEYS_IN_TABLE,
	  .keys = "i", .help = "recording header view (Esc, i, q close it)" },
	{ .key = { KEYS_CTRL_L, KEYS_RESIZE }, .run = repaint,
	  .flags = KEYS_IN_TABLE | KEYS_OVER_HELP, .keys = "Ctrl-L", .help = "repaint the screen" },
	{ .key = { '?', KEYS_F1 }, .run = show_help, .flags = KEYS_IN_VIEW, .keys = "?  F1",
	  .help = "show / hide this help" },
	{ .key = { '?', KEYS_F1 }, .run = show_help, .flags = KEYS_IN_TABLE, .keys = "?  F1",
	  .help = "show / hide this help (Esc closes it)", .bar = "Help" },
	{ .key = { 'q', 'Q', KEYS_F10 }, .run = quit, .flags = KEYS_IN_TABLE | KEYS_OVER_HELP,
	  .keys = "q  F10", .help = "quit", .bar = "Quit" },
};
static const struct keys_table common_keys = KEYS_TABLE(common_bindings);

/* --- going back from a drill-down view --- */

static unsigned back(const struct keys_call *c)
{
	view_pop(c->v, c->snap);
	return KEYS_ACT_REDRAW;
}

static const struct keys_binding back_bindings[] = {
	{ .key = { KEYS_ESC, KEYS_BACKSPACE }, .run = back, .keys = "Esc Backspace",
	  .help = "back to the previous view" },
};
static const struct keys_table back_keys = KEYS_TABLE(back_bindings);

/* --- the i page --- */

/* Up, Down, PgUp, PgDn, Home, End (keys_step). */
static unsigned info_scroll(const struct keys_call *c)
{
	struct view_state *v = c->v;
	size_t rows = c->rows > 0 ? (size_t)c->rows : 1;
	size_t max = v->info_count > rows ? v->info_count - rows : 0;
	long delta = keys_step(c->arg, c->rows > 1 ? c->rows : 1, (long)v->info_count + 1);
	long top = (long)(v->info_top > max ? max : v->info_top) + delta;
	size_t next = top < 0 ? 0 : (size_t)top > max ? max : (size_t)top;
	if (next == v->info_top)
		return 0;
	v->info_top = next;
	return KEYS_ACT_REDRAW;
}

/* q closes the page rather than quitting, like a pager: it is the key people press to get out of
 * a list. */
static unsigned info_close(const struct keys_call *c)
{
	c->v->view = VIEW_TOP;
	return KEYS_ACT_REDRAW;
}

/* Not in the help: the page's footer lists them. */
static const struct keys_binding info_bindings[] = {
	{ .key = { 'q', 'Q', 'i', 'I', KEYS_ESC }, .run = info_close },
	{ .key = { KEYS_UP, 'k' }, .run = info_scroll, .arg = -1 },
	{ .key = { KEYS_DOWN, 'j' }, .run = info_scroll, .arg = 1 },
	{ .key = { KEYS_PGUP }, .run = info_scroll, .arg = -KEYS_PAGE },
	{ .key = { KEYS_PGDN }, .run = info_scroll, .arg = KEYS_PAGE },
	{ .key = { KEYS_HOME, 'g' }, .run = info_scroll, .arg = -KEYS_ALL },
	{ .key = { KEYS_END, 'G' }, .run = info_scroll, .arg = KEYS_ALL },
};
static const struct keys_table info_keys = KEYS_TABLE(info_bindings);

/* --- dispatch, help, bar --- */

unsigned keys_handle(struct view_state *v, int key, const struct snapshot *s, int visible_rows)
{
	struct keys_call c = { .v = v, .snap = s, .rows = visible_rows, .key = key };
	bool replay = v->replay != NULL, handled;
	unsigned act;

	v->message[0] = '\0';
	if (v->input != KEYS_INPUT_NONE && v->view == VIEW_TOP && !v->depth) {
		act = view_table_input(v, key, s, visible_rows, &handled);
		if (handled)
			return act;
	}
	/* htop's quit key does what q does (back to the table first, closes the i page). */
	if (key == KEYS_F10)
		c.key = 'q';
	if (v->help) {
		act = keys_table_run(&common_keys, &c, replay, KEYS_OVER_HELP, &handled);
		if (handled)
			return act;
		/* The overlay swallows the next key (like htop's help screen). */
		v->help = false;
		return KEYS_ACT_REDRAW;
	}
	if (v->view == VIEW_INFO) {
		act = keys_table_run(&info_keys, &c, replay, 0, &handled);
	} else if (v->depth) {
		struct view *top = view_top(v);
		c.self = top;
		act = keys_table_run(top->ops->keys, &c, replay, 0, &handled);
		c.self = NULL;
		if (!handled)
			act = keys_table_run(&back_keys, &c, replay, 0, &handled);
	} else {
		handled = false;
	}
	if (!handled)
		act = keys_table_run(&common_keys, &c, replay, 0, &handled);
	if (!handled && v->view == VIEW_TOP && !v->depth)
		act = keys_table_run(view_table_keys(), &c, replay, 0, &handled);
	return handled ? act : 0;
}

size_t keys_help(const struct view *top, bool replay, bool several, const struct keys_binding **out,
		 size_t max)
{
	return keys_help_for(top, replay, several ? KEYS_SEVERAL : 0, out, max);
}

size_t keys_help_for(const struct view *top, bool replay, unsigned kind,
		     const struct keys_binding **out, size_t max)
{
	size_t n = 0;
	unsigned sev = kind & (KEYS_SEVERAL | KEYS_TIME);
	if (!top) {
		n = keys_table_help(view_table_keys(), replay, KEYS_IN_TABLE | sev, out, n, max);
		return keys_table_help(&common_keys, replay, KEYS_IN_TABLE | sev, out, n, max);
	}
	n = keys_table_help(top->ops->keys, replay, KEYS_IN_VIEW | sev, out, n, max);
	n = keys_table_help(&back_keys, replay, KEYS_IN_VIEW | sev, out, n, max);
	return keys_table_help(&common_keys, replay, KEYS_IN_VIEW | sev, out, n, max);
}

size_t keys_bar(struct keys_bar_item *out, size_t max)
{
	const struct keys_table *tables[] = { view_table_keys(), &common_keys };
	return keys_table_bar(tables, ARRAY_SIZE(tables), out, max);
}

int keys_bar_at(int x)
{
	struct keys_bar_item items[KEYS_BAR_MAX];
	size_t n = keys_bar(items, KEYS_BAR_MAX);
	return keys_bar_item_at(items, n, x);
}

const struct keys_table *keys_common_table(void)
{
	return &common_keys;
}

const struct keys_table *keys_back_table(void)
{
	return &back_keys;
}

const struct keys_table *keys_info_table(void)
{
	return &info_keys;
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
	return view_table_click(v, m, s, g);
}
