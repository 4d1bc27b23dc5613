/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diff: the baseline's rows in a hash table by id (open addressing, ids are hashes already and
 * never 0), so applying it to a snapshot costs one probe per row plus one pass over the base for
 * the rows that are gone. The base owns copies of its strings: the snapshot it came from may
 * belong to a session that is closed right after.
 */
#include "model/diff.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

struct base_row {
	uint64_t id;
	double self_pct, total_pct;
	char *comm, *dso, *sym, *raw_sym, *srcline, *cgroup, *container;
	uint32_t pid, tid;
	uint8_t state;
};

struct diff_base {
	struct base_row *rows;
	size_t nrows;
	size_t *slots;        /* index + 1 into rows; 0 = empty */
	size_t nslots;        /* a power of two, at least twice nrows */
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static size_t slot_of(const struct diff_base *b, uint64_t id)
{
	size_t mask = b->nslots - 1, i = (size_t)(id ^ (id >> 29)) & mask;
	while (b->slots[i] && b->rows[b->slots[i] - 1].id != id)
		i = (i + 1) & mask;
	return i;
}

struct diff_base *diff_base_new(const struct snapshot *base)
{
	struct diff_base *b = xcalloc(1, sizeof(*b));
	b->nrows = base ? base->nrows : 0;
	b->rows = xcalloc(b->nrows ? b->nrows : 1, sizeof(*b->rows));
	b->nslots = 16;
	while (b->nslots < 2 * b->nrows)
		b->nslots *= 2;
	b->slots = xcalloc(b->nslots, sizeof(*b->slots));
	for (size_t i = 0; i < b->nrows; i++) {
		const struct snap_row *r = &base->rows[i];
		b->rows[i] = (struct base_row){
			.id = r->id,
			.self_pct = r->self_pct,
			.total_pct = r->total_pct,
			.comm = dup_or_null(r->comm),
			.dso = dup_or_null(r->dso),
			.sym = dup_or_null(r->sym),
			.raw_sym = dup_or_null(r->raw_sym),
			.srcline = dup_or_null(r->srcline),
			.cgroup = dup_or_null(r->cgroup),
			.container = dup_or_null(r->container),
			.pid = r->pid,
			.tid = r->tid,
			.state = r->state,
		};
		b->slots[slot_of(b, r->id)] = i + 1;
	}
	return b;
}

void diff_base_free(struct diff_base *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nrows; i++) {
		struct base_row *r = &b->rows[i];
		free(r->comm);
		free(r->dso);
		free(r->sym);
		free(r->raw_sym);
		free(r->srcline);
		free(r->cgroup);
		free(r->container);
	}
	free(b->rows);
	free(b->slots);
	free(b);
}

size_t diff_base_nrows(const struct diff_base *b)
{
	return b ? b->nrows : 0;
}

void diff_apply(const struct diff_base *b, struct snapshot *s)
{
	if (!b || !s)
		return;
	/* In the time modes the table's figures are Total's (an off-CPU stack's Self is always the
	 * scheduler's): so is the change. */
	bool by_total = snapshot_is_time(s);
	/* Which base rows found a counterpart: those left over are the gone rows. */
	unsigned char *seen = xcalloc(b->nrows ? b->nrows : 1, 1);
	size_t gone = b->nrows;
	for (size_t i = 0; i < s->nrows; i++) {
		struct snap_row *r = &s->rows[i];
		size_t slot = b->slots[slot_of(b, r->id)];
		if (slot) {
			const struct base_row *br = &b->rows[slot - 1];
			r->base_self = by_total ? br->total_pct : br->self_pct;
			r->diff = SNAP_DIFF_BOTH;
			if (!seen[slot - 1]) {
				seen[slot - 1] = 1;
				gone--;
			}
		} else {
			r->base_self = 0;
			r->diff = SNAP_DIFF_NEW;
		}
		r->delta = (by_total ? r->total_pct : r->self_pct) - r->base_self;
	}
	if (gone) {
		s->rows = xrealloc(s->rows, (s->nrows + gone) * sizeof(*s->rows));
		for (size_t i = 0; i < b->nrows; i++) {
			if (seen[i])
				continue;
			const struct base_row *br = &b->rows[i];
			s->rows[s->nrows++] = (struct snap_row){
				.id = br->id,
				.comm = br->comm,
				.pid = br->pid,
				.tid = br->tid,
				.dso = br->dso,
				.sym = br->sym,
				.raw_sym = br->raw_sym,
				.srcline = br->srcline,
				.cgroup = br->cgroup,
				.container = br->container,
				.state = br->state,
				.base_self = by_total ? br->total_pct : br->self_pct,
				.delta = by_total ? -br->total_pct : -br->self_pct,
				.diff = SNAP_DIFF_GONE,
			};
		}
	}
	free(seen);
	s->diff = true;
	snapshot_sort(s, s->order);
}
