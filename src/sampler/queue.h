/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * queue: the bounded single-producer/single-consumer byte queue between the sampler thread and the
 * rest: the only thread boundary in perftop.
 *
 * Messages are variable-length (a struct rec with its trailing data) and always contiguous: a message
 * that does not fit before the end of the buffer is preceded by a wrap marker and written at the
 * start. The producer never blocks: when there is no room, queue_push counts the message as dropped
 * and returns -ENOSPC. Positions are C11 atomics (release on publish, acquire on observe).
 */
#ifndef PERFTOP_QUEUE_H
#define PERFTOP_QUEUE_H

#include <stddef.h>
#include <stdint.h>

struct queue;

/* capacity in bytes, rounded up to a power of two. */
struct queue *queue_new(size_t capacity);
void queue_free(struct queue *q);

/* Producer side. 0, or -ENOSPC (counted in queue_dropped), or -EINVAL if len can never fit (more
 * than capacity/2 - 8 bytes; also counted as dropped). */
int queue_push(struct queue *q, const void *msg, size_t len);
/* Producer side: reserve len bytes to fill in place, then commit them (avoids a copy). NULL (and
 * counted as dropped) when there is no room. The pointer is 8-byte aligned. */
void *queue_reserve(struct queue *q, size_t len);
void queue_commit(struct queue *q);

/* Consumer side: the oldest message, or NULL when empty. Valid until queue_pop. */
const void *queue_peek(struct queue *q, size_t *len);
void queue_pop(struct queue *q);

uint64_t queue_dropped(const struct queue *q);   /* any thread */
uint64_t queue_pushed(const struct queue *q);    /* any thread: messages committed */

#endif
