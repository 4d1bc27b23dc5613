/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * srcstore: see srcstore.h. The file:
 *   header   magic "PTSRCST1", identity, entry count, frame count, pool length
 *   entries  sorted by va: va, first frame, leaf string, frame count, want
 *   frames   sym string, srcline string, inlined
 *   pool     NUL-terminated strings; a string is its offset in the pool, NONE for NULL
 * The writer keeps one copy of each distinct string (a hash from content to offset).
 */
#include "symbolize/srcstore.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/hash.h"
#include "util/radix.h"
#include "util/safefile.h"
#include "util/util.h"

#define SRCSTORE_MAGIC "PTSRCST1"
#define NONE UINT32_MAX
#define MAX_FRAMES 64

struct hdr {
	char magic[8];
	uint64_t identity;
	uint64_t nentries, nframes, pool_len;
};

struct ent {
	uint64_t va;
	uint32_t first;
	uint32_t leaf;
	uint8_t n, want, pad[6];
};

struct frm {
	uint32_t sym, srcline;
	uint8_t inlined, pad[3];
};

struct srcstore {
	void *map;
	size_t len;
	const struct ent *e;
	size_t n;
	const struct frm *f;
	size_t nf;
	const char *pool;
	size_t pool_len;
};

struct srcstore *srcstore_open(const char *path, uint64_t identity)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	void *map = MAP_FAILED;
	if (fstat(fd, &st) == 0 && st.st_uid == geteuid() && st.st_size >= (off_t)sizeof(struct hdr))
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return NULL;
	size_t len = (size_t)st.st_size;
	struct hdr h;
	memcpy(&h, map, sizeof(h));
	size_t rest = len - sizeof(h);
	bool ok = !memcmp(h.magic, SRCSTORE_MAGIC, 8) && h.identity == identity &&
		  h.nentries <= SRCSTORE_MAX_ENTRIES && h.nentries <= rest / sizeof(struct ent);
	if (ok) {
		rest -= h.nentries * sizeof(struct ent);
		ok = h.nframes <= rest / sizeof(struct frm);
	}
	if (ok) {
		rest -= h.nframes * sizeof(struct frm);
		ok = h.pool_len == rest && h.pool_len > 0 &&
		     ((const char *)map)[len - 1] == 0;  /* every string ends inside the pool */
	}
	if (!ok) {
		munmap(map, len);
		return NULL;
	}
	struct srcstore *s = xcalloc(1, sizeof(*s));
	s->map = map;
	s->len = len;
	s->e = (const struct ent *)((const char *)map + sizeof(h));
	s->n = h.nentries;
	s->f = (const struct frm *)(s->e + s->n);
	s->nf = h.nframes;
	s->pool = (const char *)(s->f + s->nf);
	s->pool_len = h.pool_len;
	return s;
}

void srcstore_close(struct srcstore *st)
{
	if (!st)
		return;
	munmap(st->map, st->len);
	free(st);
}

size_t srcstore_count(const struct srcstore *st)
{
	return st ? st->n : 0;
}

static bool str_at(const struct srcstore *st, uint32_t off, const char **out)
{
	if (off == NONE) {
		*out = NULL;
		return true;
	}
	if (off >= st->pool_len)
		return false;
	*out = st->pool + off;
	return true;
}

int srcstore_get_at(const struct srcstore *st, size_t i, uint64_t *va, unsigned *want, const char **leaf,
		    struct srcstore_frame *f, int max)
{
	if (!st || i >= st->n)
		return 0;
	const struct ent *e = &st->e[i];
	if (e->n == 0 || e->n > MAX_FRAMES || e->first > st->nf || st->nf - e->first < e->n ||
	    !str_at(st, e->leaf, leaf))
		return 0;
	for (int k = 0; k < e->n && k < max; k++) {
		const struct frm *r = &st->f[e->first + (uint32_t)k];
		if (!str_at(st, r->sym, &f[k].sym) || !str_at(st, r->srcline, &f[k].srcline))
			return 0;
		f[k].inlined = r->inlined != 0;
	}
	*va = e->va;
	*want = e->want;
	return e->n;
}

int srcstore_get(const struct srcstore *st, uint64_t va, unsigned *want, const char **leaf,
		 struct srcstore_frame *f, int max)
{
	if (!st)
		return 0;
	size_t lo = 0, hi = st->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (st->e[mid].va < va)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint64_t got;
	if (lo == st->n || st->e[lo].va != va)
		return 0;
	return srcstore_get_at(st, lo, &got, want, leaf, f, max);
}

/* ---- writing ---- */

struct srcstore_writer {
	struct ent *e;
	size_t n, cap;
	struct frm *f;
	size_t nf, fcap;
	char *pool;
	size_t pool_len, pool_cap;
	uint32_t *slots;           /* string hash: pool offset + 1, 0 = empty */
	size_t nslots, nstrings;
};

struct srcstore_writer *srcstore_writer_new(void)
{
	struct srcstore_writer *w = xcalloc(1, sizeof(*w));
	w->nslots = 1024;
	w->slots = xcalloc(w->nslots, sizeof(*w->slots));
	return w;
}

void srcstore_writer_free(struct srcstore_writer *w)
{
	if (!w)
		return;
	free(w->e);
	free(w->f);
	free(w->pool);
	free(w->slots);
	free(w);
}

static uint32_t *slot_for(struct srcstore_writer *w, const char *s)
{
	size_t mask = w->nslots - 1;
	for (size_t i = hash_fnv1a(s, strlen(s)) & mask;; i = (i + 1) & mask)
		if (!w->slots[i] || !strcmp(w->pool + w->slots[i] - 1, s))
			return &w->slots[i];
}

static uint32_t intern_off(struct srcstore_writer *w, const char *s)
{
	if (!s)
		return NONE;
	if ((w->nstrings + 1) * 2 > w->nslots) {
		uint32_t *old = w->slots;
		size_t nold = w->nslots;
		w->nslots *= 2;
		w->slots = xcalloc(w->nslots, sizeof(*w->slots));
		for (size_t i = 0; i < nold; i++)
			if (old[i])
				*slot_for(w, w->pool + old[i] - 1) = old[i];
		free(old);
	}
	uint32_t *slot = slot_for(w, s);
	if (*slot)
		return *slot - 1;
	size_t len = strlen(s) + 1;
	if (w->pool_len + len >= NONE - 1)
		return NONE;
	xgrow((void **)&w->pool, &w->pool_cap, w->pool_len + len, 1);
	memcpy(w->pool + w->pool_len, s, len);
	*slot = (uint32_t)w->pool_len + 1;
	w->pool_len += len;
	w->nstrings++;
	return *slot - 1;
}

void srcstore_writer_add(struct srcstore_writer *w, uint64_t va, unsigned want, const char *leaf,
			 const struct srcstore_frame *f, int n)
{
	if (n < 1 || n > MAX_FRAMES || w->n >= SRCSTORE_MAX_ENTRIES || w->nf + (size_t)n >= NONE)
		return;
	xgrow((void **)&w->e, &w->cap, w->n + 1, sizeof(*w->e));
	xgrow((void **)&w->f, &w->fcap, w->nf + (size_t)n, sizeof(*w->f));
	w->e[w->n++] = (struct ent){ .va = va, .first = (uint32_t)w->nf, .leaf = intern_off(w, leaf),
				     .n = (uint8_t)n, .want = (uint8_t)want };
	for (int k = 0; k < n; k++)
		w->f[w->nf++] = (struct frm){ .sym = intern_off(w, f[k].sym),
					      .srcline = intern_off(w, f[k].srcline),
					      .inlined = f[k].inlined };
}

bool srcstore_writer_save(struct srcstore_writer *w, const char *path, uint64_t identity)
{
	/* By va; of several entries for one va, the last added (stable sort, keep the last of a run). */
	struct radix_kv *kv = xmalloc((w->n ? 2 * w->n : 1) * sizeof(*kv));
	for (size_t i = 0; i < w->n; i++)
		kv[i] = (struct radix_kv){ .key = w->e[i].va, .val = i };
	const struct radix_kv *s = radix_sort_kv(kv, kv + w->n, w->n);
	struct ent *out = xmalloc((w->n ? w->n : 1) * sizeof(*out));
	size_t nout = 0;
	for (size_t i = 0; i < w->n; i++)
		if (i + 1 == w->n || s[i + 1].key != s[i].key)
			out[nout++] = w->e[s[i].val];
	free(kv);
	if (!w->pool_len)
		intern_off(w, "");  /* the pool is never empty: its last byte is a NUL the reader checks */
	struct hdr h = { .identity = identity, .nentries = nout, .nframes = w->nf, .pool_len = w->pool_len };
	memcpy(h.magic, SRCSTORE_MAGIC, 8);
	/* a temporary renamed over it (safefile.h): never through a symlink, never half written */
	struct safefile_out sf;
	char err[64];
	int fd = safefile_create(&sf, path, 0, err, sizeof(err));
	bool ok = fd >= 0 && write_full(fd, &h, sizeof(h)) && write_full(fd, out, nout * sizeof(*out)) &&
		  write_full(fd, w->f, w->nf * sizeof(*w->f)) && write_full(fd, w->pool, w->pool_len);
	if (ok)
		ok = safefile_commit(&sf, err, sizeof(err)) == 0;
	else if (fd >= 0)
		safefile_abort(&sf);
	free(out);
	return ok;
}
