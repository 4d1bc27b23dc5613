/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * srcstore: srcinfo's answers for one binary kept on disk, so that the next session that meets the
 * same addresses of the same build does not read its DWARF again.
 *
 * Reading DWARF is most of what a replay of a --call-graph dwarf recording costs: each compile unit a
 * chain passes through has its line table decoded and its functions indexed (libdw: ~4 M
 * instructions per CPython CU), which is the same work for the same binary every time. So srcinfo's
 * per-address results (the inline frames, the source lines) are written, when the binary is closed,
 * to <cache>/srcinfo/BUILDID.si, and a later session maps that file and answers from it: DWARF is
 * opened only for addresses the file does not hold.
 *
 * Validity: a build-id fixes the code and, for a debug file that matches it, the DWARF; what can still
 * change is whether debug information is found at all (a -dbg package installed later, a debuginfod
 * fetch), so the caller's identity value (a hash of where the DWARF comes from) is in the header and
 * a file with another identity is ignored and replaced. The file is bounded (SRCSTORE_MAX_ENTRIES),
 * written to a temporary name and renamed; reading it checks every offset it follows.
 */
#ifndef PERFTOP_SYMBOLIZE_SRCSTORE_H
#define PERFTOP_SYMBOLIZE_SRCSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SRCSTORE_MAX_ENTRIES (1u << 20)

struct srcstore_frame {
	const char *sym;       /* NULL: the ELF frame (its name comes from the symbol table) */
	const char *srcline;   /* or NULL */
	bool inlined;
};

struct srcstore;

/* The file at path when it is a store of this identity; NULL otherwise (missing, other identity,
 * damaged header). */
struct srcstore *srcstore_open(const char *path, uint64_t identity);
void srcstore_close(struct srcstore *st);
size_t srcstore_count(const struct srcstore *st);

/* The frames kept for va: returns how many (>= 1) and fills f[0..min(n, max)), *want (what they were
 * computed with) and *leaf; 0 when va is not there or its entry is damaged. The strings point into the
 * mapping: valid until srcstore_close. By index too, for rewriting a store (i < count). */
int srcstore_get(const struct srcstore *st, uint64_t va, unsigned *want, const char **leaf,
		 struct srcstore_frame *f, int max);
int srcstore_get_at(const struct srcstore *st, size_t i, uint64_t *va, unsigned *want, const char **leaf,
		    struct srcstore_frame *f, int max);

/* A new store, entry by entry (strings are copied); for one va the last entry added wins. */
struct srcstore_writer;
struct srcstore_writer *srcstore_writer_new(void);
void srcstore_writer_add(struct srcstore_writer *w, uint64_t va, unsigned want, const char *leaf,
			 const struct srcstore_frame *f, int n);
/* Writes path (through a temporary file and a rename); false on any error (nothing replaced). */
bool srcstore_writer_save(struct srcstore_writer *w, const char *path, uint64_t identity);
void srcstore_writer_free(struct srcstore_writer *w);

#endif
