/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind_cfi: the fast path, our own CFI rows cached per (binary, address) and per address span,
 * and the .eh_frame reader (CIE, FDE, their instructions) it computes them with.
 *
 * libunwind re-runs a frame's CFI program (or probes its cache under a lock taken with signals
 * masked: two sigprocmask calls per step) for every frame of every sample, yet a profile's samples
 * go through a few thousand return addresses again and again. So the common case is done here: the
 * .eh_frame row for an address is computed once from the FDE (found through the same .eh_frame_hdr
 * table) and cached per (image, address) in a compact form: CFA = RSP or RBP + offset, the return
 * address and RBP saved at CFA + offset (or RBP unchanged). A walk is then a hash probe and two
 * loads from the stack copy per frame. A row holds for a span of addresses (from one advance of the
 * FDE's program to the next), so each image also keeps its rows by span: an address first seen costs
 * a binary search when a row around it is known. Anything this form cannot express (CFA or register
 * expressions, other CFA registers, signal frames, an address without an FDE, a read outside the
 * stack copy that is not just past its end) sends the whole sample to libunwind, so the chains are
 * the ones libunwind gives; the tests compare both on every sample of a recording.
 */
#include "symbolize/unwind_int.h"

#include <stdlib.h>
#include <string.h>

#include "symbolize/dso.h"
#include "symbolize/gopclntab.h"
#include "util/util.h"

#define FAST_SLOTS (1u << 16)   /* cached rows; the table starts over when 3/4 full */
#define FAST_FRONT (1u << 10)   /* the rows' copies in front of them (fast_cache.front) */
#define FAST_SPANS (1u << 14)   /* spans over all images; all are dropped past it */
#define SPAN_PENDING 32         /* new spans of an image merged into its sorted ones together */
#define FAST_STATES 8           /* DW_CFA_remember_state nesting we follow */

struct cfi_state {
	uint8_t cfa_reg, ra_rule, bp_rule, bad;
	uint8_t expr;            /* a CFA expression was evaluated (it may read the IP) */
	int64_t cfa_off, ra_off, bp_off;
};

/*
 * A DW_CFA_def_cfa_expression that is RSP + a constant at this address: the one of every PLT
 * (DW_OP_breg7 8; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_lit11; DW_OP_ge; DW_OP_lit3;
 * DW_OP_shl; DW_OP_plus: 8 or 16 by where in its 16-byte entry the IP is). Evaluated for the row's
 * own IP (rip, a file address; have_rip false in a CIE): RSP stays symbolic, and the IP may only be
 * masked down to its low bits, which a mapping's page-aligned bias does not change. Anything else
 * (memory, other registers) is no constant offset: false.
 */
static bool cfi_static_cfa(const uint8_t *p, const uint8_t *end, uint64_t rip, bool have_rip,
			   int64_t *off)
{
	enum { V_CONST, V_RSP, V_RIP };
	struct { uint8_t kind; uint64_t v; } st[16];
	int sp = 0;
	struct cfi_cursor c = { p, end, false };
	while (c.p < c.end && !c.bad) {
		uint8_t op = *c.p++;
		uint64_t n;
		if (op >= 0x30 && op <= 0x4f) {               /* lit0..lit31 */
			n = op - 0x30;
			goto push_const;
		}
		switch (op) {
		case 0x08: n = cfi_fixed(&c, 1); goto push_const;                        /* const1u */
		case 0x09: n = (uint64_t)(int64_t)(int8_t)cfi_fixed(&c, 1); goto push_const;
		case 0x0a: n = cfi_fixed(&c, 2); goto push_const;
		case 0x0b: n = (uint64_t)(int64_t)(int16_t)cfi_fixed(&c, 2); goto push_const;
		case 0x0c: n = cfi_fixed(&c, 4); goto push_const;
		case 0x0d: n = (uint64_t)(int64_t)(int32_t)cfi_fixed(&c, 4); goto push_const;
		case 0x10: n = cfi_uleb(&c); goto push_const;                             /* constu */
		case 0x11: n = (uint64_t)cfi_sleb(&c); goto push_const;                   /* consts */
		case 0x77: case 0x80:                                                     /* breg7, breg16 */
			if (sp == 16 || (op == 0x80 && !have_rip))
				return false;
			st[sp].kind = op == 0x77 ? V_RSP : V_RIP;
			st[sp].v = (uint64_t)cfi_sleb(&c) + (op == 0x80 ? rip : 0);
			sp++;
			continue;
		case 0x23:                                                                /* plus_uconst */
			if (sp < 1 || st[sp - 1].kind == V_RIP)
				return false;
			st[sp - 1].v += cfi_uleb(&c);
			continue;
		default:
			break;
		}
		/* Binary operations: constants, except RSP + constant, RSP - constant and a masked IP. */
		if (sp < 2)
			return false;
		uint8_t ka = st[sp - 2].kind, kb = st[sp - 1].kind;
		uint64_t a = st[sp - 2].v, b = st[sp - 1].v, r;
		uint8_t kind = V_CONST;
		switch (op) {
		case 0x1a:                                                                /* and */
			if (ka == V_CONST && kb == V_RIP && a < 4096) r = a & b;
			else if (ka == V_RIP && kb == V_CONST && b < 4096) r = a & b;
			else if (ka == V_CONST && kb == V_CONST) r = a & b;
			else return false;
			break;
		case 0x22:                                                                /* plus */
			if (ka == V_RIP || kb == V_RIP || (ka == V_RSP && kb == V_RSP))
				return false;
			kind = ka == V_RSP || kb == V_RSP ? V_RSP : V_CONST;
			r = a + b;
			break;
		case 0x1c:                                                                /* minus */
			if (kb != V_CONST || ka == V_RIP)
				return false;
			kind = ka;
			r = a - b;
			break;
		default:
			if (ka != V_CONST || kb != V_CONST)
				return false;
			switch (op) {
			case 0x24: r = b >= 64 ? 0 : a << b; break;                        /* shl */
			case 0x25: r = b >= 64 ? 0 : a >> b; break;                        /* shr */
			case 0x1e: r = a * b; break;                                       /* mul */
			case 0x21: r = a | b; break;                                       /* or */
			case 0x27: r = a ^ b; break;                                       /* xor */
			case 0x29: r = a == b; break;                                      /* eq */
			case 0x2a: r = (int64_t)a >= (int64_t)b; break;                    /* ge */
			case 0x2b: r = (int64_t)a > (int64_t)b; break;                     /* gt */
			case 0x2c: r = (int64_t)a <= (int64_t)b; break;                    /* le */
			case 0x2d: r = (int64_t)a < (int64_t)b; break;                     /* lt */
			case 0x2e: r = a != b; break;                                      /* ne */
			default: return false;
			}
			break;
		}
		sp--;
		st[sp - 1].kind = kind;
		st[sp - 1].v = r;
		continue;
	push_const:
		if (sp == 16)
			return false;
		st[sp].kind = V_CONST;
		st[sp].v = n;
		sp++;
	}
	if (c.bad || sp != 1 || st[0].kind != V_RSP || (int64_t)st[0].v < INT32_MIN ||
	    (int64_t)st[0].v > INT32_MAX)
		return false;
	*off = (int64_t)st[0].v;
	return true;
}

/* A factored offset times the data alignment factor, both the FDE's: a product past int64_t (a
 * hostile or corrupt FDE's) makes the row bad, libunwind's to judge, rather than overflow. */
static int64_t cfi_scaled(uint64_t v, bool is_signed, int64_t daf, struct cfi_state *st)
{
	int64_t r;
	if ((!is_signed && v > INT64_MAX) || __builtin_mul_overflow((int64_t)v, daf, &r)) {
		st->bad = 1;
		return 0;
	}
	return r;
}

/* Runs CFI instructions from c while the row's location is <= pc. rip: the frame's own IP (file
 * address), for a CFA expression that reads it (have_rip false: none known, in a CIE). Each
 * location compared with pc narrows [*lo, *hi), the addresses the run would go the same way for. */
static void cfi_run(struct cfi_cursor *c, struct cfi_state *st, const struct cfi_state *init,
		    uint64_t loc, uint64_t pc, uint64_t rip, bool have_rip, uint64_t caf, int64_t daf,
		    uint64_t *lo, uint64_t *hi)
{
	struct cfi_state stack[FAST_STATES];
	int depth = 0;
	while (c->p < c->end && !c->bad && !st->bad) {
		uint8_t op = *c->p++;
		uint8_t low = op & 0x3f;
		uint64_t reg = 0, adv = 0;
		int64_t off = 0;
		bool advance = false;
		switch (op & 0xc0) {
		case 0x40: adv = low * caf; advance = true; break;
		case 0x80: reg = low; off = cfi_scaled(cfi_uleb(c), false, daf, st); goto set_offset;
		case 0xc0: reg = low; goto restore;
		default: break;
		}
		if (!advance) {
			switch (op) {
			case 0x00: break;                                      /* nop */
			case 0x01: st->bad = 1; break;                         /* set_loc: not in gcc's .eh_frame */
			case 0x02: adv = cfi_fixed(c, 1) * caf; advance = true; break;
			case 0x03: adv = cfi_fixed(c, 2) * caf; advance = true; break;
			case 0x04: adv = cfi_fixed(c, 4) * caf; advance = true; break;
			case 0x05: reg = cfi_uleb(c); off = cfi_scaled(cfi_uleb(c), false, daf, st); goto set_offset;
			case 0x06: reg = cfi_uleb(c); goto restore;
			case 0x07: reg = cfi_uleb(c);
				if (reg == DW_RA) st->ra_rule = RULE_UNDEF;
				else if (reg == DW_RBP) st->bp_rule = RULE_UNDEF;
				else if (reg == DW_RSP) st->bad = 1;
				break;
			case 0x08: reg = cfi_uleb(c);
				if (reg == DW_RA) st->ra_rule = RULE_SAME;
				else if (reg == DW_RBP) st->bp_rule = RULE_SAME;
				break;
			case 0x09: reg = cfi_uleb(c); (void)cfi_uleb(c); goto bad_reg;
			case 0x0a:
				if (depth == FAST_STATES) { st->bad = 1; break; }
				stack[depth++] = *st;
				break;
			case 0x0b: {
				if (depth == 0) { st->bad = 1; break; }
				/* The CFA is part of the state too (DWARF 5 says so, and gcc relies on it). */
				*st = stack[--depth];
				break;
			}
			case 0x0c: st->cfa_reg = (uint8_t)cfi_uleb(c); st->cfa_off = (int64_t)cfi_uleb(c); break;
			case 0x0d: st->cfa_reg = (uint8_t)cfi_uleb(c); break;
			case 0x0e: st->cfa_off = (int64_t)cfi_uleb(c); break;
			case 0x11: reg = cfi_uleb(c); off = cfi_scaled((uint64_t)cfi_sleb(c), true, daf, st); goto set_offset;
			case 0x12: st->cfa_reg = (uint8_t)cfi_uleb(c);
				st->cfa_off = cfi_scaled((uint64_t)cfi_sleb(c), true, daf, st); break;
			case 0x13: st->cfa_off = cfi_scaled((uint64_t)cfi_sleb(c), true, daf, st); break;
			case 0x2e: (void)cfi_uleb(c); break;                   /* GNU_args_size */
			case 0x2f: reg = cfi_uleb(c); off = cfi_scaled(cfi_uleb(c), false, daf, st);
				off = off == INT64_MIN ? (st->bad = 1, 0) : -off; goto set_offset;
			case 0x10: case 0x16: /* register expressions: harmless unless RA, RBP or RSP */
				reg = cfi_uleb(c);
				{ uint64_t n = cfi_uleb(c); if ((uint64_t)(c->end - c->p) < n) c->bad = true; else c->p += n; }
				goto bad_reg;
			case 0x14: reg = cfi_uleb(c); (void)cfi_uleb(c); goto bad_reg;
			case 0x15: reg = cfi_uleb(c); (void)cfi_sleb(c); goto bad_reg;
			case 0x0f: {                                           /* def_cfa_expression */
				uint64_t n = cfi_uleb(c);
				int64_t off;
				if ((uint64_t)(c->end - c->p) < n ||
				    !cfi_static_cfa(c->p, c->p + n, rip, have_rip, &off)) {
					st->bad = 1;
					break;
				}
				c->p += n;
				st->cfa_reg = DW_RSP;
				st->cfa_off = off;
				st->expr = 1;
				break;
			}
			default: st->bad = 1; break;                            /* the unknown */
			}
		}
		if (advance) {
			if (loc + adv > pc) {
				*hi = loc + adv < *hi ? loc + adv : *hi;
				return;
			}
			loc += adv;
			*lo = loc > *lo ? loc : *lo;
		}
		continue;
	set_offset:
		if (reg == DW_RA) { st->ra_rule = RULE_OFFSET; st->ra_off = off; }
		else if (reg == DW_RBP) { st->bp_rule = RULE_OFFSET; st->bp_off = off; }
		else if (reg == DW_RSP) st->bad = 1;
		continue;
	restore:
		if (reg == DW_RA) { st->ra_rule = init->ra_rule; st->ra_off = init->ra_off; }
		else if (reg == DW_RBP) { st->bp_rule = init->bp_rule; st->bp_off = init->bp_off; }
		else if (reg == DW_RSP) st->bad = 1;
		continue;
	bad_reg:
		if (reg == DW_RA || reg == DW_RBP || reg == DW_RSP)
			st->bad = 1;
		continue;
	}
	if (c->bad)
		st->bad = 1;
}

/* The row of img's code at file address pc, computed from its .eh_frame FDE (rip: the frame's IP,
 * pc itself or, for a caller, pc + 1). False when no FDE covers pc (row->ok is then 0 too); true
 * when one does, whether or not the row fits row->ok. */
bool cfi_compute_span(struct image *img, uint64_t pc, uint64_t rip, struct fast_row *row, uint64_t *lo,
		      uint64_t *hi)
{
	row->ok = 0;
	*lo = *hi = 0;
	uint64_t fde_va, slo, shi;
	if (!eh_find_span(img, pc, &fde_va, &slo, &shi))
		return false;
	struct cfi_cursor f;
	uint64_t fbody;
	if (!cfi_record(img, fde_va, &f, &fbody))
		return true;
	const uint8_t *fstart = f.p;
	uint32_t cie_ptr = (uint32_t)cfi_fixed(&f, 4);
	if (f.bad || cie_ptr == 0 || cie_ptr > fbody)
		return true;
	struct cfi_cie cie;
	/* 'S' (a signal frame) and forms we do not know are libunwind's */
	if (!cfi_cie(img, fbody - cie_ptr, &cie) || cie.signal || cie.ra_col != DW_RA)
		return true;
	/* The FDE: its range, the augmentation data, then its instructions. */
	uint64_t field_va = fbody + (uint64_t)(f.p - fstart);
	uint64_t start = cfi_pointer(&f, cie.fde_enc, field_va, true);
	uint64_t range = cfi_pointer(&f, cie.fde_enc & 0x0f, 0, false);
	if (f.bad)
		return true;
	if (pc < start || pc - start >= range)
		return false;
	slo = start > slo ? start : slo;
	if (start + range > start && start + range < shi)
		shi = start + range;
	if (cie.z) {
		uint64_t n = cfi_uleb(&f);
		if (f.bad || (uint64_t)(f.end - f.p) < n)
			return true;
		f.p += n;
	}
	struct cfi_state st = { .cfa_reg = DW_RSP, .ra_rule = RULE_NONE, .bp_rule = RULE_NONE };
	struct cfi_cursor c = cie.insns;
	uint64_t cie_lo = 0, cie_hi = UINT64_MAX;  /* the CIE's run does not depend on pc */
	cfi_run(&c, &st, &st, start, UINT64_MAX, 0, false, cie.caf, cie.daf, &cie_lo, &cie_hi);
	struct cfi_state init = st;
	cfi_run(&f, &st, &init, start, pc, rip, true, cie.caf, cie.daf, &slo, &shi);
	if (st.bad || (st.cfa_reg != DW_RSP && st.cfa_reg != DW_RBP) ||
	    (st.ra_rule != RULE_OFFSET && st.ra_rule != RULE_UNDEF) ||
	    (st.bp_rule != RULE_NONE && st.bp_rule != RULE_SAME && st.bp_rule != RULE_OFFSET) ||
	    st.cfa_off < INT32_MIN || st.cfa_off > INT32_MAX || st.ra_off < INT32_MIN ||
	    st.ra_off > INT32_MAX || st.bp_off < INT32_MIN || st.bp_off > INT32_MAX)
		return true;
	*row = (struct fast_row){ .img = img, .va = pc, .ok = 1, .cfa_reg = st.cfa_reg,
				  .ra_rule = st.ra_rule, .bp_rule = st.bp_rule, .cfa_off = (int32_t)st.cfa_off,
				  .ra_off = (int32_t)st.ra_off, .bp_off = (int32_t)st.bp_off };
	if (!st.expr) {
		*lo = slo;
		*hi = shi;
	}
	return true;
}

bool cfi_compute(struct image *img, uint64_t pc, uint64_t rip, struct fast_row *row)
{
	uint64_t lo, hi;
	return cfi_compute_span(img, pc, rip, row, &lo, &hi);
}

/*
 * A Go function's row from its pcsp table (Go writes no .eh_frame; -ldflags=-w drops .debug_frame):
 * the CFA is SP + the table's delta + 8. Only where the caller's RBP is known for sure: the sample's
 * own frame before it has pushed anything (a frameless leaf: RBP untouched), and a caller's call
 * site in compiled Go code with a frame, which has its frame record in place (RBP saved below the
 * return address, CFA = RBP + 16). A function the table marks as a stack's top (goexit, mstart) ends
 * the chain, as Go's own traceback ends there. Elsewhere (prologues, assembly) no row.
 */
static void go_compute(struct image *img, uint64_t pc, bool first, struct fast_row *row)
{
	const struct gopcln *t = dso_gopcln(img->dso);
	int32_t delta;
	unsigned flags;
	if (!t || !gopcln_spdelta(t, pc, &delta, &flags))
		return;
	if (flags & GOPCLN_FLAG_TOPFRAME)
		*row = (struct fast_row){ .img = img, .va = pc, .ok = 1, .cfa_reg = DW_RSP,
					  .cfa_off = delta + 8, .ra_rule = RULE_UNDEF, .bp_rule = RULE_SAME };
	else if (first && delta == 0)
		*row = (struct fast_row){ .img = img, .va = pc, .ok = 1, .cfa_reg = DW_RSP, .cfa_off = 8,
					  .ra_rule = RULE_OFFSET, .ra_off = -8, .bp_rule = RULE_SAME };
	else if (!first && delta > 0 && !(flags & GOPCLN_FLAG_ASM))
		*row = (struct fast_row){ .img = img, .va = pc, .ok = 1, .cfa_reg = DW_RBP, .cfa_off = 16,
					  .ra_rule = RULE_OFFSET, .ra_off = -8, .bp_rule = RULE_OFFSET,
					  .bp_off = -16 };
}

/* The index of img's last sorted span starting at or below pc, or -1. */
static long span_find(const struct image *img, uint64_t pc)
{
	size_t lo = 0, hi = img->nsorted;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (img->spans[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

static int span_cmp(const void *a, const void *b)
{
	const struct fast_span *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The pending spans sorted and merged into the sorted ones, from the back (in place: the pending
 * ones wait in a copy). */
static void span_merge(struct image *img)
{
	struct fast_span pend[SPAN_PENDING];
	size_t np = img->nspans - img->nsorted, ns = img->nsorted;
	memcpy(pend, &img->spans[ns], np * sizeof(*pend));
	qsort(pend, np, sizeof(*pend), span_cmp);
	size_t out = ns + np;
	while (np > 0) {
		if (ns > 0 && img->spans[ns - 1].lo > pend[np - 1].lo)
			img->spans[--out] = img->spans[--ns];
		else
			img->spans[--out] = pend[--np];
	}
	img->nsorted = img->nspans;
}

/*
 * Remembers row as the one of img's addresses [lo, hi). A miss in the per-address table then costs
 * a binary search when another address of a row already computed comes (a function's other call
 * sites, the other instructions of a loop), not the FDE's search and program again. A new span
 * waits among the last few (looked through one by one) and they are merged into the sorted ones
 * together: an insertion in place moved half of an image's spans each time, a cost that grew as
 * the table filled (a slow rise of perftop's CPU over minutes of process churn).
 */
static void span_add(struct unwind *u, struct image *img, uint64_t lo, uint64_t hi,
		     const struct fast_row *row)
{
	if (u->fast.spans >= FAST_SPANS) {
		for (size_t i = 0; i < u->cap; i++)
			if (u->imgs[i])
				image_spans_free(u, u->imgs[i]);
	}
	if (img->nspans == img->spans_cap) {
		img->spans_cap = img->spans_cap ? img->spans_cap * 2 : 16;
		img->spans = xrealloc(img->spans, img->spans_cap * sizeof(*img->spans));
	}
	img->spans[img->nspans++] = (struct fast_span){ .lo = lo, .hi = hi, .cfa_reg = row->cfa_reg,
							.ra_rule = row->ra_rule, .bp_rule = row->bp_rule,
							.cfa_off = row->cfa_off, .ra_off = row->ra_off,
							.bp_off = row->bp_off };
	if (img->nspans - img->nsorted >= SPAN_PENDING)
		span_merge(img);
	u->fast.spans++;
}

/* The row of img's code at file address pc from a span already computed: false when none has it. */
static bool span_row(const struct image *img, uint64_t pc, struct fast_row *row)
{
	const struct fast_span *s = NULL;
	for (uint32_t k = img->nsorted; k < img->nspans && !s; k++)
		if (img->spans[k].lo <= pc && pc < img->spans[k].hi)
			s = &img->spans[k];
	if (!s) {
		long i = span_find(img, pc);
		if (i < 0 || pc >= img->spans[i].hi)
			return false;
		s = &img->spans[i];
	}
	*row = (struct fast_row){ .img = img, .ok = 1, .cfa_reg = s->cfa_reg, .ra_rule = s->ra_rule, .bp_rule = s->bp_rule,
				  .cfa_off = s->cfa_off, .ra_off = s->ra_off, .bp_off = s->bp_off };
	return true;
}

/* The row of img's code at file address pc: from .eh_frame, else .debug_frame, else Go's pcsp. */
static void fast_compute(struct unwind *u, struct image *img, uint64_t pc, uint64_t rip,
			 struct fast_row *row)
{
	uint64_t lo, hi;
	if (cfi_compute_span(img, pc, rip, row, &lo, &hi)) {
		if (row->ok && lo <= pc && pc < hi)
			span_add(u, img, lo, hi, row);
		return;
	}
	Dwarf_Frame *f = dbg_frame(u, img, pc);
	if (f) {
		dbg_compact(f, row);
		free(f);
		return;
	}
	go_compute(img, pc, rip == pc, row);
}

/* A caller's row is its call instruction's (the return address - 1), the first frame's its IP's: the
 * key tells them apart, as the same address may be either. */
#define FAST_CALLER (1ull << 63)

/* The cached row for the frame at file address va of img (first: the sample's own IP, else a return
 * address), computed on first use. The signal trampoline's row is never ok (libunwind's case). */
static const struct fast_row *fast_row(struct unwind *u, struct image *img, uint64_t va, bool first)
{
	struct fast_cache *fc = &u->fast;
	uint64_t key = first ? va : (va - 1) | FAST_CALLER;
	if (!fc->rows) {
		fc->rows = xcalloc_lines(FAST_SLOTS, sizeof(*fc->rows), &fc->rows_mem);
		fc->front = xcalloc_lines(FAST_FRONT, sizeof(*fc->front), &fc->front_mem);
	}
	uint64_t h = (key ^ ((uint64_t)(uintptr_t)img >> 4)) * 0x9e3779b97f4a7c15ull;
	struct fast_row *f = &fc->front[(size_t)(h >> 20) & (FAST_FRONT - 1)];
	if (f->img == img && f->va == key)
		return f;
	size_t mask = FAST_SLOTS - 1, i = (size_t)(h >> 40) & mask;
	while (fc->rows[i].img && (fc->rows[i].img != img || fc->rows[i].va != key))
		i = (i + 1) & mask;
	struct fast_row *r = &fc->rows[i];
	if (r->img) {
		*f = *r;
		return r;
	}
	if (fc->used + 1 > FAST_SLOTS / 4 * 3) {
		/* Start over: bounded memory, and a profile's hot addresses come back at once. */
		fast_clear(fc);
		i = (size_t)(h >> 40) & mask;
		r = &fc->rows[i];
	}
	uint64_t pc = first ? va : va - 1;
	if (!span_row(img, pc, r))
		fast_compute(u, img, pc, va, r);
	if (r->ok && image_sigreturn(img, va))
		r->ok = 0;
	r->img = img;
	r->va = key;
	fc->used++;
	*f = *r;
	return r;
}

/* The stack copy's 8 bytes at addr: 1 read, 0 just past the copy (a short copy), -1 elsewhere. */
static int fast_load(const struct walk *w, uint64_t addr, uint64_t *v)
{
	if (addr >= w->sp && addr - w->sp < w->stack_len && w->stack_len - (addr - w->sp) >= 8) {
		memcpy(v, w->stack + (addr - w->sp), 8);
		return 1;
	}
	return addr >= w->sp && addr - w->sp < (64u << 20) ? 0 : -1;
}

/*
 * One frame stepped by its row r, at SP sp and RBP bp: its CFA, the return address and the caller's
 * RBP (*nbp: bp unless the row saved it). fast_load's 1, 0 (just past the copy) or -1 for the
 * first read that failed; -2 when the saved RBP's slot is below the sample's SP (an epilogue
 * already popped it, which gcc does not say in the CFI: *nbp is then bp, not the caller's).
 */
static int row_step(const struct walk *w, const struct fast_row *r, uint64_t sp, uint64_t bp,
		    uint64_t *cfa, uint64_t *ra, uint64_t *nbp)
{
	*cfa = (r->cfa_reg == DW_RSP ? sp : bp) + (uint64_t)(int64_t)r->cfa_off;
	*nbp = bp;
	int k = fast_load(w, *cfa + (uint64_t)(int64_t)r->ra_off, ra);
	if (k != 1 || r->bp_rule != RULE_OFFSET)
		return k;
	uint64_t at = *cfa + (uint64_t)(int64_t)r->bp_off;
	k = fast_load(w, at, nbp);
	return k < 0 && at < w->sp ? -2 : k;
}

int fast_walk(struct walk *w, uint64_t *ips, int max, struct unwind_result *res)
{
	uint64_t ip = w->regs[UNW_X86_64_RIP], sp = w->sp;
	bool have_bp = w->have & (1u << UNW_X86_64_RBP);
	uint64_t bp = w->regs[UNW_X86_64_RBP];
	int n = 0;
	ips[n++] = ip;
	uint64_t prev_ip = ip, prev_sp = sp;
	for (bool first = true;; first = false) {
		if (n >= max) {
			res->stop = UNWIND_TOO_DEEP;
			return n;
		}
		struct touched *t = walk_touch(w, ip);
		uint64_t cfa, ra, nbp = bp;
		if (!t) {
			/* JIT code has no unwind tables; -X perf's trampolines have known frames */
			int k = walk_jit_step(w, ip, sp, bp, &ra, &nbp, &cfa);
			if (k == 0) {
				res->stop = UNWIND_SHORT_STACK;
				return n;
			}
			if (k < 0)
				return -1;
		} else {
			const struct fast_row *r = fast_row(w->u, t->img, ip - t->bias, first);
			if (!r->ok || (r->cfa_reg == DW_RBP && !have_bp))
				return -1;
			if (r->ra_rule == RULE_UNDEF)
				return n;  /* the outermost frame (_start, clone3): the end, as libunwind says */
			int k = row_step(w, r, sp, bp, &cfa, &ra, &nbp);
			if (k == 0) {
				res->stop = UNWIND_SHORT_STACK;
				return n;
			}
			if (k == -1)
				return -1;
			/* -2: the caller's RBP is unknown here, as to libunwind, which fails only if a
			 * later frame needs it: so does this walk (the CFA test above). */
			if (r->bp_rule == RULE_OFFSET)
				have_bp = k == 1;
		}
		ip = ra;
		sp = cfa;
		bp = nbp;
		if (ip == 0)
			return n;
		if (ip == prev_ip && sp == prev_sp)
			return -1;
		prev_ip = ip;
		prev_sp = sp;
		/* A return address in no mapping (or not even canonical) is no frame: the end. */
		if (!walk_mapped(w, ip - 1)) {
			res->stop = UNWIND_UNMAPPED;
			return n;
		}
		ips[n++] = ip - 1;
	}
}

/*
 * The head of a frame-pointer chain: the frames from the sample's IP up to the first one whose CFA
 * is RBP + 16 with its return address at CFA - 8 (a frame-pointer frame: the kernel's walk from the
 * sample's RBP starts at its caller). Stepped through the same cached rows as fast_walk; returns
 * the frames (ras[0] the IP, then raw return addresses), UNWIND_HEAD_COMPLETE added when an outermost
 * frame ended the chain first; 0 when the kernel's chain needs nothing or no head can be trusted.
 */
int fast_head(struct walk *w, uint64_t *ras, int max)
{
	if (!(w->have & (1u << UNW_X86_64_RBP)) || max < 2)
		return 0;
	uint64_t ip = w->regs[UNW_X86_64_RIP], sp = w->sp, bp = w->regs[UNW_X86_64_RBP];
	const uint64_t bp0 = bp;
	int n = 0;
	ras[n++] = ip;
	for (bool first = true; n < max; first = false) {
		struct touched *t = walk_touch(w, ip);
		if (!t)
			return 0;  /* JIT code, or no tables: the kernel's chain as it is */
		const struct fast_row *r = fast_row(w->u, t->img, ip - t->bias, first);
		if (!r->ok)
			return 0;
		if (r->cfa_reg == DW_RBP) {
			/* Only a standard frame record is where the kernel's walk starts, and only when
			 * the frames below it left RBP as the sample had it. */
			bool fp_frame = r->cfa_off == 16 && r->ra_rule == RULE_OFFSET && r->ra_off == -8;
			return !first && fp_frame && bp == bp0 ? n : 0;
		}
		if (r->ra_rule == RULE_UNDEF)
			return first ? 0 : n | UNWIND_HEAD_COMPLETE;
		uint64_t cfa, ra, nbp;
		if (row_step(w, r, sp, bp, &cfa, &ra, &nbp) != 1)
			return 0;
		if (ra == 0)
			return n | UNWIND_HEAD_COMPLETE;
		if (cfa <= sp || !walk_mapped(w, ra - 1))
			return 0;
		ip = ra;
		sp = cfa;
		bp = nbp;
		ras[n++] = ra;
	}
	return 0;  /* more frames without a frame pointer than we look through */
}

void fast_clear(struct fast_cache *fc)
{
	if (fc->rows) {
		memset(fc->rows, 0, FAST_SLOTS * sizeof(*fc->rows));
		memset(fc->front, 0, FAST_FRONT * sizeof(*fc->front));
	}
	fc->used = 0;
}

void fast_free(struct fast_cache *fc)
{
	free(fc->rows_mem);
	free(fc->front_mem);
	fc->rows = NULL;
	fc->rows_mem = NULL;
	fc->front = NULL;
	fc->front_mem = NULL;
	fc->used = 0;
}
