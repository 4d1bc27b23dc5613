/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * render: header, table (render_table.c), footer and help overlay drawn into a surface.
 * Everything that does not fit is clipped by the surface, which is what keeps a 20x5 terminal safe
 * without special cases here.
 *
 * A replay adds two lines under the mode line: a sparkline of samples per second over the whole
 * recording, one cell per slice of recorded time, with the position and the range highlighted by
 * role, and under it a line of marks ([ ] around the range, ▲ at the position) so that both read
 * without colour and in a text dump. The i view replaces the whole frame with the header lines.
 *
 * A drill-down view (ui/view.h) on top of the stack keeps the header lines and the footer and draws
 * the body itself; the footer then carries its hints, and the help overlay its keys first.
 *
 * A live session has a counters line under the mode line (context switches, migrations, page
 * faults, the hardware counters where there is a PMU, throttles, perftop's own CPU): like the
 * summary line, it drops its least important parts first when the terminal is narrow.
 *
 * Under the table the footer is htop's function-key bar (the same live and in replay, since the
 * keys are), or, while / or \ is typed, the text field with what is typed. What narrows the table
 * (a zoom, a filter) is said at the front of the mode line, so a short table never looks like a
 * quiet program.
 */
#include "ui/render.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/zoom.h"
#include "ui/keys.h"
#include "ui/view.h"
#include "util/util.h"

#define LEFT_MARGIN RENDER_LEFT_MARGIN

/* The lines between the mode line and the body other than the replay's: the counters line of a
 * live session, then the notices. */
static int notice_lines(const struct view_header *h)
{
	if (!h)
		return 0;
	return (h->counters ? 1 : 0) + (h->target_exited ? 1 : 0) + (h->notice && *h->notice ? 1 : 0);
}

static int replay_lines(const struct view_header *h)
{
	return h && h->replay ? 2 : 0; /* sparkline, marks */
}

int render_table_rows(int height, const struct view_header *h)
{
	/* summary + mode + notices + replay + column titles + footer */
	int n = height - (2 + notice_lines(h) + replay_lines(h) + 1 + 1);
	return n > 0 ? n : 0;
}

int render_table_y(const struct view_header *h)
{
	return 2 + replay_lines(h) + notice_lines(h); /* summary, mode, then what render_frame adds */
}

int render_body_rows(int height, const struct view_header *h, const struct view_state *v)
{
	if (v->view == VIEW_INFO)
		return height > 2 ? height - 2 : 0; /* title, footer */
	if (v->depth)
		return render_table_rows(height, h) + 1; /* a view has no column titles of ours */
	return render_table_rows(height, h);
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* --- header --- */

struct segment {
	char text[256];
	int prio; /* the lowest goes first when the line is too narrow */
};

/* Draws the segments that fit on line y, dropping the lowest priority first (never the first). */
static void render_segments(struct surface *s, int y, struct segment *seg, int n,
			    enum surface_role role)
{
	bool keep[16];
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
	char line[16 * 260] = "";
	size_t len = 0;
	for (int i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s", len ? "   " : "",
					seg[i].text);
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
	}
	surface_fill(s, 0, y, s->w, " ", role);
	surface_put_text_cut(s, LEFT_MARGIN, y, s->w - LEFT_MARGIN, line, role);
}

/* 1234567 -> "1.2M": three significant figures at most, so the line keeps its length. */
static void human_rate(char *buf, size_t len, double v)
{
	static const char *const unit[] = { "", "K", "M", "G", "T" };
	int u = 0;
	while (v >= 999.5 && u < 4) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, u && v < 9.95 ? "%.1f%s" : "%.0f%s", v, unit[u]);
}

/* One "name value/s" segment, or nothing for a counter this machine does not count (< 0). */
static void counter_segment(struct segment *seg, int *n, const char *name, double rate, int prio,
			    bool scaled)
{
	if (rate < 0)
		return;
	char v[32];
	human_rate(v, sizeof(v), rate);
	snprintf(seg[*n].text, sizeof(seg[*n].text), "%s %s/s%s", name, v, scaled ? "*" : "");
	seg[(*n)++].prio = prio;
}

static void render_counters(struct surface *s, int y, const struct view_header *h)
{
	struct segment seg[12];
	int n = 0;
	bool mx = h->multiplexed;
	/* IPC first where there is a PMU: it is the one figure that says how well the CPU runs. */
	if (h->ipc >= 0) {
		snprintf(seg[n].text, sizeof(seg[n].text), "IPC %.2f%s", h->ipc, mx ? "*" : "");
		seg[n++].prio = 90;
	}
	counter_segment(seg, &n, "ctx-sw", h->ctx_switches, 80, false);
	counter_segment(seg, &n, "migr", h->migrations, 50, false);
	counter_segment(seg, &n, "faults", h->page_faults, 70, false);
	counter_segment(seg, &n, "cycles", h->cycles, 45, mx);
	counter_segment(seg, &n, "instr", h->instructions, 40, mx);
	counter_segment(seg, &n, "cache-miss", h->cache_misses, 35, mx);
	counter_segment(seg, &n, "br-miss", h->branch_misses, 30, mx);
	snprintf(seg[n].text, sizeof(seg[n].text), "throttled %" PRIu64, h->throttled);
	seg[n++].prio = h->throttled ? 75 : 20;
	if (h->self_cpu >= 0) {
		snprintf(seg[n].text, sizeof(seg[n].text), "perftop CPU %.1f%%", h->self_cpu);
		seg[n++].prio = 60;
	}
	if (n == 0)
		return;
	render_segments(s, y, seg, n, ROLE_NORMAL);
}

/* Cuts text in place to at most w cells, ending in "…" when cut. */
static void cut_text(char *text, size_t cap, int w)
{
	if (w < 1 || surface_text_width(text) <= w)
		return;
	char *p = text;
	for (int n = 0; *p && n < w - 1; n++)
		for (p++; (*p & 0xc0) == 0x80; p++) /* the rest of a UTF-8 sequence */
			;
	snprintf(p, cap - (size_t)(p - text), "…");
}

static void render_summary(struct surface *s, int y, const struct view_header *h)
{
	struct segment seg[6];
	int n = 0;
	snprintf(seg[n].text, sizeof(seg[n].text), "perftop — %s", h && h->target ? h->target : "");
	seg[n++].prio = 100;
	if (h) {
		const char *ev = h->event ? h->event : "?";
		char which[32] = "";
		/* Several events: which one this is, of how many (Tab switches). */
		if (h->nevents > 1)
			snprintf(which, sizeof(which), " %d/%d", h->event_index + 1, h->nevents);
		if (h->freq)
			snprintf(seg[n].text, sizeof(seg[n].text), "event%s: %s @ %" PRIu64 " Hz", which,
				 ev, h->freq);
		else if (h->period)
			snprintf(seg[n].text, sizeof(seg[n].text), "event%s: %s (period %" PRIu64 ")",
				 which, ev, h->period);
		else /* --off-cpu: every switch, no rate or period to speak of */
			snprintf(seg[n].text, sizeof(seg[n].text), "event%s: %s", which, ev);
		/* Several events: which one is shown matters more than the whole command line. */
		if (h->nevents > 1)
			cut_text(seg[0].text, sizeof(seg[0].text),
				 s->w - LEFT_MARGIN - 3 - surface_text_width(seg[n].text));
		seg[n++].prio = 50;
		snprintf(seg[n].text, sizeof(seg[n].text), "%.0f samples/s", h->samples_per_sec);
		seg[n++].prio = 40;
		int len = snprintf(seg[n].text, sizeof(seg[n].text), "lost: %" PRIu64 "  dropped: %" PRIu64,
				   h->lost, h->dropped);
		/* How complete the DWARF-unwound stacks are: low means the stack copy is too short. */
		if (h->dwarf && len > 0 && (size_t)len < sizeof(seg[n].text))
			snprintf(seg[n].text + len, sizeof(seg[n].text) - (size_t)len, "  unwound: %.1f%%",
				 h->unwound);
		/* Losses matter more than the rate once there are any. */
		seg[n++].prio = h->lost || h->dropped ? 60 : 20;
		snprintf(seg[n].text, sizeof(seg[n].text), "%llus",
			 (unsigned long long)(h->elapsed > 0 ? h->elapsed : 0));
		seg[n++].prio = 30;
		if (h->push) {
			/* A push that loses profiles matters more than one that works. */
			snprintf(seg[n].text, sizeof(seg[n].text),
				 "push: %" PRIu64 " sent  %" PRIu64 " failed  %" PRIu64 " dropped",
				 h->push_sent, h->push_failed, h->push_dropped);
			seg[n++].prio = h->push_dropped ? 55 : 25;
		}
	}
	render_segments(s, y, seg, n, ROLE_HEADER);
}

/* "12.3s – 30.0s" for the range, an unset end read as the start / end of the recording. */
static void range_text(char *buf, size_t len, const struct view_header *h,
		       const struct view_state *v)
{
	snprintf(buf, len, "range %.1fs–%.1fs", v->range_start >= 0 ? v->range_start : 0.0,
		 v->range_end >= 0 ? v->range_end : h->duration);
}

static void render_mode(struct surface *s, int y, const struct snapshot *snap,
			const struct view_header *h, const struct view_state *v)
{
	char line[512];
	int len = 0;
	if (h && h->replay) {
		/* Where the replay is comes first: it is what changes as the user scrubs. */
		len += snprintf(line, sizeof(line), "%.1fs / %.1fs   speed %s   ", h->position,
				h->duration, keys_speed_label(v->speed_step));
		if (v->range_start >= 0 || v->range_end >= 0) {
			char r[96];
			range_text(r, sizeof(r), h, v);
			len += snprintf(line + len, sizeof(line) - (size_t)len, "%s   ", r);
		}
	}
	if (v->zoom.n) {
		char z[512];
		zoom_describe(&v->zoom, z, sizeof(z));
		len += snprintf(line + len, sizeof(line) - (size_t)len, "zoom: %s   ", z);
	}
	if (v->filter[0] && len < (int)sizeof(line))
		len += snprintf(line + len, sizeof(line) - (size_t)len, "filter: %s   ", v->filter);
	/* -s container: where the time goes first, the top containers' shares. */
	struct snap_share shares[4];
	size_t nshares = snap ? snapshot_container_shares(snap, shares, 4) : 0;
	for (size_t i = 0; i < nshares && len < (int)sizeof(line); i++)
		len += snprintf(line + len, sizeof(line) - (size_t)len, "%s%s %.1f%%%s",
				i ? "  " : "containers: ", shares[i].container, shares[i].pct,
				i + 1 == nshares ? "   " : "");
	/* What the numbers are (off-CPU or wall time), and which run-queue waits they hold. */
	if (snapshot_is_time(snap) && len < (int)sizeof(line))
		len += snprintf(line + len, sizeof(line) - (size_t)len, "%s time%s   ",
				profile_mode_title(snap->mode),
				v->runq == RUNQ_HIDE ? ", run-queue waits hidden" :
				v->runq == RUNQ_ONLY ? ": run-queue waits only" : "");
	if (len >= (int)sizeof(line))
		len = (int)sizeof(line) - 1;
	len += snprintf(line + len, sizeof(line) - (size_t)len, "mode: %s", v->zero ? "zero" : "decay");
	if (v->refresh_secs > 0)
		len += snprintf(line + len, sizeof(line) - (size_t)len, "   refresh: %.1fs",
				v->refresh_secs);
	len += snprintf(line + len, sizeof(line) - (size_t)len, "   order: %s",
			render_col_title(v->order));
	if (snap)
		snprintf(line + len, sizeof(line) - (size_t)len, "   rows: %zu", snap->nrows);
	int x = LEFT_MARGIN;
	bool at_end = h && h->replay && !h->stream && h->duration > 0 && h->position >= h->duration;
	if (v->paused || at_end) {
		/* First, so that even a narrow terminal says why the numbers stopped moving. */
		x += surface_put_text(s, x, y, -1, v->paused ? "PAUSED" : "END", ROLE_NOTICE) + 3;
	}
	surface_put_text_cut(s, x, y, s->w - x, line, ROLE_NORMAL);
}

/* --- replay: sparkline and marks --- */

static const char *const spark_glyph[9] = { " ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };

/* The cell (0..w-1) of recorded time t on a line of w cells spanning dur seconds. */
static int spark_cell(double t, double dur, int w)
{
	if (dur <= 0 || w <= 0)
		return 0;
	double c = t / dur * w;
	return c < 0 ? 0 : c >= w ? w - 1 : (int)c;
}

/* The cells of the range, inclusive; false when there is no range. */
static bool spark_range(const struct view_state *v, double dur, int w, int *a, int *b)
{
	if (v->range_start < 0 && v->range_end < 0)
		return false;
	*a = v->range_start >= 0 ? spark_cell(v->range_start, dur, w) : 0;
	/* The end is exclusive: an end on a cell boundary belongs to the cell before. */
	*b = v->range_end >= 0 ? spark_cell(v->range_end - dur / w * 1e-6, dur, w) : w - 1;
	if (*b < *a)
		*b = *a;
	return true;
}

static void render_spark(struct surface *s, int y, const struct view_header *h,
			 const struct view_state *v)
{
	int w = s->w - 2 * LEFT_MARGIN;
	if (w <= 0)
		return;
	/* Cells span the duration; without one yet, the histogram's length stands in. */
	double dur = h->duration > 0 ? h->duration : (double)h->nhist;
	double *val = xcalloc((size_t)w, sizeof(*val));
	double max = 0;
	for (int i = 0; i < w && h->hist && h->nhist; i++) {
		/* Mean samples per second of the one-second bins this cell's slice of time touches, so a
		 * narrow terminal shows rates, not sums, and a short recording is stretched over all. */
		size_t lo = (size_t)(dur * i / w), hi = (size_t)(dur * (i + 1) / w);
		if (hi <= lo)
			hi = lo + 1;
		if (hi > h->nhist)
			hi = h->nhist;
		if (lo >= hi)
			continue;
		double sum = 0;
		for (size_t b = lo; b < hi; b++)
			sum += (double)h->hist[b];
		val[i] = sum / (double)(hi - lo);
		if (val[i] > max)
			max = val[i];
	}
	int a = -1, b = -2;
	spark_range(v, dur, w, &a, &b);
	int pos = spark_cell(h->position, dur, w);
	for (int i = 0; i < w; i++) {
		/* Any sample at all gets at least the lowest bar: an empty second and a quiet one differ. */
		int lvl = max > 0 && val[i] > 0 ? (int)(val[i] / max * 8.0 + 0.999) : 0;
		lvl = clampi(lvl, val[i] > 0 ? 1 : 0, 8);
		enum surface_role role = i == pos ? ROLE_SPARK_POS : i >= a && i <= b ? ROLE_SPARK_RANGE :
										       ROLE_SPARK;
		surface_put_text(s, LEFT_MARGIN + i, y, 1, spark_glyph[lvl], role);
	}
	free(val);
}

static void render_marks(struct surface *s, int y, const struct view_header *h,
			 const struct view_state *v)
{
	int w = s->w - 2 * LEFT_MARGIN;
	if (w <= 0)
		return;
	double dur = h->duration > 0 ? h->duration : (double)h->nhist;
	int a, b;
	bool range = spark_range(v, dur, w, &a, &b);
	if (range)
		surface_fill(s, LEFT_MARGIN + a, y, b - a + 1, "─", ROLE_SPARK);
	surface_put_text(s, LEFT_MARGIN + spark_cell(h->position, dur, w), y, 1, "▲", ROLE_NOTICE);
	/* A bracket only at an end that is set (an open end runs to the edge). It goes over the
	 * position mark: right after [ or ] both are on one cell, the bracket is what was just done,
	 * and the sparkline cell above still shows the position. */
	if (range && v->range_start >= 0)
		surface_put_text(s, LEFT_MARGIN + a, y, 1, "[", ROLE_SPARK);
	if (range && v->range_end >= 0)
		surface_put_text(s, LEFT_MARGIN + b, y, 1, "]", ROLE_SPARK);
}

/* --- footer and help --- */

/* htop's bar: each key name plain, its label in the bar's colour, padded so the keys line up.
 * Returns the columns used. */
static int render_key_bar(struct surface *s, int y)
{
	struct keys_bar_item items[KEYS_BAR_MAX];
	size_t n = keys_bar(items, KEYS_BAR_MAX);
	int x = 0;
	for (size_t i = 0; i < n && x < s->w; i++) {
		char label[32];
		snprintf(label, sizeof(label), "%-*s", KEYS_BAR_LABEL_WIDTH, items[i].label);
		x += surface_put_text(s, x, y, s->w - x, items[i].key, ROLE_NORMAL);
		if (x < s->w)
			x += surface_put_text(s, x, y, s->w - x, label, ROLE_STATUS);
	}
	return x;
}

/* The text field of / and \: the prompt, what is typed, a cursor block, and the keys that end it. */
static int render_input(struct surface *s, int y, const struct view_state *v)
{
	char line[KEYS_TEXT_MAX + 96];
	bool search = v->input == KEYS_INPUT_SEARCH, export = v->input == KEYS_INPUT_EXPORT;
	snprintf(line, sizeof(line), "%s %s_", search ? "Search:" : export ? "Write to:" : "Filter:",
		 v->input_text);
	int used = LEFT_MARGIN + surface_put_text(s, LEFT_MARGIN, y, s->w - LEFT_MARGIN, line,
						  ROLE_STATUS);
	const char *tail = search ? (v->search_miss ? "   no match   Enter done  Esc cancel" :
							"   Enter done  Esc cancel  F3 next") :
			   export ? "   Enter write  Esc cancel  (.pb.gz .speedscope.json .folded)" :
				    "   Enter done  Esc clear  a|b either";
	if (used < s->w)
		used += surface_put_text(s, used, y, s->w - used, tail,
					 v->search_miss && search ? ROLE_NOTICE : ROLE_STATUS);
	return used;
}

static void render_footer(struct surface *s, int y, const struct snapshot *snap,
			  const struct view_state *v, bool replay)
{
	surface_fill(s, 0, y, s->w, " ", ROLE_STATUS);
	if (view_top(v)) {
		surface_put_text(s, LEFT_MARGIN, y, -1, view_top(v)->ops->hints, ROLE_STATUS);
		return;
	}
	(void)replay; /* the bar is the same in a replay: so are the keys (? lists the replay's) */
	int used;
	if (v->input != KEYS_INPUT_NONE)
		used = render_input(s, y, v);
	else if (v->message[0]) /* what w's writing said, until the next key */
		used = LEFT_MARGIN + surface_put_text(s, LEFT_MARGIN, y, s->w - LEFT_MARGIN, v->message,
						      ROLE_STATUS);
	else
		used = render_key_bar(s, y);
	if (snap && snap->nrows) {
		char pos[48];
		int n = snprintf(pos, sizeof(pos), "%zu/%zu", v->cursor + 1, snap->nrows);
		/* Only where it does not cover the hints. */
		if (s->w - n - 1 > used + 2)
			surface_put_text(s, s->w - n - 1, y, n, pos, ROLE_STATUS);
	}
}

/* kind: KEYS_SEVERAL, KEYS_TIME (ui/keytab.h). */
static void render_help(struct surface *s, bool replay, unsigned kind, const struct view *top)
{
	/* A drill-down view: its own keys, then those all views share; only the keys of this kind
	 * of session (Space means something else in each). */
	const struct keys_binding *list[64];
	size_t n = keys_help_for(top, replay, kind, list, ARRAY_SIZE(list));
	int keyw = 0, whatw = 0;
	for (size_t i = 0; i < n; i++) {
		keyw = clampi(surface_text_width(list[i]->keys), keyw, 40);
		whatw = clampi(surface_text_width(list[i]->help), whatw, 80);
	}
	char title[64];
	snprintf(title, sizeof(title), top ? " %s view keys " : " perftop keys ",
		 top ? top->ops->name : "");
	const char *foot = "Esc or ? closes this help";
	/* Too many keys for the height (a replay's on 24 lines): two columns, texts cut to fit,
	 * rather than keys falling off the bottom. */
	int ncol = (int)n + 4 > s->h && s->w >= 60 ? 2 : 1;
	size_t per = ((size_t)n + (size_t)ncol - 1) / (size_t)ncol;
	int bw = 2 + 2 + ncol * (keyw + 3 + whatw) + (ncol - 1) * 3 + 2;
	int bh = (int)per + 4;                  /* borders, title row gap, footer */
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
	int inner = bw - 4, colw = (inner - (ncol - 1) * 3) / ncol;
	if (ncol > 1 && keyw > colw / 2)
		keyw = colw / 2;
	for (size_t i = 0; i < n; i++) {
		int y = y0 + 1 + (int)(i % per), cx = x0 + 2 + (int)(i / per) * (colw + 3);
		if (y >= y0 + bh - 1)
			continue;
		surface_put_text_cut(s, cx, y, colw < keyw ? colw : keyw, list[i]->keys,
				     ROLE_COLHDR_SORTED);
		if (colw > keyw + 3)
			surface_put_text_cut(s, cx + keyw + 3, y, colw - keyw - 3, list[i]->help,
					     ROLE_NORMAL);
	}
	if (bh >= (int)per + 4)
		surface_put_text(s, x0 + 2, y0 + bh - 2, inner, foot, ROLE_DIM);
}

/* --- the i view --- */

#define INFO_NAME_MAX 28

/* Length of the "Name" in "Name: value", or -1 for a line that is not one (a continuation starts
 * with a space). */
static int info_name_len(const char *line)
{
	if (*line == ' ' || *line == '\t')
		return -1;
	const char *colon = strstr(line, ": ");
	return colon ? (int)(colon - line) : -1;
}

static void render_info(struct surface *s, const struct view_header *h, const struct view_state *v)
{
	size_t n = h ? h->ninfo : 0;
	const char *const *lines = h ? h->info : NULL;
	int rows = render_body_rows(s->h, h, v);
	char buf[128];

	surface_fill(s, 0, 0, s->w, " ", ROLE_HEADER);
	snprintf(buf, sizeof(buf), "perftop — %s (%zu lines)",
		 h && h->replay ? "recording header" : "session information", n);
	surface_put_text_cut(s, LEFT_MARGIN, 0, s->w - LEFT_MARGIN, buf, ROLE_HEADER);

	/* Values line up in one column after the names, as in perf report --header-only, unless a
	 * name is too long to be worth the indent. */
	int namew = 0;
	for (size_t i = 0; i < n && lines; i++) {
		int len = lines[i] ? info_name_len(lines[i]) : -1;
		if (len >= 0 && len <= INFO_NAME_MAX && len > namew)
			namew = len; /* names are ASCII: bytes are columns */
	}
	int valx = LEFT_MARGIN + namew + 2;
	size_t top = v->info_top;
	if (rows > 0 && n > (size_t)rows && top > n - (size_t)rows)
		top = n - (size_t)rows;
	if (n <= (size_t)rows)
		top = 0;
	if (n == 0 && rows > 0)
		surface_put_text(s, LEFT_MARGIN, 1, -1, "no header information for this session",
				 ROLE_DIM);
	for (int r = 0; r < rows && lines && top + (size_t)r < n; r++) {
		const char *line = lines[top + (size_t)r];
		int y = 1 + r;
		if (!line)
			continue;
		int len = info_name_len(line);
		if (len < 0 && (*line == ' ' || *line == '\t')) {
			while (*line == ' ' || *line == '\t')
				line++;
			surface_put_text_cut(s, valx, y, s->w - valx, line, ROLE_NORMAL);
		} else if (len >= 0 && len <= INFO_NAME_MAX) {
			char name[INFO_NAME_MAX + 2];
			snprintf(name, sizeof(name), "%.*s:", len, line);
			surface_put_text(s, LEFT_MARGIN, y, s->w - LEFT_MARGIN, name, ROLE_HEADER);
			surface_put_text_cut(s, valx, y, s->w - valx, line + len + 2, ROLE_NORMAL);
		} else {
			surface_put_text_cut(s, LEFT_MARGIN, y, s->w - LEFT_MARGIN, line, ROLE_NORMAL);
		}
	}

	if (s->h < 2)
		return;
	int fy = s->h - 1;
	surface_fill(s, 0, fy, s->w, " ", ROLE_STATUS);
	int used = surface_put_text(s, LEFT_MARGIN, fy, -1,
				    "Esc/i/q close  Up/Down PgUp/PgDn Home/End scroll", ROLE_STATUS);
	if (n) {
		size_t last = top + (size_t)(rows > 0 ? rows : 0);
		int len = snprintf(buf, sizeof(buf), "%zu-%zu/%zu", top + 1, last < n ? last : n, n);
		if (s->w - len - 1 > LEFT_MARGIN + used + 2)
			surface_put_text(s, s->w - len - 1, fy, len, buf, ROLE_STATUS);
	}
}

/* The kind of session the help lists keys for. */
static unsigned help_kind(const struct snapshot *snap, const struct view_state *v)
{
	return (v->nevents > 1 ? KEYS_SEVERAL : 0) | (snapshot_is_time(snap) ? KEYS_TIME : 0);
}

void render_frame(struct surface *s, const struct snapshot *snap, const struct view_header *h,
		  const struct view_state *v)
{
	surface_clear(s);
	if (s->w <= 0 || s->h <= 0)
		return;
	bool replay = h && h->replay;
	if (v->view == VIEW_INFO) {
		render_info(s, h, v);
		if (v->help)
			render_help(s, replay, help_kind(snap, v), NULL);
		return;
	}
	/* The footer keeps the last line from 2 lines up; everything else stops above it. */
	int footer = s->h >= 2 ? s->h - 1 : s->h;
	int y = 0;
	render_summary(s, y++, h);
	if (y < footer)
		render_mode(s, y++, snap, h, v);
	if (h && h->counters && y < footer)
		render_counters(s, y++, h);
	if (replay && y < footer)
		render_spark(s, y++, h, v);
	if (replay && y < footer)
		render_marks(s, y++, h, v);
	if (h && h->target_exited && y < footer) {
		char line[512];
		snprintf(line, sizeof(line), "%s — showing the last data; q quits",
			 h->exit_text ? h->exit_text : "the target exited");
		surface_put_text_cut(s, LEFT_MARGIN, y++, s->w - LEFT_MARGIN, line, ROLE_NOTICE);
	}
	if (h && h->notice && *h->notice && y < footer)
		surface_put_text_cut(s, LEFT_MARGIN, y++, s->w - LEFT_MARGIN, h->notice, ROLE_NOTICE);
	if (y < footer) {
		struct view *top = view_top(v);
		if (top)
			top->ops->render(top, s, y, footer - y, snap, v);
		else
			render_table(s, y, footer - y - 1, snap, v);
	}
	if (footer < s->h)
		render_footer(s, footer, snap, v, replay);
	if (v->help)
		render_help(s, replay, help_kind(snap, v), view_top(v));
}
