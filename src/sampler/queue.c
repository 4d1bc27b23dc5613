/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * queue: a bounded single-producer/single-consumer queue of variable-length messages.
 *
 * The buffer is a power of two; head (producer) and tail (consumer) are free-running byte
 * positions, so used = head - tail with unsigned wrap. Each message is an 8-byte header (its length)
 * followed by the payload padded to 8 bytes. A message never straddles the end of the buffer: when
 * it would, the producer writes a wrap marker header and places the message at offset 0, and the
 * consumer skips the marker. The producer publishes head with a release store after writing the
 * bytes, the consumer observes it with an acquire load; symmetrically for tail, so the producer
 * never overwrites bytes the consumer is still reading.
 *
 * Messages up to half the capacity are accepted: with that bound the bytes wasted before a wrap
 * marker are smaller than the message, so every accepted message fits once the queue drains.
 */
#include "sampler/queue.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define QUEUE_WRAP UINT32_MAX
#define QUEUE_HDR 8

struct queue_hdr {
	uint32_t len;   /* payload bytes, or QUEUE_WRAP */
	uint32_t pad;
};

struct queue {
	unsigned char *buf;
	size_t cap;
	/* Producer and consumer each own a cache line so they do not slow each other down. */
	_Alignas(64) _Atomic uint64_t head;
	uint64_t pending_head;      /* producer: head after the reserved message */
	bool reserved;
	_Atomic uint64_t pushed;
	_Atomic uint64_t dropped;
	_Alignas(64) _Atomic uint64_t tail;
	uint64_t peeked_next;       /* consumer: tail after the peeked message */
	bool peeked;
};

static uint64_t round8(uint64_t n)
{
	return (n + 7) & ~(uint64_t)7;
}

struct queue *queue_new(size_t capacity)
{
	struct queue *q;
	size_t cap = 64;

	while (cap < capacity && cap < ((size_t)1 << 40))
		cap <<= 1;
	q = xcalloc(1, sizeof(*q));
	q->buf = xmalloc(cap);
	q->cap = cap;
	atomic_init(&q->head, 0);
	atomic_init(&q->tail, 0);
	atomic_init(&q->pushed, 0);
	atomic_init(&q->dropped, 0);
	return q;
}

void queue_free(struct queue *q)
{
	if (!q)
		return;
	free(q->buf);
	free(q);
}

static void count_drop(struct queue *q)
{
	/* Only the producer writes the counters; relaxed is enough for readers elsewhere. */
	atomic_store_explicit(&q->dropped, atomic_load_explicit(&q->dropped, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

void *queue_reserve(struct queue *q, size_t len)
{
	uint64_t need, head, tail, off, waste = 0;
	struct queue_hdr h = { 0, 0 };

	if (len > q->cap / 2 - QUEUE_HDR) {
		count_drop(q);
		return NULL;
	}
	need = QUEUE_HDR + round8(len);
	head = atomic_load_explicit(&q->head, memory_order_relaxed);
	tail = atomic_load_explicit(&q->tail, memory_order_acquire);
	off = head & (q->cap - 1);
	if (off + need > q->cap)
		waste = q->cap - off;
	if ((head - tail) + waste + need > q->cap) {
		count_drop(q);
		return NULL;
	}
	if (waste) {
		h.len = QUEUE_WRAP;
		memcpy(q->buf + off, &h, sizeof(h));
		off = 0;
	}
	h.len = (uint32_t)len;
	memcpy(q->buf + off, &h, sizeof(h));
	q->pending_head = head + waste + need;
	q->reserved = true;
	return q->buf + off + QUEUE_HDR;
}

void queue_commit(struct queue *q)
{
	if (!q->reserved)
		return;
	q->reserved = false;
	atomic_store_explicit(&q->head, q->pending_head, memory_order_release);
	atomic_store_explicit(&q->pushed, atomic_load_explicit(&q->pushed, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

int queue_push(struct queue *q, const void *msg, size_t len)
{
	void *dst;

	if (len > q->cap / 2 - QUEUE_HDR) {
		count_drop(q);
		return -EINVAL;
	}
	dst = queue_reserve(q, len);
	if (!dst)
		return -ENOSPC;
	memcpy(dst, msg, len);
	queue_commit(q);
	return 0;
}

const void *queue_peek(struct queue *q, size_t *len)
{
	uint64_t tail = atomic_load_explicit(&q->tail, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&q->head, memory_order_acquire);
	struct queue_hdr h;
	uint64_t off;

	if (tail == head)
		return NULL;
	off = tail & (q->cap - 1);
	memcpy(&h, q->buf + off, sizeof(h));
	if (h.len == QUEUE_WRAP) {
		/* The real message is at offset 0, published by the same head store. */
		tail += q->cap - off;
		off = 0;
		memcpy(&h, q->buf, sizeof(h));
	}
	q->peeked_next = tail + QUEUE_HDR + round8(h.len);
	q->peeked = true;
	if (len)
		*len = h.len;
	return q->buf + off + QUEUE_HDR;
}

void queue_pop(struct queue *q)
{
	if (!q->peeked && !queue_peek(q, NULL))
		return;
	q->peeked = false;
	atomic_store_explicit(&q->tail, q->peeked_next, memory_order_release);
}

uint64_t queue_dropped(const struct queue *q)
{
	return atomic_load_explicit(&((struct queue *)q)->dropped, memory_order_relaxed);
}

uint64_t queue_pushed(const struct queue *q)
{
	return atomic_load_explicit(&((struct queue *)q)->pushed, memory_order_relaxed);
}
