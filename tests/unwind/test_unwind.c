/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_unwind: the unwinder's accessors on hand-made samples of this very process. A noinline chain
 * main -> deep1 -> deep2 -> deep3 -> capture copies its registers and the top of its stack into a
 * REC_SAMPLE as the kernel would (perf's x86-64 register mask, PERF_SAMPLE_STACK_USER bytes), and the
 * symbolizer unwinds it: the chain must read deep3, deep2, deep1, main up to the libc root. Then the
 * same sample with its stack copy cut short must end in "[stack copy too short]"; with deep2's
 * return address replaced by one in no mapping (or a non-canonical one) the chain must end there, in
 * one "[unmapped address]" frame, the garbage never a frame of its own and the chain not counted as
 * unwound to the root (by the fast path and by libunwind alone); and thousands of garbage samples
 * (random registers, random stack bytes, stacks of return-address-looking words) must stay within
 * the frame bound and never crash (run under ASan+UBSan too).
 *
 * The default call graph's first frames (symbolizer_fp_head) on samples made by hand of two functions
 * written here in assembly with their CFI: head_leaf, a bare ret (a probe at a function's entry, or
 * a libc leaf: no frame record), called by head_frame, which has one. A sample in head_leaf with the
 * kernel's frame-pointer chain (head_leaf, then what RBP + 8 leads to: deep1, deep2) must read
 * head_leaf, head_frame, deep1, deep2: the caller the kernel skipped, once, also when the kernel
 * already put it there (a probe at an entry, since 6.11); unchanged without the stack copy, or
 * where the sampled code has a frame record (head_frame itself).
 */
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "record/record.h"
#include "symbolize/symbolizer.h"
#include "symbolize/unwind.h"

#define STACK_COPY 8192
#define NREGS 20
#define MASK 0xff0fffull   /* AX..IP, FLAGS, CS, SS, R8..R15 in perf's numbering */

/* The registers in perf's numbering (the mask's bits, in order) and the stack above SP. */
struct captured {
	uint64_t regs[NREGS];
	uint8_t stack[STACK_COPY];
	size_t len;
};

static uint64_t stack_end;  /* end of our [stack] mapping: nothing above it may be read */

static void find_stack_end(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", &a, &b) == 2)
			stack_end = b;
	}
	if (f)
		fclose(f);
}

/* The stack above SP holds ASan's redzones: copy it as the kernel does, unchecked. */
__attribute__((no_sanitize("address"), noinline)) static void raw_copy(uint8_t *dst, uint64_t src,
									size_t len)
{
	const volatile uint8_t *p = (const volatile uint8_t *)(uintptr_t)src;
	for (size_t i = 0; i < len; i++)
		dst[i] = p[i];
}

__attribute__((noinline)) static void capture(struct captured *c)
{
	uint64_t rip, rsp, rbp, rbx, r12, r13, r14, r15;
	/* Memory outputs: a register output could be one of the registers read after it. */
	__asm__ volatile("lea 0(%%rip), %%rax\n\tmov %%rax, %0\n\t"
			 "mov %%rsp, %1\n\tmov %%rbp, %2\n\tmov %%rbx, %3\n\t"
			 "mov %%r12, %4\n\tmov %%r13, %5\n\tmov %%r14, %6\n\tmov %%r15, %7"
			 : "=m"(rip), "=m"(rsp), "=m"(rbp), "=m"(rbx), "=m"(r12), "=m"(r13), "=m"(r14),
			   "=m"(r15)
			 :
			 : "rax");
	memset(c->regs, 0, sizeof(c->regs));
	c->regs[1] = rbx;
	c->regs[6] = rbp;
	c->regs[7] = rsp;
	c->regs[8] = rip;
	c->regs[16] = r12;  /* bits 0..11 come first, so R8..R15 are regs[12..19] */
	c->regs[17] = r13;
	c->regs[18] = r14;
	c->regs[19] = r15;
	c->len = STACK_COPY;
	if (stack_end && rsp + c->len > stack_end)
		c->len = (size_t)(stack_end - rsp);
	raw_copy(c->stack, rsp, c->len);
}

__attribute__((noinline)) static int deep3(struct captured *c)
{
	capture(c);
	__asm__ volatile("" ::: "memory");
	return 3;
}

__attribute__((noinline)) static int deep2(struct captured *c)
{
	int r = deep3(c);
	__asm__ volatile("" ::: "memory");
	return r + 2;
}

__attribute__((noinline)) static int deep1(struct captured *c)
{
	int r = deep2(c);
	__asm__ volatile("" ::: "memory");
	return r + 1;
}

/* A REC_SAMPLE of this process at ip: nregs registers of mask (perf's numbering, in bit order),
 * stack_len bytes of stack, and a callchain's user part chain[0..nchain) after its mark (none when
 * nchain is 0). */
static struct rec *sample_of(uint64_t ip, const uint64_t *regs, uint32_t nregs, uint64_t mask,
			     const void *stack, size_t stack_len, const uint64_t *chain, int nchain)
{
	size_t nwords = nchain ? (size_t)nchain + 1 : 0;
	size_t size = sizeof(struct rec) + nwords * 8 + nregs * 8 + stack_len;
	size = (size + 7) & ~(size_t)7;
	struct rec *r = calloc(1, size);
	r->size = (uint32_t)size;
	r->type = REC_SAMPLE;
	r->misc = 2;  /* PERF_RECORD_MISC_USER */
	r->pid = r->tid = (uint32_t)getpid();
	r->cpu = REC_NO_CPU;
	r->u.sample.ip = ip;
	r->u.sample.period = 1;
	uint32_t off = sizeof(struct rec);
	if (nchain) {
		uint64_t *cc = (uint64_t *)((char *)r + off);
		cc[0] = PERF_CONTEXT_USER;
		memcpy(cc + 1, chain, (size_t)nchain * 8);
		r->u.sample.callchain_off = off;
		r->u.sample.callchain_nr = (uint32_t)nwords;
		off += (uint32_t)nwords * 8;
	}
	r->u.sample.regs_user_abi = 2;  /* PERF_SAMPLE_REGS_ABI_64 */
	r->u.sample.regs_user_mask = mask;
	r->u.sample.regs_user_nr = nregs;
	r->u.sample.regs_user_off = off;
	memcpy((char *)r + off, regs, nregs * 8);
	off += nregs * 8;
	r->u.sample.stack_user_off = off;
	r->u.sample.stack_user_size = (uint32_t)stack_len;
	r->u.sample.stack_user_dyn_size = stack_len;
	memcpy((char *)r + off, stack, stack_len);
	return r;
}

/* A REC_SAMPLE of this process from captured registers and stack (stack_len bytes of it). */
static struct rec *make_sample(const struct captured *c, size_t stack_len)
{
	return sample_of(c->regs[8], c->regs, NREGS, MASK, c->stack, stack_len, NULL, 0);
}

/* The first frame named sym, or a clone of it (GCC's "deep3.constprop.0"). */
static int find(const struct frame *f, int n, const char *sym)
{
	size_t len = strlen(sym);
	for (int i = 0; i < n; i++)
		if (!strncmp(f[i].sym, sym, len) && (f[i].sym[len] == '\0' || f[i].sym[len] == '.'))
			return i;
	return -1;
}

/* A kernel sample whose user registers point into no mapping (taken in execve, with the old
 * image's registers): the kernel's frame and one "[unmapped address]", the user IP never a frame. */
static void test_user_ip_unmapped(struct symbolizer *s, const struct captured *c)
{
	uint64_t regs[NREGS];
	memcpy(regs, c->regs, sizeof(regs));
	regs[8] = 0x1008;
	struct rec *r = sample_of(0xffffffff81000100ull, regs, NREGS, MASK, c->stack, c->len, NULL, 0);
	r->misc = 1; /* PERF_RECORD_MISC_KERNEL */
	struct frame f[64];
	int n = symbolizer_sample(s, r, f, 64), unmapped = 0, ip_frame = 0;
	free(r);
	for (int i = 0; i < n; i++) {
		unmapped += !strcmp(f[i].sym, "[unmapped address]");
		ip_frame += !f[i].kernel && (f[i].addr == 0x1008 || f[i].addr == 0x1007);
	}
	if (!(n == 2 && f[0].kernel && unmapped == 1 && ip_frame == 0))
		for (int i = 0; i < n; i++)
			fprintf(stderr, "  user IP unmapped #%d %s (%s) %#llx\n", i, f[i].sym, f[i].dso,
				(unsigned long long)f[i].addr);
	CHECK(n == 2 && f[0].kernel && unmapped == 1 && ip_frame == 0);
}

static void test_chain(struct symbolizer *s, const struct captured *c)
{
	struct frame f[512];
	struct rec *r = make_sample(c, c->len);
	int n = symbolizer_sample(s, r, f, 512);
	int i3 = find(f, n, "deep3"), i2 = find(f, n, "deep2"), i1 = find(f, n, "deep1"),
	    im = find(f, n, "main");
	if (!(i3 > 0 && i2 > i3 && i1 > i2 && im > i1)) {
		for (int i = 0; i < n; i++)
			fprintf(stderr, "  #%d %s (%s)\n", i, f[i].sym, f[i].dso);
	}
	CHECK(find(f, 1, "capture") == 0);
	CHECK(i3 > 0 && i2 > i3 && i1 > i2 && im > i1);
	CHECK(find(f, n, "__libc_start_call_main") > im);
	struct symbolizer_stats st;
	symbolizer_get_stats(s, &st);
	CHECK(st.unwind_samples == 1 && st.unwind_root == 1);
	free(r);

	/* 64 bytes cannot hold deep1's frame: the chain says the copy was too short. */
	r = make_sample(c, 64);
	n = symbolizer_sample(s, r, f, 512);
	CHECK(n >= 2 && !strcmp(f[n - 1].sym, "[stack copy too short]"));
	CHECK(find(f, n, "main") < 0);
	free(r);
}

/* deep2's return address (into deep1) replaced by bad in the stack copy: the chain ends at deep2. */
static void test_unmapped(struct symbolizer *s, const struct captured *c, uint64_t bad, const char *what)
{
	struct frame f[512];
	struct rec *r = make_sample(c, c->len);
	int n = symbolizer_sample(s, r, f, 512);
	free(r);
	int i1 = find(f, n, "deep1");
	CHECK(i1 > 0);
	if (i1 <= 0)
		return;
	uint64_t ra = f[i1].addr + 1;
	static struct captured g;
	memcpy(&g, c, sizeof(g));
	size_t at = 0;
	for (size_t i = 0; i + 8 <= g.len && !at; i += 8) {
		uint64_t v;
		memcpy(&v, g.stack + i, 8);
		if (v == ra)
			at = i + 1;
	}
	CHECK(at != 0);
	if (!at)
		return;
	memcpy(g.stack + at - 1, &bad, 8);
	struct symbolizer_stats before, after;
	symbolizer_get_stats(s, &before);
	r = make_sample(&g, g.len);
	n = symbolizer_sample(s, r, f, 512);
	free(r);
	symbolizer_get_stats(s, &after);
	int i2 = find(f, n, "deep2"), unmapped = 0, garbage = 0;
	for (int i = 0; i < n; i++) {
		unmapped += !strcmp(f[i].sym, "[unmapped address]");
		garbage += f[i].addr == bad || f[i].addr == bad - 1;
	}
	if (!(i2 > 0 && n == i2 + 2 && unmapped == 1 && garbage == 0)) {
		fprintf(stderr, "%s:\n", what);
		for (int i = 0; i < n; i++)
			fprintf(stderr, "  #%d %s (%s) %#llx\n", i, f[i].sym, f[i].dso,
				(unsigned long long)f[i].addr);
	}
	CHECK(i2 > 0 && n == i2 + 2 && !strcmp(f[n - 1].sym, "[unmapped address]"));
	CHECK(unmapped == 1 && garbage == 0);
	CHECK(after.unwind_samples == before.unwind_samples + 1 && after.unwind_root == before.unwind_root);
}

static uint64_t rnd(uint64_t *x);

/* A function without a frame record and its caller with one, each with its CFI. */
__asm__(".text\n"
	".globl head_leaf\n.type head_leaf,@function\nhead_leaf:\n.cfi_startproc\n"
	"ret\n.cfi_endproc\n.size head_leaf,.-head_leaf\n"
	".globl head_frame\n.type head_frame,@function\nhead_frame:\n.cfi_startproc\n"
	"push %rbp\n.cfi_def_cfa_offset 16\n.cfi_offset %rbp,-16\n"
	"mov %rsp,%rbp\n.cfi_def_cfa_register %rbp\n"
	"call head_leaf\n"
	"pop %rbp\n.cfi_def_cfa %rsp,8\nret\n.cfi_endproc\n.size head_frame,.-head_frame\n");
extern char head_leaf[], head_frame[];
#define HEAD_FRAME_RET 9  /* push (1) + mov (3) + call (5): where head_leaf returns to */

/* A frame-pointer sample of this process at ip: the registers BP, SP, IP (perf's bits 6, 7, 8),
 * stack_len bytes of stack from sp, and the callchain's user part chain[0..n) after its mark. */
static struct rec *head_sample(uint64_t ip, uint64_t sp, uint64_t bp, const void *stack,
			       size_t stack_len, const uint64_t *chain, int n)
{
	uint64_t regs[3] = { bp, sp, ip };
	return sample_of(ip, regs, 3, 0x1c0, stack, stack_len, chain, n);
}

/* The names of sample r's frames, as the session gets them (symbolizer_fp_head, then named). */
static int head_names(struct symbolizer *s, const struct rec *r, const char **names, int max)
{
	struct frame f[64];
	int n = symbolizer_sample(s, symbolizer_fp_head(s, r), f, 64);
	int k = 0;
	for (int i = 0; i < n && k < max; i++)
		names[k++] = f[i].sym;
	return k;
}

static bool names_are(const char **got, int n, const char *const *want, int m)
{
	bool same = n == m;
	for (int i = 0; same && i < n; i++)
		same = got[i] && find(&(struct frame){ .sym = got[i] }, 1, want[i]) == 0;
	if (!same) {
		fprintf(stderr, "  got:");
		for (int i = 0; i < n; i++)
			fprintf(stderr, " %s", got[i]);
		fprintf(stderr, "\n");
	}
	return same;
}

static void test_fp_head(struct symbolizer *s)
{
	/* A made-up stack: head_leaf's return address at SP, then whatever; RBP is head_frame's
	 * frame record, whose caller's return addresses (deep1's, deep2's) the kernel read. */
	uint64_t stack[4] = { (uint64_t)(uintptr_t)head_frame + HEAD_FRAME_RET, 0, 0, 0 };
	uint64_t sp = 0x7ffc00001000ull, bp = 0x7ffc00001100ull;
	uint64_t leaf = (uint64_t)(uintptr_t)head_leaf, in1 = (uint64_t)(uintptr_t)deep1 + 4,
		 in2 = (uint64_t)(uintptr_t)deep2 + 4;
	const char *got[16];
	static const char *const whole[] = { "head_leaf", "head_frame", "deep1", "deep2" };
	static const char *const skipped[] = { "head_leaf", "deep1", "deep2" };

	uint64_t kernel[] = { leaf, in1, in2 };
	struct rec *r = head_sample(leaf, sp, bp, stack, sizeof(stack), kernel, 3);
	int n = head_names(s, r, got, 16);
	CHECK(names_are(got, n, whole, 4));
	free(r);

	/* The kernel read the entry's return address itself: head_frame once. */
	uint64_t probed[] = { leaf, stack[0], in1, in2 };
	r = head_sample(leaf, sp, bp, stack, sizeof(stack), probed, 4);
	n = head_names(s, r, got, 16);
	CHECK(names_are(got, n, whole, 4));
	free(r);

	/* No stack copy: nothing to step, the kernel's chain as it is. */
	r = head_sample(leaf, sp, bp, stack, 0, kernel, 3);
	n = head_names(s, r, got, 16);
	CHECK(names_are(got, n, skipped, 3));
	free(r);

	/* A sample in head_frame after its frame record is made: the kernel's chain is whole. */
	uint64_t in_frame = (uint64_t)(uintptr_t)head_frame + 4;
	uint64_t framed[] = { in_frame, in1, in2 };
	static const char *const framed_names[] = { "head_frame", "deep1", "deep2" };
	r = head_sample(in_frame, sp, bp, stack, sizeof(stack), framed, 3);
	n = head_names(s, r, got, 16);
	CHECK(names_are(got, n, framed_names, 3));
	free(r);

	/* Hostile stacks (a profiled process writes its own): words that look like return addresses
	 * into head_frame and head_leaf, random RBP: the steps stay bounded, the chain too. */
	uint64_t x = 0x2545f4914f6cdd1dull, junk[32];
	for (int iter = 0; iter < 2000; iter++) {
		for (int i = 0; i < 32; i++)
			junk[i] = rnd(&x) % 4 ? (uint64_t)(uintptr_t)head_frame + rnd(&x) % 16
					      : (uint64_t)(uintptr_t)head_leaf;
		uint64_t chain[] = { leaf, rnd(&x), in1 };
		r = head_sample(leaf, sp + rnd(&x) % 64, rnd(&x) % 2 ? bp : rnd(&x), junk, sizeof(junk),
				chain, 3);
		struct frame f[64];
		n = symbolizer_sample(s, symbolizer_fp_head(s, r), f, 64);
		CHECK(n >= 1 && n <= 3 + UNWIND_HEAD_MAX + 1);
		free(r);
	}
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void test_garbage(struct symbolizer *s, const struct captured *c)
{
	struct frame f[512];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	struct captured g;
	for (int iter = 0; iter < 3000; iter++) {
		memcpy(&g, c, sizeof(g));
		switch (iter % 3) {
		case 0:  /* random bytes on the real stack's registers */
			for (size_t i = 0; i < g.len; i += 8) {
				uint64_t v = rnd(&x);
				memcpy(g.stack + i, &v, 8);
			}
			break;
		case 1:  /* words that look like return addresses into our text, and random registers */
			for (size_t i = 0; i < g.len; i += 8) {
				uint64_t v = c->regs[8] + (rnd(&x) % 4096) - 2048;
				memcpy(g.stack + i, &v, 8);
			}
			for (int k = 0; k < NREGS; k++)
				if (k != 8 && k != 7)
					g.regs[k] = rnd(&x);
			break;
		default:  /* the real stack with random SP and IP */
			g.regs[7] += (rnd(&x) % 512) - 256;
			g.regs[8] = rnd(&x) % 2 ? rnd(&x) : c->regs[8] + (rnd(&x) % 256);
			break;
		}
		struct rec *r = make_sample(&g, g.len);
		int n = symbolizer_sample(s, r, f, 512);
		CHECK(n >= 1 && n <= UNWIND_MAX_FRAMES + 2);
		free(r);
	}
}

int main(void)
{
	static struct captured c;
	find_stack_end();
	deep1(&c);
	struct symbolizer *s = symbolizer_new();
	test_chain(s, &c);
	test_unmapped(s, &c, 0xdead00000000beefull, "non-canonical");
	test_unmapped(s, &c, 0x1008, "unmapped");
	test_user_ip_unmapped(s, &c);
	test_garbage(s, &c);
	test_fp_head(s);
	symbolizer_free(s);
	/* libunwind alone (no fast path): its steps end the same way */
	setenv("PERFTOP_UNWIND", "libunwind", 1);
	s = symbolizer_new();
	test_unmapped(s, &c, 0xdead00000000beefull, "non-canonical, libunwind");
	test_unmapped(s, &c, 0x1008, "unmapped, libunwind");
	symbolizer_free(s);
	return CHECK_DONE();
}
