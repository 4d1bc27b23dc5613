/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hash: the small hash functions the model's tables and stable ids share, and plain FNV-1a for the
 * symbolizer's tables and cache fingerprints. Ids built from them
 * are compared across refreshes, sessions and runs (a row's id, a call-path id), so they must stay
 * bit-for-bit the same: change them only knowing that saved view state keyed by ids changes too.
 */
#ifndef PERFTOP_HASH_H
#define PERFTOP_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A 64-bit finalizer (splitmix64's): every input bit moves about half the output bits. */
static inline uint64_t hash_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* Linear probing without tombstones: after the entry at hole is removed, the entry at j (later in
 * the same probe run, cyclically), whose home slot is home, must move back into the hole unless its
 * home lies in the cyclic range (hole, j]. */
static inline bool probe_must_move(size_t home, size_t hole, size_t j)
{
	return hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
}

/* FNV-1a over n bytes: the plain form (no finalizer), for hash tables keyed by strings and for
 * fingerprints that files keep (the kallsyms cache's modules hash). */
static inline uint64_t hash_fnv1a(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return h;
}

/* Folds string s (NULL is a value of its own) into h: FNV-1a over the bytes, then mixed. */
static inline uint64_t hash_str(uint64_t h, const char *s)
{
	if (!s)
		return hash_mix64(h ^ 0x6e756c6cULL);
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return hash_mix64(h ^ 0xffULL);
}

#endif
