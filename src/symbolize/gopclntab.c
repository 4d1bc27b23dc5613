/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gopclntab: Go's pc-line table, decoded from the documented layouts (golang.org/s/go12symtab and
 * the runtime's pcHeader, _func and inlinedCall of each release).
 *
 * Every read goes through tab_ok / img_at, which check the range against what the image holds, so a
 * damaged or hostile table costs a name or a line, never a read out of bounds. The pc-value tables
 * are walked one varint pair at a time, each consuming at least two bytes of the table, so a walk
 * ends within the section whatever the deltas say; inline chains are cut at GOPCLN_MAX_DEPTH and
 * revisiting an inline-tree entry ends them. Nothing is allocated but the table's own small struct.
 */
#include "symbolize/gopclntab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define GOPCLN_NAME_MAX 4096        /* a longer name (or none NUL-terminated) is damage */
#define GOPCLN_INL_MAX (1u << 20)   /* inline-tree entries per function, as the runtime bounds them */
#define GOPCLN_SCAN_MAX (256ull << 20)  /* bytes of data searched for moduledata */

struct gopcln {
	struct gopcln_image img;
	const uint8_t *tab;     /* the section's bytes */
	uint64_t size;
	int ver;
	unsigned quantum, ptrsize;
	uint64_t nfunc;
	uint64_t functab;       /* offsets into tab */
	unsigned fsz;           /* functab field size: 4 from 1.18, else the pointer size */
	uint64_t funcdata;      /* what a functab entry's func offset is relative to */
	uint64_t names, cutab, filetab, pctab;
	uint64_t nfiletab;      /* Go 1.2's file table length (entries) */
	uint64_t text;          /* code base (1.18+: entries are offsets from it) */
	uint64_t gofunc;        /* 1.18+: the base of funcdata offsets; 0: not found */
	unsigned base;          /* offset of _func's nameoff (after the entry field) */
	unsigned fixed;         /* _func's fixed size; pcdata follows */
};

/* ---- bounded reads ---- */

static bool tab_ok(const struct gopcln *t, uint64_t off, uint64_t len)
{
	return off <= t->size && len <= t->size - off;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static uint64_t leword(const uint8_t *p, unsigned size)
{
	return size == 4 ? le32(p) : le64(p);
}

/* u32 / pointer-size word at tab offset off; false when it is not inside the table. */
static bool tab_u32(const struct gopcln *t, uint64_t off, uint32_t *v)
{
	if (!tab_ok(t, off, 4))
		return false;
	*v = le32(t->tab + off);
	return true;
}

static bool tab_word(const struct gopcln *t, uint64_t off, unsigned size, uint64_t *v)
{
	if (!tab_ok(t, off, size))
		return false;
	*v = leword(t->tab + off, size);
	return true;
}

/* The image's bytes [vaddr, vaddr + len), or NULL when no segment holds them all. */
static const uint8_t *img_at(const struct gopcln_image *img, uint64_t vaddr, uint64_t len)
{
	for (size_t i = 0; i < img->nsegs; i++) {
		const struct gopcln_seg *s = &img->segs[i];
		if (vaddr < s->vaddr || vaddr - s->vaddr > s->size || len > s->size - (vaddr - s->vaddr))
			continue;
		uint64_t off = s->off + (vaddr - s->vaddr);
		if (off < s->off || off > img->size || len > img->size - off)
			return NULL;
		return img->file + off;
	}
	return NULL;
}

/* A pointer stored at vaddr: a RELATIVE relocation's value there (position-independent binaries keep
 * zeros in the file), else the bytes. */
static bool img_ptr(const struct gopcln *t, uint64_t vaddr, uint64_t *v)
{
	const struct gopcln_image *img = &t->img;
	size_t lo = 0, hi = img->nrels;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (img->rel_off[mid] < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < img->nrels && img->rel_off[lo] == vaddr) {
		*v = img->rel_val[lo];
		return true;
	}
	if (vaddr >= img->pcln_vaddr && vaddr - img->pcln_vaddr < t->size)
		return tab_word(t, vaddr - img->pcln_vaddr, t->ptrsize, v);
	const uint8_t *p = img_at(img, vaddr, t->ptrsize);
	if (!p)
		return false;
	*v = leword(p, t->ptrsize);
	return true;
}

/* The NUL-terminated string at tab offset off, or NULL. */
static const char *tab_str(const struct gopcln *t, uint64_t off)
{
	if (off >= t->size)
		return NULL;
	uint64_t room = t->size - off;
	const void *nul = memchr(t->tab + off, 0, room < GOPCLN_NAME_MAX ? room : GOPCLN_NAME_MAX);
	return nul ? (const char *)t->tab + off : NULL;
}

/* ---- the function table ---- */

static bool ft_pc(const struct gopcln *t, uint64_t i, uint64_t *pc)
{
	uint64_t v;
	if (!tab_word(t, t->functab + 2 * i * t->fsz, t->fsz, &v))
		return false;
	*pc = t->ver >= GOPCLN_GO118 ? v + t->text : v;
	return true;
}

/* Tab offset of function i's _func, checked to hold its fixed part. */
static bool ft_func(const struct gopcln *t, uint64_t i, uint64_t *fn)
{
	uint64_t off;
	if (!tab_word(t, t->functab + (2 * i + 1) * t->fsz, t->fsz, &off) || off > t->size - t->funcdata)
		return false;
	*fn = t->funcdata + off;
	return tab_ok(t, *fn, t->fixed);
}

static const char *func_name_at(const struct gopcln *t, uint32_t nameoff)
{
	return tab_str(t, (t->ver == GOPCLN_GO12 ? 0 : t->names) + (uint64_t)nameoff);
}

/* _func field k (0 nameoff, 3 pcsp, 4 pcfile, 5 pcln, 6 npcdata, 7 cuOffset): u32s after the entry. */
static uint32_t fn_field(const struct gopcln *t, uint64_t fn, unsigned k)
{
	static const unsigned at[] = { 0, 4, 8, 12, 16, 20, 24, 28 };
	return le32(t->tab + fn + t->base + at[k]);  /* inside the fixed part ft_func checked */
}

enum { F_NAME = 0, F_PCSP = 3, F_PCFILE = 4, F_PCLN = 5, F_NPCDATA = 6, F_CU = 7 };

static bool find_func(const struct gopcln *t, uint64_t pc, uint64_t *idx);

/* ---- pc-value tables ---- */

static bool varint(const uint8_t **pp, const uint8_t *end, uint32_t *v)
{
	uint32_t r = 0;
	for (unsigned shift = 0; shift < 35; shift += 7) {
		if (*pp >= end)
			return false;
		uint8_t b = *(*pp)++;
		r |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return true;
		}
	}
	return false;
}

/* The value table rel (an offset into the pc tables) gives target in the function at entry. */
static bool pcvalue(const struct gopcln *t, uint32_t rel, uint64_t entry, uint64_t target, int32_t *out)
{
	uint64_t off = (t->ver == GOPCLN_GO12 ? 0 : t->pctab) + (uint64_t)rel;
	if (!rel || off >= t->size || target < entry)
		return false;
	const uint8_t *p = t->tab + off, *end = t->tab + t->size;
	uint32_t val = (uint32_t)-1;
	uint64_t pc = entry;
	for (bool first = true;; first = false) {
		uint32_t uv, dpc;
		if (!varint(&p, end, &uv) || (uv == 0 && !first) || !varint(&p, end, &dpc))
			return false;
		val += (uv & 1) ? ~(uv >> 1) : (uv >> 1);
		pc += (uint64_t)dpc * t->quantum;
		if (target < pc) {
			*out = (int32_t)val;
			return true;
		}
	}
}

static const char *file_name(const struct gopcln *t, uint64_t fn, int32_t fno)
{
	uint32_t off;
	if (t->ver == GOPCLN_GO12) {
		if (fno <= 0 || (uint64_t)fno >= t->nfiletab || !tab_u32(t, t->filetab + 4 * (uint64_t)fno, &off))
			return NULL;
		return tab_str(t, off);
	}
	if (fno < 0)
		return NULL;
	uint64_t idx = (uint64_t)fn_field(t, fn, F_CU) + (uint64_t)fno;
	if (!tab_u32(t, t->cutab + 4 * idx, &off) || off == UINT32_MAX)
		return NULL;
	return tab_str(t, t->filetab + off);
}

static void file_line(const struct gopcln *t, uint64_t fn, uint64_t entry, uint64_t pc,
		      struct gopcln_frame *f)
{
	int32_t v;
	f->file = pcvalue(t, fn_field(t, fn, F_PCFILE), entry, pc, &v) ? file_name(t, fn, v) : NULL;
	f->line = pcvalue(t, fn_field(t, fn, F_PCLN), entry, pc, &v) && v > 0 ? v : 0;
}

/* ---- the header ---- */

static bool fail(char *why, size_t len, const char *msg)
{
	if (why && len)
		snprintf(why, len, "%s", msg);
	return false;
}

/* Tab offset word w of the header (after magic, pads, quantum and pointer size). */
static bool hdr_word(const struct gopcln *t, unsigned w, uint64_t *v)
{
	return tab_word(t, 8 + (uint64_t)w * t->ptrsize, t->ptrsize, v);
}

static bool hdr_tables(struct gopcln *t, char *why, size_t len)
{
	uint64_t w[8] = { 0 };
	unsigned nw = t->ver == GOPCLN_GO12 ? 1 : t->ver == GOPCLN_GO116 ? 7 : 8;
	for (unsigned i = 0; i < nw; i++)
		if (!hdr_word(t, i, &w[i]))
			return fail(why, len, "header past the section's end");
	t->nfunc = w[0];
	if (t->ver == GOPCLN_GO12) {
		t->functab = 8 + t->ptrsize;
		t->fsz = t->ptrsize;
		t->funcdata = t->names = t->pctab = 0;
	} else {
		unsigned o = t->ver == GOPCLN_GO116 ? 2 : 3;  /* 1.18 put textStart before the offsets */
		t->names = w[o];
		t->cutab = w[o + 1];
		t->filetab = w[o + 2];
		t->pctab = w[o + 3];
		t->functab = t->funcdata = w[o + 4];
		t->fsz = t->ver >= GOPCLN_GO118 ? 4 : t->ptrsize;
		for (unsigned i = o; i < o + 5; i++)
			if (w[i] >= t->size)
				return fail(why, len, "a table offset is past the section's end");
	}
	/* (2 * nfunc + 1) entries of fsz bytes must fit: checked by division, nfunc is the file's word */
	uint64_t room = t->functab <= t->size ? t->size - t->functab : 0;
	if (room < t->fsz || t->nfunc == 0 || t->nfunc > (room / t->fsz - 1) / 2)
		return fail(why, len, "function count larger than the section holds");
	if (t->ver == GOPCLN_GO12) {
		uint32_t ft, n;
		if (!tab_u32(t, t->functab + (2 * t->nfunc + 1) * t->fsz, &ft) || !tab_u32(t, ft, &n) ||
		    !tab_ok(t, ft, 4ull * n))
			return fail(why, len, "file table past the section's end");
		t->filetab = ft;
		t->nfiletab = n;
	}
	if (t->ver >= GOPCLN_GO118) {
		/* The header's textStart is relocated in a PIE (a RELATIVE relocation, zero in the file). */
		uint64_t text = 0;
		if (!img_ptr(t, t->img.pcln_vaddr + 8 + 2ull * t->ptrsize, &text) || !text)
			text = t->img.text_vaddr;
		t->text = text;
	}
	return true;
}

/* moduledata, the runtime's record of the module: its first word points to the header, its
 * funcnametab slice to the name table and its text word is the code base; gofunc, the base of 1.18+
 * funcdata offsets, is a few words further (two more from 1.20, which added covctrs/ecovctrs). */
static bool moduledata_at(struct gopcln *t, uint64_t md)
{
	uint64_t names, text, gofunc, ps = t->ptrsize;
	unsigned gi = t->ver >= GOPCLN_GO120 ? 40 : 38;
	if (!img_ptr(t, md + ps, &names) || names != t->img.pcln_vaddr + t->names ||
	    !img_ptr(t, md + 22 * ps, &text) || text != t->text || !img_ptr(t, md + gi * ps, &gofunc) || !gofunc)
		return false;
	t->gofunc = gofunc;
	return true;
}

static void find_moduledata(struct gopcln *t)
{
	const struct gopcln_image *img = &t->img;
	for (size_t i = 0; i < img->nrels; i++)
		if (img->rel_val[i] == img->pcln_vaddr && moduledata_at(t, img->rel_off[i]))
			return;
	uint64_t n = img->data_size < GOPCLN_SCAN_MAX ? img->data_size : GOPCLN_SCAN_MAX;
	const uint8_t *p = n ? img_at(img, img->data_vaddr, n) : NULL;
	if (!p)
		return;
	uint64_t skip = (t->ptrsize - img->data_vaddr % t->ptrsize) % t->ptrsize;
	for (uint64_t off = skip; off + t->ptrsize <= n; off += t->ptrsize)
		if (leword(p + off, t->ptrsize) == img->pcln_vaddr && moduledata_at(t, img->data_vaddr + off))
			return;
}

struct gopcln *gopcln_open(const struct gopcln_image *img, char *why, size_t len)
{
	if (img->pcln_off > img->size || img->pcln_size > img->size - img->pcln_off || img->pcln_size < 16) {
		fail(why, len, "section past the end of the file");
		return NULL;
	}
	const uint8_t *h = img->file + img->pcln_off;
	static const struct { uint32_t magic; int ver; } magics[] = {
		{ 0xfffffffb, GOPCLN_GO12 }, { 0xfffffffa, GOPCLN_GO116 },
		{ 0xfffffff0, GOPCLN_GO118 }, { 0xfffffff1, GOPCLN_GO120 },
	};
	int ver = 0;
	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
		if (le32(h) == magics[i].magic)
			ver = magics[i].ver;
	if (!ver) {
		fail(why, len, "unknown magic (not a Go 1.2+ little-endian table)");
		return NULL;
	}
	if (h[4] || h[5] || (h[6] != 1 && h[6] != 2 && h[6] != 4) || (h[7] != 4 && h[7] != 8)) {
		fail(why, len, "bad header (quantum or pointer size)");
		return NULL;
	}
	struct gopcln *t = xcalloc(1, sizeof(*t));
	t->img = *img;
	t->tab = h;
	t->size = img->pcln_size;
	t->ver = ver;
	t->quantum = h[6];
	t->ptrsize = h[7];
	t->base = ver >= GOPCLN_GO118 ? 4 : t->ptrsize;
	t->fixed = t->base + (ver == GOPCLN_GO12 ? 32 : ver == GOPCLN_GO120 ? 40 : 36);
	if (!hdr_tables(t, why, len)) {
		free(t);
		return NULL;
	}
	/* The bisection needs the entries in order; the runtime's own lookup does too. */
	uint64_t prev = 0;
	for (uint64_t i = 0; i <= t->nfunc; i++) {
		uint64_t pc;
		if (!ft_pc(t, i, &pc) || pc < prev) {
			fail(why, len, "function table out of order");
			free(t);
			return NULL;
		}
		prev = pc;
	}
	if (ver >= GOPCLN_GO118)
		find_moduledata(t);
	return t;
}

void gopcln_free(struct gopcln *t)
{
	free(t);
}

int gopcln_version(const struct gopcln *t) { return t->ver; }
size_t gopcln_count(const struct gopcln *t) { return (size_t)t->nfunc; }

bool gopcln_has_inlines(const struct gopcln *t)
{
	return t->ver < GOPCLN_GO118 || t->gofunc;
}

bool gopcln_func(const struct gopcln *t, size_t i, uint64_t *entry, uint64_t *end, const char **name)
{
	uint64_t fn;
	if (i >= t->nfunc || !ft_pc(t, i, entry) || !ft_pc(t, i + 1, end) || !ft_func(t, i, &fn))
		return false;
	*name = func_name_at(t, fn_field(t, fn, F_NAME));
	return *name && *end > *entry;
}

unsigned gopcln_func_flags(const struct gopcln *t, size_t i)
{
	uint64_t fn;
	/* funcID, flag, pad, nfuncdata end the fixed part; Go 1.16's pad held no flags yet (zero) */
	return i < t->nfunc && ft_func(t, i, &fn) && t->ver != GOPCLN_GO12 ? t->tab[fn + t->fixed - 3] : 0;
}

bool gopcln_spdelta(const struct gopcln *t, uint64_t pc, int32_t *delta, unsigned *flags)
{
	uint64_t i, fn, entry;
	if (!find_func(t, pc, &i) || !ft_pc(t, i, &entry) || !ft_func(t, i, &fn) ||
	    !pcvalue(t, fn_field(t, fn, F_PCSP), entry, pc, delta) || *delta < 0)
		return false;
	*flags = gopcln_func_flags(t, (size_t)i);
	return true;
}

/* ---- inline trees ---- */

/* Where function fn's inline tree is (its FUNCDATA_InlTree) and the tab-relative offset of its
 * PCDATA_InlTreeIndex table; false when it has none. */
static bool inl_tree(const struct gopcln *t, uint64_t fn, uint64_t *tree, uint32_t *index)
{
	enum { PCDATA_INLTREEINDEX = 2, FUNCDATA_INLTREE = 3 };
	uint32_t npcdata = fn_field(t, fn, F_NPCDATA);
	uint8_t nfuncdata = t->tab[fn + t->fixed - 1];
	if (npcdata <= PCDATA_INLTREEINDEX || nfuncdata <= FUNCDATA_INLTREE ||
	    !tab_u32(t, fn + t->fixed + 4ull * PCDATA_INLTREEINDEX, index) || !*index)
		return false;
	uint64_t fd = fn + t->fixed + 4ull * npcdata;  /* the funcdata follow the pcdata offsets */
	if (t->ver >= GOPCLN_GO118) {
		uint32_t off;
		if (!t->gofunc || !tab_u32(t, fd + 4ull * FUNCDATA_INLTREE, &off) || off == UINT32_MAX)
			return false;
		*tree = t->gofunc + off;
		return *tree >= t->gofunc;
	}
	/* Before 1.18: pointers, aligned to the pointer size in memory. */
	uint64_t va = t->img.pcln_vaddr + fd, ps = t->ptrsize;
	va = (va + ps - 1) & ~(ps - 1);
	return va >= t->img.pcln_vaddr && img_ptr(t, va + FUNCDATA_INLTREE * ps, tree) && *tree;
}

struct inl_entry {
	int32_t parent;   /* -1 where the layout has none (1.20+) */
	uint32_t nameoff;
	int32_t parent_pc;
};

static bool inl_read(const struct gopcln *t, uint64_t tree, int32_t ix, struct inl_entry *e)
{
	unsigned sz = t->ver >= GOPCLN_GO120 ? 16 : 20;
	if (ix < 0 || (uint32_t)ix >= GOPCLN_INL_MAX || tree > UINT64_MAX - (uint64_t)ix * sz)
		return false;
	const uint8_t *p = img_at(&t->img, tree + (uint64_t)ix * sz, sz);
	if (!p)
		return false;
	if (t->ver >= GOPCLN_GO120) {
		*e = (struct inl_entry){ -1, le32(p + 4), (int32_t)le32(p + 8) };
	} else {
		int16_t parent = (int16_t)(p[0] | p[1] << 8);
		*e = (struct inl_entry){ parent, le32(p + 12), (int32_t)le32(p + 16) };
	}
	return true;
}

/*
 * The inline frames at pc, innermost first, written to out; *at becomes the pc whose position is the
 * function's own (the outermost call's site). Each step goes to the call site the tree names
 * (parentPc) and asks the index table there; before 1.20 the tree also states the parent, which must
 * agree. Any disagreement, a revisited entry or a too deep chain: no inline frames at all.
 */
static int inl_frames(const struct gopcln *t, uint64_t fn, uint64_t entry, uint64_t end, uint64_t pc,
		      struct gopcln_frame *out, int max, uint64_t *at)
{
	uint64_t tree;
	uint32_t index;
	int32_t ix;
	*at = pc;
	if (!inl_tree(t, fn, &tree, &index) || !pcvalue(t, index, entry, pc, &ix))
		return 0;
	int32_t seen[GOPCLN_MAX_DEPTH];
	int n = 0;
	uint64_t cur = pc;
	while (ix >= 0) {
		struct inl_entry e;
		const char *name;
		if (n >= max || n >= GOPCLN_MAX_DEPTH - 1 || !inl_read(t, tree, ix, &e) ||
		    !(name = func_name_at(t, e.nameoff)) || e.parent_pc < 0 ||
		    (uint64_t)e.parent_pc >= end - entry)
			return 0;
		for (int k = 0; k < n; k++)
			if (seen[k] == ix)
				return 0;
		seen[n] = ix;
		out[n] = (struct gopcln_frame){ .name = name, .inlined = true };
		file_line(t, fn, entry, cur, &out[n]);
		n++;
		cur = entry + (uint64_t)e.parent_pc;
		int32_t next;
		if (!pcvalue(t, index, entry, cur, &next))
			next = -1;
		if (t->ver < GOPCLN_GO120 && next != (e.parent < 0 ? -1 : e.parent))
			return 0;
		ix = next;
	}
	*at = cur;
	return n;
}

/* The index of the function that holds pc, or false. */
static bool find_func(const struct gopcln *t, uint64_t pc, uint64_t *idx)
{
	uint64_t lo = 0, hi = t->nfunc, first, last;
	if (!ft_pc(t, 0, &first) || !ft_pc(t, t->nfunc, &last) || pc < first || pc >= last)
		return false;
	while (hi - lo > 1) {  /* entry(lo) <= pc < entry(hi) */
		uint64_t mid = lo + (hi - lo) / 2, v;
		if (!ft_pc(t, mid, &v))
			return false;
		if (v <= pc)
			lo = mid;
		else
			hi = mid;
	}
	*idx = lo;
	return true;
}

int gopcln_frames(const struct gopcln *t, uint64_t pc, struct gopcln_frame *out, int max)
{
	uint64_t i, fn, entry, end;
	if (max < 1 || !find_func(t, pc, &i) || !ft_pc(t, i, &entry) || !ft_pc(t, i + 1, &end) ||
	    !ft_func(t, i, &fn) || pc >= end)
		return 0;
	const char *name = func_name_at(t, fn_field(t, fn, F_NAME));
	if (!name)
		return 0;
	uint64_t at = pc;
	int n = max > 1 ? inl_frames(t, fn, entry, end, pc, out, max - 1, &at) : 0;
	out[n] = (struct gopcln_frame){ .name = name };
	file_line(t, fn, entry, at, &out[n]);
	return n + 1;
}
