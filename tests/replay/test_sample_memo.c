/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_sample_memo: a sample's frames come back only for the same key (pid, tid, cpumode, ip, the
 * whole chain), and only until a side-band record about its process (or the kernel's mappings, or
 * forget_all) says names may have changed; samples with a user stack, or too long a chain, are
 * never kept.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "session/sample_memo.h"

/* A sample record with its chain after the header, as the parser lays it out. */
static union {
	struct rec r;
	unsigned char b[sizeof(struct rec) + 8 * (SAMPLE_MEMO_MAX + 8)];
} buf;

static const struct rec *sample(uint32_t pid, uint32_t tid, uint16_t mode, uint64_t ip,
				const uint64_t *cc, uint32_t nr)
{
	memset(&buf, 0, sizeof(buf));
	buf.r.type = REC_SAMPLE;
	buf.r.misc = mode;
	buf.r.pid = pid;
	buf.r.tid = tid;
	buf.r.u.sample.ip = ip;
	buf.r.u.sample.callchain_off = sizeof(struct rec);
	buf.r.u.sample.callchain_nr = nr;
	memcpy(buf.b + sizeof(struct rec), cc, nr * 8);
	buf.r.size = (uint32_t)(sizeof(struct rec) + nr * 8);
	return &buf.r;
}

static const struct rec *side(uint16_t type, uint32_t pid, uint16_t mode)
{
	static struct rec r;
	memset(&r, 0, sizeof(r));
	r.type = type;
	r.misc = mode;
	r.size = sizeof(r);
	r.pid = pid;
	if (type == REC_MMAP)
		r.u.mmap.pid = pid;
	else if (type == REC_COMM)
		r.u.comm.pid = pid;
	else
		r.u.task.pid = r.u.task.ppid = pid;
	return &r;
}

static const uint64_t chain[] = { PERF_CONTEXT_USER, 0x401000, 0x402000, 0x403000 };
static struct frame frames[3];
static const char comm[] = "work";

/* Whether the memo gives back what was put for this sample (and puts it when it does not). */
static bool hit(struct sample_memo *m, const struct rec *r)
{
	int n = -1;
	const char *c = NULL;
	const struct frame *f = sample_memo_get(m, r, &n, &c);
	if (!f) {
		sample_memo_put(m, r, frames, 3, comm);
		return false;
	}
	CHECK_EQ_U64(n, 3);
	CHECK(c == comm);
	CHECK(memcmp(f, frames, sizeof(frames)) == 0);
	return true;
}

int main(void)
{
	struct sample_memo *m = sample_memo_new();
	for (int i = 0; i < 3; i++)
		frames[i] = (struct frame){ .sym = "f", .dso = "d", .addr = 0x401000u + (unsigned)i };
	uint16_t user = PERF_RECORD_MISC_USER, kern = PERF_RECORD_MISC_KERNEL;

	CHECK(!hit(m, sample(10, 11, user, 0x401000, chain, 4)));
	CHECK(hit(m, sample(10, 11, user, 0x401000, chain, 4)));
	/* any part of the key differs: a miss */
	CHECK(!hit(m, sample(10, 12, user, 0x401000, chain, 4)));
	CHECK(!hit(m, sample(20, 11, user, 0x401000, chain, 4)));
	CHECK(!hit(m, sample(10, 11, kern, 0x401000, chain, 4)));
	CHECK(!hit(m, sample(10, 11, user, 0x401008, chain, 4)));
	CHECK(!hit(m, sample(10, 11, user, 0x401000, chain, 3)));
	uint64_t other[4] = { PERF_CONTEXT_USER, 0x401000, 0x402000, 0x403008 };
	CHECK(!hit(m, sample(10, 11, user, 0x401000, other, 4)));
	CHECK(hit(m, sample(10, 11, user, 0x401000, chain, 4)));

	/* side-band of another process keeps it; of its own, forgets it */
	sample_memo_forget(m, side(REC_MMAP, 30, user));
	CHECK(hit(m, sample(10, 11, user, 0x401000, chain, 4)));
	sample_memo_forget(m, side(REC_MMAP, 10, user));
	CHECK(!hit(m, sample(10, 11, user, 0x401000, chain, 4)));
	CHECK(hit(m, sample(10, 11, user, 0x401000, chain, 4)));
	sample_memo_forget(m, side(REC_COMM, 10, user));
	CHECK(!hit(m, sample(10, 11, user, 0x401000, chain, 4)));
	sample_memo_forget(m, side(REC_EXIT, 10, user));
	CHECK(!hit(m, sample(10, 11, user, 0x401000, chain, 4)));
	sample_memo_forget(m, side(REC_FORK, 10, user));
	CHECK(!hit(m, sample(10, 11, user, 0x401000, chain, 4)));
	/* the kernel's mappings and forget_all: every process */
	CHECK(hit(m, sample(20, 11, user, 0x401000, chain, 4)));
	sample_memo_forget(m, side(REC_MMAP, UINT32_MAX, kern));
	CHECK(!hit(m, sample(20, 11, user, 0x401000, chain, 4)));
	sample_memo_forget_all(m);
	CHECK(!hit(m, sample(20, 11, user, 0x401000, chain, 4)));
	CHECK(hit(m, sample(20, 11, user, 0x401000, chain, 4)));
	/* other records change nothing */
	sample_memo_forget(m, side(REC_LOST, 20, user));
	CHECK(hit(m, sample(20, 11, user, 0x401000, chain, 4)));

	/* a user stack to unwind, or a chain longer than kept: never */
	const struct rec *r = sample(40, 40, user, 0x401000, chain, 4);
	buf.r.u.sample.stack_user_size = 64;
	CHECK(!hit(m, r));
	CHECK(!hit(m, r));
	uint64_t longc[SAMPLE_MEMO_MAX + 1];
	for (size_t i = 0; i < SAMPLE_MEMO_MAX + 1; i++)
		longc[i] = 0x401000 + i;
	CHECK(!hit(m, sample(40, 40, user, 0x401000, longc, SAMPLE_MEMO_MAX + 1)));
	CHECK(!hit(m, sample(40, 40, user, 0x401000, longc, SAMPLE_MEMO_MAX + 1)));
	/* a chain that does not fit in its record is read as none, as the symbolizer reads it */
	r = sample(50, 50, user, 0x401000, chain, 4);
	buf.r.size = sizeof(struct rec);
	CHECK(!hit(m, r));
	CHECK(hit(m, sample(50, 50, user, 0x401000, chain, 0)));

	sample_memo_free(m);
	return CHECK_DONE();
}
