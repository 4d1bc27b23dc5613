/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_export: the stack collector and the encoders on samples made here.
 *  - the collector: stacks, keys and the log; names held across a "compaction" (the caller's
 *    strings overwritten after stackcol_forget_names); every bound, with totals kept whole;
 *  - pprof: the uncompressed bytes read back by a small protobuf reader of this test (field
 *    numbers of profile.proto): string 0 empty, ids dense from 1, an inline chain as the lines of one
 *    location innermost first, values in their event's columns, labels; the gzipped form inflates
 *    to the same bytes;
 *  - folded: lines and counts; speedscope: per-thread profiles in time order;
 *  - containers: a sample's container and cgroup keep its stack apart, are pprof string labels and
 *    folded's root.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check.h"
#include "export/export.h"
#include "export/stackcol.h"

/* --- a protobuf reader: the fields of one message --- */

struct pbf {
	int field, wire;
	uint64_t v;            /* varint */
	const uint8_t *p;      /* length-delimited */
	size_t n;
};

static bool pb_read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* The next field of [*p, end); false at the end or on bad bytes (then *bad). */
static bool pb_next(const uint8_t **p, const uint8_t *end, struct pbf *f, bool *bad)
{
	uint64_t key;
	if (*p >= end)
		return false;
	if (!pb_read_varint(p, end, &key)) {
		*bad = true;
		return false;
	}
	f->field = (int)(key >> 3);
	f->wire = (int)(key & 7);
	if (f->wire == 0)
		return pb_read_varint(p, end, &f->v) || (*bad = true, false);
	if (f->wire == 2) {
		uint64_t n;
		if (!pb_read_varint(p, end, &n) || n > (uint64_t)(end - *p)) {
			*bad = true;
			return false;
		}
		f->p = *p;
		f->n = (size_t)n;
		*p += n;
		return true;
	}
	*bad = true;
	return false;
}

#define MAXS 4096
struct decoded {
	char *strings[MAXS];
	int nstrings;
	int nsample_types, nsamples, nlocs, nfns, nmaps;
	uint64_t loc_ids[MAXS], fn_ids[MAXS], map_ids[MAXS];
	/* per location: its lines' function ids */
	uint64_t loc_lines[MAXS][8];
	int loc_nlines[MAXS];
	uint64_t fn_name[MAXS], fn_system[MAXS];
	uint64_t values_sum[8];
	uint64_t sample_locs[MAXS][16];
	int sample_nlocs[MAXS];
	uint64_t label_keys_seen[3];
	/* the string labels: key and value string ids */
	uint64_t lab_key[MAXS], lab_str[MAXS];
	int nlab;
	bool bad;
};

static void decode_packed(const struct pbf *f, uint64_t *out, int max, int *n)
{
	const uint8_t *p = f->p, *end = f->p + f->n;
	uint64_t v;
	*n = 0;
	while (p < end && pb_read_varint(&p, end, &v))
		if (*n < max)
			out[(*n)++] = v;
}

static void decode_sample(struct decoded *d, const struct pbf *s)
{
	const uint8_t *p = s->p, *end = s->p + s->n;
	struct pbf f;
	int i = d->nsamples < MAXS ? d->nsamples : MAXS - 1;
	while (pb_next(&p, end, &f, &d->bad)) {
		if (f.field == 1 && f.wire == 2) {
			decode_packed(&f, d->sample_locs[i], 16, &d->sample_nlocs[i]);
		} else if (f.field == 2 && f.wire == 2) {
			uint64_t v[8];
			int n;
			decode_packed(&f, v, 8, &n);
			for (int k = 0; k < n; k++)
				d->values_sum[k] += v[k];
		} else if (f.field == 3) {
			const uint8_t *q = f.p, *qe = f.p + f.n;
			struct pbf l;
			uint64_t key = 0;
			while (pb_next(&q, qe, &l, &d->bad)) {
				if (l.field == 1 && l.v < 3 + 4096)
					d->label_keys_seen[0]++;
				if (l.field == 1)
					key = l.v;
				if (l.field == 2 && l.v && d->nlab < MAXS) {
					d->lab_key[d->nlab] = key;
					d->lab_str[d->nlab++] = l.v;
				}
			}
		}
	}
	d->nsamples++;
}

static void decode_location(struct decoded *d, const struct pbf *s)
{
	const uint8_t *p = s->p, *end = s->p + s->n;
	struct pbf f;
	int i = d->nlocs < MAXS ? d->nlocs : MAXS - 1;
	d->loc_nlines[i] = 0;
	while (pb_next(&p, end, &f, &d->bad)) {
		if (f.field == 1)
			d->loc_ids[i] = f.v;
		if (f.field == 4 && f.wire == 2 && d->loc_nlines[i] < 8) {
			const uint8_t *q = f.p, *qe = f.p + f.n;
			struct pbf l;
			while (pb_next(&q, qe, &l, &d->bad))
				if (l.field == 1)
					d->loc_lines[i][d->loc_nlines[i]] = l.v;
			d->loc_nlines[i]++;
		}
	}
	d->nlocs++;
}

static uint64_t first_varint(const struct pbf *s, int field)
{
	const uint8_t *p = s->p, *end = s->p + s->n;
	struct pbf f;
	bool bad = false;
	while (pb_next(&p, end, &f, &bad))
		if (f.field == field && f.wire == 0)
			return f.v;
	return 0;
}

static void decode(struct decoded *d, const struct export_buf *b)
{
	memset(d, 0, sizeof(*d));
	const uint8_t *p = b->data, *end = b->data + b->len;
	struct pbf f;
	while (pb_next(&p, end, &f, &d->bad)) {
		switch (f.field) {
		case 1: d->nsample_types++; break;
		case 2: decode_sample(d, &f); break;
		case 3: d->map_ids[d->nmaps++ % MAXS] = first_varint(&f, 1); break;
		case 4: decode_location(d, &f); break;
		case 5:
			d->fn_ids[d->nfns % MAXS] = first_varint(&f, 1);
			d->fn_name[d->nfns % MAXS] = first_varint(&f, 2);
			d->fn_system[d->nfns % MAXS] = first_varint(&f, 3);
			d->nfns++;
			break;
		case 6:
			if (d->nstrings < MAXS)
				d->strings[d->nstrings++] = strndup((const char *)f.p, f.n);
			break;
		default: break;
		}
	}
}

static void decoded_free(struct decoded *d)
{
	for (int i = 0; i < d->nstrings; i++)
		free(d->strings[i]);
}

/* --- samples made here --- */

static struct frame fr(const char *sym, const char *dso, uint64_t addr, bool inlined)
{
	return (struct frame){ .sym = sym, .dso = dso, .addr = addr, .inlined = inlined };
}

static void describe(void *ctx, uint32_t pid, const struct frame *f, struct stackcol_desc *out)
{
	(void)ctx;
	(void)pid;
	if (strcmp(f->dso, "prog") == 0) {
		out->have_map = true;
		out->map_start = 0x1000;
		out->map_limit = 0x9000;
		out->map_file = "/usr/bin/prog";
		out->build_id_size = 2;
		out->build_id[0] = 0xab;
		out->build_id[1] = 0xcd;
	}
	if (strcmp(f->sym, "_ZN3foo3barEv") == 0)
		out->display = "foo::bar";
}

static void add(struct stackcol *c, int ev, uint64_t t, uint32_t tid, const char *comm,
		const struct frame *f, int n, uint64_t period)
{
	struct sample_ctx s = { .comm = comm, .pid = 100, .tid = tid, .period = period,
				.frames = f, .nframes = n };
	stackcol_add(c, ev, t, &s);
}

static void test_collector_and_pprof(void)
{
	struct stackcol *c = stackcol_new(NULL);
	stackcol_set_describe(c, describe, NULL);
	/* leaf first: an inline chain (inl2 inside inl1 inside work, one address), then main */
	struct frame a[] = { fr("inl2", "prog", 0x1234, true), fr("inl1", "prog", 0x1234, true),
			     fr("work", "prog", 0x1234, false), fr("main", "prog", 0x1100, false) };
	struct frame b[] = { fr("_ZN3foo3barEv", "libfoo.so", 0x7000, false), fr("main", "prog", 0x1100, false) };
	for (int i = 0; i < 10; i++)
		add(c, 0, 1000 + i, 101, "prog", a, 4, 1000);
	for (int i = 0; i < 5; i++)
		add(c, 0, 2000 + i, 102, "worker", b, 2, 1000);
	add(c, 1, 3000, 101, "prog", b, 2, 7);
	CHECK_EQ_U64(stackcol_nkeys(c), 3);
	CHECK_EQ_U64(stackcol_nlog(c), 16);
	CHECK_EQ_U64(stackcol_nstacks(c), 3); /* with the overflow stack */

	struct export_profile p = { .col = c, .mode = PROFILE_SAMPLES, .nevents = 2,
				    .time_ns = 1700000000000000000ull, .duration_ns = 2000000000ull };
	p.events[0] = (struct export_event){ .name = "cpu-clock", .freq = 1000 };
	p.events[1] = (struct export_event){ .name = "page-faults", .period = 1 };
	struct export_buf raw = { 0 };
	char err[256];
	CHECK(pprof_encode(&p, &raw, err, sizeof(err)) == 0);
	struct decoded *d = calloc(1, sizeof(*d));
	decode(d, &raw);
	CHECK(!d->bad);
	CHECK(d->nstrings > 0 && d->strings[0][0] == '\0');
	CHECK_EQ_U64(d->nsample_types, 4);
	CHECK_EQ_U64(d->nsamples, 3);
	CHECK_EQ_U64(d->values_sum[0], 15);        /* samples of cpu-clock */
	CHECK_EQ_U64(d->values_sum[1], 15000);
	CHECK_EQ_U64(d->values_sum[2], 1);         /* page-faults */
	CHECK_EQ_U64(d->values_sum[3], 7);
	CHECK_EQ_U64(d->label_keys_seen[0], 9);    /* pid, tid, comm on each */
	/* ids dense from 1 */
	for (int i = 0; i < d->nlocs; i++)
		CHECK_EQ_U64(d->loc_ids[i], i + 1);
	for (int i = 0; i < d->nfns; i++)
		CHECK_EQ_U64(d->fn_ids[i], i + 1);
	for (int i = 0; i < d->nmaps; i++)
		CHECK_EQ_U64(d->map_ids[i], i + 1);
	/* 3 locations: the inline chain (3 lines), main, foo::bar; 5 functions */
	CHECK_EQ_U64(d->nlocs, 3);
	CHECK_EQ_U64(d->nfns, 5);
	CHECK_EQ_U64(d->loc_nlines[0], 3);
	CHECK_STR(d->strings[d->fn_name[d->loc_lines[0][0] - 1]], "inl2"); /* innermost first */
	CHECK_STR(d->strings[d->fn_name[d->loc_lines[0][2] - 1]], "work");
	bool demangled = false;
	for (int i = 0; i < d->nfns; i++)
		if (strcmp(d->strings[d->fn_name[i]], "foo::bar") == 0)
			demangled = strcmp(d->strings[d->fn_system[i]], "_ZN3foo3barEv") == 0;
	CHECK(demangled);
	/* leaf first: the first sample is [chain, main] */
	CHECK_EQ_U64(d->sample_nlocs[0], 2);
	CHECK_EQ_U64(d->sample_locs[0][0], 1);
	CHECK_EQ_U64(d->sample_locs[0][1], 2);
	bool has_bid = false;
	for (int i = 0; i < d->nstrings; i++)
		has_bid |= strcmp(d->strings[i], "abcd") == 0;
	CHECK(has_bid);
	decoded_free(d);
	free(d);

	/* gzip: inflates to the same bytes */
	struct export_buf gz = { 0 };
	CHECK(pprof_encode_gz(&p, &gz, err, sizeof(err)) == 0);
	CHECK(gz.len > 18 && gz.data[0] == 0x1f && gz.data[1] == 0x8b);
	uint8_t *back = malloc(raw.len + 1);
	z_stream z = { 0 };
	inflateInit2(&z, 15 + 16);
	z.next_in = gz.data;
	z.avail_in = (uInt)gz.len;
	z.next_out = back;
	z.avail_out = (uInt)raw.len + 1;
	CHECK(inflate(&z, Z_FINISH) == Z_STREAM_END);
	CHECK_EQ_U64(z.total_out, raw.len);
	CHECK(memcmp(back, raw.data, raw.len) == 0);
	inflateEnd(&z);
	free(back);
	export_buf_free(&gz);
	export_buf_free(&raw);

	/* folded: the first event only, root first, comm first, threads of one comm merged */
	struct export_buf fo = { 0 };
	CHECK(folded_encode(&p, &fo, err, sizeof(err)) == 0);
	fo.data = realloc(fo.data, fo.len + 1);
	fo.data[fo.len] = 0;
	CHECK_STR((char *)fo.data, "prog;main;work;inl1;inl2 10\nworker;main;foo::bar 5\n");
	export_buf_free(&fo);

	/* speedscope: one profile per (thread, event) */
	struct export_buf ss = { 0 };
	CHECK(speedscope_encode(&p, &ss, err, sizeof(err)) == 0);
	ss.data = realloc(ss.data, ss.len + 1);
	ss.data[ss.len] = 0;
	const char *s = (const char *)ss.data;
	int nprof = 0;
	for (const char *q = s; (q = strstr(q, "\"type\":\"sampled\"")); q++)
		nprof++;
	CHECK_EQ_U64(nprof, 3);
	CHECK(strstr(s, "\"weights\":[1000,1000,1000,1000,1000,1000,1000,1000,1000,1000]") != NULL);
	CHECK(strstr(s, "\"unit\":\"nanoseconds\"") && strstr(s, "\"unit\":\"none\""));
	export_buf_free(&ss);
	stackcol_free(c);
}

/* The caller's names are overwritten after a "compaction": the collector's copies stay right. */
static void test_names_move(void)
{
	struct stackcol *c = stackcol_new(NULL);
	char sym[16] = "alpha", dso[16] = "prog", comm[16] = "cmd";
	struct frame f[] = { fr(sym, dso, 0x10, false) };
	add(c, 0, 1, 1, comm, f, 1, 1);
	stackcol_forget_names(c);
	strcpy(sym, "beta");      /* the same pointers now name something else */
	strcpy(comm, "other");
	f[0].addr = 0x20;
	add(c, 0, 2, 1, comm, f, 1, 1);
	struct export_profile p = { .col = c, .nevents = 1 };
	p.events[0].name = "cpu-clock";
	struct export_buf fo = { 0 };
	char err[128];
	CHECK(folded_encode(&p, &fo, err, sizeof(err)) == 0);
	fo.data = realloc(fo.data, fo.len + 1);
	fo.data[fo.len] = 0;
	CHECK_STR((char *)fo.data, "cmd;alpha 1\nother;beta 1\n");
	export_buf_free(&fo);
	stackcol_free(c);
}

/* Every bound: what does not fit is counted in the overflow stack, never lost from the totals. */
static void test_bounds(void)
{
	struct stackcol_limits lim = { .string_bytes = 300, .frames = 8, .stacks = 6,
				       .stack_frames = 40, .keys = 40, .log = 10 };
	struct stackcol *c = stackcol_new(&lim);
	char names[200][16];
	uint64_t total = 0;
	for (int i = 0; i < 200; i++) {
		snprintf(names[i], sizeof(names[i]), "fn%d", i);
		struct frame f[] = { fr(names[i], "prog", 0x100 + (uint64_t)i, false) };
		add(c, 0, (uint64_t)i, (uint32_t)i, "cmd", f, 1, 3);
		total += 3;
	}
	struct stackcol_stats st;
	stackcol_get_stats(c, &st);
	CHECK_EQ_U64(st.samples, 200);
	CHECK(st.overflowed > 0);
	CHECK(st.key_overflowed > 0);
	CHECK_EQ_U64(st.log_dropped, 190);
	CHECK(stackcol_nframes(c) <= 8 && stackcol_nstacks(c) <= 6 && stackcol_nkeys(c) <= 40);
	uint64_t w = 0, n = 0;
	for (size_t i = 0; i < stackcol_nkeys(c); i++) {
		w += stackcol_keys(c)[i].weight;
		n += stackcol_keys(c)[i].samples;
	}
	CHECK_EQ_U64(w, total);
	CHECK_EQ_U64(n, 200);
	/* the encoders still work, speedscope from the aggregated keys */
	struct export_profile p = { .col = c, .nevents = 1 };
	p.events[0].name = "cpu-clock";
	struct export_buf b = { 0 };
	char err[128];
	CHECK(pprof_encode_gz(&p, &b, err, sizeof(err)) == 0);
	export_buf_free(&b);
	CHECK(speedscope_encode(&p, &b, err, sizeof(err)) == 0);
	export_buf_free(&b);
	/* a reset starts over */
	stackcol_reset(c);
	CHECK_EQ_U64(stackcol_nkeys(c), 0);
	CHECK_EQ_U64(stackcol_nlog(c), 0);
	stackcol_free(c);
}

/* Source lines: "file:line" gives both; perf's "sym+off" fallback and kernel frames give none. */
static void test_srclines(void)
{
	struct stackcol *c = stackcol_new(NULL);
	struct frame f[] = { fr("a", "prog", 0x10, false), fr("b", "prog", 0x20, false),
			     fr("c", "prog", 0x30, false), fr("k", "[kernel.kallsyms]", 0x40, false) };
	f[0].srcline = "src/a.c:12";
	f[1].srcline = "b+0x10";
	f[2].srcline = "??:0";
	f[3].srcline = "k+64";
	f[3].kernel = true;
	add(c, 0, 1, 1, "cmd", f, 4, 1);
	const struct stackcol_frame *sf = stackcol_frames(c);
	size_t n = stackcol_nframes(c);
	CHECK_EQ_U64(n, 5); /* with the overflow frame */
	CHECK_STR(stackcol_string(c, sf[1].file), "src/a.c");
	CHECK_EQ_U64(sf[1].line, 12);
	for (size_t i = 2; i < n; i++)
		CHECK(sf[i].file == 0 && sf[i].line == 0);
	stackcol_free(c);
}

static void test_format_names(void)
{
	CHECK(export_format_of("a.pb.gz") == EXPORT_PPROF);
	CHECK(export_format_of("dir/a.pprof") == EXPORT_PPROF);
	CHECK(export_format_of("a.speedscope.json") == EXPORT_SPEEDSCOPE);
	CHECK(export_format_of("a.folded") == EXPORT_FOLDED);
	CHECK(export_format_of("a.json") == EXPORT_NONE);
	CHECK(export_format_of(".folded") == EXPORT_NONE);
}

/* A sample's container and cgroup: part of its key, pprof string labels, folded's root. */
static void test_containers(void)
{
	struct stackcol *c = stackcol_new(NULL);
	struct frame f[2] = { fr("leaf", "prog", 0x1100, false), fr("main", "prog", 0x1200, false) };
	const char *conts[3] = { "web", "db", NULL };
	for (int i = 0; i < 3; i++) {
		struct sample_ctx s = { .comm = "prog", .pid = 100, .tid = 100, .period = 10,
					.frames = f, .nframes = 2, .container = conts[i],
					.cgroup = conts[i] ? "/kubepods/x" : NULL };
		for (int k = 0; k <= i; k++)
			stackcol_add(c, 0, 1, &s);
	}
	CHECK_EQ_U64(stackcol_nkeys(c), 3); /* one stack, three containers */
	struct export_profile p = { .col = c, .nevents = 1, .events = { { .name = "cpu-clock" } } };
	struct export_buf b = { 0 };
	char err[256];
	CHECK(pprof_encode(&p, &b, err, sizeof(err)) == 0);
	struct decoded *d = calloc(1, sizeof(*d));
	decode(d, &b);
	int web = 0, db = 0, cg = 0;
	for (int i = 0; i < d->nlab; i++) {
		if (d->lab_key[i] >= (uint64_t)d->nstrings || d->lab_str[i] >= (uint64_t)d->nstrings)
			continue;
		const char *k = d->strings[d->lab_key[i]], *v = d->strings[d->lab_str[i]];
		web += !strcmp(k, "container") && !strcmp(v, "web");
		db += !strcmp(k, "container") && !strcmp(v, "db");
		cg += !strcmp(k, "cgroup") && !strcmp(v, "/kubepods/x");
	}
	CHECK(web == 1 && db == 1 && cg == 2); /* none on the sample of no container */
	decoded_free(d);
	free(d);
	export_buf_free(&b);
	p.folded_container = true;
	CHECK(folded_encode(&p, &b, err, sizeof(err)) == 0);
	char *text = strndup((const char *)b.data, b.len);
	CHECK(strstr(text, "web;prog;main;leaf 1\n") != NULL);
	CHECK(strstr(text, "db;prog;main;leaf 2\n") != NULL);
	CHECK(strstr(text, "[unknown];prog;main;leaf 3\n") != NULL);
	free(text);
	export_buf_free(&b);
	stackcol_free(c);
}

int main(void)
{
	test_containers();
	test_collector_and_pprof();
	test_names_move();
	test_bounds();
	test_srclines();
	test_format_names();
	return CHECK_DONE();
}
