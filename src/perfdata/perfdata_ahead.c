/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_ahead: the reader's thread and the chunks it hands over (see perfdata_ahead.h).
 *
 * Chunks are used in a fixed rotation: the thread fills chunk filled % N once fewer than N are
 * filled and not yet given back, the consumer reads chunk given % N once it has been filled. Each
 * side moves only its own counter, under the mutex, and sleeps on its own condition when the other
 * is behind. A thread that found every chunk full sleeps until half of them are free again, so that
 * it is woken once per half a ring rather than once per chunk. Records are parsed straight into the
 * chunk (perfdata_next_into); one that does not fit in what is left opens the next chunk (a chunk
 * holds the largest record the reader makes), so records never straddle chunks.
 *
 * The ring is deep (8 MiB) because the two sides are slow at different times. The consumer stops
 * for tens of milliseconds when a binary's symbols or the kernel's are first needed, mostly early
 * in a file; with a shallow ring (four chunks, 512 KiB) the thread filled it and slept through
 * those stops, and afterwards, where the thread is the slower side, the time it had slept was
 * never made up: on a 40 s system-wide recording (28 MB, 318k samples) both sides waited 30-40 ms
 * of a 150 ms replay. Thirty-two to sixty-four chunks let the thread read on through the stops.
 * The ring is one allocation on huge pages, touched only as chunks fill: a short file costs what
 * it holds (at most one huge page more), and the bound is the ring's size.
 */
#include "perfdata/perfdata_ahead.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define AHEAD_CHUNKS 64
#define AHEAD_CHUNK_BYTES (128u << 10) /* > the largest parsed record (64 KiB of stack + header) */

struct ahead_chunk {
	unsigned char *buf;
	size_t len;
	bool last;                 /* the reader's end: no record after this chunk's */
	struct perfdata_stats stats; /* the reader's, as of this chunk's last record */
};

struct perfdata_ahead {
	struct perfdata_reader *rd;
	struct ahead_chunk ch[AHEAD_CHUNKS];
	unsigned nchunks;          /* in use: AHEAD_CHUNKS, fewer for tests (perfdata_ahead_set_chunks) */
	unsigned char *ring;       /* the chunks' bytes, one allocation */
	pthread_t thread;
	bool running;
	pthread_mutex_t mu;
	pthread_cond_t can_fill, can_read;
	uint64_t filled, given;    /* chunks filled by the thread, given back by the consumer */
	bool stop;
	bool filler_waits;         /* the thread sleeps until half the chunks are free */
	bool nowait;               /* perfdata_ahead_set_nowait */
	/* consumer side */
	struct ahead_chunk *cur;
	size_t pos;
	struct perfdata_stats stats;
};

static void *ahead_main(void *arg)
{
	struct perfdata_ahead *a = arg;
	for (;;) {
		pthread_mutex_lock(&a->mu);
		if (a->filled - a->given >= a->nchunks) {
			a->filler_waits = true;
			while (!a->stop && a->filled - a->given > a->nchunks / 2)
				pthread_cond_wait(&a->can_fill, &a->mu);
			a->filler_waits = false;
		}
		bool stop = a->stop;
		struct ahead_chunk *c = &a->ch[a->filled % a->nchunks];
		pthread_mutex_unlock(&a->mu);
		if (stop)
			return NULL;
		c->len = 0;
		c->last = false;
		for (;;) {
			/* a stream's records go out as they come: not held back until the chunk fills */
			if (a->nowait && c->len && perfdata_would_block(a->rd))
				break;
			int rc = perfdata_next_into(a->rd, c->buf + c->len, AHEAD_CHUNK_BYTES - c->len);
			if (rc == -ENOSPC && c->len)
				break; /* the next chunk has room for it */
			if (rc <= 0) {
				c->last = true;
				break;
			}
			c->len += ((const struct rec *)(c->buf + c->len))->size;
		}
		perfdata_get_stats(a->rd, &c->stats);
		pthread_mutex_lock(&a->mu);
		a->filled++;
		pthread_cond_signal(&a->can_read);
		pthread_mutex_unlock(&a->mu);
		if (c->last)
			return NULL;
	}
}

struct perfdata_ahead *perfdata_ahead_new(struct perfdata_reader *rd)
{
	struct perfdata_ahead *a = xcalloc(1, sizeof(*a));
	a->rd = rd;
	a->nchunks = AHEAD_CHUNKS;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->can_fill, NULL);
	pthread_cond_init(&a->can_read, NULL);
	perfdata_get_stats(rd, &a->stats);
	return a;
}

static void ahead_stop(struct perfdata_ahead *a)
{
	if (!a->running)
		return;
	pthread_mutex_lock(&a->mu);
	a->stop = true;
	pthread_cond_signal(&a->can_fill);
	pthread_mutex_unlock(&a->mu);
	if (a->nowait)
		perfdata_interrupt(a->rd); /* the thread may be waiting for an idle producer */
	pthread_join(a->thread, NULL);
	a->running = false;
	a->stop = false;
	a->filled = a->given = 0;
	a->cur = NULL;
	a->pos = 0;
}

void perfdata_ahead_free(struct perfdata_ahead *a)
{
	if (!a)
		return;
	ahead_stop(a);
	free(a->ring);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->can_fill);
	pthread_cond_destroy(&a->can_read);
	free(a);
}

static void ahead_start(struct perfdata_ahead *a)
{
	if (!a->ring) {
		a->ring = xmalloc_huge((size_t)AHEAD_CHUNKS * AHEAD_CHUNK_BYTES);
		for (unsigned i = 0; i < AHEAD_CHUNKS; i++)
			a->ch[i].buf = a->ring + (size_t)i * AHEAD_CHUNK_BYTES;
	}
	int rc = pthread_create(&a->thread, NULL, ahead_main, a);
	if (rc != 0)
		die("cannot start the replay's reader thread: %s", strerror(rc));
	a->running = true;
}

int perfdata_ahead_next(struct perfdata_ahead *a, const struct rec **out)
{
	if (!a->running)
		ahead_start(a);
	for (;;) {
		struct ahead_chunk *c = a->cur;
		if (c && a->pos < c->len) {
			const struct rec *r = (const struct rec *)(c->buf + a->pos);
			a->pos += r->size;
			*out = r;
			return 1;
		}
		if (c && c->last)
			return 0; /* kept: every later call ends here too */
		pthread_mutex_lock(&a->mu);
		if (c) {
			a->given++;
			a->cur = NULL; /* given back: not again if this call returns -EAGAIN */
			if (a->filler_waits && a->filled - a->given <= a->nchunks / 2)
				pthread_cond_signal(&a->can_fill);
		}
		while (a->given == a->filled) {
			if (a->nowait) {
				pthread_mutex_unlock(&a->mu);
				return -EAGAIN;
			}
			pthread_cond_wait(&a->can_read, &a->mu);
		}
		a->cur = &a->ch[a->given % a->nchunks];
		pthread_mutex_unlock(&a->mu);
		a->pos = 0;
		a->stats = a->cur->stats;
	}
}

void perfdata_ahead_set_chunks(struct perfdata_ahead *a, unsigned n)
{
	if (a->running)
		return;
	a->nchunks = n < 2 ? 2 : n > AHEAD_CHUNKS ? AHEAD_CHUNKS : n;
}

void perfdata_ahead_set_nowait(struct perfdata_ahead *a)
{
	a->nowait = true;
}

int perfdata_ahead_rewind(struct perfdata_ahead *a)
{
	ahead_stop(a);
	int rc = perfdata_rewind(a->rd);
	perfdata_get_stats(a->rd, &a->stats);
	return rc;
}

void perfdata_ahead_get_stats(const struct perfdata_ahead *a, struct perfdata_stats *st)
{
	*st = a->stats;
}
