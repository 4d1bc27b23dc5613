/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jvmjob: a thread per job (see jvmjob.h). The items are the job's own copy: the thread writes
 * their results, the session reads them only after the join, which orders the two.
 */
#include "runtime/jvmjob.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

struct jvmjob {
	pthread_t thread;
	bool joined;
	atomic_bool stop;
	atomic_bool done;
	int n;
	struct jvmjob_item items[JVMJOB_MAX];
};

static void *jvmjob_main(void *arg)
{
	struct jvmjob *j = arg;
	for (int i = 0; i < j->n; i++) {
		if (atomic_load_explicit(&j->stop, memory_order_relaxed)) {
			j->items[i].res.status = JVMATTACH_LATER;
			snprintf(j->items[i].res.why, sizeof(j->items[i].res.why), "stopped");
			continue;
		}
		uint64_t t0 = now_ns();
		jvmattach_run(j->items[i].pid, j->items[i].ask_flags, &j->stop, &j->items[i].res);
		j->items[i].ms = (uint32_t)((now_ns() - t0) / 1000000);
	}
	atomic_store_explicit(&j->done, true, memory_order_release);
	return NULL;
}

struct jvmjob *jvmjob_start(const struct jvmjob_item *items, int n)
{
	if (n <= 0)
		return NULL;
	struct jvmjob *j = xcalloc(1, sizeof(*j));
	j->n = n < JVMJOB_MAX ? n : JVMJOB_MAX;
	memcpy(j->items, items, (size_t)j->n * sizeof(*items));
	atomic_init(&j->stop, false);
	atomic_init(&j->done, false);
	/* every signal blocked in the new thread (it inherits the mask it is created with) */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&j->thread, NULL, jvmjob_main, j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		free(j);
		return NULL;
	}
	return j;
}

bool jvmjob_done(struct jvmjob *j)
{
	return atomic_load_explicit(&j->done, memory_order_acquire);
}

static void jvmjob_join(struct jvmjob *j)
{
	if (!j->joined) {
		pthread_join(j->thread, NULL);
		j->joined = true;
	}
}

int jvmjob_results(struct jvmjob *j, const struct jvmjob_item **items)
{
	jvmjob_join(j);
	*items = j->items;
	return j->n;
}

void jvmjob_free(struct jvmjob *j)
{
	if (!j)
		return;
	atomic_store_explicit(&j->stop, true, memory_order_relaxed);
	jvmjob_join(j);
	free(j);
}
