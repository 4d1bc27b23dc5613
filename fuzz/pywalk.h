/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pywalk: what perftop reads of a Python thread for one sample, in the order src/python/pystacks.c
 * reads it (the thread state, the frames, each code object's head, names and line table, the
 * line), for fuzz_pyread (over a made-up process) and pysnap (over a real one, recording the reads
 * as a seed).
 */
#ifndef PERFTOP_FUZZ_PYWALK_H
#define PERFTOP_FUZZ_PYWALK_H

#include "python/pyread.h"

#define PYWALK_MAX 256        /* frames, as pystacks.c's PY_MAX_FRAMES */
#define PYWALK_LINETABLE 4096 /* as PY_LINETABLE_MAX */

struct pywalk_frame {
	struct pyraw raw;
	int head_rc, names_rc, lt_len, line;
	char qual[160], file[512];
};

struct pywalk {
	int thread_rc;            /* pyread_thread's */
	uint64_t ts, frame;
	int n;                    /* pyread_frames' */
	struct pywalk_frame f[PYWALK_MAX];
};

/* One sample's reads of thread tid of process pid into w. */
void pywalk_run(pid_t pid, const struct pyproc *p, uint32_t tid, struct pywalk *w);

#endif
