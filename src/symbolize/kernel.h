/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel: kernel addresses through /proc/kallsyms, loaded once on the first kernel address. Core
 * kernel symbols belong to dso "[kernel.kallsyms]", module symbols to "[modname]", as perf names
 * them. When kallsyms shows only zeros (kernel.kptr_restrict) this is said once and every kernel
 * address stays unresolved.
 */
#ifndef PERFTOP_SYMBOLIZE_KERNEL_H
#define PERFTOP_SYMBOLIZE_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "util/frame.h"

struct intern;
struct kernel;

/* path: NULL for /proc/kallsyms (tests give their own file). */
struct kernel *kernel_new(struct intern *in, const char *path);
void kernel_free(struct kernel *k);
/* The pool is being compacted (intern.h): the names held here move to the new generation
 * (names of symbols are interned again on their next lookup). */
void kernel_move_names(struct kernel *k);
/* The cached table's pages leave the resident set (see unwind_release_pages): a bisection
 * touches pages all over its megabytes, which otherwise all stay resident. */
void kernel_release_pages(struct kernel *k);

/* Fills out->sym, dso, sym_start when a text symbol holds addr; returns 1, else 0. */
int kernel_lookup(struct kernel *k, uint64_t addr, struct frame *out);

/* Interned "[kernel.kallsyms]". */
const char *kernel_dso_name(const struct kernel *k);
/* Whether the table came from the cache of a previous run (same boot, same modules). */
bool kernel_from_cache(const struct kernel *k);
/* Text symbols loaded (loads them); 0 when hidden or unreadable. */
long kernel_symbol_count(struct kernel *k);

#endif
