/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_stacklog: the w key's log of samples read back into a stack collector gives the collector
 * the samples fed to it directly would (the same folded export, the same frames' mappings); the
 * mapping a user frame had when it came is the one kept, not the one its address has when the log
 * is read; what stacklog_maps_changed says of a process is asked again; names moved by a
 * compaction are followed; a full log refuses a sample whole; a log of megabytes (its arena grown
 * and moved many times) reads back as the collector fed directly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "export/export.h"
#include "export/stackcol.h"
#include "export/stacklog.h"

/* The "session": one mapping per pid, its start moved by the test (a process that exec'd). */
struct maps {
	uint64_t start[4];
	int asked;
};

static bool map_of(void *ctx, uint32_t pid, const struct frame *f, struct stacklog_mapping *out)
{
	struct maps *m = ctx;
	m->asked++;
	if (!strcmp(f->dso, "[python]")) {
		out->start = 0;  /* none for any address of it */
		out->limit = UINT64_MAX;
		return false;
	}
	if (pid >= 4 || !m->start[pid] || f->addr < m->start[pid] || f->addr >= m->start[pid] + 0x1000)
		return false;
	static const uint8_t bid[4] = { 0xde, 0xad, 0xbe, 0xef };
	*out = (struct stacklog_mapping){ .start = m->start[pid], .limit = m->start[pid] + 0x1000,
					  .offset = 0, .path = "/bin/prog", .build_id = bid,
					  .build_id_size = sizeof(bid) };
	return true;
}

/* The collector's describe: the mapping the log kept for the frame read back (set by read_into). */
struct reading {
	const struct stacklog *log;
	const struct frame *frames;
	const uint32_t *maps;
	int n;
};

static void describe(void *ctx, uint32_t pid, const struct frame *f, struct stackcol_desc *out)
{
	(void)pid;
	struct reading *r = ctx;
	if (!r->frames || f < r->frames || f >= r->frames + r->n)
		return;
	const struct stacklog_map *m = stacklog_get_map(r->log, r->maps[f - r->frames]);
	if (!m)
		return;
	out->have_map = true;
	out->map_start = m->start;
	out->map_limit = m->limit;
	out->map_file = m->path;
}

static struct stackcol *read_into(struct stacklog *l)
{
	struct stackcol *c = stackcol_new(NULL);
	struct reading r = { .log = l };
	stackcol_set_describe(c, describe, &r);
	struct stacklog_entry e;
	size_t pos = 0;
	while (stacklog_next(l, &pos, &e)) {
		r.frames = e.ctx.frames;
		r.maps = e.maps;
		r.n = e.ctx.nframes;
		stackcol_add(c, e.event, e.time, &e.ctx);
	}
	return c;
}

static char *folded(struct stackcol *c)
{
	struct export_profile p = { .col = c, .nevents = 1 };
	p.events[0].name = "cpu-clock";
	struct export_buf b = { 0 };
	char err[128];
	CHECK(folded_encode(&p, &b, err, sizeof(err)) == 0);
	b.data = realloc(b.data, b.len + 1);
	b.data[b.len] = 0;
	return (char *)b.data;
}

static struct sample_ctx sample(uint32_t pid, const char *comm, const struct frame *f, int n)
{
	return (struct sample_ctx){ .comm = comm, .pid = pid, .tid = pid, .period = 1,
				    .frames = f, .nframes = n };
}

/* The log read back is the collector fed directly; the mapping is the one of the sample's time. */
static void test_same_as_direct(void)
{
	struct maps m = { .start = { 0, 0x1000, 0x5000 } };
	struct stacklog *l = stacklog_new(1u << 20, map_of, &m);
	struct stackcol *direct = stackcol_new(NULL);
	struct frame a[] = {
		{ .sym = "leaf", .dso = "prog", .addr = 0x1010 },
		{ .sym = "main", .dso = "prog", .addr = 0x1020 },
		{ .sym = "irq", .dso = "[kernel.kallsyms]", .addr = 0xffff0000, .kernel = true },
	};
	struct frame b[] = { { .sym = "other", .dso = "prog", .addr = 0x5010 } };
	for (int i = 0; i < 3; i++) {
		struct sample_ctx s = sample(1, "one", a, 3);
		CHECK(stacklog_add(l, 0, 100 + i, &s));
		stackcol_add(direct, 0, 100 + i, &s);
	}
	struct sample_ctx s2 = sample(2, "two", b, 1);
	CHECK(stacklog_add(l, 0, 200, &s2));
	stackcol_add(direct, 0, 200, &s2);
	/* the user frames' one mapping asked once per process (the kernel frame never) */
	CHECK(m.asked == 2);
	CHECK(stacklog_nsamples(l) == 4);
	m.start[1] = 0x9000; /* pid 1 exec'd since: its samples keep the mapping they had */
	struct stackcol *c = read_into(l);
	char *x = folded(c), *y = folded(direct);
	CHECK_STR(x, y);
	CHECK_STR(x, "one;irq;main;leaf 3\ntwo;other 1\n");
	CHECK(stackcol_nmaps(c) >= 2);
	const struct stackcol_frame *fr = stackcol_frames(c);
	const struct stackcol_map *mp = stackcol_maps(c);
	for (size_t i = 0; i < stackcol_nframes(c); i++)
		if (!strcmp(stackcol_string(c, fr[i].sym), "leaf"))
			CHECK_EQ_U64(mp[fr[i].map].start, 0x1000);
	free(x);
	free(y);
	stackcol_free(c);
	stackcol_free(direct);

	/* what maps_changed says of pid 1 is asked again, and answered as it is now */
	stacklog_reset(l);
	m.asked = 0;
	struct frame a2[] = { { .sym = "leaf", .dso = "prog", .addr = 0x9010 } };
	struct sample_ctx s3 = sample(1, "one", a2, 1);
	CHECK(stacklog_add(l, 0, 300, &s3));
	CHECK(stacklog_add(l, 0, 301, &s3));
	CHECK(m.asked == 1);
	stacklog_maps_changed(l, 1, false);
	CHECK(stacklog_add(l, 0, 302, &s3));
	CHECK(m.asked == 2);

	/* a none said for a whole dso is not asked again for its other addresses; a none for one
	 * unmapped address is asked again for the next one */
	stacklog_reset(l);
	m.asked = 0;
	for (uint64_t i = 0; i < 50; i++) {
		struct frame py[] = { { .sym = "fn (x.py)", .dso = "[python]", .addr = 0x7000 + 64 * i },
				      { .sym = "??", .dso = "prog", .addr = 0x20000 + 64 * (i % 2) } };
		struct sample_ctx sp = sample(1, "one", py, 2);
		CHECK(stacklog_add(l, 0, 400 + i, &sp));
	}
	printf("asked %d times for 50 samples of a Python frame and an unmapped one\n", m.asked);
	CHECK(m.asked == 1 + 50);
	stacklog_free(l);
}

static const char *upper(void *ctx, const char *name)
{
	(void)ctx;
	if (!name)
		return NULL;
	if (!strcmp(name, "leaf"))
		return "LEAF";
	if (!strcmp(name, "cmd"))
		return "CMD";
	return name;
}

/* A compaction's new pointers are followed; a sample past the bound is refused whole. */
static void test_names_and_bound(void)
{
	struct stacklog *l = stacklog_new(70000, NULL, NULL);
	char sym[8] = "leaf";
	struct frame f[] = { { .sym = sym, .dso = "prog", .addr = 0x10 } };
	struct sample_ctx s = sample(1, "cmd", f, 1);
	CHECK(stacklog_add(l, 0, 1, &s));
	stacklog_move_names(l, upper, NULL);
	strcpy(sym, "gone"); /* the old pool's bytes reused */
	struct stackcol *c = read_into(l);
	char *x = folded(c);
	CHECK_STR(x, "CMD;LEAF 1\n");
	free(x);
	stackcol_free(c);
	size_t n = 1;
	while (stacklog_add(l, 0, 2, &s))
		n++;
	CHECK(n > 100 && n < 70000 / 40);
	CHECK(stacklog_nsamples(l) == n);
	CHECK(stacklog_bytes(l) < 2 * 70000); /* the arena within its bound, and the fixed cache */
	stacklog_free(l);
}

/* Megabytes of samples, as a busy window's log is: the arena grows through many sizes; every
 * sample is still there, in order, and the export is the collector's fed directly. */
static void test_big_log(void)
{
	static const char *const names[] = { "alpha", "beta", "gamma", "delta", "epsilon", "zeta" };
	struct maps m = { .start = { 0, 0x1000, 0x5000 } };
	struct stacklog *l = stacklog_new(16u << 20, map_of, &m);
	struct stackcol *direct = stackcol_new(NULL);
	size_t n = 0;
	for (; stacklog_bytes(l) < (5u << 20); n++) {
		struct frame f[4];
		for (int k = 0; k < 4; k++)
			f[k] = (struct frame){ .sym = names[(n + (size_t)k * n / 7) % 6], .dso = "prog",
					       .addr = 0x1000 + 16 * (uint64_t)((n + (size_t)k) % 97) };
		struct sample_ctx s = sample(1 + (uint32_t)(n % 2), n % 2 ? "two" : "one", f, 4);
		CHECK(stacklog_add(l, 0, 1000 + n, &s));
		stackcol_add(direct, 0, 1000 + n, &s);
	}
	printf("%zu samples in a log of %zu bytes\n", n, stacklog_bytes(l));
	CHECK(stacklog_nsamples(l) == n);
	struct stacklog_entry e;
	size_t pos = 0, seen = 0;
	while (stacklog_next(l, &pos, &e))
		CHECK_EQ_U64(e.time, 1000 + seen++);
	CHECK(seen == n);
	struct stackcol *c = read_into(l);
	char *x = folded(c), *y = folded(direct);
	CHECK_STR(x, y);
	free(x);
	free(y);
	stackcol_free(c);
	stackcol_free(direct);
	stacklog_free(l);
}

int main(void)
{
	test_same_as_direct();
	test_names_and_bound();
	test_big_log();
	return CHECK_DONE();
}
