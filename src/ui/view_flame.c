/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_flame: the flame graph of the window (f in the table), or of one function's subtree (f in
 * the function view), drawn in the terminal and rebuilt at every refresh.
 *
 * One row per stack depth, the root at the bottom (v flips it into an icicle, root on top); a
 * frame's width is its Total, laid out left to right in name order under its parent (the model
 * orders children by name, so frames keep their places as the weights move), and frames under a
 * cell wide are not drawn. A frame is a block of its colour role with its name from the left, cut
 * with "…", and a blank last cell so neighbours stay apart without colour; colours go by dso for
 * user code and one colour for the kernel, and under NO_COLOR (attributes only) kernel frames are
 * padded with dots instead.
 *
 * The selection and the zoom are node ids (hashes of the path), so both survive refreshes. Up and
 * Down move to the child / parent level (following the screen: in an icicle Down is the child),
 * Left and Right to the neighbouring frame of the same level, Enter zooms into the selected frame
 * (its subtree takes the whole width), Backspace zooms back out and, at the top zoom, pops the
 * view like Esc does.
 *
 * In the time modes (--off-cpu, --wall) widths are nanoseconds; the selected frame's line also
 * says its time as threads there on average (the table's Time column).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/calltree.h"
#include "ui/view.h"
#include "util/util.h"

#define FLAME_ZOOM_MAX 64
#define FLAME_HEAD_ROWS 2 /* title, selected frame */
#define FLAME_MARGIN 1

struct view_flame {
	struct view base;
	struct ct_func f;         /* raw_sym NULL: the whole window */
	char shown[256];
	struct ct_result *r;
	uint64_t *start;          /* per node: offset under the root, in period units */
	bool have_tree;
	uint64_t sel_id;
	uint64_t zoom[FLAME_ZOOM_MAX];
	int nzoom;
	int last_w;               /* graph width at the last render: what neighbours are judged by */
};

static long find(const struct view_flame *vf, uint64_t id)
{
	return vf->r ? ct_result_find(vf->r, id) : -1;
}

static uint32_t zoom_root(const struct view_flame *vf)
{
	long at = vf->nzoom ? find(vf, vf->zoom[vf->nzoom - 1]) : 0;
	return at > 0 ? (uint32_t)at : 0;
}

static uint32_t selected(const struct view_flame *vf)
{
	long at = find(vf, vf->sel_id);
	return at >= 0 ? (uint32_t)at : zoom_root(vf);
}

static bool under(const struct ct_result *r, uint32_t idx, uint32_t root)
{
	while (r->nodes[idx].depth > r->nodes[root].depth)
		idx = r->nodes[idx].parent;
	return idx == root;
}

static int graph_width(const struct view_flame *vf)
{
	return vf->last_w > 0 ? vf->last_w : 80;
}

/* The cells [x0, x1) of node idx when root spans w cells; false when under one cell. */
static bool cells(const struct view_flame *vf, uint32_t idx, uint32_t root, int w, int *x0, int *x1)
{
	const struct ct_node *rn = &vf->r->nodes[root], *n = &vf->r->nodes[idx];
	if (!rn->total)
		return idx == root && (*x0 = 0, *x1 = w, true);
	double scale = (double)w / (double)rn->total, off = (double)(vf->start[idx] - vf->start[root]);
	*x0 = (int)(off * scale);
	*x1 = (int)((off + (double)n->total) * scale);
	if (*x1 > w)
		*x1 = w;
	return *x1 > *x0;
}

static void flame_update(struct view *vw, const struct snapshot *snap)
{
	struct view_flame *vf = (struct view_flame *)vw;
	if (!snap)
		return;
	ct_result_free(vf->r);
	free(vf->start);
	vf->r = NULL;
	vf->start = NULL;
	vf->have_tree = snap->tree != NULL;
	if (!vf->have_tree)
		return;
	vf->r = calltree_flame(snap->tree, vf->f);
	vf->start = xcalloc(vf->r->n, sizeof(*vf->start));
	for (size_t i = 0; i < vf->r->n; i++) {
		const struct ct_node *n = &vf->r->nodes[i];
		uint64_t s = vf->start[i];
		for (uint32_t k = 0; k < n->nchildren; k++) {
			vf->start[n->first_child + k] = s;
			s += vf->r->nodes[n->first_child + k].total;
		}
	}
	if (vf->f.raw_sym && vf->r->nodes[0].sym)
		snprintf(vf->shown, sizeof(vf->shown), "%s", vf->r->nodes[0].sym);
	/* A zoom whose frame has left the window ends there. */
	for (int i = 0; i < vf->nzoom; i++)
		if (find(vf, vf->zoom[i]) < 0) {
			vf->nzoom = i;
			break;
		}
	if (find(vf, vf->sel_id) < 0)
		vf->sel_id = vf->r->nodes[zoom_root(vf)].id;
	snprintf(vf->base.label, sizeof(vf->base.label), "flame: %.80s",
		 vf->f.raw_sym ? vf->shown : "all");
}

static enum surface_role frame_role(const struct ct_node *n, bool color)
{
	if (n->kernel)
		return ROLE_FLAME_KERNEL;
	if (!color || !n->dso)
		return ROLE_FLAME_1;
	/* A dso keeps its colour from one refresh (and run) to the next. */
	unsigned h = 5381;
	for (const char *p = n->dso; *p; p++)
		h = h * 33 + (unsigned char)*p;
	return (enum surface_role)(ROLE_FLAME_1 + h % 4);
}

static const char *node_name(const struct ct_node *n)
{
	return n->sym ? n->sym : n->raw_sym ? n->raw_sym : "all";
}

static void flame_render(struct view *vw, struct surface *s, int y, int rows,
			 const struct snapshot *snap, const struct view_state *v)
{
	struct view_flame *vf = (struct view_flame *)vw;
	char buf[640];
	bool tm = snapshot_is_time(snap);
	int w = s->w - 2 * FLAME_MARGIN;
	vf->last_w = w;
	if (rows <= 0 || w <= 0)
		return;
	const struct ct_result *r = vf->r;
	uint32_t root = r ? zoom_root(vf) : 0, sel = r ? selected(vf) : 0;

	/* Title: what is drawn, which way up, and the zoom path. */
	int len = snprintf(buf, sizeof(buf), "Flame graph of %s — %s (v flips)",
			   vf->f.raw_sym ? vf->shown : "the window",
			   v->icicle ? "icicle, root on top" : "root at the bottom");
	if (r && root) {
		char path[400] = "";
		size_t pl = 0;
		uint32_t chain[FLAME_ZOOM_MAX + 512];
		int nc = 0;
		for (uint32_t i = root; nc < (int)ARRAY_SIZE(chain); i = r->nodes[i].parent) {
			chain[nc++] = i;
			if (!i)
				break;
		}
		for (int k = nc - 1; k >= 0 && pl < sizeof(path); k--)
			pl += (size_t)snprintf(path + pl, sizeof(path) - pl, "%s%s", k == nc - 1 ? "" : " › ",
					       node_name(&r->nodes[chain[k]]));
		snprintf(buf + len, sizeof(buf) - (size_t)len, "   zoom: %s", path);
	}
	surface_put_text_cut(s, FLAME_MARGIN, y, w, buf, ROLE_HEADER);
	if (rows < 2)
		return;
	if (!r || !r->nodes[0].total) {
		surface_put_text_cut(s, FLAME_MARGIN, y + 1, w,
				     !vf->have_tree ? "no call stacks in this session (-g, --call-graph)" :
				     tm ? "no time with a stack in this window" :
					  "no samples with a stack in this window",
				     ROLE_DIM);
		return;
	}
	const struct ct_node *sn = &r->nodes[sel];
	double scale = r->total ? 100.0 / (double)r->total : 0;
	/* In the time modes a frame's width is time: how many threads are there, on average. */
	char total_t[48] = "", self_t[48] = "";
	if (tm) {
		snprintf(total_t, sizeof(total_t), " (%.2f threads)",
			 snapshot_per_sec(snap, sn->total) / 1e9);
		snprintf(self_t, sizeof(self_t), " (%.2f)", snapshot_per_sec(snap, sn->self) / 1e9);
	}
	snprintf(buf, sizeof(buf), "▶ %s%s%s   Total %.2f%%%s   Self %.2f%%%s%s%s", node_name(sn),
		 sn->dso ? "  " : "", sn->dso ? sn->dso : "", (double)sn->total * scale, total_t,
		 (double)sn->self * scale, self_t, sn->inlined ? "   (inlined)" : "",
		 sn->kernel ? "   (kernel)" : "");
	surface_put_text_cut(s, FLAME_MARGIN, y + 1, w, buf, ROLE_NORMAL);

	int levels = rows - FLAME_HEAD_ROWS;
	if (levels <= 0)
		return;
	int rel_sel = sn->depth - r->nodes[root].depth;
	int base = rel_sel >= levels ? rel_sel - levels + 1 : 0;
	for (uint32_t i = root; i < r->n; i++) {
		const struct ct_node *n = &r->nodes[i];
		int lvl = n->depth - r->nodes[root].depth - base;
		if (lvl < 0 || lvl >= levels)
			continue;
		int x0, x1;
		if (!cells(vf, i, root, w, &x0, &x1) || !under(r, i, root))
			continue;
		int yy = v->icicle ? y + FLAME_HEAD_ROWS + lvl : y + rows - 1 - lvl;
		enum surface_role role = i == sel ? ROLE_SELECTED : frame_role(n, v->color);
		int fw = x1 - x0, xx = FLAME_MARGIN + x0;
		const char *pad = !v->color && n->kernel ? "." : " ";
		if (fw == 1) {
			/* One cell: drawn whole, unless it is the last cell of its parent, which is the
			 * parent's gap (a bar ends a cell early to part it from the next). */
			int px0, px1;
			if (i != root && cells(vf, n->parent, root, w, &px0, &px1) && px1 == x1)
				continue;
			surface_fill(s, xx, yy, 1, pad, role);
			continue;
		}
		surface_fill(s, xx, yy, fw - 1, pad, role);
		if (fw - 1 >= 3)
			surface_put_text_cut(s, xx, yy, fw - 1, node_name(n), role);
	}
}

/* The frame on the same level as sel whose start is the nearest before (dir < 0) or after it. */
static long neighbour(const struct view_flame *vf, uint32_t sel, uint32_t root, int dir)
{
	const struct ct_result *r = vf->r;
	long best = -1;
	int w = graph_width(vf), x0, x1;
	for (uint32_t i = root; i < r->n; i++) {
		if (r->nodes[i].depth != r->nodes[sel].depth || i == sel)
			continue;
		if (!cells(vf, i, root, w, &x0, &x1) || !under(r, i, root))
			continue;
		bool side = dir < 0 ? vf->start[i] < vf->start[sel] : vf->start[i] > vf->start[sel];
		if (!side)
			continue;
		if (best < 0 || (dir < 0 ? vf->start[i] > vf->start[best] : vf->start[i] < vf->start[best]))
			best = i;
	}
	return best;
}

/* The widest drawn child of sel, or -1. */
static long widest_child(const struct view_flame *vf, uint32_t sel, uint32_t root)
{
	const struct ct_node *n = &vf->r->nodes[sel];
	long best = -1;
	int w = graph_width(vf), x0, x1;
	for (uint32_t k = 0; k < n->nchildren; k++) {
		uint32_t c = n->first_child + k;
		if (!cells(vf, c, root, w, &x0, &x1))
			continue;
		if (best < 0 || vf->r->nodes[c].total > vf->r->nodes[best].total)
			best = c;
	}
	return best;
}

static unsigned select_node(struct view_flame *vf, long idx)
{
	if (idx < 0 || vf->r->nodes[idx].id == vf->sel_id)
		return 0;
	vf->sel_id = vf->r->nodes[idx].id;
	return KEYS_ACT_REDRAW;
}

static unsigned flame_flip(const struct keys_call *c)
{
	/* The way up is the view state's: the next flame graph opens the same way, and it is kept
	 * across runs (settings/settings.h). */
	c->v->icicle = !c->v->icicle;
	return KEYS_ACT_REDRAW;
}

/* Up and Down (arg -1: Up) follow the screen: in a flame graph the children are above, in an
 * icicle below. No graph yet: the keys are not the view's (KEYS_ACT_PASS), as for all below. */
static unsigned flame_vertical(const struct keys_call *c)
{
	struct view_flame *vf = c->self;
	if (!vf->r)
		return KEYS_ACT_PASS;
	uint32_t root = zoom_root(vf), sel = selected(vf);
	bool to_child = (c->arg < 0) != c->v->icicle;
	if (to_child)
		return select_node(vf, widest_child(vf, sel, root));
	return sel == root ? 0 : select_node(vf, vf->r->nodes[sel].parent);
}

/* Left and Right (arg: the direction). */
static unsigned flame_beside(const struct keys_call *c)
{
	struct view_flame *vf = c->self;
	if (!vf->r)
		return KEYS_ACT_PASS;
	return select_node(vf, neighbour(vf, selected(vf), zoom_root(vf), (int)c->arg));
}

static unsigned flame_bottom(const struct keys_call *c)
{
	struct view_flame *vf = c->self;
	if (!vf->r)
		return KEYS_ACT_PASS;
	return select_node(vf, zoom_root(vf));
}

static unsigned flame_zoom_in(const struct keys_call *c)
{
	struct view_flame *vf = c->self;
	if (!vf->r)
		return KEYS_ACT_PASS;
	if (selected(vf) == zoom_root(vf) || vf->nzoom == FLAME_ZOOM_MAX)
		return 0;
	vf->zoom[vf->nzoom++] = vf->sel_id;
	return KEYS_ACT_REDRAW;
}

/* Backspace: out of a zoom; at the top the framework's, which pops the view. */
static unsigned flame_zoom_out(const struct keys_call *c)
{
	struct view_flame *vf = c->self;
	if (!vf->r || !vf->nzoom)
		return KEYS_ACT_PASS;
	vf->nzoom--;
	return KEYS_ACT_REDRAW;
}

static const struct keys_binding flame_bindings[] = {
	{ .key = { KEYS_UP, 'k' }, .run = flame_vertical, .arg = -1, .keys = "Up/Down k/j",
	  .help = "to the child / parent frame (as drawn)" },
	{ .key = { KEYS_DOWN, 'j' }, .run = flame_vertical, .arg = 1 },
	{ .key = { KEYS_LEFT, 'h' }, .run = flame_beside, .arg = -1, .keys = "Left/Right h/l",
	  .help = "to the frame beside it on the same level" },
	{ .key = { KEYS_RIGHT, 'l' }, .run = flame_beside, .arg = 1 },
	{ .key = { KEYS_ENTER }, .run = flame_zoom_in, .keys = "Enter",
	  .help = "zoom into the selected frame" },
	{ .key = { KEYS_BACKSPACE }, .run = flame_zoom_out, .keys = "Backspace",
	  .help = "zoom out (at the top: back)" },
	{ .key = { KEYS_HOME, 'g' }, .run = flame_bottom, .keys = "Home g",
	  .help = "select the bottom frame of the zoom" },
	{ .key = { 'v', 'V' }, .run = flame_flip, .keys = "v",
	  .help = "flame graph (root at the bottom) / icicle" },
};
static const struct keys_table flame_keys = KEYS_TABLE(flame_bindings);

static void flame_free(struct view *vw)
{
	struct view_flame *vf = (struct view_flame *)vw;
	ct_result_free(vf->r);
	free(vf->start);
	free(vf);
}

static void flame_move_names(struct view *vw, frame_rename_fn rename, void *ctx)
{
	struct view_flame *vf = (struct view_flame *)vw;
	vf->f.raw_sym = rename(ctx, vf->f.raw_sym);
	vf->f.dso = rename(ctx, vf->f.dso);
}

static const struct view_ops flame_ops = {
	.name = "flame",
	.update = flame_update,
	.render = flame_render,
	.keys = &flame_keys,
	.free = flame_free,
	.move_names = flame_move_names,
	.hints = "Esc back  q table  ? help  arrows move  Enter zoom  Backspace out  v flip",
};

struct view *view_flame_new(const char *raw_sym, const char *dso, const char *shown)
{
	struct view_flame *vf = xcalloc(1, sizeof(*vf));
	vf->base.ops = &flame_ops;
	vf->f = (struct ct_func){ raw_sym, dso };
	snprintf(vf->shown, sizeof(vf->shown), "%s", shown ? shown : raw_sym ? raw_sym : "all");
	snprintf(vf->base.label, sizeof(vf->base.label), "flame: %.80s", raw_sym ? vf->shown : "all");
	return &vf->base;
}
