/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * keytab: key tables, the way htop keeps its keys as actions and tmux its key tables. A table is a
 * list of bindings; each says which keys run which action (with an argument), the line it has in
 * the ? help and its label on the function-key bar, so that dispatch, the help and the bar all read
 * the same entries and cannot disagree. Each view owns its table (struct view_ops.keys), the table
 * at the base of the stack its own (view_table.c), and keys.c the framework's (help, pause, quit,
 * replay, the i view) and the order tables are tried in.
 *
 * Nothing here knows a view or the view state: an action gets them in struct keys_call and
 * returns what the loop must redo.
 */
#ifndef PERFTOP_KEYTAB_H
#define PERFTOP_KEYTAB_H

#include <stdbool.h>
#include <stddef.h>

#include "ui/keycode.h"

struct view_state;
struct snapshot;

/* What the loop must do after a key (bit flags). */
enum keys_action {
	KEYS_ACT_REDRAW = 1 << 0, /* the frame changed */
	KEYS_ACT_RESORT = 1 << 1, /* order changed: re-sort the held snapshot, later refreshes use it */
	KEYS_ACT_ZERO = 1 << 2,   /* zero changed: pass it to the next refresh */
	KEYS_ACT_PAUSE = 1 << 3,  /* paused changed; on resume, refresh at once */
	KEYS_ACT_QUIT = 1 << 4,
	KEYS_ACT_CLEAR = 1 << 5,  /* repaint the whole terminal (Ctrl-L, resize) */
	KEYS_ACT_REFRESH = 1 << 6, /* replay seek or range: ask for a snapshot now, even paused */
	KEYS_ACT_NAMES = 1 << 7,   /* raw_names changed: rename the held snapshot's symbols */
	KEYS_ACT_FILTER = 1 << 8,  /* filter changed: filter the held snapshot again */
	KEYS_ACT_ZOOM = 1 << 9,    /* zoom changed: hand it to the source, then a snapshot now */
	KEYS_ACT_EVENT = 1 << 10,  /* event changed: the source's snapshot of that event */
	KEYS_ACT_EXPORT = 1 << 11, /* w: write the window to export_path (tui_source.export_window) */
	/* Only between an action and keys_table_run: the key is not the action's after all (a flame
	 * graph with nothing to move in), so the next table gets it. */
	KEYS_ACT_PASS = 1 << 15,
};

/* What an action is called with. */
struct keys_call {
	struct view_state *v;
	const struct snapshot *snap; /* the displayed snapshot (may be NULL) */
	int rows;                    /* the rows of the view's body: what a page is */
	int key;                     /* the key pressed */
	long arg;                    /* the binding's */
	void *self;                  /* the view whose table it is (NULL: the table's, keys.c's) */
};
typedef unsigned (*keys_fn)(const struct keys_call *c);

/* The sessions a binding is for. */
enum keys_when { KEYS_ANY, KEYS_LIVE, KEYS_REPLAY };

/* Binding flags. Where the help lists a binding of a table shared by the table and the views
 * (both when neither is set); whether it acts while the help is shown; whether the help lists it
 * only in a session of several events. */
#define KEYS_IN_TABLE 1u
#define KEYS_IN_VIEW 2u
#define KEYS_OVER_HELP 4u
#define KEYS_SEVERAL 8u
#define KEYS_TIME 16u /* the help lists it only in the time modes (--off-cpu, --wall) */

#define KEYS_BIND_MAX 6

struct keys_binding {
	int key[KEYS_BIND_MAX];  /* the keys that run it; 0 ends the list */
	keys_fn run;             /* NULL: a line of the help only (the mouse) */
	long arg;
	unsigned char when;      /* enum keys_when */
	unsigned char flags;     /* KEYS_IN_TABLE, KEYS_IN_VIEW, KEYS_OVER_HELP */
	/* Its line in the ? help: the keys as shown ("q  F10") and what they do; NULL: not listed
	 * (a binding whose line is the one above's: "Up/Down" lists Down with Up). */
	const char *keys, *help;
	const char *bar;         /* its label on the function-key bar (by its F key), or NULL */
};

struct keys_table {
	const struct keys_binding *b;
	size_t n;
};
#define KEYS_TABLE(bindings) { bindings, sizeof(bindings) / sizeof((bindings)[0]) }

/* Moves by a binding's arg: +-1 a row, +-KEYS_PAGE a page, +-KEYS_ALL to the first or last. */
#define KEYS_PAGE 0x10000L
#define KEYS_ALL 0x20000L
long keys_step(long arg, long page, long all);

/* Runs the first binding of t for c->key that is for this session (replay or live) and has every
 * flag of need, with c->arg its arg. *handled is false when there is none, or it passed. */
unsigned keys_table_run(const struct keys_table *t, struct keys_call *c, bool replay,
			unsigned need, bool *handled);

/* Appends t's help lines for this session and place (KEYS_IN_TABLE or KEYS_IN_VIEW, with
 * KEYS_SEVERAL in a session of several events, KEYS_TIME in a time mode) to out[n..max); returns
 * the new count. */
size_t keys_table_help(const struct keys_table *t, bool replay, unsigned where,
		       const struct keys_binding **out, size_t n, size_t max);

/* The function-key bar (htop's): the F key's name, the label, the key a click sends. */
struct keys_bar_item {
	char key[4];
	const char *label;
	int code;
};
#define KEYS_BAR_LABEL_WIDTH 6 /* labels are padded to this, as htop does, so the keys line up */
#define KEYS_BAR_MAX 10
/* The bar of these tables, in F key order (at most max items). */
size_t keys_table_bar(const struct keys_table *const *t, size_t nt, struct keys_bar_item *out,
		      size_t max);
/* The key of the bar item at column x, or KEYS_NONE. */
int keys_bar_item_at(const struct keys_bar_item *items, size_t n, int x);

#endif
