/*
 * export_int: what the export's encoders share: a small map from two 64-bit keys to dense ids
 * (pprof's functions and locations, speedscope's frames).
 */
#ifndef PERFTOP_EXPORT_INT_H
#define PERFTOP_EXPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pp_slot {
	uint64_t k1, k2;
	uint32_t id;    /* 0: empty (ids start at 1) */
};

struct pp_map {
	struct pp_slot *slot;
	size_t mask, used;
};

/* The id of (k1, k2); a new one is next_id (>= 1), and *added says so. 0 when out of memory. Free
 * the map with free(m->slot). */
uint32_t pp_map_get(struct pp_map *m, uint64_t k1, uint64_t k2, uint32_t next_id, bool *added);

#endif
