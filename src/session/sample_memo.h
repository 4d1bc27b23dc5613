/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sample_memo: the symbolizer's answer for a whole sample, remembered while nothing it depends on
 * changes.
 *
 * A profile is the same few call chains over and over (a replay of a busy loop: 97% of its samples
 * repeat an earlier one exactly), and naming a sample costs a lookup per frame, as does finding its
 * rows in the model: the memo keeps the rows' places too (profile_add_again). What names a
 * frame-pointer sample is its process's address space and its thread's name: the frames and the
 * comm are a function of (pid, tid, cpumode, ip, callchain) for as long as no side-band record
 * touches that process. So a sample whose key was seen since is given the frames it got then.
 *
 * What a side-band record changes is forgotten: MMAP, COMM, FORK and EXIT forget their process
 * (through a generation per pid slot), a kernel mapping (pid -1) forgets everything. Samples with a
 * user stack to unwind are never kept (their frames depend on the stack's bytes). Bounded: a
 * direct-mapped table, chains and frames of at most SAMPLE_MEMO_MAX entries.
 */
#ifndef PERFTOP_SAMPLE_MEMO_H
#define PERFTOP_SAMPLE_MEMO_H

#include "record/record.h"
#include "util/frame.h"

#define SAMPLE_MEMO_MAX 128 /* longest chain, and most frames, kept */

struct sample_memo;

struct sample_memo *sample_memo_new(void);
void sample_memo_free(struct sample_memo *m);

/* The frames (and *comm) remembered for sample r, *n of them, or NULL. Valid until the next call. */
const struct frame *sample_memo_get(struct sample_memo *m, const struct rec *r, int *n,
				    const char **comm);
/* Remembers what r, just missed by sample_memo_get, was named (n frames, comm interned). */
void sample_memo_put(struct sample_memo *m, const struct rec *r, const struct frame *f, int n,
		     const char *comm);
/* Room for the model's row indices of the sample last returned by get or kept by put (nframes + 1
 * of them), and the model layout they belong to (*layout 0: none yet); NULL when there is none. */
uint32_t *sample_memo_rows(struct sample_memo *m, uint64_t **layout);
/* A side-band record: forgets what it may change. */
void sample_memo_forget(struct sample_memo *m, const struct rec *r);
/* Forgets everything: what a name resolves to may have changed (a debug file arrived), or the
 * names moved (a compaction of the symbolizer's pool: the entries kept are never read again). */
void sample_memo_forget_all(struct sample_memo *m);

#endif
