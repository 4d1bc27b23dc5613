/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_queue: the SPSC queue alone (wrap marker, full queue, oversize messages, reserve/commit),
 * then a producer and a consumer thread hammering it; the TSan twin checks the memory ordering.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sampler/queue.h"

static void test_single_thread(void)
{
	struct queue *q = queue_new(100);   /* rounded up to 128 */
	unsigned char msg[64], got[64];
	const unsigned char *p;
	size_t len;

	CHECK(queue_peek(q, &len) == NULL);
	memset(msg, 'a', sizeof(msg));
	/* 128 bytes: 8 header + 40 payload = 48 per message; two fit, a third does not. */
	CHECK(queue_push(q, msg, 40) == 0);
	msg[0] = 'b';
	CHECK(queue_push(q, msg, 37) == 0);   /* padded to 40 */
	CHECK(queue_push(q, msg, 40) == -ENOSPC);
	CHECK_EQ_U64(queue_dropped(q), 1);
	CHECK_EQ_U64(queue_pushed(q), 2);

	p = queue_peek(q, &len);
	CHECK(p && len == 40 && p[0] == 'a');
	CHECK(p && ((uintptr_t)p & 7) == 0);
	queue_pop(q);
	/* 48 used at [48,96), 32 left before the end: a 40-byte message wraps to offset 0. */
	msg[0] = 'c';
	CHECK(queue_push(q, msg, 40) == 0);
	p = queue_peek(q, &len);
	CHECK(p && len == 37 && p[0] == 'b');
	queue_pop(q);
	p = queue_peek(q, &len);   /* skips the wrap marker */
	CHECK(p && len == 40 && p[0] == 'c');
	if (p)
		memcpy(got, p, len);
	CHECK(got[39] == 'a');
	queue_pop(q);
	CHECK(queue_peek(q, &len) == NULL);

	/* More than half the capacity can never fit. */
	CHECK(queue_push(q, msg, 64) == -EINVAL);
	CHECK_EQ_U64(queue_dropped(q), 2);

	/* Reserve/commit: nothing is visible until the commit. */
	{
		unsigned char *w = queue_reserve(q, 16);
		CHECK(w != NULL);
		if (w) {
			memset(w, 'z', 16);
			CHECK(queue_peek(q, &len) == NULL);
			queue_commit(q);
		}
		p = queue_peek(q, &len);
		CHECK(p && len == 16 && p[15] == 'z');
		queue_pop(q);
	}
	/* Zero-length messages are messages too. */
	CHECK(queue_push(q, msg, 0) == 0);
	p = queue_peek(q, &len);
	CHECK(p != NULL && len == 0);
	queue_pop(q);
	CHECK(queue_peek(q, &len) == NULL);
	queue_free(q);
}

#define STRESS_N 1000000

static struct queue *sq;
static atomic_bool producer_done;

/* Message i: its sequence number, then (i % 29) * 8 + (i % 5) bytes derived from i. */
static size_t stress_len(uint64_t i)
{
	return 8 + (size_t)(i % 29) * 8 + (size_t)(i % 5);
}

static unsigned char stress_byte(uint64_t i, size_t k)
{
	return (unsigned char)(i * 31 + k);
}

static void *producer(void *arg)
{
	unsigned char msg[512];
	(void)arg;
	for (uint64_t i = 0; i < STRESS_N; i++) {
		size_t len = stress_len(i);
		memcpy(msg, &i, 8);
		for (size_t k = 8; k < len; k++)
			msg[k] = stress_byte(i, k);
		(void)queue_push(sq, msg, len);
	}
	atomic_store(&producer_done, true);
	return NULL;
}

static void test_two_threads(void)
{
	pthread_t th;
	uint64_t received = 0, last = 0, bad = 0;
	bool first = true;

	sq = queue_new(64 * 1024);
	atomic_store(&producer_done, false);
	CHECK(pthread_create(&th, NULL, producer, NULL) == 0);
	for (;;) {
		size_t len;
		const unsigned char *p = queue_peek(sq, &len);
		if (!p) {
			/* Empty: done only once the producer has finished and we saw it. */
			if (atomic_load(&producer_done) && !queue_peek(sq, &len))
				break;
			continue;
		}
		uint64_t seq;
		memcpy(&seq, p, 8);
		if (len != stress_len(seq) || (!first && seq <= last))
			bad++;
		for (size_t k = 8; k < len && k < stress_len(seq); k++)
			if (p[k] != stress_byte(seq, k)) {
				bad++;
				break;
			}
		first = false;
		last = seq;
		received++;
		queue_pop(sq);
	}
	pthread_join(th, NULL);
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(received + queue_dropped(sq), STRESS_N);
	CHECK_EQ_U64(queue_pushed(sq), received);
	printf("stress: %llu received, %llu dropped\n", (unsigned long long)received,
	       (unsigned long long)queue_dropped(sq));
	queue_free(sq);
}

int main(void)
{
	test_single_thread();
	test_two_threads();
	return CHECK_DONE();
}
