/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * calltree: the prefix tree of callchains, its window, its snapshots and the drill-down queries.
 *
 * The live tree is one dense array of nodes in creation order, so a parent always sits before its
 * children; that order is what lets the decay, the pruning and every query work in one straight pass
 * (a node's parent has already been seen) instead of recursing over pointer-linked children. A node
 * is found under its parent through an open-addressing table keyed on (parent, symbol pointer, dso
 * pointer, inlined): the strings are interned, so pointers are identities and a sample's walk never
 * touches string bytes. Removing nodes (decay, pruning) compacts the array, keeping the order, and
 * rebuilds the table, once per window, like the profile does with its rows.
 *
 * Queries merge nodes into a result tree through a small builder (the same kind of table, keyed on
 * the result's parent), then lay it out breadth-first so that each node's children are contiguous
 * and sorted: the UI walks a result by index and never allocates.
 */
#include "model/calltree.h"

#include <stdlib.h>
#include <string.h>

#include "model/decay.h"
#include "util/hash.h"
#include "util/util.h"

#define CT_NONE UINT32_MAX
#define CT_PATH_DEPTH 128
#define CT_PATH_SLOTS 4  /* a power of two */
#define CT_MIN_NODES 64

struct ct_live {
	const char *sym, *dso;
	uint32_t parent;
	bool inlined, kernel;
	uint64_t total, self;
};

/* A table slot: node index + 1 (0 = empty). */
struct calltree {
	struct ct_live *nodes;
	size_t n, cap, max_nodes;
	uint32_t *table;
	size_t table_cap; /* a power of two, at least twice n */
	uint64_t orphan;  /* period of the samples without frames (counted in the total only) */
	uint64_t runq_orphan; /* its run-queue part */
	/* The nodes' run-queue parts, index for index (calltree.h); NULL until the first wait. */
	struct ct_runq *runq;
	size_t runq_cap;
	uint64_t pruned_nodes, pruned_period;
	/* The last path (node indices, from the root's child down) of the samples of a few threads,
	 * by tid: a thread's next sample mostly shares its callers, whose nodes are then checked in
	 * place instead of looked up (a hash, a table slot and a node each, cache misses all). An
	 * index is only a guess: it is taken when the node there has the frame's key under the
	 * parent just found, which no other node can have, so nodes moved or dropped since (decay,
	 * pruning, a reset) just fail the check. */
	struct ct_path {
		uint32_t node[CT_PATH_DEPTH];
		int n;
	} paths[CT_PATH_SLOTS];
};

/* --- hashing ----------------------------------------------------------------------------------- */

static uint64_t key_hash(uint32_t parent, const char *sym, const char *dso, bool inlined)
{
	uint64_t h = hash_mix64(0x9e3779b97f4a7c15ULL ^ parent ^ ((uint64_t)inlined << 40));
	h = hash_mix64(h ^ (uintptr_t)sym);
	return hash_mix64(h ^ (uintptr_t)dso);
}

static uint64_t name_id(uint64_t parent_id, const char *sym, const char *dso, bool inlined)
{
	uint64_t h = hash_str(parent_id ^ 0xcbf29ce484222325ULL, sym);
	h = hash_str(h ^ (inlined ? 0x1f : 0x2e), dso);
	return h ? h : 1;
}

uint64_t calltree_func_id(struct ct_func f)
{
	return name_id(0x5eed, f.raw_sym, f.dso, false);
}

/* --- the live tree ----------------------------------------------------------------------------- */

static void table_insert(uint32_t *table, size_t cap, uint32_t idx, uint64_t h)
{
	size_t mask = cap - 1;
	size_t i = h & mask;
	while (table[i])
		i = (i + 1) & mask;
	table[i] = idx + 1;
}

static void table_rebuild(struct calltree *t, size_t cap)
{
	if (cap != t->table_cap) {
		free(t->table);
		t->table = xcalloc(cap, sizeof(*t->table));
		t->table_cap = cap;
	} else {
		memset(t->table, 0, cap * sizeof(*t->table));
	}
	for (size_t i = 1; i < t->n; i++) {
		const struct ct_live *c = &t->nodes[i];
		table_insert(t->table, cap, (uint32_t)i, key_hash(c->parent, c->sym, c->dso, c->inlined));
	}
}

static void reset_root(struct calltree *t)
{
	t->n = 1;
	t->nodes[0] = (struct ct_live){ .parent = 0 };
	if (t->runq)
		t->runq[0] = (struct ct_runq){ 0 };
	memset(t->table, 0, t->table_cap * sizeof(*t->table));
}

struct calltree *calltree_new(size_t max_nodes)
{
	struct calltree *t = xcalloc(1, sizeof(*t));
	t->max_nodes = max_nodes ? max_nodes : CALLTREE_DEFAULT_MAX_NODES;
	if (t->max_nodes < CT_MIN_NODES)
		t->max_nodes = CT_MIN_NODES;
	t->cap = 1024;
	t->nodes = xcalloc(t->cap, sizeof(*t->nodes));
	t->table_cap = 2048;
	t->table = xcalloc(t->table_cap, sizeof(*t->table));
	reset_root(t);
	return t;
}

void calltree_free(struct calltree *t)
{
	if (!t)
		return;
	free(t->nodes);
	free(t->runq);
	free(t->table);
	free(t);
}

static uint32_t child_get(struct calltree *t, uint32_t parent, const struct frame *f)
{
	uint64_t h = key_hash(parent, f->sym, f->dso, f->inlined);
	size_t mask = t->table_cap - 1;
	for (size_t i = h & mask; t->table[i]; i = (i + 1) & mask) {
		const struct ct_live *c = &t->nodes[t->table[i] - 1];
		if (c->parent == parent && c->sym == f->sym && c->dso == f->dso &&
		    c->inlined == f->inlined)
			return t->table[i] - 1;
	}
	size_t idx = t->n;
	xgrow_huge((void **)&t->nodes, &t->cap, idx + 1, sizeof(*t->nodes));
	t->nodes[idx] = (struct ct_live){ .sym = f->sym, .dso = f->dso, .parent = parent,
					  .inlined = f->inlined, .kernel = f->kernel };
	if (t->runq) {
		xgrow((void **)&t->runq, &t->runq_cap, idx + 1, sizeof(*t->runq));
		t->runq[idx] = (struct ct_runq){ 0 };
	}
	t->n++;
	if (t->n * 2 > t->table_cap)
		table_rebuild(t, t->table_cap * 2);
	else
		table_insert(t->table, t->table_cap, (uint32_t)idx, h);
	return (uint32_t)idx;
}

/* Keeps the nodes with keep[i] (a set closed under "parent kept"), in order, and rebuilds. */
static void compact(struct calltree *t, const bool *keep)
{
	uint32_t *remap = xmalloc(t->n * sizeof(*remap));
	size_t kept = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (!keep[i]) {
			remap[i] = CT_NONE;
			continue;
		}
		remap[i] = (uint32_t)kept;
		struct ct_live c = t->nodes[i];
		c.parent = i ? remap[c.parent] : 0;
		if (t->runq)
			t->runq[kept] = t->runq[i];
		t->nodes[kept++] = c;
	}
	free(remap);
	t->n = kept;
	size_t cap = t->table_cap;
	while (cap > 2048 && kept * 8 < cap)
		cap /= 2;
	table_rebuild(t, cap);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Over the cap: drop the coldest subtrees down to 3/4 of it, so pruning is not paid every sample.
 * A child's total never exceeds its parent's, so "total below a threshold" takes whole subtrees;
 * ties at the threshold go in creation order until enough have gone. */
static void prune(struct calltree *t)
{
	size_t target = t->max_nodes / 4 * 3, n = t->n;
	if (n <= target)
		return;
	size_t need = n - target;
	uint64_t *tot = xmalloc((n - 1) * sizeof(*tot));
	for (size_t i = 1; i < n; i++)
		tot[i - 1] = t->nodes[i].total;
	qsort(tot, n - 1, sizeof(*tot), cmp_u64);
	uint64_t thr = tot[need - 1];
	size_t below = 0;
	for (size_t i = 0; i < n - 1 && tot[i] < thr; i++)
		below++;
	free(tot);
	size_t ties = need - below;

	bool *keep = xmalloc(n * sizeof(*keep));
	keep[0] = true;
	for (size_t i = 1; i < n; i++) {
		const struct ct_live *c = &t->nodes[i];
		bool drop = !keep[c->parent] || c->total < thr;
		if (!drop && c->total == thr && ties > 0) {
			drop = true;
			ties--;
		}
		keep[i] = !drop;
		if (drop) {
			t->pruned_nodes++;
			/* The top of a dropped subtree carries its period; it stays in the parent's total. */
			if (keep[c->parent])
				t->pruned_period += c->total;
		}
	}
	compact(t, keep);
	free(keep);
}

/* The run-queue part of a sample just added, whose leaf is node leaf: up its path to the root
 * (the parents' indices are below their children's, and the walk stops at the root). */
static void calltree_add_runq(struct calltree *t, uint32_t leaf, uint64_t runq)
{
	t->runq[leaf].self += runq;
	for (uint32_t i = leaf;; i = t->nodes[i].parent) {
		t->runq[i].total += runq;
		if (!i)
			break;
	}
}

void calltree_add(struct calltree *t, const struct sample_ctx *s)
{
	if (t->n > t->max_nodes)
		prune(t);
	uint64_t runq = profile_state_is_runq(s->state) ? s->period : 0;
	if (s->nframes <= 0 || !s->frames) {
		t->orphan += s->period;
		t->runq_orphan += runq;
		return;
	}
	if (runq && !t->runq) {
		t->runq_cap = t->cap;
		t->runq = xcalloc(t->runq_cap, sizeof(*t->runq));
	}
	uint32_t cur = 0;
	t->nodes[0].total += s->period;
	struct ct_path *path = &t->paths[s->tid & (CT_PATH_SLOTS - 1)];
	int depth = 0;
	bool same = true;
	for (int i = s->nframes - 1; i >= 0; i--, depth++) {
		const struct frame *f = &s->frames[i];
		uint32_t next = CT_NONE;
		if (same && depth < path->n && path->node[depth] < t->n) {
			const struct ct_live *c = &t->nodes[path->node[depth]];
			if (c->parent == cur && c->sym == f->sym && c->dso == f->dso &&
			    c->inlined == f->inlined)
				next = path->node[depth];
		}
		if (next == CT_NONE) {
			same = false;
			next = child_get(t, cur, f);
		}
		if (depth < CT_PATH_DEPTH)
			path->node[depth] = next;
		cur = next;
		t->nodes[cur].total += s->period;
	}
	path->n = depth < CT_PATH_DEPTH ? depth : CT_PATH_DEPTH;
	t->nodes[cur].self += s->period;
	if (runq)
		calltree_add_runq(t, cur, runq);
}

/* Decays *all and its run-queue part *part apart, as the profile does (profile.c): what is left
 * without the part is exactly the decay of what was added without it. */
static void decay_split(uint64_t *all, uint64_t *part)
{
	uint64_t p = decay_x78(*part);
	*all = decay_x78(*all - *part) + p;
	*part = p;
}

/* Node i's decay. */
static void decay_node(struct calltree *t, size_t i)
{
	struct ct_live *c = &t->nodes[i];
	if (!t->runq) {
		c->total = decay_x78(c->total);
		c->self = decay_x78(c->self);
		return;
	}
	decay_split(&c->total, &t->runq[i].total);
	decay_split(&c->self, &t->runq[i].self);
}

void calltree_end_window(struct calltree *t, bool zero)
{
	if (zero) {
		t->orphan = t->runq_orphan = 0;
		reset_root(t);
		return;
	}
	decay_split(&t->orphan, &t->runq_orphan);
	bool *keep = xmalloc(t->n * sizeof(*keep));
	bool any_gone = false;
	keep[0] = true;
	decay_node(t, 0);
	uint64_t whole = calltree_total(t);
	for (size_t i = 1; i < t->n; i++) {
		struct ct_live *c = &t->nodes[i];
		decay_node(t, i);
		/* Decay is monotonic, so a faded node has faded children: whole subtrees go. Their
		 * period stays in their callers' Total, as pruning leaves it. */
		keep[i] = keep[c->parent] && !decay_faded(c->total, whole);
		any_gone |= !keep[i];
	}
	if (any_gone)
		compact(t, keep);
	free(keep);
}

void calltree_move_names(struct calltree *t, frame_rename_fn rename, void *ctx)
{
	for (size_t i = 1; i < t->n; i++) {
		t->nodes[i].sym = rename(ctx, t->nodes[i].sym);
		t->nodes[i].dso = rename(ctx, t->nodes[i].dso);
	}
	table_rebuild(t, t->table_cap);  /* keyed on the pointers */
}

size_t calltree_nodes(const struct calltree *t)
{
	return t->n - 1;
}

uint64_t calltree_total(const struct calltree *t)
{
	return t->nodes[0].total + t->orphan;
}

uint64_t calltree_pruned_nodes(const struct calltree *t)
{
	return t->pruned_nodes;
}

uint64_t calltree_pruned_period(const struct calltree *t)
{
	return t->pruned_period;
}

/* --- snapshots --------------------------------------------------------------------------------- */

struct ct_snapshot *calltree_snapshot(const struct calltree *t)
{
	struct ct_snapshot *s = xcalloc(1, sizeof(*s));
	s->n = t->n;
	s->nodes = xmalloc(t->n * sizeof(*s->nodes));
	for (size_t i = 0; i < t->n; i++) {
		const struct ct_live *c = &t->nodes[i];
		s->nodes[i] = (struct ct_snode){ .parent = c->parent, .inlined = c->inlined,
						 .kernel = c->kernel, .raw_sym = c->sym, .sym = c->sym,
						 .dso = c->dso, .total = c->total,
						 .self = c->self };
	}
	if (t->runq) {
		s->runq = xmalloc(t->n * sizeof(*s->runq));
		memcpy(s->runq, t->runq, t->n * sizeof(*s->runq));
	}
	s->total = calltree_total(t);
	s->runq_total = (t->runq ? t->runq[0].total : 0) + t->runq_orphan;
	s->pruned_nodes = t->pruned_nodes;
	s->pruned_period = t->pruned_period;
	return s;
}

struct ct_snapshot *ct_snapshot_runq(const struct ct_snapshot *s, enum runq_view v)
{
	static const struct ct_runq none;
	struct ct_snapshot *o = xcalloc(1, sizeof(*o));
	size_t cap = s->n ? s->n : 1;
	*o = *s;
	o->nodes = xmalloc(cap * sizeof(*o->nodes));
	/* The copy's own parts: none left when they are hidden. */
	o->runq = s->runq && v != RUNQ_HIDE ? xmalloc(cap * sizeof(*o->runq)) : NULL;
	o->n = 0;
	o->total = runq_pick(v, s->total, s->runq_total);
	o->runq_total = runq_pick_part(v, o->total, s->runq_total);
	uint32_t *remap = xmalloc(cap * sizeof(*remap));
	for (size_t i = 0; i < s->n; i++) {
		const struct ct_snode *c = &s->nodes[i];
		const struct ct_runq *q = s->runq ? &s->runq[i] : &none;
		uint64_t total = runq_pick(v, c->total, q->total);
		remap[i] = CT_NONE;
		if (i && (!total || remap[c->parent] == CT_NONE))
			continue;
		struct ct_snode *d = &o->nodes[o->n];
		*d = *c;
		d->parent = i ? remap[c->parent] : 0;
		d->total = total;
		d->self = runq_pick(v, c->self, q->self);
		if (o->runq)
			o->runq[o->n] = (struct ct_runq){ runq_pick_part(v, d->total, q->total),
							  runq_pick_part(v, d->self, q->self) };
		remap[i] = (uint32_t)o->n++;
	}
	free(remap);
	return o;
}

void ct_snapshot_free(struct ct_snapshot *s)
{
	if (!s)
		return;
	free(s->nodes);
	free(s->runq);
	free(s);
}

void ct_snapshot_rename(struct ct_snapshot *s, const char *(*name)(void *ctx, const char *raw),
			void *ctx)
{
	for (size_t i = 1; i < s->n; i++)
		s->nodes[i].sym = s->nodes[i].raw_sym ? name(ctx, s->nodes[i].raw_sym) : NULL;
}

/* --- the result builder ------------------------------------------------------------------------ */

struct bnode {
	const struct ct_snode *src; /* names and flags (NULL for an "all" root) */
	uint32_t parent, first, next; /* children as a linked list until the layout */
	uint64_t total, self;
};

struct builder {
	struct bnode *v;
	size_t n, cap;
	uint32_t *table;
	size_t table_cap;
};

static void builder_init(struct builder *b, const struct ct_snode *root_src)
{
	memset(b, 0, sizeof(*b));
	b->cap = 64;
	b->v = xcalloc(b->cap, sizeof(*b->v));
	b->table_cap = 128;
	b->table = xcalloc(b->table_cap, sizeof(*b->table));
	b->v[0] = (struct bnode){ .src = root_src, .first = CT_NONE, .next = CT_NONE };
	b->n = 1;
}

static uint64_t bkey(uint32_t parent, const struct ct_snode *s)
{
	return key_hash(parent, s->raw_sym, s->dso, s->inlined);
}

/* The child of parent named like s, created when new. */
static uint32_t builder_get(struct builder *b, uint32_t parent, const struct ct_snode *s)
{
	uint64_t h = bkey(parent, s);
	size_t mask = b->table_cap - 1;
	for (size_t i = h & mask; b->table[i]; i = (i + 1) & mask) {
		const struct bnode *c = &b->v[b->table[i] - 1];
		if (c->parent == parent && c->src->raw_sym == s->raw_sym && c->src->dso == s->dso &&
		    c->src->inlined == s->inlined)
			return b->table[i] - 1;
	}
	size_t idx = b->n;
	xgrow((void **)&b->v, &b->cap, idx + 1, sizeof(*b->v));
	b->v[idx] = (struct bnode){ .src = s, .parent = parent, .first = CT_NONE,
				    .next = b->v[parent].first };
	b->v[parent].first = (uint32_t)idx;
	b->n++;
	if (b->n * 2 > b->table_cap) {
		free(b->table);
		b->table_cap *= 2;
		b->table = xcalloc(b->table_cap, sizeof(*b->table));
		for (size_t i = 1; i < b->n; i++)
			table_insert(b->table, b->table_cap, (uint32_t)i, bkey(b->v[i].parent, b->v[i].src));
	} else {
		table_insert(b->table, b->table_cap, (uint32_t)idx, h);
	}
	return (uint32_t)idx;
}

static int name_cmp(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a)
		return -1;
	if (!b)
		return 1;
	return strcmp(a, b);
}

/* Same names, then the id: a total order, so equal data always lays out the same. */
static int cmp_names(const struct ct_node *a, const struct ct_node *b)
{
	int c;
	if ((c = name_cmp(a->sym, b->sym)) || (c = name_cmp(a->dso, b->dso)))
		return c;
	if (a->inlined != b->inlined)
		return a->inlined ? 1 : -1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int cmp_by_total(const void *x, const void *y)
{
	const struct ct_node *a = x, *b = y;
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return cmp_names(a, b);
}

static int cmp_by_name(const void *x, const void *y)
{
	return cmp_names(x, y);
}

/* Breadth-first layout: children contiguous and sorted, ids from the path. */
static struct ct_result *builder_done(struct builder *b, uint64_t root_id, uint64_t total,
				      bool by_name)
{
	struct ct_result *r = xcalloc(1, sizeof(*r));
	r->nodes = xcalloc(b->n, sizeof(*r->nodes));
	r->total = total;
	uint32_t *orig = xmalloc(b->n * sizeof(*orig)); /* result index -> builder index */
	const struct bnode *root = &b->v[0];
	r->nodes[0] = (struct ct_node){ .id = root_id, .total = root->total, .self = root->self };
	if (root->src) {
		r->nodes[0].raw_sym = root->src->raw_sym;
		r->nodes[0].sym = root->src->sym;
		r->nodes[0].dso = root->src->dso;
		r->nodes[0].inlined = root->src->inlined;
		r->nodes[0].kernel = root->src->kernel;
	}
	orig[0] = 0;
	size_t n = 1;
	for (size_t i = 0; i < n; i++) {
		struct ct_node *p = &r->nodes[i];
		p->first_child = (uint32_t)n;
		for (uint32_t c = b->v[orig[i]].first; c != CT_NONE; c = b->v[c].next) {
			const struct bnode *bn = &b->v[c];
			r->nodes[n] = (struct ct_node){
				.id = name_id(p->id, bn->src->raw_sym, bn->src->dso, bn->src->inlined),
				.raw_sym = bn->src->raw_sym, .sym = bn->src->sym, .dso = bn->src->dso,
				.inlined = bn->src->inlined, .kernel = bn->src->kernel,
				.depth = p->depth + 1, .total = bn->total, .self = bn->self,
				.parent = (uint32_t)i,
			};
			orig[n++] = c;
		}
		p->nchildren = (uint32_t)n - p->first_child;
		if (p->nchildren > 1) {
			/* Sort the children together with their builder indices. */
			struct pair {
				struct ct_node node;
				uint32_t orig;
			} *tmp = xmalloc(p->nchildren * sizeof(*tmp));
			for (uint32_t k = 0; k < p->nchildren; k++)
				tmp[k] = (struct pair){ r->nodes[p->first_child + k], orig[p->first_child + k] };
			qsort(tmp, p->nchildren, sizeof(*tmp), by_name ? cmp_by_name : cmp_by_total);
			for (uint32_t k = 0; k < p->nchildren; k++) {
				r->nodes[p->first_child + k] = tmp[k].node;
				orig[p->first_child + k] = tmp[k].orig;
			}
			free(tmp);
		}
	}
	r->n = n;
	free(orig);
	free(b->v);
	free(b->table);
	return r;
}

static bool func_match(const struct ct_snode *s, struct ct_func f)
{
	return s->raw_sym == f.raw_sym && (!f.dso || s->dso == f.dso);
}

/* The first node of f, to name the result's root (NULL when f is not in the window). */
static const struct ct_snode *func_node(const struct ct_snapshot *s, struct ct_func f)
{
	for (size_t i = 1; i < s->n; i++)
		if (func_match(&s->nodes[i], f))
			return &s->nodes[i];
	return NULL;
}

/* An empty result naming f, for a function that has left the window: the view keeps its place. */
static struct ct_result *empty_result(struct ct_func f, uint64_t root_id, uint64_t total)
{
	struct ct_result *r = xcalloc(1, sizeof(*r));
	r->nodes = xcalloc(1, sizeof(*r->nodes));
	r->n = 1;
	r->total = total;
	r->nodes[0] = (struct ct_node){ .id = root_id, .raw_sym = f.raw_sym, .sym = f.raw_sym,
					.dso = f.dso };
	return r;
}

/* anc[i]: some strict ancestor of node i is f. Parents come first, so one pass does it. */
static bool *ancestors_of(const struct ct_snapshot *s, struct ct_func f)
{
	bool *anc = xcalloc(s->n, sizeof(*anc));
	for (size_t i = 1; i < s->n; i++) {
		uint32_t p = s->nodes[i].parent;
		anc[i] = p && (anc[p] || func_match(&s->nodes[p], f));
	}
	return anc;
}

static uint64_t callers_root_id(struct ct_func f)
{
	return hash_mix64(calltree_func_id(f) ^ 0xca11e25ULL) | 1;
}

struct ct_result *calltree_callers(const struct ct_snapshot *s, struct ct_func f)
{
	const struct ct_snode *fn = func_node(s, f);
	if (!fn)
		return empty_result(f, callers_root_id(f), s->total);
	bool *anc = ancestors_of(s, f);
	struct builder b;
	builder_init(&b, fn);
	for (size_t i = 1; i < s->n; i++) {
		const struct ct_snode *c = &s->nodes[i];
		if (!func_match(c, f))
			continue;
		b.v[0].self += c->self;
		if (anc[i])
			continue; /* an inner f of a recursion: its period is in the outer one already */
		b.v[0].total += c->total;
		uint32_t cur = 0;
		for (uint32_t p = c->parent; p; p = s->nodes[p].parent) {
			cur = builder_get(&b, cur, &s->nodes[p]);
			b.v[cur].total += c->total;
		}
		/* The outermost frame of the path: the samples' share that starts here. */
		if (cur)
			b.v[cur].self += c->total;
	}
	free(anc);
	return builder_done(&b, callers_root_id(f), s->total, false);
}

/* The subtree of every outermost f, merged under one root. */
static struct ct_result *callees(const struct ct_snapshot *s, struct ct_func f, bool by_name)
{
	const struct ct_snode *fn = func_node(s, f);
	uint64_t root_id = calltree_func_id(f);
	if (!fn)
		return empty_result(f, root_id, s->total);
	uint32_t *map = xmalloc(s->n * sizeof(*map));
	struct builder b;
	builder_init(&b, fn);
	map[0] = CT_NONE;
	for (size_t i = 1; i < s->n; i++) {
		const struct ct_snode *c = &s->nodes[i];
		uint32_t pm = map[c->parent];
		if (pm != CT_NONE)
			map[i] = builder_get(&b, pm, c);
		else if (func_match(c, f))
			map[i] = 0;
		else
			map[i] = CT_NONE;
		if (map[i] != CT_NONE) {
			b.v[map[i]].total += c->total;
			b.v[map[i]].self += c->self;
		}
	}
	free(map);
	return builder_done(&b, root_id, s->total, by_name);
}

struct ct_result *calltree_callees(const struct ct_snapshot *s, struct ct_func f)
{
	return callees(s, f, false);
}

struct ct_result *calltree_flame(const struct ct_snapshot *s, struct ct_func f)
{
	if (f.raw_sym)
		return callees(s, f, true);
	uint32_t *map = xmalloc(s->n * sizeof(*map));
	struct builder b;
	builder_init(&b, NULL);
	map[0] = 0;
	b.v[0].total = s->n ? s->nodes[0].total : 0;
	for (size_t i = 1; i < s->n; i++) {
		const struct ct_snode *c = &s->nodes[i];
		map[i] = builder_get(&b, map[c->parent], c);
		b.v[map[i]].total += c->total;
		b.v[map[i]].self += c->self;
	}
	free(map);
	return builder_done(&b, name_id(0xa11, NULL, NULL, false), s->total, true);
}

void ct_result_free(struct ct_result *r)
{
	if (!r)
		return;
	free(r->nodes);
	free(r);
}

long ct_result_find(const struct ct_result *r, uint64_t id)
{
	for (size_t i = 0; r && i < r->n; i++)
		if (r->nodes[i].id == id)
			return (long)i;
	return -1;
}
