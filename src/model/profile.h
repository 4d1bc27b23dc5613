/*
 * profile: hot-function aggregation, like perf's histograms with --sort.
 *
 * A row is identified by the values of the sort keys (-s dso,sym by default; also comm, pid, tid,
 * srcline). Each sample adds its period to Self of the row its leaf frame maps to, and to Total of
 * every row that appears anywhere in its frames, once per sample. Between refreshes the histogram
 * decays (period and sample counts x7/8, rows that reach zero are dropped) like perf top's, or is
 * zeroed (-z). Percentages are of the total period currently held.
 *
 * Strings in frames and sample contexts are interned by the caller (stable pointers, equal names are
 * equal pointers); the profile keeps the pointers, never copies.
 */
#ifndef PERFTOP_PROFILE_H
#define PERFTOP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/frame.h"

enum sort_key { SORT_COMM, SORT_PID, SORT_TID, SORT_DSO, SORT_SYM, SORT_SRCLINE, SORT_KEY_COUNT };
#define PROFILE_MAX_KEYS 6

/* Parses "dso,sym" / "comm" / "pid,sym" ... Returns the number of keys, or -1 with a one-line
 * message naming the bad key in err. */
int sort_keys_parse(const char *spec, enum sort_key *keys, int max, char *err, size_t errlen);
const char *sort_key_name(enum sort_key k);

struct sample_ctx {
	const char *comm;          /* interned */
	uint32_t pid, tid;
	uint64_t period;
	const struct frame *frames; /* leaf first, then callers */
	int nframes;
};

struct profile;

struct profile *profile_new(const enum sort_key *keys, int nkeys);
void profile_free(struct profile *p);

void profile_add(struct profile *p, const struct sample_ctx *s);
/* Counts lost samples in the current window. */
void profile_add_lost(struct profile *p, uint64_t lost);

/* End of a refresh window: decay x7/8 (or zero everything when zero is true) and reset the window
 * counters. */
void profile_end_window(struct profile *p, bool zero);

int profile_nkeys(const struct profile *p);
const enum sort_key *profile_keys(const struct profile *p);

#endif
