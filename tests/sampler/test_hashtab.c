/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_hashtab: util/hashtab.c as its users drive it (keys in the caller's array, the table holding
 * their indices): insert, find, delete and growth, the max_entries bound, a constant hash (every key
 * in one probe run, so deletion's backward shift is exercised across wrap-around), and long random
 * mixes of operations checked against a trivial reference (a linear list of the live keys).
 */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "util/hash.h"
#include "util/hashtab.h"

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* The caller's side: keys by index, and how it hashes them (hash_mode 0: well mixed, 1: constant,
 * 2: only 4 distinct hashes). */
#define NKEYS 4096
static uint64_t keys[NKEYS];
static int hash_mode;

static uint64_t key_hash(uint64_t k)
{
	switch (hash_mode) {
	case 1: return 42;
	case 2: return hash_mix64(k & 3);
	default: return hash_mix64(k);
	}
}

/* The index of key k in the table, or -1; with del, removes it. */
static long find(struct hashtab *t, uint64_t k, bool del)
{
	struct hashtab_iter it = hashtab_probe(t, key_hash(k));
	uint32_t v;
	while (hashtab_next(t, &it, &v)) {
		if (keys[v] == k) {
			if (del)
				hashtab_del(t, &it);
			return v;
		}
	}
	return -1;
}

/* Adds k at index idx when absent; returns what hashtab_add said (true when present already). */
static bool add(struct hashtab *t, uint64_t k, uint32_t idx)
{
	struct hashtab_iter it = hashtab_probe(t, key_hash(k));
	uint32_t v;
	while (hashtab_next(t, &it, &v))
		if (keys[v] == k)
			return true;
	keys[idx] = k;
	return hashtab_add(t, &it, idx);
}

static void test_basic(void)
{
	struct hashtab t;
	hashtab_init(&t, 4, SIZE_MAX);
	hash_mode = 0;
	CHECK(find(&t, 7, false) == -1);  /* nothing allocated yet */
	CHECK_EQ_U64(hashtab_slots(&t), 0);
	for (uint32_t i = 0; i < 1000; i++)
		CHECK(add(&t, 1000 + i * 7, i));
	CHECK_EQ_U64(hashtab_count(&t), 1000);
	CHECK(hashtab_slots(&t) >= 2000);  /* grew, never more than half full */
	for (uint32_t i = 0; i < 1000; i++)
		CHECK_EQ_U64(find(&t, 1000 + i * 7, false), i);
	CHECK(find(&t, 1001, false) == -1);
	for (uint32_t i = 0; i < 1000; i += 2)
		CHECK_EQ_U64(find(&t, 1000 + i * 7, true), i);
	CHECK_EQ_U64(hashtab_count(&t), 500);
	for (uint32_t i = 0; i < 1000; i++)
		CHECK(find(&t, 1000 + i * 7, false) == (i % 2 ? (long)i : -1));
	/* reset to fewer slots, then put back what is kept, as the model's rebuilds do */
	CHECK(hashtab_reset(&t, 4, 500));
	CHECK_EQ_U64(hashtab_count(&t), 0);
	CHECK(hashtab_slots(&t) >= 1000);
	for (uint32_t i = 1; i < 1000; i += 2)
		CHECK(hashtab_put(&t, key_hash(keys[i]), i));
	for (uint32_t i = 0; i < 1000; i++)
		CHECK(find(&t, 1000 + i * 7, false) == (i % 2 ? (long)i : -1));
	hashtab_clear(&t);
	CHECK(find(&t, 1007, false) == -1);
	hashtab_free(&t);
}

static void test_bound(void)
{
	struct hashtab t;
	hashtab_init(&t, 2, 100);
	hash_mode = 0;
	for (uint32_t i = 0; i < 100; i++)
		CHECK(add(&t, i, i));
	CHECK(!add(&t, 100, 100));  /* the bound */
	CHECK(!hashtab_put(&t, 5, 100));
	CHECK_EQ_U64(hashtab_count(&t), 100);
	CHECK(find(&t, 100, false) == -1);
	CHECK_EQ_U64(find(&t, 3, true), 3);  /* a deletion makes room for one */
	CHECK(add(&t, 100, 100));
	CHECK(!add(&t, 101, 101));
	CHECK(add(&t, 50, 50));  /* present already: found, not refused */
	hashtab_free(&t);
}

/* Random inserts and deletes against a list of the live keys; every so often, every key is looked
 * up in both. */
static void test_random(int mode, int rounds, uint64_t keyspace, size_t bound)
{
	struct hashtab t;
	hashtab_init(&t, 2, bound);
	hash_mode = mode;
	uint64_t live[NKEYS];
	uint32_t live_idx[NKEYS];
	size_t nlive = 0, bad = 0;
	for (int r = 0; r < rounds; r++) {
		uint64_t k = rnd() % keyspace;
		size_t at = nlive;
		for (size_t i = 0; i < nlive; i++)
			if (live[i] == k)
				at = i;
		if (rnd() % 3) {  /* insert */
			uint32_t idx = (uint32_t)((k * 7 + 3) % NKEYS);  /* one index per key */
			bool ok = add(&t, k, idx);
			if (at < nlive) {
				bad += !ok;
			} else if (nlive < bound) {
				bad += !ok;
				live[nlive] = k;
				live_idx[nlive++] = idx;
			} else {
				bad += ok;  /* over the bound */
			}
		} else {  /* delete */
			long v = find(&t, k, true);
			if (at < nlive) {
				bad += v != (long)live_idx[at];
				live[at] = live[--nlive];
				live_idx[at] = live_idx[nlive];
			} else {
				bad += v != -1;
			}
		}
		bad += hashtab_count(&t) != nlive;
		if (r % 97 == 0) {
			for (uint64_t q = 0; q < keyspace; q++) {
				long want = -1;
				for (size_t i = 0; i < nlive; i++)
					if (live[i] == q)
						want = live_idx[i];
				bad += find(&t, q, false) != want;
			}
		}
	}
	if (bad)
		fprintf(stderr, "random mode %d keyspace %llu bound %zu: %zu mismatches\n", mode,
			(unsigned long long)keyspace, bound, bad);
	CHECK_EQ_U64(bad, 0);
	hashtab_free(&t);
}

int main(void)
{
	test_basic();
	test_bound();
	test_random(0, 20000, 300, SIZE_MAX);
	test_random(0, 20000, 3000, 1000);
	test_random(1, 5000, 60, SIZE_MAX);  /* one probe run: wraps around the slot array */
	test_random(2, 10000, 200, SIZE_MAX);
	test_random(1, 3000, 40, 25);
	return CHECK_DONE();
}
