/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * synth: processes that exist when sampling starts, described as the records the kernel would have
 * sent had we been watching: a COMM per thread and an MMAP2 per executable mapping, read from /proc,
 * and a CGROUP per cgroup of the perf_event hierarchy (util/cgroupfs.h).
 * Bounded by a deadline so a machine with many processes never stalls the view.
 */
#ifndef PERFTOP_SYNTH_H
#define PERFTOP_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/record.h"

/* Called for each synthesized record; return non-zero to stop. */
typedef int (*synth_emit_fn)(void *ctx, const struct rec *r);

/* One process (all its threads). Returns 0 or -errno (-ESRCH when it is gone). */
int synth_process(uint32_t pid, synth_emit_fn emit, void *ctx);

/* Every process under /proc, until deadline_ns (now_ns() clock). Returns processes done; sets
 * *truncated when the deadline cut it short. */
int synth_all(uint64_t deadline_ns, int *truncated, synth_emit_fn emit, void *ctx);

/* The cgroups of the perf_event hierarchy that exist now, as PERF_RECORD_CGROUP records (time 0)
 * in the order of a depth-first walk, the root first: at most max of them. NULL when no hierarchy
 * is mounted. */
struct synth_cgroups;
struct synth_cgroups *synth_cgroups_collect(size_t max);
bool synth_cgroups_truncated(const struct synth_cgroups *c);
size_t synth_cgroups_count(const struct synth_cgroups *c);
/* Hands each record to emit, until it asks to stop. */
void synth_cgroups_emit(const struct synth_cgroups *c, synth_emit_fn emit, void *ctx);
void synth_cgroups_free(struct synth_cgroups *c);

#endif
