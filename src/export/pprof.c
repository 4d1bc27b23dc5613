/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pprof: a collected profile as perftools.profiles.Profile (the published profile.proto's field
 * numbers, below), gzipped with zlib.
 *
 * A small encoder of our own rather than protobuf-c: protobuf-c wants the whole message built as a
 * tree of allocated structs (one per sample, location, line, label, with pointer arrays) before it
 * packs it, which for a million-sample profile is several times the memory of the collector that
 * already holds the data; writing the wire format straight from the collector's tables is ~100
 * lines (varints, length-delimited submessages) and needs no generated code in the build.
 *
 * What goes where:
 *  - string table: the collector's strings as they are (id 0 is "", build-ids are there in hex),
 *    then the few the encoder adds (sample types, label keys, comments), so every string id of
 *    the collector is its pprof index;
 *  - mappings: the collector's, id = index + 1 (a frame without one has a fake one per dso name,
 *    so that every location has a mapping);
 *  - functions: (demangled name, raw name, file) -> id, dense from 1;
 *  - locations: an address's inline chain (the inline frames and then the function that holds
 *    the address, as the symbolizer gives them: innermost first) is one location of several lines,
 *    id dense from 1;
 *  - samples: one per collector key (stack, pid, tid, comm, event): its locations leaf first, the
 *    values (samples, weight) in its event's two columns, labels pid, tid (numbers) and comm,
 *    and container and cgroup (strings) when the session knew them: Pyroscope, Parca and
 *    go tool pprof -tagfocus can then split any profile by container.
 */
#include "export/export.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export/export_int.h"
#include "util/hash.h"

/* profile.proto's field numbers */
enum {
	PB_PROFILE_SAMPLE_TYPE = 1, PB_PROFILE_SAMPLE = 2, PB_PROFILE_MAPPING = 3,
	PB_PROFILE_LOCATION = 4, PB_PROFILE_FUNCTION = 5, PB_PROFILE_STRING = 6,
	PB_PROFILE_TIME = 9, PB_PROFILE_DURATION = 10, PB_PROFILE_PERIOD_TYPE = 11,
	PB_PROFILE_PERIOD = 12, PB_PROFILE_COMMENT = 13, PB_PROFILE_DEFAULT_TYPE = 14,
	PB_VT_TYPE = 1, PB_VT_UNIT = 2,
	PB_SAMPLE_LOCATION = 1, PB_SAMPLE_VALUE = 2, PB_SAMPLE_LABEL = 3,
	PB_LABEL_KEY = 1, PB_LABEL_STR = 2, PB_LABEL_NUM = 3,
	PB_MAP_ID = 1, PB_MAP_START = 2, PB_MAP_LIMIT = 3, PB_MAP_OFFSET = 4, PB_MAP_FILE = 5,
	PB_MAP_BUILD_ID = 6, PB_MAP_HAS_FUNCTIONS = 7, PB_MAP_HAS_FILENAMES = 8,
	PB_MAP_HAS_LINES = 9, PB_MAP_HAS_INLINES = 10,
	PB_LOC_ID = 1, PB_LOC_MAPPING = 2, PB_LOC_ADDRESS = 3, PB_LOC_LINE = 4,
	PB_LINE_FUNCTION = 1, PB_LINE_LINE = 2,
	PB_FN_ID = 1, PB_FN_NAME = 2, PB_FN_SYSTEM_NAME = 3, PB_FN_FILE = 4,
};
enum { PB_VARINT = 0, PB_LEN = 2 };

/* --- the byte buffer and the wire format --- */

void export_buf_free(struct export_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

bool export_buf_reserve(struct export_buf *b, size_t more)
{
	if (b->failed)
		return false;
	if (b->len + more <= b->cap)
		return true;
	size_t ncap = b->cap ? b->cap : 4096;
	while (ncap < b->len + more)
		ncap *= 2;
	uint8_t *p = realloc(b->data, ncap);
	if (!p) {
		b->failed = true;
		return false;
	}
	b->data = p;
	b->cap = ncap;
	return true;
}

static void pb_varint(struct export_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;
	do {
		tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	export_buf_put(b, tmp, n);
}

static void pb_key(struct export_buf *b, int field, int wire)
{
	pb_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

/* An integer field; proto3 leaves zeros out. */
static void pb_uint(struct export_buf *b, int field, uint64_t v)
{
	if (!v)
		return;
	pb_key(b, field, PB_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(struct export_buf *b, int field, const void *p, size_t n)
{
	pb_key(b, field, PB_LEN);
	pb_varint(b, n);
	export_buf_put(b, p, n);
}

/* A submessage written into sub, appended to b as field. sub is emptied for the next one. */
static void pb_sub(struct export_buf *b, int field, struct export_buf *sub)
{
	pb_bytes(b, field, sub->data, sub->len);
	if (sub->failed)
		b->failed = true;
	sub->len = 0;
}

/* --- a small map (two u64 -> id) for functions and locations --- */

/* The id of (k1, k2); a new one is next_id, and *added says so. 0 when out of memory. */
uint32_t pp_map_get(struct pp_map *m, uint64_t k1, uint64_t k2, uint32_t next_id, bool *added)
{
	*added = false;
	if (!m->idx.min_slots)  /* zeroed: not used yet */
		hashtab_init(&m->idx, 1024, SIZE_MAX);
	struct hashtab_iter it = hashtab_probe(&m->idx, hash_mix64(k1 ^ hash_mix64(k2)));
	uint32_t v;
	while (hashtab_next(&m->idx, &it, &v))
		if (m->ent[v].k1 == k1 && m->ent[v].k2 == k2)
			return m->ent[v].id;
	if (m->n == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 1024;
		struct pp_ent *ne = realloc(m->ent, ncap * sizeof(*ne));
		if (!ne)
			return 0;
		m->ent = ne;
		m->cap = ncap;
	}
	if (!hashtab_add(&m->idx, &it, (uint32_t)m->n))
		return 0;
	m->ent[m->n++] = (struct pp_ent){ k1, k2, next_id };
	*added = true;
	return next_id;
}

void pp_map_free(struct pp_map *m)
{
	hashtab_free(&m->idx);
	free(m->ent);
	m->ent = NULL;
	m->n = m->cap = 0;
}

/* --- the encoder's state --- */

#define PP_EXTRA_STRINGS 256

struct pp {
	const struct export_profile *p;
	const struct stackcol *c;
	struct export_buf *out;
	struct export_buf sub, sub2;
	/* strings after the collector's: their text (owned) */
	char *extra[PP_EXTRA_STRINGS];
	size_t nextra;
	uint32_t nstr;               /* the collector's strings */
	struct pp_map fns, locs;
	uint32_t nfns, nlocs;
	uint64_t *locids;            /* a stack's location ids */
	size_t caplocids;
	uint64_t kept;               /* samples written (keep: fewer than the collector's) */
};

/* The index of an added string (looked for among those added before). */
static uint64_t pp_string(struct pp *pp, const char *s)
{
	if (!*s)
		return 0;
	for (size_t i = 0; i < pp->nextra; i++)
		if (strcmp(pp->extra[i], s) == 0)
			return pp->nstr + i;
	if (pp->nextra == PP_EXTRA_STRINGS)
		return 0;
	pp->extra[pp->nextra] = strdup(s);
	if (!pp->extra[pp->nextra])
		return 0;
	return pp->nstr + pp->nextra++;
}

static void pp_value_type(struct pp *pp, int field, const char *type, const char *unit)
{
	pb_uint(&pp->sub, PB_VT_TYPE, pp_string(pp, type));
	pb_uint(&pp->sub, PB_VT_UNIT, pp_string(pp, unit));
	pb_sub(pp->out, field, &pp->sub);
}

/* The event's weight column: (type, unit). */
static void pp_weight_type(const struct export_profile *p, int e, char *type, size_t tlen,
			   const char **unit)
{
	const char *name = p->events[e].name ? p->events[e].name : "events";
	if (export_time_mode(p)) {
		snprintf(type, tlen, "%s", p->mode == PROFILE_OFFCPU ? "off-cpu" : "wall");
		*unit = "nanoseconds";
	} else if (export_event_is_cpu_time(name)) {
		/* two cpu-time events would both be "cpu": the event's name tells them apart */
		snprintf(type, tlen, "%s", p->nevents > 1 ? name : "cpu");
		*unit = "nanoseconds";
	} else {
		snprintf(type, tlen, "%s", name);
		*unit = "count";
	}
}

/* Sample types, period type and period, the default type. */
static void pp_header(struct pp *pp)
{
	const struct export_profile *p = pp->p;
	char type[160], stype[200];
	const char *unit = "count";
	for (int e = 0; e < p->nevents; e++) {
		if (p->nevents > 1)
			snprintf(stype, sizeof(stype), "samples:%s", p->events[e].name ? p->events[e].name : "?");
		else
			snprintf(stype, sizeof(stype), "samples");
		pp_value_type(pp, PB_PROFILE_SAMPLE_TYPE, stype, "count");
		pp_weight_type(p, e, type, sizeof(type), &unit);
		pp_value_type(pp, PB_PROFILE_SAMPLE_TYPE, type, unit);
	}
	/* the first event's period: given, or 1e9/Hz for a time event sampled by frequency, else the
	 * mean weight of its samples */
	pp_weight_type(p, 0, type, sizeof(type), &unit);
	pp_value_type(pp, PB_PROFILE_PERIOD_TYPE, type, unit);
	uint64_t period = p->events[0].period;
	if (!period && p->events[0].freq && strcmp(unit, "nanoseconds") == 0)
		period = 1000000000ull / p->events[0].freq;
	if (!period) {
		uint64_t n = 0, w = 0;
		const struct stackcol_key *k = stackcol_keys(pp->c);
		for (size_t i = 0; i < stackcol_nkeys(pp->c); i++) {
			if (k[i].event == 0) {
				n += k[i].samples;
				w += k[i].weight;
			}
		}
		period = n ? w / n : 0;
	}
	pb_uint(pp->out, PB_PROFILE_PERIOD, period);
	pb_uint(pp->out, PB_PROFILE_DEFAULT_TYPE, pp_string(pp, type));
	pb_uint(pp->out, PB_PROFILE_TIME, p->time_ns);
	pb_uint(pp->out, PB_PROFILE_DURATION, p->duration_ns);
}

/* --- locations, functions, samples --- */

struct pp_loc {
	uint32_t stack, off, len;
};

struct pp_fn {
	uint32_t name, system_name, file;
};

struct pp_tables {
	struct pp_loc *locs;
	size_t caplocs;
	struct pp_fn *fns;
	size_t capfns;
};

/* Room for index n (so n + 1 elements) in *arr. */
static bool pp_grow(void **arr, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return true;
	size_t ncap = *cap ? *cap * 2 : 1024;
	while (ncap <= n)
		ncap *= 2;
	void *p = realloc(*arr, ncap * sz);
	if (!p)
		return false;
	*arr = p;
	*cap = ncap;
	return true;
}

/* The location of the frames ids[off..off+len) of stack (one address's inline chain). */
static uint64_t pp_location(struct pp *pp, struct pp_tables *t, uint32_t stack, const uint32_t *ids,
			    uint32_t off, uint32_t len)
{
	bool added;
	uint32_t id = pp_map_get(&pp->locs, (uint64_t)ids[off] << 32 | len, 0, pp->nlocs + 1, &added);
	if (!id)
		return 0;
	if (added) {
		if (!pp_grow((void **)&t->locs, &t->caplocs, pp->nlocs, sizeof(*t->locs)))
			return 0;
		t->locs[pp->nlocs++] = (struct pp_loc){ stack, off, len };
	}
	return id;
}

static uint64_t pp_function(struct pp *pp, struct pp_tables *t, const struct stackcol_frame *f)
{
	bool added;
	uint32_t id = pp_map_get(&pp->fns, (uint64_t)f->display << 32 | f->sym, f->file, pp->nfns + 1,
				 &added);
	if (!id)
		return 0;
	if (added) {
		if (!pp_grow((void **)&t->fns, &t->capfns, pp->nfns, sizeof(*t->fns)))
			return 0;
		/* an inline frame's raw name has perf's " (inlined)" mark: its system name is the
		 * function's own */
		t->fns[pp->nfns++] = (struct pp_fn){ f->display, f->inlined ? f->display : f->sym,
						      f->file };
	}
	return id;
}

/* A stack's location ids, leaf first, into pp->locids; their number, or -1 out of memory. */
static long pp_stack_locations(struct pp *pp, struct pp_tables *t, uint32_t stack)
{
	size_t n;
	const uint32_t *ids = stackcol_stack(pp->c, stack, &n);
	const struct stackcol_frame *fr = stackcol_frames(pp->c);
	if (!pp_grow((void **)&pp->locids, &pp->caplocids, n, sizeof(*pp->locids)))
		return -1;
	long nl = 0;
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;
		/* an inline chain ends at the function that holds the address (or the stack's end) */
		while (j + 1 < n && fr[ids[j]].inlined && fr[ids[j + 1]].addr == fr[ids[j]].addr)
			j++;
		uint64_t id = pp_location(pp, t, stack, ids, i, j - i + 1);
		if (!id)
			return -1;
		pp->locids[nl++] = id;
		i = j + 1;
	}
	return nl;
}

static void pp_label(struct pp *pp, uint64_t key, uint64_t str, uint64_t num)
{
	pb_uint(&pp->sub2, PB_LABEL_KEY, key);
	pb_uint(&pp->sub2, PB_LABEL_STR, str);
	pb_uint(&pp->sub2, PB_LABEL_NUM, num);
	pb_sub(&pp->sub, PB_SAMPLE_LABEL, &pp->sub2);
}

static int pp_samples(struct pp *pp, struct pp_tables *t)
{
	const struct stackcol_key *keys = stackcol_keys(pp->c);
	uint64_t kpid = pp_string(pp, "pid"), ktid = pp_string(pp, "tid"), kcomm = pp_string(pp, "comm");
	uint64_t kcont = pp_string(pp, "container"), kcg = pp_string(pp, "cgroup");
	int nvalues = 2 * pp->p->nevents;
	for (size_t i = 0; i < stackcol_nkeys(pp->c); i++) {
		const struct stackcol_key *k = &keys[i];
		if (!k->samples || k->event >= pp->p->nevents)
			continue;
		if (pp->p->keep && !pp->p->keep(pp->p->keep_ctx, pp->c, k))
			continue;
		long nl = pp_stack_locations(pp, t, k->stack);
		if (nl < 0)
			return -1;
		pp->kept += k->samples;
		/* packed repeated fields: location ids, then the values */
		pb_key(&pp->sub, PB_SAMPLE_LOCATION, PB_LEN);
		for (long l = 0; l < nl; l++)
			pb_varint(&pp->sub2, pp->locids[l]);
		pb_varint(&pp->sub, pp->sub2.len);
		export_buf_put(&pp->sub, pp->sub2.data, pp->sub2.len);
		pp->sub2.len = 0;
		for (int v = 0; v < nvalues; v++)
			pb_varint(&pp->sub2, v == 2 * k->event ? k->samples :
					     v == 2 * k->event + 1 ? k->weight : 0);
		pb_sub(&pp->sub, PB_SAMPLE_VALUE, &pp->sub2);
		pp_label(pp, kpid, 0, k->pid);
		pp_label(pp, ktid, 0, k->tid);
		if (k->comm)
			pp_label(pp, kcomm, k->comm, 0);
		if (k->container)
			pp_label(pp, kcont, k->container, 0);
		if (k->cgroup)
			pp_label(pp, kcg, k->cgroup, 0);
		pb_sub(pp->out, PB_PROFILE_SAMPLE, &pp->sub);
	}
	return pp->out->failed || pp->sub.failed || pp->sub2.failed ? -1 : 0;
}

/* pprof takes the first mapping for the main binary: the collector's first is the overflow
 * frame's (made before anything else), so it goes last. */
static uint64_t pp_map_id(const struct pp *pp, uint32_t map)
{
	size_t n = stackcol_nmaps(pp->c);
	return map == 0 ? n : map;
}

/* The locations (each address's chain as lines, innermost first) and, from them, the functions and
 * what each mapping has. */
static int pp_locations(struct pp *pp, struct pp_tables *t, uint8_t *mapflags)
{
	const struct stackcol_frame *fr = stackcol_frames(pp->c);
	for (uint32_t l = 0; l < pp->nlocs; l++) {
		size_t n;
		const uint32_t *ids = stackcol_stack(pp->c, t->locs[l].stack, &n);
		const struct stackcol_frame *last = &fr[ids[t->locs[l].off + t->locs[l].len - 1]];
		pb_uint(&pp->sub, PB_LOC_ID, l + 1);
		pb_uint(&pp->sub, PB_LOC_MAPPING, pp_map_id(pp, last->map));
		pb_uint(&pp->sub, PB_LOC_ADDRESS, last->addr);
		uint8_t flags = 1;
		for (uint32_t i = 0; i < t->locs[l].len; i++) {
			const struct stackcol_frame *f = &fr[ids[t->locs[l].off + i]];
			uint64_t fn = pp_function(pp, t, f);
			if (!fn)
				return -1;
			pb_uint(&pp->sub2, PB_LINE_FUNCTION, fn);
			pb_uint(&pp->sub2, PB_LINE_LINE, f->line);
			pb_sub(&pp->sub, PB_LOC_LINE, &pp->sub2);
			flags |= (f->file ? 2 : 0) | (f->line ? 4 : 0) | (f->inlined ? 8 : 0);
		}
		mapflags[last->map] |= flags;
		pb_sub(pp->out, PB_PROFILE_LOCATION, &pp->sub);
	}
	for (uint32_t i = 0; i < pp->nfns; i++) {
		pb_uint(&pp->sub, PB_FN_ID, i + 1);
		pb_uint(&pp->sub, PB_FN_NAME, t->fns[i].name);
		pb_uint(&pp->sub, PB_FN_SYSTEM_NAME, t->fns[i].system_name);
		pb_uint(&pp->sub, PB_FN_FILE, t->fns[i].file);
		pb_sub(pp->out, PB_PROFILE_FUNCTION, &pp->sub);
	}
	return pp->out->failed ? -1 : 0;
}

static void pp_mappings(struct pp *pp, const uint8_t *mapflags)
{
	const struct stackcol_map *m = stackcol_maps(pp->c);
	size_t nm = stackcol_nmaps(pp->c);
	for (size_t k = 0; k < nm; k++) {
		size_t i = (k + 1) % nm; /* by id: the collector's 1, 2 ... then 0 */
		pb_uint(&pp->sub, PB_MAP_ID, pp_map_id(pp, (uint32_t)i));
		pb_uint(&pp->sub, PB_MAP_START, m[i].start);
		pb_uint(&pp->sub, PB_MAP_LIMIT, m[i].limit);
		pb_uint(&pp->sub, PB_MAP_OFFSET, m[i].offset);
		pb_uint(&pp->sub, PB_MAP_FILE, m[i].file);
		pb_uint(&pp->sub, PB_MAP_BUILD_ID, m[i].build_id_hex);
		pb_uint(&pp->sub, PB_MAP_HAS_FUNCTIONS, mapflags[i] & 1);
		pb_uint(&pp->sub, PB_MAP_HAS_FILENAMES, !!(mapflags[i] & 2));
		pb_uint(&pp->sub, PB_MAP_HAS_LINES, !!(mapflags[i] & 4));
		pb_uint(&pp->sub, PB_MAP_HAS_INLINES, !!(mapflags[i] & 8));
		pb_sub(pp->out, PB_PROFILE_MAPPING, &pp->sub);
	}
}

/* What did not fit in the collector, said in the profile's comments. */
static void pp_comments(struct pp *pp)
{
	struct stackcol_stats st;
	stackcol_get_stats(pp->c, &st);
	char text[256];
	if (pp->p->keep) /* a part (a filter's, a container's series): what it holds of the whole */
		snprintf(text, sizeof(text), "perftop: %" PRIu64 " of %" PRIu64 " samples", pp->kept,
			 st.samples);
	else
		snprintf(text, sizeof(text), "perftop: %" PRIu64 " samples", st.samples);
	pb_uint(pp->out, PB_PROFILE_COMMENT, pp_string(pp, text));
	if (st.overflowed || st.key_overflowed) {
		snprintf(text, sizeof(text), "perftop: export tables full: %" PRIu64 " samples counted "
			 "in [perftop: export tables full]", st.overflowed + st.key_overflowed);
		pb_uint(pp->out, PB_PROFILE_COMMENT, pp_string(pp, text));
	}
}

int pprof_encode(const struct export_profile *p, struct export_buf *out, char *err, size_t errlen)
{
	struct pp pp = { .p = p, .c = p->col, .out = out };
	struct pp_tables t = { 0 };
	if (p->nevents < 1 || p->nevents > STACKCOL_MAX_EVENTS || !p->col) {
		snprintf(err, errlen, "pprof: nothing to encode (%d events)", p->nevents);
		return -1;
	}
	/* the collector's strings come first, as they are */
	pp.nstr = (uint32_t)stackcol_nstrings(p->col);
	uint8_t *mapflags = calloc(stackcol_nmaps(p->col) + 1, 1);
	int rc = mapflags ? 0 : -1;
	if (!rc) {
		pp_header(&pp);
		rc = pp_samples(&pp, &t);
	}
	if (!rc)
		rc = pp_locations(&pp, &t, mapflags);
	if (!rc) {
		pp_mappings(&pp, mapflags);
		pp_comments(&pp);
		for (uint32_t i = 0; i < pp.nstr; i++) {
			const char *s = stackcol_string(p->col, i);
			pb_bytes(out, PB_PROFILE_STRING, s, strlen(s));
		}
		for (size_t i = 0; i < pp.nextra; i++)
			pb_bytes(out, PB_PROFILE_STRING, pp.extra[i], strlen(pp.extra[i]));
		rc = out->failed ? -1 : 0;
	}
	if (rc)
		snprintf(err, errlen, "pprof: out of memory");
	for (size_t i = 0; i < pp.nextra; i++)
		free(pp.extra[i]);
	free(mapflags);
	pp_map_free(&pp.fns);
	pp_map_free(&pp.locs);
	free(t.locs);
	free(t.fns);
	free(pp.locids);
	export_buf_free(&pp.sub);
	export_buf_free(&pp.sub2);
	return rc;
}

int pprof_encode_gz(const struct export_profile *p, struct export_buf *out, char *err, size_t errlen)
{
	struct export_buf raw = { 0 };
	if (pprof_encode(p, &raw, err, errlen) != 0) {
		export_buf_free(&raw);
		return -1;
	}
	z_stream z;
	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		export_buf_free(&raw);
		snprintf(err, errlen, "pprof: zlib: cannot start compressing");
		return -1;
	}
	uLong bound = deflateBound(&z, raw.len);
	int rc = -1;
	if (export_buf_reserve(out, bound + 32)) {
		z.next_in = raw.data;
		z.avail_in = (uInt)raw.len;
		z.next_out = out->data + out->len;
		z.avail_out = (uInt)(out->cap - out->len);
		if (deflate(&z, Z_FINISH) == Z_STREAM_END) {
			out->len += z.total_out;
			rc = 0;
		}
	}
	deflateEnd(&z);
	if (rc)
		snprintf(err, errlen, "pprof: cannot compress %zu bytes", raw.len);
	export_buf_free(&raw);
	return rc;
}
