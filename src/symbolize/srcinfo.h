/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * srcinfo: what DWARF says about one code address of a binary: the chain of functions inlined at it
 * (innermost first) and the source file:line of each frame, read through libdw and cached per binary.
 *
 * A binary (dso) owns one srcinfo. The dso resolves the ELF symbol itself (its own sorted array) and
 * hands that over; srcinfo adds the inline frames in front of it and the srclines, so that a binary
 * without DWARF costs one flag test. Strings are interned like every frame string.
 *
 * Naming follows perf: an inline frame's sym is the function's linkage name (mangled; demangling is
 * the display's) followed by " (inlined)"; a srcline is "basename.c:LINE", and where no line is known
 * "SYM+OFFSET" (decimal), or "??:0" without a symbol, which is what perf report --sort srcline prints.
 */
#ifndef PERFTOP_SYMBOLIZE_SRCINFO_H
#define PERFTOP_SYMBOLIZE_SRCINFO_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/frame.h"

struct intern;
struct srcinfo;

/* What a lookup wants; the cache keeps what was computed for each address. */
#define SRCINFO_INLINE  1u   /* expand inline frames */
#define SRCINFO_SRCLINE 2u   /* fill frame.srcline */

/* Entries kept per binary before its cache starts over (addresses, not frames). */
#define SRCINFO_CACHE_MAX 65536

struct srcinfo *srcinfo_new(struct intern *in);
/* The pool is being compacted (intern.h): every name the cache holds moves to the new generation. */
void srcinfo_move_names(struct srcinfo *si);
void srcinfo_free(struct srcinfo *si);

/*
 * Frames for file virtual address va of module mod (module address = va + bias), whose ELF symbol is
 * sym starting at sym_start (both from the dso). mod may be NULL (no DWARF: srclines fall back as
 * perf's do). Writes the inline frames, innermost first, then the ELF frame; at most max (inline
 * frames are dropped when they do not fit, never the ELF frame). Fills sym, sym_start, srcline and
 * inlined; returns the number written (>= 1 when max >= 1).
 */
int srcinfo_lookup(struct srcinfo *si, Dwfl_Module *mod, uint64_t bias, uint64_t va, const char *sym,
		   uint64_t sym_start, unsigned want, struct frame *out, int max);

/* Answers of earlier sessions for this binary: the store at path (srcstore.h) if it has this
 * identity; this session's new answers are added to it when si is freed. NULL: none. */
void srcinfo_set_store(struct srcinfo *si, const char *path, uint64_t identity);
/* True when va can be answered for want without DWARF (cached here or in the store): the dso then
 * does not load DWARF for it. */
bool srcinfo_known(struct srcinfo *si, uint64_t va, unsigned want);

/* A Go binary's function table (gopclntab.h), answering for addresses DWARF does not cover (none, or
 * no unit found): inline frames and lines as DWARF would give them. NULL: none. Must outlive its use. */
struct gopcln;
void srcinfo_set_go(struct srcinfo *si, const struct gopcln *go);

/* Lookups answered from the cache / computed (cold), for the bench and tests. */
void srcinfo_counts(const struct srcinfo *si, uint64_t *hits, uint64_t *misses);

#endif
