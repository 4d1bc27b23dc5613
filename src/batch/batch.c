/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * batch: the refresh loop without a terminal. It polls the session every few milliseconds (so the
 * sampler's queue never fills while we wait) and prints a snapshot at each interval (batch_print.c
 * formats them, and says what the JSON holds).
 */
#include "batch/batch.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "session/replay.h"
#include "util/util.h"

static volatile sig_atomic_t batch_stop_signal;

static void batch_on_signal(int sig)
{
	batch_stop_signal = sig;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* msg on stderr, the first time there is one. */
static void tell_once(const char *msg, bool *told)
{
	if (msg && !*told) {
		*told = true;
		warn_msg("%s", msg);
	}
}

/* msg on stderr when it differs from the last one told (kept in told, of cap bytes). */
static void tell_new(const char *msg, char *told, size_t cap)
{
	if (msg && strncmp(msg, told, cap - 1) != 0) {
		snprintf(told, cap, "%s", msg);
		warn_msg("%s", msg);
	}
}

/* What the session has to tell on stderr (warnings, each new one once); -q prints only errors. */
static void batch_tell_notices(struct session *s, const struct cli *c)
{
	static bool event_told, hint_told;
	static char py_told[256], jvm_told[400];
	if (c->quiet)
		return;
	/* an event that has not fired (a breakpoint in a VM) */
	tell_once(session_event_notice(s), &event_told);
	/* a CPython process whose Python frames cannot be read: each new reason */
	tell_new(session_python_notice(s), py_told, sizeof(py_told));
	/* a node process without JavaScript names: the flag that gives them */
	tell_once(session_hint(s), &hint_told);
	/* a HotSpot JVM that gives no perf map, or runs without frame pointers: each new notice */
	tell_new(session_jvm_notice(s), jvm_told, sizeof(jvm_told));
}

/* Ends the window and prints its snapshot at time (replay: seconds of recorded time; live: -1, the
 * seconds since the start), one per event. Returns false when stdout is gone (a closed pipe). */
static bool batch_emit(struct session *s, const struct cli *c, bool zero, double time)
{
	struct snapshot *snaps[SAMPLER_MAX_EVENTS];
	int n = session_refresh_all(s, c->session.diff_base ? COL_DELTA : COL_SELF, zero, snaps);
	bool ok = true;
	if (time < 0) { /* one time for all the events of this refresh */
		struct session_status st;
		session_get_status(s, &st);
		time = st.elapsed;
	}
	for (int e = 0; e < n; e++) {
		/* -q: the window still ends (the profile decays, the push's figures move on), nothing
		 * is printed. */
		if (c->quiet) {
			snapshot_free(snaps[e]);
			continue;
		}
		struct session_status st;
		session_get_status_of(s, e, &st);
		/* Run-queue waits hidden or alone (session_set_runq): a copy seen that way. */
		struct snapshot *shown = snaps[e];
		if (session_runq(s) != RUNQ_ALL)
			shown = snapshot_runq(snaps[e], session_runq(s));
		/* Straight to stdout (fully buffered, see batch_run), flushed at the end of each
		 * snapshot: the text of a large table is not held whole in memory. */
		if (c->json) {
			batch_print_json(stdout, shown, &st, time);
			fputc('\n', stdout);
		} else {
			batch_print_text(stdout, shown, &st, time);
		}
		if (shown != snaps[e])
			snapshot_free(shown);
		snapshot_free(snaps[e]);
		ok = ok && fflush(stdout) == 0 && !ferror(stdout);
	}
	batch_tell_notices(s, c);
	return ok;
}

/*
 * A replay in batch mode runs on recorded time, as fast as it can: one snapshot over the whole file
 * (or --time START,END), or with -d one per window of that many recorded seconds, each covering its
 * own window only. No decay: a replay's snapshot is a sum, like perf report's.
 */
static int batch_run_replay(struct session *s, const struct cli *c, struct replay *rp)
{
	double start = 0, end = INFINITY;
	if (c->have_time) {
		start = c->time_start;
		end = c->time_end;
		replay_set_range(rp, start, end);
	}
	if (!c->delay_given) {
		replay_advance(rp, end);
		double dur = replay_duration(rp);
		batch_emit(s, c, true, replay_at_end(rp) && dur < end ? dur : end);
	} else {
		long printed = 0;
		/* the side-band before the range, and the windows' origin at the range's start */
		replay_advance(rp, start - 1e-9); /* a sample right at start is the first window's */
		struct snapshot *snaps[SAMPLER_MAX_EVENTS];
		for (int e = session_refresh_all(s, COL_SELF, true, snaps); e-- > 0;)
			snapshot_free(snaps[e]);
		for (double t = start; !batch_stop_signal;) {
			double next = t + c->delay;
			if (next > end)
				next = end;
			replay_advance(rp, next);
			bool last = replay_at_end(rp) || next >= end;
			double dur = replay_duration(rp);
			if (!batch_emit(s, c, true, last && dur < next && dur >= t ? dur : next))
				break;
			if (last || (c->iterations && ++printed >= c->iterations))
				break;
			t = next;
		}
	}
	const char *w = replay_warning(rp);
	if (w)
		warn_msg("%s", w);
	/* e.g. a binary here of another build than the recorded one; not the hint batch_emit told */
	if ((w = session_notice(s)) != NULL && w != session_hint(s))
		warn_msg("%s", w);
	return 0;
}

int batch_run(struct session *s, const struct cli *c)
{
	struct sigaction sa = {0};
	sa.sa_handler = batch_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* A buffer of our own: glibc ignores the size when given none, and takes 4 KiB on a pipe.
	 * A snapshot up to this size then leaves in one write, so that a profiled command writing to
	 * the same stdout ("ready" from a workload) lands between snapshots, not inside one's JSON;
	 * only a line longer than the pipe holds can still be cut, where the write waits for room. */
	static char stdout_buf[1 << 20];
	setvbuf(stdout, stdout_buf, _IOFBF, sizeof(stdout_buf));
	if (session_replay(s))
		return batch_run_replay(s, c, session_replay(s));

	const uint64_t interval = (uint64_t)(c->delay * 1e9);
	uint64_t next = now_ns() + interval;
	long printed = 0;
	while (!batch_stop_signal) {
		long took = session_poll(s);
		struct session_status st;
		session_get_status(s, &st);
		if (st.target_exited) {
			/* The sampler tells the exit once its last records are queued, which may be
			 * after the drain above: they go into the last snapshot, not nowhere (a block
			 * ending as the command exits, under load). */
			do
				session_poll(s);
			while (session_backlog(s));
			batch_emit(s, c, c->zero, -1);
			if (st.command_name && WIFEXITED(st.exit_status) && WEXITSTATUS(st.exit_status))
				warn_msg("%s exited with status %d", st.command_name, WEXITSTATUS(st.exit_status));
			return 0;
		}
		uint64_t now = now_ns();
		if (now >= next) {
			if (!batch_emit(s, c, c->zero, -1))
				return 0;
			if (c->iterations && ++printed >= c->iterations)
				return 0;
			next += interval;
			if (next < now)
				next = now + interval;
			continue;
		}
		/* Records flowing: drain every 10 ms. Idle: sleep until the interval ends or records
		 * come (the session's wake descriptor), so an idle session wakes once per interval. */
		uint64_t wait_ms = (next - now) / 1000000 + 1;
		int fd = session_wake_fd(s);
		if (took > 0 || fd < 0) {
			sleep_ms(wait_ms < 10 ? (long)wait_ms : 10);
		} else {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			poll(&p, 1, wait_ms > 60000 ? 60000 : (int)wait_ms);
		}
	}
	return 0;
}
