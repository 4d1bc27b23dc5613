/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_func: the function view (Enter on a row). A header with the function and its Self% and
 * Total%, the breadcrumb of re-roots, then two trees in one scrolling list: its callers (who calls
 * it, up to the threads' roots) and its callees (what it calls), each node "share name dso" where
 * the share is of the function's own Total, so each level reads as "where did its time come from /
 * go". Enter on a node re-roots the view on that function (a new view on the stack, so Backspace
 * goes back along the breadcrumb); f opens the flame graph of the function's subtree.
 *
 * Like tmux's mode tree, what the user did is held as stable ids, not positions: the cursor is the
 * id of the node under it and the expansion is a set of node ids (ids hash the path of names from
 * the function), so a refresh rebuilds both trees and the list and everything stays where it was.
 * When the view opens, chains of single callers / callees are expanded, so a straight call path
 * (leaf -> mid -> top -> main) is read at once without pressing anything.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/calltree.h"
#include "ui/render_table.h"
#include "ui/view.h"
#include "util/util.h"

enum fline_kind { FL_TITLE, FL_NODE, FL_NOTE, FL_BLANK };

struct fline {
	unsigned char kind;
	unsigned char tree;  /* 0 callers, 1 callees */
	uint32_t node;       /* index in the tree's result (FL_NODE) */
};

struct view_func {
	struct view base;
	struct ct_func f;
	char shown[256];
	struct ct_result *res[2]; /* callers, callees */
	bool have_tree, seeded;
	double self_pct, total_pct;

	uint64_t *open;           /* expanded node ids, sorted */
	size_t nopen, open_cap;

	struct fline *lines;
	size_t nlines, lines_cap;
	size_t cursor, top;       /* line indices */
	uint64_t cursor_id;
	bool have_cursor;
};

#define HEAD_ROWS 2 /* the function line and the breadcrumb */
#define PCT_W 7
#define TREE_X (1 + PCT_W + 2)

/* --- the expansion set ------------------------------------------------------------------------- */

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static bool is_open(const struct view_func *vf, uint64_t id)
{
	return vf->nopen && bsearch(&id, vf->open, vf->nopen, sizeof(id), cmp_id);
}

static void set_open(struct view_func *vf, uint64_t id, bool open)
{
	uint64_t *at = vf->nopen ? bsearch(&id, vf->open, vf->nopen, sizeof(id), cmp_id) : NULL;
	if (open && !at) {
		xgrow((void **)&vf->open, &vf->open_cap, vf->nopen + 1, sizeof(*vf->open));
		vf->open[vf->nopen++] = id;
		qsort(vf->open, vf->nopen, sizeof(id), cmp_id);
	} else if (!open && at) {
		memmove(at, at + 1, (size_t)(vf->open + vf->nopen - at - 1) * sizeof(id));
		vf->nopen--;
	}
}

/* Opens every node of r (e), or the chains of single children from the root (at opening). */
static void open_nodes(struct view_func *vf, const struct ct_result *r, bool all)
{
	for (size_t i = 1; r && i < r->n; i++) {
		const struct ct_node *n = &r->nodes[i];
		if (!n->nchildren)
			continue;
		if (all) {
			xgrow((void **)&vf->open, &vf->open_cap, vf->nopen + 1, sizeof(*vf->open));
			vf->open[vf->nopen++] = n->id;
			continue;
		}
		const struct ct_node *p = &r->nodes[n->parent];
		/* A node that is its parent's only child, on a chain of only children from the root. */
		if (n->nchildren == 1 && p->nchildren == 1 && (n->parent == 0 || is_open(vf, p->id)))
			set_open(vf, n->id, true);
	}
	if (all) {
		qsort(vf->open, vf->nopen, sizeof(*vf->open), cmp_id);
		size_t k = 0; /* drop duplicates */
		for (size_t i = 0; i < vf->nopen; i++)
			if (!k || vf->open[k - 1] != vf->open[i])
				vf->open[k++] = vf->open[i];
		vf->nopen = k;
	}
}

/* --- the list ---------------------------------------------------------------------------------- */

static void line_add(struct view_func *vf, unsigned char kind, unsigned char tree, uint32_t node)
{
	xgrow((void **)&vf->lines, &vf->lines_cap, vf->nlines + 1, sizeof(*vf->lines));
	vf->lines[vf->nlines++] = (struct fline){ kind, tree, node };
}

static void add_subtree(struct view_func *vf, unsigned char tree, uint32_t idx)
{
	const struct ct_result *r = vf->res[tree];
	const struct ct_node *n = &r->nodes[idx];
	for (uint32_t k = 0; k < n->nchildren; k++) {
		uint32_t c = n->first_child + k;
		line_add(vf, FL_NODE, tree, c);
		if (r->nodes[c].nchildren && is_open(vf, r->nodes[c].id))
			add_subtree(vf, tree, c);
	}
}

static const struct ct_node *line_node(const struct view_func *vf, size_t i)
{
	if (i >= vf->nlines || vf->lines[i].kind != FL_NODE)
		return NULL;
	return &vf->res[vf->lines[i].tree]->nodes[vf->lines[i].node];
}

/* Puts the cursor on a node line: the one at i, else the nearest in direction dir, else the other
 * way. */
static void cursor_to(struct view_func *vf, long i, int dir)
{
	if (!vf->nlines)
		return;
	if (i < 0)
		i = 0;
	if (i >= (long)vf->nlines)
		i = (long)vf->nlines - 1;
	for (int pass = 0; pass < 2; pass++, dir = -dir)
		for (long k = i; k >= 0 && k < (long)vf->nlines; k += dir)
			if (vf->lines[k].kind == FL_NODE) {
				vf->cursor = (size_t)k;
				vf->cursor_id = line_node(vf, (size_t)k)->id;
				vf->have_cursor = true;
				return;
			}
}

static void rebuild_lines(struct view_func *vf)
{
	vf->nlines = 0;
	for (unsigned char t = 0; t < 2; t++) {
		if (t)
			line_add(vf, FL_BLANK, t, 0);
		line_add(vf, FL_TITLE, t, 0);
		if (!vf->res[t] || vf->res[t]->nodes[0].nchildren == 0)
			line_add(vf, FL_NOTE, t, 0);
		else
			add_subtree(vf, t, 0);
	}
	long at = -1;
	for (size_t i = 0; vf->have_cursor && i < vf->nlines; i++) {
		const struct ct_node *n = line_node(vf, i);
		if (n && n->id == vf->cursor_id)
			at = (long)i;
	}
	/* A node that left the window: stay at its place in the list. */
	cursor_to(vf, at >= 0 ? at : (long)vf->cursor, 1);
}

/* --- the view ---------------------------------------------------------------------------------- */

static void func_update(struct view *vw, const struct snapshot *snap)
{
	struct view_func *vf = (struct view_func *)vw;
	if (!snap)
		return; /* nothing yet: keep what is shown */
	ct_result_free(vf->res[0]);
	ct_result_free(vf->res[1]);
	vf->res[0] = vf->res[1] = NULL;
	vf->have_tree = snap->tree != NULL;
	if (vf->have_tree) {
		vf->res[0] = calltree_callers(snap->tree, vf->f);
		vf->res[1] = calltree_callees(snap->tree, vf->f);
		if (vf->res[1]->nodes[0].sym) /* the shown name follows m (demangled / raw) */
			snprintf(vf->shown, sizeof(vf->shown), "%s", vf->res[1]->nodes[0].sym);
		if (!vf->seeded && vf->res[1]->nodes[0].total) {
			open_nodes(vf, vf->res[0], false);
			open_nodes(vf, vf->res[1], false);
			vf->seeded = true;
		}
	}
	snprintf(vf->base.label, sizeof(vf->base.label), "%.90s", vf->shown);
	/* The numbers of the header are the table's own, so both say the same. */
	vf->self_pct = vf->total_pct = -1;
	for (size_t i = 0; i < snap->nrows; i++) {
		const struct snap_row *r = &snap->rows[i];
		if (r->raw_sym == vf->f.raw_sym && (!vf->f.dso || !r->dso || r->dso == vf->f.dso) &&
		    !r->comm && !r->pid && !r->tid && !r->srcline) {
			vf->self_pct = r->self_pct;
			vf->total_pct = r->total_pct;
			break;
		}
	}
	if (vf->total_pct < 0 && vf->res[1] && vf->res[1]->total) {
		double scale = 100.0 / (double)vf->res[1]->total;
		vf->total_pct = (double)vf->res[1]->nodes[0].total * scale;
		vf->self_pct = (double)vf->res[0]->nodes[0].self * scale;
	}
	rebuild_lines(vf);
}

static void put_node(struct surface *s, int y, const struct ct_node *n, const struct ct_node *root,
		     bool open, bool selected, bool color)
{
	enum surface_role base = selected ? ROLE_SELECTED : ROLE_NORMAL;
	char pct[32];
	if (selected)
		surface_fill(s, 0, y, s->w, " ", ROLE_SELECTED);
	view_pct(pct, sizeof(pct), n->total, root->total);
	double share = root->total ? 100.0 * (double)n->total / (double)root->total : 0;
	surface_put_text(s, 1, y, PCT_W, pct, selected ? base : render_pct_role(share, color));
	int x = TREE_X + 2 * (n->depth - 1);
	/* ▸ closed, ▾ open, · nothing below: the marks read the same without colour. */
	surface_put_text(s, x, y, 1, !n->nchildren ? "·" : open ? "▾" : "▸", base);
	x += 2;
	enum surface_role name_role = !selected && color && n->kernel ? ROLE_KERNEL : base;
	int used = surface_put_text_cut(s, x, y, s->w - x, n->sym ? n->sym : "[unknown]", name_role);
	x += used + 2;
	char dso[200];
	snprintf(dso, sizeof(dso), "%s%s", n->dso ? n->dso : "[unknown]", n->inlined ? " (inlined)" : "");
	if (x < s->w)
		surface_put_text_cut(s, x, y, s->w - x, dso, selected ? base : ROLE_DIM);
}

static void func_render(struct view *vw, struct surface *s, int y, int rows,
			const struct snapshot *snap, const struct view_state *v)
{
	struct view_func *vf = (struct view_func *)vw;
	char buf[512];
	bool tm = snapshot_is_time(snap);
	if (rows <= 0)
		return;
	int x = surface_put_text_cut(s, 1, y, s->w - 1, vf->shown, ROLE_HEADER) + 1 + 2;
	if (vf->f.dso && x < s->w)
		x += surface_put_text_cut(s, x, y, s->w - x, vf->f.dso, ROLE_DIM) + 3;
	if (vf->total_pct >= 0 && x < s->w) {
		/* The time modes: the shares as threads there, on average (the table's Time). */
		double per = tm ? snapshot_per_sec(snap, snap->total_period) / 1e9 / 100 : 0;
		if (tm)
			snprintf(buf, sizeof(buf),
				 "Self %.2f%% (%.2f)   Total %.2f%% (%.2f threads)", vf->self_pct,
				 vf->self_pct * per, vf->total_pct, vf->total_pct * per);
		else
			snprintf(buf, sizeof(buf), "Self %.2f%%   Total %.2f%%", vf->self_pct,
				 vf->total_pct);
		surface_put_text_cut(s, x, y, s->w - x, buf, ROLE_NORMAL);
	}
	if (rows < 2)
		return;
	view_breadcrumb(v, buf, sizeof(buf), s->w - 2);
	surface_put_text_cut(s, 1, y + 1, s->w - 1, buf, ROLE_DIM);

	int list = rows - HEAD_ROWS;
	if (list <= 0)
		return;
	size_t top = vf->top;
	if (vf->cursor < top)
		top = vf->cursor;
	if (vf->cursor >= top + (size_t)list)
		top = vf->cursor - (size_t)list + 1;
	if (top + (size_t)list > vf->nlines)
		top = vf->nlines > (size_t)list ? vf->nlines - (size_t)list : 0;
	vf->top = top;
	for (int r = 0; r < list && top + (size_t)r < vf->nlines; r++) {
		size_t i = top + (size_t)r;
		const struct fline *l = &vf->lines[i];
		int yy = y + HEAD_ROWS + r;
		const struct ct_result *res = vf->res[l->tree];
		switch (l->kind) {
		case FL_TITLE:
			surface_fill(s, 0, yy, s->w, " ", ROLE_COLHDR);
			snprintf(buf, sizeof(buf), "%s of %s — %s (share of its Total)",
				 l->tree ? "Callees" : "Callers", vf->shown,
				 l->tree ? "what it calls" : "who calls it");
			surface_put_text(s, 1, yy, PCT_W, " Share", ROLE_COLHDR);
			surface_put_text_cut(s, TREE_X, yy, s->w - TREE_X, buf, ROLE_COLHDR);
			break;
		case FL_NOTE:
			if (!vf->have_tree)
				snprintf(buf, sizeof(buf), "no call stacks in this session (-g, --call-graph)");
			else if (!res || !res->nodes[0].total)
				snprintf(buf, sizeof(buf), "%s has no %s in this window", vf->shown,
					 tm ? "time" : "samples");
			else
				snprintf(buf, sizeof(buf), l->tree ? "none: all its time is its own (Self)" :
								     "none: it is where its stacks start");
			surface_put_text_cut(s, TREE_X, yy, s->w - TREE_X, buf, ROLE_DIM);
			break;
		case FL_NODE:
			put_node(s, yy, &res->nodes[l->node], &res->nodes[0],
				 is_open(vf, res->nodes[l->node].id), i == vf->cursor, v->color);
			break;
		default:
			break;
		}
	}
}

static unsigned move(struct view_func *vf, long delta)
{
	size_t old = vf->cursor;
	cursor_to(vf, (long)vf->cursor + delta, delta < 0 ? -1 : 1);
	return vf->cursor != old ? KEYS_ACT_REDRAW : 0;
}

static unsigned expand(struct view_func *vf, bool open)
{
	const struct ct_node *n = line_node(vf, vf->cursor);
	if (!n)
		return 0;
	if (open) {
		if (!n->nchildren || is_open(vf, n->id))
			return 0;
		set_open(vf, n->id, true);
	} else if (n->nchildren && is_open(vf, n->id)) {
		set_open(vf, n->id, false);
	} else {
		/* Already closed: go to its parent, as in a file tree. */
		const struct ct_result *r = vf->res[vf->lines[vf->cursor].tree];
		if (n->depth <= 1)
			return 0;
		vf->cursor_id = r->nodes[n->parent].id;
	}
	rebuild_lines(vf);
	return KEYS_ACT_REDRAW;
}

/* Up, Down, PgUp, PgDn, Home, End (keys_step). */
static unsigned func_move(const struct keys_call *c)
{
	struct view_func *vf = c->self;
	long page = c->rows - HEAD_ROWS > 1 ? c->rows - HEAD_ROWS : 1;
	return move(vf, keys_step(c->arg, page, (long)vf->nlines));
}

/* + and - (arg 1: open). */
static unsigned func_expand(const struct keys_call *c)
{
	return expand(c->self, c->arg);
}

/* e and c (arg 1: open every node). */
static unsigned func_expand_all(const struct keys_call *c)
{
	struct view_func *vf = c->self;
	if (c->arg) {
		open_nodes(vf, vf->res[0], true);
		open_nodes(vf, vf->res[1], true);
	} else {
		vf->nopen = 0;
	}
	rebuild_lines(vf);
	return KEYS_ACT_REDRAW;
}

/* Enter: the same view on the function under the cursor. */
static unsigned func_reroot(const struct keys_call *c)
{
	struct view_func *vf = c->self;
	const struct ct_node *n = line_node(vf, vf->cursor);
	if (!n || !n->raw_sym)
		return 0;
	view_push(c->v, view_func_new(n->raw_sym, n->dso, n->sym), c->snap);
	return KEYS_ACT_REDRAW;
}

static unsigned func_flame(const struct keys_call *c)
{
	struct view_func *vf = c->self;
	view_push(c->v, view_flame_new(vf->f.raw_sym, vf->f.dso, vf->shown), c->snap);
	return KEYS_ACT_REDRAW;
}

/* a: the node under the cursor, else the function the view is about. */
static unsigned func_annotate(const struct keys_call *c)
{
	struct view_func *vf = c->self;
	const struct ct_node *n = line_node(vf, vf->cursor);
	if (n && n->raw_sym)
		view_push(c->v, view_annotate_new(n->raw_sym, n->dso, n->sym, c->v->annotate,
						  c->v->annotate_ctx), c->snap);
	else
		view_push(c->v, view_annotate_new(vf->f.raw_sym, vf->f.dso, vf->shown,
						  c->v->annotate, c->v->annotate_ctx), c->snap);
	return KEYS_ACT_REDRAW;
}

static const struct keys_binding func_bindings[] = {
	{ .key = { KEYS_UP, 'k' }, .run = func_move, .arg = -1, .keys = "Up/Down j/k",
	  .help = "move between callers and callees" },
	{ .key = { KEYS_DOWN, 'j' }, .run = func_move, .arg = 1 },
	{ .key = { KEYS_PGUP }, .run = func_move, .arg = -KEYS_PAGE, .keys = "PgUp/PgDn Home/End",
	  .help = "move a page / to the first or last" },
	{ .key = { KEYS_PGDN }, .run = func_move, .arg = KEYS_PAGE },
	{ .key = { KEYS_HOME, 'g' }, .run = func_move, .arg = -KEYS_ALL },
	{ .key = { KEYS_END, 'G' }, .run = func_move, .arg = KEYS_ALL },
	{ .key = { '+', '=', KEYS_RIGHT, 'l' }, .run = func_expand, .arg = 1, .keys = "+ Right",
	  .help = "expand the node" },
	{ .key = { '-', KEYS_LEFT, 'h' }, .run = func_expand, .arg = 0, .keys = "- Left",
	  .help = "collapse the node (Left again: its parent)" },
	{ .key = { 'e', 'E' }, .run = func_expand_all, .arg = 1, .keys = "e / c",
	  .help = "expand all / collapse all" },
	{ .key = { 'c', 'C' }, .run = func_expand_all, .arg = 0 },
	{ .key = { KEYS_ENTER }, .run = func_reroot, .keys = "Enter",
	  .help = "re-root the view on that function" },
	{ .key = { 'f' }, .run = func_flame, .keys = "f",
	  .help = "flame graph of this function's subtree" },
	{ .key = { 'a' }, .run = func_annotate, .keys = "a",
	  .help = "annotate the function under the cursor" },
};
static const struct keys_table func_keys = KEYS_TABLE(func_bindings);

static void func_free(struct view *vw)
{
	struct view_func *vf = (struct view_func *)vw;
	ct_result_free(vf->res[0]);
	ct_result_free(vf->res[1]);
	free(vf->open);
	free(vf->lines);
	free(vf);
}

static void func_move_names(struct view *vw, frame_rename_fn rename, void *ctx)
{
	struct view_func *vf = (struct view_func *)vw;
	vf->f.raw_sym = rename(ctx, vf->f.raw_sym);
	vf->f.dso = rename(ctx, vf->f.dso);
}

static const struct view_ops func_ops = {
	.name = "function",
	.update = func_update,
	.render = func_render,
	.keys = &func_keys,
	.free = func_free,
	.move_names = func_move_names,
	.hints = "Esc back  q table  ? help  Enter re-root  +/- expand  e/c all  f flame",
};

struct view *view_func_new(const char *raw_sym, const char *dso, const char *shown)
{
	struct view_func *vf = xcalloc(1, sizeof(*vf));
	vf->base.ops = &func_ops;
	vf->f = (struct ct_func){ raw_sym, dso };
	snprintf(vf->shown, sizeof(vf->shown), "%s", shown ? shown : raw_sym ? raw_sym : "?");
	snprintf(vf->base.label, sizeof(vf->base.label), "%.90s", vf->shown);
	return &vf->base;
}
