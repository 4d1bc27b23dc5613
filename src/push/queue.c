/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * queue: the push's waiting profiles, a ring of a fixed number of slots, and the rule for how long
 * to wait before trying one again. Pure: the push thread holds its lock around these.
 *
 * The bound is in profiles, not bytes: a window's pprof is the same order of size from one window
 * to the next, and dropping the oldest keeps the newest, which is what a server that comes back
 * wants first.
 */
#include "push/push.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void push_queue_init(struct push_queue *q, unsigned max)
{
	memset(q, 0, sizeof(*q));
	q->max = max ? max : 1;
	q->items = xcalloc(q->max, sizeof(*q->items));
}

void push_queue_done(struct push_queue *q)
{
	struct push_item it;
	while (push_queue_take(q, &it))
		free(it.data);
	free(q->items);
	q->items = NULL;
}

static void drop_oldest(struct push_queue *q)
{
	struct push_item it;
	if (push_queue_take(q, &it))
		free(it.data);
}

unsigned push_queue_add(struct push_queue *q, const struct push_item *it)
{
	unsigned dropped = 0;
	if (q->n == q->max) {
		drop_oldest(q);
		dropped = 1;
	}
	q->items[(q->head + q->n) % q->max] = *it;
	q->n++;
	return dropped;
}

unsigned push_queue_unget(struct push_queue *q, const struct push_item *it)
{
	if (q->n == q->max) {
		free(it->data); /* older than all that wait: it is the one that goes */
		return 1;
	}
	q->head = (q->head + q->max - 1) % q->max;
	q->items[q->head] = *it;
	q->n++;
	return 0;
}

bool push_queue_take(struct push_queue *q, struct push_item *out)
{
	if (!q->n)
		return false;
	*out = q->items[q->head];
	memset(&q->items[q->head], 0, sizeof(*out));
	q->head = (q->head + 1) % q->max;
	q->n--;
	return true;
}

double push_backoff(int attempt, double base, double max, double r)
{
	double w = base;
	for (int i = 1; i < attempt && w < max; i++)
		w *= 2;
	if (w > max)
		w = max;
	return w * (0.75 + 0.5 * r);
}

enum push_verdict push_verdict_of(long status)
{
	if (status >= 200 && status < 300)
		return PUSH_SENT;
	if (status == 0 || status >= 500 || status == 408 || status == 429)
		return PUSH_RETRY;
	return PUSH_GIVE_UP;
}
