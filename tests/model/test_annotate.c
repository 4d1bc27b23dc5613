/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_annotate: the per-address histogram and the annotated document, with hand-made samples and
 * a hand-made function (instructions with lines, a source file).
 *
 * The checks: Self on the leaf address, Total on every chain address of the function (return
 * addresses one byte back, so on the call instruction), once per sample under recursion; inline
 * frames attributed to the function they were inlined into; kernel and unknown addresses skipped;
 * decay and zero; the snapshot keeping the window after end_window; the bound (addresses dropped
 * and counted); the document's placing of counts on instructions and lines, its rows for other
 * files and unknown lines, and Self summing to the function's Self.
 */
#include <stdlib.h>

#include "check.h"
#include "model/annotate.h"

static char s_app[] = "app", s_f[] = "f", s_g[] = "g", s_inl[] = "inl (inlined)",
	    s_k[] = "kfunc", s_kd[] = "[kernel.kallsyms]", s_comm[] = "app";

static struct frame fr(const char *sym, uint64_t start, uint64_t va)
{
	return (struct frame){ .sym = sym, .dso = s_app, .sym_start = start, .va = va, .addr = va };
}

static void add(struct annotate *an, uint64_t period, const struct frame *f, int n)
{
	struct sample_ctx s = { .comm = s_comm, .pid = 1, .tid = 1, .period = period, .frames = f,
				.nframes = n };
	annotate_add(an, &s);
}

static const struct an_count *at(const struct an_count *c, size_t n, uint64_t va)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].va == va)
			return &c[i];
	return NULL;
}

static void test_counts(void)
{
	struct annotate *an = annotate_new(0);
	/* f (0x1000..) calls g (0x2000..) from 0x1010 (return address 0x1015). */
	struct frame a[] = { fr(s_g, 0x2000, 0x2004), fr(s_f, 0x1000, 0x1015) };
	add(an, 10, a, 2);
	/* A leaf in f itself, under an inline frame. */
	struct frame b[] = { fr(s_inl, 0x1000, 0x1020), fr(s_f, 0x1000, 0x1020) };
	b[0].inlined = true;
	add(an, 5, b, 2);
	/* Recursion: f -> g -> f -> g from the same call site: f's 0x1014 counts once. */
	struct frame c[] = { fr(s_g, 0x2000, 0x2004), fr(s_f, 0x1000, 0x1015),
			     fr(s_g, 0x2000, 0x2009), fr(s_f, 0x1000, 0x1015) };
	add(an, 3, c, 4);
	/* Kernel and no-address frames add nothing, but count in the total. */
	struct frame d[] = { { .sym = s_k, .dso = s_kd, .va = 0xffff, .kernel = true },
			     { .sym = s_f, .dso = s_app } };
	add(an, 7, d, 2);
	CHECK_EQ_U64(annotate_total(an), 25);
	/* Interrupted in f at 0x1020 (a kernel leaf, then f's exact address):
	 * Total at 0x1020 itself, not one byte back. */
	struct frame e[] = { { .sym = s_k, .dso = s_kd, .kernel = true }, fr(s_f, 0x1000, 0x1020) };
	add(an, 4, e, 2);
	CHECK_EQ_U64(annotate_total(an), 29);

	struct an_snapshot *snap = annotate_snapshot(an);
	struct an_count *cf = NULL, *cg = NULL;
	uint64_t start = 0;
	size_t nf = an_snapshot_func(snap, s_app, s_f, &cf, &start);
	CHECK_EQ_U64(start, 0x1000);
	CHECK_EQ_U64(nf, 2);
	CHECK(cf[0].va == 0x1014 && cf[0].self == 0 && cf[0].total == 13);
	CHECK(cf[1].va == 0x1020 && cf[1].self == 5 && cf[1].total == 9);
	size_t ng = an_snapshot_func(snap, NULL, s_g, &cg, &start);
	CHECK_EQ_U64(ng, 2);
	CHECK(at(cg, ng, 0x2004) && at(cg, ng, 0x2004)->self == 13 && at(cg, ng, 0x2004)->total == 13);
	CHECK(at(cg, ng, 0x2008) && at(cg, ng, 0x2008)->self == 0 && at(cg, ng, 0x2008)->total == 3);
	free(cf);
	free(cg);

	/* The snapshot keeps the window; the live histogram decays, then zeroes. */
	annotate_end_window(an, false);
	CHECK_EQ_U64(annotate_total(an), 29 * 7 / 8);
	nf = an_snapshot_func(snap, s_app, s_f, &cf, &start);
	CHECK(nf == 2 && cf[1].self == 5);
	free(cf);
	an_snapshot_free(snap);
	snap = annotate_snapshot(an);
	nf = an_snapshot_func(snap, s_app, s_f, &cf, &start);
	CHECK(nf == 2 && cf[0].total == 13 * 7 / 8 && cf[1].self == 5 * 7 / 8 && cf[1].total == 9 * 7 / 8);
	free(cf);
	an_snapshot_free(snap);
	annotate_end_window(an, true);
	CHECK_EQ_U64(annotate_total(an), 0);
	CHECK_EQ_U64(annotate_addrs(an), 0);
	annotate_free(an);
}

static void test_bound(void)
{
	struct annotate *an = annotate_new(16);
	for (uint64_t i = 0; i < 40; i++) {
		struct frame f = fr(s_f, 0x1000, 0x1000 + i);
		add(an, 2, &f, 1);
	}
	CHECK_EQ_U64(annotate_addrs(an), 16);
	CHECK_EQ_U64(annotate_dropped(an), 48);
	/* A known address still counts when full. */
	struct frame f = fr(s_f, 0x1000, 0x1000);
	add(an, 2, &f, 1);
	struct an_snapshot *snap = annotate_snapshot(an);
	struct an_count *c;
	uint64_t start;
	size_t n = an_snapshot_func(snap, s_app, s_f, &c, &start);
	CHECK(n == 16 && c[0].self == 4);
	free(c);
	an_snapshot_free(snap);
	annotate_free(an);
}

static void test_doc(void)
{
	static const char *src[] = { "int f(int x)", "{", "\tint y = x * 2;", "\treturn g(y);",
				     "}" };
	/* Lines 2-4 of f.c, an instruction inlined from h.h:7, one without a line. */
	struct an_insn insns[] = {
		{ 0x1000, 4, "push rbp", "/src/f.c", 2 },
		{ 0x1004, 3, "lea eax, [rdi + rdi]", "/src/f.c", 3 },
		{ 0x1007, 5, "add eax, 1", "/src/h.h", 7 },
		{ 0x100c, 5, "call g", "/src/f.c", 4 },
		{ 0x1011, 1, "nop", NULL, 0 },
		{ 0x1012, 1, "ret", "/src/f.c", 4 },
	};
	struct an_code code = { .insns = insns, .ninsns = 6, .file = "/src/f.c", .src = src, .nsrc = 5 };
	struct an_count counts[] = {
		{ 0x1005, 6, 6 },   /* inside the lea */
		{ 0x1008, 2, 2 },   /* the inlined add */
		{ 0x1010, 0, 9 },   /* the call's return address - 1 */
		{ 0x1012, 1, 1 },
		{ 0x2000, 3, 3 },   /* outside the code: unplaced */
	};
	struct an_doc *d = annotate_doc(&code, counts, 5, 100);
	CHECK_EQ_U64(d->ninsn, 6);
	CHECK_EQ_U64(d->insn[1].self, 6);
	CHECK_EQ_U64(d->insn[2].self, 2);
	CHECK_EQ_U64(d->insn[3].total, 9);
	CHECK_EQ_U64(d->insn[5].self, 1);
	CHECK_EQ_U64(d->self, 12);
	CHECK_EQ_U64(d->unplaced, 3);
	/* Rows: f.c lines 2..4, then h.h:7, then the unknown line. */
	CHECK_EQ_U64(d->nsrc, 5);
	CHECK(d->src[0].line == 2 && d->src[0].text && !strcmp(d->src[0].text, "{"));
	CHECK(d->src[1].line == 3 && d->src[1].self == 6);
	CHECK(d->src[2].line == 4 && d->src[2].self == 1 && d->src[2].total == 10);
	CHECK(d->src[3].line == 7 && !strcmp(d->src[3].file, "/src/h.h") && d->src[3].self == 2);
	CHECK(d->src[4].line == 0 && d->src[4].self == 0);
	CHECK(d->insn[2].src == 3 && d->insn[4].src == 4 && d->insn[5].src == 2);
	uint64_t sum = 0;
	for (size_t i = 0; i < d->nsrc; i++)
		sum += d->src[i].self;
	CHECK_EQ_U64(sum + d->unplaced, d->self);
	annotate_doc_free(d);

	/* The signature just above the body is shown from its line on. */
	code.decl_line = 1;
	d = annotate_doc(&code, counts, 5, 100);
	CHECK(d->nsrc == 6 && d->src[0].line == 1 && !strcmp(d->src[0].text, "int f(int x)"));
	CHECK(d->insn[1].src == 2 && d->src[2].self == 6);
	annotate_doc_free(d);

	/* No code: the error, no rows. */
	struct an_code none = { .err = "[kernel.kallsyms]: no code" };
	d = annotate_doc(&none, counts, 2, 100);
	CHECK(d->ninsn == 0 && d->nsrc == 0 && !strcmp(d->err, "[kernel.kallsyms]: no code"));
	CHECK_EQ_U64(d->unplaced, 8);
	annotate_doc_free(d);
}

int main(void)
{
	test_counts();
	test_bound();
	test_doc();
	return CHECK_DONE();
}
