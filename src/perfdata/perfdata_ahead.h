/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_ahead: a perfdata reader on a thread of its own, a bounded distance ahead of its consumer.
 *
 * A replay is the live pipeline with a file as the source: records, then the symbolizer, then the
 * profile. Live, the sampler thread parses and orders records while the main thread symbolizes;
 * this gives a replay the same split, so reading, parsing and ordering the file's records runs beside
 * the symbolizing instead of before each sample. The records, their order and the counts are the
 * reader's own; only the thread they are read on changes.
 *
 * The thread copies records into a ring of fixed chunks: it fills one while the consumer reads
 * another, and waits when all are full, so the distance ahead is bounded by their size (8 MiB).
 * Threads meet once per chunk (hundreds of records), never per record. Meant for input that never
 * blocks (a mapped file): a chunk is handed over when full, which on a pipe would hold records back
 * until more arrive.
 */
#ifndef PERFTOP_PERFDATA_AHEAD_H
#define PERFTOP_PERFDATA_AHEAD_H

#include "perfdata/perfdata.h"

struct perfdata_ahead;

/* Reads rd (which it does not own, and which nothing else may use until ahead_free) on a thread
 * started at the first ahead_next. */
struct perfdata_ahead *perfdata_ahead_new(struct perfdata_reader *rd);
/* Stops the thread; the reader stays open, at some position past what was handed out. */
void perfdata_ahead_free(struct perfdata_ahead *a);

/* perfdata_next_ref's contract: 1 and the next record (valid until the next call), 0 at the end;
 * with nowait, -EAGAIN: no record yet, more may come. */
int perfdata_ahead_next(struct perfdata_ahead *a, const struct rec **out);
/* A live stream (perfdata_would_block) for a consumer that must not wait (the view): the thread
 * hands a chunk over as soon as the reader would wait for the producer, and ahead_next returns
 * -EAGAIN instead of waiting when no chunk is there yet. */
void perfdata_ahead_set_nowait(struct perfdata_ahead *a);
/* Uses only n chunks of the ring (2 at least, the ring's own count at most), while the thread is
 * not running: for tests, so that a small file still fills the ring and wraps it many times. */
void perfdata_ahead_set_chunks(struct perfdata_ahead *a, unsigned n);
/* Stops the thread and rewinds the reader (perfdata_rewind's result); the next ahead_next starts
 * again from the first record. */
int perfdata_ahead_rewind(struct perfdata_ahead *a);
/* The reader's stats as of the last chunk handed out (at the end: the reader's own). */
void perfdata_ahead_get_stats(const struct perfdata_ahead *a, struct perfdata_stats *st);

#endif
