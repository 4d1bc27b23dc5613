/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * render_bench: how long a full redraw of the main table takes with 10,000 rows, headless. Each
 * round renders the whole frame into a surface (what the view does at every refresh before the
 * terminal sees anything) and, separately, dumps it to text (the terminal-less path the tests use);
 * the median and the 90th percentile over the rounds are printed, at 80x24 and 200x60. Also the
 * flame graph of a call tree of ~10,000 nodes, the heaviest drill-down view, and a whole refresh of
 * the table (the model's snapshot of a 10,000-row profile, sorted, then the render), which is what
 * must fit in a 100 ms refresh interval.
 *
 *   render_bench [ROWS] [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/calltree.h"
#include "model/profile.h"
#include "model/snapshot.h"
#include "ui/keys.h"
#include "ui/render.h"
#include "ui/surface.h"
#include "ui/view.h"
#include "util/util.h"

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void report(const char *what, double *ms, int n)
{
	qsort(ms, (size_t)n, sizeof(*ms), cmp_d);
	printf("%-36s median %.3f ms   p90 %.3f ms\n", what, ms[n / 2], ms[n * 9 / 10]);
}

int main(int argc, char **argv)
{
	size_t rows = argc > 1 ? (size_t)atol(argv[1]) : 10000;
	int rounds = argc > 2 ? atoi(argv[2]) : 200;
	static const char *const dsos[] = { "app", "libc.so.6", "libz.so.1", "[kernel.kallsyms]" };
	char **names = xcalloc(rows, sizeof(*names));
	struct snapshot *s = xcalloc(1, sizeof(*s));
	s->rows = xcalloc(rows, sizeof(*s->rows));
	s->nrows = rows;
	s->nkeys = 2;
	s->keys[0] = SORT_DSO;
	s->keys[1] = SORT_SYM;
	uint64_t total = 0;
	for (size_t i = 0; i < rows; i++) {
		names[i] = xmalloc(64);
		snprintf(names[i], 64, "function_number_%zu_of_the_bench", i);
		struct snap_row *r = &s->rows[i];
		r->id = i + 1;
		r->sym = r->raw_sym = names[i];
		r->dso = dsos[i % 4];
		r->self_period = 1000000 / (i + 1);
		r->total_period = r->self_period * 2;
		r->samples = r->self_period / 1000;
		total += r->self_period;
	}
	for (size_t i = 0; i < rows; i++) {
		s->rows[i].self_pct = 100.0 * (double)s->rows[i].self_period / (double)total;
		s->rows[i].total_pct = 100.0 * (double)s->rows[i].total_period / (double)total;
	}
	s->total_period = total;
	snapshot_sort(s, COL_SELF);

	/* A call tree: 100 callers x 100 callees under main, for the flame graph. */
	struct calltree *t = calltree_new(0);
	static char s_main[] = "main";
	for (size_t i = 0; i < 100; i++)
		for (size_t j = 0; j < 100; j++) {
			struct frame f[3] = {
				{ .sym = names[(100 + j) % rows], .dso = "app" },
				{ .sym = names[i % rows], .dso = "app" },
				{ .sym = s_main, .dso = "app" },
			};
			struct sample_ctx c = { .period = 1 + i * j, .frames = f, .nframes = 3 };
			calltree_add(t, &c);
		}
	s->tree = calltree_snapshot(t);

	struct view_header h = { .target = "command: bench", .event = "cpu-clock", .freq = 4000 };
	static const int sizes[][2] = { { 80, 24 }, { 200, 60 } };
	double *ms = xcalloc((size_t)rounds, sizeof(*ms));
	char label[96];
	for (size_t k = 0; k < ARRAY_SIZE(sizes); k++) {
		struct surface *surf = surface_new(sizes[k][0], sizes[k][1]);
		struct view_state v;
		keys_state_init(&v);
		keys_follow(&v, s, render_table_rows(surf->h, &h));
		for (int i = 0; i < rounds; i++) {
			uint64_t t0 = now_ns();
			render_frame(surf, s, &h, &v);
			ms[i] = (double)(now_ns() - t0) / 1e6;
		}
		snprintf(label, sizeof(label), "table %zu rows %dx%d: render", rows, surf->w, surf->h);
		report(label, ms, rounds);
		for (int i = 0; i < rounds; i++) {
			uint64_t t0 = now_ns();
			render_frame(surf, s, &h, &v);
			char *text = surface_to_text(surf);
			ms[i] = (double)(now_ns() - t0) / 1e6;
			free(text);
		}
		snprintf(label, sizeof(label), "table %zu rows %dx%d: render+text", rows, surf->w,
			 surf->h);
		report(label, ms, rounds);

		keys_handle(&v, 'f', s, render_body_rows(surf->h, &h, &v));
		for (int i = 0; i < rounds; i++) {
			uint64_t t0 = now_ns();
			keys_follow(&v, s, render_table_rows(surf->h, &h)); /* the rebuild of a refresh */
			render_frame(surf, s, &h, &v);
			ms[i] = (double)(now_ns() - t0) / 1e6;
		}
		snprintf(label, sizeof(label), "flame %zu nodes %dx%d: rebuild+render",
			 s->tree->n - 1, surf->w, surf->h);
		report(label, ms, rounds);
		keys_state_done(&v);
		surface_free(surf);
	}
	/* A whole table refresh from the model: snapshot (copy + sort) of ROWS rows, then the render. */
	enum sort_key keys[2] = { SORT_DSO, SORT_SYM };
	struct profile *p = profile_new(keys, 2);
	for (size_t i = 0; i < rows; i++) {
		struct frame f = { .sym = names[i], .dso = dsos[i % 4] };
		struct sample_ctx c = { .comm = "bench", .period = 1000000 / (i + 1) + 1, .frames = &f,
					.nframes = 1 };
		profile_add(p, &c);
	}
	struct surface *surf = surface_new(200, 60);
	struct view_state v;
	keys_state_init(&v);
	for (int i = 0; i < rounds; i++) {
		uint64_t t0 = now_ns();
		struct snapshot *fresh = profile_snapshot(p, COL_SELF);
		keys_follow(&v, fresh, render_table_rows(surf->h, &h));
		render_frame(surf, fresh, &h, &v);
		ms[i] = (double)(now_ns() - t0) / 1e6;
		snapshot_free(fresh);
	}
	snprintf(label, sizeof(label), "refresh %zu rows 200x60: snapshot+render", rows);
	report(label, ms, rounds);
	keys_state_done(&v);
	surface_free(surf);
	profile_free(p);

	free(ms);
	calltree_free(t);
	snapshot_free(s);
	for (size_t i = 0; i < rows; i++)
		free(names[i]);
	free(names);
	return 0;
}
