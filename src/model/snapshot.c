/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snapshot: copies a profile's rows into a plain array the views can keep while the model moves on,
 * with percentages worked out once and a deterministic order.
 *
 * Every order ends in a full tie-break (the other numbers, then the names, then the id) so that two
 * refreshes of equal data list rows identically and the cursor does not jump between equal rows.
 * The numeric columns compare the integer periods rather than the percentages: they share one
 * denominator, so the order is the same and no float rounding can make it unstable.
 */
#include "model/snapshot.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/radix.h"
#include "util/util.h"

static const char *const col_names[COL_COUNT] = {
	[COL_SELF] = "Self",       [COL_TOTAL] = "Total",  [COL_SAMPLES] = "Samples",
	[COL_COMM] = "Command",    [COL_PID] = "PID",      [COL_TID] = "TID",
	[COL_SYM] = "Symbol",      [COL_DSO] = "Shared Object", [COL_SRCLINE] = "Source:Line",
	[COL_DELTA] = "Delta",      [COL_STATE] = "State",  [COL_TIME] = "Time",
	[COL_BLOCKS] = "Blocks/s", [COL_LONGEST] = "Longest", [COL_CGROUP] = "Cgroup",
	[COL_CONTAINER] = "Container",
};

void snap_pid_text(uint32_t id, uint32_t nsid, char *buf, size_t len)
{
	if (nsid && nsid != id)
		snprintf(buf, len, "%" PRIu32 " (%" PRIu32 ")", id, nsid);
	else
		snprintf(buf, len, "%" PRIu32, id);
}

const char *snap_col_name(enum snap_col c)
{
	return (unsigned)c < COL_COUNT ? col_names[c] : "?";
}

/* Ascending; an unknown (NULL) value goes after every name so unresolved lines end up last. */
static int cmp_str(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a)
		return 1;
	if (!b)
		return -1;
	return strcmp(a, b);
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int cmp_u64_asc(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b ? 1 : 0;
}

/* The names in a fixed order, then the id: the last word of every ordering. */
static int cmp_names(const struct snap_row *a, const struct snap_row *b)
{
	int c;
	if ((c = cmp_str(a->sym, b->sym)) || (c = cmp_str(a->dso, b->dso)) ||
	    (c = cmp_str(a->comm, b->comm)) || (c = cmp_u64_asc(a->pid, b->pid)) ||
	    (c = cmp_u64_asc(a->tid, b->tid)) || (c = cmp_str(a->srcline, b->srcline)) ||
	    (c = cmp_u64_asc(a->state, b->state)) || (c = cmp_str(a->container, b->container)) ||
	    (c = cmp_str(a->cgroup, b->cgroup)))
		return c;
	return cmp_u64_asc(a->id, b->id);
}

/* Hottest first, for ties within a name column. */
static int cmp_heat(const struct snap_row *a, const struct snap_row *b)
{
	int c;
	if ((c = cmp_u64_desc(a->self_period, b->self_period)) ||
	    (c = cmp_u64_desc(a->total_period, b->total_period)))
		return c;
	return cmp_names(a, b);
}

#define ROWS(x, y)                                 \
	const struct snap_row *a = x, *b = y;      \
	int c

static int by_self(const void *x, const void *y)
{
	ROWS(x, y);
	if ((c = cmp_u64_desc(a->self_period, b->self_period)) ||
	    (c = cmp_u64_desc(a->total_period, b->total_period)))
		return c;
	return cmp_names(a, b);
}

static int by_total(const void *x, const void *y)
{
	ROWS(x, y);
	if ((c = cmp_u64_desc(a->total_period, b->total_period)) ||
	    (c = cmp_u64_desc(a->self_period, b->self_period)))
		return c;
	return cmp_names(a, b);
}

static int by_samples(const void *x, const void *y)
{
	ROWS(x, y);
	if ((c = cmp_u64_desc(a->samples, b->samples)))
		return c;
	return cmp_heat(a, b);
}

static int by_comm(const void *x, const void *y)
{
	ROWS(x, y);
	return (c = cmp_str(a->comm, b->comm)) ? c : cmp_heat(a, b);
}

static int by_cgroup(const void *x, const void *y)
{
	ROWS(x, y);
	return (c = cmp_str(a->cgroup, b->cgroup)) ? c : cmp_heat(a, b);
}

static int by_container(const void *x, const void *y)
{
	ROWS(x, y);
	return (c = cmp_str(a->container, b->container)) ? c : cmp_heat(a, b);
}

static int by_pid(const void *x, const void *y)
{
	ROWS(x, y);
	return (c = cmp_u64_asc(a->pid, b->pid)) ? c : cmp_heat(a, b);
}

static int by_tid(const void *x, const void *y)
{
	ROWS(x, y);
	return (c = cmp_u64_asc(a->tid, b->tid)) ? c : cmp_heat(a, b);
}

static int by_sym(const void *x, const void *y)
{
	ROWS(x, y);
	return (c = cmp_str(a->sym, b->sym)) ? c : cmp_heat(a, b);
}

static int by_dso(const void *x, const void *y)
{
	ROWS(x, y);
	return (c = cmp_str(a->dso, b->dso)) ? c : cmp_heat(a, b);
}

static int by_srcline(const void *x, const void *y)
{
	ROWS(x, y);
	return (c = cmp_str(a->srcline, b->srcline)) ? c : cmp_heat(a, b);
}

/* States in their numbers' order (on-CPU, S, D, R, R+ ...), as perf sched lists them. */
static int by_state(const void *x, const void *y)
{
	ROWS(x, y);
	return (c = cmp_u64_asc(a->state, b->state)) ? c : cmp_heat(a, b);
}

static int by_blocks(const void *x, const void *y)
{
	ROWS(x, y);
	c = cmp_u64_desc(snap_row_total_blocks(a), snap_row_total_blocks(b));
	return c ? c : cmp_heat(a, b);
}

static int by_longest(const void *x, const void *y)
{
	ROWS(x, y);
	c = cmp_u64_desc(snap_row_longest_ns(a), snap_row_longest_ns(b));
	return c ? c : cmp_heat(a, b);
}

/* The biggest change first, either way; gains before losses of the same size. The periods are
 * not comparable across the two sides, so this one compares the percentages. */
static int by_delta(const void *x, const void *y)
{
	const struct snap_row *a = x, *b = y;
	double da = a->delta < 0 ? -a->delta : a->delta, db = b->delta < 0 ? -b->delta : b->delta;
	if (da != db)
		return da < db ? 1 : -1;
	if (a->delta != b->delta)
		return a->delta < b->delta ? 1 : -1;
	return cmp_heat(a, b);
}

static int (*const comparators[COL_COUNT])(const void *, const void *) = {
	[COL_SELF] = by_self, [COL_TOTAL] = by_total, [COL_SAMPLES] = by_samples,
	[COL_COMM] = by_comm, [COL_PID] = by_pid,     [COL_TID] = by_tid,
	[COL_SYM] = by_sym,   [COL_DSO] = by_dso,     [COL_SRCLINE] = by_srcline,
	[COL_DELTA] = by_delta, [COL_STATE] = by_state, [COL_TIME] = by_total,
	[COL_BLOCKS] = by_blocks, [COL_LONGEST] = by_longest, [COL_CGROUP] = by_cgroup,
	[COL_CONTAINER] = by_container,
};

/*
 * The heat orders (Self or Total first, the other second, then the names) sort a compact array of
 * the two numbers first, and only runs of equal numbers by the names, then move each row once to
 * its place. The same order as qsort over the rows with the full comparator (every order here is
 * total), without loading two whole rows for every comparison: a replay of 25,000 rows, most of
 * them at 0 Self and a sample's Total, spent a tenth of its main thread in that sort, mostly in
 * comparing the names of those ties.
 */
struct heat_key {
	uint64_t first, second;
	uint32_t row;
};

static int cmp_heat_key(const void *x, const void *y)
{
	const struct heat_key *a = x, *b = y;
	int c = cmp_u64_desc(a->first, b->first);
	return c ? c : cmp_u64_desc(a->second, b->second);
}

/*
 * A row of a tie (same heat) with its symbol's first 16 bytes, big-endian, zero-padded: comparing
 * them orders as strcmp does, without a walk to the names (most of a big tie is unresolved
 * addresses, "0x00007f...", named in a pool far from the rows), which was most of a 25,000-row
 * sort's time.
 */
struct name_key {
	uint64_t p0, p1;
	uint32_t row;
	bool named;
};

static void name_prefix(const char *sym, uint64_t *p0, uint64_t *p1)
{
	unsigned char b[16] = { 0 };
	for (size_t i = 0; i < sizeof(b) && sym[i]; i++)
		b[i] = (unsigned char)sym[i];
	*p0 = *p1 = 0;
	for (size_t i = 0; i < 8; i++) {
		*p0 = *p0 << 8 | b[i];
		*p1 = *p1 << 8 | b[8 + i];
	}
}

static int cmp_name_key(const void *x, const void *y, void *rows)
{
	const struct name_key *a = x, *b = y;
	if (a->named && b->named) {
		if (a->p0 != b->p0)
			return a->p0 < b->p0 ? -1 : 1;
		if (a->p1 != b->p1)
			return a->p1 < b->p1 ? -1 : 1;
	}
	const struct snap_row *r = rows;
	return cmp_names(&r[a->row], &r[b->row]);
}

/* keys[0..n), of one heat, by name (cmp_names); tmp holds n. */
static void sort_tie(const struct snap_row *rows, struct heat_key *keys, size_t n, struct name_key *tmp)
{
	for (size_t k = 0; k < n; k++) {
		const char *sym = rows[keys[k].row].sym;
		tmp[k] = (struct name_key){ .row = keys[k].row, .named = sym != NULL };
		if (sym)
			name_prefix(sym, &tmp[k].p0, &tmp[k].p1);
	}
	qsort_r(tmp, n, sizeof(*tmp), cmp_name_key, (void *)rows);
	for (size_t k = 0; k < n; k++)
		keys[k].row = tmp[k].row;
}

/* Puts rows in the order of keys (keys[i].row: the row that goes to i), each row moved once. */
static void rows_permute(struct snap_row *rows, struct heat_key *keys, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (keys[i].row == UINT32_MAX || keys[i].row == i)
			continue;
		struct snap_row held = rows[i];
		size_t to = i;
		for (;;) {
			size_t from = keys[to].row;
			keys[to].row = UINT32_MAX;
			if (from == i) {
				rows[to] = held;
				break;
			}
			rows[to] = rows[from];
			to = from;
		}
	}
}

/* keys by heat, hottest first (cmp_heat_key's order; equal heats in row order): two stable radix
 * passes, the second column's then the first's, rather than a qsort of a big snapshot's rows. */
static void heat_order(struct heat_key *keys, size_t n)
{
	struct radix_kv *kv = xmalloc(2 * n * sizeof(*kv));
	for (size_t i = 0; i < n; i++)
		kv[i] = (struct radix_kv){ .key = ~keys[i].second, .val = i };
	struct radix_kv *by2 = radix_sort_kv(kv, kv + n, n);
	struct radix_kv *other = by2 == kv ? kv + n : kv;
	for (size_t i = 0; i < n; i++)
		other[i] = (struct radix_kv){ .key = ~keys[by2[i].val].first, .val = by2[i].val };
	struct radix_kv *by1 = radix_sort_kv(other, by2, n);
	struct heat_key *sorted = xmalloc(n * sizeof(*sorted));
	for (size_t i = 0; i < n; i++)
		sorted[i] = keys[by1[i].val];
	memcpy(keys, sorted, n * sizeof(*keys));
	free(sorted);
	free(kv);
}

static void sort_by_heat(struct snapshot *s, bool self_first)
{
	size_t n = s->nrows;
	struct heat_key *keys = xmalloc(n * sizeof(*keys));
	for (size_t i = 0; i < n; i++) {
		const struct snap_row *r = &s->rows[i];
		keys[i] = (struct heat_key){ self_first ? r->self_period : r->total_period,
					     self_first ? r->total_period : r->self_period, (uint32_t)i };
	}
	heat_order(keys, n);
	struct name_key *tmp = NULL;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && !cmp_heat_key(&keys[i], &keys[j]); j++)
			;
		if (j - i > 1) {
			if (!tmp)
				tmp = xmalloc(n * sizeof(*tmp));
			sort_tie(s->rows, keys + i, j - i, tmp);
		}
	}
	free(tmp);
	rows_permute(s->rows, keys, n);
	free(keys);
}

void snapshot_sort(struct snapshot *s, enum snap_col order)
{
	if ((unsigned)order >= COL_COUNT)
		order = COL_SELF;
	s->order = order;
	if (s->nrows <= 1)
		return;
	if (s->nrows < UINT32_MAX && (order == COL_SELF || order == COL_TOTAL || order == COL_TIME))
		sort_by_heat(s, order == COL_SELF);
	else
		qsort(s->rows, s->nrows, sizeof(*s->rows), comparators[order]);
}

void snapshot_invert(struct snapshot *s)
{
	for (size_t i = 0, j = s->nrows; s->nrows > 1 && i + 1 < j; i++, j--) {
		struct snap_row tmp = s->rows[i];
		s->rows[i] = s->rows[j - 1];
		s->rows[j - 1] = tmp;
	}
}

struct snapshot *profile_snapshot(const struct profile *p, enum snap_col order)
{
	struct snapshot *s = xcalloc(1, sizeof(*s));
	size_t n = profile_nrows(p);
	const struct profile_row *src = profile_rows(p);
	uint64_t total = profile_total_period(p);
	double scale = total ? 100.0 / (double)total : 0.0;

	s->rows = xmalloc_huge(n * sizeof(*s->rows));
	s->nrows = n;
	s->total_period = total;
	s->window_samples = profile_window_samples(p);
	s->window_lost = profile_window_lost(p);
	s->held_samples = profile_held_samples(p);
	s->runq_period = profile_runq_period(p);
	s->mode = profile_mode(p);
	s->window_secs = profile_window_secs(p);
	s->held_secs = profile_held_secs(p);
	s->nkeys = profile_nkeys(p);
	memcpy(s->keys, profile_keys(p), (size_t)s->nkeys * sizeof(s->keys[0]));
	const struct profile_time *times = profile_times(p);
	if (times) {
		s->times = xmalloc((n ? n : 1) * sizeof(*s->times));
		memcpy(s->times, times, n * sizeof(*s->times));
	}

	for (size_t i = 0; i < n; i++) {
		const struct profile_row *r = &src[i];
		s->rows[i] = (struct snap_row){
			.id = r->id,
			.comm = r->comm,
			.pid = r->pid,
			.tid = r->tid,
			.dso = r->dso,
			.sym = r->sym,
			.raw_sym = r->sym,
			.srcline = r->srcline,
			.state = r->state,
			.self_pct = (double)r->self_period * scale,
			.total_pct = (double)r->total_period * scale,
			.samples = r->samples,
			.self_period = r->self_period,
			.total_period = r->total_period,
			.time = s->times ? &s->times[i] : NULL,
			.main_pid = r->main_pid,
			.main_comm = r->main_comm,
			.cgroup = r->cgroup,
			.container = r->container,
			.nspid = r->nspid,
			.nstid = r->nstid,
			.main_container = r->main_container,
		};
	}
	snapshot_sort(s, order);
	return s;
}

void snapshot_free(struct snapshot *s)
{
	if (!s)
		return;
	if (!s->tree_borrowed)
		ct_snapshot_free(s->tree);
	if (s->names_release)
		s->names_release(s->names_hold);
	free(s->rows);
	free(s->times);
	free(s);
}

bool snapshot_is_time(const struct snapshot *s)
{
	return s && s->mode != PROFILE_SAMPLES;
}

double snapshot_per_sec(const struct snapshot *s, uint64_t count)
{
	return s && s->held_secs > 0 ? (double)count / s->held_secs : 0;
}

/* Row r seen through v, its time figures (if any) into *t; false when nothing is left of it. */
static bool row_runq(struct snap_row *r, enum runq_view v, double scale, struct profile_time *t)
{
	static const struct profile_time none;
	const struct profile_time *o = r->time ? r->time : &none;
	const struct profile_runq *q = &o->runq;
	uint64_t self = runq_pick(v, r->self_period, q->self_period);
	uint64_t total = runq_pick(v, r->total_period, q->total_period);
	if (!total && r->diff != SNAP_DIFF_GONE)
		return false;
	r->self_period = self;
	r->total_period = total;
	r->samples = runq_pick(v, r->samples, q->samples);
	if (r->time) {
		*t = (struct profile_time){
			.blocks = runq_pick(v, o->blocks, q->blocks),
			.total_blocks = runq_pick(v, o->total_blocks, q->total_blocks),
			.longest_ns = v == RUNQ_ALL ? o->longest_ns :
				      v == RUNQ_HIDE ? q->other_longest_ns : q->longest_ns,
		};
		t->runq = (struct profile_runq){
			.self_period = runq_pick_part(v, self, q->self_period),
			.total_period = runq_pick_part(v, total, q->total_period),
			.samples = runq_pick_part(v, r->samples, q->samples),
			.blocks = runq_pick_part(v, t->blocks, q->blocks),
			.total_blocks = runq_pick_part(v, t->total_blocks, q->total_blocks),
			.longest_ns = v == RUNQ_HIDE ? 0 : q->longest_ns,
			.other_longest_ns = v == RUNQ_ONLY ? 0 : q->other_longest_ns,
		};
		r->time = t;
	}
	if (r->diff == SNAP_DIFF_GONE)
		return true; /* the base's figures: nothing of it now */
	r->self_pct = (double)self * scale;
	r->total_pct = (double)total * scale;
	r->delta = r->self_pct - r->base_self;
	return true;
}

struct snapshot *snapshot_runq(const struct snapshot *full, enum runq_view v)
{
	struct snapshot *s = xcalloc(1, sizeof(*s));
	size_t n = full->nrows ? full->nrows : 1;
	*s = *full;
	s->rows = xmalloc_huge(n * sizeof(*s->rows));
	s->times = full->times ? xmalloc(n * sizeof(*s->times)) : NULL;
	s->nrows = 0;
	s->total_period = runq_pick(v, full->total_period, full->runq_period);
	s->runq_period = runq_pick_part(v, s->total_period, full->runq_period);
	s->runq = v;
	double scale = s->total_period ? 100.0 / (double)s->total_period : 0.0;
	for (size_t i = 0; i < full->nrows; i++) {
		s->rows[s->nrows] = full->rows[i];
		if (row_runq(&s->rows[s->nrows], v, scale, s->times ? &s->times[s->nrows] : NULL))
			s->nrows++;
	}
	s->tree = full->tree ? ct_snapshot_runq(full->tree, v) : NULL;
	s->tree_borrowed = false;
	s->names_hold = NULL;       /* the original holds the names; it outlives its copies */
	s->names_release = NULL;
	snapshot_sort(s, full->order);
	return s;
}

void snapshot_move_names(struct snapshot *s, frame_rename_fn rename, void *ctx)
{
	for (size_t i = 0; i < s->nrows; i++) {
		struct snap_row *r = &s->rows[i];
		r->comm = rename(ctx, r->comm);
		r->dso = rename(ctx, r->dso);
		r->sym = rename(ctx, r->sym);
		r->raw_sym = rename(ctx, r->raw_sym);
		r->srcline = rename(ctx, r->srcline);
		r->main_comm = rename(ctx, r->main_comm);
		r->cgroup = rename(ctx, r->cgroup);
		r->container = rename(ctx, r->container);
		r->main_container = rename(ctx, r->main_container);
	}
	for (size_t i = 0; s->tree && !s->tree_borrowed && i < s->tree->n; i++) {
		struct ct_snode *n = &s->tree->nodes[i];
		n->raw_sym = rename(ctx, n->raw_sym);
		n->sym = rename(ctx, n->sym);
		n->dso = rename(ctx, n->dso);
	}
}

long snapshot_find(const struct snapshot *s, uint64_t id)
{
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].id == id)
			return (long)i;
	return -1;
}

static int by_share(const void *x, const void *y)
{
	const struct snap_share *a = x, *b = y;
	if (a->pct != b->pct)
		return a->pct < b->pct ? 1 : -1;
	return cmp_str(a->container, b->container);
}

size_t snapshot_container_shares(const struct snapshot *s, struct snap_share *out, size_t max)
{
	bool keyed = false;
	for (int i = 0; i < s->nkeys; i++)
		keyed |= s->keys[i] == SORT_CONTAINER;
	if (!keyed || !max)
		return 0;
	/* Every distinct container summed, then the top ones kept. Containers are few next to rows,
	 * but a table may hold thousands of rows: a bounded list, the rest summed in no entry. */
	enum { SHARES_MAX = 256 };
	struct snap_share all[SHARES_MAX];
	size_t n = 0;
	for (size_t i = 0; i < s->nrows; i++) {
		const struct snap_row *r = &s->rows[i];
		if (!r->container)
			continue;
		size_t j = 0;
		while (j < n && all[j].container != r->container)
			j++;
		if (j == n) {
			if (n == SHARES_MAX)
				continue;
			all[n++] = (struct snap_share){ r->container, 0 };
		}
		all[j].pct += r->self_pct;
	}
	qsort(all, n, sizeof(all[0]), by_share);
	if (n > max)
		n = max;
	memcpy(out, all, n * sizeof(*out));
	return n;
}
