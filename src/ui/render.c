/*
 * render: header, table, footer and help overlay drawn into a surface.
 *
 * Widths are computed per frame from the snapshot's content (bounded), so a table of short names
 * does not waste the screen, and the Symbol column takes what is left because it is what people
 * read. Everything that does not fit is clipped by the surface, which is what keeps a 20x5
 * terminal safe without special cases here.
 */
#include "ui/render.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/util.h"

#define COL_GAP 2
#define LEFT_MARGIN 1

struct col_layout {
	enum snap_col col;
	const char *title;
	int x, width;
	bool right;   /* right-aligned (numbers) */
};

static const char *col_title(enum snap_col c)
{
	switch (c) {
	case COL_SELF: return "Self%";
	case COL_TOTAL: return "Total%";
	case COL_SAMPLES: return "Samples";
	case COL_COMM: return "Command";
	case COL_PID: return "PID";
	case COL_TID: return "TID";
	case COL_SYM: return "Symbol";
	case COL_DSO: return "Shared Object";
	case COL_SRCLINE: return "Source:Line";
	default: return "?";
	}
}

static bool col_numeric(enum snap_col c)
{
	return c == COL_SELF || c == COL_TOTAL || c == COL_SAMPLES || c == COL_PID || c == COL_TID;
}

static bool snap_has_key(const struct snapshot *snap, enum sort_key k)
{
	for (int i = 0; i < snap->nkeys; i++)
		if (snap->keys[i] == k)
			return true;
	return false;
}

int render_columns(const struct snapshot *snap, enum snap_col *cols)
{
	int n = 0;
	cols[n++] = COL_SELF;
	cols[n++] = COL_TOTAL;
	cols[n++] = COL_SAMPLES;
	/* Without keys (no snapshot yet) the default -s dso,sym layout is shown. */
	if (!snap || snap->nkeys <= 0) {
		cols[n++] = COL_SYM;
		cols[n++] = COL_DSO;
		return n;
	}
	static const struct {
		enum sort_key key;
		enum snap_col col;
	} map[] = { { SORT_COMM, COL_COMM }, { SORT_PID, COL_PID }, { SORT_TID, COL_TID },
		    { SORT_SYM, COL_SYM },   { SORT_DSO, COL_DSO }, { SORT_SRCLINE, COL_SRCLINE } };
	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (snap_has_key(snap, map[i].key))
			cols[n++] = map[i].col;
	return n;
}

enum surface_role render_pct_role(double pct, bool color)
{
	if (!color)
		return ROLE_NORMAL;
	if (pct >= 5.0)
		return ROLE_HOT_HIGH;
	if (pct >= 0.5)
		return ROLE_HOT_MID;
	return ROLE_NORMAL;
}

static int notice_lines(const struct view_header *h)
{
	if (!h)
		return 0;
	return (h->target_exited ? 1 : 0) + (h->notice && *h->notice ? 1 : 0);
}

int render_table_rows(int height, const struct view_header *h)
{
	/* summary + mode + notices + column titles + footer */
	int n = height - (2 + notice_lines(h) + 1 + 1);
	return n > 0 ? n : 0;
}

/* --- header --- */

struct segment {
	char text[256];
	int prio; /* the lowest goes first when the line is too narrow */
};

static void render_summary(struct surface *s, int y, const struct view_header *h)
{
	struct segment seg[5];
	int n = 0;
	snprintf(seg[n].text, sizeof(seg[n].text), "perftop — %s", h && h->target ? h->target : "");
	seg[n++].prio = 100;
	if (h) {
		const char *ev = h->event ? h->event : "?";
		if (h->freq)
			snprintf(seg[n].text, sizeof(seg[n].text), "event: %s @ %" PRIu64 " Hz", ev, h->freq);
		else
			snprintf(seg[n].text, sizeof(seg[n].text), "event: %s (period %" PRIu64 ")", ev,
				 h->period);
		seg[n++].prio = 50;
		snprintf(seg[n].text, sizeof(seg[n].text), "%.0f samples/s", h->samples_per_sec);
		seg[n++].prio = 40;
		snprintf(seg[n].text, sizeof(seg[n].text), "lost: %" PRIu64 "  dropped: %" PRIu64, h->lost,
			 h->dropped);
		/* Losses matter more than the rate once there are any. */
		seg[n++].prio = h->lost || h->dropped ? 60 : 20;
		snprintf(seg[n].text, sizeof(seg[n].text), "%llus",
			 (unsigned long long)(h->elapsed > 0 ? h->elapsed : 0));
		seg[n++].prio = 30;
	}
	bool keep[5];
	for (int i = 0; i < n; i++)
		keep[i] = true;
	for (;;) {
		int width = 0, kept = 0, lowest = -1;
		for (int i = 0; i < n; i++) {
			if (!keep[i])
				continue;
			width += surface_text_width(seg[i].text) + (kept ? 3 : 0);
			kept++;
			if (i > 0 && (lowest < 0 || seg[i].prio < seg[lowest].prio))
				lowest = i;
		}
		if (width <= s->w - LEFT_MARGIN || lowest < 0)
			break;
		keep[lowest] = false;
	}
	char line[1400] = "";
	size_t len = 0;
	for (int i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s", len ? "   " : "",
					seg[i].text);
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
	}
	surface_fill(s, 0, y, s->w, " ", ROLE_HEADER);
	surface_put_text_cut(s, LEFT_MARGIN, y, s->w - LEFT_MARGIN, line, ROLE_HEADER);
}

static void render_mode(struct surface *s, int y, const struct snapshot *snap,
			const struct view_state *v)
{
	char line[256];
	int len = snprintf(line, sizeof(line), "mode: %s", v->zero ? "zero" : "decay");
	if (v->refresh_secs > 0)
		len += snprintf(line + len, sizeof(line) - (size_t)len, "   refresh: %.1fs",
				v->refresh_secs);
	len += snprintf(line + len, sizeof(line) - (size_t)len, "   order: %s", col_title(v->order));
	if (snap)
		snprintf(line + len, sizeof(line) - (size_t)len, "   rows: %zu", snap->nrows);
	int x = LEFT_MARGIN;
	if (v->paused) {
		/* First, so that even a narrow terminal says why the numbers stopped moving. */
		x += surface_put_text(s, x, y, -1, "PAUSED", ROLE_NOTICE) + 3;
	}
	surface_put_text_cut(s, x, y, s->w - x, line, ROLE_NORMAL);
}

/* --- table --- */

static int max_text(const struct snapshot *snap, enum snap_col c)
{
	int w = 0;
	for (size_t i = 0; snap && i < snap->nrows; i++) {
		const struct snap_row *r = &snap->rows[i];
		const char *t = c == COL_COMM ? r->comm : c == COL_DSO ? r->dso :
				c == COL_SYM ? r->sym : r->srcline;
		int tw = t ? surface_text_width(t) : 9; /* "[unknown]" */
		if (tw > w)
			w = tw;
	}
	return w;
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Places the columns; returns how many. The marker (▼/▲) is part of the title width. */
static int layout_columns(const struct snapshot *snap, int width, struct col_layout *lay)
{
	enum snap_col cols[COL_COUNT];
	int n = render_columns(snap, cols);
	int fixed = 0, sym = -1;
	for (int i = 0; i < n; i++) {
		enum snap_col c = cols[i];
		int title = surface_text_width(col_title(c)) + 1;
		int w;
		switch (c) {
		case COL_SELF:
		case COL_TOTAL:
			w = 7; /* "100.00%" */
			break;
		case COL_SAMPLES: {
			uint64_t max = 0;
			for (size_t r = 0; snap && r < snap->nrows; r++)
				if (snap->rows[r].samples > max)
					max = snap->rows[r].samples;
			char buf[32];
			w = snprintf(buf, sizeof(buf), "%" PRIu64, max);
			break;
		}
		case COL_PID:
		case COL_TID:
			w = 7;
			break;
		case COL_COMM:
			w = clampi(max_text(snap, c), 0, 16);
			break;
		case COL_DSO:
			w = clampi(max_text(snap, c), 0, 28);
			break;
		case COL_SRCLINE:
			w = clampi(max_text(snap, c), 0, 36);
			break;
		default:
			w = 0;
			break;
		}
		if (w < title)
			w = title;
		lay[i] = (struct col_layout){ .col = c, .title = col_title(c), .width = w,
					      .right = col_numeric(c) };
		if (c == COL_SYM)
			sym = i;
		else
			fixed += w;
	}
	if (sym >= 0) {
		int rest = width - LEFT_MARGIN - fixed - COL_GAP * (n - 1);
		int title = surface_text_width(lay[sym].title) + 1;
		/* Up to what is left, but no wider than the longest name: Shared Object then sits next
		 * to the names instead of across an empty gap on a wide terminal. */
		int want = max_text(snap, COL_SYM);
		if (want < title)
			want = title;
		lay[sym].width = rest < title ? title : rest < want ? rest : want;
	}
	int x = LEFT_MARGIN;
	for (int i = 0; i < n; i++) {
		lay[i].x = x;
		x += lay[i].width + COL_GAP;
	}
	return n;
}

static void put_cell(struct surface *s, int y, const struct col_layout *c, const char *text,
		     enum surface_role role)
{
	int tw = surface_text_width(text);
	if (c->right && tw < c->width)
		surface_put_text(s, c->x + c->width - tw, y, tw, text, role);
	else
		surface_put_text_cut(s, c->x, y, c->width, text, role);
}

static bool row_is_kernel(const struct snap_row *r)
{
	return r->dso && (strncmp(r->dso, "[kernel", 7) == 0 || strcmp(r->dso, "[vdso]") == 0);
}

static void render_row(struct surface *s, int y, const struct snap_row *r,
		       const struct col_layout *lay, int n, bool selected, bool color)
{
	enum surface_role base = selected ? ROLE_SELECTED : ROLE_NORMAL;
	if (selected)
		surface_fill(s, 0, y, s->w, " ", ROLE_SELECTED);
	for (int i = 0; i < n; i++) {
		const struct col_layout *c = &lay[i];
		char buf[64];
		const char *text = buf;
		enum surface_role role = base;
		switch (c->col) {
		case COL_SELF:
		case COL_TOTAL: {
			double pct = c->col == COL_SELF ? r->self_pct : r->total_pct;
			snprintf(buf, sizeof(buf), "%6.2f%%", pct);
			if (!selected)
				role = render_pct_role(pct, color);
			break;
		}
		case COL_SAMPLES:
			snprintf(buf, sizeof(buf), "%" PRIu64, r->samples);
			break;
		case COL_PID:
			snprintf(buf, sizeof(buf), "%" PRIu32, r->pid);
			break;
		case COL_TID:
			snprintf(buf, sizeof(buf), "%" PRIu32, r->tid);
			break;
		case COL_COMM:
			text = r->comm ? r->comm : "[unknown]";
			break;
		case COL_SYM:
		case COL_DSO:
			text = c->col == COL_SYM ? r->sym : r->dso;
			if (!text)
				text = "[unknown]";
			if (!selected && color && row_is_kernel(r))
				role = ROLE_KERNEL;
			break;
		case COL_SRCLINE:
			text = r->srcline ? r->srcline : "??:0";
			break;
		default:
			text = "";
			break;
		}
		put_cell(s, y, c, text, role);
	}
}

static void render_table(struct surface *s, int y, int rows, const struct snapshot *snap,
			 const struct view_state *v)
{
	struct col_layout lay[COL_COUNT];
	int n = layout_columns(snap, s->w, lay);

	surface_fill(s, 0, y, s->w, " ", ROLE_COLHDR);
	for (int i = 0; i < n; i++) {
		char title[64];
		bool sorted = lay[i].col == v->order;
		/* Names sort ascending, numbers descending: the arrow says which. */
		snprintf(title, sizeof(title), "%s%s", lay[i].title,
			 !sorted ? "" : col_numeric(lay[i].col) && lay[i].col != COL_PID &&
						lay[i].col != COL_TID ? "▼" : "▲");
		put_cell(s, y, &lay[i], title, sorted ? ROLE_COLHDR_SORTED : ROLE_COLHDR);
		/* The whole column width, so the sorted column stands out without colour too. */
		if (sorted)
			surface_set_role(s, lay[i].x, y, lay[i].width, ROLE_COLHDR_SORTED);
	}
	y++;
	if (rows <= 0)
		return;
	if (!snap || snap->nrows == 0) {
		surface_put_text(s, LEFT_MARGIN, y, -1, snap ? "no samples in this window" :
							       "waiting for samples…", ROLE_DIM);
		return;
	}
	size_t top = keys_scroll_top(v, snap->nrows, rows);
	for (int i = 0; i < rows && top + (size_t)i < snap->nrows; i++) {
		size_t idx = top + (size_t)i;
		render_row(s, y + i, &snap->rows[idx], lay, n, idx == v->cursor, v->color);
	}
}

/* --- footer and help --- */

static void render_footer(struct surface *s, int y, const struct snapshot *snap,
			  const struct view_state *v)
{
	surface_fill(s, 0, y, s->w, " ", ROLE_STATUS);
	int used = surface_put_text(s, LEFT_MARGIN, y, -1,
				    "q quit  ? help  </> order  z decay/zero  Space pause", ROLE_STATUS);
	if (snap && snap->nrows) {
		char pos[48];
		int n = snprintf(pos, sizeof(pos), "%zu/%zu", v->cursor + 1, snap->nrows);
		/* Only where it does not cover the hints. */
		if (s->w - n - 1 > LEFT_MARGIN + used + 2)
			surface_put_text(s, s->w - n - 1, y, n, pos, ROLE_STATUS);
	}
}

static void render_help(struct surface *s)
{
	size_t n;
	const struct keys_help *list = keys_help_list(&n);
	int keyw = 0, whatw = 0;
	for (size_t i = 0; i < n; i++) {
		keyw = clampi(surface_text_width(list[i].keys), keyw, 40);
		whatw = clampi(surface_text_width(list[i].what), whatw, 80);
	}
	const char *title = " perftop keys ";
	const char *foot = "Esc or ? closes this help";
	int bw = 2 + 2 + keyw + 3 + whatw + 2; /* borders, padding, key, gap, text */
	int bh = (int)n + 4;                    /* borders, title row gap, footer */
	if (bw > s->w)
		bw = s->w;
	if (bh > s->h)
		bh = s->h;
	int x0 = (s->w - bw) / 2, y0 = (s->h - bh) / 2;
	if (bw < 2 || bh < 2)
		return;
	for (int y = y0; y < y0 + bh; y++) {
		bool edge = y == y0 || y == y0 + bh - 1;
		surface_fill(s, x0, y, bw, edge ? "─" : " ", edge ? ROLE_HEADER : ROLE_NORMAL);
		surface_put_text(s, x0, y, 1, y == y0 ? "┌" : y == y0 + bh - 1 ? "└" : "│", ROLE_HEADER);
		surface_put_text(s, x0 + bw - 1, y, 1, y == y0 ? "┐" : y == y0 + bh - 1 ? "┘" : "│",
				 ROLE_HEADER);
	}
	surface_put_text(s, x0 + 2, y0, bw - 4, title, ROLE_HEADER);
	int inner = bw - 4;
	for (size_t i = 0; i < n && y0 + 1 + (int)i < y0 + bh - 1; i++) {
		int y = y0 + 1 + (int)i;
		surface_put_text(s, x0 + 2, y, inner < keyw ? inner : keyw, list[i].keys, ROLE_COLHDR_SORTED);
		if (inner > keyw + 3)
			surface_put_text_cut(s, x0 + 2 + keyw + 3, y, inner - keyw - 3, list[i].what,
					     ROLE_NORMAL);
	}
	if (bh >= (int)n + 4)
		surface_put_text(s, x0 + 2, y0 + bh - 2, inner, foot, ROLE_DIM);
}

void render_frame(struct surface *s, const struct snapshot *snap, const struct view_header *h,
		  const struct view_state *v)
{
	surface_clear(s);
	if (s->w <= 0 || s->h <= 0)
		return;
	/* The footer keeps the last line from 2 lines up; everything else stops above it. */
	int footer = s->h >= 2 ? s->h - 1 : s->h;
	int y = 0;
	render_summary(s, y++, h);
	if (y < footer)
		render_mode(s, y++, snap, v);
	if (h && h->target_exited && y < footer) {
		char line[512];
		snprintf(line, sizeof(line), "%s — showing the last data; q quits",
			 h->exit_text ? h->exit_text : "the target exited");
		surface_put_text_cut(s, LEFT_MARGIN, y++, s->w - LEFT_MARGIN, line, ROLE_NOTICE);
	}
	if (h && h->notice && *h->notice && y < footer)
		surface_put_text_cut(s, LEFT_MARGIN, y++, s->w - LEFT_MARGIN, h->notice, ROLE_NOTICE);
	if (y < footer) {
		switch (v->view) {
		case VIEW_TOP:
		default:
			render_table(s, y, footer - y - 1, snap, v);
			break;
		}
	}
	if (footer < s->h)
		render_footer(s, footer, snap, v);
	if (v->help)
		render_help(s);
}
