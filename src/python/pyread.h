/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pyread: a thread's Python frames read from its process (pyread.c says how). Internal to
 * src/python.
 */
#ifndef PERFTOP_PYREAD_H
#define PERFTOP_PYREAD_H

#include "python/pyint.h"

/* One Python frame as read: its code object, where it is in it (3.11+: the instruction's
 * address; 3.8-3.10: its byte offset in the code), and its eval-loop call. */
struct pyraw {
	uint64_t code;
	uint64_t instr;
	int group;
};

/* What a code object points at. */
struct pycode_head {
	uint64_t qualname, filename, linetable;
	int firstlineno;
};

/* Thread tid's thread state (*ts: the one found last, 0 when none; updated) and its current
 * frame (0: no Python running). 0, or -errno (-ESRCH: no thread state for tid). */
int pyread_thread(pid_t pid, const struct pyproc *p, uint32_t tid, uint64_t *ts, uint64_t *frame);
/* The Python frames from frame outward, innermost first: count, or -errno (-ELOOP: the chain
 * comes back on itself). */
int pyread_frames(pid_t pid, const struct pyproc *p, uint64_t frame, struct pyraw *out, int max);
/* What the last pyread_stack of a thread went through, so that the next one reads it all again
 * in one system call when the thread's stack lies where it did. Zeroed at first. */
#define PY_HINT_SPANS 3
struct pyread_hint {
	uint64_t ts;              /* its thread state */
	uint64_t pthread;         /* 3.8-3.10: the struct pthread the thread state named */
	uint64_t cframe[2];       /* 3.11, 3.12: the _PyCFrames the state pointed at last */
	uint64_t lo[PY_HINT_SPANS], hi[PY_HINT_SPANS];  /* the spans its frames were read from */
};
/* Thread tid's Python frames, innermost first (pyread_thread, then pyread_frames, mostly in one
 * read from what h says; h updated): the count (0: no Python running), or -errno. */
int pyread_stack(pid_t pid, const struct pyproc *p, uint32_t tid, struct pyread_hint *h,
		 struct pyraw *out, int max);
/* The head of code object code; *code_type is the code type's address once checked (0 at
 * first). 0, or -errno (-EINVAL: not a code object). */
int pyread_code_head(pid_t pid, const struct pyproc *p, uint64_t code, uint64_t *code_type,
		     struct pycode_head *h);
/* Its qualified name and file name as UTF-8 (cut to the capacities). */
int pyread_names(pid_t pid, const struct pyproc *p, const struct pycode_head *h, char *qualname,
		 size_t qcap, char *filename, size_t fcap);
/* Its location table's bytes (at most cap): the length, or -errno. */
int pyread_linetable(pid_t pid, const struct pyproc *p, uint64_t linetable, uint8_t *buf, size_t cap);
/* The line of code unit index unit in a 3.11+ location table, or -1. */
int pyread_line(const uint8_t *table, int len, int firstlineno, uint64_t unit);
/* The line of a frame at instr (struct pyraw's) of code object code, from its line table in the
 * layout's format, or -1. */
int pyread_line_at(const struct pylayout *l, uint64_t code, const uint8_t *table, int len,
		   int firstlineno, uint64_t instr);

#endif
