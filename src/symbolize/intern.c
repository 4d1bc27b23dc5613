/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * intern: a hash set of strings over an arena. The set stores (hash, pointer) slots with linear
 * probing and doubles at 50% load; the strings themselves sit in arena chunks that are never
 * reallocated, which is what keeps the returned pointers stable while the set grows.
 *
 * Generations: the chunks belong to a generation, refcounted by the pool (while it is current or
 * being compacted from) and by intern_hold. A compaction empties the set and starts a new
 * generation; the holders re-intern what they keep; the old chunks are freed when the last
 * reference goes.
 */
#include "symbolize/intern.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define INTERN_CHUNK (64 * 1024)

struct intern_chunk {
	struct intern_chunk *next;
	size_t used, cap;
	char data[];
};

struct intern_slot {
	const char *str;   /* NULL: empty */
	uint32_t hash;
	uint32_t len;
};

#define INTERN_FLOOR (1u << 20)

struct intern_gen {
	struct intern_chunk *chunks;  /* head is the one being filled */
	size_t bytes;
	unsigned refs;
	uint64_t number;
};

struct intern {
	struct intern_slot *slots;
	size_t nslots;     /* power of two */
	size_t count;
	struct intern_gen *gen;       /* current */
	struct intern_gen *old;       /* the one being compacted from, between begin and end */
	size_t live;       /* bytes alive after the last compaction */
	size_t floor;
};

static struct intern_gen *gen_new(uint64_t number)
{
	struct intern_gen *g = xcalloc(1, sizeof(*g));
	g->refs = 1;
	g->number = number;
	return g;
}

void intern_release(struct intern_gen *g)
{
	if (!g || --g->refs)
		return;
	struct intern_chunk *c = g->chunks;
	while (c) {
		struct intern_chunk *next = c->next;
		free(c);
		c = next;
	}
	free(g);
}

struct intern_gen *intern_hold(struct intern *in)
{
	in->gen->refs++;
	return in->gen;
}

uint64_t intern_generation(const struct intern *in)
{
	return in->gen->number;
}

/* FNV-1a: short identifiers dominate, and it needs no alignment or length tricks. */
static uint32_t intern_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

struct intern *intern_new(void)
{
	struct intern *in = xcalloc(1, sizeof(*in));
	in->nslots = 1024;
	in->slots = xcalloc(in->nslots, sizeof(*in->slots));
	in->gen = gen_new(1);
	in->floor = INTERN_FLOOR;
	return in;
}

void intern_free(struct intern *in)
{
	if (!in)
		return;
	intern_release(in->old);
	intern_release(in->gen);
	free(in->slots);
	free(in);
}

static char *intern_alloc(struct intern *in, size_t n)
{
	struct intern_gen *g = in->gen;
	struct intern_chunk *c = g->chunks;
	if (!c || c->cap - c->used < n) {
		/* A string larger than a chunk gets a chunk of its own; the partly used head stays the head
		 * so its free tail is not lost to one big string. */
		size_t cap = n > INTERN_CHUNK / 4 ? n : INTERN_CHUNK;
		struct intern_chunk *nc = xmalloc(sizeof(*nc) + cap);
		nc->used = 0;
		nc->cap = cap;
		if (cap == n && c) {
			nc->next = c->next;
			c->next = nc;
		} else {
			nc->next = c;
			g->chunks = nc;
		}
		c = nc;
	}
	char *p = c->data + c->used;
	c->used += n;
	g->bytes += n;
	return p;
}

static void intern_rehash(struct intern *in)
{
	size_t n = in->nslots * 2;
	struct intern_slot *slots = xcalloc(n, sizeof(*slots));
	for (size_t i = 0; i < in->nslots; i++) {
		struct intern_slot *o = &in->slots[i];
		if (!o->str)
			continue;
		size_t j = o->hash & (n - 1);
		while (slots[j].str)
			j = (j + 1) & (n - 1);
		slots[j] = *o;
	}
	free(in->slots);
	in->slots = slots;
	in->nslots = n;
}

const char *intern_strn(struct intern *in, const char *s, size_t n)
{
	if (n > UINT32_MAX - 1)
		n = UINT32_MAX - 1;
	uint32_t h = intern_hash(s, n);
	size_t mask = in->nslots - 1;
	size_t i = h & mask;
	for (; in->slots[i].str; i = (i + 1) & mask) {
		struct intern_slot *sl = &in->slots[i];
		if (sl->hash == h && sl->len == n && memcmp(sl->str, s, n) == 0)
			return sl->str;
	}
	char *p = intern_alloc(in, n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	in->slots[i] = (struct intern_slot){ .str = p, .hash = h, .len = (uint32_t)n };
	if (++in->count * 2 > in->nslots)
		intern_rehash(in);
	return p;
}

const char *intern_str(struct intern *in, const char *s)
{
	return intern_strn(in, s, strlen(s));
}

size_t intern_bytes(const struct intern *in)
{
	return in->gen->bytes;
}

void intern_set_floor(struct intern *in, size_t min_bytes)
{
	in->floor = min_bytes ? min_bytes : INTERN_FLOOR;
}

bool intern_due(const struct intern *in)
{
	size_t b = in->gen->bytes;
	/* A floor of one byte (tests): whenever anything was added since the last compaction. */
	return !in->old && b > in->floor && b > (in->floor > 1 ? 2 * in->live : in->live);
}

void intern_compact_begin(struct intern *in)
{
	if (in->old)
		return;
	in->old = in->gen;
	in->gen = gen_new(in->old->number + 1);
	memset(in->slots, 0, in->nslots * sizeof(*in->slots));
	in->count = 0;
}

const char *intern_move(struct intern *in, const char *old)
{
	return old ? intern_str(in, old) : NULL;
}

void intern_compact_end(struct intern *in)
{
	intern_release(in->old);
	in->old = NULL;
	in->live = in->gen->bytes;
	/* The set may have grown large while the old generation filled it: back to what it holds. */
	size_t want = 1024;
	while (want < in->count * 4)
		want *= 2;
	if (want < in->nslots) {
		struct intern_slot *old = in->slots;
		size_t nold = in->nslots;
		in->slots = xcalloc(want, sizeof(*in->slots));
		in->nslots = want;
		for (size_t i = 0; i < nold; i++) {
			if (!old[i].str)
				continue;
			size_t j = old[i].hash & (want - 1);
			while (in->slots[j].str)
				j = (j + 1) & (want - 1);
			in->slots[j] = old[i];
		}
		free(old);
	}
}
