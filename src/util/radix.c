/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * radix: see radix.h. An array made of a few ordered runs is merged; otherwise byte histograms
 * are built in one pass, for the key bytes that vary only, and one scatter pass per such byte.
 * Short arrays go through insertion sort (stable too).
 */
#include "util/radix.h"

#include <string.h>

#define RADIX_MAX_RUNS 16   /* up to this many ordered runs are merged rather than sorted */

/* Merges ordered runs pairwise, left first on ties (stable), until one is left. */
static struct radix_kv *merge_runs(struct radix_kv *v, struct radix_kv *tmp, size_t n, size_t *start,
				   size_t nruns)
{
	struct radix_kv *src = v, *dst = tmp;
	while (nruns > 1) {
		size_t out = 0;
		for (size_t r = 0; r < nruns; r += 2) {
			size_t a = start[r], amax = r + 1 < nruns ? start[r + 1] : n;
			size_t b = amax, bmax = r + 2 < nruns ? start[r + 2] : n;
			size_t o = a;
			while (a < amax && b < bmax)
				dst[o++] = src[b].key < src[a].key ? src[b++] : src[a++];
			while (a < amax)
				dst[o++] = src[a++];
			while (b < bmax)
				dst[o++] = src[b++];
			start[out++] = start[r];
		}
		nruns = out;
		struct radix_kv *t = src;
		src = dst;
		dst = t;
	}
	return src;
}

struct radix_kv *radix_sort_kv(struct radix_kv *v, struct radix_kv *tmp, size_t n)
{
	if (n < 32) {
		for (size_t i = 1; i < n; i++) {
			struct radix_kv x = v[i];
			size_t j = i;
			while (j > 0 && v[j - 1].key > x.key) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
		return v;
	}
	/* One pass for what can be skipped: runs already in order (records of one round come as one
	 * run per CPU ring), and the key bytes on which all keys agree (the high bytes of times and
	 * addresses). */
	uint64_t differ = 0, first = v[0].key;
	size_t run_start[RADIX_MAX_RUNS + 1], nruns = 1;
	run_start[0] = 0;
	for (size_t i = 1; i < n; i++) {
		differ |= v[i].key ^ first;
		if (v[i - 1].key > v[i].key && nruns <= RADIX_MAX_RUNS)
			run_start[nruns++] = i;
	}
	if (nruns <= RADIX_MAX_RUNS)
		return merge_runs(v, tmp, n, run_start, nruns);
	static _Thread_local size_t count[8][256];
	int bytes[8], nb = 0;
	for (int b = 0; b < 8; b++)
		if ((differ >> (8 * b)) & 0xff) {
			memset(count[b], 0, sizeof(count[b]));
			bytes[nb++] = b;
		}
	for (size_t i = 0; i < n; i++) {
		uint64_t k = v[i].key;
		for (int j = 0; j < nb; j++)
			count[bytes[j]][(k >> (8 * bytes[j])) & 0xff]++;
	}
	struct radix_kv *src = v, *dst = tmp;
	for (int j = 0; j < nb; j++) {
		int b = bytes[j];
		size_t *c = count[b];
		size_t sum = 0;
		for (int d = 0; d < 256; d++) {
			size_t t = c[d];
			c[d] = sum;
			sum += t;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[(src[i].key >> (8 * b)) & 0xff]++] = src[i];
		struct radix_kv *t = src;
		src = dst;
		dst = t;
	}
	return src;
}
