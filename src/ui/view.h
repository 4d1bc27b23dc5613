/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view: the stack of drill-down views above the table, and the interface each of them implements.
 *
 * The table is the base of the stack (its keys in view_table.c, its columns and rows in
 * render_table.c, its i page in keys.c and render.c); every view opened from it (Enter: the
 * function view, f: the flame graph, a: annotate, F2: setup ...) is a struct view pushed onto
 * view_state.stack. The top view gets the keys first and draws the body of the frame (between the
 * shared header lines and the footer); what its key table does not take falls through to the
 * framework's (keys.c): Esc and Backspace pop one view, then the keys every view shares (help,
 * pause, decay/zero, names, replay controls; q goes back to the table).
 *
 * To add a view: one file src/ui/view_NAME.c with a constructor returning a struct view whose ops
 * fill in the table below (see view_func.c), its key table (ui/keytab.h: keys, actions, help
 * lines) in ops.keys, and a binding in another view's table whose action calls view_push. A view
 * keeps whatever it derives from the snapshot (call-tree query results, ...) and rebuilds it in
 * update(), which runs when it is pushed, on every new snapshot while it is on top, and when it is
 * uncovered by a pop; its cursor and expansion state are kept as the model's stable ids, so they
 * survive the rebuild.
 */
#ifndef PERFTOP_VIEW_H
#define PERFTOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "model/snapshot.h"
#include "ui/keycode.h"
#include "ui/keytab.h"
#include "ui/state.h"
#include "ui/surface.h"

struct view;

struct view_ops {
	const char *name;   /* "function", "flame" */
	/* Rebuild from snap (NULL, or without a call tree, when there is none). */
	void (*update)(struct view *vw, const struct snapshot *snap);
	/* Draw rows [y, y + rows) of s. v is the whole state (the breadcrumb walks v->stack). */
	void (*render)(struct view *vw, struct surface *s, int y, int rows,
		       const struct snapshot *snap, const struct view_state *v);
	/* Its keys (struct keys_call.self is the view; rows the body height). Listed in the ?
	 * overlay above the keys every view shares. An action may push another view (view_push). */
	const struct keys_table *keys;
	void (*free)(struct view *vw);
	/* The names were compacted (util/frame.h): re-point the names the view keeps (the function
	 * it is about) through rename. NULL: it keeps none. */
	void (*move_names)(struct view *vw, frame_rename_fn rename, void *ctx);
	/* The footer's key hints. */
	const char *hints;
};

struct view {
	const struct view_ops *ops;
	char label[96];     /* this view's crumb in the breadcrumb ("leaf_a", "flame: all") */
};

/* Pushes vw (taking ownership) and updates it from snap. A full stack drops its oldest view. */
void view_push(struct view_state *v, struct view *vw, const struct snapshot *snap);
/* Pops the top view (freed) and updates the one uncovered; false when the table is on top. */
bool view_pop(struct view_state *v, const struct snapshot *snap);
/* Back to the table. */
void view_pop_all(struct view_state *v);
/* The names were compacted: every view of the stack and the zoom re-point theirs (a new snapshot
 * of another names generation is about to replace the one they came from). */
void view_move_names(struct view_state *v, frame_rename_fn rename, void *ctx);
/* The top view, or NULL when the table is on top. */
struct view *view_top(const struct view_state *v);

/* "table › mid › leaf_a": the labels of the stack, cut from the left to fit width columns. */
void view_breadcrumb(const struct view_state *v, char *buf, size_t len, int width);

/* Views of the drill-down (each in its own file). */
struct view *view_func_new(const char *raw_sym, const char *dso, const char *shown);
/* raw_sym NULL: the whole window. */
struct view *view_flame_new(const char *raw_sym, const char *dso, const char *shown);
/* F2: the table's columns, shown or hidden (view_state.hidden_cols). */
struct view *view_setup_new(void);

/* The annotate view (a), its document from fetch (ui/state.h). */
struct view *view_annotate_new(const char *raw_sym, const char *dso, const char *shown,
			       view_annotate_fn fetch, void *ctx);

/* The table at the base of the stack (view_table.c): its key table; its text field (/ and \ open
 * it), which takes the keys it can use while it is open (*handled false for the others); its
 * cursor following a new snapshot; and a click on it (a column title, a row). */
const struct keys_table *view_table_keys(void);
unsigned view_table_input(struct view_state *v, int key, const struct snapshot *s, int rows,
			  bool *handled);
void view_table_follow(struct view_state *v, const struct snapshot *s, int rows);
unsigned view_table_click(struct view_state *v, const struct keys_mouse *m,
			  const struct snapshot *s, const struct keys_geom *g);

/* Shared by the views: the percentage text and the shown name of a call-tree node. */
void view_pct(char *buf, size_t len, uint64_t part, uint64_t whole);

#endif
