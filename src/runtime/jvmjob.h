/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jvmjob: the JVM attaches (jvmattach.h) of a few processes, run by a short-lived thread of their
 * own, so that the session's thread never waits on a JVM: it starts a job, looks at each tick
 * whether it is done (an atomic flag), and then takes the results (the thread is joined: it has
 * ended). One job at a time is the session's rule; a job holds at most JVMJOB_MAX processes and
 * takes at most about JVMJOB_MAX attaches' bounded waits. Freeing a job that runs stops it at its
 * next step (JVMATTACH_STEP_MS) and joins it. The thread blocks every signal: the session's
 * thread takes them.
 */
#ifndef PERFTOP_RUNTIME_JVMJOB_H
#define PERFTOP_RUNTIME_JVMJOB_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/jvmattach.h"

#define JVMJOB_MAX 8

struct jvmjob_item {
	uint32_t pid;
	bool ask_flags;                  /* also its VM.flags (PreserveFramePointer) */
	struct jvmattach_result res;     /* the job's answer */
	uint32_t ms;                     /* how long it took */
};

struct jvmjob;

/* Starts the attaches of items[0, n) (n at most JVMJOB_MAX); NULL when no thread can be made. */
struct jvmjob *jvmjob_start(const struct jvmjob_item *items, int n);
/* Whether the thread has ended (never blocks). */
bool jvmjob_done(struct jvmjob *j);
/* The items with their results, once done (joins the thread; valid until jvmjob_free). */
int jvmjob_results(struct jvmjob *j, const struct jvmjob_item **items);
/* Stops a job that still runs (bounded) and frees it. */
void jvmjob_free(struct jvmjob *j);

#endif
