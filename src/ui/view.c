/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view: the stack of drill-down views. Pushing and popping are the only ways views come and go, so
 * this is where a view is updated on arrival and on being uncovered, and freed on leaving.
 */
#include "ui/view.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ui/surface.h"

void view_push(struct view_state *v, struct view *vw, const struct snapshot *snap)
{
	if (v->depth == VIEW_STACK_MAX) {
		/* A long chain of re-roots: the oldest step is the least likely to be gone back to. */
		v->stack[0]->ops->free(v->stack[0]);
		memmove(v->stack, v->stack + 1, (VIEW_STACK_MAX - 1) * sizeof(v->stack[0]));
		v->depth--;
	}
	v->stack[v->depth++] = vw;
	vw->ops->update(vw, snap);
}

bool view_pop(struct view_state *v, const struct snapshot *snap)
{
	if (v->depth == 0)
		return false;
	struct view *vw = v->stack[--v->depth];
	vw->ops->free(vw);
	v->stack[v->depth] = NULL;
	if (v->depth)
		v->stack[v->depth - 1]->ops->update(v->stack[v->depth - 1], snap);
	return true;
}

void view_pop_all(struct view_state *v)
{
	while (v->depth) {
		struct view *vw = v->stack[--v->depth];
		vw->ops->free(vw);
		v->stack[v->depth] = NULL;
	}
}

void view_move_names(struct view_state *v, frame_rename_fn rename, void *ctx)
{
	for (int i = 0; i < v->depth; i++)
		if (v->stack[i]->ops->move_names)
			v->stack[i]->ops->move_names(v->stack[i], rename, ctx);
	zoom_move_names(&v->zoom, rename, ctx);
}

struct view *view_top(const struct view_state *v)
{
	return v->depth ? v->stack[v->depth - 1] : NULL;
}

void view_breadcrumb(const struct view_state *v, char *buf, size_t len, int width)
{
	static const char sep[] = " › ";
	int first = 0;
	/* Drop crumbs from the left (after "table") until the rest fits; "…" says some went. */
	for (;;) {
		size_t n = (size_t)snprintf(buf, len, "%s", first ? "table › …" : "table");
		for (int i = first; i < v->depth && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", sep, v->stack[i]->label);
		if (surface_text_width(buf) <= width || first >= v->depth - 1)
			return;
		first++;
	}
}

void view_pct(char *buf, size_t len, uint64_t part, uint64_t whole)
{
	snprintf(buf, len, "%6.2f%%", whole ? 100.0 * (double)part / (double)whole : 0.0);
}
