/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pyint: what the files of src/python share: a CPython layout (the struct offsets the reader
 * needs), how a process's interpreter is found (pyproc.c) and how a thread's frames are read
 * (pyread.c).
 */
#ifndef PERFTOP_PYINT_H
#define PERFTOP_PYINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PY_NO_FIELD UINT64_MAX

/* Offsets in bytes of the fields the reader follows; PY_NO_FIELD where a version has none. */
struct pylayout {
	int major, minor;
	uint64_t rt_interp_head;     /* _PyRuntimeState: interpreters.head */
	uint64_t is_threads_head;    /* PyInterpreterState: threads.head */
	uint64_t ts_next, ts_native_tid;
	uint64_t ts_cframe;          /* PyThreadState: cframe (3.11, 3.12), else PY_NO_FIELD */
	uint64_t cf_current_frame;   /* _PyCFrame: current_frame */
	uint64_t ts_current_frame;   /* PyThreadState: current_frame (3.13+) */
	uint64_t fr_code, fr_previous, fr_instr, fr_owner;
	uint64_t fr_is_entry;        /* 3.11: is_entry; later versions mark entries by a C-stack frame */
	uint64_t co_name, co_qualname, co_filename, co_firstlineno, co_linetable, co_code_adaptive;
	uint64_t u_state, u_length, u_ascii_size, u_compact_size;
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
};

/* Looks at process pid. 1: a CPython perftop reads (p filled); 0: not a CPython process; -1: a
 * CPython it cannot read, with why in err ("no known layout for CPython 3.10"). */
int pyproc_find(pid_t pid, struct pyproc *p, char *err, size_t errlen);

/* Reads len bytes at addr of process pid: 0, or -errno (a short read is -EFAULT). */
int py_read(pid_t pid, uint64_t addr, void *buf, size_t len);

#endif
