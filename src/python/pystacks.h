/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pystacks: Python functions in the native chains of CPython processes (3.8 to 3.13).
 *
 * For a sample of a thread of a CPython process, the interpreter's own frame chain of that thread
 * (PyThreadState -> _PyInterpreterFrame, 3.8-3.10: PyFrameObject -> code object -> qualname,
 * 3.8-3.10: co_name, and filename) is read from the process's memory with process_vm_readv and put
 * in the place of the interpreter frames of the native chain: each _PyEval_EvalFrameDefault frame
 * becomes the Python functions that C call of the eval loop runs, and the interpreter's call
 * plumbing between two Python frames goes. Python
 * frames are ordinary frames (dso "[python]", sym "alpha (pysplit.py)", srcline "pysplit.py:12"),
 * so every view, the diff and the exports see them.
 *
 * The stacks are read by a thread of their own (pywatch.c: the one thread boundary besides the
 * sampler's queue) on a clock of its own (as often as a CPU budget allows, or --python-rate; never
 * more often than the sampling period), and each sample takes the read nearest to its time: the
 * session takes samples in 10-35 ms after they were taken, too late to read then.
 * The gap is measured per sample (pystacks_get_stats); names are read and cached on the caller's
 * thread.
 *
 * Struct offsets come from the interpreter's _Py_DebugOffsets (3.13+, at the start of _PyRuntime)
 * or from a table of the 3.8 to 3.12 layouts (the same for every x86-64 build of a minor
 * version: taken from the DWARF of pyenv's builds; Debian's python3.11, without DWARF, has them
 * too). Each read is checked (the code object's type is "code", the thread state's native id is
 * the sampled tid), so a layout that does not fit gives native frames, never wrong names. A process
 * whose layout is unknown or whose memory cannot be read keeps its native frames, and
 * pystacks_notice says why, once per process.
 */
#ifndef PERFTOP_PYSTACKS_H
#define PERFTOP_PYSTACKS_H

#include <stdbool.h>
#include <stdint.h>

#include "util/frame.h"

struct pystacks;

/* The dso of every Python frame. */
#define PYSTACKS_DSO "[python]"

/* The generation of the names' pool (it changes when the pool is compacted and the pointers of the
 * one before stop being valid): interned names are kept as long as it stays. */
typedef uint64_t (*pystacks_gen_fn)(void *ctx);

/* intern: the pooled copy of a name (frame.h: frame strings are interned by their owner), gen
 * its pool's generation; period_ns: the sampling period, the watcher's fastest; rate_hz:
 * --python-rate, 0 for the watcher's CPU budget (pywatch.h) */
struct pystacks *pystacks_new(frame_rename_fn intern, pystacks_gen_fn gen, void *intern_ctx,
			      uint64_t period_ns, uint64_t rate_hz);
void pystacks_free(struct pystacks *p);

/*
 * The frames of a sample of thread tid of process pid, taken at time (CLOCK_MONOTONIC ns, for the
 * lag), with its Python functions put in: frames[0..n) innermost first, room for max. Returns the
 * new count; n as it was when the process is not a CPython one or its stack cannot be read.
 */
int pystacks_sample(struct pystacks *p, uint32_t pid, uint32_t tid, uint64_t time,
		    struct frame *frames, int n, int max);

/* Process pid is not the one perftop looked at under that pid (it exec'ed, exited, or the pid
 * was given to a new process): the next sample of pid looks at it again. */
void pystacks_forget(struct pystacks *p, uint32_t pid);

/* Records were lost at time (the sample clock; 0: now), an exec's or a fork's among them maybe:
 * the executables of the processes known are looked at again soon, not only every few seconds. */
void pystacks_records_lost(struct pystacks *p, uint64_t time);

/* The Python frames the last pystacks_sample put in (py[0..n), group[i] their eval-loop calls)
 * and the interpreter's binary they replaced frames of: n, 0 when it put none (pyrecord.h keeps
 * them beside a recording). */
int pystacks_last(const struct pystacks *p, const struct frame **py, const int **group,
		  const char **interp_dso);

/* Source lines ("pysplit.py:12") in the frames: off at start; costs a read of each code
 * object's location table once. */
void pystacks_set_srclines(struct pystacks *p, bool on);

/* The last thing to tell the user ("python: pid 12 (python3.7): no known layout for CPython
 * 3.7, native frames only"), or NULL. */
const char *pystacks_notice(const struct pystacks *p);

struct pystacks_stats {
	uint64_t samples;        /* samples of CPython processes */
	uint64_t with_python;    /* ... that got Python frames */
	uint64_t read_failed;    /* ... whose stack could not be read (thread gone, torn read) */
	uint64_t late;           /* ... without a read of the watcher near their time: native only */
	uint64_t gap_n;          /* gaps measured: the sample's time to its stack's read */
	uint64_t gap_sum_ns, gap_max_ns;
	uint64_t gap_hist[8];    /* < 0.1, 0.5, 1, 2, 5, 20, 50 ms, more */
	uint64_t watcher_reads, watcher_cpu_ns;
	uint64_t watcher_mean_ns; /* the watcher's mean interval between reads now */
	/* process memory read: system calls, those that failed, bytes; the watcher's and the
	 * session's own (its names, line tables and processes looked at) */
	uint64_t watcher_calls, watcher_failed, watcher_bytes;
	uint64_t session_calls, session_failed, session_bytes;
};
void pystacks_get_stats(const struct pystacks *p, struct pystacks_stats *st);

/*
 * The splice alone (pure, for the tests): py[0..npy) innermost first, group[i] the index of the
 * eval-loop call (innermost 0) that runs py[i]; interp_dso the basename of the interpreter's binary
 * (libpython3.x.so.1.0 or python3.x). Writes the chain into out (room for max) and returns its
 * length.
 */
int pystacks_splice(const struct frame *native, int n, const struct frame *py, const int *group,
		    int npy, const char *interp_dso, struct frame *out, int max);

#endif
