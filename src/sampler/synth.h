/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * synth: processes that exist when sampling starts, described as the records the kernel would have
 * sent had we been watching: a COMM per thread and an MMAP2 per executable mapping, read from /proc.
 * Bounded by a deadline so a machine with many processes never stalls the view.
 */
#ifndef PERFTOP_SYNTH_H
#define PERFTOP_SYNTH_H

#include <stdint.h>

#include "record/record.h"

/* Called for each synthesized record; return non-zero to stop. */
typedef int (*synth_emit_fn)(void *ctx, const struct rec *r);

/* One process (all its threads). Returns 0 or -errno (-ESRCH when it is gone). */
int synth_process(uint32_t pid, synth_emit_fn emit, void *ctx);

/* Every process under /proc, until deadline_ns (now_ns() clock). Returns processes done; sets
 * *truncated when the deadline cut it short. */
int synth_all(uint64_t deadline_ns, int *truncated, synth_emit_fn emit, void *ctx);

#endif
