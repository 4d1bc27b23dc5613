/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_counters: the counter groups. First the arithmetic on made-up read() buffers (a group that
 * ran for half its enabled time counts double; one that never ran counts nothing; short buffers
 * are refused), then real groups on a busy child that faults pages in, yields and sleeps: its
 * context switches and page faults must grow between two reads, with inherit covering the thread
 * it starts. Exits 77 (skip) where the kernel refuses perf_event_open to this unprivileged process
 * (perfprobe.h asks it; refused to a privileged one, or no counter opening, the test fails).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "perfprobe.h"
#include "sampler/counters.h"

static void test_scale(void)
{
	CHECK_EQ_U64(counters_scale(1000, 200, 100), 2000);
	CHECK_EQ_U64(counters_scale(1000, 100, 100), 1000);
	CHECK_EQ_U64(counters_scale(1000, 100, 0), 0);
	CHECK_EQ_U64(counters_scale(7, 3, 2), 10); /* 10.5 rounds down */
	/* No overflow on the way: 2^62 x 4 / 2 */
	CHECK_EQ_U64(counters_scale(1ull << 62, 4, 2), 1ull << 63);
	CHECK_EQ_U64(counters_scale(UINT64_MAX, 4, 1), UINT64_MAX);

	/* A hardware group multiplexed a quarter of the time, and a software one that always ran. */
	struct counter_values v = {0};
	const enum counter_kind hw[] = { COUNTER_CYCLES, COUNTER_INSTRUCTIONS };
	uint64_t hwbuf[] = { 2, 4000, 1000, 500, 750 };
	CHECK(counters_add_group(&v, hwbuf, 5, hw, 2) == 0);
	const enum counter_kind sw[] = { COUNTER_CTX_SWITCHES, COUNTER_PAGE_FAULTS };
	uint64_t swbuf[] = { 2, 4000, 4000, 12, 34 };
	CHECK(counters_add_group(&v, swbuf, 5, sw, 2) == 0);
	CHECK_EQ_U64(v.value[COUNTER_CYCLES], 2000);
	CHECK_EQ_U64(v.value[COUNTER_INSTRUCTIONS], 3000);
	CHECK_EQ_U64(v.value[COUNTER_CTX_SWITCHES], 12);
	CHECK_EQ_U64(v.value[COUNTER_PAGE_FAULTS], 34);
	CHECK(v.have[COUNTER_CYCLES] && v.have[COUNTER_PAGE_FAULTS] && !v.have[COUNTER_MIGRATIONS]);
	CHECK_EQ_U64(v.hw_time_enabled, 4000);
	CHECK_EQ_U64(v.hw_time_running, 1000);
	/* A second CPU's group adds, each scaled by its own times. */
	uint64_t hwbuf2[] = { 2, 1000, 1000, 100, 100 };
	CHECK(counters_add_group(&v, hwbuf2, 5, hw, 2) == 0);
	CHECK_EQ_U64(v.value[COUNTER_CYCLES], 2100);
	/* Inconsistent buffers are refused and change nothing. */
	uint64_t bad[] = { 3, 1, 1, 5, 5 };
	CHECK(counters_add_group(&v, bad, 5, hw, 2) == -EINVAL);
	CHECK(counters_add_group(&v, hwbuf, 4, hw, 2) == -EINVAL);
	CHECK_EQ_U64(v.value[COUNTER_CYCLES], 2100);
	CHECK_STR(counter_name(COUNTER_CTX_SWITCHES), "context-switches");
}

static void *busy_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < 200; i++) {
		sched_yield();
		usleep(500);
	}
	return NULL;
}

/* The child: held until the counters exist, then faults in fresh pages and sleeps in a loop. */
static _Noreturn void child_main(int go)
{
	char c;
	if (read(go, &c, 1) != 1)
		_exit(1);
	pthread_t t;
	pthread_create(&t, NULL, busy_thread, NULL);
	for (int round = 0; round < 40; round++) {
		size_t len = 64 * 4096;
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(1);
		for (size_t off = 0; off < len; off += 4096)
			p[off] = 1;
		munmap(p, len);
		usleep(2000);
	}
	pthread_join(t, NULL);
	_exit(0);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static int test_live(void)
{
	char why[256];
	int v = perfprobe_verdict("task", why, sizeof(why));
	if (v != 0) {
		printf("%s: %s\n", v == 77 ? "SKIP" : "FAIL", why);
		return v;
	}
	int go[2];
	if (pipe(go) != 0)
		return 1;
	pid_t pid = fork();
	if (pid == 0) {
		close(go[1]);
		child_main(go[0]);
	}
	close(go[0]);
	struct counters_opts o = { .inherit = true };
	struct counters *c = counters_new(&o);
	int n = counters_attach(c, pid, -1);
	if (n <= 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		counters_free(c);
		/* the kernel lets this process sample (the probe): counting must work too */
		printf("FAIL: no counter could be opened on the child\n");
		return 1;
	}
	counters_enable(c);
	struct counter_values v0, v1, v2;
	CHECK(counters_read(c, &v0) == 0);
	CHECK(v0.have[COUNTER_CTX_SWITCHES] && v0.have[COUNTER_PAGE_FAULTS] &&
	      v0.have[COUNTER_MIGRATIONS]);
	if (write(go[1], "x", 1) != 1)
		CHECK(0);
	sleep_ms(60);
	CHECK(counters_read(c, &v1) == 0);
	int status;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* After the exit the inherited counts (the thread's too) are folded into the leader. */
	CHECK(counters_read(c, &v2) == 0);
	printf("ctx-sw %llu -> %llu -> %llu, faults %llu -> %llu -> %llu, migrations %llu, cycles %s\n",
	       (unsigned long long)v0.value[COUNTER_CTX_SWITCHES],
	       (unsigned long long)v1.value[COUNTER_CTX_SWITCHES],
	       (unsigned long long)v2.value[COUNTER_CTX_SWITCHES],
	       (unsigned long long)v0.value[COUNTER_PAGE_FAULTS],
	       (unsigned long long)v1.value[COUNTER_PAGE_FAULTS],
	       (unsigned long long)v2.value[COUNTER_PAGE_FAULTS],
	       (unsigned long long)v2.value[COUNTER_MIGRATIONS],
	       v2.have[COUNTER_CYCLES] ? "counted" : "not here");
	CHECK(v1.value[COUNTER_CTX_SWITCHES] > v0.value[COUNTER_CTX_SWITCHES]);
	CHECK(v1.value[COUNTER_PAGE_FAULTS] > v0.value[COUNTER_PAGE_FAULTS]);
	/* 40 rounds of 64 fresh pages, and the thread's 200 sleeps */
	CHECK(v2.value[COUNTER_PAGE_FAULTS] >= 40 * 64);
	CHECK(v2.value[COUNTER_CTX_SWITCHES] >= 200);
	CHECK(v2.value[COUNTER_CTX_SWITCHES] >= v1.value[COUNTER_CTX_SWITCHES]);
	/* Without a PMU the hardware group is simply absent. */
	if (!v2.have[COUNTER_CYCLES])
		CHECK(v2.hw_time_enabled == 0 && v2.value[COUNTER_CYCLES] == 0);
	counters_free(c);
	close(go[1]);
	return 0;
}

int main(void)
{
	test_scale();
	int rc = test_live();
	if (rc == 77 && check_failures == 0)
		return 77;
	if (rc != 0)
		CHECK(rc == 0);
	return CHECK_DONE();
}
