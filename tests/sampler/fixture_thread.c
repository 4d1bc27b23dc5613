/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fixture_thread: the target of the -p test. Busy-loops in its main thread until it gets SIGUSR1
 * (sent by the test once it has attached), then starts a second busy thread; each thread spins for
 * 0.6 s of its own CPU time (not wall time: on a loaded machine the test must still see one task at
 * attach and enough samples of each), and the process exits. Without the signal it gives up after
 * 20 s of wall time, so a test that died cannot leave it spinning.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

static volatile uint64_t sink;
static volatile sig_atomic_t go;

static uint64_t now_ms(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void spin_cpu_ms(uint64_t ms)
{
	uint64_t end = now_ms(CLOCK_THREAD_CPUTIME_ID) + ms;
	while (now_ms(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 100000; i++)
			sink += (uint64_t)i;
}

static void *second_thread(void *arg)
{
	(void)arg;
	spin_cpu_ms(600);
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

int main(void)
{
	signal(SIGUSR1, on_usr1);
	uint64_t give_up = now_ms(CLOCK_MONOTONIC) + 20000;
	while (!go && now_ms(CLOCK_MONOTONIC) < give_up)
		for (int i = 0; i < 100000; i++)
			sink += (uint64_t)i;
	if (!go)
		return 2;
	pthread_t th;
	if (pthread_create(&th, NULL, second_thread, NULL) != 0)
		return 1;
	/* the main thread's 0.6 s count from the signal: what it spun before is the attach's */
	spin_cpu_ms(600);
	pthread_join(th, NULL);
	return 0;
}
