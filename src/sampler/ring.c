/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ring: the reader side of one perf mmap ring.
 *
 * The kernel advances data_head as it writes and only reuses bytes behind data_tail, which we
 * advance once we are done with them. data_head is loaded with acquire semantics so the record
 * bytes it covers are visible before we read them; data_tail is stored with release semantics so
 * our reads of those bytes are finished before the kernel may overwrite them. Positions are free
 * running u64 counters: offsets are position & (size - 1), distances are unsigned differences.
 *
 * A record pointer handed out by ring_next stays valid until ring_read_end (the kernel cannot
 * write over it before we move the tail), or, for a record that wrapped, until the next ring_next.
 */
#include "sampler/ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* header.size is a u16: no record is larger. */
#define RING_SCRATCH_SIZE 65536

int ring_init(struct ring *r, struct perf_event_mmap_page *meta, void *data, uint64_t data_size)
{
	memset(r, 0, sizeof(*r));
	if (!meta || !data || data_size < 8 || (data_size & (data_size - 1)))
		return -EINVAL;
	r->meta = meta;
	r->data = data;
	r->data_size = data_size;
	/* Start where the kernel thinks we are (0 for a fresh ring). */
	r->tail = __atomic_load_n(&meta->data_tail, __ATOMIC_RELAXED);
	r->head = r->tail;
	r->scratch = xmalloc(RING_SCRATCH_SIZE);
	return 0;
}

void ring_done(struct ring *r)
{
	free(r->scratch);
	r->scratch = NULL;
}

uint64_t ring_read_begin(struct ring *r)
{
	uint64_t avail;

	r->head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	avail = r->head - r->tail;
	if (avail > r->data_size) {
		/* Lapped: the oldest bytes were overwritten; none of them can be trusted. */
		r->overruns++;
		r->tail = r->head;
		return 0;
	}
	return avail;
}

/* Copies n bytes starting at position pos out of the ring, across its end if need be. */
static void ring_copy(const struct ring *r, uint64_t pos, void *dst, size_t n)
{
	uint64_t off = pos & (r->data_size - 1);
	size_t first = n;

	if (off + n > r->data_size)
		first = (size_t)(r->data_size - off);
	memcpy(dst, r->data + off, first);
	if (first < n)
		memcpy((unsigned char *)dst + first, r->data, n - first);
}

const struct perf_event_header *ring_next(struct ring *r)
{
	struct perf_event_header h;
	uint64_t avail = r->head - r->tail, off;

	if (avail == 0)
		return NULL;
	if (avail < sizeof(h)) {
		r->bad_records++;
		r->tail = r->head;
		return NULL;
	}
	ring_copy(r, r->tail, &h, sizeof(h));
	if (h.size < sizeof(h) || h.size > avail) {
		/* With a bad size we cannot find the next record: give up on this batch. */
		r->bad_records++;
		r->tail = r->head;
		return NULL;
	}
	off = r->tail & (r->data_size - 1);
	if (off + h.size <= r->data_size) {
		r->tail += h.size;
		return (const struct perf_event_header *)(r->data + off);
	}
	ring_copy(r, r->tail, r->scratch, h.size);
	r->tail += h.size;
	return (const struct perf_event_header *)r->scratch;
}

void ring_read_end(struct ring *r)
{
	__atomic_store_n(&r->meta->data_tail, r->tail, __ATOMIC_RELEASE);
}
