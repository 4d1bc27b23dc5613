/*
 * radix: see radix.h. Byte histograms for all eight key bytes come from one pass; a byte on which
 * every key agrees is skipped. Short arrays go through insertion sort (stable too).
 */
#include "util/radix.h"

#include <string.h>

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
	static _Thread_local size_t count[8][256];
	memset(count, 0, sizeof(count));
	for (size_t i = 0; i < n; i++) {
		uint64_t k = v[i].key;
		for (int b = 0; b < 8; b++)
			count[b][(k >> (8 * b)) & 0xff]++;
	}
	struct radix_kv *src = v, *dst = tmp;
	for (int b = 0; b < 8; b++) {
		size_t *c = count[b];
		if (c[(src[0].key >> (8 * b)) & 0xff] == n)
			continue;  /* every key has the same byte here */
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
