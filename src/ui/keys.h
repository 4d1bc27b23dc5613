/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * keys: what a key does to the view, without a terminal. term.c turns the terminal's key codes
 * into keys_code values (ui/keycode.h); keys_handle finds the key's binding in the key tables
 * (ui/keytab.h) in the order below, runs its action on the view state (ui/state.h) and says what
 * the loop must do about it (redraw, re-sort the snapshot it holds, switch decay/zero, quit), like
 * htop's actions.
 *
 * The order: the text field of / and \ while it is open (it takes every key it can use); over the
 * help overlay only the framework's keys that act there (q, Ctrl-L), any other closing it; on the i
 * page its own keys; on a drill-down view (ui/view.h) the view's table, then the keys that go back
 * (Esc, Backspace); then the keys every view shares (help, pause, decay/zero, names, quit, the
 * replay's); and last the table's own (view_table.c), only when the table is up.
 *
 * Replay keys call the source's tui_replay setters directly (v->replay, NULL when live), so a test
 * drives them with a fake replay that records the calls.
 */
#ifndef PERFTOP_KEYS_H
#define PERFTOP_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snapshot.h"
#include "ui/keycode.h"
#include "ui/keytab.h"
#include "ui/state.h"

struct view;

/* The replay speeds + and - step through; the last is TUI_SPEED_MAX. */
#define KEYS_SPEED_STEPS 8
#define KEYS_SPEED_DEFAULT 2 /* 1x */
#define KEYS_SEEK_SECS 10.0

/* Defaults: top view, ordered by Self, decay, colour unless NO_COLOR is set and not empty. */
void keys_state_init(struct view_state *v);
/* Frees the views on the stack. */
void keys_state_done(struct view_state *v);

/* Applies one key. s is the displayed snapshot (may be NULL), visible_rows the rows of the current
 * view that fit (render_body_rows). Returns keys_action flags (0: nothing to do). */
unsigned keys_handle(struct view_state *v, int key, const struct snapshot *s, int visible_rows);

/* A mouse event on a frame with this geometry (keys_geom): click selects a row, double-click opens
 * its function view, the wheel moves the cursor, a click on a column title orders by it (again:
 * inverts), a click on the key bar presses that key. Returns keys_action flags. */
unsigned keys_mouse(struct view_state *v, const struct keys_mouse *m, const struct snapshot *s,
		    const struct keys_geom *g);

/* After a new or re-sorted snapshot: puts the cursor back on the row with the same id, or keeps
 * its index (clamped) when that row is gone, and keeps it within the scrolled window; the top
 * drill-down view rebuilds from s. */
void keys_follow(struct view_state *v, const struct snapshot *s, int visible_rows);

/* The speed of a step (TUI_SPEED_MAX for the last) and its label ("0.25x", "1x", "max"). */
double keys_speed(int step);
const char *keys_speed_label(int step);

/* The ? help of the view top (NULL: the table, and its i page) in this kind of session (a replay;
 * several events): the view's own keys, then those it shares. Returns the count (at most max). */
size_t keys_help(const struct view *top, bool replay, bool several, const struct keys_binding **out,
		 size_t max);
/* The same with the session's kind as flags: KEYS_SEVERAL, KEYS_TIME (ui/keytab.h). */
size_t keys_help_for(const struct view *top, bool replay, unsigned kind,
		     const struct keys_binding **out, size_t max);

/* The framework's own key tables, those keys_handle tries besides the views' (for perftop_docgen's
 * list of every key): the keys every view shares, the keys that go back from a drill-down view, and
 * the i page's. */
const struct keys_table *keys_common_table(void);
const struct keys_table *keys_back_table(void);
const struct keys_table *keys_info_table(void);

/* The function-key bar along the bottom of the table (the same live and in replay: so are the
 * keys), and the key of the item at column x (KEYS_NONE). */
size_t keys_bar(struct keys_bar_item *out, size_t max);
int keys_bar_at(int x);

#endif
