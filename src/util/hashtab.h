/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hashtab: the one open-addressing index the model's, the exports' and the symbolizer's tables share.
 * It maps a 64-bit hash the caller computed to 32-bit values the caller chose (most often the index
 * of an entry in the caller's own array, which holds the keys): the table never sees a key, so the
 * caller compares keys itself while it walks the candidates of a probe (hashtab_probe, then
 * hashtab_next until a candidate's key matches or none is left). A slot is 8 bytes: the value and 32
 * bits of the hash, which pick the home slot and skip most mismatches before the caller's compare.
 *
 * Linear probing, at most half full, growing by doubling and rehashing from the kept hash bits;
 * deletion moves later entries of the probe run back (no tombstones, so a table that deletes as
 * much as it inserts never slows down). Every table has a bound: max_entries, past which
 * hashtab_add refuses, or the caller's own (then SIZE_MAX here).
 *
 * Why our own: Debian has no small C library for an open-addressing table of this shape (caller's
 * hashes and keys, 8-byte slots, an iterator-style probe the hot loops inline); glib's GHashTable
 * would be a heavy dependency, takes callbacks per compare and allocates per table differently.
 */
#ifndef PERFTOP_HASHTAB_H
#define PERFTOP_HASHTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashtab_slot {
	uint32_t val1; /* value + 1; 0: empty */
	uint32_t h32;  /* the hash folded to 32 bits */
};

struct hashtab {
	struct hashtab_slot *slot; /* NULL until the first add */
	size_t mask;               /* slots - 1 */
	size_t used;
	size_t max_entries;        /* hashtab_add refuses past it */
	size_t min_slots;          /* the first allocation and the floor of hashtab_reset */
};

/* Where a probe stands: next is the slot hashtab_next looks at next; at is the slot of the
 * candidate it last returned, or, once it returned false, the empty slot where the key goes. */
struct hashtab_iter {
	size_t next, at;
	uint32_t h32;
};

/* An empty table of min_slots slots once it holds anything (rounded up to a power of two, at least
 * 2), holding at most max_entries (SIZE_MAX: the caller bounds it). Allocates nothing. */
void hashtab_init(struct hashtab *t, size_t min_slots, size_t max_entries);
void hashtab_free(struct hashtab *t);

/* Empties the table and gives it slots slots (rounded up as for init, and never fewer than
 * min_slots, nor than twice the entries the caller is about to put back: pass that number as
 * entries). False when out of memory (the table is then empty with its old slots). */
bool hashtab_reset(struct hashtab *t, size_t slots, size_t entries);

/* Empties the table, keeping its slots. */
void hashtab_clear(struct hashtab *t);

static inline uint32_t hashtab_fold(uint64_t h)
{
	return (uint32_t)h ^ (uint32_t)(h >> 32);
}

/* Starts the walk over the values stored under hashes equal to h (in 32 bits: the caller compares
 * keys to tell the true match). */
static inline struct hashtab_iter hashtab_probe(const struct hashtab *t, uint64_t h)
{
	uint32_t h32 = hashtab_fold(h);
	size_t i = h32 & t->mask;
	return (struct hashtab_iter){ .next = i, .at = i, .h32 = h32 };
}

/* The next candidate's value in *val; false when the probe run ends (it->at is then the free slot
 * hashtab_add fills). */
static inline bool hashtab_next(const struct hashtab *t, struct hashtab_iter *it, uint32_t *val)
{
	if (!t->slot)
		return false;
	for (size_t i = it->next;; i = (i + 1) & t->mask) {
		const struct hashtab_slot *s = &t->slot[i];
		if (!s->val1) {
			it->at = i;
			return false;
		}
		if (s->h32 == it->h32) {
			it->at = i;
			it->next = (i + 1) & t->mask;
			*val = s->val1 - 1;
			return true;
		}
	}
}

/* After hashtab_next returned false for it: stores val (< UINT32_MAX) under its hash, growing the
 * table first when that would make it more than half full. False at max_entries or out of memory. */
bool hashtab_add(struct hashtab *t, struct hashtab_iter *it, uint32_t val);

/* Stores val under h without looking for it first: for rebuilds, where the caller knows the keys
 * are distinct. False at max_entries or out of memory. */
bool hashtab_put(struct hashtab *t, uint64_t h, uint32_t val);

/* After hashtab_next returned true for it: removes that entry. The probe is over (start a new one). */
void hashtab_del(struct hashtab *t, struct hashtab_iter *it);

/* Replaces the value of the entry hashtab_next last returned for it. */
static inline void hashtab_set(struct hashtab *t, const struct hashtab_iter *it, uint32_t val)
{
	t->slot[it->at].val1 = val + 1;
}

static inline size_t hashtab_count(const struct hashtab *t)
{
	return t->used;
}

static inline size_t hashtab_slots(const struct hashtab *t)
{
	return t->slot ? t->mask + 1 : 0;
}

#endif
