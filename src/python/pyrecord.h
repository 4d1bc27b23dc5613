/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pyrecord: the Python frames of a recording (-o FILE), kept beside it in FILE.python so that a
 * replay (-i FILE) shows them. perf.data holds what the kernel gave (native chains); the Python
 * frames were read from the processes' memory, which a replay no longer has. The side file names,
 * for each sample that had Python frames, its thread, its time and those frames with the eval-loop
 * call each belongs to; a replay finds a sample's frames by (tid, time) and splices them in as it
 * did live (pystacks_splice). perf report reads FILE alone, unchanged.
 *
 * Format (text, one record a line, fields separated by one space; the last field of an f line is
 * the rest of the line):
 *   perftop-python 1
 *   d ID DSO                       the interpreter's binary (basename), ids from 0
 *   f ID SRCLINE|- SYM             a Python function (and line), ids from 0
 *   s TIME PID TID DSO_ID F.G ...  a sample: its frames innermost first, function F of group G
 */
#ifndef PERFTOP_PYRECORD_H
#define PERFTOP_PYRECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/frame.h"

struct pyrecord;

/* Creates path (replaced if it exists). NULL with a one-line message in err. */
struct pyrecord *pyrecord_create(const char *path, char *err, size_t errlen);
/* Writes one sample's Python frames (py[0..n), group[i] their eval-loop calls). */
void pyrecord_add(struct pyrecord *w, uint64_t time, uint32_t pid, uint32_t tid,
		  const char *interp_dso, const struct frame *py, const int *group, int n);
/* Writes out what is buffered (each tick: a recording killed keeps its Python frames up to
 * there). */
void pyrecord_flush(struct pyrecord *w);
/* Flushes and closes: 0, or -errno of the first failed write. */
int pyrecord_close(struct pyrecord *w);

struct pyreplay;

/* Reads path whole, into r (the files of a replay of several, in turn) or a new one (r NULL):
 * returns it, or r as it was when there is no such file or an empty one (err "") or it is not one
 * perftop wrote (why in err). A file cut short (perftop killed) is read up to its last whole line;
 * one with a line not understood up to there, with a warning in err. */
struct pyreplay *pyreplay_open(struct pyreplay *r, const char *path, char *err, size_t errlen);
void pyreplay_free(struct pyreplay *r);
/* Did sample (tid, time) have Python frames? */
bool pyreplay_has(const struct pyreplay *r, uint32_t tid, uint64_t time);
/* Splices its Python frames into frames[0..n) as live (names through intern); returns the new
 * count, n when it had none. */
int pyreplay_sample(struct pyreplay *r, frame_rename_fn intern, void *ctx, uint32_t tid,
		    uint64_t time, struct frame *frames, int n, int max);

#endif
