/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stacklog: a window's samples kept for a collector that may never be asked for (see stacklog.h).
 * One byte arena of records (a header, then its frames), an array of mapping copies, and a
 * direct-mapped cache (pid, dso) -> the last mapping found there, tagged with a generation that
 * stacklog_reset moves on, and one per pid slot for what stacklog_maps_changed says of one process.
 */
#include "export/stacklog.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

#define SL_CACHE 1024u /* (pid, dso) -> mapping cache entries (a power of two) */
#define SL_PIDGEN 1024u /* generations per pid slot (a power of two) */

struct sl_rec {
	uint64_t time, period;
	const char *comm, *container, *cgroup;
	uint32_t pid, tid;
	uint32_t nframes;
	uint8_t event;
};

struct sl_frame {
	const char *sym, *dso, *srcline;
	uint64_t addr;
	uint32_t map;
	bool inlined, kernel;
};

struct sl_cache {
	const char *dso;
	uint64_t gen, pidgen;
	uint64_t start, limit;
	uint32_t pid, map;
};

struct stacklog {
	size_t max_bytes;
	stacklog_map_fn map_fn;
	void *map_ctx;
	unsigned char *buf;
	size_t len, cap;
	size_t nsamples;
	struct stacklog_map *maps;
	size_t nmaps, capmaps;
	size_t map_bytes;            /* the mappings' paths */
	uint64_t gen;                /* every entry's */
	uint64_t pidgen[SL_PIDGEN];  /* the entries' of the pids of each slot */
	struct sl_cache cache[SL_CACHE];
	/* reading back */
	struct frame *rframes;
	uint32_t *rmaps;
	size_t rcap;
};

struct stacklog *stacklog_new(size_t max_bytes, stacklog_map_fn map, void *map_ctx)
{
	struct stacklog *l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->max_bytes = max_bytes;
	l->map_fn = map;
	l->map_ctx = map_ctx;
	l->gen = 1;
	return l;
}

static void sl_free_maps(struct stacklog *l)
{
	for (size_t i = 0; i < l->nmaps; i++)
		free((char *)l->maps[i].path);
	l->nmaps = 0;
	l->map_bytes = 0;
}

void stacklog_free(struct stacklog *l)
{
	if (!l)
		return;
	sl_free_maps(l);
	free(l->maps);
	free(l->buf);
	free(l->rframes);
	free(l->rmaps);
	free(l);
}

void stacklog_reset(struct stacklog *l)
{
	l->len = 0;
	l->nsamples = 0;
	sl_free_maps(l);
	l->gen++;
}

void stacklog_maps_changed(struct stacklog *l, uint32_t pid, bool all)
{
	if (all)
		l->gen++;
	else
		l->pidgen[pid & (SL_PIDGEN - 1)]++;
}

static size_t sl_used(const struct stacklog *l)
{
	return l->cap + l->capmaps * sizeof(*l->maps) + l->map_bytes;
}

/* A copy of m; its id, or STACKLOG_NO_MAP when it does not fit. */
static uint32_t sl_add_map(struct stacklog *l, const struct stacklog_mapping *m)
{
	const char *path = m->path ? m->path : "";
	size_t plen = strlen(path) + 1;
	if (l->nmaps == l->capmaps) {
		size_t ncap = l->capmaps ? l->capmaps * 2 : 64;
		if (sl_used(l) + (ncap - l->capmaps) * sizeof(*l->maps) + plen > l->max_bytes ||
		    ncap >= STACKLOG_NO_MAP)
			return STACKLOG_NO_MAP;
		void *p = realloc(l->maps, ncap * sizeof(*l->maps));
		if (!p)
			return STACKLOG_NO_MAP;
		l->maps = p;
		l->capmaps = ncap;
	}
	if (sl_used(l) + plen > l->max_bytes)
		return STACKLOG_NO_MAP;
	char *copy = malloc(plen);
	if (!copy)
		return STACKLOG_NO_MAP;
	memcpy(copy, path, plen);
	struct stacklog_map *k = &l->maps[l->nmaps];
	memset(k, 0, sizeof(*k));
	k->start = m->start;
	k->limit = m->limit;
	k->offset = m->offset;
	k->path = copy;
	k->build_id_size = m->build_id_size <= sizeof(k->build_id) ? (uint8_t)m->build_id_size : 0;
	if (k->build_id_size)
		memcpy(k->build_id, m->build_id, k->build_id_size);
	l->map_bytes += plen;
	return (uint32_t)l->nmaps++;
}

/* The mapping of user frame f of pid: the cache's when its range holds the address, else the
 * session's answer kept. *full: the answer did not fit. */
static uint32_t sl_frame_map(struct stacklog *l, uint32_t pid, const struct frame *f, bool *full)
{
	struct sl_cache *c =
		&l->cache[hash_mix64((uint64_t)pid << 32 ^ (uintptr_t)f->dso) & (SL_CACHE - 1)];
	uint64_t pidgen = l->pidgen[pid & (SL_PIDGEN - 1)];
	if (c->gen == l->gen && c->pidgen == pidgen && c->pid == pid && c->dso == f->dso &&
	    f->addr >= c->start && f->addr < c->limit)
		return c->map;
	struct stacklog_mapping m = { .start = f->addr, .limit = f->addr + 1 };
	if (!l->map_fn || !l->map_fn(l->map_ctx, pid, f, &m)) {
		/* none: remembered for what the answer covers (an unmapped frame comes again and
		 * again; a Python function's frames, at their code objects' addresses, every time) */
		if (!(m.start <= f->addr && f->addr < m.limit))
			m.start = f->addr, m.limit = f->addr + 1;
		*c = (struct sl_cache){ .dso = f->dso, .gen = l->gen, .pidgen = pidgen,
					.start = m.start, .limit = m.limit, .pid = pid,
					.map = STACKLOG_NO_MAP };
		return STACKLOG_NO_MAP;
	}
	uint32_t id = sl_add_map(l, &m);
	if (id == STACKLOG_NO_MAP) {
		*full = true;
		return id;
	}
	*c = (struct sl_cache){ .dso = f->dso, .gen = l->gen, .pidgen = pidgen, .start = m.start,
				.limit = m.limit, .pid = pid, .map = id };
	return id;
}

bool stacklog_add(struct stacklog *l, int event, uint64_t time, const struct sample_ctx *s)
{
	uint32_t n = s->nframes > 0 ? (uint32_t)s->nframes : 0;
	size_t need = sizeof(struct sl_rec) + (size_t)n * sizeof(struct sl_frame);
	if (l->len + need > l->cap) {
		size_t ncap = l->cap ? l->cap : 65536;
		while (ncap < l->len + need)
			ncap *= 2;
		if (sl_used(l) - l->cap + ncap > l->max_bytes)
			return false;
		void *p = realloc(l->buf, ncap);
		if (!p)
			return false;
		l->buf = p;
		l->cap = ncap;
	}
	struct sl_rec *r = (struct sl_rec *)(l->buf + l->len);
	*r = (struct sl_rec){ .time = time, .period = s->period, .comm = s->comm,
			      .container = s->container, .cgroup = s->cgroup, .pid = s->pid,
			      .tid = s->tid, .nframes = n, .event = (uint8_t)event };
	struct sl_frame *fr = (struct sl_frame *)(r + 1);
	bool full = false;
	for (uint32_t i = 0; i < n; i++) {
		const struct frame *f = &s->frames[i];
		fr[i] = (struct sl_frame){ .sym = f->sym, .dso = f->dso, .srcline = f->srcline,
					   .addr = f->addr, .inlined = f->inlined, .kernel = f->kernel,
					   .map = STACKLOG_NO_MAP };
		if (!f->kernel)
			fr[i].map = sl_frame_map(l, s->pid, f, &full);
		if (full)
			return false; /* the maps kept so far stay, unused until the next reset */
	}
	l->len += need;
	l->nsamples++;
	return true;
}

void stacklog_move_names(struct stacklog *l, frame_rename_fn rename, void *ctx)
{
	for (size_t pos = 0; pos < l->len;) {
		struct sl_rec *r = (struct sl_rec *)(l->buf + pos);
		r->comm = rename(ctx, r->comm);
		r->container = rename(ctx, r->container);
		r->cgroup = rename(ctx, r->cgroup);
		struct sl_frame *fr = (struct sl_frame *)(r + 1);
		for (uint32_t i = 0; i < r->nframes; i++) {
			fr[i].sym = rename(ctx, fr[i].sym);
			fr[i].dso = rename(ctx, fr[i].dso);
			fr[i].srcline = rename(ctx, fr[i].srcline);
		}
		pos += sizeof(*r) + (size_t)r->nframes * sizeof(*fr);
	}
	l->gen++; /* the cache's dso pointers are the old ones */
}

size_t stacklog_nsamples(const struct stacklog *l)
{
	return l->nsamples;
}

size_t stacklog_bytes(const struct stacklog *l)
{
	return sizeof(*l) + sl_used(l) + l->rcap * (sizeof(*l->rframes) + sizeof(*l->rmaps));
}

bool stacklog_next(struct stacklog *l, size_t *pos, struct stacklog_entry *out)
{
	if (*pos >= l->len)
		return false;
	const struct sl_rec *r = (const struct sl_rec *)(l->buf + *pos);
	if (r->nframes > l->rcap) {
		struct frame *f = realloc(l->rframes, r->nframes * sizeof(*f));
		if (f)
			l->rframes = f;
		uint32_t *m = f ? realloc(l->rmaps, r->nframes * sizeof(*m)) : NULL;
		if (m)
			l->rmaps = m;
		if (!f || !m)
			return false;
		l->rcap = r->nframes;
	}
	const struct sl_frame *fr = (const struct sl_frame *)(r + 1);
	for (uint32_t i = 0; i < r->nframes; i++) {
		l->rframes[i] = (struct frame){ .sym = fr[i].sym, .dso = fr[i].dso,
						.srcline = fr[i].srcline, .addr = fr[i].addr,
						.inlined = fr[i].inlined, .kernel = fr[i].kernel };
		l->rmaps[i] = fr[i].map;
	}
	*out = (struct stacklog_entry){
		.event = r->event, .time = r->time, .maps = l->rmaps,
		.ctx = { .comm = r->comm, .pid = r->pid, .tid = r->tid, .period = r->period,
			 .frames = l->rframes, .nframes = (int)r->nframes, .container = r->container,
			 .cgroup = r->cgroup },
	};
	*pos += sizeof(*r) + (size_t)r->nframes * sizeof(*fr);
	return true;
}

const struct stacklog_map *stacklog_get_map(const struct stacklog *l, uint32_t id)
{
	return id < l->nmaps ? &l->maps[id] : NULL;
}
