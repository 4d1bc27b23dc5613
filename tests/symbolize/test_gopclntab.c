/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_gopclntab: the Go function table parser on tables this test writes itself from the documented
 * layouts of Go 1.2, 1.16, 1.18 and 1.20 (only 1.19 can be built on this machine; the Go tests in
 * tests/runtimes read a real one): names, ranges, file:line and inline chains of a known program,
 * the 1.18+ inline trees found through moduledata in plain and position-independent images, and
 * hostile tables: every truncation, corrupted bytes, huge counts and offsets, inline loops, an
 * unterminated value table, an unsorted function table. Its ASan twin checks that none of them reads
 * outside the bytes it was given (each image is an exact-size heap copy).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "symbolize/gopclntab.h"

/* ---- a byte buffer ---- */

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static size_t put(struct buf *b, const void *src, size_t len)
{
	if (b->n + len > b->cap) {
		b->cap = (b->n + len) * 2 + 64;
		b->p = realloc(b->p, b->cap);
	}
	size_t at = b->n;
	if (src)
		memcpy(b->p + at, src, len);
	else
		memset(b->p + at, 0, len);
	b->n += len;
	return at;
}

static size_t put_le(struct buf *b, uint64_t v, unsigned size)
{
	uint8_t x[8];
	for (unsigned i = 0; i < size; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	return put(b, x, size);
}

static void set_le(struct buf *b, size_t at, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		b->p[at + i] = (uint8_t)(v >> (8 * i));
}

static void align(struct buf *b, size_t a)
{
	while (b->n % a)
		put(b, NULL, 1);
}

static size_t put_str(struct buf *b, const char *s)
{
	return put(b, s, strlen(s) + 1);
}

static void put_uvarint(struct buf *b, uint32_t v)
{
	while (v >= 0x80) {
		uint8_t x = (uint8_t)(v | 0x80);
		put(b, &x, 1);
		v >>= 7;
	}
	uint8_t x = (uint8_t)v;
	put(b, &x, 1);
}

/* A pc-value table: value vals[i] up to (function-relative) pc ends[i]; returns its offset in b. */
static size_t put_pcvalue(struct buf *b, const int32_t *vals, const uint32_t *ends, int n)
{
	size_t at = b->n;
	int32_t prev = -1;
	uint32_t pc = 0;
	for (int i = 0; i < n; i++) {
		int32_t d = vals[i] - prev;
		put_uvarint(b, ((uint32_t)d << 1) ^ (uint32_t)(d >> 31));
		put_uvarint(b, ends[i] - pc);
		prev = vals[i];
		pc = ends[i];
	}
	put(b, NULL, 1);
	return at;
}

/* ---- the program the tables describe ----
 * main.alpha [0x401000, 0x401040): a.go lines 10, 11, 22 (main.mix inlined, called from line 11),
 *   then main.inner inlined into mix (b.go:30, called from a.go:22), then 12;
 * main.beta [0x401040, 0x401060): a.go:40, nothing inlined. */
#define TEXT 0x401000u
#define VBASE 0x400000u  /* where the image's byte 0 is loaded */

struct layout {
	int ver;
	bool pie;        /* pointers as RELATIVE relocations, zeros in the file */
	bool moduledata; /* 1.18+: put one where the parser may find it */
};

struct image {
	uint8_t *file;
	size_t size;
	struct gopcln_seg seg;
	uint64_t rel_off[8], rel_val[8];
	struct gopcln_image img;
	size_t words, functab, tree;  /* file offsets: header words, function table, alpha's inline tree */
	size_t alpha, pcbase;         /* alpha's _func; what its pc-table offsets count from */
	unsigned fsz;
};

static const char *const FILES[] = { "/src/a.go", "/src/b.go" };

/* The pc tables of the two functions, in b (the pctab base for 1.16+; the table itself for 1.2). */
struct pctabs {
	size_t file[2], line[2], inl, sp;
};

static void put_pctabs(struct buf *b, int ver, struct pctabs *pt)
{
	int32_t f0 = ver == GOPCLN_GO12 ? 1 : 0;  /* Go 1.2's file numbers start at 1 */
	int32_t fa[] = { f0, f0 + 1, f0 };
	uint32_t fe[] = { 0x18, 0x20, 0x40 };
	pt->file[0] = put_pcvalue(b, fa, fe, 3);
	int32_t la[] = { 10, 11, 22, 30, 12 };
	uint32_t le[] = { 0x08, 0x10, 0x18, 0x20, 0x40 };
	pt->line[0] = put_pcvalue(b, la, le, 5);
	int32_t fb[] = { f0 };
	uint32_t feb[] = { 0x20 };
	pt->file[1] = put_pcvalue(b, fb, feb, 1);
	int32_t lb[] = { 40 };
	pt->line[1] = put_pcvalue(b, lb, feb, 1);
	int32_t ia[] = { -1, 0, 1, -1 };
	uint32_t ie[] = { 0x10, 0x18, 0x20, 0x40 };
	pt->inl = put_pcvalue(b, ia, ie, 4);
	int32_t sa[] = { 0, 0x18, 0 };
	uint32_t se[] = { 0x04, 0x3c, 0x40 };
	pt->sp = put_pcvalue(b, sa, se, 3);
}

/* The inline tree of alpha: 0 = mix (called at alpha+8), 1 = inner (inside mix, at alpha+0x10). */
static void put_tree(struct buf *b, int ver, const uint32_t nameoff[2])
{
	align(b, 8);
	for (int i = 0; i < 2; i++) {
		int32_t parent = i - 1, ppc = i == 0 ? 0x08 : 0x10;
		if (ver >= GOPCLN_GO120) {
			put_le(b, 0, 4);  /* funcID, pad */
			put_le(b, nameoff[i], 4);
			put_le(b, (uint32_t)ppc, 4);
			put_le(b, 20, 4);  /* startLine */
		} else {
			put_le(b, (uint16_t)parent, 2);
			put_le(b, 0, 2);
			put_le(b, 0, 4);   /* file */
			put_le(b, 0, 4);   /* line */
			put_le(b, nameoff[i], 4);
			put_le(b, (uint32_t)ppc, 4);
		}
	}
}

static void image_free(struct image *im)
{
	free(im->file);
	memset(im, 0, sizeof(*im));
}

/* An exact-size copy of b as the image's file, one segment loading it at VBASE. */
static void image_from(struct image *im, const struct buf *b)
{
	memset(im, 0, sizeof(*im));
	im->size = b->n;
	im->file = malloc(b->n ? b->n : 1);
	memcpy(im->file, b->p, b->n);
	im->seg = (struct gopcln_seg){ VBASE, 0, b->n };
	im->img.file = im->file;
	im->img.size = im->size;
	im->img.segs = &im->seg;
	im->img.nsegs = 1;
	im->img.rel_off = im->rel_off;
	im->img.rel_val = im->rel_val;
	im->img.text_vaddr = TEXT;
}

static void add_rel(struct image *im, uint64_t off, uint64_t val)
{
	im->rel_off[im->img.nrels] = off;
	im->rel_val[im->img.nrels++] = val;
}

/* One _func of the table; returns where its funcdata slot for the inline tree is (0: none). */
static size_t put_func(struct buf *b, size_t tab, int ver, int i, uint32_t nameoff, const struct pctabs *pt)
{
	bool alpha = i == 0;
	uint64_t entry = TEXT + (alpha ? 0 : 0x40);
	if (ver >= GOPCLN_GO118)
		put_le(b, entry - TEXT, 4);
	else
		put_le(b, entry, 8);
	put_le(b, nameoff, 4);
	put_le(b, 0, 4);  /* args */
	put_le(b, 0, 4);  /* deferreturn */
	put_le(b, alpha ? pt->sp : 0, 4);  /* pcsp: beta has none */
	put_le(b, pt->file[i], 4);
	put_le(b, pt->line[i], 4);
	put_le(b, alpha ? 3 : 0, 4);  /* npcdata */
	if (ver != GOPCLN_GO12)
		put_le(b, 0, 4);  /* cuOffset */
	if (ver >= GOPCLN_GO120)
		put_le(b, 9, 4);  /* startLine */
	put_le(b, 0, 3);  /* funcID, flag, pad */
	put_le(b, alpha ? 4 : 0, 1);  /* nfuncdata */
	if (!alpha)
		return 0;
	put_le(b, 0, 4);
	put_le(b, 0, 4);
	put_le(b, pt->inl, 4);
	if (ver >= GOPCLN_GO118) {
		for (int k = 0; k < 3; k++)
			put_le(b, UINT32_MAX, 4);
		return put_le(b, 0, 4);
	}
	while ((b->n - tab) % 8)  /* the tables start 8-aligned in memory */
		put(b, NULL, 1);
	for (int k = 0; k < 3; k++)
		put_le(b, 0, 8);
	return put_le(b, 0, 8);
}

/* The function names (offsets from nbase into noff: alpha, beta, mix, inner), then the file names
 * (offsets into fileoff, from the table before 1.16, else from where they start); returns that. */
static size_t put_strings(struct buf *b, size_t nbase, size_t tab, int ver, uint32_t noff[4],
			  uint32_t fileoff[2])
{
	static const char *const fnames[] = { "main.alpha", "main.beta", "main.mix", "main.inner" };
	for (int i = 0; i < 4; i++)
		noff[i] = (uint32_t)(put_str(b, fnames[i]) - nbase);
	size_t filetab = b->n;
	for (int i = 0; i < 2; i++)
		fileoff[i] = (uint32_t)(put_str(b, FILES[i]) - (ver == GOPCLN_GO12 ? tab : filetab));
	align(b, 4);
	return filetab;
}

static void build(struct image *im, struct layout lo)
{
	struct buf b = { 0 };
	int ver = lo.ver;
	unsigned fsz = ver >= GOPCLN_GO118 ? 4 : 8;
	put(&b, NULL, 0x100);
	size_t tab = b.n;
	static const uint32_t magic[] = { [0] = 0xfffffffb, [1] = 0xfffffffa, [2] = 0xfffffff0, [3] = 0xfffffff1 };
	int vi = ver == GOPCLN_GO12 ? 0 : ver == GOPCLN_GO116 ? 1 : ver == GOPCLN_GO118 ? 2 : 3;
	put_le(&b, magic[vi], 4);
	put_le(&b, 0x08010000, 4);  /* pads, quantum 1, pointer size 8 */
	size_t words = b.n;
	unsigned nw = ver == GOPCLN_GO12 ? 1 : ver == GOPCLN_GO116 ? 7 : 8;
	put(&b, NULL, 8 * nw);
	set_le(&b, words, 2, 8);  /* nfunc */
	size_t functab = 0, ftfile = 0, names, cutab = 0, filetab, pctab;
	if (ver == GOPCLN_GO12) {
		functab = b.n;
		put(&b, NULL, 5 * 8);
		ftfile = put_le(&b, 0, 4);
	}
	align(&b, 8);
	names = b.n;
	uint32_t noff[4], fileoff[2];
	filetab = put_strings(&b, ver == GOPCLN_GO12 ? tab : names, tab, ver, noff, fileoff);
	if (ver == GOPCLN_GO12) {
		set_le(&b, ftfile, b.n - tab, 4);
		put_le(&b, 3, 4);  /* the count is entry 0: file numbers start at 1 */
	} else {
		cutab = b.n;
	}
	for (int i = 0; i < 2; i++)
		put_le(&b, fileoff[i], 4);
	pctab = b.n;
	put(&b, NULL, 1);  /* offset 0 means "no table" */
	struct pctabs pt;
	put_pctabs(&b, ver, &pt);
	size_t pcbase = ver == GOPCLN_GO12 ? tab : pctab;
	size_t *rel[] = { &pt.file[0], &pt.file[1], &pt.line[0], &pt.line[1], &pt.inl, &pt.sp };
	for (size_t k = 0; k < sizeof(rel) / sizeof(rel[0]); k++)
		*rel[k] -= pcbase;
	align(&b, 8);
	if (ver != GOPCLN_GO12) {
		functab = b.n;
		put(&b, NULL, 5 * fsz);
		size_t hw[] = { names, cutab, filetab, pctab, functab };
		unsigned o = ver == GOPCLN_GO116 ? 2 : 3;
		set_le(&b, words + 8, 2, 8);  /* nfiles */
		for (unsigned k = 0; k < 5; k++)
			set_le(&b, words + 8 * (o + k), hw[k] - tab, 8);
		if (ver >= GOPCLN_GO118)
			set_le(&b, words + 16, lo.pie ? 0 : TEXT, 8);
	}
	size_t fdbase = ver == GOPCLN_GO12 ? tab : functab;
	size_t slot = 0;
	for (int i = 0; i < 2; i++) {
		align(&b, 8);
		size_t fo = b.n - fdbase;
		if (i == 0)
			im->alpha = b.n;
		size_t s = put_func(&b, tab, ver, i, noff[i], &pt);
		if (s)
			slot = s;
		uint64_t entry = i == 0 ? 0 : 0x40;
		set_le(&b, functab + 2 * i * fsz, ver >= GOPCLN_GO118 ? entry : TEXT + entry, fsz);
		set_le(&b, functab + (2 * i + 1) * fsz, fo, fsz);
	}
	set_le(&b, functab + 4 * fsz, ver >= GOPCLN_GO118 ? 0x60 : TEXT + 0x60, fsz);
	size_t tab_end = b.n;
	align(&b, 8);
	size_t gofunc = b.n;
	put(&b, NULL, 0x10);
	size_t tree = b.n;
	uint32_t inl_names[2] = { noff[2], noff[3] };
	put_tree(&b, ver, inl_names);
	uint64_t tree_va = VBASE + tree, gofunc_va = VBASE + gofunc;
	if (ver >= GOPCLN_GO118)
		set_le(&b, slot, tree - gofunc, 4);
	else if (!lo.pie)
		set_le(&b, slot, tree_va, 8);
	align(&b, 8);
	/* moduledata's words that name the table, the code and the inline trees' base */
	unsigned gi = ver >= GOPCLN_GO120 ? 40 : 38;
	uint64_t mdw[][2] = { { 0, VBASE + tab }, { 1, VBASE + names }, { 22, TEXT }, { gi, gofunc_va } };
	size_t md = 0;
	if (lo.moduledata && ver >= GOPCLN_GO118) {
		put(&b, NULL, 0x40);  /* something else first */
		md = b.n;
		put(&b, NULL, 48 * 8);
		for (size_t k = 0; k < 4 && !lo.pie; k++)
			set_le(&b, md + 8 * mdw[k][0], mdw[k][1], 8);
	}
	size_t data_end = b.n;
	size_t alpha = im->alpha;
	image_from(im, &b);
	im->alpha = alpha;
	im->pcbase = pcbase;
	im->words = words;
	im->functab = functab;
	im->fsz = fsz;
	im->tree = tree;
	im->img.pcln_vaddr = VBASE + tab;
	im->img.pcln_off = tab;
	im->img.pcln_size = tab_end - tab;
	if (md) {
		im->img.data_vaddr = VBASE + md - 0x40;
		im->img.data_size = data_end - (md - 0x40);
	}
	if (lo.pie) {  /* in offset order */
		if (ver >= GOPCLN_GO118)
			add_rel(im, VBASE + words + 16, TEXT);
		else
			add_rel(im, VBASE + slot, tree_va);
		for (size_t k = 0; k < 4 && md; k++)
			add_rel(im, VBASE + md + 8 * mdw[k][0], mdw[k][1]);
	}
	free(b.p);
}

/* ---- checks ---- */

struct want {
	const char *name, *file;
	int line;
};

static void check_frames(const struct gopcln *t, uint64_t pc, const struct want *w, int n, int ver)
{
	struct gopcln_frame f[GOPCLN_MAX_DEPTH];
	int got = gopcln_frames(t, pc, f, GOPCLN_MAX_DEPTH);
	CHECK_EQ_U64(got, n);
	for (int i = 0; i < got && i < n; i++) {
		CHECK_STR(f[i].name, w[i].name);
		CHECK_STR(f[i].file, w[i].file);
		CHECK_EQ_U64(f[i].line, w[i].line);
		CHECK(f[i].inlined == (i < n - 1));
	}
	if (got != n)
		fprintf(stderr, "  (version %d, pc %#llx)\n", ver, (unsigned long long)pc);
}

/* The program of the tables, with (inl) or without its inline frames. */
static void check_program(const struct gopcln *t, int ver, bool inl)
{
	CHECK_EQ_U64(gopcln_version(t), ver);
	CHECK_EQ_U64(gopcln_count(t), 2);
	uint64_t s, e;
	const char *name;
	CHECK(gopcln_func(t, 0, &s, &e, &name) && s == TEXT && e == TEXT + 0x40 && !strcmp(name, "main.alpha"));
	CHECK(gopcln_func(t, 1, &s, &e, &name) && s == TEXT + 0x40 && e == TEXT + 0x60 && !strcmp(name, "main.beta"));
	CHECK(!gopcln_func(t, 2, &s, &e, &name));
	const char *a = FILES[0], *b = FILES[1];
	check_frames(t, TEXT, (struct want[]){ { "main.alpha", a, 10 } }, 1, ver);
	check_frames(t, TEXT + 0x0f, (struct want[]){ { "main.alpha", a, 11 } }, 1, ver);
	if (inl) {
		check_frames(t, TEXT + 0x12, (struct want[]){ { "main.mix", a, 22 }, { "main.alpha", a, 11 } }, 2, ver);
		check_frames(t, TEXT + 0x1f, (struct want[]){ { "main.inner", b, 30 }, { "main.mix", a, 22 },
							     { "main.alpha", a, 11 } }, 3, ver);
	} else {
		check_frames(t, TEXT + 0x12, (struct want[]){ { "main.alpha", a, 22 } }, 1, ver);
		check_frames(t, TEXT + 0x1f, (struct want[]){ { "main.alpha", b, 30 } }, 1, ver);
	}
	check_frames(t, TEXT + 0x20, (struct want[]){ { "main.alpha", a, 12 } }, 1, ver);
	check_frames(t, TEXT + 0x40, (struct want[]){ { "main.beta", a, 40 } }, 1, ver);
	check_frames(t, TEXT + 0x5f, (struct want[]){ { "main.beta", a, 40 } }, 1, ver);
	struct gopcln_frame f[4];
	CHECK_EQ_U64(gopcln_frames(t, TEXT - 1, f, 4), 0);
	CHECK_EQ_U64(gopcln_frames(t, TEXT + 0x60, f, 4), 0);
	/* the stack pointer's depth: alpha's table; beta has none */
	int32_t delta = -1;
	unsigned flags = 1;
	CHECK(gopcln_spdelta(t, TEXT + 3, &delta, &flags) && delta == 0 && flags == 0);
	CHECK(gopcln_spdelta(t, TEXT + 4, &delta, &flags) && delta == 0x18);
	CHECK(gopcln_spdelta(t, TEXT + 0x3c, &delta, &flags) && delta == 0);
	CHECK(!gopcln_spdelta(t, TEXT + 0x40, &delta, &flags) && !gopcln_spdelta(t, TEXT - 1, &delta, &flags));
	/* no room for the inline frames: the function alone, with the address's own line */
	CHECK_EQ_U64(gopcln_frames(t, TEXT + 0x1f, f, 1), 1);
	CHECK_STR(f[0].name, "main.alpha");
	CHECK_EQ_U64(f[0].line, 30);
}

static const int VERSIONS[] = { GOPCLN_GO12, GOPCLN_GO116, GOPCLN_GO118, GOPCLN_GO120 };

static void test_versions(void)
{
	for (size_t v = 0; v < 4; v++)
		for (int pie = 0; pie < 2; pie++) {
			struct image im;
			build(&im, (struct layout){ VERSIONS[v], pie, true });
			char why[128] = "";
			struct gopcln *t = gopcln_open(&im.img, why, sizeof(why));
			CHECK(t != NULL);
			if (!t) {
				fprintf(stderr, "  version %d pie %d: %s\n", VERSIONS[v], pie, why);
			} else {
				CHECK(gopcln_has_inlines(t));
				check_program(t, VERSIONS[v], true);
			}
			gopcln_free(t);
			image_free(&im);
		}
	/* 1.18+ without moduledata: names and lines, no inline frames */
	for (size_t v = 2; v < 4; v++) {
		struct image im;
		build(&im, (struct layout){ VERSIONS[v], false, false });
		struct gopcln *t = gopcln_open(&im.img, NULL, 0);
		CHECK(t && !gopcln_has_inlines(t));
		if (t)
			check_program(t, VERSIONS[v], false);
		gopcln_free(t);
		image_free(&im);
	}
}

/* Every lookup a session could make of t; only that it returns (ASan watches the reads). */
static void query_all(const struct gopcln *t)
{
	struct gopcln_frame f[GOPCLN_MAX_DEPTH];
	for (uint64_t pc = TEXT - 2; pc < TEXT + 0x62; pc++) {
		int n = gopcln_frames(t, pc, f, GOPCLN_MAX_DEPTH);
		CHECK(n >= 0 && n <= GOPCLN_MAX_DEPTH);
	}
	for (size_t i = 0; i < 4; i++) {
		uint64_t s, e;
		const char *name;
		if (gopcln_func(t, i, &s, &e, &name))
			CHECK(e > s && strlen(name) < 4096);
	}
}

/* The section cut at every length, the file ending there too: nothing is read past it. */
static void test_truncated(void)
{
	for (size_t v = 0; v < 4; v++) {
		struct image im;
		build(&im, (struct layout){ VERSIONS[v], false, true });
		size_t opened = 0;
		for (size_t n = 0; n <= im.img.pcln_size; n++) {
			struct image cut = im;
			cut.size = im.img.pcln_off + n;
			cut.file = malloc(cut.size);
			memcpy(cut.file, im.file, cut.size);
			cut.seg.size = cut.size;
			cut.img.file = cut.file;
			cut.img.size = cut.size;
			cut.img.segs = &cut.seg;
			cut.img.pcln_size = n;
			cut.img.data_size = 0;
			struct gopcln *t = gopcln_open(&cut.img, NULL, 0);
			if (t) {
				opened++;
				query_all(t);
			}
			gopcln_free(t);
			free(cut.file);
		}
		CHECK(opened > 0);  /* the last ones hold the whole function table */
		image_free(&im);
	}
}

/* Bytes changed at random (a fixed seed: the same run every time), one to four at once. */
static void test_corrupted(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (size_t v = 0; v < 4; v++)
		for (int pie = 0; pie < 2; pie++) {
			struct image im;
			build(&im, (struct layout){ VERSIONS[v], pie, true });
			for (int round = 0; round < 1500; round++) {
				struct image bad = im;
				bad.file = malloc(im.size);
				memcpy(bad.file, im.file, im.size);
				bad.img.file = bad.file;
				bad.img.segs = &bad.seg;
				bad.img.rel_off = bad.rel_off;
				bad.img.rel_val = bad.rel_val;
				int k = 1 + (int)((seed >> 60) & 3);
				for (int j = 0; j < k; j++) {
					seed = seed * 6364136223846793005ull + 1442695040888963407ull;
					size_t at = 0x100 + (size_t)((seed >> 33) % (im.size - 0x100));
					bad.file[at] = (uint8_t)(seed >> 20);
				}
				struct gopcln *t = gopcln_open(&bad.img, NULL, 0);
				if (t)
					query_all(t);
				gopcln_free(t);
				free(bad.file);
			}
			image_free(&im);
		}
}

static struct gopcln *open_patched(struct image *im)
{
	char why[128] = "";
	struct gopcln *t = gopcln_open(&im->img, why, sizeof(why));
	if (!t)
		printf("rejected: %s\n", why);
	return t;
}

static void test_hostile(void)
{
	for (size_t v = 0; v < 4; v++) {
		int ver = VERSIONS[v];
		struct image im;
		/* a function count past what the section holds, and one that overflows (2n+1)*size */
		uint64_t counts[] = { 3, 1ull << 40, UINT64_MAX / 2 + 1, UINT64_MAX };
		for (size_t c = 0; c < 4; c++) {
			build(&im, (struct layout){ ver, false, true });
			set_le(&(struct buf){ im.file, im.size, im.size }, im.words, counts[c], 8);
			struct gopcln *t = open_patched(&im);
			if (t)
				query_all(t);
			CHECK(c == 0 || !t);
			gopcln_free(t);
			image_free(&im);
		}
		/* the function table out of order */
		build(&im, (struct layout){ ver, false, true });
		struct buf b = { im.file, im.size, im.size };
		set_le(&b, im.functab + 2 * im.fsz, ver >= GOPCLN_GO118 ? 0x70 : TEXT + 0x70, im.fsz);
		CHECK(gopcln_open(&im.img, NULL, 0) == NULL);
		image_free(&im);
		/* an inline entry whose call site is inside itself: no inline frames, the function stays */
		build(&im, (struct layout){ ver, false, true });
		b = (struct buf){ im.file, im.size, im.size };
		set_le(&b, im.tree + (ver >= GOPCLN_GO120 ? 8 : 16), 0x12, 4);
		struct gopcln *t = open_patched(&im);
		struct gopcln_frame f[GOPCLN_MAX_DEPTH];
		CHECK(t && gopcln_frames(t, TEXT + 0x12, f, GOPCLN_MAX_DEPTH) == 1 && !strcmp(f[0].name, "main.alpha"));
		/* ... and past the function's end */
		set_le(&b, im.tree + (ver >= GOPCLN_GO120 ? 8 : 16), 0x7fffffff, 4);
		CHECK(t && gopcln_frames(t, TEXT + 0x12, f, GOPCLN_MAX_DEPTH) == 1);
		/* a name offset far past the tables */
		set_le(&b, im.tree + (ver >= GOPCLN_GO120 ? 4 : 12), 0x7ffffff0, 4);
		CHECK(t && gopcln_frames(t, TEXT + 0x12, f, GOPCLN_MAX_DEPTH) == 1);
		gopcln_free(t);
		image_free(&im);
	}
	/* a line table that runs off the section's end in the middle of a varint */
	for (size_t v = 0; v < 4; v++) {
		struct image im;
		build(&im, (struct layout){ VERSIONS[v], false, true });
		size_t end = im.img.pcln_off + im.img.pcln_size;
		struct image cut = im;
		cut.file = malloc(end);
		memcpy(cut.file, im.file, end);
		memset(cut.file + end - 3, 0x81, 3);
		struct buf b = { cut.file, end, end };
		set_le(&b, im.alpha + (VERSIONS[v] >= GOPCLN_GO118 ? 4 : 8) + 20, end - 3 - im.pcbase, 4);
		cut.size = cut.seg.size = end;
		cut.img.file = cut.file;
		cut.img.size = end;
		cut.img.segs = &cut.seg;
		cut.img.data_size = 0;
		struct gopcln *t = gopcln_open(&cut.img, NULL, 0);
		struct gopcln_frame f[GOPCLN_MAX_DEPTH];
		CHECK(t && gopcln_frames(t, TEXT + 0x20, f, GOPCLN_MAX_DEPTH) == 1 && f[0].line == 0);
		gopcln_free(t);
		free(cut.file);
		image_free(&im);
	}
	/* not a table at all */
	struct image im;
	build(&im, (struct layout){ GOPCLN_GO120, false, true });
	im.file[im.img.pcln_off] ^= 0x40;
	CHECK(gopcln_open(&im.img, NULL, 0) == NULL);
	im.file[im.img.pcln_off] ^= 0x40;
	im.file[im.img.pcln_off + 7] = 16;  /* pointer size */
	CHECK(gopcln_open(&im.img, NULL, 0) == NULL);
	im.img.pcln_off = im.size - 8;  /* the section past the file's end */
	CHECK(gopcln_open(&im.img, NULL, 0) == NULL);
	image_free(&im);
}

/* The images as fuzz_gopclntab's seeds (fuzz/make-corpus.sh): 24 bytes placing the section, the
 * data and one relocation, then the file. */
static int write_corpus(const char *dir)
{
	int n = 0;
	for (size_t v = 0; v < 4; v++)
		for (int pie = 0; pie < 2; pie++) {
			struct image im;
			build(&im, (struct layout){ VERSIONS[v], pie, true });
			char path[4096];
			snprintf(path, sizeof(path), "%s/go%d%s", dir, VERSIONS[v], pie ? "-pie" : "");
			FILE *f = fopen(path, "wb");
			if (!f)
				return 1;
			struct buf b = { 0 };
			put_le(&b, im.img.pcln_off, 4);
			put_le(&b, im.img.pcln_size, 4);
			put_le(&b, im.img.data_size ? im.img.data_vaddr - VBASE : 0, 4);
			put_le(&b, im.img.data_size, 4);
			put_le(&b, im.img.nrels ? im.rel_off[0] - VBASE : 0, 4);
			put_le(&b, im.img.nrels ? im.rel_val[0] : 0, 4);
			put(&b, im.file, im.size);
			n += fwrite(b.p, 1, b.n, f) == b.n;
			fclose(f);
			free(b.p);
			image_free(&im);
		}
	printf("%d seeds in %s\n", n, dir);
	return n == 8 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--corpus"))
		return write_corpus(argv[2]);
	test_versions();
	test_truncated();
	test_corrupted();
	test_hostile();
	return CHECK_DONE();
}
