/*
 * view: the stack of drill-down views above the table, and the interface each of them implements.
 *
 * The table (with its i page) is the base of the stack and lives in keys.c / render.c; every view
 * opened from it (Enter: the function view, f: the flame graph, later annotate, diff ...) is a
 * struct view pushed onto view_state.stack. The top view gets the keys first and draws the body of
 * the frame (between the shared header lines and the footer); what it does not handle falls through
 * to the keys every view shares (help, pause, decay/zero, names, replay controls), and then the
 * framework's own: Esc and Backspace pop one view, q goes back to the table.
 *
 * To add a view: one file src/ui/view_NAME.c with a constructor returning a struct view whose ops
 * fill in the table below (see view_func.c), a key in the table (or another view) that calls
 * view_push, and its keys in its help list so that ? shows them. A view keeps whatever it derives
 * from the snapshot (call-tree query results, ...) and rebuilds it in update(), which runs when it
 * is pushed, on every new snapshot while it is on top, and when it is uncovered by a pop; its
 * cursor and expansion state are kept as the model's stable ids, so they survive the rebuild.
 */
#ifndef PERFTOP_VIEW_H
#define PERFTOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "model/snapshot.h"
#include "ui/surface.h"

struct view_state;
struct keys_help;
struct view;

struct view_ops {
	const char *name;   /* "function", "flame" */
	/* Rebuild from snap (NULL, or without a call tree, when there is none). */
	void (*update)(struct view *vw, const struct snapshot *snap);
	/* Draw rows [y, y + rows) of s. v is the whole state (the breadcrumb walks v->stack). */
	void (*render)(struct view *vw, struct surface *s, int y, int rows,
		       const struct snapshot *snap, const struct view_state *v);
	/* One key; rows is the body height. Sets *handled when the key was the view's, and returns
	 * keys_action flags. A view may push another (view_push) from here. */
	unsigned (*key)(struct view *vw, struct view_state *v, int key, const struct snapshot *snap,
			int rows, bool *handled);
	void (*free)(struct view *vw);
	/* The names were compacted (util/frame.h): re-point the names the view keeps (the function
	 * it is about) through rename. NULL: it keeps none. */
	void (*move_names)(struct view *vw, frame_rename_fn rename, void *ctx);
	/* Its keys for the ? overlay (shown above the keys every view shares). */
	const struct keys_help *help;
	size_t nhelp;
	/* The footer's key hints. */
	const char *hints;
};

struct view {
	const struct view_ops *ops;
	char label[96];     /* this view's crumb in the breadcrumb ("leaf_a", "flame: all") */
};

#define VIEW_STACK_MAX 32

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

/* The annotate view (a): the document of a function comes from fetch (tui_source.annotate, the
 * session's), asked again on every snapshot; fetch NULL: the view says annotate is unavailable. */
struct an_doc;
typedef struct an_doc *(*view_annotate_fn)(void *ctx, const char *raw_sym, const char *dso);
struct view *view_annotate_new(const char *raw_sym, const char *dso, const char *shown,
			       view_annotate_fn fetch, void *ctx);

/* Shared by the views: the percentage text and the shown name of a call-tree node. */
void view_pct(char *buf, size_t len, uint64_t part, uint64_t whole);

#endif
