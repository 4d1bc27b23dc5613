/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * calltree: the callchains of the window as a prefix tree, for the drill-down views.
 *
 * Each sample's frames (leaf first, as the symbolizer gives them) are walked from the outermost
 * caller to the leaf; every frame is a node keyed by its function (dso + symbol, like a row of the
 * dso,sym table) under its caller's node, inline frames being nodes of their own marked inlined.
 * A node's total is the period of the samples whose stack passes through it, its self the period
 * of the samples that end there. The tree is fed next to the profile and follows the same window:
 * calltree_end_window decays it x7/8 (or zeroes it), and nodes whose total has faded below what a
 * view can show (model/decay.h) go.
 *
 * Memory is bounded: past max_nodes the coldest subtrees are pruned (a child's total never exceeds
 * its parent's, so "every node under a threshold" is a set of whole subtrees) and what was pruned
 * is counted (nodes, period), never silently lost from the view: the pruned period stays in the
 * parent's total, so percentages keep their meaning.
 *
 * Each node also keeps the run-queue part (states R, R+: profile.h) of its total and self, so a
 * snapshot can be seen without the run-queue waits or with them alone (ct_snapshot_runq); in an
 * array beside the nodes made at the first run-queue wait, so that a tree without any costs what
 * it did.
 *
 * The views never read the live tree. calltree_snapshot copies it into a plain, immutable
 * ct_snapshot (one array, parents before children) that travels with the table's snapshot; the
 * queries below are pure functions of it and return ct_result trees (plain structs, children
 * contiguous, ordered) whose node ids hash the path of names from the result's root, so the UI's
 * cursor and expansion state survive refreshes. The model never includes curses.
 */
#ifndef PERFTOP_CALLTREE_H
#define PERFTOP_CALLTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

#define CALLTREE_DEFAULT_MAX_NODES 200000

struct calltree;

/* max_nodes 0: CALLTREE_DEFAULT_MAX_NODES (and never below 64). */
struct calltree *calltree_new(size_t max_nodes);
void calltree_free(struct calltree *t);

/* Adds one sample (its period, its frames leaf first; strings interned by the caller). A sample
 * without frames only counts in the total. */
void calltree_add(struct calltree *t, const struct sample_ctx *s);
/* Decay x7/8 (integer, per node) or zero; nodes whose total reaches 0 are dropped. */
void calltree_end_window(struct calltree *t, bool zero);

size_t calltree_nodes(const struct calltree *t);
uint64_t calltree_total(const struct calltree *t);
/* What pruning has dropped since the tree was made (nodes, and the period of their subtrees). */
uint64_t calltree_pruned_nodes(const struct calltree *t);
uint64_t calltree_pruned_period(const struct calltree *t);

/* --- snapshots --------------------------------------------------------------------------------- */

struct ct_snode {
	uint32_t parent;          /* index; the root (index 0) is its own parent */
	bool inlined, kernel;
	const char *raw_sym, *dso; /* identity (interned pointers); NULL for the root */
	const char *sym;          /* as shown: raw_sym, or its demangled form (see ct_snapshot_rename) */
	uint64_t total, self;
};

/* The run-queue part of a node's total and self. */
struct ct_runq {
	uint64_t total, self;
};

struct ct_snapshot {
	struct ct_snode *nodes;   /* nodes[0] is the root; a parent's index is below its children's */
	size_t n;
	uint64_t total;           /* every sample's period, stacks or not: the percentages' denominator */
	uint64_t runq_total;      /* its run-queue part */
	struct ct_runq *runq;     /* the nodes' run-queue parts, index for index; NULL: none */
	uint64_t pruned_nodes, pruned_period;
};

/* The names were compacted (util/frame.h): every node's names become rename(ctx, name). */
void calltree_move_names(struct calltree *t, frame_rename_fn rename, void *ctx);

struct ct_snapshot *calltree_snapshot(const struct calltree *t);
/* A copy of s seen through v (profile.h): every node's total and self are runq_pick's, and the
 * nodes left with no total go (whole subtrees: a child's part never exceeds its parent's). */
struct ct_snapshot *ct_snapshot_runq(const struct ct_snapshot *s, enum runq_view v);
void ct_snapshot_free(struct ct_snapshot *s);
/* Sets every node's shown name: name(ctx, raw_sym) (demangling, or raw_sym itself). */
void ct_snapshot_rename(struct ct_snapshot *s, const char *(*name)(void *ctx, const char *raw),
			void *ctx);

/* --- queries ----------------------------------------------------------------------------------- */

/* A function: its interned symbol, and its dso (NULL matches any dso, for a -s sym table). */
struct ct_func {
	const char *raw_sym, *dso;
};

struct ct_node {
	uint64_t id;              /* hash of the names on the path from the result's root; never 0 */
	const char *raw_sym, *sym, *dso; /* the root of a whole-window graph has NULLs ("all") */
	bool inlined, kernel;
	int depth;                /* the root is 0 */
	uint64_t total, self;
	uint32_t parent;          /* the root is its own parent */
	uint32_t first_child, nchildren; /* children are nodes[first_child .. + nchildren) */
};

struct ct_result {
	struct ct_node *nodes;    /* nodes[0] is the root; children ordered (see each query) */
	size_t n;
	uint64_t total;           /* the snapshot's total: denominator of the percentages */
};

/* Who calls f: root = f (its Total), children = its callers, theirs = their callers, up to the
 * threads' roots; each node's total is the part of f's Total that went through that call path.
 * Recursion: only the outermost f of each stack counts, so the tree sums to f's Total exactly.
 * Children ordered by total (hottest first). */
struct ct_result *calltree_callers(const struct ct_snapshot *s, struct ct_func f);
/* What f calls: root = f, merged over every (outermost) occurrence of f in the stacks; recursion
 * shows as deeper nodes, never counted twice. Children ordered by total. */
struct ct_result *calltree_callees(const struct ct_snapshot *s, struct ct_func f);
/* The flame graph: of the whole window (f.raw_sym NULL: root "all" = every sample with a stack),
 * or of f's subtree (the callees tree). Children ordered by name, so frames keep their places
 * from one refresh to the next. */
struct ct_result *calltree_flame(const struct ct_snapshot *s, struct ct_func f);
void ct_result_free(struct ct_result *r);

/* Index of the node with this id, or -1. */
long ct_result_find(const struct ct_result *r, uint64_t id);
/* The id a function's root node gets in callers/callees/flame results (same hash of names). */
uint64_t calltree_func_id(struct ct_func f);

#endif
