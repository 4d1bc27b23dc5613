/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stacklog: the samples of a window kept as they came, cheaply, for a stack collector that may
 * never be asked for (the view's w key). Appending a sample copies its frames' name pointers,
 * addresses and labels into one bounded byte arena; none of the collector's work (hashing frames
 * and stacks, copying names, describing frames) is done until the log is read back into a
 * stackcol, in the order the samples came, so that the collector ends up as it would have been fed
 * sample by sample.
 *
 * What cannot wait is what a later moment answers differently: which mapping of its process an
 * address of a user frame was in (the process may exit, exec or unmap before the log is read). The
 * log asks that of the session (stacklog_map_fn) as each sample comes, through a small cache of the
 * last mapping of each (pid, dso) checked against the address's range and dropped when an address
 * space may have changed (stacklog_maps_changed), and keeps a copy of each mapping.
 *
 * Names are pointers into the symbolizer's pool: when the pool is compacted the log re-points them
 * (stacklog_move_names), as the model does. Bounded: the arena, the mappings and their paths share
 * max_bytes; a sample past it is refused (stacklog_add false) and the caller reads the log into its
 * collector and starts it over. Kernel frames are never asked about (they have no process mapping).
 * A log belongs to one thread (the session's); it takes no locks.
 */
#ifndef PERFTOP_EXPORT_STACKLOG_H
#define PERFTOP_EXPORT_STACKLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "util/frame.h"

#define STACKLOG_NO_MAP UINT32_MAX

/* A mapping as the session found it; path and build_id are copied. */
struct stacklog_mapping {
	uint64_t start, limit, offset;
	const char *path;
	const uint8_t *build_id;
	size_t build_id_size;
};
/* The mapping of f's address in pid's address space now; false: none to keep (unmapped, or a
 * frame whose description needs none). On false, out->start and out->limit come in as the frame's
 * address alone and may be widened to the addresses the same answer holds for (a dso whose frames
 * never need one: every address), so that the log does not ask again for each. */
typedef bool (*stacklog_map_fn)(void *ctx, uint32_t pid, const struct frame *f,
				struct stacklog_mapping *out);

/* A copy kept by the log (stacklog_get_map). */
struct stacklog_map {
	uint64_t start, limit, offset;
	const char *path;
	uint8_t build_id[20];
	uint8_t build_id_size;
};

/* One sample read back: ctx's frames (leaf first) and maps[i], frame i's mapping or
 * STACKLOG_NO_MAP, valid until the next stacklog_next. */
struct stacklog_entry {
	int event;
	uint64_t time;
	struct sample_ctx ctx;
	const uint32_t *maps;
};

struct stacklog;

/* max_bytes: the arena's, the mappings' and their paths' bytes together. NULL when out of memory. */
struct stacklog *stacklog_new(size_t max_bytes, stacklog_map_fn map, void *map_ctx);
void stacklog_free(struct stacklog *l);
/* Forgets every sample and mapping, keeping the allocations. */
void stacklog_reset(struct stacklog *l);
/* Process pid's address space may have changed (its MMAP, COMM or FORK record), or (all) any
 * process's (an EXIT: the dead one that makes room may be any; a kernel mapping; anything else):
 * what the mapping cache holds of it is dropped. */
void stacklog_maps_changed(struct stacklog *l, uint32_t pid, bool all);
/* Keeps sample s of event at time; false when it does not fit (nothing is kept then). */
bool stacklog_add(struct stacklog *l, int event, uint64_t time, const struct sample_ctx *s);
/* The names were compacted (util/frame.h): every name held becomes rename(ctx, name). */
void stacklog_move_names(struct stacklog *l, frame_rename_fn rename, void *ctx);

size_t stacklog_nsamples(const struct stacklog *l);
/* The bytes the log holds allocated now. */
size_t stacklog_bytes(const struct stacklog *l);
/* Reading in arrival order: *pos 0 first; false past the last sample. */
bool stacklog_next(struct stacklog *l, size_t *pos, struct stacklog_entry *out);
const struct stacklog_map *stacklog_get_map(const struct stacklog *l, uint32_t id);

#endif
