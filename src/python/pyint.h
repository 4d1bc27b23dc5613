/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pyint: what the files of src/python share: a CPython layout (the struct offsets the reader
 * needs), how a process's interpreter is found (pyproc.c) and how a thread's frames are read
 * (pyread.c). Two kinds of frame chains: 3.11+'s _PyInterpreterFrames (one C call of the eval loop
 * runs a run of them) and 3.8-3.10's PyFrameObjects (one C call each).
 */
#ifndef PERFTOP_PYINT_H
#define PERFTOP_PYINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PY_NO_FIELD UINT64_MAX

/* How a code object maps an instruction to its line. */
enum py_lines {
	PY_LINES_LOCATIONS = 0,      /* 3.11+: co_linetable of location entries, by code unit */
	PY_LINES_LNOTAB,             /* 3.8, 3.9: co_lnotab, (byte offset, line) increments */
	PY_LINES_310,                /* 3.10: co_linetable, (byte length, line delta) ranges */
};

/* Offsets in bytes of the fields the reader follows; PY_NO_FIELD where a version has none. */
struct pylayout {
	int major, minor;
	uint64_t rt_interp_head;     /* _PyRuntimeState: interpreters.head */
	uint64_t is_threads_head;    /* PyInterpreterState: threads.head (3.8-3.10: tstate_head) */
	uint64_t ts_next, ts_native_tid;
	uint64_t ts_cframe;          /* PyThreadState: cframe (3.11, 3.12), else PY_NO_FIELD */
	uint64_t cf_current_frame;   /* _PyCFrame: current_frame */
	uint64_t ts_current_frame;   /* PyThreadState: current_frame (3.13+), frame (3.8-3.10) */
	uint64_t fr_code, fr_previous;
	uint64_t fr_instr;           /* prev_instr, a pointer; 3.8-3.10: f_lasti, an int */
	uint64_t fr_owner;
	uint64_t fr_is_entry;        /* 3.11: is_entry; later versions mark entries by a C-stack frame */
	uint64_t co_name, co_qualname, co_filename, co_firstlineno, co_linetable, co_code_adaptive;
	uint64_t u_state, u_length, u_ascii_size, u_compact_size;
	/* The 3.8-3.10 layouts only (the fields above are walked as one array by pyproc.c). */
	uint64_t ts_pthread;         /* PyThreadState: thread_id, the pthread_t (no native id) */
	uint64_t rt_size;            /* sizeof(_PyRuntimeState): confirms the version; 0: unchecked */
	bool frame_objects;          /* PyFrameObject chains: f_back, f_code, f_lasti */
	int lasti_unit;              /* bytes per unit of f_lasti: 1 (3.8, 3.9), 2 (3.10) */
	enum py_lines lines;
};

/* _PyInterpreterFrame.owner values. */
#define PY_OWNED_BY_GENERATOR 1
#define PY_OWNED_BY_CSTACK 3

/* The table's layout for a minor version, or NULL. */
const struct pylayout *pylayout_known(int major, int minor);
/* A 3.13 layout from the _Py_DebugOffsets image at the start of _PyRuntime (buf, len bytes). 0, or
 * -1 when it is not one perftop can read. */
int pylayout_from_debug(const uint8_t *buf, size_t len, struct pylayout *out);

/* A CPython process as found: where its runtime is and which layout it has. */
struct pyproc {
	uint64_t runtime;            /* address of _PyRuntime */
	struct pylayout lay;
	char dso[64];                /* basename of the binary holding the interpreter */
	char version[16];            /* "3.11" */
	/* Where glibc's struct pthread holds the thread's tid (the layouts with ts_pthread): from the
	 * process's libc (_thread_db_pthread_tid), else PY_PTHREAD_TID. */
	uint64_t pthread_tid;
};

/* glibc's offsetof(struct pthread, tid) on x86-64 (2.36, Debian 12), for a libc that says none. */
#define PY_PTHREAD_TID 720

/* Looks at process pid. 1: a CPython perftop reads (p filled); 0: not a CPython process; -1: a
 * CPython it cannot read, with why in err ("no known layout for CPython 3.7"). */
int pyproc_find(pid_t pid, struct pyproc *p, char *err, size_t errlen);

/* Reads len bytes at addr of process pid: 0, or -errno (a short read is -EFAULT). */
int py_read(pid_t pid, uint64_t addr, void *buf, size_t len);

/* One part of a read of several in one system call. */
struct py_span {
	uint64_t addr;
	void *buf;
	size_t len;
};
#define PY_SPANS_MAX 8
/* Reads the spans s[0..n) (n at most PY_SPANS_MAX) in order in one system call: how many of the
 * first ones were read whole (a span that cannot be read ends the read). */
int py_readv(pid_t pid, const struct py_span *s, int n);

/* The calling thread's reads of process memory since its last py_io_take. */
struct py_io {
	uint64_t calls, failed, bytes;
};
void py_io_take(struct py_io *out);

#endif
