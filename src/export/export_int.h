/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * export_int: what the export's encoders share: appending to their byte buffer, which events'
 * weights are nanoseconds, and a small map from two 64-bit keys to dense ids (pprof's functions
 * and locations, speedscope's frames).
 */
#ifndef PERFTOP_EXPORT_INT_H
#define PERFTOP_EXPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "export/export.h"
#include "util/hashtab.h"

/* Room for more bytes after b's; false once an allocation failed (b->failed says so). */
bool export_buf_reserve(struct export_buf *b, size_t more);

/* Appends n bytes to b; nothing once b failed. Inline: the text encoders add a byte at a time. */
static inline void export_buf_put(struct export_buf *b, const void *p, size_t n)
{
	if (!n || ((b->failed || b->len + n > b->cap) && !export_buf_reserve(b, n)))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

/* The time modes (--off-cpu, --wall): every event's weights are nanoseconds. */
static inline bool export_time_mode(const struct export_profile *p)
{
	return p->mode == PROFILE_OFFCPU || p->mode == PROFILE_WALL;
}

/* cpu-clock and task-clock periods are nanoseconds of CPU time. */
static inline bool export_event_is_cpu_time(const char *name)
{
	return name && (strncmp(name, "cpu-clock", 9) == 0 || strncmp(name, "task-clock", 10) == 0);
}

struct pp_ent {
	uint64_t k1, k2;
	uint32_t id;
};

/* Starts zeroed ({ 0 }); bounded by what it maps (a collector's frames or stacks). */
struct pp_map {
	struct hashtab idx; /* indices into ent */
	struct pp_ent *ent;
	size_t n, cap;
};

/* The id of (k1, k2); a new one is next_id (>= 1), and *added says so. 0 when out of memory. */
uint32_t pp_map_get(struct pp_map *m, uint64_t k1, uint64_t k2, uint32_t next_id, bool *added);
void pp_map_free(struct pp_map *m);

#endif
