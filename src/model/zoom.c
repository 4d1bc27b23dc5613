/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zoom: the levels as a small array (they are few and pushed by hand), and their application to a
 * sample as one pass over its frames.
 */
#include "model/zoom.h"

#include <stdio.h>
#include <string.h>

bool zoom_push(struct sample_zoom *z, enum zoom_kind kind, uint32_t id, const char *name,
	       const char *comm)
{
	if (z->n >= ZOOM_MAX)
		return false;
	struct zoom_level *l = &z->lv[z->n++];
	*l = (struct zoom_level){ .kind = kind, .id = id, .name = name };
	switch (kind) {
	case ZOOM_TID:
		snprintf(l->label, sizeof(l->label), "thread %u%s%s%s", id, comm ? " (" : "",
			 comm ? comm : "", comm ? ")" : "");
		break;
	case ZOOM_PID:
		snprintf(l->label, sizeof(l->label), "process %u%s%s%s", id, comm ? " (" : "",
			 comm ? comm : "", comm ? ")" : "");
		break;
	case ZOOM_COMM:
		snprintf(l->label, sizeof(l->label), "command %s", name ? name : "?");
		break;
	case ZOOM_DSO:
		snprintf(l->label, sizeof(l->label), "dso %s", name ? name : "?");
		break;
	case ZOOM_HIDE_KERNEL:
		snprintf(l->label, sizeof(l->label), "kernel hidden");
		break;
	case ZOOM_HIDE_USER:
		snprintf(l->label, sizeof(l->label), "user hidden");
		break;
	}
	return true;
}

void zoom_move_names(struct sample_zoom *z, frame_rename_fn rename, void *ctx)
{
	for (int i = 0; i < z->n; i++)
		if (z->lv[i].name)
			z->lv[i].name = rename(ctx, z->lv[i].name);
}

bool zoom_pop(struct sample_zoom *z)
{
	if (z->n == 0)
		return false;
	z->n--;
	return true;
}

int zoom_find(const struct sample_zoom *z, enum zoom_kind kind)
{
	for (int i = 0; i < z->n; i++)
		if (z->lv[i].kind == kind)
			return i;
	return -1;
}

void zoom_remove(struct sample_zoom *z, int i)
{
	if (i < 0 || i >= z->n)
		return;
	memmove(&z->lv[i], &z->lv[i + 1], (size_t)(z->n - i - 1) * sizeof(z->lv[0]));
	z->n--;
}

void zoom_describe(const struct sample_zoom *z, char *buf, size_t len)
{
	size_t n = 0;
	if (len)
		buf[0] = '\0';
	for (int i = 0; i < z->n && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " › " : "", z->lv[i].label);
}

/* Whether frame f survives every frame-dropping level. */
static bool frame_kept(const struct sample_zoom *z, const struct frame *f)
{
	for (int i = 0; i < z->n; i++) {
		const struct zoom_level *l = &z->lv[i];
		if ((l->kind == ZOOM_DSO && f->dso != l->name) ||
		    (l->kind == ZOOM_HIDE_KERNEL && f->kernel) ||
		    (l->kind == ZOOM_HIDE_USER && !f->kernel))
			return false;
	}
	return true;
}

bool zoom_apply(const struct sample_zoom *z, const struct sample_ctx *in, struct sample_ctx *out,
		struct frame *buf, int cap)
{
	bool drops_frames = false;
	for (int i = 0; i < z->n; i++) {
		const struct zoom_level *l = &z->lv[i];
		switch (l->kind) {
		case ZOOM_TID:
			if (in->tid != l->id)
				return false;
			break;
		case ZOOM_PID:
			if (in->pid != l->id)
				return false;
			break;
		case ZOOM_COMM:
			if (in->comm != l->name)
				return false;
			break;
		default:
			drops_frames = true;
			break;
		}
	}
	if (out != in)
		*out = *in;
	if (!drops_frames)
		return true;
	int n = 0;
	for (int i = 0; i < in->nframes && n < cap; i++)
		if (frame_kept(z, &in->frames[i]))
			buf[n++] = in->frames[i];
	if (n == 0)
		return false;
	/* An inline frame whose function was dropped would stand for nothing: a kept chain's
	 * innermost frame is a real function when its last inline frames lost their holder. */
	if (buf[n - 1].inlined)
		buf[n - 1].inlined = false;
	out->frames = buf;
	out->nframes = n;
	return true;
}
