/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_perfdata: the perf.data reader on small files built in memory (perfdata_open_mem): a header,
 * one attr with its id, a few records and a HOSTNAME feature, in both byte orders (a big-endian
 * file laid out as a big-endian perf writes it, bitfields included); FINISHED_ROUND ordering; the
 * pipe-mode header with HEADER_ATTR and HEADER_FEATURE records; files cut short (no feature bits, a
 * data size that is a lower bound, a record cut in half, data size 0) and cut anywhere.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "perfdata/format.h"
#include "perfdata/perfdata.h"

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define ATTR_SIZE ((uint32_t)sizeof(struct perf_event_attr))
#define ID 7
#define PID 100

/* A growing byte buffer written in either byte order. */
struct buf {
	unsigned char *p;
	size_t len, cap;
	bool be;
};

static void put(struct buf *b, const void *v, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void put16(struct buf *b, uint16_t v)
{
	if (b->be)
		v = __builtin_bswap16(v);
	put(b, &v, 2);
}

static void put32(struct buf *b, uint32_t v)
{
	if (b->be)
		v = __builtin_bswap32(v);
	put(b, &v, 4);
}

static void put64(struct buf *b, uint64_t v)
{
	if (b->be)
		v = __builtin_bswap64(v);
	put(b, &v, 8);
}

static void set64(struct buf *b, size_t at, uint64_t v)
{
	if (b->be)
		v = __builtin_bswap64(v);
	memcpy(b->p + at, &v, 8);
}

static void zeros(struct buf *b, size_t n)
{
	static const unsigned char z[256];
	put(b, z, n);
}

/* The attr: cpu-clock at 999 Hz, precise_ip 2 (not symmetric: shows a bit order mistake). */
static void attr_make(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->size = ATTR_SIZE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_freq = 999;
	a->freq = 1;
	a->sample_type = ST;
	a->disabled = 1;
	a->mmap = 1;
	a->comm = 1;
	a->precise_ip = 2;
	a->sample_id_all = 1;
	a->sample_max_stack = 127;
}

/* The attr as a perf of b's byte order writes it: fields by size, the bitfield word as that
 * machine's compiler allocates it (big-endian: from the most significant bit). */
static void put_attr(struct buf *b, const struct perf_event_attr *a)
{
	uint64_t le, be = 0;
	put32(b, a->type);
	put32(b, a->size);
	put64(b, a->config);
	put64(b, a->sample_period);
	put64(b, a->sample_type);
	put64(b, a->read_format);
	memcpy(&le, (const char *)a + 40, 8);
	if (!b->be) {
		put(b, &le, 8);
	} else {
		/* one-bit fields: bit n goes to bit 63 - n; precise_ip (15, 2 bits) keeps its value */
		for (int n = 0; n < 64; n++)
			if (n != 15 && n != 16 && (le >> n & 1))
				be |= 1ull << (63 - n);
		be |= (le >> 15 & 3) << (64 - 15 - 2);
		put64(b, be);
	}
	put32(b, a->wakeup_events);
	put32(b, a->bp_type);
	put64(b, a->config1);
	put64(b, a->config2);
	put64(b, a->branch_sample_type);
	put64(b, a->sample_regs_user);
	put32(b, a->sample_stack_user);
	put32(b, (uint32_t)a->clockid);
	put64(b, a->sample_regs_intr);
	put32(b, a->aux_watermark);
	put16(b, a->sample_max_stack);
	put16(b, 0);
	put32(b, a->aux_sample_size);
	put32(b, 0);
	zeros(b, ATTR_SIZE - 120); /* sig_data, config3...: zero */
}

static void trailer(struct buf *b, uint64_t time)
{
	put32(b, PID);
	put32(b, PID + 1);
	put64(b, time);
	put32(b, 1); /* cpu */
	put32(b, 0);
}

static void rec_comm(struct buf *b, uint64_t time)
{
	put32(b, PERF_RECORD_COMM);
	put16(b, PERF_RECORD_MISC_COMM_EXEC);
	put16(b, 8 + 8 + 16 + 24);
	put32(b, PID);
	put32(b, PID + 1);
	put(b, "work\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	trailer(b, time);
}

static void rec_sample(struct buf *b, uint64_t time, uint64_t ip)
{
	put32(b, PERF_RECORD_SAMPLE);
	put16(b, PERF_RECORD_MISC_USER);
	put16(b, 8 + 5 * 8);
	put64(b, ip);
	put32(b, PID);
	put32(b, PID + 1);
	put64(b, time);
	put32(b, (uint32_t)(time & 1)); /* cpu */
	put32(b, 0);
	put64(b, 1000 + time);          /* period */
}

static void rec_round(struct buf *b)
{
	put32(b, PD_FINISHED_ROUND);
	put16(b, 0);
	put16(b, 8);
}

/* The data: a COMM, then samples that arrive out of time order across two rounds. Their times,
 * in file order; the reader must hand them out sorted. */
static const uint64_t times_in[] = {10, 30, 0 /* round */, 20, 40, 0 /* round */, 35};
static const uint64_t times_out[] = {10, 20, 30, 35, 40};
#define NSAMPLES 5

/* Writes the data records; returns the offsets (from the data start) after each record in ends. */
static size_t put_data(struct buf *b, size_t *ends)
{
	size_t n = 0, start = b->len;
	rec_comm(b, 5);
	ends[n++] = b->len - start;
	for (size_t i = 0; i < sizeof(times_in) / sizeof(times_in[0]); i++) {
		if (times_in[i])
			rec_sample(b, times_in[i], 0x400000 + times_in[i]);
		else
			rec_round(b);
		ends[n++] = b->len - start;
	}
	return n;
}

static void put_string(struct buf *b, const char *s)
{
	uint32_t len = ((uint32_t)strlen(s) + 1 + 7) & ~7u;
	put32(b, len);
	put(b, s, strlen(s));
	zeros(b, len - strlen(s));
}

enum cut { CUT_NONE, CUT_NO_FEATURES, CUT_SIZE_ZERO };

/* A file-format perf.data: header, attr + ids section, id, data, HOSTNAME feature. With cut, the
 * header says what a writer killed halfway leaves: no feature bits, and a data size that covers
 * only the first sync_recs records (or 0). */
static struct buf make_file(bool be, enum cut cut, size_t sync_recs, size_t *ends, size_t *nrec,
			    size_t *data_off)
{
	struct buf b = {.be = be};
	struct perf_event_attr a;
	attr_make(&a);
	put64(&b, PD_MAGIC2);                    /* byte-swapped in a big-endian file */
	put64(&b, PD_FILE_HEADER_SIZE);
	put64(&b, ATTR_SIZE + 16);
	put64(&b, PD_FILE_HEADER_SIZE);          /* attrs */
	put64(&b, ATTR_SIZE + 16);
	put64(&b, 0);                            /* data: filled in below */
	put64(&b, 0);
	put64(&b, 0);                            /* event types */
	put64(&b, 0);
	zeros(&b, 32);                           /* features: filled in below */
	put_attr(&b, &a);
	size_t ids_at = b.len;
	put64(&b, 0);
	put64(&b, 8);
	set64(&b, ids_at, b.len);
	put64(&b, ID);
	*data_off = b.len;
	*nrec = put_data(&b, ends);
	size_t data_size = b.len - *data_off;
	set64(&b, 40, *data_off);
	if (cut == CUT_NONE) {
		set64(&b, 48, data_size);
		set64(&b, PD_HEADER_FEATURES_AT, 1ull << FEAT_HOSTNAME);
		size_t tab = b.len;
		put64(&b, 0);
		put64(&b, 0);
		size_t sec = b.len;
		put_string(&b, "testhost");
		set64(&b, tab, sec);
		set64(&b, tab + 8, b.len - sec);
	} else {
		set64(&b, 48, cut == CUT_SIZE_ZERO ? 0 : ends[sync_recs - 1]);
	}
	return b;
}

/* Reads every record; checks the COMM and the samples in time order with their fields. */
static void check_records(struct perfdata_reader *r, size_t want_samples, const char *what)
{
	struct rec *rec = malloc(65536);
	size_t ns = 0, ncomm = 0;
	int rc;
	while ((rc = perfdata_next(r, rec, 65536)) > 0) {
		if (rec->type == REC_COMM) {
			ncomm++;
			CHECK_STR(rec->u.comm.comm, "work");
			CHECK(rec->u.comm.exec);
			CHECK_EQ_U64(rec->pid, PID);
			CHECK_EQ_U64(rec->time, 5);
			CHECK_EQ_U64(rec->cpu, 1);
			continue;
		}
		CHECK_EQ_U64(rec->type, REC_SAMPLE);
		if (ns < NSAMPLES) {
			uint64_t t = times_out[ns];
			CHECK_EQ_U64(rec->time, t);
			CHECK_EQ_U64(rec->u.sample.ip, 0x400000 + t);
			CHECK_EQ_U64(rec->u.sample.period, 1000 + t);
			CHECK_EQ_U64(rec->pid, PID);
			CHECK_EQ_U64(rec->tid, PID + 1);
			CHECK_EQ_U64(rec->cpu, t & 1);
		}
		ns++;
	}
	CHECK_EQ_U64(rc, 0);
	CHECK_EQ_U64(ncomm, 1);
	CHECK_EQ_U64(ns, want_samples);
	if (ns != want_samples)
		fprintf(stderr, "  (%s)\n", what);
	free(rec);
}

static void check_attr(struct perfdata_reader *r)
{
	CHECK_EQ_U64(perfdata_nevents(r), 1);
	const struct perfdata_event *e = perfdata_event(r, 0);
	CHECK_EQ_U64(e->attr.type, PERF_TYPE_SOFTWARE);
	CHECK_EQ_U64(e->attr.config, PERF_COUNT_SW_CPU_CLOCK);
	CHECK_EQ_U64(e->attr.sample_type, ST);
	CHECK_EQ_U64(e->attr.sample_freq, 999);
	CHECK_EQ_U64(e->attr.freq, 1);
	CHECK_EQ_U64(e->attr.disabled, 1);
	CHECK_EQ_U64(e->attr.mmap, 1);
	CHECK_EQ_U64(e->attr.comm, 1);
	CHECK_EQ_U64(e->attr.inherit, 0);
	CHECK_EQ_U64(e->attr.precise_ip, 2);
	CHECK_EQ_U64(e->attr.sample_id_all, 1);
	CHECK_EQ_U64(e->attr.exclude_kernel, 0);
	CHECK_EQ_U64(e->attr.sample_max_stack, 127);
	CHECK_EQ_U64(e->nids, 1);
	if (e->nids)
		CHECK_EQ_U64(e->ids[0], ID);
	/* no EVENT_DESC: named as perf names the attr, its precise_ip 2 as the modifier :pp */
	CHECK_STR(e->name, "cpu-clock:pp");
}

static void test_file(bool be)
{
	size_t ends[16], nrec, doff;
	char err[256];
	struct buf b = make_file(be, CUT_NONE, 0, ends, &nrec, &doff);
	struct perfdata_reader *r = perfdata_open_mem(b.p, b.len, err, sizeof(err));
	CHECK(r != NULL);
	if (!r) {
		fprintf(stderr, "  %s\n", err);
		free(b.p);
		return;
	}
	check_attr(r);
	const struct perfdata_info *in = perfdata_info(r);
	CHECK_STR(in->hostname, "testhost");
	CHECK_EQ_U64(in->swapped, be);
	CHECK(!in->pipe_mode);
	check_records(r, NSAMPLES, be ? "big-endian file" : "file");
	struct perfdata_stats st;
	perfdata_get_stats(r, &st);
	CHECK(!st.truncated);
	CHECK_STR(st.warning, "");
	CHECK_EQ_U64(st.samples, NSAMPLES);
	/* again from the start: the same */
	CHECK_EQ_U64(perfdata_rewind(r), 0);
	check_records(r, NSAMPLES, "after a rewind");
	perfdata_close(r);
	free(b.p);
}

/* A stream's start: the 16-byte pipe header, then HEADER_ATTR (the attr, then its one id). */
static void put_pipe_header(struct buf *b)
{
	struct perf_event_attr a;
	attr_make(&a);
	put64(b, PD_MAGIC2);
	put64(b, PD_PIPE_HEADER_SIZE);
	put32(b, PD_HEADER_ATTR);
	put16(b, 0);
	put16(b, (uint16_t)(8 + ATTR_SIZE + 8));
	put_attr(b, &a);
	put64(b, ID);
}

/* Pipe mode: the 16-byte header, HEADER_ATTR (attr then ids), HEADER_FEATURE, then the data. */
static void test_pipe(bool be)
{
	struct buf b = {.be = be};
	size_t ends[16];
	char err[256];
	put_pipe_header(&b);
	size_t at = b.len;
	put32(&b, PD_HEADER_FEATURE);
	put16(&b, 0);
	put16(&b, 0);
	put64(&b, FEAT_HOSTNAME);
	put_string(&b, "pipehost");
	uint16_t fsz = (uint16_t)(b.len - at);
	if (be)
		fsz = __builtin_bswap16(fsz);
	memcpy(b.p + at + 6, &fsz, 2);
	put_data(&b, ends);
	struct perfdata_reader *r = perfdata_open_mem(b.p, b.len, err, sizeof(err));
	CHECK(r != NULL);
	if (r) {
		check_attr(r);
		CHECK(perfdata_info(r)->pipe_mode);
		CHECK_STR(perfdata_info(r)->hostname, "pipehost");
		check_records(r, NSAMPLES, "pipe");
		struct perfdata_stats st;
		perfdata_get_stats(r, &st);
		CHECK_STR(st.warning, "");
		perfdata_close(r);
	} else {
		fprintf(stderr, "  pipe: %s\n", err);
	}
	free(b.p);
}

/* One HEADER_BUILD_ID record (perf's build-id entry: header, pid, 20 bytes + size byte + 3 pad,
 * the file name padded to 64). */
static void put_build_id(struct buf *b, const char *name, unsigned char seed, uint8_t len)
{
	put32(b, PD_HEADER_BUILD_ID);
	put16(b, (uint16_t)(PD_MISC_BUILD_ID_SIZE | PERF_RECORD_MISC_USER));
	put16(b, PD_BUILD_ID_HEAD + 64);
	put32(b, (uint32_t)-1);
	unsigned char id[24] = {0};
	for (int i = 0; i < 20; i++)
		id[i] = (unsigned char)(seed + i);
	id[20] = len;
	put(b, id, sizeof(id));
	char fn[64] = {0};
	snprintf(fn, sizeof(fn), "%s", name);
	put(b, fn, sizeof(fn));
}

/* A stream's HEADER_BUILD_ID records: each (path, build-id) once in perfdata_build_ids, files and
 * the kernel's (whether this machine's kallsyms may name it), a size byte honoured; listed in the
 * header lines when met at open. */
static void test_pipe_build_ids(bool be)
{
	struct buf b = {.be = be};
	size_t ends[16];
	char err[256];
	put_pipe_header(&b);
	put_build_id(&b, "/usr/bin/first", 0x10, 20);
	put_build_id(&b, "[kernel.kallsyms]", 0x20, 20);
	put_data(&b, ends);
	put_build_id(&b, "/opt/second.so", 0x30, 16);  /* met in the data, as a binary is first hit */
	put_build_id(&b, "/usr/bin/first", 0x10, 20);  /* again: kept once */
	rec_sample(&b, 50, 0x1234);
	struct perfdata_reader *r = perfdata_open_mem(b.p, b.len, err, sizeof(err));
	CHECK(r != NULL);
	if (!r) {
		fprintf(stderr, "  pipe build-ids: %s\n", err);
		free(b.p);
		return;
	}
	size_t n;
	perfdata_build_ids(r, &n);
	CHECK(n == 2);  /* the ones before the data, read at open */
	const struct rec *rec;
	while (perfdata_next_ref(r, &rec) > 0)
		;
	const struct perfdata_build_id *const *ids = perfdata_build_ids(r, &n);
	CHECK(n == 3);
	if (n == 3) {
		CHECK_STR(ids[0]->path, "/usr/bin/first");
		CHECK(ids[0]->size == 20 && ids[0]->bid[0] == 0x10 && ids[0]->bid[19] == 0x10 + 19);
		CHECK_STR(ids[1]->path, "[kernel.kallsyms]");
		CHECK(ids[1]->size == 20 && ids[1]->bid[0] == 0x20);
		CHECK_STR(ids[2]->path, "/opt/second.so");
		CHECK(ids[2]->size == 16 && ids[2]->bid[0] == 0x30);
	}
	size_t nl;
	char **lines = perfdata_header_lines(r, &nl);
	bool listed = false;
	for (size_t i = 0; i < nl; i++)
		listed |= strstr(lines[i], "build-id: 101112") && strstr(lines[i], "/usr/bin/first");
	CHECK(listed);
	perfdata_free_lines(lines, nl);
	perfdata_close(r);
	free(b.p);
}

/* A recording cut short: no feature bits, the header's data size covering the first 3 records (the
 * last sync), then the rest of the records, the last one cut in half. */
static void test_cut(bool be, enum cut cut)
{
	size_t ends[16], nrec, doff;
	char err[256];
	struct buf b = make_file(be, cut, 3, ends, &nrec, &doff);
	/* cut the last record (the sample at 35) in half */
	size_t len = doff + ends[nrec - 2] + 20;
	struct perfdata_reader *r = perfdata_open_mem(b.p, len, err, sizeof(err));
	CHECK(r != NULL);
	if (!r) {
		fprintf(stderr, "  cut: %s\n", err);
		free(b.p);
		return;
	}
	/* everything up to the cut: the 4 complete samples, in time order, not just the 2 the data size
	 * covers */
	struct rec *rec = malloc(65536);
	uint64_t last = 0, ns = 0;
	while (perfdata_next(r, rec, 65536) > 0) {
		if (rec->type != REC_SAMPLE)
			continue;
		CHECK(rec->time >= last);
		last = rec->time;
		ns++;
	}
	CHECK_EQ_U64(ns, 4);
	struct perfdata_stats st;
	perfdata_get_stats(r, &st);
	CHECK(st.truncated);
	CHECK(strstr(st.warning, "cut short") != NULL);
	CHECK(strstr(st.warning, "read 7 records") != NULL); /* COMM, 4 samples, 2 rounds */
	CHECK_EQ_U64(st.bytes_recovered, ends[nrec - 2]);
	if (!strstr(st.warning, "read 7 records"))
		fprintf(stderr, "  warning: %s\n", st.warning);
	size_t n;
	char **lines = perfdata_header_lines(r, &n);
	bool said = false;
	for (size_t i = 0; i < n; i++)
		if (strncmp(lines[i], "data size:", 10) == 0)
			said = strstr(lines[i], cut == CUT_SIZE_ZERO ? "never filled in" : "lower bound") != NULL;
	CHECK(said);
	perfdata_free_lines(lines, n);
	free(rec);
	perfdata_close(r);

	/* a complete file without feature bits is still one the writer never finished: it says so */
	r = perfdata_open_mem(b.p, b.len, err, sizeof(err));
	CHECK(r != NULL);
	if (r) {
		check_records(r, NSAMPLES, "unfinished, not cut");
		perfdata_get_stats(r, &st);
		CHECK(st.truncated && strstr(st.warning, "cut short"));
		perfdata_close(r);
	}
	free(b.p);
}

/* A finished file cut at every length: never a crash, a hang or more samples than are there. */
static void test_cut_anywhere(bool be)
{
	size_t ends[16], nrec, doff;
	char err[256];
	struct buf b = make_file(be, CUT_NONE, 0, ends, &nrec, &doff);
	struct rec *rec = malloc(65536);
	for (size_t len = 1; len < b.len; len++) {
		struct perfdata_reader *r = perfdata_open_mem(b.p, len, err, sizeof(err));
		if (!r) {
			CHECK(err[0] != '\0');
			continue;
		}
		size_t ns = 0;
		while (perfdata_next(r, rec, 65536) > 0)
			ns += rec->type == REC_SAMPLE;
		CHECK(ns <= NSAMPLES);
		struct perfdata_stats st;
		perfdata_get_stats(r, &st);
		if (len < doff + ends[nrec - 1])
			CHECK(st.warning[0] != '\0'); /* the data is short: it says where it stopped */
		perfdata_close(r);
	}
	free(rec);
	free(b.p);
}

int main(void)
{
	for (int be = 0; be <= 1; be++) {
		test_file(be);
		test_pipe(be);
		test_pipe_build_ids(be);
		test_cut(be, CUT_NO_FEATURES);
		test_cut(be, CUT_SIZE_ZERO);
		test_cut_anywhere(be);
	}
	return CHECK_DONE();
}
