/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * memrows: the heap cost of one row of the view, measured: a profile of N rows (distinct names, as
 * the churn's unnamed addresses are) with the call tree and the annotate histogram fed by the same
 * samples, then one refresh's snapshot of each (the view holds one while the next is made), with
 * malloc's own count of bytes in use (mallinfo2) before and after. Prints bytes per row for the
 * memory model of docs/performance.md (bench/memory.sh runs it).
 *
 * usage: memrows [N]
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/annotate.h"
#include "model/calltree.h"
#include "model/profile.h"
#include "model/snapshot.h"

static size_t in_use(void)
{
	struct mallinfo2 m = mallinfo2();
	return m.uordblks + m.hblkhd;  /* big blocks are mmap'ed: hblkhd */
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	/* The names themselves are the symbolizer's (counted apart: ~20 bytes each in its pool). */
	char (*names)[24] = malloc(n * sizeof(*names));
	for (size_t i = 0; i < n; i++)
		snprintf(names[i], sizeof(names[i]), "0x%016zx", i);
	static const char dso[] = "[unknown]", comm[] = "proc", root[] = "main", app[] = "app";
	size_t before = in_use();
	struct profile *p = profile_new(NULL, 0);
	struct calltree *t = calltree_new(0);
	struct annotate *an = annotate_new(0);
	for (size_t i = 0; i < n; i++) {
		struct frame f[2] = { { .sym = names[i], .dso = dso, .addr = i, .va = 0x1000 + i },
				      { .sym = root, .dso = app, .va = 0x10 } };
		struct sample_ctx s = { .comm = comm, .pid = 1, .tid = 1, .period = 1000, .frames = f,
					.nframes = 2 };
		profile_add(p, &s);
		calltree_add(t, &s);
		annotate_add(an, &s);
	}
	size_t model = in_use() - before;
	struct snapshot *snap = profile_snapshot(p, COL_SELF);
	snap->tree = calltree_snapshot(t);
	struct an_snapshot *as = annotate_snapshot(an);
	size_t snaps = in_use() - before - model;
	printf("rows %zu: model %.0f B/row (profile, call tree, annotate), snapshots %.0f B/row, "
	       "total %.0f B/row\n", n, (double)model / n, (double)snaps / n, (double)(model + snaps) / n);
	an_snapshot_free(as);
	snapshot_free(snap);
	annotate_free(an);
	calltree_free(t);
	profile_free(p);
	free(names);
	return 0;
}
