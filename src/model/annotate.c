/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * annotate: the per-address histogram and the annotated document of one function.
 *
 * The histogram is an array of entries plus an open-addressing index keyed on (dso pointer, symbol
 * pointer, address): the strings are interned, so a sample's walk hashes pointers and never touches
 * string bytes. The decay compacts the array and rebuilds the index once per window, as the
 * profile and the call tree do. Memory is bounded by max_addrs: an address first seen when the
 * histogram is full is not recorded, and its period is counted as dropped (a hot address is seen in
 * every window, so after a decay it finds room again).
 *
 * A sample adds Total to each (function, address) of its chain once: a recursive function's same
 * call site seen twice in one stack is one sample there, as the profile counts Total once per row.
 */
#include "model/annotate.h"

#include <stdlib.h>
#include <string.h>

#include "model/decay.h"
#include "util/hash.h"
#include "util/util.h"

#define AN_MIN_ADDRS 16
#define AN_SEEN_MAX 64 /* chain entries remembered per sample for the once-per-sample rule */

struct annotate {
	struct an_entry *e;
	size_t n, cap, max;
	uint32_t *table;     /* entry index + 1; 0 = empty */
	size_t table_cap;    /* a power of two, at least twice n */
	uint64_t total, dropped;
};

static uint64_t an_hash(const char *dso, const char *sym, uint64_t va)
{
	uint64_t h = hash_mix64(va ^ 0x9e3779b97f4a7c15ULL);
	h = hash_mix64(h ^ (uintptr_t)sym);
	return hash_mix64(h ^ (uintptr_t)dso);
}

struct annotate *annotate_new(size_t max_addrs)
{
	struct annotate *an = xcalloc(1, sizeof(*an));
	an->max = max_addrs ? max_addrs : ANNOTATE_DEFAULT_MAX_ADDRS;
	if (an->max < AN_MIN_ADDRS)
		an->max = AN_MIN_ADDRS;
	/* The index grows with the entries (at most twice max), so a session that annotates little
	 * does not pay for the bound. */
	an->table_cap = 1024;
	an->table = xcalloc(an->table_cap, sizeof(*an->table));
	return an;
}

void annotate_free(struct annotate *an)
{
	if (!an)
		return;
	free(an->e);
	free(an->table);
	free(an);
}

static void an_reindex(struct annotate *an);

/* The entry for (dso, sym, va), made when there is room; NULL when the histogram is full. */
static struct an_entry *an_get(struct annotate *an, const struct frame *f, uint64_t va)
{
	size_t mask = an->table_cap - 1;
	for (size_t i = an_hash(f->dso, f->sym, va) & mask;; i = (i + 1) & mask) {
		uint32_t slot = an->table[i];
		if (!slot) {
			if (an->n >= an->max)
				return NULL;
			xgrow((void **)&an->e, &an->cap, an->n + 1, sizeof(*an->e));
			an->e[an->n] = (struct an_entry){ f->dso, f->sym, f->sym_start, va, 0, 0 };
			an->table[i] = (uint32_t)++an->n;
			if (an->n * 2 > an->table_cap) {
				an->table_cap *= 2;
				an->table = xrealloc(an->table, an->table_cap * sizeof(*an->table));
				an_reindex(an);
			}
			return &an->e[an->n - 1];
		}
		struct an_entry *e = &an->e[slot - 1];
		if (e->va == va && e->sym == f->sym && e->dso == f->dso)
			return e;
	}
}

void annotate_add(struct annotate *an, const struct sample_ctx *s)
{
	an->total += s->period;
	size_t seen[AN_SEEN_MAX]; /* entry indices: an_get may move the array */
	int nseen = 0;
	bool leaf = true;
	for (int i = 0; i < s->nframes; i++) {
		const struct frame *f = &s->frames[i];
		if (f->inlined)
			continue; /* the address is the function's it was inlined into: the next frame */
		bool first = leaf;
		leaf = false;
		if (!f->va || f->kernel)
			continue; /* no file address (JIT, unresolved, kernel): nothing to annotate */
		/* A return address is the instruction after the call: one byte back is in the call. The
		 * first user frame under kernel frames is not one: it is where the user code was
		 * interrupted (or the syscall returns to), an exact address like a leaf. */
		bool exact = first || (i > 0 && s->frames[i - 1].kernel && !f->kernel);
		uint64_t va = exact ? f->va : f->va - 1;
		struct an_entry *e = an_get(an, f, va);
		if (!e) {
			if (first)
				an->dropped += s->period;
			continue;
		}
		size_t idx = (size_t)(e - an->e);
		bool dup = false;
		for (int k = 0; k < nseen && !dup; k++)
			dup = seen[k] == idx;
		if (dup)
			continue;
		if (nseen < AN_SEEN_MAX)
			seen[nseen++] = idx;
		e->total += s->period;
		if (first)
			e->self += s->period;
	}
}

/* The index again from the entries (after a decay moved them, or their names moved). */
static void an_reindex(struct annotate *an)
{
	memset(an->table, 0, an->table_cap * sizeof(*an->table));
	size_t mask = an->table_cap - 1;
	for (size_t i = 0; i < an->n; i++) {
		struct an_entry *e = &an->e[i];
		size_t h = an_hash(e->dso, e->sym, e->va) & mask;
		while (an->table[h])
			h = (h + 1) & mask;
		an->table[h] = (uint32_t)(i + 1);
	}
}

void annotate_end_window(struct annotate *an, bool zero)
{
	size_t k = 0;
	an->total = zero ? 0 : decay_x78(an->total);
	an->dropped = zero ? 0 : decay_x78(an->dropped);
	for (size_t i = 0; i < an->n && !zero; i++) {
		struct an_entry *e = &an->e[i];
		e->self = decay_x78(e->self);
		e->total = decay_x78(e->total);
		/* Total >= Self at an address; a faded address goes as the profile's rows do. */
		if (!decay_faded(e->total, an->total))
			an->e[k++] = *e;
	}
	an->n = k;
	/* Shrink the index after a burst of addresses has decayed away, but never below the start. */
	size_t cap = an->table_cap;
	while (cap > 1024 && an->n * 8 < cap)
		cap /= 2;
	if (cap != an->table_cap) {
		an->table_cap = cap;
		an->table = xrealloc(an->table, cap * sizeof(*an->table));
	}
	an_reindex(an);
}

void annotate_move_names(struct annotate *an, frame_rename_fn rename, void *ctx)
{
	for (size_t i = 0; i < an->n; i++) {
		an->e[i].dso = rename(ctx, an->e[i].dso);
		an->e[i].sym = rename(ctx, an->e[i].sym);
	}
	an_reindex(an);  /* keyed on the pointers */
}

uint64_t annotate_total(const struct annotate *an)
{
	return an->total;
}

size_t annotate_addrs(const struct annotate *an)
{
	return an->n;
}

uint64_t annotate_dropped(const struct annotate *an)
{
	return an->dropped;
}

struct an_snapshot *annotate_snapshot(const struct annotate *an)
{
	struct an_snapshot *s = xcalloc(1, sizeof(*s));
	s->n = an->n;
	s->total = an->total;
	s->e = xmalloc((an->n ? an->n : 1) * sizeof(*s->e));
	if (an->n)
		memcpy(s->e, an->e, an->n * sizeof(*s->e));
	return s;
}

void an_snapshot_free(struct an_snapshot *s)
{
	if (!s)
		return;
	free(s->e);
	free(s);
}

static int cmp_count(const void *a, const void *b)
{
	uint64_t x = ((const struct an_count *)a)->va, y = ((const struct an_count *)b)->va;
	return x < y ? -1 : x > y;
}

size_t an_snapshot_func(const struct an_snapshot *s, const char *dso, const char *sym,
			struct an_count **out, uint64_t *sym_start)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	*sym_start = 0;
	/* A linear pass: it runs when the view refreshes, not per sample, over a bounded array. */
	for (size_t i = 0; s && i < s->n; i++) {
		const struct an_entry *e = &s->e[i];
		if (e->sym != sym || (dso && e->dso != dso))
			continue;
		xgrow((void **)out, &cap, n + 1, sizeof(**out));
		(*out)[n++] = (struct an_count){ e->va, e->self, e->total };
		*sym_start = e->sym_start;
	}
	if (n)
		qsort(*out, n, sizeof(**out), cmp_count);
	return n;
}

/* --- the document ------------------------------------------------------------------------------ */

static const char *doc_str(struct an_doc *d, const char *s)
{
	if (!s)
		return NULL;
	xgrow((void **)&d->owned, &d->owned_cap, d->nowned + 1, sizeof(*d->owned));
	return d->owned[d->nowned++] = xstrdup(s);
}

static bool same_file(const char *a, const char *b)
{
	return a && b && (a == b || !strcmp(a, b));
}

static void src_add(struct an_doc *d, size_t *cap, const char *file, unsigned line, const char *text)
{
	xgrow((void **)&d->src, cap, d->nsrc + 1, sizeof(*d->src));
	d->src[d->nsrc++] = (struct an_row){ .file = file, .line = line, .text = text, .src = -1 };
}

struct an_doc *annotate_doc(const struct an_code *code, const struct an_count *counts, size_t n,
			    uint64_t total)
{
	struct an_doc *d = xcalloc(1, sizeof(*d));
	d->total = total;
	d->err = doc_str(d, code->err);
	d->file = doc_str(d, code->file);
	d->src_err = doc_str(d, code->src_err);

	/* Instructions, and the counts placed on the one holding each address. */
	d->ninsn = code->ninsns;
	d->insn = xcalloc(d->ninsn ? d->ninsn : 1, sizeof(*d->insn));
	uint32_t *lens = xcalloc(d->ninsn ? d->ninsn : 1, sizeof(*lens));
	for (size_t i = 0; i < d->ninsn; i++) {
		const struct an_insn *in = &code->insns[i];
		d->insn[i] = (struct an_row){ .va = in->va, .line = in->line, .text = doc_str(d, in->text),
					      .src = -1 };
		/* Files repeat from one instruction to the next: one copy per run. */
		if (same_file(in->file, d->file))
			d->insn[i].file = d->file;
		else if (i && same_file(in->file, d->insn[i - 1].file))
			d->insn[i].file = d->insn[i - 1].file;
		else
			d->insn[i].file = doc_str(d, in->file);
		lens[i] = in->len;
	}
	for (size_t i = 0; i < n; i++) {
		d->self += counts[i].self;
		size_t lo = 0, hi = d->ninsn;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (d->insn[mid].va <= counts[i].va)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && counts[i].va - d->insn[lo - 1].va < (lens[lo - 1] ? lens[lo - 1] : 1)) {
			d->insn[lo - 1].self += counts[i].self;
			d->insn[lo - 1].total += counts[i].total;
		} else {
			d->unplaced += counts[i].self;
		}
	}
	free(lens);

	/* Source rows: the function's own file from its first to its last line with code. */
	size_t cap = 0;
	unsigned lo = 0, hi = 0;
	for (size_t i = 0; i < d->ninsn; i++) {
		const struct an_row *r = &d->insn[i];
		if (!r->line || r->file != d->file || !d->file)
			continue;
		if (!lo || r->line < lo)
			lo = r->line;
		if (r->line > hi)
			hi = r->line;
	}
	/* From the signature when it is just above the body (a handful of lines of attributes and
	 * comments at most: a stale or odd decl_line must not pull in half a file). */
	if (lo && code->decl_line && code->decl_line < lo && lo - code->decl_line <= 16)
		lo = code->decl_line;
	for (unsigned l = lo; lo && l <= hi; l++)
		src_add(d, &cap, d->file, l,
			code->src && l <= code->nsrc ? doc_str(d, code->src[l - 1]) : NULL);
	size_t own = d->nsrc;
	/* Then each line of another file (inlined code) once, in the order its code comes, and one row
	 * for the instructions with no line at all. */
	for (size_t i = 0; i < d->ninsn; i++) {
		struct an_row *r = &d->insn[i];
		if (r->line && r->file == d->file && d->file) {
			r->src = (long)(r->line - lo);
			continue;
		}
		long at = -1;
		for (size_t k = own; k < d->nsrc && at < 0; k++)
			if (d->src[k].line == r->line && (r->line ? same_file(d->src[k].file, r->file) : true))
				at = (long)k;
		if (at < 0) {
			src_add(d, &cap, r->line ? r->file : NULL, r->line, NULL);
			at = (long)d->nsrc - 1;
		}
		r->src = at;
	}
	for (size_t i = 0; i < d->ninsn; i++) {
		struct an_row *s = &d->src[d->insn[i].src];
		s->self += d->insn[i].self;
		s->total += d->insn[i].total;
	}
	return d;
}

void annotate_doc_free(struct an_doc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nowned; i++)
		free(d->owned[i]);
	free(d->owned);
	free(d->src);
	free(d->insn);
	free(d);
}
