/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * srcinfo: inline chains and source lines through libdw, with a bounded per-binary cache.
 *
 * The walk, for a module address A:
 *   - dwfl_module_addrdie gives the compile unit that covers A (the first call loads the DWARF,
 *     which is when the separate debug file is looked for);
 *   - dwarf_getscopes(cu, A) lists the scopes around A innermost first; the first that is a
 *     DW_TAG_inlined_subroutine is the innermost inlined call (if a DW_TAG_subprogram comes first,
 *     nothing is inlined at A);
 *   - dwarf_getscopes_die on that DIE gives its concrete containers (dwarf_getscopes continues into
 *     the abstract origin instead, which would name the inlined function's own blocks, not its
 *     caller), and every DW_TAG_inlined_subroutine up to the DW_TAG_subprogram is one more frame;
 *   - the innermost frame's line is the line table's row for A; each outer frame's line is where the
 *     frame inside it was inlined: that DIE's DW_AT_call_file / DW_AT_call_line. This is what
 *     eu-addr2line -i prints, and what the tests compare with.
 *     The line table and the file names come from linetab.c, which decodes a CU's line program into
 *     flat arrays (libdw 0.188's dwarf_getsrc_die / dwarf_getsrcfiles decode it with a malloc per row
 *     and a qsort, a third of a cold DWARF replay); libdw answers for a CU linetab does not understand.
 *
 * Why not dwarf_getscopes alone: it walks the compile unit's DIE tree from the root on every call,
 * and a CU like CPython's ceval.c holds one function with thousands of inlined calls, so a cold
 * address cost about a millisecond. Instead, the first address of a function finds its
 * DW_TAG_subprogram once and indexes the ranges of every DW_TAG_inlined_subroutine below it (with
 * their nesting depth); later addresses of that function scan that flat array. The index is kept for
 * the last SRCINFO_FUNCS functions (a ring), and dwarf_getscopes stays the fallback for an
 * address its function's DIE does not cover (e.g. code of another CU reached through a shared symbol).
 *
 * The cache: an open-addressing table keyed by the address, whose entries point into a pool of
 * (sym, srcline, inlined) triples. Samples hit a few thousand distinct addresses again and again, so
 * nearly every lookup after the first second is one probe. When a binary's entries reach
 * SRCINFO_CACHE_MAX both table and pool start over, which keeps memory bounded without any LRU
 * bookkeeping on the hot path.
 *
 * Bad debug files: libdw checks what it parses and returns errors, which become "no information" here;
 * nothing is trusted beyond what the calls return (names may be NULL, file indices out of range).
 */
#include "symbolize/srcinfo.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/gopclntab.h"
#include "symbolize/intern.h"
#include "symbolize/linetab.h"
#include "symbolize/srcstore.h"
#include "util/util.h"

#define SRCINFO_MAX_DEPTH 32   /* inline frames kept per address; deeper chains are cut */
#define SRCINFO_FUNCS 256        /* functions whose inline index is kept */

struct si_range {              /* one range of one inlined call inside a function */
	uint64_t lo, hi;       /* CU-relative pc, [lo, hi) */
	Dwarf_Off die;         /* the DW_TAG_inlined_subroutine */
	uint32_t depth;        /* 0 = inlined straight into the function */
};

#define SRCINFO_CUS 256        /* compile units whose function index is kept */

struct si_cu_fn {              /* one range of one subprogram of a CU */
	uint64_t lo, hi;
	Dwarf_Off sub;
};

struct si_cu {                 /* a CU's subprograms by address, collected as far as lookups need */
	Dwarf_Off off;         /* the CU DIE; 0 = empty slot */
	struct si_cu_fn *f;
	size_t n, cap;
	Dwarf_Die next;        /* the next top-level DIE to look at */
	bool started, done;    /* done: every top-level DIE seen, f sorted by address */
};

struct si_func {
	uint64_t key;          /* the ELF symbol's start (file address) + 1; 0 = empty slot */
	Dwarf_Off sub;         /* the DW_TAG_subprogram DIE */
	Dwarf_Off cu_off;      /* its CU DIE */
	struct si_range *r;
	size_t n, cap;
};

struct si_frame {
	const char *sym;       /* NULL: the ELF symbol (the dso's name, given at each lookup) */
	const char *srcline;
	bool inlined;
};

struct si_entry {
	uint64_t va;
	const char *leaf;      /* the line table's line for va (the srcline when inlines are not shown) */
	uint32_t first;        /* index into pool */
	uint8_t n;             /* frames, the ELF one included */
	uint8_t want;          /* what was computed */
	uint8_t used;
};

struct srcinfo {
	struct intern *in;
	struct si_entry *tab;
	size_t ntab, count;
	struct si_frame *pool;
	size_t npool, pool_cap;
	uint64_t hits, misses;
	const char *unknown;   /* "??:0" */
	struct si_func funcs[SRCINFO_FUNCS];
	size_t next_func;      /* ring position of the next function to replace */
	struct si_cu cus[SRCINFO_CUS];
	size_t next_cu;
	struct srcstore *store;  /* the answers of earlier sessions (srcstore.h), or NULL */
	char *store_path;        /* where this session's are written at the end, or NULL */
	uint64_t store_id;
	size_t fresh;            /* entries computed here, not taken from the store */
	struct linetab_cache *lt; /* CUs' line tables (linetab.h), made on first use */
	const struct gopcln *go;  /* a Go binary's table, for addresses without DWARF; or NULL */
};

struct srcinfo *srcinfo_new(struct intern *in)
{
	struct srcinfo *si = xcalloc(1, sizeof(*si));
	si->in = in;
	si->ntab = 256;
	si->tab = xcalloc(si->ntab, sizeof(*si->tab));
	si->unknown = intern_str(in, "??:0");
	return si;
}

void srcinfo_set_store(struct srcinfo *si, const char *path, uint64_t identity)
{
	srcstore_close(si->store);
	free(si->store_path);
	si->store = path ? srcstore_open(path, identity) : NULL;
	si->store_path = path ? xstrdup(path) : NULL;
	si->store_id = identity;
}

/* Earlier sessions' entries, then this one's (which win for the same address). */
static void si_save(struct srcinfo *si)
{
	struct srcstore_writer *w = srcstore_writer_new();
	struct srcstore_frame f[SRCINFO_MAX_DEPTH];
	for (size_t i = 0, n = srcstore_count(si->store); i < n; i++) {
		uint64_t va;
		unsigned want;
		const char *leaf;
		int k = srcstore_get_at(si->store, i, &va, &want, &leaf, f, SRCINFO_MAX_DEPTH);
		if (k > 0 && k <= SRCINFO_MAX_DEPTH)
			srcstore_writer_add(w, va, want, leaf, f, k);
	}
	for (size_t i = 0; i < si->ntab; i++) {
		const struct si_entry *e = &si->tab[i];
		if (!e->used)
			continue;
		for (int k = 0; k < e->n; k++)
			f[k] = (struct srcstore_frame){ .sym = si->pool[e->first + (uint32_t)k].sym,
							.srcline = si->pool[e->first + (uint32_t)k].srcline,
							.inlined = si->pool[e->first + (uint32_t)k].inlined };
		srcstore_writer_add(w, e->va, e->want, e->leaf, f, e->n);
	}
	srcstore_writer_save(w, si->store_path, si->store_id);
	srcstore_writer_free(w);
}

void srcinfo_move_names(struct srcinfo *si)
{
	if (!si)
		return;
	si->unknown = intern_move(si->in, si->unknown);
	for (size_t i = 0; i < si->ntab; i++)
		if (si->tab[i].used)
			si->tab[i].leaf = intern_move(si->in, si->tab[i].leaf);
	for (size_t i = 0; i < si->npool; i++) {
		si->pool[i].sym = intern_move(si->in, si->pool[i].sym);
		si->pool[i].srcline = intern_move(si->in, si->pool[i].srcline);
	}
}

void srcinfo_free(struct srcinfo *si)
{
	if (!si)
		return;
	if (si->store_path && si->fresh)
		si_save(si);
	srcstore_close(si->store);
	free(si->store_path);
	free(si->tab);
	free(si->pool);
	for (size_t i = 0; i < SRCINFO_FUNCS; i++)
		free(si->funcs[i].r);
	for (size_t i = 0; i < SRCINFO_CUS; i++)
		free(si->cus[i].f);
	linetab_cache_free(si->lt);
	free(si);
}

void srcinfo_set_go(struct srcinfo *si, const struct gopcln *go)
{
	si->go = go;
}

void srcinfo_counts(const struct srcinfo *si, uint64_t *hits, uint64_t *misses)
{
	*hits = si->hits;
	*misses = si->misses;
}

static size_t si_hash(uint64_t va)
{
	va ^= va >> 29;
	va *= 0xbf58476d1ce4e5b9ull;
	va ^= va >> 32;
	return (size_t)va;
}

static struct si_entry *si_find(struct srcinfo *si, uint64_t va)
{
	size_t mask = si->ntab - 1;
	size_t i = si_hash(va) & mask;
	while (si->tab[i].used && si->tab[i].va != va)
		i = (i + 1) & mask;
	return &si->tab[i];
}

static void si_reset(struct srcinfo *si)
{
	memset(si->tab, 0, si->ntab * sizeof(*si->tab));
	si->count = 0;
	si->npool = 0;
}

/* Room for one more entry: grow the table at half load, start over at the cap. */
static void si_make_room(struct srcinfo *si)
{
	if ((si->count + 1) * 2 <= si->ntab)
		return;
	if (si->count >= SRCINFO_CACHE_MAX) {
		si_reset(si);
		return;
	}
	struct si_entry *old = si->tab;
	size_t nold = si->ntab;
	si->ntab *= 2;
	si->tab = xcalloc(si->ntab, sizeof(*si->tab));
	for (size_t i = 0; i < nold; i++)
		if (old[i].used)
			*si_find(si, old[i].va) = old[i];
	free(old);
}

/* ---- DWARF ---- */

/* "dir/file.c" + 12 -> interned "file.c:12". */
static const char *si_srcline(struct srcinfo *si, const char *file, int line)
{
	if (!file)
		return NULL;
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "%s:%d", base, line);
	if (n < 0)
		return NULL;
	return intern_strn(si->in, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* A function DIE's name as perf shows it before demangling: the linkage name when there is one
 * (so C++ frames carry their scope and template arguments), else DW_AT_name; both followed through
 * DW_AT_abstract_origin / DW_AT_specification. */
static const char *si_die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (!n && dwarf_attr_integrate(die, DW_AT_name, &a))
		n = dwarf_formstring(&a);
	return n;
}

/* "NAME (inlined)", interned: an inline frame's name, DWARF's or Go's table's. */
static const char *si_inline_str(struct srcinfo *si, const char *name)
{
	char buf[1024];
	int len = snprintf(buf, sizeof(buf), "%s (inlined)", name);
	if (len < 0)
		return NULL;
	return intern_strn(si->in, buf, (size_t)len < sizeof(buf) ? (size_t)len : sizeof(buf) - 1);
}

static const char *si_inline_name(struct srcinfo *si, Dwarf_Die *die)
{
	const char *n = si_die_name(die);
	return si_inline_str(si, n ? n : "??");
}

/* The CU's line table decoded by linetab.c (libdw 0.188 decodes it with a malloc per row and a qsort);
 * NULL when linetab does not understand it, and libdw answers. */
static const struct linetab *si_linetab(struct srcinfo *si, Dwarf_Die *cu)
{
	if (!si->lt)
		si->lt = linetab_cache_new();
	return linetab_get(si->lt, cu);
}

/* Where the inlined call die was made: its DW_AT_call_file (an index into the CU's file table) and
 * DW_AT_call_line. */
static const char *si_call_site(struct srcinfo *si, Dwarf_Die *cu, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Word file = 0, line = 0;
	if (!dwarf_attr(die, DW_AT_call_file, &a) || dwarf_formudata(&a, &file) != 0)
		return NULL;
	if (dwarf_attr(die, DW_AT_call_line, &a))
		dwarf_formudata(&a, &line);
	const struct linetab *t = si_linetab(si, cu);
	if (t)
		return si_srcline(si, linetab_file(t, file), (int)line);
	Dwarf_Files *files;
	size_t nfiles;
	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || file >= nfiles)
		return NULL;
	return si_srcline(si, dwarf_filesrc(files, file, NULL, NULL), (int)line);
}

static const char *si_line_at(struct srcinfo *si, Dwarf_Die *cu, Dwarf_Addr pc)
{
	const struct linetab *t = si_linetab(si, cu);
	if (t) {
		const char *base;
		int ln;
		return linetab_line(t, pc, &base, &ln) ? si_srcline(si, base, ln) : NULL;
	}
	Dwarf_Line *l = dwarf_getsrc_die(cu, pc);
	int line = 0;
	if (!l || dwarf_lineno(l, &line) != 0)
		return NULL;
	return si_srcline(si, dwarf_linesrc(l, NULL, NULL), line);
}

/* perf's srcline where DWARF has no line: SYM+OFFSET in decimal. */
static const char *si_fallback(struct srcinfo *si, const char *sym, uint64_t off)
{
	if (!sym)
		return si->unknown;
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "%s+%" PRIu64, sym, off);
	if (n < 0)
		return si->unknown;
	return intern_strn(si->in, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* ---- the per-function inline index ---- */

static void si_func_add(struct si_func *fn, uint64_t lo, uint64_t hi, Dwarf_Off die, uint32_t depth)
{
	if (fn->n == fn->cap) {
		fn->cap = fn->cap ? fn->cap * 2 : 64;
		fn->r = xrealloc(fn->r, fn->cap * sizeof(*fn->r));
	}
	fn->r[fn->n++] = (struct si_range){ lo, hi, die, depth };
}

/* Every inlined call below die (children of blocks and of inlined calls included), depth counting
 * the inlined calls around it. Recursion is bounded by the DIE nesting, itself bounded by
 * SRCINFO_MAX_DEPTH for what we keep. */
static void si_func_walk(struct si_func *fn, Dwarf_Die *die, uint32_t depth)
{
	Dwarf_Die child;
	if (depth >= SRCINFO_MAX_DEPTH || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_inlined_subroutine) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0)
				if (hi > lo)
					si_func_add(fn, lo, hi, dwarf_dieoffset(&child), depth);
			si_func_walk(fn, &child, depth + 1);
		} else if (tag == DW_TAG_lexical_block || tag == DW_TAG_try_block || tag == DW_TAG_catch_block) {
			si_func_walk(fn, &child, depth);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static void si_cu_collect(struct si_cu *c, Dwarf_Die *parent, int level);

/* One DIE among a CU's top-level ones (or inside namespaces, classes, modules, where C++ and
 * Fortran put functions): a subprogram's address ranges, or the subprograms inside a container. */
static void si_cu_add(struct si_cu *c, Dwarf_Die *die, int level)
{
	int tag = dwarf_tag(die);
	/* Declarations (a CU declares every function of the headers it includes) have no code: the
	 * abbreviation says so without reading the DIE's attributes. */
	if (tag == DW_TAG_subprogram &&
	    (dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges))) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			if (c->n == c->cap) {
				c->cap = c->cap ? c->cap * 2 : 256;
				c->f = xrealloc(c->f, c->cap * sizeof(*c->f));
			}
			c->f[c->n++] = (struct si_cu_fn){ lo, hi, dwarf_dieoffset(die) };
		}
	} else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
		   tag == DW_TAG_module) {
		si_cu_collect(c, die, level + 1);
	}
}

static void si_cu_collect(struct si_cu *c, Dwarf_Die *parent, int level)
{
	Dwarf_Die child;
	if (level > 8 || dwarf_child(parent, &child) != 0)
		return;
	do
		si_cu_add(c, &child, level);
	while (dwarf_siblingof(&child, &child) == 0);
}

static int si_cu_fn_cmp(const void *a, const void *b)
{
	const struct si_cu_fn *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The index in c->f of a range that holds pc, or -1. */
static long si_cu_search(const struct si_cu *c, Dwarf_Addr pc, size_t from)
{
	if (!c->done) {
		for (size_t k = from; k < c->n; k++)
			if (pc >= c->f[k].lo && pc < c->f[k].hi)
				return (long)k;
		return -1;
	}
	size_t lo = 0, hi = c->n;
	while (lo < hi) {  /* the first range starting after pc */
		size_t mid = (lo + hi) / 2;
		if (c->f[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Ranges of top-level subprograms do not overlap; look back a little in case some do. */
	for (size_t k = lo, steps = 0; k > 0 && steps < 8; k--, steps++)
		if (pc >= c->f[k - 1].lo && pc < c->f[k - 1].hi)
			return (long)(k - 1);
	return -1;
}

/* The subprogram DIE that covers pc in CU cu, through the CU's index. Walking a CU's top-level DIEs
 * skips whole subtrees attribute by attribute (a CPython CU declares thousands of types and
 * functions from its headers), so the walk is done once per CU at most, and only as far as lookups
 * need: it stops at the function that covers pc and goes on from there for the next one that the
 * part seen so far lacks. Once it has seen everything, the index is sorted and bisected. */
static bool si_find_subprogram(struct srcinfo *si, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	struct si_cu *c = NULL;
	for (size_t i = 0; i < SRCINFO_CUS && !c; i++)
		if (si->cus[i].off == off && si->cus[i].started)
			c = &si->cus[i];
	if (!c) {
		c = &si->cus[si->next_cu];
		si->next_cu = (si->next_cu + 1) % SRCINFO_CUS;
		c->off = off;
		c->n = 0;
		c->started = true;
		c->done = dwarf_child(cu, &c->next) != 0;
	}
	long k = si_cu_search(c, pc, 0);
	while (k < 0 && !c->done) {
		size_t before = c->n;
		si_cu_add(c, &c->next, 0);
		if (dwarf_siblingof(&c->next, &c->next) != 0) {
			c->done = true;
			if (c->n)
				qsort(c->f, c->n, sizeof(*c->f), si_cu_fn_cmp);
			k = si_cu_search(c, pc, 0);
		} else {
			k = si_cu_search(c, pc, before);
		}
	}
	if (k < 0)
		return false;
	Dwarf *dbg = dwarf_cu_getdwarf(cu->cu);
	return dbg && dwarf_offdie(dbg, c->f[k].sub, out);
}

/* The inline index of the function whose ELF symbol starts at key - 1, built on first use; NULL
 * when its DWARF subprogram cannot be found. */
static struct si_func *si_func_get(struct srcinfo *si, Dwarf_Die *cu, Dwarf_Addr pc, uint64_t key)
{
	for (size_t i = 0; i < SRCINFO_FUNCS; i++)
		if (si->funcs[i].key == key && si->funcs[i].cu_off == dwarf_dieoffset(cu))
			return &si->funcs[i];
	Dwarf_Die sub;
	if (!si_find_subprogram(si, cu, pc, &sub))
		return NULL;
	struct si_func *fn = &si->funcs[si->next_func];
	si->next_func = (si->next_func + 1) % SRCINFO_FUNCS;
	fn->key = key;
	fn->n = 0;
	fn->sub = dwarf_dieoffset(&sub);
	fn->cu_off = dwarf_dieoffset(cu);
	si_func_walk(fn, &sub, 0);
	return fn;
}

/* The inlined calls at pc, innermost first, through the function's index. Returns how many were
 * written to out (DIEs), or -1 when the index does not cover pc (the caller falls back). */
static int si_func_chain(struct srcinfo *si, Dwarf_Die *cu, Dwarf_Addr pc, uint64_t key, Dwarf_Die *out)
{
	struct si_func *fn = si_func_get(si, cu, pc, key);
	if (!fn)
		return -1;
	Dwarf *dbg = dwarf_cu_getdwarf(cu->cu);
	Dwarf_Die sub;
	if (!dbg || !dwarf_offdie(dbg, fn->sub, &sub) || dwarf_haspc(&sub, pc) != 1)
		return -1;
	Dwarf_Off at[SRCINFO_MAX_DEPTH];
	int deepest = -1;
	for (size_t i = 0; i < fn->n; i++) {
		const struct si_range *r = &fn->r[i];
		if (pc >= r->lo && pc < r->hi && r->depth < SRCINFO_MAX_DEPTH) {
			at[r->depth] = r->die;
			if ((int)r->depth > deepest)
				deepest = (int)r->depth;
		}
	}
	int n = 0;
	for (int dpt = deepest; dpt >= 0; dpt--)
		if (dwarf_offdie(dbg, at[dpt], &out[n]))
			n++;
	return n;
}

/* Fills f[0..] for one address; f[n-1] is the ELF frame (sym NULL). Returns n >= 1; *leaf is the
 * address's own line. 0 when no compile unit covers the address. */
static int si_compute(struct srcinfo *si, Dwfl_Module *mod, uint64_t addr, uint64_t key, unsigned want,
		      struct si_frame *f, const char **leaf)
{
	Dwarf_Addr cubias = 0;
	Dwarf_Die *cu = mod ? dwfl_module_addrdie(mod, addr, &cubias) : NULL;
	*leaf = NULL;
	if (!cu)
		return 0;
	Dwarf_Addr pc = addr - cubias;
	const char *leaf_line = (want & SRCINFO_SRCLINE) ? si_line_at(si, cu, pc) : NULL;
	*leaf = leaf_line;
	int n = 0;
	Dwarf_Die fast[SRCINFO_MAX_DEPTH];
	int nfast = (want & SRCINFO_INLINE) ? si_func_chain(si, cu, pc, key, fast) : -1;
	if (nfast >= 0) {
		const char *line = leaf_line;
		for (int i = 0; i < nfast && n < SRCINFO_MAX_DEPTH - 1; i++) {
			f[n++] = (struct si_frame){ .sym = si_inline_name(si, &fast[i]), .srcline = line,
						    .inlined = true };
			line = (want & SRCINFO_SRCLINE) ? si_call_site(si, cu, &fast[i]) : NULL;
		}
		leaf_line = line;
	} else if (want & SRCINFO_INLINE) {
		Dwarf_Die *scopes = NULL;
		int ns = dwarf_getscopes(cu, pc, &scopes);
		Dwarf_Die *inl = NULL;
		for (int i = 0; i < ns; i++) {
			int tag = dwarf_tag(&scopes[i]);
			if (tag == DW_TAG_subprogram || tag == DW_TAG_entry_point)
				break;
			if (tag == DW_TAG_inlined_subroutine) {
				inl = &scopes[i];
				break;
			}
		}
		Dwarf_Die *chain = NULL;
		int nc = inl ? dwarf_getscopes_die(inl, &chain) : 0;
		/* chain[0] is the innermost inlined call; each inlined_subroutine up to the subprogram is
		 * one frame, and the next frame's line is this one's call site. */
		const char *line = leaf_line;
		for (int i = 0; i < nc && n < SRCINFO_MAX_DEPTH - 1; i++) {
			int tag = dwarf_tag(&chain[i]);
			if (tag == DW_TAG_subprogram || tag == DW_TAG_entry_point)
				break;
			if (tag != DW_TAG_inlined_subroutine)
				continue;
			f[n++] = (struct si_frame){ .sym = si_inline_name(si, &chain[i]), .srcline = line,
						    .inlined = true };
			line = (want & SRCINFO_SRCLINE) ? si_call_site(si, cu, &chain[i]) : NULL;
		}
		leaf_line = line;
		free(chain);
		free(scopes);
	}
	f[n++] = (struct si_frame){ .sym = NULL, .srcline = leaf_line, .inlined = false };
	return n;
}

/* The frames of va from a Go binary's table, shaped as si_compute shapes DWARF's: inline frames
 * "NAME (inlined)" innermost first with the line each stands at, then the function's frame (sym NULL:
 * the dso's name), whose line is its call site of the outermost inlined call, or va's own. */
static int si_go_compute(struct srcinfo *si, uint64_t va, unsigned want, struct si_frame *f,
			 const char **leaf)
{
	struct gopcln_frame g[GOPCLN_MAX_DEPTH];
	int n = gopcln_frames(si->go, va, g, (want & SRCINFO_INLINE) ? SRCINFO_MAX_DEPTH : 1);
	*leaf = NULL;
	if (n <= 0)
		return 0;
	bool lines = want & SRCINFO_SRCLINE;
	if (lines && g[0].line > 0)
		*leaf = si_srcline(si, g[0].file, g[0].line);
	for (int i = 0; i < n; i++) {
		f[i] = (struct si_frame){
			.sym = i == n - 1 ? NULL : si_inline_str(si, g[i].name),
			.srcline = lines && g[i].line > 0 ? si_srcline(si, g[i].file, g[i].line) : NULL,
			.inlined = i < n - 1 };
	}
	return n;
}

/* The store's frames for va when they hold at least *want (which becomes what they hold), interned
 * like computed ones; 0 when the store cannot answer. */
static int si_from_store(struct srcinfo *si, uint64_t va, unsigned *want, struct si_frame *tmp,
			 const char **leaf)
{
	struct srcstore_frame f[SRCINFO_MAX_DEPTH];
	unsigned got;
	const char *l;
	int n = si->store ? srcstore_get(si->store, va, &got, &l, f, SRCINFO_MAX_DEPTH) : 0;
	if (n <= 0 || n > SRCINFO_MAX_DEPTH || (got & *want) != *want || f[n - 1].sym || f[n - 1].inlined)
		return 0;  /* also when damaged: the last frame is always the ELF one */
	for (int k = 0; k < n; k++)
		tmp[k] = (struct si_frame){ .sym = f[k].sym ? intern_str(si->in, f[k].sym) : NULL,
					    .srcline = f[k].srcline ? intern_str(si->in, f[k].srcline) : NULL,
					    .inlined = f[k].inlined };
	*leaf = l ? intern_str(si->in, l) : NULL;
	*want = got & (SRCINFO_INLINE | SRCINFO_SRCLINE);
	return n;
}

bool srcinfo_known(struct srcinfo *si, uint64_t va, unsigned want)
{
	const struct si_entry *e = si_find(si, va);
	if (e->used && (e->want & want) == want)
		return true;
	struct srcstore_frame f[1];
	unsigned got;
	const char *l;
	return si->store && srcstore_get(si->store, va, &got, &l, f, 1) > 0 && (got & want) == want;
}

int srcinfo_lookup(struct srcinfo *si, Dwfl_Module *mod, uint64_t bias, uint64_t va, const char *sym,
		   uint64_t sym_start, unsigned want, struct frame *out, int max)
{
	if (max < 1)
		return 0;
	struct si_entry *e = si_find(si, va);
	if (!e->used || (e->want & want) != want) {
		si->misses++;
		unsigned all = want | (e->used ? e->want : 0u);
		struct si_frame tmp[SRCINFO_MAX_DEPTH];
		const char *leaf;
		int n = si_from_store(si, va, &all, tmp, &leaf);
		if (n == 0) {
			/* Go's DWARF has no .debug_aranges, and libdw 0.188 then finds no unit for an
			 * address: its own table answers (and for a binary built with -w). */
			n = si_compute(si, mod, va + bias, sym_start + 1, all, tmp, &leaf);
			if (n == 0 && si->go)
				n = si_go_compute(si, va, all, tmp, &leaf);
			if (n == 0) {
				tmp[0] = (struct si_frame){ 0 };
				n = 1;
			}
			si->fresh++;
		}
		if (all & SRCINFO_SRCLINE) {
			/* The fallbacks are made here, once, not at every hit. */
			const char *fb = NULL;
			for (int i = 0; i < n; i++)
				if (!tmp[i].srcline)
					tmp[i].srcline = fb ? fb : (fb = si_fallback(si, sym, va - sym_start));
			if (!leaf)
				leaf = fb ? fb : si_fallback(si, sym, va - sym_start);
		}
		if (!e->used) {
			si_make_room(si);
			e = si_find(si, va);  /* the table may have moved or started over */
			si->count++;
		}
		if (si->npool + (size_t)n > si->pool_cap) {
			si->pool_cap = si->pool_cap ? si->pool_cap * 2 : 1024;
			if (si->pool_cap < si->npool + (size_t)n)
				si->pool_cap = si->npool + (size_t)n;
			si->pool = xrealloc(si->pool, si->pool_cap * sizeof(*si->pool));
		}
		/* A recomputed entry leaves its old frames in the pool until the next reset: it happens
		 * only when what is wanted grows, at most twice per address. */
		memcpy(si->pool + si->npool, tmp, (size_t)n * sizeof(*tmp));
		*e = (struct si_entry){ .va = va, .leaf = leaf, .first = (uint32_t)si->npool,
					.n = (uint8_t)n, .want = (uint8_t)all, .used = 1 };
		si->npool += (size_t)n;
	} else {
		si->hits++;
	}
	const struct si_frame *f = si->pool + e->first;
	int n = e->n;
	int skip = 0;
	if (!(want & SRCINFO_INLINE) || n > max)
		skip = n - 1;  /* only the ELF frame: no inline frames asked for, or no room for them */
	int w = 0;
	for (int i = skip; i < n; i++, w++) {
		const struct si_frame *s = &f[i];
		out[w].sym = s->sym ? s->sym : sym;
		out[w].sym_start = sym_start;
		out[w].inlined = s->inlined;
		/* Without its inline frames, the function's line is the address's own. */
		out[w].srcline = !(want & SRCINFO_SRCLINE) ? NULL : skip ? e->leaf : s->srcline;
	}
	return w;
}
