/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diff: a baseline to compare the live (or replayed) table with, for --diff BASE.data. The base
 * is one snapshot of a recording, aggregated with the same sort keys, so a row of either side is
 * the same row when its stable id (a hash of the key values) is the same.
 *
 * Each row of a snapshot then gets base_self (its Self% in the base) and delta (Self% now minus
 * Self% in the base, the sense perf diff prints; in the time modes, --off-cpu and --wall, Total%
 * instead, as their table's figures are); rows the base does not have are marked new, and
 * the base's rows that have no counterpart now are appended, marked gone, with Self 0, so that
 * what disappeared is seen too. Ordered by COL_DELTA, the biggest changes either way come first.
 */
#ifndef PERFTOP_DIFF_H
#define PERFTOP_DIFF_H

#include <stddef.h>

#include "model/snapshot.h"

struct diff_base;

/* Copies what it needs of base (ids, Self% and Total%, the names), so base may be freed after. */
struct diff_base *diff_base_new(const struct snapshot *base);
void diff_base_free(struct diff_base *b);
size_t diff_base_nrows(const struct diff_base *b);

/* Fills every row's base_self, delta and diff state, appends the gone rows (whose strings stay
 * b's: b must outlive s), sets s->diff and sorts s again in its order. */
void diff_apply(const struct diff_base *b, struct snapshot *s);

#endif
