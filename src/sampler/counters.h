/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * counters: counting events next to the sampled one, read as groups, like the perf_event crate's
 * Group: a leader and its members share one read() (read_format GROUP | TOTAL_TIME_ENABLED |
 * TOTAL_TIME_RUNNING), so the values of a group always describe the same stretch of time.
 *
 * Two groups per task or CPU: the hardware one (cycles leading instructions, cache misses, branch
 * misses) and the software one (context switches leading CPU migrations and page faults). They are
 * apart on purpose: a hardware group is multiplexed on and off the PMU as a unit, and software
 * events inside it would stop counting with it. Events this machine cannot count (no PMU: every
 * hardware one) are left out silently; counter_values.have says which ones count.
 *
 * The sampler owns the object (it knows the targets) but never reads it on its thread: the main
 * thread reads at each refresh. Everything here is plain syscalls on our own fds, no locks.
 */
#ifndef PERFTOP_COUNTERS_H
#define PERFTOP_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum counter_kind {
	COUNTER_CYCLES,
	COUNTER_INSTRUCTIONS,
	COUNTER_CACHE_MISSES,
	COUNTER_BRANCH_MISSES,
	COUNTER_CTX_SWITCHES,
	COUNTER_MIGRATIONS,
	COUNTER_PAGE_FAULTS,
	COUNTER_NR
};

/* What one read gives: cumulative values since enabling, each scaled up by
 * time_enabled / time_running of its group when the group was multiplexed. */
struct counter_values {
	bool have[COUNTER_NR];    /* the event is counted (opened on at least one task or CPU) */
	uint64_t value[COUNTER_NR];
	/* The hardware groups' times summed: running < enabled means they were multiplexed (the
	 * values are then estimates). */
	uint64_t hw_time_enabled, hw_time_running;
};

struct counters_opts {
	bool inherit;          /* count threads and children the task creates later (-p, command) */
	bool enable_on_exec;   /* a held command: counting starts at its exec */
	bool exclude_kernel;   /* user space only (as the sampler fell back to) */
};

struct counters;

struct counters *counters_new(const struct counters_opts *o);
/* Opens both groups for pid on cpu (pid -1: the whole CPU; cpu -1: wherever the task runs).
 * Returns how many events opened; failures are not errors (the counters are extras). */
int counters_attach(struct counters *c, pid_t pid, int cpu);
/* Starts counting (not for enable_on_exec, which the exec starts). */
void counters_enable(struct counters *c);
/* Reads every group and sums them. 0, or -errno when nothing could be read. */
int counters_read(struct counters *c, struct counter_values *v);
void counters_free(struct counters *c);

const char *counter_name(enum counter_kind k); /* "context-switches" */

/* value * enabled / running, the estimate for the whole enabled time of an event that was on
 * the PMU only for running of it; 0 when it never ran. */
uint64_t counters_scale(uint64_t value, uint64_t enabled, uint64_t running);

/* Adds one group's read() buffer (nr, time_enabled, time_running, values[nr]) into v, scaled;
 * kinds[i] says which counter the i-th value is. Returns -EINVAL for a short or inconsistent
 * buffer. Exposed so tests can feed made-up times. */
int counters_add_group(struct counter_values *v, const uint64_t *buf, size_t nwords,
		       const enum counter_kind *kinds, size_t nkinds);

#endif
