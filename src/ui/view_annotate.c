/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_annotate: the annotate view (a on a function): where in the function the time goes, by
 * source line and by instruction. A header with the function, its Self% and Total% and the mode,
 * the breadcrumb, a title bar, then one scrolling list in one of three modes (s cycles them):
 * the source lines of the function's file with per-line Self% and Total%, its instructions with
 * per-instruction percentages, or both interleaved (each line with code followed by its
 * instructions, as objdump -S prints them). Percentages are shares of the window, like the
 * table's, so a function's lines add up to its Self% in the table.
 *
 * The view holds the document (model/annotate.h) the source builds for it and asks for a new one on
 * every snapshot, so it follows the window live, decay and all. The function's code is the same
 * from one document to the next (the session caches it), so the cursor is kept as a position in
 * the list, and mapped through the instruction <-> line links when s changes the mode.
 *
 * "Hot" is what Tab stops at: a row whose Self (Total where the function has no Self) is at least
 * a twentieth of the hottest row's; H goes to the hottest.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/annotate.h"
#include "ui/render_table.h"
#include "ui/view.h"
#include "util/util.h"

enum an_mode { MODE_SOURCE, MODE_ASM, MODE_BOTH, MODE_COUNT };

static const char *const mode_names[MODE_COUNT] = { "source", "assembly", "source + assembly" };

struct aline {
	bool insn;     /* an instruction (index in doc->insn) or a source row (in doc->src) */
	uint32_t idx;
};

struct view_annotate {
	struct view base;
	const char *raw_sym, *dso;
	char shown[256];
	view_annotate_fn fetch;
	void *ctx;
	struct an_doc *doc;
	double self_pct, total_pct;
	enum an_mode mode;
	struct aline *lines;
	size_t nlines, lines_cap;
	size_t cursor, top;
};

#define HEAD_ROWS 3 /* the function line, the breadcrumb, the column titles */
#define PCT_W 7
#define TEXT_X (1 + PCT_W + 1 + PCT_W + 2)

/* What a row weighs for H and Tab. */
static uint64_t heat(const struct view_annotate *va, const struct an_row *r)
{
	return va->doc->self ? r->self : r->total;
}

static const struct an_row *line_row(const struct view_annotate *va, size_t i)
{
	const struct aline *l = &va->lines[i];
	return l->insn ? &va->doc->insn[l->idx] : &va->doc->src[l->idx];
}

static void line_add(struct view_annotate *va, bool insn, size_t idx)
{
	xgrow((void **)&va->lines, &va->lines_cap, va->nlines + 1, sizeof(*va->lines));
	va->lines[va->nlines++] = (struct aline){ insn, (uint32_t)idx };
}

/* The list of the mode; the cursor goes to the row that shows the same code as before. */
static void rebuild_lines(struct view_annotate *va, enum an_mode mode)
{
	const struct an_doc *d = va->doc;
	struct aline was = va->cursor < va->nlines ? va->lines[va->cursor] : (struct aline){ 0 };
	bool had = va->cursor < va->nlines;
	va->nlines = 0;
	va->mode = mode;
	if (!d)
		return;
	if (mode == MODE_SOURCE) {
		for (size_t i = 0; i < d->nsrc; i++)
			line_add(va, false, i);
	} else {
		for (size_t i = 0; i < d->ninsn; i++) {
			if (mode == MODE_BOTH && d->insn[i].src >= 0 &&
			    (i == 0 || d->insn[i].src != d->insn[i - 1].src))
				line_add(va, false, (size_t)d->insn[i].src);
			line_add(va, true, i);
		}
	}
	size_t at = 0;
	if (had) {
		/* The same row if it is in the list, else the instruction's line / the line's first
		 * instruction. */
		long src = was.insn ? (was.idx < d->ninsn ? d->insn[was.idx].src : -1) : (long)was.idx;
		bool found = false;
		for (size_t i = 0; i < va->nlines && !found; i++)
			if (va->lines[i].insn == was.insn && va->lines[i].idx == was.idx)
				at = i, found = true;
		for (size_t i = 0; i < va->nlines && !found; i++) {
			const struct aline *l = &va->lines[i];
			long s = l->insn ? d->insn[l->idx].src : (long)l->idx;
			if (src >= 0 && s == src)
				at = i, found = true;
		}
	}
	va->cursor = at;
}

static void annotate_update(struct view *vw, const struct snapshot *snap)
{
	struct view_annotate *va = (struct view_annotate *)vw;
	if (!snap)
		return;
	if (va->fetch) {
		struct an_doc *doc = va->fetch(va->ctx, va->raw_sym, va->dso);
		/* Same code, new counts: the list is the same, keep the cursor where it is. */
		bool same = va->doc && doc && doc->nsrc == va->doc->nsrc && doc->ninsn == va->doc->ninsn;
		size_t cursor = va->cursor;
		annotate_doc_free(va->doc);
		va->doc = doc;
		rebuild_lines(va, va->mode);
		if (same && cursor < va->nlines)
			va->cursor = cursor;
	}
	va->self_pct = va->total_pct = -1;
	for (size_t i = 0; i < snap->nrows; i++) {
		const struct snap_row *r = &snap->rows[i];
		if (r->raw_sym == va->raw_sym && (!va->dso || !r->dso || r->dso == va->dso) &&
		    !r->comm && !r->pid && !r->tid && !r->srcline) {
			va->self_pct = r->self_pct;
			va->total_pct = r->total_pct;
			if (r->sym)
				snprintf(va->shown, sizeof(va->shown), "%s", r->sym);
			break;
		}
	}
	snprintf(va->base.label, sizeof(va->base.label), "annotate %.80s", va->shown);
}

/* "  12.50%" or blanks for nothing, so that the hot rows stand out. */
static void put_pct(struct surface *s, int x, int y, uint64_t part, uint64_t whole, bool selected,
		    bool color)
{
	if (!part)
		return;
	char buf[32];
	view_pct(buf, sizeof(buf), part, whole);
	double pct = whole ? 100.0 * (double)part / (double)whole : 0;
	surface_put_text(s, x, y, PCT_W, buf, selected ? ROLE_SELECTED : render_pct_role(pct, color));
}

static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;
	return b ? b + 1 : path;
}

static void put_line(struct view_annotate *va, struct surface *s, int y, size_t i, bool color)
{
	const struct an_doc *d = va->doc;
	const struct aline *l = &va->lines[i];
	const struct an_row *r = line_row(va, i);
	bool sel = i == va->cursor;
	enum surface_role base = sel ? ROLE_SELECTED : ROLE_NORMAL;
	char buf[512];
	if (sel)
		surface_fill(s, 0, y, s->w, " ", ROLE_SELECTED);
	put_pct(s, 1, y, r->self, d->total, sel, color);
	put_pct(s, 1 + PCT_W + 1, y, r->total, d->total, sel, color);
	int x = TEXT_X;
	if (l->insn) {
		/* Under its line in the interleaved mode, indented so the lines read as headings. */
		snprintf(buf, sizeof(buf), "%s%8" PRIx64 ":  %s", va->mode == MODE_BOTH ? "  " : "",
			 r->va, r->text ? r->text : "");
		surface_put_text_cut(s, x, y, s->w - x, buf, base);
		return;
	}
	if (!r->line) {
		surface_put_text_cut(s, x, y, s->w - x, "    ?  (no line)", sel ? base : ROLE_DIM);
		return;
	}
	bool own = r->file && d->file && !strcmp(r->file, d->file);
	if (own && r->text)
		snprintf(buf, sizeof(buf), "%5u  %s", r->line, r->text);
	else
		snprintf(buf, sizeof(buf), "%5u  %s:%u", r->line, r->file ? base_name(r->file) : "?",
			 r->line);
	surface_put_text_cut(s, x, y, s->w - x, buf,
			     sel ? base : own && r->text ? (va->mode == MODE_BOTH ? ROLE_HEADER : base)
							 : ROLE_DIM);
}

static void annotate_render(struct view *vw, struct surface *s, int y, int rows,
			    const struct snapshot *snap, const struct view_state *v)
{
	struct view_annotate *va = (struct view_annotate *)vw;
	const struct an_doc *d = va->doc;
	(void)snap;
	char buf[512];
	if (rows <= 0)
		return;
	int x = surface_put_text_cut(s, 1, y, s->w - 1, va->shown, ROLE_HEADER) + 1 + 2;
	if (va->dso && x < s->w)
		x += surface_put_text_cut(s, x, y, s->w - x, va->dso, ROLE_DIM) + 3;
	if (va->total_pct >= 0 && x < s->w) {
		snprintf(buf, sizeof(buf), "Self %.2f%%   Total %.2f%%   ", va->self_pct, va->total_pct);
		x += surface_put_text_cut(s, x, y, s->w - x, buf, ROLE_NORMAL);
	}
	if (x < s->w)
		surface_put_text_cut(s, x, y, s->w - x, mode_names[va->mode], ROLE_DIM);
	if (rows < 2)
		return;
	view_breadcrumb(v, buf, sizeof(buf), s->w - 2);
	surface_put_text_cut(s, 1, y + 1, s->w - 1, buf, ROLE_DIM);
	if (rows < 3)
		return;
	int ty = y + 2;
	surface_fill(s, 0, ty, s->w, " ", ROLE_COLHDR);
	surface_put_text(s, 1, ty, PCT_W, "  Self%", ROLE_COLHDR);
	surface_put_text(s, 1 + PCT_W + 1, ty, PCT_W, " Total%", ROLE_COLHDR);
	const char *file = d && d->file ? d->file : NULL;
	if (va->mode == MODE_ASM)
		snprintf(buf, sizeof(buf), " Address   Instruction");
	else if (va->mode == MODE_SOURCE)
		snprintf(buf, sizeof(buf), " Line   %s", file ? file : "Source");
	else
		snprintf(buf, sizeof(buf), " Line / address   %s", file ? file : "Source");
	surface_put_text_cut(s, TEXT_X, ty, s->w - TEXT_X, buf, ROLE_COLHDR);

	int list = rows - HEAD_ROWS, yy = y + HEAD_ROWS;
	if (list <= 0)
		return;
	/* What is missing, said where the code would be. */
	const char *note = !va->fetch ? "annotate is not available in this session"
			   : !d ? "no samples yet"
			   : d->ninsn == 0 ? (d->err ? d->err : "no code")
			   : va->mode != MODE_ASM && d->src_err ? d->src_err
			   : NULL;
	if (note) {
		surface_put_text_cut(s, TEXT_X, yy++, s->w - TEXT_X, note, ROLE_DIM);
		list--;
	}
	if (list <= 0 || !va->nlines)
		return;
	size_t top = va->top;
	if (va->cursor < top)
		top = va->cursor;
	if (va->cursor >= top + (size_t)list)
		top = va->cursor - (size_t)list + 1;
	if (top + (size_t)list > va->nlines)
		top = va->nlines > (size_t)list ? va->nlines - (size_t)list : 0;
	va->top = top;
	for (int r = 0; r < list && top + (size_t)r < va->nlines; r++)
		put_line(va, s, yy + r, top + (size_t)r, v->color);
}

static unsigned move_to(struct view_annotate *va, long idx)
{
	if (!va->nlines)
		return 0;
	if (idx < 0)
		idx = 0;
	if (idx >= (long)va->nlines)
		idx = (long)va->nlines - 1;
	if ((size_t)idx == va->cursor)
		return 0;
	va->cursor = (size_t)idx;
	return KEYS_ACT_REDRAW;
}

static unsigned hottest(struct view_annotate *va)
{
	size_t best = va->cursor;
	uint64_t max = 0;
	for (size_t i = 0; i < va->nlines; i++) {
		uint64_t h = heat(va, line_row(va, i));
		if (h > max)
			max = h, best = i;
	}
	return move_to(va, (long)best);
}

/* The next hot row after the cursor, wrapping round. */
static unsigned next_hot(struct view_annotate *va)
{
	uint64_t max = 0;
	for (size_t i = 0; i < va->nlines; i++) {
		uint64_t h = heat(va, line_row(va, i));
		if (h > max)
			max = h;
	}
	if (!max)
		return 0;
	for (size_t k = 1; k <= va->nlines; k++) {
		size_t i = (va->cursor + k) % va->nlines;
		uint64_t h = heat(va, line_row(va, i));
		if (h && h * 20 >= max)
			return move_to(va, (long)i);
	}
	return 0;
}

/* Up, Down, PgUp, PgDn, Home, End (keys_step). */
static unsigned annotate_move(const struct keys_call *c)
{
	struct view_annotate *va = c->self;
	long page = c->rows - HEAD_ROWS > 1 ? c->rows - HEAD_ROWS : 1;
	return move_to(va, (long)va->cursor + keys_step(c->arg, page, (long)va->nlines));
}

/* s: source, assembly, both, round. */
static unsigned annotate_mode(const struct keys_call *c)
{
	struct view_annotate *va = c->self;
	rebuild_lines(va, (enum an_mode)((va->mode + 1) % MODE_COUNT));
	return KEYS_ACT_REDRAW;
}

static unsigned annotate_hottest(const struct keys_call *c)
{
	return hottest(c->self);
}

static unsigned annotate_next_hot(const struct keys_call *c)
{
	return next_hot(c->self);
}

static const struct keys_binding annotate_bindings[] = {
	{ .key = { KEYS_UP, 'k' }, .run = annotate_move, .arg = -1, .keys = "Up/Down j/k",
	  .help = "move one line" },
	{ .key = { KEYS_DOWN, 'j' }, .run = annotate_move, .arg = 1 },
	{ .key = { KEYS_PGUP }, .run = annotate_move, .arg = -KEYS_PAGE,
	  .keys = "PgUp/PgDn Home/End", .help = "move a page / to the first or last line" },
	{ .key = { KEYS_PGDN }, .run = annotate_move, .arg = KEYS_PAGE },
	{ .key = { KEYS_HOME, 'g' }, .run = annotate_move, .arg = -KEYS_ALL },
	{ .key = { KEYS_END, 'G' }, .run = annotate_move, .arg = KEYS_ALL },
	{ .key = { 's', 'S' }, .run = annotate_mode, .keys = "s",
	  .help = "source / assembly / both interleaved" },
	{ .key = { 'H' }, .run = annotate_hottest, .keys = "H", .help = "the hottest line" },
	{ .key = { '\t' }, .run = annotate_next_hot, .keys = "Tab", .help = "the next hot line" },
};
static const struct keys_table annotate_keys = KEYS_TABLE(annotate_bindings);

static void annotate_view_free(struct view *vw)
{
	struct view_annotate *va = (struct view_annotate *)vw;
	annotate_doc_free(va->doc);
	free(va->lines);
	free(va);
}

static void annotate_view_move_names(struct view *vw, frame_rename_fn rename, void *ctx)
{
	struct view_annotate *va = (struct view_annotate *)vw;
	va->raw_sym = rename(ctx, va->raw_sym);
	va->dso = rename(ctx, va->dso);
}

static const struct view_ops annotate_ops = {
	.name = "annotate",
	.update = annotate_update,
	.render = annotate_render,
	.keys = &annotate_keys,
	.free = annotate_view_free,
	.move_names = annotate_view_move_names,
	.hints = "Esc back  q table  ? help  s source/asm/both  H hottest  Tab next hot",
};

struct view *view_annotate_new(const char *raw_sym, const char *dso, const char *shown,
			       view_annotate_fn fetch, void *ctx)
{
	struct view_annotate *va = xcalloc(1, sizeof(*va));
	va->base.ops = &annotate_ops;
	va->raw_sym = raw_sym;
	va->dso = dso;
	va->fetch = fetch;
	va->ctx = ctx;
	snprintf(va->shown, sizeof(va->shown), "%s", shown ? shown : raw_sym ? raw_sym : "?");
	snprintf(va->base.label, sizeof(va->base.label), "annotate %.80s", va->shown);
	return &va->base;
}
