/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ring: reading one perf mmap ring buffer (the metadata page + 2^n data pages).
 *
 * The sequence follows the kernel's contract (see perf_event.h on data_head/data_tail): load
 * data_head with acquire semantics, read records between our tail and head, then store data_tail with
 * release semantics so the kernel may reuse the space. A record that straddles the end of the data
 * area is copied into a scratch buffer so callers always see it contiguous. If head - tail exceeds
 * the data size the kernel overwrote what we had not read: that is an overrun, counted, and the
 * reader skips to head rather than trusting the bytes. All differences are unsigned and wrap-safe.
 *
 * ring_init takes the metadata page and data area separately so tests can run it on a fake ring.
 */
#ifndef PERFTOP_RING_H
#define PERFTOP_RING_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct ring {
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	uint64_t data_size;     /* power of two */
	uint64_t head;          /* head loaded by ring_read_begin */
	uint64_t tail;          /* next byte to read */
	unsigned char *scratch; /* holds a record that wraps the end (up to 64 KiB, a record's max) */
	uint64_t overruns;      /* times the kernel lapped us */
	uint64_t bad_records;   /* records with an impossible size: the rest of that read is skipped */
};

int ring_init(struct ring *r, struct perf_event_mmap_page *meta, void *data, uint64_t data_size);
void ring_done(struct ring *r);
/* Loads data_head (acquire). Returns the number of bytes available (0 when empty). */
uint64_t ring_read_begin(struct ring *r);
/* Next record between tail and head, contiguous, or NULL when none is left. */
const struct perf_event_header *ring_next(struct ring *r);
/* Stores data_tail (release): everything returned by ring_next so far is consumed. */
void ring_read_end(struct ring *r);

#endif
