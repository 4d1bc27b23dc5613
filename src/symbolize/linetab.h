/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * linetab: one compile unit's DWARF line table decoded straight from .debug_line into compact
 * arrays, answering what dwarf_getsrc_die / dwarf_getsrcfiles + dwarf_filesrc answer (file names
 * reduced to their basename, which is all perftop shows). See linetab.c for why.
 */
#ifndef PERFTOP_SYMBOLIZE_LINETAB_H
#define PERFTOP_SYMBOLIZE_LINETAB_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct linetab;

/* The CU's table, or NULL when the decoder does not understand it (unknown version or form,
 * truncated or inconsistent data, a split or type unit...): the caller then asks libdw. */
struct linetab *linetab_decode(Dwarf_Die *cu);
void linetab_free(struct linetab *t);

/* dwarf_getsrc_die(cu, pc): true and the row's file basename and line, or false when libdw gives
 * no row, or a row whose file dwarf_linesrc cannot name. */
bool linetab_line(const struct linetab *t, uint64_t pc, const char **base, int *line);

/* dwarf_filesrc(files, idx)'s basename, NULL when idx is out of range. */
const char *linetab_file(const struct linetab *t, uint64_t idx);
size_t linetab_nfiles(const struct linetab *t);

/* The rows' addresses, sorted (for tests). */
size_t linetab_nrows(const struct linetab *t);
uint64_t linetab_row_addr(const struct linetab *t, size_t i);

/* A bounded cache of decoded tables (LINETAB_CACHE_CUS, replaced in a ring), remembering also the
 * CUs the decoder gave up on. */
#define LINETAB_CACHE_CUS 256
struct linetab_cache;
struct linetab_cache *linetab_cache_new(void);
void linetab_cache_free(struct linetab_cache *c);
/* The table of cu, decoded on first use; NULL: use libdw for this CU. */
const struct linetab *linetab_get(struct linetab_cache *c, Dwarf_Die *cu);

#endif
