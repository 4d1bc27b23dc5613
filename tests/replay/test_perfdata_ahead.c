/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_perfdata_ahead: the reader on its own thread hands out exactly what the reader hands out.
 *
 * A file written with perfdata_write holds 40,000 samples of callchains of 0 to 40 entries (records
 * of many sizes, many chunks' worth, several MiB so the mapped reader gives pages back), in rounds
 * whose times are shuffled. The records read through perfdata_ahead (a mapped file) must be byte
 * for byte those of a plain reader of the same bytes in memory, in the same order, with the same
 * counts; also after a rewind halfway, after stopping early, and on the file cut in the middle of a
 * record (the same records, the same warning). Each with the whole ring and with a ring of two
 * chunks, which the file fills and wraps many times (the whole ring only once or twice).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "perfdata/perfdata.h"
#include "perfdata/perfdata_ahead.h"
#include "perfdata/perfdata_write.h"

#define NSAMPLES 40000
#define PER_ROUND 500
#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN | \
	    PERF_SAMPLE_PERIOD)

/* All the records of one reading, copied one after another. */
struct seen {
	unsigned char *bytes;
	size_t len, cap, n;
	struct perfdata_stats st;
};

static void seen_add(struct seen *s, const struct rec *r)
{
	if (s->len + r->size > s->cap) {
		s->cap = (s->len + r->size) * 2;
		s->bytes = realloc(s->bytes, s->cap);
	}
	memcpy(s->bytes + s->len, r, r->size);
	s->len += r->size;
	s->n++;
}

static void write_file(const char *path)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1000,
				     .sample_type = ST, .sample_id_all = 1 };
	uint64_t id = 1;
	char err[256];
	struct sampler_tee_event tev = { .attr = &a, .ids = &id, .nids = 1, .name = "cpu-clock" };
	struct perfdata_writer *w = perfdata_writer_open(path, &tev, 1, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	uint64_t rec[8 + 41];
	for (uint32_t i = 0; i < NSAMPLES; i++) {
		uint32_t round = i / PER_ROUND, k = i % PER_ROUND, nr = i % 41;
		uint64_t time = 1000000ull * (round + 1) + (k * 7919u) % PER_ROUND * 100; /* shuffled */
		uint32_t words = 6 + nr;
		struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
					       (uint16_t)(words * 8) };
		memcpy(&rec[0], &h, 8);
		rec[1] = 0x400000 + i;                         /* ip */
		rec[2] = (uint64_t)(1000 + i % 7) << 32 | (1000 + i % 7); /* tid, pid */
		rec[3] = time;
		rec[4] = 1000;                                 /* period */
		rec[5] = nr;
		for (uint32_t j = 0; j < nr; j++)
			rec[6 + j] = 0x400000 + i * 3 + j;
		perfdata_writer_add(w, rec, words * 8);
		if (k == PER_ROUND - 1)
			perfdata_writer_end_pass(w, true, false);
	}
	perfdata_writer_end_pass(w, true, true);
	if (perfdata_writer_close(w, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	if (!f || fstat(fileno(f), &st) != 0)
		exit(1);
	unsigned char *p = malloc((size_t)st.st_size);
	*len = fread(p, 1, (size_t)st.st_size, f);
	fclose(f);
	return p;
}

/* The plain reader, over the bytes in memory. */
static struct seen read_plain(const unsigned char *bytes, size_t len)
{
	struct seen s = { 0 };
	char err[256];
	struct perfdata_reader *r = perfdata_open_mem(bytes, len, err, sizeof(err));
	CHECK(r != NULL);
	const struct rec *rec;
	while (r && perfdata_next_ref(r, &rec) > 0)
		seen_add(&s, rec);
	if (r)
		perfdata_get_stats(r, &s.st);
	perfdata_close(r);
	return s;
}

/* Up to max records through the thread (then its stats), from a reader of path. */
static struct seen read_ahead(struct perfdata_ahead *a, size_t max)
{
	struct seen s = { 0 };
	const struct rec *rec;
	while (s.n < max && perfdata_ahead_next(a, &rec) > 0)
		seen_add(&s, rec);
	perfdata_ahead_get_stats(a, &s.st);
	return s;
}

static void check_same(const struct seen *want, const struct seen *got, const char *what)
{
	CHECK_EQ_U64(got->n, want->n);
	CHECK_EQ_U64(got->len, want->len);
	if (got->len != want->len || memcmp(got->bytes, want->bytes, want->len) != 0) {
		check_failures++;
		fprintf(stderr, "%s: the records differ\n", what);
	}
	CHECK_EQ_U64(got->st.records, want->st.records);
	CHECK_EQ_U64(got->st.samples, want->st.samples);
	CHECK_EQ_U64(got->st.bad_records, want->st.bad_records);
	CHECK_EQ_U64(got->st.truncated, want->st.truncated);
	CHECK_EQ_U64(got->st.bytes_recovered, want->st.bytes_recovered);
	CHECK_STR(got->st.warning, want->st.warning);
}

static void test_file(const char *path, bool cut, unsigned chunks)
{
	size_t len;
	unsigned char *bytes = slurp(path, &len);
	struct seen want = read_plain(bytes, len);
	CHECK_EQ_U64(want.st.truncated, cut);
	CHECK_EQ_U64(want.st.samples, cut ? want.n - 1 : NSAMPLES); /* and the kernel's mapping */
	char err[256];
	struct perfdata_reader *r = perfdata_open(path, err, sizeof(err));
	CHECK(r && perfdata_in_memory(r));
	if (!r)
		exit(1);
	struct perfdata_ahead *a = perfdata_ahead_new(r);
	if (chunks)
		perfdata_ahead_set_chunks(a, chunks);
	struct seen got = read_ahead(a, SIZE_MAX);
	check_same(&want, &got, path);
	free(got.bytes);

	/* from the start to halfway, then from the start again */
	CHECK(perfdata_ahead_rewind(a) == 0);
	got = read_ahead(a, want.n / 2);
	CHECK_EQ_U64(got.n, want.n / 2);
	CHECK(memcmp(got.bytes, want.bytes, got.len) == 0);
	free(got.bytes);
	CHECK(perfdata_ahead_rewind(a) == 0);
	got = read_ahead(a, SIZE_MAX);
	check_same(&want, &got, "after a rewind");
	free(got.bytes);

	/* stopped early with the thread ahead: freed without reading on */
	CHECK(perfdata_ahead_rewind(a) == 0);
	got = read_ahead(a, 10);
	CHECK_EQ_U64(got.n, 10);
	free(got.bytes);
	perfdata_ahead_free(a);
	perfdata_close(r);
	free(want.bytes);
	free(bytes);
}

int main(void)
{
	char dir[] = "/tmp/test_perfdata_ahead.XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	char path[256], cut[256];
	snprintf(path, sizeof(path), "%s/whole.data", dir);
	snprintf(cut, sizeof(cut), "%s/cut.data", dir);
	write_file(path);
	struct stat st;
	CHECK(stat(path, &st) == 0 && st.st_size > (6 << 20));
	test_file(path, false, 0);
	test_file(path, false, 2);

	/* cut in the middle of a record, about two thirds in: a partial result with the warning */
	size_t len;
	unsigned char *bytes = slurp(path, &len);
	int fd = open(cut, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && write(fd, bytes, len / 3 * 2 + 13) == (ssize_t)(len / 3 * 2 + 13));
	close(fd);
	free(bytes);
	test_file(cut, true, 0);
	test_file(cut, true, 2);

	unlink(path);
	unlink(cut);
	rmdir(dir);
	return CHECK_DONE();
}
