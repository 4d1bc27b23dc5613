/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * render_table: the table's columns and rows. Which columns a snapshot's table has (Self%, Total%,
 * Samples, then one per sort key) and which of them are shown, their widths on a terminal of a
 * given width, which rows a window of a given height shows as the cursor scrolls it, and the
 * drawing of the titles and rows. render.c draws the table with it; the table's keys (order < >,
 * the mouse) and the F2 setup ask it which columns there are and where.
 *
 * In the time modes (--off-cpu, --wall) Samples gives way to Time (Total seconds per second of the
 * held window: the average number of threads blocked, or blocked and running, there or below),
 * Blocks/s and Longest (the window's longest block, ms), all with the row anywhere on the stack:
 * an off-CPU stack's leaf is the scheduler, so a function that blocked has them as Total. Self%
 * and Total% stay, being shares of nanoseconds.
 *
 * Widths are computed per frame from the rows on screen (bounded), so a table of short names does
 * not waste the screen, and the Symbol column takes what is left because it is what people read.
 * Everything that does not fit is clipped by the surface.
 */
#include "ui/render_table.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/util.h"

#define COL_GAP 2
#define LEFT_MARGIN RENDER_LEFT_MARGIN

struct col_layout {
	enum snap_col col;
	const char *title;
	int x, width;
	bool right;   /* right-aligned (numbers) */
};

const char *render_col_title(enum snap_col c)
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
	case COL_DELTA: return "Δ";
	case COL_STATE: return "State";
	case COL_TIME: return "Time";
	case COL_BLOCKS: return "Blocks/s";
	case COL_LONGEST: return "Longest";
	case COL_CGROUP: return "Cgroup";
	case COL_CONTAINER: return "Container";
	default: return "?";
	}
}

static bool col_numeric(enum snap_col c)
{
	return c == COL_SELF || c == COL_TOTAL || c == COL_SAMPLES || c == COL_PID || c == COL_TID ||
	       c == COL_DELTA || c == COL_TIME || c == COL_BLOCKS || c == COL_LONGEST;
}

/* The text of a time mode's column for row r ("0.98", "12.5", "30.0ms"; "-": no block). */
static void time_cell(const struct snapshot *snap, const struct snap_row *r, enum snap_col c,
		      char *buf, size_t len)
{
	if (c == COL_TIME)
		snprintf(buf, len, "%.2f", snapshot_per_sec(snap, r->total_period) / 1e9);
	else if (c == COL_BLOCKS)
		snprintf(buf, len, "%.1f", snapshot_per_sec(snap, snap_row_total_blocks(r)));
	else if (snap_row_longest_ns(r))
		snprintf(buf, len, "%.1fms", (double)snap_row_longest_ns(r) / 1e6);
	else
		snprintf(buf, len, "-");
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
	if (snap && snap->diff)
		cols[n++] = COL_DELTA; /* --diff: next to the percentage it compares */
	if (snapshot_is_time(snap)) {
		cols[n++] = COL_TIME;
		cols[n++] = COL_BLOCKS;
		cols[n++] = COL_LONGEST;
	} else {
		cols[n++] = COL_SAMPLES;
	}
	/* Without keys (no snapshot yet) the default -s dso,sym layout is shown. */
	if (!snap || snap->nkeys <= 0) {
		cols[n++] = COL_SYM;
		cols[n++] = COL_DSO;
		return n;
	}
	static const struct {
		enum sort_key key;
		enum snap_col col;
	} map[] = { { SORT_CONTAINER, COL_CONTAINER }, { SORT_CGROUP, COL_CGROUP },
		    { SORT_COMM, COL_COMM }, { SORT_PID, COL_PID }, { SORT_TID, COL_TID },
		    { SORT_STATE, COL_STATE }, { SORT_SYM, COL_SYM },   { SORT_DSO, COL_DSO },
		    { SORT_SRCLINE, COL_SRCLINE } };
	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (snap_has_key(snap, map[i].key))
			cols[n++] = map[i].col;
	return n;
}

int render_visible_columns(const struct snapshot *snap, unsigned hidden, enum snap_col *cols)
{
	enum snap_col all[COL_COUNT];
	int n = render_columns(snap, all), k = 0;
	for (int i = 0; i < n; i++)
		if (all[i] == COL_SYM || !(hidden & (1u << all[i])))
			cols[k++] = all[i];
	return k;
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

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

size_t render_scroll_top(const struct view_state *v, size_t nrows, int visible_rows)
{
	if (visible_rows <= 0 || nrows == 0)
		return 0;
	size_t vis = (size_t)visible_rows, top = v->top, cur = v->cursor;
	if (cur >= nrows)
		cur = nrows - 1;
	if (cur < top)
		top = cur;
	if (cur >= top + vis)
		top = cur - vis + 1;
	/* After a shrink (fewer rows or a taller window), show as many rows as fit. */
	if (top + vis > nrows)
		top = nrows > vis ? nrows - vis : 0;
	return top;
}

/* The rows a frame draws: [first, end). Columns are sized by these alone, so a frame costs the
 * same whatever the table holds (a long session under churn held tens of thousands of rows, and
 * measuring every one at every frame was a third of perftop's CPU). */
struct row_span {
	size_t first, end;
};

static int max_text(const struct snapshot *snap, struct row_span span, enum snap_col c)
{
	int w = 0;
	for (size_t i = span.first; snap && i < span.end; i++) {
		const struct snap_row *r = &snap->rows[i];
		const char *t = c == COL_COMM ? r->comm : c == COL_DSO ? r->dso :
				c == COL_SYM ? r->sym : c == COL_CGROUP ? r->cgroup :
				c == COL_CONTAINER ? r->container : r->srcline;
		char idbuf[32];
		if (c == COL_PID || c == COL_TID) {
			snap_pid_text(c == COL_PID ? r->pid : r->tid, c == COL_PID ? r->nspid : r->nstid,
				      idbuf, sizeof(idbuf));
			t = idbuf;
		}
		int tw = t ? surface_text_width(t) : 9; /* "[unknown]" */
		if (tw > w)
			w = tw;
	}
	return w;
}

/* The rows on screen for a table of `rows` lines scrolled as v says. */
static struct row_span drawn_rows(const struct snapshot *snap, const struct view_state *v, int rows)
{
	struct row_span span = { 0, 0 };
	if (!snap || rows <= 0 || !snap->nrows)
		return span;
	span.first = render_scroll_top(v, snap->nrows, rows);
	span.end = span.first + (size_t)rows < snap->nrows ? span.first + (size_t)rows : snap->nrows;
	return span;
}

/* Places the columns; returns how many. The marker (▼/▲) is part of the title width. */
static int layout_columns(const struct snapshot *snap, struct row_span span, unsigned hidden,
			  int width, struct col_layout *lay)
{
	enum snap_col cols[COL_COUNT];
	int n = render_visible_columns(snap, hidden, cols);
	int fixed = 0, sym = -1;
	for (int i = 0; i < n; i++) {
		enum snap_col c = cols[i];
		int title = surface_text_width(render_col_title(c)) + 1;
		int w;
		switch (c) {
		case COL_SELF:
		case COL_TOTAL:
			w = 7; /* "100.00%" */
			break;
		case COL_SAMPLES: {
			uint64_t max = 0;
			for (size_t r = span.first; snap && r < span.end; r++)
				if (snap->rows[r].samples > max)
					max = snap->rows[r].samples;
			char buf[32];
			w = snprintf(buf, sizeof(buf), "%" PRIu64, max);
			break;
		}
		case COL_PID:
		case COL_TID:
			w = clampi(max_text(snap, span, c), 7, 20); /* "1234567 (1234567)" in a container */
			break;
		case COL_CONTAINER:
			w = clampi(max_text(snap, span, c), 0, 32);
			break;
		case COL_CGROUP:
			w = clampi(max_text(snap, span, c), 0, 48);
			break;
		case COL_DELTA:
			w = 12; /* "-100.00 gone" */
			break;
		case COL_STATE:
			w = 6; /* "on-CPU" */
			break;
		case COL_TIME:
		case COL_BLOCKS:
		case COL_LONGEST:
			w = 0;
			for (size_t r = span.first; snap && r < span.end; r++) {
				char buf[48];
				time_cell(snap, &snap->rows[r], c, buf, sizeof(buf));
				w = (int)strlen(buf) > w ? (int)strlen(buf) : w;
			}
			break;
		case COL_COMM:
			w = clampi(max_text(snap, span, c), 0, 16);
			break;
		case COL_DSO:
			w = clampi(max_text(snap, span, c), 0, 28);
			break;
		case COL_SRCLINE:
			w = clampi(max_text(snap, span, c), 0, 36);
			break;
		default:
			w = 0;
			break;
		}
		if (w < title)
			w = title;
		lay[i] = (struct col_layout){ .col = c, .title = render_col_title(c), .width = w,
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
		int want = max_text(snap, span, COL_SYM);
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

static void render_row(struct surface *s, int y, const struct snapshot *snap,
		       const struct snap_row *r, const struct col_layout *lay, int n, bool selected,
		       bool color)
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
			snap_pid_text(r->pid, r->nspid, buf, sizeof(buf));
			break;
		case COL_TID:
			snap_pid_text(r->tid, r->nstid, buf, sizeof(buf));
			break;
		case COL_CONTAINER:
			text = r->container ? r->container : "[unknown]";
			break;
		case COL_CGROUP:
			text = r->cgroup ? r->cgroup : "[unknown]";
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
		case COL_STATE:
			text = profile_state_name(r->state);
			break;
		case COL_TIME:
		case COL_BLOCKS:
		case COL_LONGEST:
			time_cell(snap, r, c->col, buf, sizeof(buf));
			break;
		case COL_DELTA:
			/* The side a row is only on is said in words: colour alone would not survive a
			 * text dump or NO_COLOR. */
			snprintf(buf, sizeof(buf), "%+.2f%s", r->delta,
				 r->diff == SNAP_DIFF_NEW ? " new" : r->diff == SNAP_DIFF_GONE ? " gone" : "");
			if (!selected && color)
				role = r->delta >= 0 ? render_pct_role(r->delta, color) : ROLE_DIM;
			break;
		default:
			text = "";
			break;
		}
		put_cell(s, y, c, text, role);
	}
}

void render_table(struct surface *s, int y, int rows, const struct snapshot *snap,
		  const struct view_state *v)
{
	struct col_layout lay[COL_COUNT];
	struct row_span span = drawn_rows(snap, v, rows);
	int n = layout_columns(snap, span, v->hidden_cols, s->w, lay);

	surface_fill(s, 0, y, s->w, " ", ROLE_COLHDR);
	for (int i = 0; i < n; i++) {
		char title[64];
		bool sorted = lay[i].col == v->order;
		/* Names sort ascending, numbers descending (I inverts both): the arrow says which. */
		bool down = col_numeric(lay[i].col) && lay[i].col != COL_PID && lay[i].col != COL_TID;
		snprintf(title, sizeof(title), "%s%s", lay[i].title,
			 !sorted ? "" : down != v->invert ? "▼" : "▲");
		put_cell(s, y, &lay[i], title, sorted ? ROLE_COLHDR_SORTED : ROLE_COLHDR);
		/* The whole column width, so the sorted column stands out without colour too. */
		if (sorted)
			surface_set_role(s, lay[i].x, y, lay[i].width, ROLE_COLHDR_SORTED);
	}
	y++;
	if (rows <= 0)
		return;
	if (!snap || snap->nrows == 0) {
		surface_put_text(s, LEFT_MARGIN, y, -1,
				 !snap ? "waiting for samples…" :
				 snapshot_is_time(snap) ? "no time in this window" :
							  "no samples in this window", ROLE_DIM);
		return;
	}
	for (size_t idx = span.first; idx < span.end; idx++)
		render_row(s, y + (int)(idx - span.first), snap, &snap->rows[idx], lay, n,
			   idx == v->cursor, v->color);
}

enum snap_col render_column_at(const struct snapshot *snap, const struct view_state *v, int width,
			       int rows, int x)
{
	struct col_layout lay[COL_COUNT];
	int n = layout_columns(snap, drawn_rows(snap, v, rows), v->hidden_cols, width, lay);
	/* A click in the gap after a column counts for it: titles are short and gaps are targets. */
	for (int i = 0; i < n; i++)
		if (x >= lay[i].x - (i ? COL_GAP : LEFT_MARGIN) / 2 && x < lay[i].x + lay[i].width + 1)
			return lay[i].col;
	return COL_COUNT;
}
