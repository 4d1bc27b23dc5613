/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hashtab: the cold half of the open-addressing index (see hashtab.h): allocation, growth, reset
 * and deletion. The probe walk is inline in the header, where the hot loops of its users see it.
 */
#include "util/hashtab.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

static size_t pow2_at_least(size_t n)
{
	size_t p = 2;
	while (p < n && p <= SIZE_MAX / 2)
		p *= 2;
	return p;
}

void hashtab_init(struct hashtab *t, size_t min_slots, size_t max_entries)
{
	*t = (struct hashtab){ .min_slots = pow2_at_least(min_slots), .max_entries = max_entries };
}

void hashtab_free(struct hashtab *t)
{
	free(t->slot);
	t->slot = NULL;
	t->mask = 0;
	t->used = 0;
}

void hashtab_clear(struct hashtab *t)
{
	if (t->slot)
		memset(t->slot, 0, (t->mask + 1) * sizeof(*t->slot));
	t->used = 0;
}

/* The first empty slot of h32's probe run: the table holds no entry equal to the one going in. */
static size_t free_slot(const struct hashtab *t, uint32_t h32)
{
	size_t i = h32 & t->mask;
	while (t->slot[i].val1)
		i = (i + 1) & t->mask;
	return i;
}

/* Moves every entry into n fresh slots. */
static bool rehash(struct hashtab *t, size_t n)
{
	struct hashtab_slot *ns = calloc(n, sizeof(*ns));
	if (!ns)
		return false;
	struct hashtab old = *t;
	t->slot = ns;
	t->mask = n - 1;
	for (size_t i = 0; old.slot && i <= old.mask; i++)
		if (old.slot[i].val1)
			t->slot[free_slot(t, old.slot[i].h32)] = old.slot[i];
	free(old.slot);
	return true;
}

bool hashtab_reset(struct hashtab *t, size_t slots, size_t entries)
{
	size_t n = pow2_at_least(slots);
	if (n < t->min_slots)
		n = t->min_slots;
	while (n / 2 < entries && n <= SIZE_MAX / 2)
		n *= 2;
	t->used = 0;
	if (t->slot && n == t->mask + 1) {
		hashtab_clear(t);
		return true;
	}
	struct hashtab_slot *ns = calloc(n, sizeof(*ns));
	if (!ns) {
		hashtab_clear(t);
		return false;
	}
	free(t->slot);
	t->slot = ns;
	t->mask = n - 1;
	return true;
}

/* Room for one more entry: the bound, then the load (at most half full after the add). */
static bool make_room(struct hashtab *t)
{
	if (t->used >= t->max_entries)
		return false;
	if (!t->slot)
		return rehash(t, t->min_slots ? t->min_slots : 2);
	size_t n = t->mask + 1;
	if ((t->used + 1) * 2 <= n)
		return true;
	return n <= SIZE_MAX / 2 / sizeof(*t->slot) && rehash(t, n * 2);
}

bool hashtab_add(struct hashtab *t, struct hashtab_iter *it, uint32_t val)
{
	size_t slots = hashtab_slots(t);
	if (val == UINT32_MAX || !make_room(t))
		return false;
	if (hashtab_slots(t) != slots)
		it->at = free_slot(t, it->h32);  /* the slot it found moved with the rehash */
	t->slot[it->at] = (struct hashtab_slot){ .val1 = val + 1, .h32 = it->h32 };
	t->used++;
	return true;
}

bool hashtab_put(struct hashtab *t, uint64_t h, uint32_t val)
{
	if (val == UINT32_MAX || !make_room(t))
		return false;
	uint32_t h32 = hashtab_fold(h);
	t->slot[free_slot(t, h32)] = (struct hashtab_slot){ .val1 = val + 1, .h32 = h32 };
	t->used++;
	return true;
}

void hashtab_del(struct hashtab *t, struct hashtab_iter *it)
{
	size_t hole = it->at;
	t->slot[hole] = (struct hashtab_slot){ 0 };
	t->used--;
	/* Backward shift: a later entry of the run moves into the hole unless its home lies in
	 * (hole, j], where a probe for it would stop at the hole before reaching it. */
	for (size_t j = (hole + 1) & t->mask; t->slot[j].val1; j = (j + 1) & t->mask) {
		size_t home = t->slot[j].h32 & t->mask;
		if (!probe_must_move(home, hole, j))
			continue;
		t->slot[hole] = t->slot[j];
		t->slot[j] = (struct hashtab_slot){ 0 };
		hole = j;
	}
	it->next = it->at = hole;
}
