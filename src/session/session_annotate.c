/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session_annotate: the annotate view's side of the session: the per-address histograms are fed
 * by the core; here a function's code (instructions, lines, source file) is read once into a
 * small cache and laid beside the last window's counts. Main thread only.
 */
#include "session/session_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void session_enable_annotate(struct session *s, const char *const *prefixes, size_t nprefixes)
{
	for (int e = 0; e < s->nev; e++)
		if (!s->ev[e].annot)
			s->ev[e].annot = annotate_new(0);
	s->prefixes = prefixes;
	s->nprefixes = nprefixes;
}

/* The cached code of (dso, sym_start), read on a miss into the least recently used entry. */
static struct session_code *session_code(struct session *s, const char *dso, uint64_t sym_start)
{
	struct session_code *c = NULL, *lru = &s->code[0];
	for (int i = 0; i < SESSION_CODE_CACHE && !c; i++) {
		if (s->code[i].used && s->code[i].dso == dso && s->code[i].sym_start == sym_start)
			c = &s->code[i];
		else if (s->code[i].used < lru->used)
			lru = &s->code[i];
	}
	if (c) {
		c->used = ++s->code_clock;
		return c;
	}
	c = lru;
	disasm_func_done(&c->fn);
	srcfile_done(&c->src);
	free(c->insns);
	memset(c, 0, sizeof(*c));
	c->dso = dso;
	c->sym_start = sym_start;
	c->used = ++s->code_clock;
	disasm_function(s->sym, dso, sym_start, &c->fn);
	c->insns = xcalloc(c->fn.n ? c->fn.n : 1, sizeof(*c->insns));
	for (size_t i = 0; i < c->fn.n; i++) {
		const struct disasm_insn *in = &c->fn.insns[i];
		c->insns[i] = (struct an_insn){ in->va, in->len, in->text, in->file, in->line };
	}
	if (c->fn.file)
		c->have_src = srcfile_read(c->fn.file, s->prefixes, s->nprefixes, &c->src, c->src_err,
					   sizeof(c->src_err)) == 0;
	else if (c->fn.n)
		snprintf(c->src_err, sizeof(c->src_err), "%s has no line table (built without -g?)", dso);
	return c;
}

struct an_doc *session_annotate(struct session *s, const char *raw_sym, const char *dso)
{
	/* The view's names may be of an older generation than the histogram's (a paused screen). */
	raw_sym = symbolizer_name(s->sym, raw_sym);
	dso = symbolizer_name(s->sym, dso);
	const struct session_event *ev = &s->ev[s->cur];
	struct an_count *counts = NULL;
	uint64_t sym_start = 0;
	size_t n = ev->annot_snap ? an_snapshot_func(ev->annot_snap, dso, raw_sym, &counts, &sym_start) : 0;
	struct an_code code = { 0 };
	if (!ev->annot) {
		code.err = "annotate is off in this session";
	} else if (!n) {
		/* No address yet: the function has no samples of its own code in this window (or it is
		 * inlined everywhere, or not in a binary: kernel, JIT). */
		code.err = "no samples in this function's own code in this window";
	} else {
		const char *d = dso;
		if (!d) /* a -s sym table: any dso; the entries say which */
			for (size_t i = 0; i < ev->annot_snap->n && !d; i++)
				if (ev->annot_snap->e[i].sym == raw_sym)
					d = ev->annot_snap->e[i].dso;
		struct session_code *c = session_code(s, d, sym_start);
		code = (struct an_code){ .insns = c->insns, .ninsns = c->fn.n,
					 .err = c->fn.err[0] ? c->fn.err : NULL, .file = c->fn.file,
					 .decl_line = c->fn.decl_line,
					 .src = c->have_src ? c->src.lines : NULL, .nsrc = c->src.n,
					 .src_err = c->src_err[0] ? c->src_err : NULL };
	}
	struct an_doc *doc = annotate_doc(&code, counts, n, ev->annot_snap ? ev->annot_snap->total : 0);
	free(counts);
	return doc;
}
