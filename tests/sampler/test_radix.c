/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_radix: util/radix.c against a reference (qsort by key, then by original position) on the
 * key shapes it meets: addresses sharing their high bytes, times, all equal, every byte varying,
 * short arrays (insertion sort) and empty ones, and arrays made of a few ordered runs (merged). Stability is what the perf.data reorder window
 * relies on (equal times keep arrival order).
 */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "util/radix.h"

static int ref_cmp(const void *a, const void *b)
{
	const struct radix_kv *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->val < y->val ? -1 : x->val > y->val;
}

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Sorts v (room for 2n) and ref (a copy) each its way; returns how many places differ. Frees both. */
static size_t sort_and_compare(struct radix_kv *v, struct radix_kv *ref, size_t n)
{
	qsort(ref, n, sizeof(*ref), ref_cmp);
	const struct radix_kv *got = radix_sort_kv(v, v + n, n);
	size_t bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += got[i].key != ref[i].key || got[i].val != ref[i].val;
	free(v);
	free(ref);
	return bad;
}

static void check_shape(size_t n, uint64_t base, uint64_t mask)
{
	struct radix_kv *v = malloc((n + 1) * 2 * sizeof(*v)), *ref = malloc((n + 1) * sizeof(*ref));
	for (size_t i = 0; i < n; i++) {
		v[i] = (struct radix_kv){ .key = base + (rnd() & mask), .val = i };
		ref[i] = v[i];
	}
	size_t bad = sort_and_compare(v, ref, n);
	if (bad)
		printf("n=%zu base=%llx mask=%llx: %zu out of place\n", n, (unsigned long long)base,
		       (unsigned long long)mask, bad);
	CHECK(bad == 0);
}

/* k ordered runs one after the other (one per CPU ring): the merge path, stable on ties. */
static void check_runs(size_t n, size_t k)
{
	struct radix_kv *v = malloc((n + 1) * 2 * sizeof(*v)), *ref = malloc((n + 1) * sizeof(*ref));
	for (size_t i = 0; i < n; i++) {
		size_t run = i * k / (n ? n : 1);
		v[i] = (struct radix_kv){ .key = 1000 + (i - run * n / k) * 3 + (rnd() & 3), .val = i };
		if (i && v[i - 1].key > v[i].key && run == (i - 1) * k / n)
			v[i].key = v[i - 1].key;  /* keep each run in order */
		ref[i] = v[i];
	}
	size_t bad = sort_and_compare(v, ref, n);
	if (bad)
		printf("runs n=%zu k=%zu: %zu out of place\n", n, k, bad);
	CHECK(bad == 0);
}

int main(void)
{
	static const size_t ks[] = { 1, 2, 3, 7, 16, 17, 40 };
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		check_runs(1000, ks[i]);
		check_runs(5000, ks[i]);
	}
	static const size_t sizes[] = { 0, 1, 2, 31, 32, 33, 1000, 70000 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		check_shape(sizes[i], 0x7f0000400000ull, 0xfffff);          /* one binary's addresses */
		check_shape(sizes[i], 1700000000000000000ull, 0xffffffff);  /* times */
		check_shape(sizes[i], 42, 0);                                /* all equal: stability */
		check_shape(sizes[i], 0, 0xf);                               /* few distinct keys */
		check_shape(sizes[i], 0, ~0ull);                             /* every byte varies */
	}
	return CHECK_DONE();
}
