/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_calltree: the call tree and its queries with hand-made stacks.
 *
 * Static arrays stand in for interned strings (equal pointers, equal names). The checks: a plain
 * main -> top -> mid -> leaf_a / leaf_b fixture (callers, callees, flame graph and their sums);
 * recursion (f -> g -> f -> h) counted once; inline frames as nodes of their own; decay and zero
 * with the profile's semantics and Total agreeing with the profile's; ids stable across refreshes
 * and independent of pointers; a -s sym query (any dso); the node cap pruning the coldest subtrees
 * and counting them; a randomized run where every function's callers and callees sum to its
 * Total in the profile; and samples of several threads interleaved (the tree remembers each
 * thread's last path), through decays that drop nodes, checked node by node against a tree of
 * paths kept here by brute force.
 */
#include <stdlib.h>

#include "check.h"
#include "model/calltree.h"
#include "model/decay.h"
#include "model/profile.h"
#include "model/snapshot.h"

static char s_main[] = "main", s_top[] = "top", s_mid[] = "mid", s_la[] = "leaf_a",
	    s_lb[] = "leaf_b", s_f[] = "f", s_g[] = "g", s_h[] = "h", s_inl[] = "inl_helper";
static char s_app[] = "app", s_libc[] = "libc.so.6", s_kernel[] = "[kernel.kallsyms]";
static char s_comm[] = "app";

static struct frame fr(const char *sym, const char *dso)
{
	return (struct frame){ .sym = sym, .dso = dso };
}

static void add2(struct calltree *t, struct profile *p, uint64_t period, const struct frame *f,
		 int n)
{
	struct sample_ctx s = { .comm = s_comm, .pid = 1, .tid = 1, .period = period, .frames = f,
				.nframes = n };
	calltree_add(t, &s);
	if (p)
		profile_add(p, &s);
}

static const struct ct_node *child(const struct ct_result *r, const struct ct_node *n,
				   const char *sym)
{
	for (uint32_t i = 0; i < n->nchildren; i++) {
		const struct ct_node *c = &r->nodes[n->first_child + i];
		if (c->sym && strcmp(c->sym, sym) == 0)
			return c;
	}
	return NULL;
}

static struct calltree *fixture(void)
{
	struct calltree *t = calltree_new(0);
	struct frame a[] = { fr(s_la, s_app), fr(s_mid, s_app), fr(s_top, s_app), fr(s_main, s_app) };
	struct frame b[] = { fr(s_lb, s_app), fr(s_mid, s_app), fr(s_top, s_app), fr(s_main, s_app) };
	struct frame m[] = { fr(s_mid, s_app), fr(s_top, s_app), fr(s_main, s_app) };
	add2(t, NULL, 600, a, 4);
	add2(t, NULL, 300, b, 4);
	add2(t, NULL, 100, m, 3);
	add2(t, NULL, 50, NULL, 0); /* a sample without a stack: in the total only */
	return t;
}

static void test_fixture(void)
{
	struct calltree *t = fixture();
	CHECK_EQ_U64(calltree_nodes(t), 5);
	CHECK_EQ_U64(calltree_total(t), 1050);
	struct ct_snapshot *s = calltree_snapshot(t);

	struct ct_result *cl = calltree_callers(s, (struct ct_func){ s_la, s_app });
	CHECK_EQ_U64(cl->nodes[0].total, 600);
	CHECK_EQ_U64(cl->nodes[0].nchildren, 1);
	const struct ct_node *mid = child(cl, &cl->nodes[0], "mid");
	CHECK(mid && mid->total == 600);
	const struct ct_node *top = mid ? child(cl, mid, "top") : NULL;
	CHECK(top && top->total == 600 && top->depth == 2);
	CHECK(top && child(cl, top, "main"));
	CHECK_EQ_U64(cl->total, 1050);
	ct_result_free(cl);

	struct ct_result *ce = calltree_callees(s, (struct ct_func){ s_mid, s_app });
	CHECK_EQ_U64(ce->nodes[0].total, 1000);
	CHECK_EQ_U64(ce->nodes[0].self, 100);
	CHECK_EQ_U64(ce->nodes[0].nchildren, 2);
	/* Hottest first. */
	CHECK_STR(ce->nodes[1].sym, "leaf_a");
	CHECK_EQ_U64(ce->nodes[1].total, 600);
	CHECK_STR(ce->nodes[2].sym, "leaf_b");
	CHECK_EQ_U64(ce->nodes[2].self, 300);
	ct_result_free(ce);

	/* Callers of mid: top (1000), then main. */
	cl = calltree_callers(s, (struct ct_func){ s_mid, NULL });
	CHECK_EQ_U64(cl->nodes[0].total, 1000);
	CHECK(child(cl, &cl->nodes[0], "top") != NULL);
	ct_result_free(cl);

	struct ct_result *fl = calltree_flame(s, (struct ct_func){ 0 });
	CHECK(fl->nodes[0].sym == NULL);
	CHECK_EQ_U64(fl->nodes[0].total, 1000);
	CHECK_EQ_U64(fl->n, 6);
	const struct ct_node *n = child(fl, &fl->nodes[0], "main");
	n = n ? child(fl, n, "top") : NULL;
	n = n ? child(fl, n, "mid") : NULL;
	CHECK(n && n->nchildren == 2);
	/* Ordered by name in a flame graph. */
	CHECK(n && strcmp(fl->nodes[n->first_child].sym, "leaf_a") == 0);
	uint64_t id_la = n ? fl->nodes[n->first_child].id : 0;
	ct_result_free(fl);

	/* The flame graph of mid's subtree. */
	fl = calltree_flame(s, (struct ct_func){ s_mid, s_app });
	CHECK_STR(fl->nodes[0].sym, "mid");
	CHECK_EQ_U64(fl->n, 3);
	ct_result_free(fl);

	/* A function not in the window: an empty result that still names it. */
	cl = calltree_callers(s, (struct ct_func){ s_h, s_app });
	CHECK_EQ_U64(cl->n, 1);
	CHECK_STR(cl->nodes[0].sym, "h");
	CHECK_EQ_U64(cl->nodes[0].total, 0);
	ct_result_free(cl);
	ct_snapshot_free(s);

	/* The ids survive a refresh with other weights. */
	calltree_end_window(t, false);
	struct frame b[] = { fr(s_lb, s_app), fr(s_mid, s_app), fr(s_top, s_app), fr(s_main, s_app) };
	add2(t, NULL, 5000, b, 4);
	s = calltree_snapshot(t);
	fl = calltree_flame(s, (struct ct_func){ 0 });
	long at = ct_result_find(fl, id_la);
	CHECK(at > 0 && strcmp(fl->nodes[at].sym, "leaf_a") == 0);
	ct_result_free(fl);
	ct_snapshot_free(s);
	calltree_free(t);
}

/* Ids hash contents: the same names at other addresses give the same ids. */
static void test_ids_by_content(void)
{
	static char m2[] = "main", t2[] = "top", a2[] = "app";
	struct calltree *t1 = calltree_new(0), *t2t = calltree_new(0);
	struct frame x[] = { fr(s_top, s_app), fr(s_main, s_app) };
	struct frame y[] = { fr(t2, a2), fr(m2, a2) };
	add2(t1, NULL, 10, x, 2);
	add2(t2t, NULL, 10, y, 2);
	struct ct_snapshot *s1 = calltree_snapshot(t1), *s2 = calltree_snapshot(t2t);
	struct ct_result *r1 = calltree_flame(s1, (struct ct_func){ 0 });
	struct ct_result *r2 = calltree_flame(s2, (struct ct_func){ 0 });
	CHECK(r1->n == 3 && r2->n == 3);
	for (size_t i = 0; i < r1->n && i < r2->n; i++)
		CHECK_EQ_U64(r1->nodes[i].id, r2->nodes[i].id);
	CHECK_EQ_U64(calltree_func_id((struct ct_func){ s_top, s_app }),
		     calltree_func_id((struct ct_func){ t2, a2 }));
	/* Callers and callees of one function do not share ids (one cursor walks both). */
	struct ct_result *c1 = calltree_callers(s1, (struct ct_func){ s_top, s_app });
	struct ct_result *c2 = calltree_callees(s1, (struct ct_func){ s_top, s_app });
	CHECK(c1->nodes[0].id != c2->nodes[0].id);
	ct_result_free(c1);
	ct_result_free(c2);
	ct_result_free(r1);
	ct_result_free(r2);
	ct_snapshot_free(s1);
	ct_snapshot_free(s2);
	calltree_free(t1);
	calltree_free(t2t);
}

/* f -> g -> f -> h: f's Total is the sample once; its callees show g -> f -> h. */
static void test_recursion(void)
{
	struct calltree *t = calltree_new(0);
	struct profile *p = profile_new(NULL, 0);
	struct frame r[] = { fr(s_h, s_app), fr(s_f, s_app), fr(s_g, s_app), fr(s_f, s_app),
			     fr(s_main, s_app) };
	struct frame d[] = { fr(s_f, s_app), fr(s_main, s_app) };
	add2(t, p, 100, r, 5);
	add2(t, p, 20, d, 2);
	struct ct_snapshot *s = calltree_snapshot(t);
	struct ct_result *ce = calltree_callees(s, (struct ct_func){ s_f, s_app });
	CHECK_EQ_U64(ce->nodes[0].total, 120);
	CHECK_EQ_U64(ce->nodes[0].self, 20);
	const struct ct_node *g = child(ce, &ce->nodes[0], "g");
	const struct ct_node *f2 = g ? child(ce, g, "f") : NULL;
	const struct ct_node *h = f2 ? child(ce, f2, "h") : NULL;
	CHECK(g && f2 && h && h->total == 100 && h->self == 100);
	struct ct_result *cl = calltree_callers(s, (struct ct_func){ s_f, s_app });
	CHECK_EQ_U64(cl->nodes[0].total, 120);
	CHECK_EQ_U64(cl->nodes[0].nchildren, 1); /* main only: the inner f's caller g is not counted */
	CHECK(child(cl, &cl->nodes[0], "main") != NULL);
	struct snapshot *snap = profile_snapshot(p, COL_SELF);
	for (size_t i = 0; i < snap->nrows; i++)
		if (snap->rows[i].sym == s_f)
			CHECK_EQ_U64(snap->rows[i].total_period, ce->nodes[0].total);
	snapshot_free(snap);
	ct_result_free(ce);
	ct_result_free(cl);
	ct_snapshot_free(s);
	calltree_free(t);
	profile_free(p);
}

/* An inline frame is a node of its own, marked; a -s sym query matches any dso. */
static void test_inline_and_any_dso(void)
{
	struct calltree *t = calltree_new(0);
	struct frame a[] = { { .sym = s_inl, .dso = s_app, .inlined = true }, fr(s_mid, s_app),
			     fr(s_main, s_app) };
	struct frame b[] = { fr(s_mid, s_libc), fr(s_main, s_app) };
	struct frame k[] = { { .sym = s_h, .dso = s_kernel, .kernel = true }, fr(s_mid, s_app),
			     fr(s_main, s_app) };
	add2(t, NULL, 10, a, 3);
	add2(t, NULL, 5, b, 2);
	add2(t, NULL, 1, k, 3);
	struct ct_snapshot *s = calltree_snapshot(t);
	struct ct_result *ce = calltree_callees(s, (struct ct_func){ s_mid, s_app });
	CHECK_EQ_U64(ce->nodes[0].total, 11);
	const struct ct_node *inl = child(ce, &ce->nodes[0], "inl_helper");
	CHECK(inl && inl->inlined && inl->total == 10);
	const struct ct_node *kh = child(ce, &ce->nodes[0], "h");
	CHECK(kh && kh->kernel);
	ct_result_free(ce);
	ce = calltree_callees(s, (struct ct_func){ s_mid, NULL });
	CHECK_EQ_U64(ce->nodes[0].total, 16);
	ct_result_free(ce);
	ct_snapshot_free(s);
	calltree_free(t);
}

/* A node whose share falls under 1/20000 of the tree goes at the next decay, with its subtree;
 * its period stays in its caller's total. */
static void test_faded_nodes_go(void)
{
	struct calltree *t = calltree_new(0);
	struct frame hot[] = { fr(s_mid, s_app), fr(s_main, s_app) };
	struct frame cold[] = { fr(s_la, s_app), fr(s_top, s_app), fr(s_main, s_app) };
	add2(t, NULL, 1000000, hot, 2);
	add2(t, NULL, 40, cold, 3); /* 40/1000040: under 0.005% once decayed */
	add2(t, NULL, 100, cold + 1, 2); /* top alone: 140 in all, kept */
	CHECK_EQ_U64(calltree_nodes(t), 4);
	calltree_end_window(t, false);
	CHECK_EQ_U64(calltree_nodes(t), 3); /* leaf_a went; main, mid, top stay */
	struct ct_snapshot *s = calltree_snapshot(t);
	struct ct_result *ce = calltree_callees(s, (struct ct_func){ s_top, s_app });
	CHECK_EQ_U64(ce->nodes[0].total, 140 * 7 / 8);
	CHECK_EQ_U64(ce->nodes[0].nchildren, 0);
	ct_result_free(ce);
	ct_snapshot_free(s);
	calltree_free(t);
}

static void test_decay_zero(void)
{
	struct calltree *t = fixture();
	calltree_end_window(t, false);
	CHECK_EQ_U64(calltree_total(t), 875 + 43); /* 1000 x 7/8 + 50 x 7/8 */
	for (int i = 0; i < 200; i++)
		calltree_end_window(t, false);
	CHECK_EQ_U64(calltree_nodes(t), 0);
	CHECK_EQ_U64(calltree_total(t), 0);
	calltree_free(t);

	t = fixture();
	calltree_end_window(t, true);
	CHECK_EQ_U64(calltree_nodes(t), 0);
	CHECK_EQ_U64(calltree_total(t), 0);
	struct ct_snapshot *s = calltree_snapshot(t);
	struct ct_result *fl = calltree_flame(s, (struct ct_func){ 0 });
	CHECK_EQ_U64(fl->n, 1);
	ct_result_free(fl);
	ct_snapshot_free(s);
	calltree_free(t);
}

/* A cap of 64 nodes with many cold single-sample stacks and one hot one: the hot one stays, what
 * goes is counted. */
static void test_cap(void)
{
	struct calltree *t = calltree_new(64);
	static char names[300][12];
	struct frame hot[] = { fr(s_la, s_app), fr(s_mid, s_app), fr(s_main, s_app) };
	for (int i = 0; i < 300; i++) {
		snprintf(names[i], sizeof(names[i]), "cold%d", i);
		struct frame c[] = { fr(names[i], s_app), fr(s_top, s_app), fr(s_main, s_app) };
		add2(t, NULL, 1000, hot, 3);
		add2(t, NULL, 1, c, 3);
		CHECK(calltree_nodes(t) <= 64 + 3);
	}
	CHECK(calltree_pruned_nodes(t) > 0);
	CHECK(calltree_pruned_period(t) > 0);
	CHECK_EQ_U64(calltree_total(t), 300 * 1001);
	struct ct_snapshot *s = calltree_snapshot(t);
	struct ct_result *ce = calltree_callees(s, (struct ct_func){ s_mid, s_app });
	CHECK_EQ_U64(ce->nodes[0].total, 300000);
	ct_result_free(ce);
	CHECK_EQ_U64(s->pruned_nodes, calltree_pruned_nodes(t));
	ct_snapshot_free(s);
	calltree_free(t);
}

static uint64_t rng = 0x1234567;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Random stacks over 8 functions (recursion included): for every function, the callers tree and
 * the callees tree both sum to the profile's Total, across decays. */
static void test_random_sums(void)
{
	static char fn[8][4] = { "a", "b", "c", "d", "e", "f", "g", "h" };
	struct calltree *t = calltree_new(0);
	struct profile *p = profile_new(NULL, 0);
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 3000; i++) {
			struct frame f[12];
			int n = 1 + (int)(rnd() % 12);
			for (int k = 0; k < n; k++)
				f[k] = fr(fn[rnd() % 8], s_app);
			add2(t, p, 1 + rnd() % 100, f, n);
		}
		struct snapshot *snap = profile_snapshot(p, COL_SELF);
		struct ct_snapshot *s = calltree_snapshot(t);
		/* The same samples; after decays the two round per node / per row, so they may differ
		 * by a few units of period (never a visible share). */
		CHECK(s->total <= snap->total_period + snap->total_period / 1000 &&
		      snap->total_period <= s->total + s->total / 1000);
		if (round == 0)
			CHECK_EQ_U64(s->total, snap->total_period);
		for (size_t r = 0; r < snap->nrows; r++) {
			struct ct_func f = { snap->rows[r].raw_sym, snap->rows[r].dso };
			struct ct_result *cl = calltree_callers(s, f), *ce = calltree_callees(s, f);
			if (round == 0) {
				CHECK_EQ_U64(cl->nodes[0].total, snap->rows[r].total_period);
				CHECK_EQ_U64(cl->nodes[0].self, snap->rows[r].self_period);
			}
			CHECK_EQ_U64(ce->nodes[0].total, cl->nodes[0].total);
			/* Children never exceed their parent. */
			for (size_t i = 0; i < ce->n; i++) {
				uint64_t sum = ce->nodes[i].self;
				for (uint32_t c = 0; c < ce->nodes[i].nchildren; c++)
					sum += ce->nodes[ce->nodes[i].first_child + c].total;
				CHECK(sum <= ce->nodes[i].total);
			}
			ct_result_free(cl);
			ct_result_free(ce);
		}
		snapshot_free(snap);
		ct_snapshot_free(s);
		calltree_end_window(t, false);
		profile_end_window(p, false);
	}
	calltree_free(t);
	profile_free(p);
}

/* The reference: every path (root first, as the syms' indices in base 8, depth in front) with
 * its total and self, decayed and dropped as the tree's contract says. */
#define REF_MAX 4096
struct ref_path {
	uint64_t key, total, self;
	bool gone;
};
static struct ref_path refs[REF_MAX];
static int nrefs;

static struct ref_path *ref_find(uint64_t key)
{
	for (int i = 0; i < nrefs; i++)
		if (refs[i].key == key && !refs[i].gone)
			return &refs[i];
	return NULL;
}

static struct ref_path *ref_get(uint64_t key)
{
	struct ref_path *r = ref_find(key);
	if (r)
		return r;
	if (nrefs == REF_MAX)
		return NULL;
	refs[nrefs] = (struct ref_path){ .key = key };
	return &refs[nrefs++];
}

/* A path of depth d whose frames (root first) are syms s[0..d-1]: d in the top byte. */
static uint64_t ref_key(const int *s, int d)
{
	uint64_t k = 0;
	for (int i = 0; i < d; i++)
		k = k * 8 + (uint64_t)s[i];
	return k | (uint64_t)d << 56;
}

static int ref_depth(uint64_t key)
{
	return (int)(key >> 56);
}

static uint64_t ref_parent(uint64_t key)
{
	int d = ref_depth(key);
	return ((key & ((1ull << 56) - 1)) / 8) | (uint64_t)(d - 1) << 56;
}

static void test_threads_paths(void)
{
	static char fn[8][4] = { "a", "b", "c", "d", "e", "f", "g", "h" };
	struct calltree *t = calltree_new(0);
	uint64_t root_total = 0;
	nrefs = 0;
	/* Each thread walks a deep stack that changes near its leaf, with now and then a new root:
	 * the shape whose callers the tree takes from its memory of the thread. */
	int stacks[7][10], depth[7];
	for (int th = 0; th < 7; th++) {
		depth[th] = 3 + th % 5;
		for (int k = 0; k < 10; k++)
			stacks[th][k] = (int)(rnd() % 8);
	}
	for (int round = 0; round < 6; round++) {
		for (int i = 0; i < 2000; i++) {
			int th = (int)(rnd() % 7);
			if (rnd() % 200 == 0)
				stacks[th][0] = (int)(rnd() % 8);
			stacks[th][depth[th] - 1 - (int)(rnd() % 2)] = (int)(rnd() % 8);
			/* A frame-less thread's sample, a short one, or the whole stack. */
			int d = rnd() % 9 == 0 ? 1 + (int)(rnd() % (unsigned)depth[th]) : depth[th];
			struct frame f[10];
			for (int k = 0; k < d; k++)
				f[d - 1 - k] = fr(fn[stacks[th][k]], s_app);
			uint64_t period = 1 + rnd() % 50;
			struct sample_ctx s = { .comm = s_comm, .pid = 1, .tid = 100 + th,
						.period = period, .frames = f, .nframes = d };
			calltree_add(t, &s);
			root_total += period;
			for (int k = 1; k <= d; k++) {
				struct ref_path *r = ref_get(ref_key(stacks[th], k));
				CHECK(r != NULL);
				if (!r)
					continue;
				r->total += period;
				if (k == d)
					r->self += period;
			}
		}
		struct ct_snapshot *s = calltree_snapshot(t);
		CHECK_EQ_U64(s->total, root_total);
		/* Both ways: each node of the tree is a path of the reference with its figures, and the
		 * tree has as many nodes as the reference has paths. */
		uint64_t *key = calloc(s->n, sizeof(*key));
		int live = 0;
		for (int i = 0; i < nrefs; i++)
			live += !refs[i].gone;
		CHECK_EQ_U64(s->n - 1, (uint64_t)live);
		for (size_t i = 1; i < s->n; i++) {
			const struct ct_snode *c = &s->nodes[i];
			int sym = c->raw_sym[0] - 'a';
			uint64_t pk = key[c->parent];
			int d = c->parent ? ref_depth(pk) + 1 : 1;
			key[i] = ((pk & ((1ull << 56) - 1)) * 8 + (uint64_t)sym) | (uint64_t)d << 56;
			struct ref_path *r = ref_find(key[i]);
			CHECK(r != NULL);
			if (r) {
				CHECK_EQ_U64(c->total, r->total);
				CHECK_EQ_U64(c->self, r->self);
			}
		}
		free(key);
		ct_snapshot_free(s);
		/* The window ends: both decay, and a faded path goes with everything under it. */
		calltree_end_window(t, false);
		root_total = decay_x78(root_total);
		for (int i = 0; i < nrefs; i++) {
			refs[i].total = decay_x78(refs[i].total);
			refs[i].self = decay_x78(refs[i].self);
		}
		for (int d = 1; d <= 10; d++) {
			for (int i = 0; i < nrefs; i++) {
				if (refs[i].gone || ref_depth(refs[i].key) != d)
					continue;
				bool parent_gone = d > 1 && !ref_find(ref_parent(refs[i].key));
				refs[i].gone = parent_gone || decay_faded(refs[i].total, root_total);
			}
		}
		int kept = 0;
		for (int i = 0; i < nrefs; i++)
			if (!refs[i].gone)
				refs[kept++] = refs[i];
		nrefs = kept;
	}
	calltree_free(t);
}

int main(void)
{
	test_fixture();
	test_ids_by_content();
	test_recursion();
	test_inline_and_any_dso();
	test_decay_zero();
	test_faded_nodes_go();
	test_cap();
	test_random_sums();
	test_threads_paths();
	return CHECK_DONE();
}
