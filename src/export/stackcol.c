/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stackcol: the bounded stack collector of the exports (see stackcol.h). Five tables, each an
 * array that grows by doubling up to its bound, and four of them found through an index of ids
 * (util/hashtab), never deleted from but all at once by a reset; the arrays' bounds bound them.
 */
#include "export/stackcol.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/hashtab.h"
#include "util/util.h"

#define SC_PTR_CACHE 4096u  /* direct-mapped pointer -> string id cache */
#define SC_OVERFLOW_NAME "[perftop: export tables full]"

struct sc_ptr {
	const char *ptr;
	uint32_t id;
};

struct sc_stack {
	uint32_t off, n;
};

struct stackcol {
	struct stackcol_limits lim;
	stackcol_describe_fn describe;
	void *describe_ctx;
	/* strings: bytes, the offset of each id, and the index by content */
	char *bytes;
	size_t nbytes, capbytes;
	uint32_t *soff;
	size_t nstr, capstr;
	struct hashtab sidx;
	struct sc_ptr ptr[SC_PTR_CACHE];
	/* frames, mappings, stacks (with their frame ids), keys, log */
	struct stackcol_frame *frames;
	size_t nframes, capframes;
	struct hashtab fidx;
	struct stackcol_map *maps;
	size_t nmaps, capmaps;
	struct hashtab midx;
	struct sc_stack *stacks;
	size_t nstacks, capstacks;
	uint32_t *ids;
	size_t nids, capids;
	struct hashtab stidx;
	struct stackcol_key *keys;
	size_t nkeys, capkeys;
	struct hashtab kidx;
	struct stackcol_sample *log;
	size_t nlog, caplog;
	uint32_t overflow_stack;   /* id + 1 of the overflow stack; 0 until made */
	struct stackcol_stats st;
	uint32_t scratch[STACKCOL_MAX_DEPTH];
};

/* --- growing arrays and the index --- */

/* Makes room for one more element of size sz in *arr (n used of *cap), never past max. */
static bool sc_room(void **arr, size_t *cap, size_t n, size_t sz, size_t max)
{
	if (n < *cap)
		return true;
	if (n >= max)
		return false;
	size_t ncap = *cap ? *cap * 2 : 64;
	if (ncap > max)
		ncap = max;
	void *p = realloc(*arr, ncap * sz);
	if (!p)
		return false;
	*arr = p;
	*cap = ncap;
	return true;
}

/* The id of the entry eq finds equal to key, or UINT32_MAX with *it at the free slot for it. */
typedef bool (*sc_eq_fn)(const struct stackcol *c, uint32_t id, const void *key);
static uint32_t sc_find(const struct stackcol *c, const struct hashtab *x, uint32_t h, sc_eq_fn eq,
			const void *key, struct hashtab_iter *it)
{
	*it = hashtab_probe(x, h);
	uint32_t id;
	while (hashtab_next(x, it, &id))
		if (eq(c, id, key))
			return id;
	return UINT32_MAX;
}

/* --- strings --- */

struct sc_strkey {
	const char *s;
	size_t len;
};

static bool sc_str_eq(const struct stackcol *c, uint32_t id, const void *key)
{
	const struct sc_strkey *k = key;
	const char *s = c->bytes + c->soff[id];
	return strncmp(s, k->s, k->len) == 0 && s[k->len] == '\0';
}

/* The id of s's copy (0 for NULL or ""); UINT32_MAX when the strings are full. */
static uint32_t sc_string_n(struct stackcol *c, const char *s, size_t len)
{
	if (!s || !len)
		return 0;
	struct sc_strkey k = { s, len };
	uint32_t h = (uint32_t)hash_mix64(hash_fnv1a(s, len));
	struct hashtab_iter it;
	uint32_t id = sc_find(c, &c->sidx, h, sc_str_eq, &k, &it);
	if (id != UINT32_MAX)
		return id;
	if (c->nbytes + len + 1 > c->lim.string_bytes)
		return UINT32_MAX;
	while (c->nbytes + len + 1 > c->capbytes) {
		size_t ncap = c->capbytes ? c->capbytes * 2 : 65536;
		if (ncap > c->lim.string_bytes)
			ncap = c->lim.string_bytes;
		char *p = realloc(c->bytes, ncap);
		if (!p)
			return UINT32_MAX;
		c->bytes = p;
		c->capbytes = ncap;
	}
	if (!sc_room((void **)&c->soff, &c->capstr, c->nstr, sizeof(*c->soff), UINT32_MAX - 1))
		return UINT32_MAX;
	if (!hashtab_add(&c->sidx, &it, (uint32_t)c->nstr))
		return UINT32_MAX;
	memcpy(c->bytes + c->nbytes, s, len);
	c->bytes[c->nbytes + len] = '\0';
	c->soff[c->nstr] = (uint32_t)c->nbytes;
	c->nbytes += len + 1;
	return (uint32_t)c->nstr++;
}

static uint32_t sc_string(struct stackcol *c, const char *s)
{
	return s ? sc_string_n(c, s, strlen(s)) : 0;
}

/* The same for an interned name, through the pointer cache. */
static uint32_t sc_name(struct stackcol *c, const char *s)
{
	if (!s)
		return 0;
	struct sc_ptr *p = &c->ptr[hash_mix64((uintptr_t)s) & (SC_PTR_CACHE - 1)];
	if (p->ptr == s)
		return p->id;
	uint32_t id = sc_string(c, s);
	if (id != UINT32_MAX) {
		p->ptr = s;
		p->id = id;
	}
	return id;
}

/* --- mappings --- */

static bool sc_map_eq(const struct stackcol *c, uint32_t id, const void *key)
{
	const struct stackcol_map *a = &c->maps[id], *b = key;
	return a->start == b->start && a->limit == b->limit && a->offset == b->offset &&
	       a->file == b->file && a->fake == b->fake && a->build_id_size == b->build_id_size &&
	       memcmp(a->build_id, b->build_id, a->build_id_size) == 0;
}

static uint32_t sc_map(struct stackcol *c, const struct stackcol_map *m)
{
	uint64_t h64 = hash_mix64(m->start ^ hash_mix64(m->limit ^ hash_mix64(m->offset + m->file)));
	uint32_t h = (uint32_t)(h64 ^ (h64 >> 32));
	struct hashtab_iter it;
	uint32_t id = sc_find(c, &c->midx, h, sc_map_eq, m, &it);
	if (id != UINT32_MAX)
		return id;
	if (!sc_room((void **)&c->maps, &c->capmaps, c->nmaps, sizeof(*c->maps), c->lim.frames))
		return UINT32_MAX;
	if (!hashtab_add(&c->midx, &it, (uint32_t)c->nmaps))
		return UINT32_MAX;
	c->maps[c->nmaps] = *m;
	return (uint32_t)c->nmaps++;
}

/* --- frames --- */

struct sc_framekey {
	uint32_t sym, dso, src;
	uint64_t addr;
	bool inlined, kernel;
};

static bool sc_frame_eq(const struct stackcol *c, uint32_t id, const void *key)
{
	const struct stackcol_frame *f = &c->frames[id];
	const struct sc_framekey *k = key;
	return f->sym == k->sym && f->dso == k->dso && f->addr == k->addr &&
	       f->srcline == k->src && f->inlined == k->inlined && f->kernel == k->kernel;
}

/* srcline "path/file.c:123" -> file and line ids; anything else (no line number) says no file. */
static void sc_srcline(struct stackcol *c, const char *srcline, uint32_t *file, uint32_t *line)
{
	*file = 0;
	*line = 0;
	if (!srcline || !*srcline)
		return;
	const char *colon = strrchr(srcline, ':');
	char *end = NULL;
	unsigned long n = colon ? strtoul(colon + 1, &end, 10) : 0;
	if (colon && colon - srcline == 2 && strncmp(srcline, "??", 2) == 0)
		return; /* addr2line's "unknown" */
	/* only "file:line": perf's fallback when no line is known is "sym+0x12", no file */
	if (colon && end && end != colon + 1 && *end == '\0') {
		*file = sc_string_n(c, srcline, (size_t)(colon - srcline));
		*line = (uint32_t)n;
	}
}

/* A new frame's description: display name and mapping, from the session. */
static bool sc_frame_describe(struct stackcol *c, uint32_t pid, const struct frame *fr,
			      struct stackcol_frame *f)
{
	struct stackcol_desc d;
	memset(&d, 0, sizeof(d));
	if (c->describe)
		c->describe(c->describe_ctx, pid, fr, &d);
	f->display = d.display ? sc_string(c, d.display) : f->sym;
	struct stackcol_map m;
	memset(&m, 0, sizeof(m));
	if (d.have_map) {
		m.start = d.map_start;
		m.limit = d.map_limit;
		m.offset = d.map_offset;
		m.file = d.map_file ? sc_string(c, d.map_file) : f->dso;
		m.build_id_size = d.build_id_size <= 20 ? d.build_id_size : 20;
		memcpy(m.build_id, d.build_id, m.build_id_size);
		char hex[41];
		hex_encode(hex, m.build_id, m.build_id_size);
		m.build_id_hex = sc_string_n(c, hex, 2u * m.build_id_size);
	} else {
		m.file = f->dso;
		m.fake = true;
	}
	if (f->display == UINT32_MAX || m.file == UINT32_MAX || m.build_id_hex == UINT32_MAX)
		return false;
	f->map = sc_map(c, &m);
	return f->map != UINT32_MAX;
}

static uint32_t sc_frame(struct stackcol *c, uint32_t pid, const struct frame *fr)
{
	struct sc_framekey k = {
		.sym = sc_name(c, fr->sym), .dso = sc_name(c, fr->dso), .src = sc_name(c, fr->srcline),
		.addr = fr->addr, .inlined = fr->inlined, .kernel = fr->kernel,
	};
	if (k.sym == UINT32_MAX || k.dso == UINT32_MAX || k.src == UINT32_MAX)
		return UINT32_MAX;
	uint64_t h64 = hash_mix64(((uint64_t)k.sym << 32 | k.dso) ^
				  hash_mix64(fr->addr ^ ((uint64_t)k.src << 2 | k.inlined << 1 | k.kernel)));
	uint32_t h = (uint32_t)(h64 ^ (h64 >> 32));
	struct hashtab_iter it;
	uint32_t id = sc_find(c, &c->fidx, h, sc_frame_eq, &k, &it);
	if (id != UINT32_MAX)
		return id;
	if (!sc_room((void **)&c->frames, &c->capframes, c->nframes, sizeof(*c->frames),
		     c->lim.frames))
		return UINT32_MAX;
	struct stackcol_frame *f = &c->frames[c->nframes];
	memset(f, 0, sizeof(*f));
	f->sym = k.sym;
	f->dso = k.dso;
	f->srcline = k.src;
	f->addr = fr->addr;
	f->inlined = fr->inlined;
	f->kernel = fr->kernel;
	/* a kernel frame's "srcline" is perf's SYM+OFFSET fallback, not a file */
	sc_srcline(c, fr->kernel ? NULL : fr->srcline, &f->file, &f->line);
	if (f->file == UINT32_MAX || !sc_frame_describe(c, pid, fr, f))
		return UINT32_MAX;
	if (!hashtab_add(&c->fidx, &it, (uint32_t)c->nframes))
		return UINT32_MAX;
	return (uint32_t)c->nframes++;
}

/* --- stacks --- */

struct sc_stackkey {
	const uint32_t *ids;
	uint32_t n;
};

static bool sc_stack_eq(const struct stackcol *c, uint32_t id, const void *key)
{
	const struct sc_stackkey *k = key;
	const struct sc_stack *s = &c->stacks[id];
	return s->n == k->n && memcmp(c->ids + s->off, k->ids, k->n * sizeof(*k->ids)) == 0;
}

static uint32_t sc_stack(struct stackcol *c, const uint32_t *ids, uint32_t n)
{
	struct sc_stackkey k = { ids, n };
	uint64_t h64 = hash_fnv1a(ids, n * sizeof(*ids));
	uint32_t h = (uint32_t)hash_mix64(h64);
	struct hashtab_iter it;
	uint32_t id = sc_find(c, &c->stidx, h, sc_stack_eq, &k, &it);
	if (id != UINT32_MAX)
		return id;
	if (c->nids + n > c->lim.stack_frames)
		return UINT32_MAX;
	while (c->nids + n > c->capids) {
		if (!sc_room((void **)&c->ids, &c->capids, c->capids, sizeof(*c->ids),
			     c->lim.stack_frames))
			return UINT32_MAX;
	}
	if (!sc_room((void **)&c->stacks, &c->capstacks, c->nstacks, sizeof(*c->stacks),
		     c->lim.stacks))
		return UINT32_MAX;
	if (!hashtab_add(&c->stidx, &it, (uint32_t)c->nstacks))
		return UINT32_MAX;
	memcpy(c->ids + c->nids, ids, n * sizeof(*ids));
	c->stacks[c->nstacks] = (struct sc_stack){ (uint32_t)c->nids, n };
	c->nids += n;
	return (uint32_t)c->nstacks++;
}

/* The one-frame stack that stands for what did not fit, made first so that it always exists. */
static void sc_make_overflow(struct stackcol *c)
{
	struct frame fr = { .sym = SC_OVERFLOW_NAME, .dso = "[perftop]" };
	stackcol_describe_fn describe = c->describe;
	c->describe = NULL; /* nothing for the session to say of a frame of ours */
	uint32_t fid = sc_frame(c, 0, &fr);
	c->describe = describe;
	uint32_t sid = fid == UINT32_MAX ? UINT32_MAX : sc_stack(c, &fid, 1);
	c->overflow_stack = sid == UINT32_MAX ? 0 : sid + 1;
}

/* --- keys and the log --- */

static bool sc_key_eq(const struct stackcol *c, uint32_t id, const void *key)
{
	const struct stackcol_key *a = &c->keys[id], *b = key;
	return a->stack == b->stack && a->pid == b->pid && a->tid == b->tid && a->comm == b->comm &&
	       a->event == b->event && a->container == b->container && a->cgroup == b->cgroup;
}

/* max: the ordinary keys stop STACKCOL_MAX_EVENTS short of the bound, so that the overflow key of
 * each event always finds room. */
static uint32_t sc_key(struct stackcol *c, const struct stackcol_key *k, size_t max)
{
	uint64_t h64 = hash_mix64(((uint64_t)k->stack << 32 | k->tid) ^
				  hash_mix64((uint64_t)k->pid << 32 | (uint64_t)k->comm << 8 | k->event) ^
				  hash_mix64((uint64_t)k->container << 32 | k->cgroup));
	uint32_t h = (uint32_t)(h64 ^ (h64 >> 32));
	struct hashtab_iter it;
	uint32_t id = sc_find(c, &c->kidx, h, sc_key_eq, k, &it);
	if (id != UINT32_MAX)
		return id;
	if (c->nkeys >= max ||
	    !sc_room((void **)&c->keys, &c->capkeys, c->nkeys, sizeof(*c->keys), c->lim.keys))
		return UINT32_MAX;
	if (!hashtab_add(&c->kidx, &it, (uint32_t)c->nkeys))
		return UINT32_MAX;
	c->keys[c->nkeys] = *k;
	c->keys[c->nkeys].samples = c->keys[c->nkeys].weight = 0;
	return (uint32_t)c->nkeys++;
}

/* The stack of s's frames, or UINT32_MAX when a table is full. */
static uint32_t sc_sample_stack(struct stackcol *c, const struct sample_ctx *s)
{
	int n = s->nframes > 0 ? s->nframes : 0;
	if (n > STACKCOL_MAX_DEPTH) {
		n = STACKCOL_MAX_DEPTH;
		c->st.truncated_frames++;
	}
	for (int i = 0; i < n; i++) {
		c->scratch[i] = sc_frame(c, s->pid, &s->frames[i]);
		if (c->scratch[i] == UINT32_MAX)
			return UINT32_MAX;
	}
	return sc_stack(c, c->scratch, (uint32_t)n);
}

void stackcol_add(struct stackcol *c, int event, uint64_t time, const struct sample_ctx *s)
{
	if (event < 0 || event >= STACKCOL_MAX_EVENTS)
		return;
	c->st.samples++;
	struct stackcol_key k = { .pid = s->pid, .tid = s->tid, .event = (uint8_t)event };
	k.stack = sc_sample_stack(c, s);
	k.comm = sc_name(c, s->comm);
	k.container = sc_name(c, s->container);
	k.cgroup = sc_name(c, s->cgroup);
	if (k.stack == UINT32_MAX || k.comm == UINT32_MAX) {
		if (!c->overflow_stack)
			return; /* not even that could be made: nothing to count it in */
		c->st.overflowed++;
		k.stack = c->overflow_stack - 1;
		k.comm = k.comm == UINT32_MAX ? 0 : k.comm;
	}
	/* names that did not fit: the sample counts as of an unknown container, not lost */
	k.container = k.container == UINT32_MAX ? 0 : k.container;
	k.cgroup = k.cgroup == UINT32_MAX ? 0 : k.cgroup;
	uint32_t id = sc_key(c, &k, c->lim.keys - STACKCOL_MAX_EVENTS);
	if (id == UINT32_MAX) {
		c->st.key_overflowed++;
		k.pid = k.tid = 0;
		k.comm = k.container = k.cgroup = 0;
		k.stack = c->overflow_stack ? c->overflow_stack - 1 : k.stack;
		id = sc_key(c, &k, c->lim.keys);
		if (id == UINT32_MAX)
			return;
	}
	c->keys[id].samples++;
	c->keys[id].weight += s->period;
	if (!sc_room((void **)&c->log, &c->caplog, c->nlog, sizeof(*c->log), c->lim.log)) {
		c->st.log_dropped++;
		return;
	}
	c->log[c->nlog++] = (struct stackcol_sample){ .time = time, .key = id, .weight = s->period };
}

/* --- life --- */

struct stackcol *stackcol_new(const struct stackcol_limits *lim)
{
	struct stackcol *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	static const struct stackcol_limits def = {
		.string_bytes = 16u << 20, .frames = 256u << 10, .stacks = 256u << 10,
		.stack_frames = 8u << 20, .keys = 512u << 10, .log = 2u << 20,
	};
	c->lim = lim ? *lim : def;
	hashtab_init(&c->sidx, 256, SIZE_MAX);
	hashtab_init(&c->fidx, 256, SIZE_MAX);
	hashtab_init(&c->midx, 256, SIZE_MAX);
	hashtab_init(&c->stidx, 256, SIZE_MAX);
	hashtab_init(&c->kidx, 256, SIZE_MAX);
	/* id 0 is "" (pprof's string 0); the tables need room for the overflow stack */
	if (c->lim.string_bytes < 256)
		c->lim.string_bytes = 256;
	if (c->lim.frames < 1)
		c->lim.frames = 1;
	if (c->lim.stacks < 1)
		c->lim.stacks = 1;
	if (c->lim.stack_frames < 1)
		c->lim.stack_frames = 1;
	if (c->lim.keys < 2 * STACKCOL_MAX_EVENTS)
		c->lim.keys = 2 * STACKCOL_MAX_EVENTS;
	stackcol_reset(c);
	return c;
}

void stackcol_free(struct stackcol *c)
{
	if (!c)
		return;
	free(c->bytes);
	free(c->soff);
	hashtab_free(&c->sidx);
	free(c->frames);
	hashtab_free(&c->fidx);
	free(c->maps);
	hashtab_free(&c->midx);
	free(c->stacks);
	free(c->ids);
	hashtab_free(&c->stidx);
	free(c->keys);
	hashtab_free(&c->kidx);
	free(c->log);
	free(c);
}

void stackcol_reset(struct stackcol *c)
{
	c->nbytes = c->nstr = c->nframes = c->nmaps = c->nstacks = c->nids = c->nkeys = c->nlog = 0;
	hashtab_clear(&c->sidx);
	hashtab_clear(&c->fidx);
	hashtab_clear(&c->midx);
	hashtab_clear(&c->stidx);
	hashtab_clear(&c->kidx);
	memset(c->ptr, 0, sizeof(c->ptr));
	memset(&c->st, 0, sizeof(c->st));
	/* string 0: "" */
	if (sc_room((void **)&c->soff, &c->capstr, 0, sizeof(*c->soff), 1) &&
	    sc_room((void **)&c->bytes, &c->capbytes, 0, 1, c->lim.string_bytes)) {
		c->bytes[0] = '\0';
		c->soff[0] = 0;
		c->nbytes = c->nstr = 1;
	}
	sc_make_overflow(c);
}

void stackcol_set_describe(struct stackcol *c, stackcol_describe_fn fn, void *ctx)
{
	c->describe = fn;
	c->describe_ctx = ctx;
}

void stackcol_forget_names(struct stackcol *c)
{
	memset(c->ptr, 0, sizeof(c->ptr));
}

/* --- reading --- */

const char *stackcol_string(const struct stackcol *c, uint32_t id)
{
	return id < c->nstr ? c->bytes + c->soff[id] : "";
}

size_t stackcol_nstrings(const struct stackcol *c) { return c->nstr; }
size_t stackcol_nframes(const struct stackcol *c) { return c->nframes; }
const struct stackcol_frame *stackcol_frames(const struct stackcol *c) { return c->frames; }
size_t stackcol_nmaps(const struct stackcol *c) { return c->nmaps; }
const struct stackcol_map *stackcol_maps(const struct stackcol *c) { return c->maps; }
size_t stackcol_nstacks(const struct stackcol *c) { return c->nstacks; }

const uint32_t *stackcol_stack(const struct stackcol *c, uint32_t id, size_t *n)
{
	if (id >= c->nstacks) {
		*n = 0;
		return NULL;
	}
	*n = c->stacks[id].n;
	return c->ids + c->stacks[id].off;
}

size_t stackcol_nkeys(const struct stackcol *c) { return c->nkeys; }
const struct stackcol_key *stackcol_keys(const struct stackcol *c) { return c->keys; }
size_t stackcol_nlog(const struct stackcol *c) { return c->nlog; }
const struct stackcol_sample *stackcol_log(const struct stackcol *c) { return c->log; }

void stackcol_get_stats(const struct stackcol *c, struct stackcol_stats *st)
{
	*st = c->st;
}
