/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind_ehframe: the .eh_frame reader the fast path and libunwind's lookups share: its encoded
 * values, records and CIEs, and the search of an image's FDEs by address.
 *
 * A binary linked with --eh-frame-hdr (every dynamic one, and PIEs) carries .eh_frame_hdr, a table
 * of (initial location, FDE) pairs sorted by location that a lookup binary-searches. GCC links
 * -static executables without it (its specs pass --eh-frame-hdr only when not -static), so their
 * .eh_frame has no index: found through the section headers (unwind_image.c), its FDEs are read once,
 * on the first lookup in that image, into a table of the same form in our memory, bounded by the
 * section's size. The fast path (unwind_cfi.c) searches either; libunwind is handed the built one at
 * a reserved address its reads of that lookup are served from (unwind_access.c).
 */
#include "symbolize/unwind_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"


uint64_t cfi_uleb(struct cfi_cursor *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; c->p < c->end; shift += 7) {
		uint8_t b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

int64_t cfi_sleb(struct cfi_cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	for (;;) {
		if (c->p >= c->end) {
			c->bad = true;
			return 0;
		}
		uint8_t b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~0ull << shift;
			return (int64_t)v;
		}
	}
}

uint64_t cfi_fixed(struct cfi_cursor *c, unsigned n)
{
	if ((size_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

/* A pointer in encoding enc at file virtual address va (the field's own, for pc-relative values).
 * Only what .eh_frame uses for code addresses; anything else marks the cursor bad. */
uint64_t cfi_pointer(struct cfi_cursor *c, uint8_t enc, uint64_t va, bool apply)
{
	uint64_t v;
	switch (enc & 0x0f) {
	case 0x00: v = cfi_fixed(c, 8); break;
	case 0x01: v = cfi_uleb(c); break;
	case 0x02: v = cfi_fixed(c, 2); break;
	case 0x03: v = cfi_fixed(c, 4); break;
	case 0x04: v = cfi_fixed(c, 8); break;
	case 0x09: v = (uint64_t)cfi_sleb(c); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)cfi_fixed(c, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)cfi_fixed(c, 4); break;
	case 0x0c: v = cfi_fixed(c, 8); break;
	default: c->bad = true; return 0;
	}
	if (!apply)
		return v;
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v += va; break;
	default: c->bad = true; break;
	}
	return v;
}

/* One CFI record (CIE or FDE) at va: its content after the length, and the va of that content. */
bool cfi_record(const struct image *img, uint64_t va, struct cfi_cursor *c, uint64_t *body_va)
{
	const uint8_t *p = image_ptr(img, va, 4);
	if (!p)
		return false;
	uint32_t len32;
	memcpy(&len32, p, 4);
	if (len32 == 0 || len32 >= 0xfffffff0u)  /* terminator, or the 64-bit form .eh_frame never uses */
		return false;
	const uint8_t *b = image_ptr(img, va + 4, len32);
	if (!b)
		return false;
	*c = (struct cfi_cursor){ b, b + len32, false };
	*body_va = va + 4;
	return true;
}


bool cfi_cie(const struct image *img, uint64_t va, struct cfi_cie *cie)
{
	struct cfi_cursor c;
	uint64_t body;
	if (!cfi_record(img, va, &c, &body))
		return false;
	/* id 0, version, augmentation, alignment factors, return address column */
	uint32_t id = (uint32_t)cfi_fixed(&c, 4);
	uint8_t version = (uint8_t)cfi_fixed(&c, 1);
	if (c.bad || id != 0 || (version != 1 && version != 3))
		return false;
	const char *aug = (const char *)c.p;
	size_t auglen = strnlen(aug, (size_t)(c.end - c.p));
	if (auglen == (size_t)(c.end - c.p))
		return false;
	c.p += auglen + 1;
	if (aug[0] && aug[0] != 'z')
		return false;  /* "eh" and other old forms */
	*cie = (struct cfi_cie){ .z = aug[0] == 'z' };
	cie->caf = cfi_uleb(&c);
	cie->daf = cfi_sleb(&c);
	cie->ra_col = version == 1 ? cfi_fixed(&c, 1) : cfi_uleb(&c);
	if (cie->z) {
		uint64_t n = cfi_uleb(&c);
		if (c.bad || (uint64_t)(c.end - c.p) < n)
			return false;
		struct cfi_cursor a = { c.p, c.p + n, false };
		c.p += n;
		for (const char *k = aug + 1; *k; k++) {
			if (*k == 'R') {
				cie->fde_enc = (uint8_t)cfi_fixed(&a, 1);
			} else if (*k == 'P') {
				uint8_t pe = (uint8_t)cfi_fixed(&a, 1);
				(void)cfi_pointer(&a, pe, 0, false);
			} else if (*k == 'L') {
				(void)cfi_fixed(&a, 1);
			} else if (*k == 'S') {
				cie->signal = true;
			} else {
				return false;  /* unknown: its data cannot be skipped */
			}
		}
		if (a.bad)
			return false;
	}
	if (c.bad)
		return false;
	cie->insns = c;
	return true;
}

/* The CIEs the table builder has read, by address: a binary has a few, shared by many FDEs. */
#define EH_CIES 16

/* A built table's pair, as .eh_frame_hdr's: both relative to the table's base. */
struct eh_pair {
	int32_t loc, fde;
};

static int eh_pair_cmp(const void *a, const void *b)
{
	int32_t x = ((const struct eh_pair *)a)->loc, y = ((const struct eh_pair *)b)->loc;
	return (x > y) - (x < y);
}

/* img->ehf_tab from its .eh_frame: each FDE whose CIE and location we can read, sorted. Records are
 * walked by their lengths; one that does not fit the section ends the walk (what was read stays). */
static void eh_build(struct image *img)
{
	img->ehf_built = true;
	uint64_t base = img->ehf_vaddr, size = img->ehf_size;
	const uint8_t *sec = image_ptr(img, base, size);
	if (!sec)
		return;
	struct { uint64_t va; uint8_t enc; bool ok; } cies[EH_CIES] = { { 0 } };
	struct eh_pair *tab = NULL;
	size_t n = 0, cap = 0;
	uint64_t off = 0;
	while (size - off >= 8) {
		uint32_t len;
		memcpy(&len, sec + off, 4);
		if (len == 0) {  /* a terminator; a linker may have left one inside */
			off += 4;
			continue;
		}
		if (len >= 0xfffffff0u || len > size - off - 4)
			break;  /* the 64-bit form .eh_frame never uses, or a record past the section */
		uint64_t rec = off;
		off += 4 + (uint64_t)len;
		if (len < 4)
			continue;
		uint32_t id;
		memcpy(&id, sec + rec + 4, 4);
		/* An FDE: id is the distance back to its CIE from the id field itself. */
		if (id == 0 || id > rec + 4)
			continue;
		uint64_t cie_va = base + rec + 4 - id;
		unsigned slot = (unsigned)((cie_va >> 2) % EH_CIES);
		if (cies[slot].va != cie_va) {
			struct cfi_cie cie = { .fde_enc = 0 };
			cies[slot].va = cie_va;
			cies[slot].ok = cfi_cie(img, cie_va, &cie);
			cies[slot].enc = cie.fde_enc;
		}
		if (!cies[slot].ok)
			continue;
		struct cfi_cursor c = { sec + rec + 8, sec + rec + 4 + len, false };
		uint64_t loc = cfi_pointer(&c, cies[slot].enc, base + rec + 8, true);
		uint64_t range = cfi_pointer(&c, cies[slot].enc & 0x0f, 0, false);
		if (c.bad || range == 0)
			continue;
		int64_t rel_loc = (int64_t)(loc - base), rel_fde = (int64_t)rec;
		if (rel_loc < INT32_MIN || rel_loc > INT32_MAX || rel_fde > INT32_MAX)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			tab = xrealloc(tab, cap * sizeof(*tab));
		}
		tab[n++] = (struct eh_pair){ (int32_t)rel_loc, (int32_t)rel_fde };
	}
	if (!n) {
		free(tab);
		return;
	}
	qsort(tab, n, sizeof(*tab), eh_pair_cmp);
	img->ehf_tab = (int32_t *)tab;
	img->ehf_count = n;
}

const int32_t *eh_table(struct image *img, uint64_t *count)
{
	if (img->ok || !img->ehf_size)
		return NULL;
	if (!img->ehf_built)
		eh_build(img);
	*count = img->ehf_count;
	return img->ehf_tab;
}

const uint8_t *eh_search_table(struct image *img, uint64_t *count, uint64_t *base)
{
	if (img->ok) {
		*count = img->fde_count;
		*base = img->hdr_vaddr;
		return image_ptr(img, img->table_vaddr, *count * 8);
	}
	*base = img->ehf_vaddr;
	return (const uint8_t *)eh_table(img, count);
}

bool eh_find_span(struct image *img, uint64_t pc, uint64_t *fde_va, uint64_t *span_lo,
		  uint64_t *span_hi)
{
	uint64_t count, base;
	const uint8_t *tab = eh_search_table(img, &count, &base);
	if (!tab || !count)
		return false;
	/* sdata4 pairs relative to base, sorted by location: the last one at or below pc. Every
	 * location compared narrows the span of addresses the search would take the same way for. */
	size_t lo = 0, hi = count;
	uint64_t slo = 0, shi = UINT64_MAX;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int32_t loc;
		memcpy(&loc, tab + mid * 8, 4);
		uint64_t at = (uint64_t)((int64_t)base + loc);
		if (at <= pc) {
			lo = mid + 1;
			slo = at > slo ? at : slo;
		} else {
			hi = mid;
			shi = at < shi ? at : shi;
		}
	}
	if (lo == 0)
		return false;
	int32_t fde_rel;
	memcpy(&fde_rel, tab + (lo - 1) * 8 + 4, 4);
	*fde_va = (uint64_t)((int64_t)base + fde_rel);
	*span_lo = slo;
	*span_hi = shi;
	return true;
}

bool eh_find(struct image *img, uint64_t pc, uint64_t *fde_va)
{
	uint64_t lo, hi;
	return eh_find_span(img, pc, fde_va, &lo, &hi);
}
