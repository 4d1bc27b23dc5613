/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demangle: libiberty's cplus_demangle behind a pointer-keyed cache.
 *
 * Why libiberty rather than __cxa_demangle: it also reads Rust's legacy (_ZN...17h<hash>E) and v0
 * (_R...) manglings, which DMGL_AUTO tries before the Itanium rules, and it is the demangler whose
 * output perf and gdb print, so names compare equal with theirs.
 *
 * Suffixes: the linker and the compiler add things after a mangled name that libiberty does not
 * parse ("@plt" that we synthesize, symbol versions, GCC clones like ".constprop.0" it does handle,
 * our " (inlined)" mark). We cut at the first '@' or " (" and put the tail back after demangling.
 *
 * The cache is an open-addressing table from the raw interned pointer to the display pointer; both
 * are interned, so an entry is two words. It is bounded: past DEMANGLE_CACHE_MAX entries it starts
 * over (names are demangled again, the interned results are reused).
 */
#include "symbolize/demangle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/intern.h"
#include "util/util.h"

/* libiberty.h (pulled in by demangle.h) defines its own ARRAY_SIZE; ours is not used here. */
#undef ARRAY_SIZE
#include <libiberty/demangle.h>

#define DEMANGLE_CACHE_MAX (1u << 20)

struct dm_slot {
	const char *raw, *out;
};

struct demangler {
	struct intern *in;
	bool params;
	struct dm_slot *slots;
	size_t nslots, count;
};

struct demangler *demangler_new(struct intern *in, bool params)
{
	struct demangler *dm = xcalloc(1, sizeof(*dm));
	dm->in = in;
	dm->params = params;
	dm->nslots = 1024;
	dm->slots = xcalloc(dm->nslots, sizeof(*dm->slots));
	return dm;
}

void demangler_forget(struct demangler *dm)
{
	memset(dm->slots, 0, dm->nslots * sizeof(*dm->slots));
	dm->count = 0;
}

void demangler_free(struct demangler *dm)
{
	if (!dm)
		return;
	free(dm->slots);
	free(dm);
}

/* Worth handing to libiberty at all: Itanium/Rust legacy "_Z", Rust v0 "_R". */
static bool dm_looks_mangled(const char *s)
{
	return s[0] == '_' && (s[1] == 'Z' || s[1] == 'R');
}

char *demangle_str(const char *name, bool params)
{
	if (!name || !dm_looks_mangled(name))
		return NULL;
	/* Where the mangled part ends: a version ("@@GLIBCXX_3.4"), our "@plt", or " (inlined)". */
	size_t len = strcspn(name, "@ ");
	char small[512];
	char *head = len < sizeof(small) ? small : xmalloc(len + 1);
	memcpy(head, name, len);
	head[len] = 0;
	int opts = DMGL_AUTO | DMGL_ANSI | (params ? DMGL_PARAMS : 0);
	char *d = cplus_demangle(head, opts);
	if (head != small)
		free(head);
	if (!d)
		return NULL;
	if (!name[len])
		return d;
	size_t dl = strlen(d), tl = strlen(name + len);
	char *out = xmalloc(dl + tl + 1);
	memcpy(out, d, dl);
	memcpy(out + dl, name + len, tl + 1);
	free(d);  /* libiberty's malloc: plain free */
	return out;
}

static size_t dm_hash(const char *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x;
}

static void dm_insert(struct demangler *dm, const char *raw, const char *out)
{
	if ((dm->count + 1) * 2 > dm->nslots) {
		if (dm->count >= DEMANGLE_CACHE_MAX) {
			memset(dm->slots, 0, dm->nslots * sizeof(*dm->slots));
			dm->count = 0;
		} else {
			struct dm_slot *old = dm->slots;
			size_t nold = dm->nslots;
			dm->nslots *= 2;
			dm->slots = xcalloc(dm->nslots, sizeof(*dm->slots));
			dm->count = 0;
			for (size_t i = 0; i < nold; i++)
				if (old[i].raw)
					dm_insert(dm, old[i].raw, old[i].out);
			free(old);
		}
	}
	size_t mask = dm->nslots - 1, i = dm_hash(raw) & mask;
	while (dm->slots[i].raw && dm->slots[i].raw != raw)
		i = (i + 1) & mask;
	if (!dm->slots[i].raw)
		dm->count++;
	dm->slots[i] = (struct dm_slot){ raw, out };
}

const char *demangler_name(struct demangler *dm, const char *raw)
{
	if (!raw || !dm_looks_mangled(raw))
		return raw;  /* C names, hex addresses: nothing to do, nothing to cache */
	size_t mask = dm->nslots - 1;
	for (size_t i = dm_hash(raw) & mask; dm->slots[i].raw; i = (i + 1) & mask)
		if (dm->slots[i].raw == raw)
			return dm->slots[i].out;
	char *d = demangle_str(raw, dm->params);
	const char *out = d ? intern_str(dm->in, d) : raw;
	free(d);
	dm_insert(dm, raw, out);
	return out;
}
