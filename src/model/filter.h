/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter: the rows the user narrows the table to, htop style. A query is a substring, or several
 * separated by '|' (any may match), compared without case against the names a row shows: its
 * symbol, its shared object and its command, and its container (or that of the process with most of
 * its samples) and cgroup. Filtering never changes a row's percentages: they
 * stay shares of the whole window, so a filtered table reads like the full one with lines hidden.
 *
 * The same matching serves the incremental search (/), which moves the cursor instead of hiding
 * rows, so that what / finds and what \ keeps never disagree.
 */
#ifndef PERFTOP_FILTER_H
#define PERFTOP_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "model/snapshot.h"

/* Whether r matches query (empty query: every row). */
bool filter_row_matches(const struct snap_row *r, const char *query);
/* The same over any names (a row's are its symbol, dso and command; an exported stack's are its
 * command and its frames' names and dsos). */
bool filter_names_match(const char *query, const char *const *names, size_t nnames);

/* A new snapshot with only the rows of full that match query, in full's order, sharing its strings
 * and (borrowed, not owned) its call tree: free it with snapshot_free before full. */
struct snapshot *snapshot_filter(const struct snapshot *full, const char *query);

#endif
