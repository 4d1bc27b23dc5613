/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_offcpu: the off-CPU pairing (sampler/offcpu.c) on hand-made records: switch-out samples of
 * a sched_switch event (callchain, user stack and raw fields laid out as the parser lays them out),
 * switch records, and the side-band records that close or drop blocks. Each case states the times
 * it feeds, so the expected periods are arithmetic on them. Also the format file's parsing, over a
 * fake tracefs in a temporary directory.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "sampler/offcpu.h"

#define SW_EV 1          /* the sched_switch event's evidx */
#define OTHER_EV 0       /* another event (cpu-clock) */
/* The raw layout of kernel 6.18's sched_switch (its format file, below). */
#define PREV_STATE_OFF 32
#define NEXT_PID_OFF 56
#define RAW_SIZE 68      /* the kernel's raw size: 64 bytes of fields, 4 of padding */
#define NCHAIN 3
#define STACK_SIZE 24
#define NO_PID (-1)      /* mk_out: leave next_pid 0 */

/* A record with room for its trailing data. */
struct built {
	union {
		struct rec r;
		uint64_t words[256];
	} u;
};

static uint32_t align8(uint32_t n) { return (n + 7) & ~7u; }

/* A switch-out sample of tid at t: callchain tag, tag+1, tag+2; a user stack of bytes tag+i; raw
 * fields with prev_state and next_pid (NO_PID: 0). */
static struct rec *mk_out(struct built *b, uint32_t tid, uint64_t t, int64_t prev_state,
			  int32_t next_pid, uint64_t tag)
{
	memset(b, 0, sizeof(*b));
	struct rec *r = &b->u.r;
	unsigned char *base = (unsigned char *)r;
	uint32_t off = sizeof(*r);
	r->type = REC_SAMPLE;
	r->evidx = SW_EV;
	r->time = t;
	r->pid = 1000;
	r->tid = tid;
	r->cpu = 1;
	r->id = 77;
	r->u.sample.ip = tag;
	r->u.sample.period = 1;
	r->u.sample.callchain_off = off;
	r->u.sample.callchain_nr = NCHAIN;
	for (uint64_t i = 0; i < NCHAIN; i++) {
		uint64_t ip = tag + i;
		memcpy(base + off, &ip, 8);
		off += 8;
	}
	r->u.sample.stack_user_off = off;
	r->u.sample.stack_user_size = STACK_SIZE;
	r->u.sample.stack_user_dyn_size = STACK_SIZE;
	for (uint32_t i = 0; i < STACK_SIZE; i++)
		base[off + i] = (unsigned char)(tag + i);
	off += align8(STACK_SIZE);
	r->u.sample.raw_off = off;
	r->u.sample.raw_size = RAW_SIZE;
	memcpy(base + off + 24, &tid, 4);                 /* prev_pid */
	memcpy(base + off + PREV_STATE_OFF, &prev_state, 8);
	int32_t np = next_pid == NO_PID ? 0 : next_pid;
	memcpy(base + off + NEXT_PID_OFF, &np, 4);
	off += align8(RAW_SIZE);
	r->size = off;
	return r;
}

static struct rec *mk_switch(struct built *b, uint32_t tid, uint64_t t, bool out, bool preempt,
			     bool cpu_wide)
{
	memset(b, 0, sizeof(*b));
	struct rec *r = &b->u.r;
	r->size = sizeof(*r);
	r->type = REC_SWITCH;
	r->time = t;
	r->pid = 1000;
	r->tid = tid;
	r->cpu = 0;
	r->u.sw.out = out;
	r->u.sw.preempt = preempt;
	r->u.sw.cpu_wide = cpu_wide;
	return r;
}

static struct rec *mk_plain(struct built *b, enum rec_type type, uint32_t tid, uint64_t t)
{
	memset(b, 0, sizeof(*b));
	struct rec *r = &b->u.r;
	r->size = sizeof(*r);
	r->type = (uint16_t)type;
	r->time = t;
	r->pid = 1000;
	r->tid = tid;
	if (type == REC_SAMPLE) {
		r->evidx = OTHER_EV;
		r->u.sample.period = 1000000;
		r->u.sample.ip = 0x1234 + t;
	}
	if (type == REC_EXIT || type == REC_FORK) {
		r->u.task.pid = 1000;
		r->u.task.tid = tid;
		r->u.task.time = t;
	}
	return r;
}

/* What came out: heap copies of exactly each record's bytes (ASan sees any read past them). */
#define SINK_MAX 64
struct sink {
	size_t n;
	bool overflow;
	struct rec *r[SINK_MAX];
};

static void collect(void *ctx, const struct rec *r)
{
	struct sink *s = ctx;
	if (s->n == SINK_MAX) {
		s->overflow = true;
		return;
	}
	s->r[s->n] = malloc(r->size);
	memcpy(s->r[s->n], r, r->size);
	s->n++;
}

static void sink_clear(struct sink *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->r[i]);
	s->n = 0;
	s->overflow = false;
}

static struct offcpu_opts known_layout(void)
{
	struct offcpu_opts o = { 0 };
	o.switch_evidx = SW_EV;
	o.prev_state_off = PREV_STATE_OFF;
	o.prev_state_size = 8;
	o.next_pid_off = NEXT_PID_OFF;
	o.next_pid_size = 4;
	return o;
}

static struct offcpu_stats stats(const struct offcpu *oc)
{
	struct offcpu_stats st;
	offcpu_get_stats(oc, &st);
	return st;
}

/* A block record's identity: the switch-out's tid, callchain tag and stack bytes, no raw. */
static void check_block(const struct rec *r, uint32_t tid, uint64_t tag, uint64_t period,
			uint64_t end, uint64_t block_ns, enum offcpu_state state, bool begins)
{
	CHECK_EQ_U64(r->type, REC_SAMPLE);
	CHECK_EQ_U64(r->evidx, SW_EV);
	CHECK_EQ_U64(r->tid, tid);
	CHECK_EQ_U64(r->pid, 1000);
	CHECK_EQ_U64(r->cpu, 1);
	CHECK_EQ_U64(r->id, 77);
	CHECK_EQ_U64(r->u.sample.ip, tag);
	CHECK_EQ_U64(r->u.sample.period, period);
	CHECK_EQ_U64(r->time, end);
	CHECK_EQ_U64(r->u.sample.block_ns, block_ns);
	CHECK_EQ_U64(r->u.sample.block_state, state);
	CHECK_EQ_U64(r->u.sample.block_begins, begins);
	CHECK_EQ_U64(r->u.sample.raw_size, 0);
	CHECK_EQ_U64(r->size % 8, 0);
	CHECK_EQ_U64(r->u.sample.callchain_nr, NCHAIN);
	CHECK(r->u.sample.callchain_off + NCHAIN * 8 <= r->size);
	if (r->u.sample.callchain_nr == NCHAIN && r->u.sample.callchain_off + NCHAIN * 8 <= r->size)
		for (uint64_t i = 0; i < NCHAIN; i++)
			CHECK_EQ_U64(rec_callchain(r)[i], tag + i);
	CHECK_EQ_U64(r->u.sample.stack_user_size, STACK_SIZE);
	CHECK(r->u.sample.stack_user_off + STACK_SIZE <= r->size);
	if (r->u.sample.stack_user_off + STACK_SIZE <= r->size) {
		const unsigned char *st = rec_at(r, r->u.sample.stack_user_off);
		bool same = true;
		for (uint32_t i = 0; i < STACK_SIZE; i++)
			same = same && st[i] == (unsigned char)(tag + i);
		CHECK(same);
	}
}

static void test_states(void)
{
	CHECK_EQ_U64(offcpu_state_of(0), OFFCPU_R);
	CHECK_EQ_U64(offcpu_state_of(0x1), OFFCPU_S);
	CHECK_EQ_U64(offcpu_state_of(0x2), OFFCPU_D);
	CHECK_EQ_U64(offcpu_state_of(0x4), OFFCPU_T);
	CHECK_EQ_U64(offcpu_state_of(0x8), OFFCPU_TRACED);
	CHECK_EQ_U64(offcpu_state_of(0x10), OFFCPU_X);
	CHECK_EQ_U64(offcpu_state_of(0x20), OFFCPU_Z);
	CHECK_EQ_U64(offcpu_state_of(0x40), OFFCPU_P);
	CHECK_EQ_U64(offcpu_state_of(0x80), OFFCPU_I);
	CHECK_EQ_U64(offcpu_state_of(0x100), OFFCPU_R_PREEMPTED);
	CHECK_EQ_U64(offcpu_state_of(0x400), OFFCPU_OTHER);
	CHECK_STR(offcpu_state_name(OFFCPU_R_PREEMPTED), "R+");
	CHECK_STR(offcpu_state_name(OFFCPU_S), "S");
	CHECK_STR(offcpu_state_name(OFFCPU_D), "D");
	CHECK_STR(offcpu_state_name(OFFCPU_TRACED), "t");
	CHECK_STR(offcpu_state_name(OFFCPU_NONE), "");
	CHECK_STR(offcpu_state_name(OFFCPU_OTHER), "?");
	CHECK_STR(offcpu_state_name(OFFCPU_NSTATES), "?");
	CHECK(offcpu_state_is_runq(OFFCPU_R) && offcpu_state_is_runq(OFFCPU_R_PREEMPTED));
	CHECK(!offcpu_state_is_runq(OFFCPU_S) && !offcpu_state_is_runq(OFFCPU_D));
}

/* S out at 1000, switch record in at 5000: one block of 4000 ns, its stack intact. */
static void test_simple(void)
{
	struct offcpu_opts o = known_layout();
	struct offcpu *oc = offcpu_new(&o);
	struct sink s = { 0 };
	struct built b;
	offcpu_feed(oc, mk_out(&b, 10, 1000, 0x1, NO_PID, 0x400000), collect, &s);
	CHECK_EQ_U64(s.n, 0);
	CHECK_EQ_U64(stats(oc).pending, 1);
	CHECK(stats(oc).pending_bytes > 0);
	offcpu_feed(oc, mk_switch(&b, 10, 5000, false, false, false), collect, &s);
	CHECK_EQ_U64(s.n, 1);
	if (s.n == 1) {
		check_block(s.r[0], 10, 0x400000, 4000, 5000, 4000, OFFCPU_S, true);
		/* the raw fields were the last trailing part: dropped from the copy */
		CHECK_EQ_U64(s.r[0]->size, sizeof(struct rec) + NCHAIN * 8 + align8(STACK_SIZE));
	}
	struct offcpu_stats st = stats(oc);
	CHECK_EQ_U64(st.switch_outs, 1);
	CHECK_EQ_U64(st.blocks, 1);
	CHECK_EQ_U64(st.pending, 0);
	CHECK_EQ_U64(st.pending_bytes, 0);
	sink_clear(&s);
	offcpu_free(oc);
}

/* R+ from the raw mark (0x100), and with the layout unknown from a switch-out record's preempt
 * bit; D from the raw state; unknown and not preempted: S. */
static void test_states_of_blocks(void)
{
	struct offcpu_opts o = known_layout();
	struct offcpu *oc = offcpu_new(&o);
	struct sink s = { 0 };
	struct built b;
	offcpu_feed(oc, mk_out(&b, 11, 1000, 0x100, NO_PID, 0x1000), collect, &s);
	offcpu_feed(oc, mk_out(&b, 12, 1100, 0x2, NO_PID, 0x2000), collect, &s);
	offcpu_feed(oc, mk_switch(&b, 11, 1500, false, false, true), collect, &s);
	offcpu_feed(oc, mk_switch(&b, 12, 9100, false, false, true), collect, &s);
	CHECK_EQ_U64(s.n, 2);
	if (s.n == 2) {
		check_block(s.r[0], 11, 0x1000, 500, 1500, 500, OFFCPU_R_PREEMPTED, true);
		check_block(s.r[1], 12, 0x2000, 8000, 9100, 8000, OFFCPU_D, true);
	}
	sink_clear(&s);
	offcpu_free(oc);

	o.prev_state_size = 0;
	o.next_pid_size = 0;
	oc = offcpu_new(&o);
	offcpu_feed(oc, mk_out(&b, 13, 1000, 0x1, NO_PID, 0x3000), collect, &s);
	offcpu_feed(oc, mk_switch(&b, 13, 1010, true, true, false), collect, &s);
	offcpu_feed(oc, mk_out(&b, 14, 1020, 0x2, NO_PID, 0x4000), collect, &s);
	offcpu_feed(oc, mk_switch(&b, 14, 1030, true, false, false), collect, &s);
	offcpu_feed(oc, mk_switch(&b, 13, 2000, false, false, false), collect, &s);
	offcpu_feed(oc, mk_switch(&b, 14, 3020, false, false, false), collect, &s);
	CHECK_EQ_U64(s.n, 2);
	if (s.n == 2) {
		/* each block starts at its switch-out record (1010, 1030), not its sample */
		check_block(s.r[0], 13, 0x3000, 990, 2000, 990, OFFCPU_R_PREEMPTED, true);
		check_block(s.r[1], 14, 0x4000, 1990, 3020, 1990, OFFCPU_S, true);
	}
	sink_clear(&s);
	offcpu_free(oc);

	/* a switch-out record after a piece does not move the block's start (what was emitted
	 * stays); one before it does */
	o = known_layout();
	o.piece_ns = 0;
	oc = offcpu_new(&o);
	offcpu_feed(oc, mk_out(&b, 16, 1000, 0x1, NO_PID, 0x6000), collect, &s);
	offcpu_flush(oc, 1005, collect, &s);
	offcpu_feed(oc, mk_switch(&b, 16, 1010, true, false, false), collect, &s);
	offcpu_feed(oc, mk_switch(&b, 16, 2000, false, false, false), collect, &s);
	CHECK_EQ_U64(s.n, 2);
	if (s.n == 2) {
		check_block(s.r[0], 16, 0x6000, 5, 1005, 5, OFFCPU_S, true);
		check_block(s.r[1], 16, 0x6000, 995, 2000, 1000, OFFCPU_S, false);
	}
	sink_clear(&s);
	offcpu_free(oc);

	/* a known raw state is not overridden by the switch record */
	o = known_layout();
	oc = offcpu_new(&o);
	offcpu_feed(oc, mk_out(&b, 15, 1000, 0x2, NO_PID, 0x5000), collect, &s);
	offcpu_feed(oc, mk_switch(&b, 15, 1010, true, true, false), collect, &s);
	offcpu_feed(oc, mk_switch(&b, 15, 2000, false, false, false), collect, &s);
	CHECK_EQ_U64(s.n, 1);
	if (s.n == 1)
		CHECK_EQ_U64(s.r[0]->u.sample.block_state, OFFCPU_D);
	sink_clear(&s);
	offcpu_free(oc);
}

/* Out at 1000; flushes at 3000 (piece 2000), 3500 (under piece_ns since 3000: nothing), 4500
 * (piece 1500); in at 6000 (last part 1500). The parts add up to the block, begins only once. */
static void test_pieces(void)
{
	struct offcpu_opts o = known_layout();
	o.piece_ns = 1000;
	struct offcpu *oc = offcpu_new(&o);
	struct sink s = { 0 };
	struct built b;
	offcpu_feed(oc, mk_out(&b, 20, 1000, 0x1, NO_PID, 0x6000), collect, &s);
	offcpu_flush(oc, 3000, collect, &s);
	offcpu_flush(oc, 3500, collect, &s);
	offcpu_flush(oc, 4500, collect, &s);
	offcpu_feed(oc, mk_switch(&b, 20, 6000, false, false, false), collect, &s);
	CHECK_EQ_U64(s.n, 3);
	if (s.n == 3) {
		check_block(s.r[0], 20, 0x6000, 2000, 3000, 2000, OFFCPU_S, true);
		check_block(s.r[1], 20, 0x6000, 1500, 4500, 3500, OFFCPU_S, false);
		check_block(s.r[2], 20, 0x6000, 1500, 6000, 5000, OFFCPU_S, false);
		CHECK_EQ_U64(s.r[0]->u.sample.period + s.r[1]->u.sample.period + s.r[2]->u.sample.period,
			     6000 - 1000);
	}
	struct offcpu_stats st = stats(oc);
	CHECK_EQ_U64(st.pieces, 2);
	CHECK_EQ_U64(st.blocks, 1);
	sink_clear(&s);

	/* A flush exactly at the switch-in: the end carries nothing more and is not emitted. */
	offcpu_feed(oc, mk_out(&b, 21, 10000, 0x1, NO_PID, 0x6100), collect, &s);
	offcpu_flush(oc, 12000, collect, &s);
	offcpu_feed(oc, mk_switch(&b, 21, 12000, false, false, false), collect, &s);
	/* A flush ahead of a switch-in still to come (records late behind the clock): the block
	 * ends at the piece, nothing more, never a negative period. */
	offcpu_feed(oc, mk_out(&b, 22, 13000, 0x1, NO_PID, 0x6200), collect, &s);
	offcpu_flush(oc, 15000, collect, &s);
	offcpu_feed(oc, mk_switch(&b, 22, 14000, false, false, false), collect, &s);
	CHECK_EQ_U64(s.n, 2);
	if (s.n == 2) {
		check_block(s.r[0], 21, 0x6100, 2000, 12000, 2000, OFFCPU_S, true);
		check_block(s.r[1], 22, 0x6200, 2000, 15000, 2000, OFFCPU_S, true);
	}
	st = stats(oc);
	CHECK_EQ_U64(st.blocks, 3);
	CHECK_EQ_U64(st.pending, 0);
	sink_clear(&s);

	/* piece_ns 0: a piece at every flush that moves forward, none at a flush that does not */
	offcpu_free(oc);
	o.piece_ns = 0;
	oc = offcpu_new(&o);
	offcpu_feed(oc, mk_out(&b, 23, 100, 0x1, NO_PID, 0x6300), collect, &s);
	offcpu_flush(oc, 101, collect, &s);
	offcpu_flush(oc, 101, collect, &s);
	offcpu_flush(oc, 50, collect, &s);
	offcpu_flush(oc, 102, collect, &s);
	CHECK_EQ_U64(s.n, 2);
	if (s.n == 2) {
		check_block(s.r[0], 23, 0x6300, 1, 101, 1, OFFCPU_S, true);
		check_block(s.r[1], 23, 0x6300, 1, 102, 2, OFFCPU_S, false);
	}
	sink_clear(&s);
	offcpu_free(oc);
}

/* min_block 1000: a block of 500 is dropped, one of 1500 kept; no piece while under 1000 open. */
static void test_min_block(void)
{
	struct offcpu_opts o = known_layout();
	o.min_block_ns = 1000;
	struct offcpu *oc = offcpu_new(&o);
	struct sink s = { 0 };
	struct built b;
	offcpu_feed(oc, mk_out(&b, 30, 1000, 0x1, NO_PID, 0x7000), collect, &s);
	offcpu_flush(oc, 1500, collect, &s);
	offcpu_feed(oc, mk_switch(&b, 30, 1500, false, false, false), collect, &s);
	CHECK_EQ_U64(s.n, 0);
	CHECK_EQ_U64(stats(oc).dropped_short, 1);
	offcpu_feed(oc, mk_out(&b, 30, 2000, 0x1, NO_PID, 0x7000), collect, &s);
	offcpu_flush(oc, 2999, collect, &s);
	CHECK_EQ_U64(s.n, 0);
	offcpu_flush(oc, 3000, collect, &s);
	offcpu_feed(oc, mk_switch(&b, 30, 3500, false, false, false), collect, &s);
	CHECK_EQ_U64(s.n, 2);
	if (s.n == 2) {
		check_block(s.r[0], 30, 0x7000, 1000, 3000, 1000, OFFCPU_S, true);
		check_block(s.r[1], 30, 0x7000, 500, 3500, 1500, OFFCPU_S, false);
	}
	/* a 0 ns block (same time in and out) is nothing, even with no threshold */
	offcpu_free(oc);
	o.min_block_ns = 0;
	oc = offcpu_new(&o);
	sink_clear(&s);
	offcpu_feed(oc, mk_out(&b, 31, 4000, 0x1, NO_PID, 0x7100), collect, &s);
	offcpu_feed(oc, mk_switch(&b, 31, 4000, false, false, false), collect, &s);
	CHECK_EQ_U64(s.n, 0);
	CHECK_EQ_U64(stats(oc).dropped_short, 1);
	sink_clear(&s);
	offcpu_free(oc);
}

/* tid 40 out at 1000, tid 41 at 3000, LOST at 2000: 40's block may have lost its switch-in and is
 * dropped; 41's is not; the LOST record goes on. */
static void test_lost(void)
{
	struct offcpu_opts o = known_layout();
	struct offcpu *oc = offcpu_new(&o);
	struct sink s = { 0 };
	struct built b;
	offcpu_feed(oc, mk_out(&b, 40, 1000, 0x1, NO_PID, 0x8000), collect, &s);
	offcpu_feed(oc, mk_plain(&b, REC_LOST, 0, 2000), collect, &s);
	offcpu_feed(oc, mk_out(&b, 41, 3000, 0x1, NO_PID, 0x8100), collect, &s);
	offcpu_feed(oc, mk_plain(&b, REC_LOST_SAMPLES, 0, 3000), collect, &s);
	offcpu_feed(oc, mk_switch(&b, 40, 4000, false, false, false), collect, &s);
	offcpu_feed(oc, mk_switch(&b, 41, 4000, false, false, false), collect, &s);
	CHECK_EQ_U64(s.n, 3);
	if (s.n == 3) {
		CHECK_EQ_U64(s.r[0]->type, REC_LOST);
		CHECK_EQ_U64(s.r[1]->type, REC_LOST_SAMPLES);
		check_block(s.r[2], 41, 0x8100, 1000, 4000, 1000, OFFCPU_S, true);
	}
	CHECK_EQ_U64(stats(oc).dropped_lost, 1);
	sink_clear(&s);
	offcpu_free(oc);
}

/* Two switch-outs of tid 50 (1000, 2000) without a switch-in between: the first is dropped, the
 * block is the second's (its stack, from 2000). */
static void test_unpaired(void)
{
	struct offcpu_opts o = known_layout();
	struct offcpu *oc = offcpu_new(&o);
	struct sink s = { 0 };
	struct built b;
	offcpu_feed(oc, mk_out(&b, 50, 1000, 0x1, NO_PID, 0x9000), collect, &s);
	offcpu_feed(oc, mk_out(&b, 50, 2000, 0x2, NO_PID, 0x9100), collect, &s);
	CHECK_EQ_U64(stats(oc).pending, 1);
	offcpu_feed(oc, mk_switch(&b, 50, 3000, false, false, false), collect, &s);
	CHECK_EQ_U64(s.n, 1);
	if (s.n == 1)
		check_block(s.r[0], 50, 0x9100, 1000, 3000, 1000, OFFCPU_D, true);
	CHECK_EQ_U64(stats(oc).dropped_unpaired, 1);
	CHECK_EQ_U64(stats(oc).switch_outs, 2);
	sink_clear(&s);
	offcpu_free(oc);
}

/* EXIT of tid 60 at 2500 closes its block (out at 1000) before the EXIT goes on; tid 0 never
 * blocks; X and Z are no blocks. */
static void test_exit_idle_dead(void)
{
	struct offcpu_opts o = known_layout();
	struct offcpu *oc = offcpu_new(&o);
	struct sink s = { 0 };
	struct built b;
	offcpu_feed(oc, mk_out(&b, 60, 1000, 0x1, NO_PID, 0xa000), collect, &s);
	offcpu_feed(oc, mk_plain(&b, REC_EXIT, 60, 2500), collect, &s);
	CHECK_EQ_U64(s.n, 2);
	if (s.n == 2) {
		check_block(s.r[0], 60, 0xa000, 1500, 2500, 1500, OFFCPU_S, true);
		CHECK_EQ_U64(s.r[1]->type, REC_EXIT);
		CHECK_EQ_U64(s.r[1]->tid, 60);
	}
	sink_clear(&s);

	offcpu_feed(oc, mk_out(&b, 0, 3000, 0x0, NO_PID, 0xb000), collect, &s);
	offcpu_feed(oc, mk_out(&b, 61, 3000, 0x10, NO_PID, 0xb100), collect, &s);
	offcpu_feed(oc, mk_out(&b, 62, 3000, 0x20, NO_PID, 0xb200), collect, &s);
	CHECK_EQ_U64(stats(oc).pending, 0);
	offcpu_feed(oc, mk_switch(&b, 0, 4000, false, false, true), collect, &s);
	offcpu_feed(oc, mk_switch(&b, 61, 4000, false, false, false), collect, &s);
	offcpu_feed(oc, mk_switch(&b, 62, 4000, false, false, false), collect, &s);
	offcpu_flush(oc, 5000, collect, &s);
	CHECK_EQ_U64(s.n, 0);
	struct offcpu_stats st = stats(oc);
	CHECK_EQ_U64(st.switch_outs, 4);
	CHECK_EQ_U64(st.blocks, 1);
	CHECK_EQ_U64(st.dropped_short + st.dropped_lost + st.dropped_unpaired + st.dropped_full, 0);

	/* a dying thread's earlier block, its switch-in never seen, is unpaired */
	offcpu_feed(oc, mk_out(&b, 63, 6000, 0x1, NO_PID, 0xb300), collect, &s);
	offcpu_feed(oc, mk_out(&b, 63, 7000, 0x10, NO_PID, 0xb300), collect, &s);
	CHECK_EQ_U64(stats(oc).pending, 0);
	CHECK_EQ_U64(stats(oc).dropped_unpaired, 1);
	sink_clear(&s);
	offcpu_free(oc);
}

/* With next_pid known, a sched_switch sample is also its next_pid's switch-in: tid 70 out at 1000,
 * tid 71 out at 3000 switching to 70, then tid 70 out at 4000 switching to 71. */
static void test_next_pid(void)
{
	struct offcpu_opts o = known_layout();
	struct offcpu *oc = offcpu_new(&o);
	struct sink s = { 0 };
	struct built b;
	offcpu_feed(oc, mk_out(&b, 70, 1000, 0x1, 0, 0xc000), collect, &s);
	offcpu_feed(oc, mk_out(&b, 71, 3000, 0x100, 70, 0xc100), collect, &s);
	offcpu_feed(oc, mk_out(&b, 70, 4000, 0x1, 71, 0xc200), collect, &s);
	CHECK_EQ_U64(s.n, 2);
	if (s.n == 2) {
		check_block(s.r[0], 70, 0xc000, 2000, 3000, 2000, OFFCPU_S, true);
		check_block(s.r[1], 71, 0xc100, 1000, 4000, 1000, OFFCPU_R_PREEMPTED, true);
	}
	struct offcpu_stats st = stats(oc);
	CHECK_EQ_U64(st.pending, 1);
	CHECK_EQ_U64(st.dropped_unpaired, 0);
	/* the switch record of the same switch-in, later, finds nothing to close */
	offcpu_feed(oc, mk_switch(&b, 71, 4001, false, false, true), collect, &s);
	CHECK_EQ_U64(s.n, 2);
	sink_clear(&s);

	/* like marks: a block that a next_pid sample ends starts at its switch-out sample (1000), not
	 * at its switch-out record (1010), tracepoint to tracepoint as perf sched timehist pairs */
	offcpu_feed(oc, mk_out(&b, 74, 5000, 0x1, 0, 0xc500), collect, &s);
	offcpu_feed(oc, mk_switch(&b, 74, 5010, true, false, false), collect, &s);
	offcpu_feed(oc, mk_out(&b, 75, 7000, 0x1, 74, 0xc600), collect, &s);
	CHECK_EQ_U64(s.n, 1);
	if (s.n == 1)
		check_block(s.r[0], 74, 0xc500, 2000, 7000, 2000, OFFCPU_S, true);
	sink_clear(&s);
	offcpu_free(oc);

	/* the layout unknown: next_pid is not read */
	o.next_pid_size = 0;
	oc = offcpu_new(&o);
	offcpu_feed(oc, mk_out(&b, 72, 1000, 0x1, 0, 0xc300), collect, &s);
	offcpu_feed(oc, mk_out(&b, 73, 3000, 0x1, 72, 0xc400), collect, &s);
	CHECK_EQ_U64(s.n, 0);
	CHECK_EQ_U64(stats(oc).pending, 2);
	/* a raw field past the sample's raw data is not read either */
	offcpu_free(oc);
	o = known_layout();
	o.next_pid_off = RAW_SIZE - 2;
	oc = offcpu_new(&o);
	offcpu_feed(oc, mk_out(&b, 72, 1000, 0x1, 0, 0xc300), collect, &s);
	offcpu_feed(oc, mk_out(&b, 73, 3000, 0x1, 72, 0xc400), collect, &s);
	CHECK_EQ_U64(s.n, 0);
	sink_clear(&s);
	offcpu_free(oc);
}

/* max_pending 4: a fifth pending thread evicts the oldest; max_bytes: the same by size. */
static void test_bounds(void)
{
	struct offcpu_opts o = known_layout();
	o.max_pending = 4;
	struct offcpu *oc = offcpu_new(&o);
	struct sink s = { 0 };
	struct built b;
	for (uint32_t t = 1; t <= 5; t++)
		offcpu_feed(oc, mk_out(&b, 100 + t, 1000 * t, 0x1, NO_PID, 0xd000 + 0x100 * t), collect, &s);
	struct offcpu_stats st = stats(oc);
	CHECK_EQ_U64(st.pending, 4);
	CHECK_EQ_U64(st.dropped_full, 1);
	for (uint32_t t = 1; t <= 5; t++)
		offcpu_feed(oc, mk_switch(&b, 100 + t, 10000, false, false, false), collect, &s);
	CHECK_EQ_U64(s.n, 4);
	for (size_t i = 0; i < s.n && i < 4; i++)
		check_block(s.r[i], 102 + (uint32_t)i, 0xd000 + 0x100 * (i + 2), 10000 - 1000 * (i + 2),
			    10000, 10000 - 1000 * (i + 2), OFFCPU_S, true);
	sink_clear(&s);
	offcpu_free(oc);

	/* room for two blocks' bytes: a third evicts the oldest */
	o.max_pending = 0;
	oc = offcpu_new(&o);
	offcpu_feed(oc, mk_out(&b, 110, 1000, 0x1, NO_PID, 0xe000), collect, &s);
	uint64_t one = stats(oc).pending_bytes;
	offcpu_free(oc);
	o.max_bytes = 2 * one + one / 2;
	oc = offcpu_new(&o);
	for (uint32_t t = 0; t < 3; t++)
		offcpu_feed(oc, mk_out(&b, 110 + t, 1000 + t, 0x1, NO_PID, 0xe000), collect, &s);
	st = stats(oc);
	CHECK_EQ_U64(st.pending, 2);
	CHECK(st.pending_bytes <= o.max_bytes);
	CHECK_EQ_U64(st.dropped_full, 1);
	/* one block larger than all the room: dropped alone, the others stay */
	offcpu_free(oc);
	o.max_bytes = one / 2;
	oc = offcpu_new(&o);
	offcpu_feed(oc, mk_out(&b, 120, 1000, 0x1, NO_PID, 0xe000), collect, &s);
	CHECK_EQ_U64(stats(oc).pending, 0);
	CHECK_EQ_U64(stats(oc).dropped_full, 1);
	CHECK_EQ_U64(s.n, 0);
	sink_clear(&s);
	offcpu_free(oc);
}

/* Many threads at once, blocks closed in a scrambled order: every block comes out once with its
 * own length (the tid table's growth and its deletions keep every entry findable). */
static void test_many(void)
{
	enum { N = 5000 };
	struct offcpu_opts o = known_layout();
	struct offcpu *oc = offcpu_new(&o);
	struct sink s = { 0 };
	struct built b;
	for (uint32_t i = 0; i < N; i++)
		offcpu_feed(oc, mk_out(&b, 1 + i * 7, 1000 + i, 0x1, NO_PID, i), collect, &s);
	CHECK_EQ_U64(stats(oc).pending, N);
	uint64_t t = 100000;
	bool all = true;
	for (uint32_t k = 0; k < N; k++) {
		uint32_t i = (k * 2999u) % N; /* 2999 is prime to N: a permutation */
		offcpu_feed(oc, mk_switch(&b, 1 + i * 7, t, false, false, false), collect, &s);
		all = all && s.n == 1 && s.r[0]->tid == 1 + i * 7 &&
		      s.r[0]->u.sample.period == t - (1000 + i) && s.r[0]->u.sample.ip == i;
		sink_clear(&s);
		t++;
	}
	CHECK(all);
	struct offcpu_stats st = stats(oc);
	CHECK_EQ_U64(st.blocks, N);
	CHECK_EQ_U64(st.pending, 0);
	CHECK_EQ_U64(st.pending_bytes, 0);
	offcpu_free(oc);
}

/* Everything but switch-out samples and switch records goes on unchanged, in order; a time-0
 * record (synthesized) goes on whatever it is; reset drops what is pending. */
static void test_pass_through(void)
{
	struct offcpu_opts o = known_layout();
	struct offcpu *oc = offcpu_new(&o);
	struct sink s = { 0 };
	struct built b;
	struct rec *in[8];
	size_t nin = 0;
	struct built keep[8];
	static const struct { enum rec_type type; uint64_t t; } seq[] = {
		{ REC_COMM, 0 }, { REC_MMAP, 100 }, { REC_SAMPLE, 200 }, { REC_FORK, 300 },
		{ REC_THROTTLE, 400 }, { REC_OTHER, 500 },
	};
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		in[nin] = mk_plain(&keep[nin], seq[i].type, 81, seq[i].t);
		offcpu_feed(oc, in[nin], collect, &s);
		nin++;
		if (i == 1)
			offcpu_feed(oc, mk_out(&b, 80, 150, 0x1, NO_PID, 0xf000), collect, &s);
		if (i == 2) {
			offcpu_feed(oc, mk_switch(&b, 80, 250, true, false, false), collect, &s);
			offcpu_feed(oc, mk_switch(&b, 80, 260, false, false, false), collect, &s);
		}
	}
	/* the block came out between the sample at 200 and the FORK at 300 */
	CHECK_EQ_U64(s.n, nin + 1);
	size_t j = 0;
	for (size_t i = 0; i < s.n; i++) {
		if (i == 3) {
			check_block(s.r[i], 80, 0xf000, 10, 260, 10, OFFCPU_S, true); /* from 250 */
			continue;
		}
		if (j < nin) {
			CHECK_EQ_U64(s.r[i]->size, in[j]->size);
			CHECK(memcmp(s.r[i], in[j], in[j]->size) == 0);
		}
		j++;
	}
	sink_clear(&s);

	/* time 0: passes, no effect (a switch-out sample included) */
	struct rec *z = mk_out(&b, 82, 0, 0x1, NO_PID, 0xf100);
	offcpu_feed(oc, z, collect, &s);
	CHECK_EQ_U64(s.n, 1);
	if (s.n == 1)
		CHECK(memcmp(s.r[0], z, z->size) == 0);
	CHECK_EQ_U64(stats(oc).pending, 0);
	sink_clear(&s);

	offcpu_feed(oc, mk_out(&b, 83, 1000, 0x1, NO_PID, 0xf200), collect, &s);
	offcpu_feed(oc, mk_out(&b, 84, 1000, 0x1, NO_PID, 0xf300), collect, &s);
	offcpu_reset(oc);
	CHECK_EQ_U64(stats(oc).pending, 0);
	CHECK_EQ_U64(stats(oc).pending_bytes, 0);
	offcpu_feed(oc, mk_switch(&b, 83, 2000, false, false, false), collect, &s);
	offcpu_flush(oc, 3000, collect, &s);
	CHECK_EQ_U64(s.n, 0);
	sink_clear(&s);
	offcpu_free(oc);
	offcpu_free(NULL);
}

/* kernel 6.18's format file, as tracefs shows it */
static const char format_618[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state "
	"& ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "
	"0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 | "
	"0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + "
	"1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, "
	"{ 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, "
	"{ 0x00000080, \"I\" }) : \"R\", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | "
	"0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", "
	"REC->next_comm, REC->next_pid, REC->next_prio\n";

/* An older kernel's layout (prev_state a 4-byte field elsewhere) and one without the fields. */
static const char format_other[] =
	"format:\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:int prev_state;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] next_name;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:48;\tsize:4;\tsigned:1;";
static const char format_none[] =
	"format:\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:char prev_state[3];\toffset:24;\tsize:3;\tsigned:0;\n";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_format(void)
{
	char dir[] = "/tmp/test_offcpu_XXXXXX";
	char path[256];
	CHECK(mkdtemp(dir) != NULL);
	struct offcpu_opts o = { 0 };
	CHECK_EQ_U64(offcpu_read_format(dir, &o), -1);
	CHECK_EQ_U64(o.prev_state_size + o.next_pid_size, 0);
	static const char *const sub[] = { "/events", "/events/sched", "/events/sched/sched_switch" };
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s%s", dir, sub[i]);
		CHECK(mkdir(path, 0700) == 0);
	}
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/format", dir);
	write_file(path, format_618);
	CHECK_EQ_U64(offcpu_read_format(dir, &o), 0);
	CHECK_EQ_U64(o.prev_state_off, 32);
	CHECK_EQ_U64(o.prev_state_size, 8);
	CHECK_EQ_U64(o.next_pid_off, 56);
	CHECK_EQ_U64(o.next_pid_size, 4);

	write_file(path, format_none);
	o = (struct offcpu_opts){ 0 };
	CHECK_EQ_U64(offcpu_read_format(dir, &o), -1);
	CHECK_EQ_U64(o.prev_state_size + o.next_pid_size, 0);
	unlink(path);
	for (size_t i = 3; i-- > 0;) {
		snprintf(path, sizeof(path), "%s%s", dir, sub[i]);
		rmdir(path);
	}
	rmdir(dir);

	/* from text, no NUL at its end: the last line counts too */
	char *text = malloc(sizeof(format_other) - 1);
	memcpy(text, format_other, sizeof(format_other) - 1);
	o = (struct offcpu_opts){ 0 };
	CHECK_EQ_U64(offcpu_parse_format(text, sizeof(format_other) - 1, &o), 0);
	CHECK_EQ_U64(o.prev_state_off, 28);
	CHECK_EQ_U64(o.prev_state_size, 4);
	CHECK_EQ_U64(o.next_pid_off, 48);
	CHECK_EQ_U64(o.next_pid_size, 4);
	/* cut in the middle of the next_pid line: only prev_state */
	o = (struct offcpu_opts){ 0 };
	const char *cut = strstr(format_other, "\tfield:pid_t next_pid");
	CHECK_EQ_U64(offcpu_parse_format(text, (size_t)(cut - format_other) + 20, &o), 0);
	CHECK_EQ_U64(o.prev_state_size, 4);
	CHECK_EQ_U64(o.next_pid_size, 0);
	free(text);
	CHECK_EQ_U64(offcpu_parse_format("", 0, &o), -1);

	/* a 4-byte prev_state from such a layout reads as the state */
	o = known_layout();
	o.prev_state_size = 4;
	struct offcpu *oc = offcpu_new(&o);
	struct sink s = { 0 };
	struct built b;
	offcpu_feed(oc, mk_out(&b, 90, 1000, 0x2, NO_PID, 0xf400), collect, &s);
	offcpu_feed(oc, mk_switch(&b, 90, 2000, false, false, false), collect, &s);
	CHECK_EQ_U64(s.n, 1);
	if (s.n == 1)
		CHECK_EQ_U64(s.r[0]->u.sample.block_state, OFFCPU_D);
	sink_clear(&s);
	offcpu_free(oc);
}

int main(void)
{
	test_states();
	test_simple();
	test_states_of_blocks();
	test_pieces();
	test_min_block();
	test_lost();
	test_unpaired();
	test_exit_idle_dead();
	test_next_pid();
	test_bounds();
	test_many();
	test_pass_through();
	test_format();
	return CHECK_DONE();
}
