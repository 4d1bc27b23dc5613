/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * radix: a stable sort of (64-bit key, value) pairs by key.
 *
 * Symbol tables (tens of thousands of entries per binary) and the perf.data reorder window are
 * sorted by address or time on the replay's critical path, where qsort's comparator calls cost
 * more than the rest of loading a binary's symbols. A least-significant-digit radix sort touches
 * each pair twice per byte that varies (addresses in one binary share their high bytes, which are
 * skipped), with no comparisons.
 */
#ifndef PERFTOP_UTIL_RADIX_H
#define PERFTOP_UTIL_RADIX_H

#include <stddef.h>
#include <stdint.h>

struct radix_kv {
	uint64_t key, val;
};

/* Sorts v[0..n) by key, stable (equal keys keep their order). tmp has room for n pairs. Returns
 * the sorted array: v or tmp. */
struct radix_kv *radix_sort_kv(struct radix_kv *v, struct radix_kv *tmp, size_t n);

#endif
