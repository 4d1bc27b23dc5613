/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * frame: one resolved stack frame, the plain value the symbolizer produces and the model consumes.
 * It lives in util so that neither of those layers depends on the other. The strings are interned by
 * the symbolizer: equal names are equal pointers, and they stay put until the symbolizer compacts
 * its pool (below), when every holder moves them together.
 */
#ifndef PERFTOP_FRAME_H
#define PERFTOP_FRAME_H

#include <stdbool.h>
#include <stdint.h>

struct frame {
	const char *sym;      /* function name; never NULL: unresolved reads "0x00007f12..." as perf does */
	const char *dso;      /* short dso name as perf prints it: basename, [kernel.kallsyms], [vdso], [unknown] */
	const char *srcline;  /* "file.c:123" or NULL when unknown (debug-info issue) */
	uint64_t addr;        /* the address looked up */
	uint64_t sym_start;   /* start of the function in the dso's file address space; 0 when unknown */
	uint64_t va;          /* addr in that same space (annotate counts by it); 0 when unknown */
	bool inlined;         /* an inline frame expanded from the address (debug-info issue) */
	bool kernel;
};

/*
 * The symbolizer bounds its pool by compacting it (symbolize/intern.h): then every name moves to a
 * new address. Whoever keeps names (the model's rows and nodes, a view's zoom) re-points them
 * through a function of this type: the new pointer of the same name, and NULL for NULL (a key
 * not in use), so that holders pass every name through it without a test of their own.
 */
typedef const char *(*frame_rename_fn)(void *ctx, const char *name);

#endif
