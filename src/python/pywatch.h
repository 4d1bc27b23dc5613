/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pywatch: the Python stacks of the threads perftop samples, read on a clock of their own, so that
 * each sample takes the stack read nearest to its time (pywatch.c says why and how). Internal to
 * src/python.
 */
#ifndef PERFTOP_PYWATCH_H
#define PERFTOP_PYWATCH_H

#include "python/pyread.h"

struct pywatch;

/* Reads every pywatch_fastest(period_ns) at most on average (period_ns: the sampling period);
 * every fixed_ns on average when that is not 0, else as often as its CPU budget allows
 * (pywatch.c). The thread starts at the first pywatch_note. */
struct pywatch *pywatch_new(uint64_t period_ns, uint64_t fixed_ns);
/* Stops the thread and frees everything. */
void pywatch_free(struct pywatch *w);
/* Thread tid of the CPython process proc (pid) was sampled at now: watch it (again). */
void pywatch_note(struct pywatch *w, uint32_t pid, uint32_t tid, const struct pyproc *proc,
		  uint64_t now);
/* The frames of thread tid read nearest to time, if within two of the mean intervals of that read
 * and 1 ms: their count (0: the thread ran no Python then), or -1 when no read was near enough;
 * *gap the distance in ns between the read and time. */
int pywatch_lookup(struct pywatch *w, uint32_t pid, uint32_t tid, uint64_t time, struct pyraw *out,
		   int max, uint64_t *gap);
/* Of have reads in a ring of ring times (times[(n - 1) % ring] the newest, never decreasing),
 * the one nearest to time, as its age (1: the newest): on a tie the later one. pywatch_lookup's
 * choice, apart for its tests. */
uint64_t pywatch_nearest(const uint64_t *times, uint64_t ring, uint64_t n, uint64_t have,
			 uint64_t time);

/* Reads made by the thread so far, its CPU time (ns), its intervals' mean now (ns) and the system
 * calls and bytes of process memory its reads took. */
void pywatch_counts(struct pywatch *w, uint64_t *reads, uint64_t *cpu_ns, uint64_t *mean_ns,
		    struct py_io *io);
/* The budget's rule, pure for the tests: the mean interval at which rounds of per_round_ns of CPU
 * each cost a quarter of the others_ns the rest of perftop spent in wall_ns, within fast_ns..slow_ns
 * (slow_ns when the rest spent nothing). */
uint64_t pywatch_budget_interval(double per_round_ns, double others_ns, double wall_ns,
				 uint64_t fast_ns, uint64_t slow_ns);
/* The shortest mean interval the budget may choose for a sampling period of period_ns: the
 * period, and 1 ms at least (the watcher's ring spans the session's lag at that rate). */
uint64_t pywatch_fastest(uint64_t period_ns);

#endif
