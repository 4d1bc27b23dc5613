/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zoom: which samples, and which of their frames, the profile takes in (the t, d, K and U keys).
 *
 * A zoom is a stack of levels, each narrowing the one below: a thread, a process or a command (t),
 * a shared object (d), and hiding kernel or user frames (K, U). It is applied to each sample before
 * profile_add and calltree_add, not to the finished rows, because a row has lost what a zoom needs:
 * a dso,sym row mixes the samples of every thread, and Total% of a function depends on which frames
 * of each chain are kept. The price is that changing the zoom starts the aggregation over (the
 * session resets the profile; a replay re-reads up to where it is, a live session fills again).
 *
 * Frames: a dso zoom keeps only the frames of that dso, K drops kernel frames, U user frames, so the
 * innermost kept frame becomes the sample's Self (a libc function that was in a system call gets the
 * kernel's time as its own once the kernel is hidden).
 * A sample left with no frame at all, or of another thread / process / command, is left out
 * entirely: percentages are then shares of what the zoom shows, as the header says.
 *
 * Names are compared by pointer: the symbolizer interns them (util/frame.h), and the level's name
 * pointer comes from a row of the same session. The label is a copy, for the header.
 */
#ifndef PERFTOP_ZOOM_H
#define PERFTOP_ZOOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

#define ZOOM_MAX 8

enum zoom_kind { ZOOM_TID, ZOOM_PID, ZOOM_COMM, ZOOM_DSO, ZOOM_HIDE_KERNEL, ZOOM_HIDE_USER };

struct zoom_level {
	enum zoom_kind kind;
	uint32_t id;              /* tid or pid */
	const char *name;         /* comm or dso (interned) */
	char label[96];           /* "thread 4242", "process 17 (fixture)", "dso libc.so.6" ... */
};

struct sample_zoom {
	struct zoom_level lv[ZOOM_MAX];
	int n;
};

/* Pushes a level (with its label made here); false when the stack is full. */
bool zoom_push(struct sample_zoom *z, enum zoom_kind kind, uint32_t id, const char *name,
	       const char *comm);
/* The names were compacted (util/frame.h): each level's name becomes rename(ctx, name). */
void zoom_move_names(struct sample_zoom *z, frame_rename_fn rename, void *ctx);
/* Removes the top level; false when there is none. */
bool zoom_pop(struct sample_zoom *z);
/* Index of the level of this kind, or -1 (K and U toggle theirs). */
int zoom_find(const struct sample_zoom *z, enum zoom_kind kind);
/* Removes level i, keeping the order of the others. */
void zoom_remove(struct sample_zoom *z, int i);

/* "thread 4242 › kernel hidden": the levels' labels, bottom first. Empty when n == 0. */
void zoom_describe(const struct sample_zoom *z, char *buf, size_t len);

/* Applies z to one sample: false when it is left out; else *out is the sample with the kept
 * frames, which are copied into buf (cap frames). out may be in. */
bool zoom_apply(const struct sample_zoom *z, const struct sample_ctx *in, struct sample_ctx *out,
		struct frame *buf, int cap);

#endif
