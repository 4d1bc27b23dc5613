/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_sampler_live: the sampler on real perf events (cpu-clock, so it runs without a hardware
 * PMU). A command run by the sampler, a running program attached with -p that starts a thread
 * later, and the one-line errors a user can cause; a tracepoint's filter; a moment system-wide.
 *
 *   test_sampler_live FIXTURE_THREAD [main|filter|system]
 *
 * Each part is its own ctest test (CMakeLists.txt), so that a part this machine cannot run shows as
 * a skipped test, never as a pass. A part exits 77 (skipped) only on what perfprobe.h learns from
 * the kernel and the filesystem: perf_event_open of cpu-clock refused to this unprivileged process
 * (main; system: on every CPU), tracefs not mounted or sched:sched_switch refused (filter); the
 * same refusals to a privileged process fail the test.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "check.h"
#include "perfprobe.h"
#include "sampler/event.h"
#include "sampler/sampler.h"
#include "util/util.h"

/* Every record the sampler delivered, copied out of the queue. */
struct stream {
	unsigned char *buf;
	size_t len, cap;
	size_t *offs;
	size_t n, ncap;
};

static const struct rec *stream_at(const struct stream *st, size_t i)
{
	return (const struct rec *)(st->buf + st->offs[i]);
}

static void stream_add(struct stream *st, const void *p, size_t len)
{
	if (st->len + len > st->cap) {
		st->cap = (st->len + len) * 2;
		st->buf = realloc(st->buf, st->cap);
	}
	if (st->n == st->ncap) {
		st->ncap = st->ncap ? st->ncap * 2 : 1024;
		st->offs = realloc(st->offs, st->ncap * sizeof(*st->offs));
	}
	if (!st->buf || !st->offs)
		abort();
	memcpy(st->buf + st->len, p, len);
	st->offs[st->n++] = st->len;
	st->len += len;
}

static void stream_free(struct stream *st)
{
	free(st->buf);
	free(st->offs);
	memset(st, 0, sizeof(*st));
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* Drains the queue until the sampler says the target exited (and then once more). */
static int collect(struct sampler *s, struct stream *st, int timeout_ms)
{
	struct queue *q = sampler_queue(s);
	struct sampler_stats stats;
	int waited = 0;

	for (;;) {
		const void *p;
		size_t len;
		bool exited;

		sampler_get_stats(s, &stats);
		exited = stats.target_exited;
		while ((p = queue_peek(q, &len)) != NULL) {
			stream_add(st, p, len);
			queue_pop(q);
		}
		if (exited)
			return 0;
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		sleep_ms(5);
		waited += 5;
	}
}

/* Refused outright (no perf at all, or paranoid settings)? Then the live tests cannot run. */
/* Checks common to every stream: time 0 only first, then non-decreasing times. */
static void check_order(const struct stream *st)
{
	uint64_t last = 0;
	size_t bad = 0;
	bool seen_timed = false;

	for (size_t i = 0; i < st->n; i++) {
		const struct rec *r = stream_at(st, i);
		if (r->size % 8 != 0)
			bad++;
		if (r->time == 0) {
			if (seen_timed && r->type != REC_OTHER)
				bad++;
			continue;
		}
		seen_timed = true;
		if (r->time < last) {
			fprintf(stderr, "record %zu (type %u) at %llu after %llu\n", i, r->type,
				(unsigned long long)r->time, (unsigned long long)last);
			bad++;
		}
		last = r->time;
	}
	CHECK_EQ_U64(bad, 0);
}

static void test_command(unsigned mmap_pages)
{
	char *argv[] = { "/bin/sh", "-c", "i=0; while [ $i -lt 600000 ]; do i=$((i+1)); done",
			 NULL };
	struct sampler_opts o = { 0 };
	struct sampler_stats stats;
	struct stream st = { 0 };
	char err[512], shell[PATH_MAX];
	struct sampler *s;
	pid_t child;
	size_t samples = 0, with_chain = 0, first_user = SIZE_MAX, first_map = SIZE_MAX;
	uint64_t map_start = 0, map_end = 0;

	if (!realpath("/bin/sh", shell))
		snprintf(shell, sizeof(shell), "/bin/sh");
	o.target = TARGET_COMMAND;
	o.argv = argv;
	o.event = "cpu-clock";
	o.freq = 999;
	o.callchain = true;
	o.synthesize = true;
	o.mmap_pages = mmap_pages;   /* 1 page: records wrap the ring's end all the time */
	s = sampler_open(&o, err, sizeof(err));
	CHECK(s != NULL);
	if (!s) {
		fprintf(stderr, "sampler_open: %s\n", err);
		return;
	}
	CHECK_STR(sampler_event_name(s, 0), "cpu-clock");
	CHECK(!sampler_event_fell_back(s));
	CHECK_EQ_U64(sampler_freq(s, 0), 999);
	CHECK(sampler_nr_cpus(s) >= 1);
	child = sampler_child_pid(s);
	CHECK(child > 0);
	CHECK(sampler_start(s, err, sizeof(err)) == 0);
	CHECK(collect(s, &st, 30000) == 0);
	sampler_get_stats(s, &stats);
	sampler_stop(s);

	CHECK(stats.target_exited);
	CHECK(WIFEXITED(stats.exit_status) && WEXITSTATUS(stats.exit_status) == 0);
	CHECK_EQ_U64(stats.records, st.n);
	CHECK_EQ_U64(stats.dropped, 0);
	CHECK_EQ_U64(stats.bad_records, 0);
	CHECK_EQ_U64(stats.out_of_order, 0);
	check_order(&st);

	/* Find the shell's executable mapping for the child, and the child's first user sample in
	 * it: the mapping has to come first. */
	for (size_t i = 0; i < st.n; i++) {
		const struct rec *r = stream_at(&st, i);
		if (r->type == REC_MMAP && r->u.mmap.pid == (uint32_t)child && r->u.mmap.executable &&
		    strcmp(rec_filename(r), shell) == 0 && first_map == SIZE_MAX) {
			first_map = i;
			map_start = r->u.mmap.start;
			map_end = r->u.mmap.start + r->u.mmap.len;
		}
	}
	for (size_t i = 0; i < st.n; i++) {
		const struct rec *r = stream_at(&st, i);
		if (r->type != REC_SAMPLE || r->pid != (uint32_t)child)
			continue;
		samples++;
		if (r->u.sample.callchain_nr > 0)
			with_chain++;
		if (first_user == SIZE_MAX && rec_cpumode(r) == PERF_RECORD_MISC_USER &&
		    r->u.sample.ip >= map_start && r->u.sample.ip < map_end)
			first_user = i;
	}
	printf("command (%u pages): %zu records, %zu samples of pid %d (%zu with callchains), %s mapped at "
	       "record %zu, first user sample in it at %zu\n",
	       mmap_pages, st.n, samples, (int)child, with_chain, shell, first_map, first_user);
	CHECK(samples + stats.lost > 100);
	CHECK_EQ_U64(with_chain, samples);
	CHECK(first_map != SIZE_MAX);
	CHECK(first_user != SIZE_MAX);
	CHECK(first_map < first_user);
	sampler_free(s);
	stream_free(&st);
}

/*
 * Several events on one command: cpu-clock at -F, page-faults at its own period (every fault), and
 * task-clock in cpu-clock's group. Every sample says its event (evidx), each event has samples and
 * the per-event counts match the stream, the page-faults samples weigh 1, and the side-band comes
 * once (the first event's), not once per event.
 */
static void test_events(void)
{
	char *argv[] = { "/bin/sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done",
			 NULL };
	struct sampler_event ev[3];
	struct sampler_opts o = { 0 };
	struct sampler_stats stats;
	struct stream st = { 0 };
	char err[512], shell[PATH_MAX];
	size_t per[3] = { 0 }, bad_ev = 0, pf_period = 0, shell_maps = 0;

	if (!realpath("/bin/sh", shell))
		snprintf(shell, sizeof(shell), "/bin/sh");
	memset(ev, 0, sizeof(ev));
	const char *names[3] = { "cpu-clock", "page-faults", "task-clock" };
	for (int i = 0; i < 3; i++) {
		uint32_t type;
		uint64_t config;
		CHECK(event_lookup(names[i], &type, &config) == 0);
		ev[i].attr.type = type;
		ev[i].attr.config = config;
		snprintf(ev[i].name, sizeof(ev[i].name), "%s", names[i]);
		ev[i].leader = -1;
	}
	ev[1].attr.sample_period = 1; /* its own: every fault */
	ev[2].leader = 0;
	o.target = TARGET_COMMAND;
	o.argv = argv;
	o.events = ev;
	o.nevents = 3;
	o.freq = 999;
	o.callchain = true;
	o.synthesize = true;
	struct sampler *s = sampler_open(&o, err, sizeof(err));
	CHECK(s != NULL);
	if (!s) {
		fprintf(stderr, "sampler_open: %s\n", err);
		return;
	}
	pid_t child = sampler_child_pid(s);
	CHECK_EQ_U64(sampler_nevents(s), 3);
	CHECK_STR(sampler_event_name(s, 1), "page-faults");
	CHECK_EQ_U64(sampler_freq(s, 0), 999);
	CHECK_EQ_U64(sampler_freq(s, 1), 0);
	CHECK_EQ_U64(sampler_period(s, 1), 1);
	CHECK_EQ_U64(sampler_freq(s, 2), 999);
	CHECK(sampler_start(s, err, sizeof(err)) == 0);
	CHECK(collect(s, &st, 30000) == 0);
	sampler_get_stats(s, &stats);
	sampler_stop(s);
	CHECK_EQ_U64(stats.bad_records, 0);
	CHECK_EQ_U64(stats.nevents, 3);
	check_order(&st);
	for (size_t i = 0; i < st.n; i++) {
		const struct rec *r = stream_at(&st, i);
		if (r->type == REC_MMAP && r->u.mmap.pid == (uint32_t)child && r->u.mmap.executable &&
		    strcmp(rec_filename(r), shell) == 0)
			shell_maps++;
		if (r->type != REC_SAMPLE)
			continue;
		if (r->evidx >= 3) {
			bad_ev++;
			continue;
		}
		per[r->evidx]++;
		if (r->evidx == 1 && r->u.sample.period == 1)
			pf_period++;
	}
	printf("events: cpu-clock %zu, page-faults %zu (period 1: %zu), task-clock %zu samples; the "
	       "shell mapped %zu time(s)\n", per[0], per[1], pf_period, per[2], shell_maps);
	CHECK_EQ_U64(bad_ev, 0);
	for (int e = 0; e < 3; e++) {
		CHECK(per[e] > 0);
		CHECK_EQ_U64(stats.event_samples[e], per[e]);
	}
	CHECK_EQ_U64(pf_period, per[1]);
	CHECK_EQ_U64(shell_maps, 1);
	sampler_free(s);
	stream_free(&st);
}

/* Runs a shell that waits for two sleeps, with cpu-clock and sched:sched_switch (id, at every
 * switch, with filter); returns the sched_switch samples, or -1 when it cannot open. */
static long switch_samples(long id, const char *filter, char *err, size_t errlen)
{
	char *argv[] = { "/bin/sh", "-c", "sleep 0.01; sleep 0.01", NULL };
	struct sampler_event ev[2];
	struct sampler_opts o = { 0 };
	struct stream st = { 0 };
	memset(ev, 0, sizeof(ev));
	ev[0].attr.type = PERF_TYPE_SOFTWARE;
	ev[0].attr.config = PERF_COUNT_SW_CPU_CLOCK;
	snprintf(ev[0].name, sizeof(ev[0].name), "cpu-clock");
	ev[0].leader = -1;
	ev[1].attr.type = PERF_TYPE_TRACEPOINT;
	ev[1].attr.config = (uint64_t)id;
	ev[1].attr.sample_period = 1;
	snprintf(ev[1].name, sizeof(ev[1].name), "sched:sched_switch");
	ev[1].filter = filter;
	ev[1].leader = -1;
	o.target = TARGET_COMMAND;
	o.argv = argv;
	o.events = ev;
	o.nevents = 2;
	o.freq = 999;
	o.synthesize = true;
	struct sampler *s = sampler_open(&o, err, errlen);
	if (!s)
		return -1;
	long n = 0;
	CHECK(sampler_start(s, err, errlen) == 0);
	CHECK(collect(s, &st, 30000) == 0);
	sampler_stop(s);
	for (size_t i = 0; i < st.n; i++)
		n += stream_at(&st, i)->type == REC_SAMPLE && stream_at(&st, i)->evidx == 1;
	sampler_free(s);
	stream_free(&st);
	return n;
}

/* A tracepoint's filter is set on each of its fds: one that passes every switch of the shell, one
 * that passes none, one the kernel refuses (named in the error). main() made sure that tracefs is
 * mounted and that the kernel opens the tracepoint (perfprobe_tracepoint_verdict). */
static void test_tracepoint_filter(void)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char buf[32], path[128], err[512];
	long n = -1;
	for (size_t i = 0; i < 2 && n <= 0; i++) {
		snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", roots[i]);
		n = read_small_file(path, buf, sizeof(buf));
	}
	CHECK(n > 0);
	if (n <= 0)
		return;
	long id = atol(buf);
	long all = switch_samples(id, "prev_pid != 1", err, sizeof(err));
	if (all < 0)
		fprintf(stderr, "sched:sched_switch with a filter: %s\n", err);
	long none = switch_samples(id, "prev_pid == 1", err, sizeof(err));
	long bad = switch_samples(id, "no_such_field == 1", err, sizeof(err));
	printf("tracepoint filter: %ld switches pass 'prev_pid != 1', %ld pass 'prev_pid == 1'; a bad "
	       "one: %s\n", all, none, bad < 0 ? err : "opened");
	CHECK(all >= 2); /* the shell waits for each sleep */
	CHECK_EQ_U64(none, 0);
	CHECK(bad < 0 && strstr(err, "no_such_field") && strstr(err, "sched:sched_switch"));
}

static int count_tasks(pid_t pid)
{
	char path[64];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static bool catches_usr1(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	bool yes = false;
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "SigCgt:", 7) == 0)
			yes = (strtoull(line + 7, NULL, 16) >> (SIGUSR1 - 1)) & 1;
	if (f)
		fclose(f);
	return yes;
}

static void test_pids(const char *fixture)
{
	struct sampler_opts o = { 0 };
	struct sampler_stats stats;
	struct stream st = { 0 };
	char err[512];
	struct sampler *s;
	pid_t pid;
	int ids[1], status, ntasks;
	size_t main_samples = 0, thread_samples = 0, comms = 0;

	pid = fork();
	if (pid == 0) {
		execl(fixture, fixture, (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0);
	if (pid <= 0)
		return;
	/* Attached once the fixture catches SIGUSR1 (exec done, handler set), so the signal that
	 * starts its thread cannot kill it: SigCgt in /proc/PID/status, for up to 10 s. */
	for (int i = 0; i < 1000 && !catches_usr1(pid); i++)
		sleep_ms(10);
	ntasks = count_tasks(pid);
	ids[0] = pid;
	o.target = TARGET_PIDS;
	o.ids = ids;
	o.nids = 1;
	o.event = "cpu-clock";
	o.freq = 999;
	o.callchain = true;
	o.synthesize = true;
	s = sampler_open(&o, err, sizeof(err));
	CHECK(s != NULL);
	if (!s) {
		fprintf(stderr, "sampler_open: %s\n", err);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return;
	}
	CHECK(sampler_start(s, err, sizeof(err)) == 0);
	/* attached: now the fixture starts its second thread */
	kill(pid, SIGUSR1);
	CHECK(collect(s, &st, 30000) == 0);
	sampler_get_stats(s, &stats);
	sampler_stop(s);
	waitpid(pid, &status, 0);

	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(stats.target_exited);
	CHECK_EQ_U64(stats.bad_records, 0);
	check_order(&st);
	for (size_t i = 0; i < st.n; i++) {
		const struct rec *r = stream_at(&st, i);
		if (r->type == REC_COMM && r->time == 0 && r->pid == (uint32_t)pid)
			comms++;
		if (r->type != REC_SAMPLE || r->pid != (uint32_t)pid)
			continue;
		if (r->tid == (uint32_t)pid)
			main_samples++;
		else
			thread_samples++;
	}
	printf("pids: %d task(s) at attach, %zu records, %zu synthesized comms, %zu main-thread "
	       "samples, %zu new-thread samples\n",
	       ntasks, st.n, comms, main_samples, thread_samples);
	CHECK_EQ_U64(ntasks, 1);
	CHECK(comms >= 1);
	CHECK(main_samples > 100);
	CHECK(thread_samples > 100);
	sampler_free(s);
	stream_free(&st);
}

/* Opens with these opts and expects failure with a message containing both needles. */
static void expect_open_error(struct sampler_opts *o, const char *n1, const char *n2)
{
	char err[1024];
	struct sampler *s = sampler_open(o, err, sizeof(err));
	CHECK(s == NULL);
	if (s) {
		sampler_free(s);
		return;
	}
	printf("error: %s\n", err);
	CHECK(strstr(err, n1) != NULL);
	CHECK(!n2 || strstr(err, n2) != NULL);
	CHECK(strchr(err, '\n') == NULL);
}

static void test_errors(void)
{
	struct sampler_opts o = { 0 };
	int ids[1];
	char *nocmd[] = { "perftop-no-such-command", NULL };
	char *nopath[] = { "/nonexistent/foo", NULL };

	o.event = "cpu-clock";
	o.callchain = true;

	/* A pid nobody has. */
	ids[0] = 4194000;
	while (ids[0] > 2 && !(kill(ids[0], 0) != 0 && errno == ESRCH))
		ids[0]--;
	o.target = TARGET_PIDS;
	o.ids = ids;
	o.nids = 1;
	expect_open_error(&o, "no such process", NULL);
	o.target = TARGET_TIDS;
	expect_open_error(&o, "no such process", NULL);

	o.target = TARGET_SYSTEM;
	o.event = "no-such-event";
	expect_open_error(&o, "unknown event", "cpu-clock");

	if (!event_have_hw_pmu()) {
		o.event = "cycles";
		expect_open_error(&o, "not supported", "cpu-clock");
		/* And the default falls back to cpu-clock, saying so. */
		o.event = NULL;
		o.target = TARGET_CPUS;
		o.cpus = (int[]){ 0 };
		o.ncpus = 1;
		char err[512];
		struct sampler *s = sampler_open(&o, err, sizeof(err));
		CHECK(s != NULL);
		if (s) {
			CHECK_STR(sampler_event_name(s, 0), "cpu-clock");
			CHECK(sampler_event_fell_back(s));
			sampler_free(s);   /* never started: must still clean up */
		}
		o.cpus = NULL;
		o.ncpus = 0;
	}

	o.event = "cpu-clock";
	o.target = TARGET_CPUS;
	o.cpus = (int[]){ 4000 };
	o.ncpus = 1;
	expect_open_error(&o, "not online", NULL);
	o.cpus = NULL;
	o.ncpus = 0;

	o.target = TARGET_COMMAND;
	o.argv = nocmd;
	expect_open_error(&o, "cannot run 'perftop-no-such-command'", "No such file");
	o.argv = nopath;
	expect_open_error(&o, "cannot run '/nonexistent/foo'", "No such file");

	/* Found, but the exec itself fails (a script whose interpreter does not exist): reported by
	 * sampler_start, with the child already reaped. */
	{
		char path[] = "/tmp/perftop-test-XXXXXX";
		char *argv[] = { path, NULL };
		char err[512];
		int fd = mkstemp(path);
		CHECK(fd >= 0);
		if (fd >= 0) {
			const char *script = "#!/nonexistent/interpreter\n";
			CHECK(write(fd, script, strlen(script)) == (ssize_t)strlen(script));
			fchmod(fd, 0755);
			close(fd);
			o.argv = argv;
			struct sampler *s = sampler_open(&o, err, sizeof(err));
			CHECK(s != NULL);
			if (s) {
				CHECK(sampler_start(s, err, sizeof(err)) < 0);
				printf("error: %s\n", err);
				CHECK(strstr(err, "cannot run") != NULL);
				CHECK(strstr(err, "No such file") != NULL);
				sampler_free(s);
			}
			unlink(path);
		}
	}

	/* A command that is never started is released and reaped by sampler_free. */
	{
		char *argv[] = { "sleep", "10", NULL };
		char err[512];
		o.argv = argv;
		struct sampler *s = sampler_open(&o, err, sizeof(err));
		CHECK(s != NULL);
		if (s) {
			pid_t c = sampler_child_pid(s);
			sampler_free(s);
			CHECK(kill(c, 0) != 0 && errno == ESRCH);
		}
	}

	/* Stopping a long command early: SIGTERM, reaped, no hang. */
	{
		char *argv[] = { "sleep", "30", NULL };
		char err[512];
		o.argv = argv;
		struct sampler *s = sampler_open(&o, err, sizeof(err));
		CHECK(s != NULL);
		if (s) {
			CHECK(sampler_start(s, err, sizeof(err)) == 0);
			sleep_ms(100);
			pid_t c = sampler_child_pid(s);
			sampler_stop(s);
			CHECK(kill(c, 0) != 0 && errno == ESRCH);
			sampler_free(s);
		}
	}
}

/* Runs sampler_open in a child as user nobody and returns its message (root only). */
static int open_as_nobody(struct sampler_opts *o, char *msg, size_t len)
{
	int fds[2], status;
	pid_t pid;
	ssize_t n;

	if (pipe(fds) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char err[512] = "";
		close(fds[0]);
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(3);
		struct sampler *s = sampler_open(o, err, sizeof(err));
		if (s)
			snprintf(err, sizeof(err), "(opened)");
		if (write(fds[1], err, strlen(err)) < 0)
			_exit(4);
		_exit(0);
	}
	close(fds[1]);
	n = pid > 0 ? read(fds[0], msg, len - 1) : -1;
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	msg[n > 0 ? n : 0] = '\0';
	return n > 0 ? 0 : -1;
}

static void test_permission_and_limits(void)
{
	struct sampler_opts o = { 0 };
	char msg[512];
	long paranoid = 2;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (f) {
		if (fscanf(f, "%ld", &paranoid) != 1)
			paranoid = 2;
		fclose(f);
	}
	o.event = "cpu-clock";
	o.callchain = true;
	if (geteuid() == 0 && paranoid >= 1) {
		o.target = TARGET_SYSTEM;
		CHECK(open_as_nobody(&o, msg, sizeof(msg)) == 0);
		printf("as nobody, -a: %s\n", msg);
		CHECK(strstr(msg, "permission denied for system-wide") != NULL);
		CHECK(strstr(msg, "perf_event_paranoid") != NULL);
		int ids[1] = { 1 };
		o.target = TARGET_PIDS;
		o.ids = ids;
		o.nids = 1;
		CHECK(open_as_nobody(&o, msg, sizeof(msg)) == 0);
		printf("as nobody, -p 1: %s\n", msg);
		CHECK(strstr(msg, "permission denied for process 1") != NULL);
		o.ids = NULL;
		o.nids = 0;
	}

	/* Too few file descriptors: the message says what to raise. */
	{
		struct rlimit old, low;
		char err[512];
		int probe = dup(0);
		getrlimit(RLIMIT_NOFILE, &old);
		low = old;
		low.rlim_cur = (rlim_t)probe + 1;   /* room for one more fd only */
		close(probe);
		o.target = TARGET_SYSTEM;
		if (setrlimit(RLIMIT_NOFILE, &low) == 0) {
			struct sampler *s = sampler_open(&o, err, sizeof(err));
			setrlimit(RLIMIT_NOFILE, &old);
			if (s) {
				sampler_free(s);   /* a single CPU needs one fd: nothing to learn */
			} else {
				printf("low fd limit: %s\n", err);
				CHECK(strstr(err, "ulimit -n") != NULL);
			}
		}
	}

	/* -F above the kernel's maximum is clamped to it. */
	{
		long max = 0;
		char err[512];
		f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
		if (f) {
			if (fscanf(f, "%ld", &max) != 1)
				max = 0;
			fclose(f);
		}
		o.target = TARGET_CPUS;
		o.cpus = (int[]){ 0 };
		o.ncpus = 1;
		o.freq = 1000000000;
		struct sampler *s = sampler_open(&o, err, sizeof(err));
		CHECK(s != NULL);
		if (s && max > 0)
			CHECK_EQ_U64(sampler_freq(s, 0), (uint64_t)max);
		sampler_free(s);
	}
}

static void test_system(void)
{
	/* System-wide for a moment: synthesized records first (time 0), then live ones in order. */
	struct sampler_opts o = { 0 };
	struct sampler_stats stats;
	struct stream st = { 0 };
	char err[512];
	struct sampler *s;
	size_t synth = 0, live = 0;
	struct queue *q;

	o.target = TARGET_SYSTEM;
	o.event = "cpu-clock";
	o.freq = 999;
	o.callchain = true;
	o.synthesize = true;
	s = sampler_open(&o, err, sizeof(err));
	CHECK(s != NULL);
	if (!s) {
		fprintf(stderr, "sampler_open: %s\n", err);
		return;
	}
	CHECK(sampler_start(s, err, sizeof(err)) == 0);
	q = sampler_queue(s);
	for (int t = 0; t < 1000; t += 5) {
		const void *p;
		size_t len;
		while ((p = queue_peek(q, &len)) != NULL) {
			stream_add(&st, p, len);
			queue_pop(q);
		}
		sleep_ms(5);
	}
	sampler_stop(s);
	sampler_get_stats(s, &stats);
	for (size_t i = 0; i < st.n; i++) {
		if (stream_at(&st, i)->time == 0)
			synth++;
		else
			live++;
	}
	printf("system: %zu synthesized, %zu live records, %llu samples, truncated %d\n", synth,
	       live, (unsigned long long)stats.samples, stats.synth_truncated);
	CHECK(synth > 10);
	CHECK(stats.samples > 0);
	CHECK(!stats.target_exited);
	check_order(&st);
	sampler_free(s);
	stream_free(&st);
}

int main(int argc, char **argv)
{
	char why[256];
	const char *part = argc > 2 ? argv[2] : "main";
	int v;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc < 2 || (strcmp(part, "main") && strcmp(part, "filter") && strcmp(part, "system"))) {
		fprintf(stderr, "usage: %s FIXTURE_THREAD [main|filter|system]\n", argv[0]);
		return 2;
	}
	v = perfprobe_verdict("task", why, sizeof(why));
	if (v == 0 && strcmp(part, "filter") == 0)
		v = perfprobe_tracepoint_verdict("sched:sched_switch", why, sizeof(why));
	if (v == 0 && strcmp(part, "system") == 0)
		v = perfprobe_verdict("cpu", why, sizeof(why));
	if (v != 0) {
		printf("%s: %s\n", v == 77 ? "SKIP" : "FAIL", why);
		return v;
	}
	if (strcmp(part, "filter") == 0) {
		test_tracepoint_filter();
	} else if (strcmp(part, "system") == 0) {
		test_system();
	} else {
		test_errors();
		test_permission_and_limits();
		test_command(0);
		test_command(1);
		test_events();
		test_pids(argv[1]);
	}
	return CHECK_DONE();
}
