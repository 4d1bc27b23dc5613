/*
 * snapshot: the plain, immutable picture of a profile that the views read: rows with stable ids,
 * names and percentages, sorted by the chosen column. A snapshot owns its row array (the strings are
 * the interned ones); the view may hold one while the model moves on, so it never tears.
 */
#ifndef PERFTOP_SNAPSHOT_H
#define PERFTOP_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/calltree.h"
#include "model/profile.h"

enum snap_col { COL_SELF, COL_TOTAL, COL_SAMPLES, COL_COMM, COL_PID, COL_TID, COL_SYM, COL_DSO,
		COL_SRCLINE, COL_DELTA, COL_COUNT };

/* A row against a --diff baseline (model/diff.h): on both sides, only now, or only in the base. */
enum snap_diff { SNAP_DIFF_NONE, SNAP_DIFF_BOTH, SNAP_DIFF_NEW, SNAP_DIFF_GONE };

struct snap_row {
	uint64_t id;               /* stable: a hash of the key values, the same across refreshes */
	const char *comm;          /* set when comm is a sort key, else NULL */
	uint32_t pid, tid;         /* set when pid / tid is a key */
	const char *dso, *sym, *srcline; /* set when a key; sym as shown (the session may demangle it) */
	const char *raw_sym;       /* the profile's symbol (the row's identity), whatever sym shows */
	double self_pct, total_pct;
	uint64_t samples;          /* samples whose leaf is this row (decayed) */
	uint64_t self_period, total_period;
	/* With a baseline (snapshot.diff): Self% in the base, Self% now minus that, and the side. */
	double base_self, delta;
	enum snap_diff diff;
	/* The process that contributed most samples to the row (a majority vote, see profile.h):
	 * what t zooms into when the row has no comm/pid/tid key. */
	uint32_t main_pid;
	const char *main_comm;
};

struct snapshot {
	struct snap_row *rows;
	size_t nrows;
	uint64_t total_period;     /* the denominator of the percentages */
	uint64_t window_samples;   /* samples added in the window that ended with this snapshot */
	uint64_t window_lost;
	uint64_t held_samples;     /* samples currently held (decayed) */
	enum sort_key keys[PROFILE_MAX_KEYS];
	int nkeys;
	enum snap_col order;
	bool diff;                 /* rows carry a baseline's figures (--diff): the Δ column */
	/* The call tree of the same window, for the drill-down views, or NULL (a source without
	 * stacks, batch mode). Owned by the snapshot: snapshot_free frees it. */
	struct ct_snapshot *tree;
	bool tree_borrowed;        /* a filtered copy (model/filter.h): the tree is its original's */
	/* The names' generation (util/frame.h): names of two snapshots of one generation compare by
	 * pointer. The owner of the names keeps them alive while the snapshot lives (a view may show
	 * it after the pool has moved on): snapshot_free calls names_release(names_hold). */
	uint64_t names_gen;
	void *names_hold;
	void (*names_release)(void *hold);
};

/* A snapshot of p's current state ordered by col (numbers descending, names ascending). */
struct snapshot *profile_snapshot(const struct profile *p, enum snap_col order);
/* Re-sorts in place (the view's < and > keys). */
void snapshot_sort(struct snapshot *s, enum snap_col order);
/* Reverses the rows in place: after snapshot_sort, the inverted order (the I key). Every order
 * ends in a full tie-break, so the reverse is itself a well-defined order. */
void snapshot_invert(struct snapshot *s);
void snapshot_free(struct snapshot *s);
/* Every name of the rows and of the tree becomes rename(ctx, name) (util/frame.h): an older
 * snapshot brought into the names' current generation. The caller sets names_gen and the hold. */
void snapshot_move_names(struct snapshot *s, frame_rename_fn rename, void *ctx);
/* Index of the row with this id, or -1. */
long snapshot_find(const struct snapshot *s, uint64_t id);
const char *snap_col_name(enum snap_col c);

#endif
