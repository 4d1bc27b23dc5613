/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session_jvm: HotSpot JVMs asked for their perf map, live. The symbolizer says which JVMs are due
 * (symbolizer.h: unnamed JIT code, at a bounded rate); at each tick a finished job's answers go
 * back to it and the due ones start the next job (src/runtime/jvmjob.h: a short thread of its own,
 * so this thread never waits on a JVM). One job at a time. What a JVM's answer means for the view is
 * one notice line: the last JVM that refused (what to do instead), or that runs without frame
 * pointers in its JIT code (its Java callers are likely missing).
 *
 * PERFTOP_JVM_STATS in the environment: each answer, then the totals at close, on stderr (the tests
 * and bench/runtime_jvm.sh read them).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/jvmjob.h"
#include "session/session_int.h"
#include "util/util.h"

static const char *const jvm_status_names[] = { "ok", "later", "refused", "gone" };

static void session_jvm_answer(struct session *s, const struct jvmjob_item *it)
{
	const struct jvmattach_result *r = &it->res;
	enum symbolizer_jvm_answer a = r->status == JVMATTACH_OK ? SYMBOLIZER_JVM_DONE
				     : r->status != JVMATTACH_LATER ? SYMBOLIZER_JVM_NEVER
				     : r->soon ? SYMBOLIZER_JVM_SOON : SYMBOLIZER_JVM_LATER;
	bool gave_up = symbolizer_jvm_answer(s->sym, it->pid, a);
	s->jvm_answers[r->status < 4 ? r->status : 3]++;
	s->jvm_signals += r->signalled;
	if (getenv("PERFTOP_JVM_STATS"))
		fprintf(stderr, "perftop: jvm: pid %" PRIu32 ": %s%s%s, %" PRIu32 " ms%s%s\n", it->pid,
			jvm_status_names[r->status < 4 ? r->status : 3], r->signalled ? ", signalled" : "",
			r->flags_known ? (r->preserve_fp ? ", frame pointers" : ", no frame pointers") : "",
			it->ms, r->why[0] ? ": " : "", r->why);
	if (r->status == JVMATTACH_OK && r->flags_known && !r->preserve_fp)
		snprintf(s->jvm_notice, sizeof(s->jvm_notice),
			 "java: pid %" PRIu32 " runs without -XX:+PreserveFramePointer: its Java callers "
			 "are likely missing", it->pid);
	else if (gave_up && r->status != JVMATTACH_GONE)
		snprintf(s->jvm_notice, sizeof(s->jvm_notice),
			 "java: pid %" PRIu32 " gives no perf map (%s): run `jcmd %" PRIu32
			 " Compiler.perfmap`, or start it with -XX:+UnlockDiagnosticVMOptions "
			 "-XX:+DumpPerfMapAtExit", it->pid, r->why, it->pid);
}

void session_jvm_tick(struct session *s)
{
	if (s->jvm_job) {
		if (!jvmjob_done(s->jvm_job))
			return;
		const struct jvmjob_item *items;
		int n = jvmjob_results(s->jvm_job, &items);
		for (int i = 0; i < n; i++)
			session_jvm_answer(s, &items[i]);
		jvmjob_free(s->jvm_job);
		s->jvm_job = NULL;
	}
	struct symbolizer_jvm due[JVMJOB_MAX];
	int n = symbolizer_jvm_due(s->sym, due, JVMJOB_MAX);
	if (!n)
		return;
	struct jvmjob_item items[JVMJOB_MAX] = { 0 };
	for (int i = 0; i < n; i++)
		items[i] = (struct jvmjob_item){ .pid = due[i].pid, .ask_flags = due[i].first };
	s->jvm_job = jvmjob_start(items, n);
	for (int i = 0; !s->jvm_job && i < n; i++)
		symbolizer_jvm_answer(s->sym, due[i].pid, SYMBOLIZER_JVM_LATER); /* no thread now */
}

void session_jvm_close(struct session *s)
{
	jvmjob_free(s->jvm_job); /* stops a job under way at its next step */
	s->jvm_job = NULL;
	if (getenv("PERFTOP_JVM_STATS"))
		fprintf(stderr, "perftop: jvm: %" PRIu64 " ok, %" PRIu64 " later, %" PRIu64 " refused, %"
			PRIu64 " gone; %" PRIu64 " SIGQUIT sent\n", s->jvm_answers[0], s->jvm_answers[1],
			s->jvm_answers[2], s->jvm_answers[3], s->jvm_signals);
}

const char *session_jvm_notice(struct session *s)
{
	return s->jvm_notice[0] ? s->jvm_notice : NULL;
}
