/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_parse: parse_record on hand-made records, one per kind the kernel sends, built field by
 * field with a comment on each, plus truncated and malformed ones. Every parse runs on a heap copy
 * of exactly the record's bytes so that the ASan twin catches any read past the end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "record/parse.h"

/* A record under construction. */
struct bb {
	unsigned char b[4096];
	size_t n;
};

static void put64(struct bb *b, uint64_t v) { memcpy(b->b + b->n, &v, 8); b->n += 8; }
static void put32(struct bb *b, uint32_t v) { memcpy(b->b + b->n, &v, 4); b->n += 4; }
static void put8(struct bb *b, uint8_t v) { b->b[b->n++] = v; }
static void put2x32(struct bb *b, uint32_t x, uint32_t y) { put32(b, x); put32(b, y); }

/* A string with its NUL, zero-padded to 8 bytes as the kernel does. */
static void putstr(struct bb *b, const char *s)
{
	size_t len = strlen(s) + 1, padded = (len + 7) & ~(size_t)7;
	memset(b->b + b->n, 0, padded);
	memcpy(b->b + b->n, s, len);
	b->n += padded;
}

/* perf_event_header: type, misc, and size (patched by end()). */
static void begin(struct bb *b, uint32_t type, uint16_t misc)
{
	memset(b, 0, sizeof(*b));
	put32(b, type);
	memcpy(b->b + 4, &misc, 2);
	b->n = 8;
}

static void end(struct bb *b)
{
	uint16_t size = (uint16_t)b->n;
	memcpy(b->b + 6, &size, 2);
}

/* The usual trailer for sample_type TID|TIME|CPU. */
static void trailer(struct bb *b, uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu)
{
	put2x32(b, pid, tid);   /* sample_id: pid, tid */
	put64(b, time);         /* sample_id: time */
	put2x32(b, cpu, 0);     /* sample_id: cpu, res */
}

static union {
	struct rec r;
	unsigned char bytes[8192];
} out;

/* Parses len bytes from an exact-size heap copy. Every record parsed here also checks
 * parse_record_time: the time parse_record gives, and a failure only where parse_record fails. */
static int parse_exact(const struct parse_cfg *cfg, const void *bytes, size_t len, size_t cap)
{
	void *copy = malloc(len ? len : 1);
	int ret;
	uint64_t time;
	memcpy(copy, bytes, len);
	int tret = parse_record_time(cfg, copy, len, &time);
	ret = parse_record(cfg, copy, len, &out.r, cap);
	if (ret == 0)
		CHECK(tret == 0 && time == out.r.time);
	if (tret < 0)
		CHECK(ret == -EINVAL);
	free(copy);
	return ret;
}

static int parse_bb(const struct parse_cfg *cfg, const struct bb *b)
{
	return parse_exact(cfg, b->b, b->n, sizeof(out));
}

static struct parse_cfg cfg_basic(void)
{
	struct perf_event_attr a;
	struct parse_cfg c;
	memset(&a, 0, sizeof(a));
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	a.sample_id_all = 1;
	parse_cfg_init(&c, &a, 3);
	return c;
}

static void test_sample_callchain(void)
{
	struct parse_cfg cfg = cfg_basic();
	struct bb b;
	const uint64_t *cc;

	begin(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(&b, 0x401234);                 /* IP */
	put2x32(&b, 100, 101);               /* TID: pid, tid */
	put64(&b, 5000000000ull);            /* TIME */
	put2x32(&b, 1, 0);                   /* CPU: cpu, res */
	put64(&b, 250000);                   /* PERIOD */
	put64(&b, 6);                        /* CALLCHAIN: nr */
	put64(&b, PERF_CONTEXT_KERNEL);      /*   marker: kernel frames follow */
	put64(&b, 0xffffffff81000010ull);    /*   kernel ip */
	put64(&b, 0xffffffff81000020ull);    /*   kernel ip */
	put64(&b, PERF_CONTEXT_USER);        /*   marker: user frames follow */
	put64(&b, 0x401234);                 /*   user ip */
	put64(&b, 0x400800);                 /*   user caller */
	end(&b);

	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.type, REC_SAMPLE);
	CHECK_EQ_U64(out.r.perf_type, PERF_RECORD_SAMPLE);
	CHECK_EQ_U64(out.r.evidx, 3);
	CHECK_EQ_U64(rec_cpumode(&out.r), PERF_RECORD_MISC_USER);
	CHECK_EQ_U64(out.r.u.sample.ip, 0x401234);
	CHECK_EQ_U64(out.r.pid, 100);
	CHECK_EQ_U64(out.r.tid, 101);
	CHECK_EQ_U64(out.r.time, 5000000000ull);
	CHECK_EQ_U64(out.r.cpu, 1);
	CHECK_EQ_U64(out.r.u.sample.period, 250000);
	CHECK_EQ_U64(out.r.u.sample.callchain_nr, 6);
	CHECK_EQ_U64(out.r.size % 8, 0);
	CHECK_EQ_U64(out.r.size, sizeof(struct rec) + 6 * 8);
	cc = rec_callchain(&out.r);
	CHECK_EQ_U64(cc[0], PERF_CONTEXT_KERNEL);
	CHECK_EQ_U64(cc[2], 0xffffffff81000020ull);
	CHECK_EQ_U64(cc[3], PERF_CONTEXT_USER);
	CHECK_EQ_U64(cc[5], 0x400800);

	/* Without PERIOD in sample_type the period is 1, without CALLCHAIN there is none. */
	cfg.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	begin(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	put64(&b, 0xffffffff81000010ull);    /* IP */
	put2x32(&b, 0, 0);                   /* TID: the idle task */
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.u.sample.period, 1);
	CHECK_EQ_U64(out.r.u.sample.callchain_nr, 0);
	CHECK_EQ_U64(out.r.cpu, REC_NO_CPU);
	CHECK_EQ_U64(out.r.size, sizeof(struct rec));
	CHECK_EQ_U64(rec_cpumode(&out.r), PERF_RECORD_MISC_KERNEL);
}

/* Builds the all-fields sample; aux_size lets a test vary the last variable field. */
static void build_full_sample(struct bb *b)
{
	begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(b, 77);                        /* IDENTIFIER */
	put64(b, 0x401000);                  /* IP */
	put2x32(b, 200, 201);                /* TID: pid, tid */
	put64(b, 123456789);                 /* TIME */
	put64(b, 0xdead0000);                /* ADDR */
	put64(b, 77);                        /* ID */
	put64(b, 78);                        /* STREAM_ID */
	put2x32(b, 3, 0);                    /* CPU: cpu, res */
	put64(b, 1000);                      /* PERIOD */
	/* READ, read_format GROUP|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID|LOST: */
	put64(b, 2);                         /*   nr */
	put64(b, 111);                       /*   time_enabled */
	put64(b, 110);                       /*   time_running */
	put64(b, 5); put64(b, 77); put64(b, 0);   /*   cntr[0]: value, id, lost */
	put64(b, 6); put64(b, 79); put64(b, 1);   /*   cntr[1]: value, id, lost */
	put64(b, 2);                         /* CALLCHAIN: nr */
	put64(b, PERF_CONTEXT_USER);         /*   marker */
	put64(b, 0x401000);                  /*   ip */
	put32(b, 12);                        /* RAW: size (u32 size + 12 bytes = 16, 8-aligned) */
	for (int i = 0; i < 12; i++)
		put8(b, 0xAA);               /*   raw data */
	put64(b, 2);                         /* BRANCH_STACK: nr */
	put64(b, 9);                         /*   hw_idx (branch_sample_type has HW_INDEX) */
	put64(b, 0x1000); put64(b, 0x2000); put64(b, 0);   /*   lbr[0]: from, to, flags */
	put64(b, 0x3000); put64(b, 0x4000); put64(b, 0);   /*   lbr[1]: from, to, flags */
	put64(b, PERF_SAMPLE_REGS_ABI_64);   /* REGS_USER: abi */
	put64(b, 0x7ffe0000);                /*   regs[0] (mask bit 0) */
	put64(b, 0x7ffe0100);                /*   regs[1] (mask bit 6) */
	put64(b, 0x401000);                  /*   regs[2] (mask bit 8) */
	put64(b, 16);                        /* STACK_USER: size */
	put64(b, 0x1111111111111111ull);     /*   data */
	put64(b, 0x2222222222222222ull);     /*   data */
	put64(b, 12);                        /*   dyn_size */
	put64(b, 42);                        /* WEIGHT */
	put64(b, 0x5080144);                 /* DATA_SRC */
	put64(b, 0);                         /* TRANSACTION */
	put64(b, PERF_SAMPLE_REGS_ABI_64);   /* REGS_INTR: abi */
	put64(b, 1);                         /*   regs[0] (mask bit 1) */
	put64(b, 2);                         /*   regs[1] (mask bit 2) */
	put64(b, 0x12345000);                /* PHYS_ADDR */
	put64(b, 1);                         /* CGROUP id */
	put64(b, 4096);                      /* DATA_PAGE_SIZE */
	put64(b, 4096);                      /* CODE_PAGE_SIZE */
	put64(b, 8);                         /* AUX: size */
	put64(b, 0xBBBBBBBBBBBBBBBBull);     /*   data */
	end(b);
}

static struct parse_cfg cfg_full(void)
{
	struct parse_cfg c;
	memset(&c, 0, sizeof(c));
	c.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ |
			PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK |
			PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT |
			PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR |
			PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |
			PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX;
	c.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID | PERF_FORMAT_LOST;
	c.sample_regs_user = (1u << 0) | (1u << 6) | (1u << 8);
	c.sample_regs_intr = (1u << 1) | (1u << 2);
	c.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	c.sample_id_all = true;
	return c;
}

static void test_sample_full(void)
{
	struct parse_cfg cfg = cfg_full();
	struct bb b;
	const uint64_t *regs;
	const unsigned char *stack;

	build_full_sample(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.id, 77);
	CHECK_EQ_U64(out.r.u.sample.ip, 0x401000);
	CHECK_EQ_U64(out.r.pid, 200);
	CHECK_EQ_U64(out.r.tid, 201);
	CHECK_EQ_U64(out.r.time, 123456789);
	CHECK_EQ_U64(out.r.u.sample.addr, 0xdead0000);
	CHECK_EQ_U64(out.r.cpu, 3);
	CHECK_EQ_U64(out.r.u.sample.period, 1000);
	CHECK_EQ_U64(out.r.u.sample.callchain_nr, 2);
	CHECK_EQ_U64(rec_callchain(&out.r)[1], 0x401000);
	CHECK_EQ_U64(out.r.u.sample.regs_user_abi, PERF_SAMPLE_REGS_ABI_64);
	CHECK_EQ_U64(out.r.u.sample.regs_user_mask, cfg.sample_regs_user);
	CHECK_EQ_U64(out.r.u.sample.regs_user_nr, 3);
	regs = rec_at(&out.r, out.r.u.sample.regs_user_off);
	CHECK_EQ_U64(regs[0], 0x7ffe0000);
	CHECK_EQ_U64(regs[2], 0x401000);
	/* Of the 16 bytes, only the 12 the kernel filled (dyn_size) are kept. */
	CHECK_EQ_U64(out.r.u.sample.stack_user_size, 12);
	CHECK_EQ_U64(out.r.u.sample.stack_user_dyn_size, 12);
	stack = rec_at(&out.r, out.r.u.sample.stack_user_off);
	CHECK(stack[0] == 0x11 && stack[11] == 0x22);
	CHECK_EQ_U64(out.r.size % 8, 0);
	/* The raw fields are kept (a tracepoint's, for off-CPU states): 12 bytes, padded to 16. */
	CHECK_EQ_U64(out.r.u.sample.raw_size, 12);
	CHECK(((const uint8_t *)rec_raw(&out.r))[0] == 0xAA && ((const uint8_t *)rec_raw(&out.r))[11] == 0xAA);
	CHECK_EQ_U64(out.r.size, sizeof(struct rec) + 2 * 8 + 3 * 8 + 16 + 16);

	/* Every variable-length field is honoured exactly: one byte less anywhere is an error. */
	for (size_t cut = 8; cut < b.n; cut += 8) {
		struct bb t = b;
		t.n = cut;
		end(&t);
		CHECK(parse_bb(&cfg, &t) == -EINVAL);
	}

	/* Without HW_INDEX the branch stack has no hw_idx word: the same bytes no longer add up. */
	cfg.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	CHECK(parse_bb(&cfg, &b) == -EINVAL);

	/* WEIGHT_STRUCT uses the same 8 bytes as WEIGHT. */
	cfg = cfg_full();
	cfg.sample_type = (cfg.sample_type & ~(uint64_t)PERF_SAMPLE_WEIGHT) | PERF_SAMPLE_WEIGHT_STRUCT;
	CHECK(parse_bb(&cfg, &b) == 0);
}

/* An LBR call stack sample: IP, TID, CALLCHAIN (chain words given), BRANCH_STACK (n entries from
 * 0x1000*(i+1) to 0x100*(i+1), with hw_idx when asked). */
static void build_lbr_sample(struct bb *b, uint16_t misc, const uint64_t *cc, size_t ncc, int nbr,
			     bool hw_idx)
{
	begin(b, PERF_RECORD_SAMPLE, misc);
	put64(b, 0x100 + 7);                 /* IP: inside the function the last call entered */
	put2x32(b, 10, 11);                  /* TID */
	put64(b, ncc);                       /* CALLCHAIN: nr */
	for (size_t i = 0; i < ncc; i++)
		put64(b, cc[i]);
	put64(b, (uint64_t)nbr);             /* BRANCH_STACK: nr */
	if (hw_idx)
		put64(b, 5);                 /*   hw_idx */
	for (int i = 0; i < nbr; i++) {      /*   from (call site), to (callee), flags */
		put64(b, 0x1000u * (unsigned)(i + 1));
		put64(b, 0x100u * (unsigned)(i + 1));
		put64(b, 0);
	}
	end(b);
}

/* The chain parse_record gives an LBR call stack sample: the callchain to its PERF_CONTEXT_USER,
 * then the last call's target and each call site, innermost first (parse.h). */
static void test_sample_lbr(void)
{
	struct parse_cfg cfg;
	struct bb b;
	const uint64_t *cc;
	memset(&cfg, 0, sizeof(cfg));
	cfg.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN |
			  PERF_SAMPLE_BRANCH_STACK;
	for (int hw = 0; hw < 2; hw++) {
		cfg.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
					 (hw ? PERF_SAMPLE_BRANCH_HW_INDEX : 0);
		/* A user sample: the callchain's user part (the IP off by a skid, a frame-pointer
		 * guess) gives way to the branch stack's. */
		const uint64_t user[] = { PERF_CONTEXT_USER, 0x10a, 0xdead };
		build_lbr_sample(&b, PERF_RECORD_MISC_USER, user, 3, 3, hw);
		CHECK(parse_bb(&cfg, &b) == 0);
		cc = rec_callchain(&out.r);
		CHECK_EQ_U64(out.r.u.sample.callchain_nr, 5);
		CHECK_EQ_U64(cc[0], PERF_CONTEXT_USER);
		CHECK_EQ_U64(cc[1], 0x100);      /* entry 0's target: the function running */
		CHECK_EQ_U64(cc[2], 0x1000);     /* entry 0's source: its caller's call site */
		CHECK_EQ_U64(cc[3], 0x2000);
		CHECK_EQ_U64(cc[4], 0x3000);
		CHECK(out.r.u.sample.lbr_chain == 1);
		CHECK_EQ_U64(out.r.size % 8, 0);
		CHECK_EQ_U64(out.r.size, sizeof(struct rec) + 5 * 8);

		/* A kernel sample: the kernel part stays, the user part is the branch stack's. */
		const uint64_t kern[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull,
					  0xffffffff81000020ull, PERF_CONTEXT_USER, 0x10a };
		build_lbr_sample(&b, PERF_RECORD_MISC_KERNEL, kern, 5, 2, hw);
		CHECK(parse_bb(&cfg, &b) == 0);
		cc = rec_callchain(&out.r);
		CHECK_EQ_U64(out.r.u.sample.callchain_nr, 7);
		CHECK_EQ_U64(cc[2], 0xffffffff81000020ull);
		CHECK_EQ_U64(cc[3], PERF_CONTEXT_USER);
		CHECK_EQ_U64(cc[4], 0x100);
		CHECK_EQ_U64(cc[6], 0x2000);

		/* A kernel thread's sample (no user part, and the attr did not exclude it): as is. */
		build_lbr_sample(&b, PERF_RECORD_MISC_KERNEL, kern, 3, 2, hw);
		CHECK(parse_bb(&cfg, &b) == 0);
		CHECK_EQ_U64(out.r.u.sample.callchain_nr, 3);
		CHECK(out.r.u.sample.lbr_chain == 0);

		/* exclude_callchain_user (perftop's own live --call-graph lbr): the kernel has no user
		 * part to give; the marker and the branch stack's chain follow the kernel part. */
		cfg.exclude_callchain_user = true;
		build_lbr_sample(&b, PERF_RECORD_MISC_KERNEL, kern, 3, 2, hw);
		CHECK(parse_bb(&cfg, &b) == 0);
		cc = rec_callchain(&out.r);
		CHECK_EQ_U64(out.r.u.sample.callchain_nr, 7);
		CHECK_EQ_U64(cc[3], PERF_CONTEXT_USER);
		CHECK_EQ_U64(cc[4], 0x100);
		CHECK_EQ_U64(cc[5], 0x1000);
		build_lbr_sample(&b, PERF_RECORD_MISC_USER, NULL, 0, 1, hw);
		CHECK(parse_bb(&cfg, &b) == 0);
		cc = rec_callchain(&out.r);
		CHECK_EQ_U64(out.r.u.sample.callchain_nr, 3);
		CHECK_EQ_U64(cc[0], PERF_CONTEXT_USER);
		CHECK_EQ_U64(cc[1], 0x100);
		CHECK_EQ_U64(cc[2], 0x1000);
		cfg.exclude_callchain_user = false;

		/* An empty branch stack: the callchain as it is. */
		build_lbr_sample(&b, PERF_RECORD_MISC_USER, user, 3, 0, hw);
		CHECK(parse_bb(&cfg, &b) == 0);
		CHECK_EQ_U64(out.r.u.sample.callchain_nr, 3);
		CHECK_EQ_U64(rec_callchain(&out.r)[2], 0xdead);

		/* Branch entries that are not a call stack (perf record -b): the callchain as it is. */
		cfg.branch_sample_type &= ~(uint64_t)PERF_SAMPLE_BRANCH_CALL_STACK;
		build_lbr_sample(&b, PERF_RECORD_MISC_USER, user, 3, 3, hw);
		CHECK(parse_bb(&cfg, &b) == 0);
		CHECK_EQ_U64(out.r.u.sample.callchain_nr, 3);
		CHECK(out.r.u.sample.lbr_chain == 0);

		/* Every length is checked: one word less anywhere is an error. */
		cfg.branch_sample_type |= PERF_SAMPLE_BRANCH_CALL_STACK;
		build_lbr_sample(&b, PERF_RECORD_MISC_USER, user, 3, 3, hw);
		for (size_t cut = 8; cut < b.n; cut += 8) {
			struct bb t = b;
			t.n = cut;
			end(&t);
			CHECK(parse_bb(&cfg, &t) == -EINVAL);
		}
	}
	/* No callchain asked for at all: the branch stack's chain alone, after its marker. */
	cfg.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
	cfg.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK;
	begin(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(&b, 0x107);                    /* IP */
	put64(&b, 1);                        /* BRANCH_STACK: nr */
	put64(&b, 0x1000); put64(&b, 0x100); put64(&b, 0);   /*   from, to, flags */
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	cc = rec_callchain(&out.r);
	CHECK_EQ_U64(out.r.u.sample.callchain_nr, 3);
	CHECK_EQ_U64(cc[0], PERF_CONTEXT_USER);
	CHECK_EQ_U64(cc[1], 0x100);
	CHECK_EQ_U64(cc[2], 0x1000);
	cfg.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN |
			  PERF_SAMPLE_BRANCH_STACK;

	/* The other byte order: the chain's words come out in this machine's. */
	cfg.swapped = true;
	const uint64_t user_sw[] = { __builtin_bswap64(PERF_CONTEXT_USER), __builtin_bswap64(0x10a) };
	begin(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	{
		uint16_t sz;
		put64(&b, __builtin_bswap64(0x107));          /* IP */
		put2x32(&b, __builtin_bswap32(10), __builtin_bswap32(11));
		put64(&b, __builtin_bswap64(2));              /* CALLCHAIN nr */
		put64(&b, user_sw[0]);
		put64(&b, user_sw[1]);
		put64(&b, __builtin_bswap64(1));              /* BRANCH_STACK nr */
		put64(&b, __builtin_bswap64(0x1000));         /*   from */
		put64(&b, __builtin_bswap64(0x100));          /*   to */
		put64(&b, 0);                                 /*   flags */
		sz = __builtin_bswap16((uint16_t)b.n);
		uint32_t ty = __builtin_bswap32(PERF_RECORD_SAMPLE);
		uint16_t mi = __builtin_bswap16(PERF_RECORD_MISC_USER);
		memcpy(b.b, &ty, 4);
		memcpy(b.b + 4, &mi, 2);
		memcpy(b.b + 6, &sz, 2);
	}
	cfg.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK;
	CHECK(parse_exact(&cfg, b.b, b.n, sizeof(out)) == 0);
	cc = rec_callchain(&out.r);
	CHECK_EQ_U64(out.r.u.sample.callchain_nr, 3);
	CHECK_EQ_U64(cc[0], PERF_CONTEXT_USER);
	CHECK_EQ_U64(cc[1], 0x100);
	CHECK_EQ_U64(cc[2], 0x1000);
}

static void test_sample_small_variants(void)
{
	struct parse_cfg cfg;
	struct bb b;

	/* REGS_USER with abi NONE (a kernel thread) has no registers; STACK_USER of size 0 has no
	 * dyn_size; READ without GROUP is one value with its extras. */
	memset(&cfg, 0, sizeof(cfg));
	cfg.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_READ | PERF_SAMPLE_REGS_USER |
			  PERF_SAMPLE_STACK_USER;
	cfg.read_format = PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
	cfg.sample_regs_user = 0xff;
	begin(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	put64(&b, 0xffffffff81000000ull);    /* IP */
	put64(&b, 10);                       /* READ: value */
	put64(&b, 20);                       /*   time_enabled */
	put64(&b, 30);                       /*   id */
	put64(&b, PERF_SAMPLE_REGS_ABI_NONE);/* REGS_USER: abi none, no regs */
	put64(&b, 0);                        /* STACK_USER: size 0, no data, no dyn_size */
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.u.sample.regs_user_nr, 0);
	CHECK_EQ_U64(out.r.u.sample.stack_user_size, 0);
	CHECK_EQ_U64(out.r.size, sizeof(struct rec));
}

static void test_mmap(void)
{
	struct parse_cfg cfg = cfg_basic();
	struct bb b;

	/* PERF_RECORD_MMAP (the old form, no inode) */
	begin(&b, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	put2x32(&b, 300, 301);               /* pid, tid */
	put64(&b, 0x400000);                 /* addr */
	put64(&b, 0x1000);                   /* len */
	put64(&b, 0);                        /* pgoff */
	putstr(&b, "/bin/ls");               /* filename */
	trailer(&b, 300, 301, 777, 0);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.type, REC_MMAP);
	CHECK_EQ_U64(out.r.perf_type, PERF_RECORD_MMAP);
	CHECK_EQ_U64(out.r.u.mmap.is_mmap2, 0);
	CHECK_EQ_U64(out.r.u.mmap.pid, 300);
	CHECK_EQ_U64(out.r.u.mmap.start, 0x400000);
	CHECK_EQ_U64(out.r.u.mmap.len, 0x1000);
	CHECK_EQ_U64(out.r.u.mmap.executable, 1);
	CHECK_STR(rec_filename(&out.r), "/bin/ls");
	CHECK_EQ_U64(out.r.time, 777);
	CHECK_EQ_U64(out.r.pid, 300);
	CHECK_EQ_U64(out.r.tid, 301);
	CHECK_EQ_U64(out.r.cpu, 0);
	CHECK_EQ_U64(out.r.size % 8, 0);

	/* PERF_RECORD_MMAP2, inode form, a data mapping */
	begin(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA);
	put2x32(&b, 400, 402);               /* pid, tid */
	put64(&b, 0x7f0000000000ull);        /* addr */
	put64(&b, 0x21000);                  /* len */
	put64(&b, 0x2000);                   /* pgoff */
	put2x32(&b, 254, 1);                 /* maj, min */
	put64(&b, 123456);                   /* ino */
	put64(&b, 7);                        /* ino_generation */
	put2x32(&b, 5, 2);                   /* prot (R|X), flags (MAP_PRIVATE) */
	putstr(&b, "/usr/lib/x86_64-linux-gnu/libc.so.6");   /* filename */
	trailer(&b, 400, 402, 888, 1);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.type, REC_MMAP);
	CHECK_EQ_U64(out.r.u.mmap.is_mmap2, 1);
	CHECK_EQ_U64(out.r.u.mmap.has_build_id, 0);
	CHECK_EQ_U64(out.r.u.mmap.maj, 254);
	CHECK_EQ_U64(out.r.u.mmap.min, 1);
	CHECK_EQ_U64(out.r.u.mmap.ino, 123456);
	CHECK_EQ_U64(out.r.u.mmap.ino_generation, 7);
	CHECK_EQ_U64(out.r.u.mmap.prot, 5);
	CHECK_EQ_U64(out.r.u.mmap.flags, 2);
	CHECK_EQ_U64(out.r.u.mmap.pgoff, 0x2000);
	CHECK_EQ_U64(out.r.u.mmap.executable, 0);
	CHECK_STR(rec_filename(&out.r), "/usr/lib/x86_64-linux-gnu/libc.so.6");
	CHECK_EQ_U64(out.r.time, 888);
	CHECK_EQ_U64(out.r.cpu, 1);

	/* PERF_RECORD_MMAP2, build-id form */
	begin(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	put2x32(&b, 500, 500);               /* pid, tid */
	put64(&b, 0x555500000000ull);        /* addr */
	put64(&b, 0x5000);                   /* len */
	put64(&b, 0x1000);                   /* pgoff */
	put8(&b, 20);                        /* build_id_size */
	put8(&b, 0);                         /* __reserved_1 */
	put8(&b, 0); put8(&b, 0);            /* __reserved_2 */
	for (int i = 0; i < 20; i++)
		put8(&b, (uint8_t)(0xA0 + i));   /* build_id[20] */
	put2x32(&b, 5, 2);                   /* prot, flags */
	putstr(&b, "/usr/bin/dash");         /* filename */
	trailer(&b, 500, 500, 999, 0);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.u.mmap.has_build_id, 1);
	CHECK_EQ_U64(out.r.u.mmap.build_id_size, 20);
	CHECK_EQ_U64(out.r.u.mmap.build_id[0], 0xA0);
	CHECK_EQ_U64(out.r.u.mmap.build_id[19], 0xB3);
	CHECK_EQ_U64(out.r.u.mmap.ino, 0);
	CHECK_EQ_U64(out.r.u.mmap.prot, 5);
	CHECK_EQ_U64(out.r.u.mmap.executable, 1);
	CHECK_STR(rec_filename(&out.r), "/usr/bin/dash");
	CHECK_EQ_U64(out.r.time, 999);

	/* The misc bit over an inode-form payload, as kernels write it while another event on the
	 * machine asks for build-ids (a major device number 254 where the size byte would be): read
	 * as the inode form. */
	begin(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	put2x32(&b, 500, 500);
	put64(&b, 0x555500000000ull);
	put64(&b, 0x5000);
	put64(&b, 0x1000);
	put2x32(&b, 254, 0);                 /* maj, min */
	put64(&b, 5317019);                  /* ino */
	put64(&b, 4021787247ull);            /* ino_generation */
	put2x32(&b, 5, 2);
	putstr(&b, "/work/build/fixtures/spinner");
	trailer(&b, 500, 500, 1001, 0);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.u.mmap.has_build_id, 0);
	CHECK_EQ_U64(out.r.u.mmap.maj, 254);
	CHECK_EQ_U64(out.r.u.mmap.ino, 5317019);
	CHECK_STR(rec_filename(&out.r), "/work/build/fixtures/spinner");
	/* ... and a small major number (8: a SCSI disk) that reads as a plausible size: the bytes past
	 * an 8-byte id would be zero in the build-id form, here they are the inode's. */
	b.b[8 + 32] = 8;
	b.b[8 + 32 + 4] = 1;
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.u.mmap.has_build_id, 0);
	CHECK_EQ_U64(out.r.u.mmap.maj, 8);
	CHECK_EQ_U64(out.r.u.mmap.min, 1);
}

static void test_comm(void)
{
	struct parse_cfg cfg = cfg_basic();
	struct bb b;

	begin(&b, PERF_RECORD_COMM, 0);
	put2x32(&b, 600, 601);               /* pid, tid */
	putstr(&b, "worker");                /* comm */
	trailer(&b, 600, 601, 1000, 1);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.type, REC_COMM);
	CHECK_EQ_U64(out.r.u.comm.exec, 0);
	CHECK_EQ_U64(out.r.u.comm.pid, 600);
	CHECK_EQ_U64(out.r.u.comm.tid, 601);
	CHECK_STR(out.r.u.comm.comm, "worker");
	CHECK_EQ_U64(out.r.time, 1000);
	CHECK_EQ_U64(out.r.size, sizeof(struct rec));

	begin(&b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put2x32(&b, 700, 700);               /* pid, tid */
	putstr(&b, "dash");                  /* comm, after exec */
	trailer(&b, 700, 700, 1001, 0);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.u.comm.exec, 1);
	CHECK_STR(out.r.u.comm.comm, "dash");

	/* Without sample_id_all there is no trailer: the same record minus 24 bytes. */
	cfg.sample_id_all = false;
	begin(&b, PERF_RECORD_COMM, 0);
	put2x32(&b, 700, 700);               /* pid, tid */
	putstr(&b, "dash");                  /* comm */
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_STR(out.r.u.comm.comm, "dash");
	CHECK_EQ_U64(out.r.time, 0);
	CHECK_EQ_U64(out.r.cpu, REC_NO_CPU);
}

static void test_task(void)
{
	struct parse_cfg cfg = cfg_basic();
	struct bb b;

	begin(&b, PERF_RECORD_FORK, 0);
	put2x32(&b, 800, 700);               /* pid, ppid */
	put2x32(&b, 801, 700);               /* tid, ptid */
	put64(&b, 2000);                     /* time */
	trailer(&b, 700, 700, 2000, 1);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.type, REC_FORK);
	CHECK_EQ_U64(out.r.u.task.pid, 800);
	CHECK_EQ_U64(out.r.u.task.ppid, 700);
	CHECK_EQ_U64(out.r.u.task.tid, 801);
	CHECK_EQ_U64(out.r.u.task.ptid, 700);
	CHECK_EQ_U64(out.r.u.task.time, 2000);
	CHECK_EQ_U64(out.r.pid, 800);   /* the record's own task, not the trailer's */
	CHECK_EQ_U64(out.r.tid, 801);
	CHECK_EQ_U64(out.r.cpu, 1);

	begin(&b, PERF_RECORD_EXIT, 0);
	put2x32(&b, 800, 700);               /* pid, ppid */
	put2x32(&b, 801, 700);               /* tid, ptid */
	put64(&b, 3000);                     /* time */
	trailer(&b, 800, 801, 3001, 0);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.type, REC_EXIT);
	CHECK_EQ_U64(out.r.u.task.time, 3000);
	CHECK_EQ_U64(out.r.time, 3001);   /* the sample_id time orders the stream */
}

static void test_lost_throttle(void)
{
	struct parse_cfg cfg = cfg_basic();
	struct bb b;

	begin(&b, PERF_RECORD_LOST, 0);
	put64(&b, 55);                       /* id */
	put64(&b, 1234);                     /* lost */
	trailer(&b, 0, 0, 4000, 1);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.type, REC_LOST);
	CHECK_EQ_U64(out.r.u.lost.id, 55);
	CHECK_EQ_U64(out.r.u.lost.lost, 1234);
	CHECK_EQ_U64(out.r.time, 4000);

	begin(&b, PERF_RECORD_LOST_SAMPLES, 0);
	put64(&b, 17);                       /* lost */
	trailer(&b, 900, 901, 4001, 0);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.type, REC_LOST_SAMPLES);
	CHECK_EQ_U64(out.r.u.lost.lost, 17);
	CHECK_EQ_U64(out.r.pid, 900);
	CHECK_EQ_U64(out.r.tid, 901);

	begin(&b, PERF_RECORD_THROTTLE, 0);
	put64(&b, 5000);                     /* time */
	put64(&b, 55);                       /* id */
	put64(&b, 56);                       /* stream_id */
	trailer(&b, 0, 0, 5000, 1);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.type, REC_THROTTLE);
	CHECK_EQ_U64(out.r.u.throttle.time, 5000);
	CHECK_EQ_U64(out.r.u.throttle.id, 55);
	CHECK_EQ_U64(out.r.u.throttle.stream_id, 56);

	begin(&b, PERF_RECORD_UNTHROTTLE, 0);
	put64(&b, 6000);                     /* time */
	put64(&b, 55);                       /* id */
	put64(&b, 56);                       /* stream_id */
	trailer(&b, 0, 0, 6000, 0);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.type, REC_UNTHROTTLE);
	CHECK_EQ_U64(out.r.time, 6000);
}

static void test_full_trailer(void)
{
	struct parse_cfg cfg;
	struct bb b;

	/* Every field a sample_id trailer can have, in the kernel's order. */
	memset(&cfg, 0, sizeof(cfg));
	cfg.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER |
			  PERF_SAMPLE_CALLCHAIN;
	cfg.sample_id_all = true;
	begin(&b, PERF_RECORD_LOST_SAMPLES, 0);
	put64(&b, 3);                        /* lost */
	put2x32(&b, 10, 11);                 /* sample_id: pid, tid */
	put64(&b, 7000);                     /* sample_id: time */
	put64(&b, 91);                       /* sample_id: id */
	put64(&b, 92);                       /* sample_id: stream_id */
	put2x32(&b, 1, 0);                   /* sample_id: cpu, res */
	put64(&b, 93);                       /* sample_id: identifier */
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.u.lost.lost, 3);
	CHECK_EQ_U64(out.r.pid, 10);
	CHECK_EQ_U64(out.r.tid, 11);
	CHECK_EQ_U64(out.r.time, 7000);
	CHECK_EQ_U64(out.r.cpu, 1);
	CHECK_EQ_U64(out.r.id, 93);

	/* A record too short for its trailer is malformed. */
	begin(&b, PERF_RECORD_LOST_SAMPLES, 0);
	put64(&b, 3);                        /* lost, and no room for the 48-byte trailer */
	end(&b);
	CHECK(parse_bb(&cfg, &b) == -EINVAL);
}

/* PERF_RECORD_KSYMBOL: a registration is a kernel map (pid -1) named after the symbol, marked
 * ksymbol; an unregistration is skipped; a name not terminated inside the record is refused. */
static void test_ksymbol(void)
{
	struct parse_cfg cfg = cfg_basic();
	struct bb b;

	begin(&b, PERF_RECORD_KSYMBOL, 0);
	put64(&b, 0xffffffffa0200000ull);    /* addr */
	put32(&b, 0x400);                    /* len */
	put8(&b, PERF_RECORD_KSYMBOL_TYPE_BPF); put8(&b, 0);
	put8(&b, 0); put8(&b, 0);            /* flags */
	putstr(&b, "bpf_prog_6deef7357e7b4530_x");
	trailer(&b, 300, 301, 5000, 1);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.type, REC_MMAP);
	CHECK_EQ_U64(out.r.u.mmap.ksymbol, 1);
	CHECK_EQ_U64(out.r.u.mmap.pid, UINT32_MAX);
	CHECK_EQ_U64(out.r.pid, UINT32_MAX);
	CHECK_EQ_U64(out.r.u.mmap.start, 0xffffffffa0200000ull);
	CHECK_EQ_U64(out.r.u.mmap.len, 0x400);
	CHECK_EQ_U64(out.r.u.mmap.executable, 1);
	CHECK_STR(rec_filename(&out.r), "bpf_prog_6deef7357e7b4530_x");
	CHECK_EQ_U64(out.r.time, 5000);

	begin(&b, PERF_RECORD_KSYMBOL, 0);
	put64(&b, 0xffffffffa0200000ull);
	put32(&b, 0x400);
	put8(&b, PERF_RECORD_KSYMBOL_TYPE_BPF); put8(&b, 0);
	put8(&b, PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER); put8(&b, 0);
	putstr(&b, "bpf_prog_6deef7357e7b4530_x");
	trailer(&b, 300, 301, 6000, 1);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.type, REC_OTHER);

	begin(&b, PERF_RECORD_KSYMBOL, 0);
	put64(&b, 0xffffffffa0200000ull);
	put32(&b, 0x400);
	put32(&b, PERF_RECORD_KSYMBOL_TYPE_BPF);
	put64(&b, 0x4141414141414141ull);    /* a name without its NUL */
	trailer(&b, 300, 301, 7000, 1);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == -EINVAL);
}

static void test_other(void)
{
	struct parse_cfg cfg = cfg_basic();
	struct bb b;

	/* PERF_RECORD_SWITCH: the task of the trailer switched out (or in), at the trailer's time. */
	begin(&b, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	trailer(&b, 1, 2, 8000, 1);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.type, REC_SWITCH);
	CHECK_EQ_U64(out.r.perf_type, PERF_RECORD_SWITCH);
	CHECK_EQ_U64(out.r.time, 8000);
	CHECK_EQ_U64(out.r.tid, 2);
	CHECK(out.r.u.sw.out && out.r.u.sw.preempt && !out.r.u.sw.cpu_wide);
	CHECK_EQ_U64(out.r.size, sizeof(struct rec));

	/* SWITCH_CPU_WIDE, a switch-in: the task on the other side follows the header. */
	begin(&b, PERF_RECORD_SWITCH_CPU_WIDE, 0);
	put2x32(&b, 30, 31);
	trailer(&b, 5, 6, 9000, 1);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.type, REC_SWITCH);
	CHECK_EQ_U64(out.r.tid, 6);
	CHECK(!out.r.u.sw.out && out.r.u.sw.cpu_wide);
	CHECK_EQ_U64(out.r.u.sw.next_prev_tid, 31);

	/* A type from the future or from user space, with a payload we cannot read. */
	begin(&b, 70, 0);
	put64(&b, 0x1234);                   /* unknown payload */
	end(&b);
	CHECK(parse_bb(&cfg, &b) == 0);
	CHECK_EQ_U64(out.r.type, REC_OTHER);
	CHECK_EQ_U64(out.r.perf_type, 70);
	CHECK_EQ_U64(out.r.time, 0);
}

static void test_malformed(void)
{
	struct parse_cfg cfg = cfg_basic();
	struct bb b;

	/* Fewer bytes than a header, and a header whose size is below 8 or above what we have. */
	CHECK(parse_exact(&cfg, "\x09\0\0\0", 4, sizeof(out)) == -EINVAL);
	begin(&b, PERF_RECORD_SAMPLE, 0);
	put64(&b, 1);
	end(&b);
	b.b[6] = 4; b.b[7] = 0;              /* size 4 */
	CHECK(parse_exact(&cfg, b.b, b.n, sizeof(out)) == -EINVAL);
	b.b[6] = 64;                         /* size 64 but only 16 bytes given */
	CHECK(parse_exact(&cfg, b.b, b.n, sizeof(out)) == -EINVAL);

	/* A callchain nr that runs past the record (and one that would overflow nr * 8). */
	begin(&b, PERF_RECORD_SAMPLE, 0);
	put64(&b, 0x401000);                 /* IP */
	put2x32(&b, 1, 1);                   /* TID */
	put64(&b, 1);                        /* TIME */
	put2x32(&b, 0, 0);                   /* CPU */
	put64(&b, 1);                        /* PERIOD */
	put64(&b, 3);                        /* CALLCHAIN: nr = 3, but only 1 entry follows */
	put64(&b, 0x401000);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == -EINVAL);
	memcpy(b.b + 8 + 40, &(uint64_t){ UINT64_MAX / 4 }, 8);
	CHECK(parse_bb(&cfg, &b) == -EINVAL);

	/* A sample cut in its fixed fields. */
	begin(&b, PERF_RECORD_SAMPLE, 0);
	put64(&b, 0x401000);                 /* IP, and nothing else */
	end(&b);
	CHECK(parse_bb(&cfg, &b) == -EINVAL);

	/* An mmap filename without its NUL (the trailer follows right after). */
	begin(&b, PERF_RECORD_MMAP, 0);
	put2x32(&b, 1, 1);                   /* pid, tid */
	put64(&b, 0x1000); put64(&b, 0x1000); put64(&b, 0);   /* addr, len, pgoff */
	memcpy(b.b + b.n, "ABCDEFGH", 8);    /* filename with no NUL */
	b.n += 8;
	trailer(&b, 1, 1, 1, 0);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == -EINVAL);

	/* An MMAP2 too short for its inode block. */
	begin(&b, PERF_RECORD_MMAP2, 0);
	put2x32(&b, 1, 1);                   /* pid, tid */
	put64(&b, 0x1000); put64(&b, 0x1000); put64(&b, 0);   /* addr, len, pgoff */
	put64(&b, 0);                        /* 8 of the 32 bytes of maj..flags */
	trailer(&b, 1, 1, 1, 0);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == -EINVAL);

	/* A COMM with no room for its string, FORK/LOST/THROTTLE cut short. */
	begin(&b, PERF_RECORD_COMM, 0);
	put2x32(&b, 1, 1);                   /* pid, tid; no comm */
	trailer(&b, 1, 1, 1, 0);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == -EINVAL);
	begin(&b, PERF_RECORD_FORK, 0);
	put2x32(&b, 1, 1);                   /* pid, ppid; no tid, ptid, time */
	trailer(&b, 1, 1, 1, 0);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == -EINVAL);
	begin(&b, PERF_RECORD_LOST, 0);
	put64(&b, 1);                        /* id; no lost */
	trailer(&b, 1, 1, 1, 0);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == -EINVAL);
	begin(&b, PERF_RECORD_THROTTLE, 0);
	put64(&b, 1); put64(&b, 1);          /* time, id; no stream_id */
	trailer(&b, 1, 1, 1, 0);
	end(&b);
	CHECK(parse_bb(&cfg, &b) == -EINVAL);

	/* Huge RAW size, branch nr, read group nr, stack size, aux size. */
	{
		struct parse_cfg fc;
		memset(&fc, 0, sizeof(fc));
		fc.sample_type = PERF_SAMPLE_RAW;
		begin(&b, PERF_RECORD_SAMPLE, 0);
		put32(&b, UINT32_MAX);       /* RAW size */
		put32(&b, 0);
		end(&b);
		CHECK(parse_bb(&fc, &b) == -EINVAL);
		fc.sample_type = PERF_SAMPLE_BRANCH_STACK;
		begin(&b, PERF_RECORD_SAMPLE, 0);
		put64(&b, UINT64_MAX / 8);   /* BRANCH_STACK nr */
		put64(&b, 0);
		end(&b);
		CHECK(parse_bb(&fc, &b) == -EINVAL);
		fc.sample_type = PERF_SAMPLE_READ;
		fc.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
		begin(&b, PERF_RECORD_SAMPLE, 0);
		put64(&b, UINT64_MAX / 2);   /* READ nr */
		put64(&b, 0);
		end(&b);
		CHECK(parse_bb(&fc, &b) == -EINVAL);
		fc.sample_type = PERF_SAMPLE_STACK_USER;
		begin(&b, PERF_RECORD_SAMPLE, 0);
		put64(&b, UINT64_MAX - 4);   /* STACK_USER size */
		put64(&b, 0);
		end(&b);
		CHECK(parse_bb(&fc, &b) == -EINVAL);
		fc.sample_type = PERF_SAMPLE_AUX;
		begin(&b, PERF_RECORD_SAMPLE, 0);
		put64(&b, 16);               /* AUX size, 8 bytes short */
		put64(&b, 0);
		end(&b);
		CHECK(parse_bb(&fc, &b) == -EINVAL);
		fc.sample_type = PERF_SAMPLE_REGS_USER;
		fc.sample_regs_user = 0xffff;
		begin(&b, PERF_RECORD_SAMPLE, 0);
		put64(&b, PERF_SAMPLE_REGS_ABI_64);   /* abi, then 16 registers expected, 1 given */
		put64(&b, 0);
		end(&b);
		CHECK(parse_bb(&fc, &b) == -EINVAL);
	}

	/* Random garbage never reads out of bounds (ASan checks the heap copies). */
	srand(1);
	for (int i = 0; i < 20000; i++) {
		unsigned char junk[96];
		size_t len = 8 + (size_t)rand() % (sizeof(junk) - 8);
		uint16_t size = (uint16_t)len;
		for (size_t j = 0; j < len; j++)
			junk[j] = (unsigned char)rand();
		junk[0] = (unsigned char)(1 + rand() % 20);   /* a mostly known type */
		junk[1] = junk[2] = junk[3] = 0;
		memcpy(junk + 6, &size, 2);
		struct parse_cfg fc = cfg_full();
		(void)parse_exact(i & 1 ? &fc : &cfg, junk, len, sizeof(out));
	}
}

static void test_nospace(void)
{
	struct parse_cfg cfg = cfg_basic();
	struct bb b;

	begin(&b, PERF_RECORD_SAMPLE, 0);
	put64(&b, 0x401000);                 /* IP */
	put2x32(&b, 1, 1);                   /* TID */
	put64(&b, 1);                        /* TIME */
	put2x32(&b, 0, 0);                   /* CPU */
	put64(&b, 1);                        /* PERIOD */
	put64(&b, 2);                        /* CALLCHAIN nr */
	put64(&b, 1); put64(&b, 2);          /*   ips */
	end(&b);
	CHECK(parse_exact(&cfg, b.b, b.n, sizeof(struct rec) - 8) == -ENOSPC);
	CHECK(parse_exact(&cfg, b.b, b.n, sizeof(struct rec) + 8) == -ENOSPC);
	CHECK(parse_exact(&cfg, b.b, b.n, sizeof(struct rec) + 16) == 0);

	begin(&b, PERF_RECORD_MMAP, 0);
	put2x32(&b, 1, 1);                   /* pid, tid */
	put64(&b, 0x1000); put64(&b, 0x1000); put64(&b, 0);   /* addr, len, pgoff */
	putstr(&b, "/a/long/enough/name");  /* filename: 20 bytes + NUL -> 24 */
	trailer(&b, 1, 1, 1, 0);
	end(&b);
	CHECK(parse_exact(&cfg, b.b, b.n, sizeof(struct rec) + 16) == -ENOSPC);
	CHECK(parse_exact(&cfg, b.b, b.n, sizeof(struct rec) + 24) == 0);
	CHECK_EQ_U64(out.r.size, sizeof(struct rec) + 24);
}

int main(void)
{
	test_sample_callchain();
	test_sample_full();
	test_sample_lbr();
	test_sample_small_variants();
	test_mmap();
	test_comm();
	test_task();
	test_lost_throttle();
	test_full_trailer();
	test_ksymbol();
	test_other();
	test_malformed();
	test_nospace();
	return CHECK_DONE();
}
