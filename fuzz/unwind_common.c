/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind_common: what fuzz_unwind and fuzz_cfi share: the probe of an image's FDE table and CFI rows,
 * and what they link in place of the rest of the unwinder and the dso layer (the image and CFI
 * readers, unwind_image.c, unwind_ehframe.c and unwind_cfi.c, are fuzzed on their own, without a
 * process, a walk, .debug_frame or Go's tables).
 */
#include "symbolize/unwind_int.h"

#include "symbolize/dso.h"
#include "symbolize/gopclntab.h"

#include <stdlib.h>
#include <string.h>

#include "unwind_common.h"

static void must(int cond)
{
	if (!cond)
		abort();
}

/* The row at pc, computed twice (as a sample's IP and as a caller's): the same answer both times
 * for the same key, and a usable row only in the form the fast path reads. */
static void row_at(struct image *img, uint64_t pc)
{
	struct fast_row r = { .ok = 0 }, r2 = { .ok = 0 };
	bool found = cfi_compute(img, pc, pc, &r);
	must(cfi_compute(img, pc, pc, &r2) == found && r.ok == r2.ok);
	if (r.ok) {
		must(r.img == img && r.va == pc);
		must(r.cfa_reg == DW_RSP || r.cfa_reg == DW_RBP);
		must(r.ra_rule == RULE_OFFSET || r.ra_rule == RULE_UNDEF);
		must(r.bp_rule == RULE_NONE || r.bp_rule == RULE_SAME || r.bp_rule == RULE_OFFSET);
		must(r.cfa_off == r2.cfa_off && r.ra_off == r2.ra_off && r.bp_off == r2.bp_off);
	}
	cfi_compute(img, pc, pc + 1, &r);
	/* A span the row is said to hold for: around pc, and the same row at its ends. */
	uint64_t lo, hi;
	if (cfi_compute_span(img, pc, pc, &r, &lo, &hi) && lo < hi) {
		must(r.ok && lo <= pc && pc < hi);
		uint64_t ends[2] = { lo, hi - 1 };
		for (int i = 0; i < 2; i++) {
			must(cfi_compute(img, ends[i], ends[i], &r2) && r2.ok);
			must(r2.cfa_reg == r.cfa_reg && r2.ra_rule == r.ra_rule && r2.bp_rule == r.bp_rule);
			must(r2.cfa_off == r.cfa_off && r2.ra_off == r.ra_off && r2.bp_off == r.bp_off);
		}
	}
}

/* image_sigreturn's answer from its pages' bits is the code's own. */
static void sigreturn_at(struct image *img, uint64_t va)
{
	static const uint8_t code[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	const uint8_t *p = image_ptr(img, va, sizeof(code));
	must(image_sigreturn(img, va) == (p && memcmp(p, code, sizeof(code)) == 0));
}

void probe_image(struct image *img, const uint64_t *extra, int nextra)
{
	uint64_t count = 0, base = 0;
	const uint8_t *tab = eh_search_table(img, &count, &base);
	if (!img->ok) {
		/* a second call gives the same table */
		uint64_t again = 0;
		must((const uint8_t *)eh_table(img, &again) == tab && (!tab || again == count));
	}
	/* At every FDE's start (the first 64), just before it and inside it. */
	for (uint64_t i = 0; tab && i < count && i < 64; i++) {
		int32_t loc;
		memcpy(&loc, tab + i * 8, 4);
		uint64_t pc = (uint64_t)((int64_t)base + loc), fde;
		if (eh_find(img, pc, &fde))
			(void)image_ptr(img, fde, 4);
		row_at(img, pc);
		row_at(img, pc - 1);
		row_at(img, pc + 4);
		row_at(img, pc + 17);
		sigreturn_at(img, pc);
		sigreturn_at(img, pc + 1);
	}
	for (int i = 0; i < nextra; i++)
		row_at(img, extra[i]);
	for (int i = 0; i < img->nloads; i++) {
		uint64_t bias;
		const struct image_load *l = &img->loads[i];
		row_at(img, l->vaddr);
		sigreturn_at(img, l->vaddr);
		/* where the segment has trampolines (the first few), and around them */
		static const uint8_t code[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
		const uint8_t *seg = image_ptr(img, l->vaddr, l->filesz);
		for (const uint8_t *q = seg; q && q < seg + l->filesz;) {
			const uint8_t *t = memmem(q, (size_t)(seg + l->filesz - q), code, sizeof(code));
			if (!t || t - seg > (1 << 20))
				break;
			uint64_t va = l->vaddr + (uint64_t)(t - seg);
			must(image_sigreturn(img, va));
			sigreturn_at(img, va - 1);
			sigreturn_at(img, va + 1);
			q = t + 1;
		}
		if (image_bias(img, 0x7f0000000000ull, l->off & ~4095ull, &bias))
			(void)image_read(img, l->vaddr, &bias, sizeof(bias));
	}
}

const char *dso_file(struct dso *d) { (void)d; return NULL; }
const struct gopcln *dso_gopcln(struct dso *d) { (void)d; return NULL; }
bool gopcln_spdelta(const struct gopcln *t, uint64_t pc, int32_t *delta, unsigned *flags)
{
	(void)t, (void)pc, (void)delta, (void)flags;
	return false;
}
Dwarf_Frame *dbg_frame(struct unwind *u, struct image *img, uint64_t va)
{
	(void)u, (void)img, (void)va;
	return NULL;
}
void dbg_compact(Dwarf_Frame *f, struct fast_row *row) { (void)f, (void)row; }
struct touched *walk_touch(struct walk *w, uint64_t addr) { (void)w, (void)addr; return NULL; }
bool walk_mapped(struct walk *w, uint64_t addr) { (void)w, (void)addr; return false; }
int walk_jit_step(struct walk *w, uint64_t ip, uint64_t sp, uint64_t bp, uint64_t *ra, uint64_t *nbp,
		  uint64_t *cfa)
{
	(void)w, (void)ip, (void)sp, (void)bp, (void)ra, (void)nbp, (void)cfa;
	return -1;
}
