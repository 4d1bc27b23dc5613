/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spinner: a busy fixture for the end-to-end tests, with function names the tests look for.
 *
 *   spinner SECONDS [LATE_THREAD_DELAY_MS]
 *
 * The main thread burns CPU in spinner_main_loop for SECONDS; when a delay is given, a second thread
 * is started after it and burns CPU in spinner_late_thread, so a test can check that a thread created
 * after perftop attached is sampled too. It prints "ready" once running so tests can attach.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double run_seconds;
static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long spinner_work(unsigned long x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

__attribute__((noinline)) void spinner_main_loop(double until)
{
	unsigned long x = 1;
	while (seconds_now() < until)
		x = spinner_work(x);
	sink = x;
}

__attribute__((noinline)) void *spinner_late_thread(void *arg)
{
	double until = *(double *)arg;
	unsigned long x = 2;
	while (seconds_now() < until)
		x = spinner_work(x) ^ 1;
	sink = x;
	return NULL;
}

int main(int argc, char **argv)
{
	run_seconds = argc > 1 ? atof(argv[1]) : 5;
	long delay_ms = argc > 2 ? atol(argv[2]) : -1;
	double start = seconds_now(), until = start + run_seconds;
	printf("ready\n");
	fflush(stdout);
	pthread_t t;
	int started = 0;
	if (delay_ms >= 0) {
		spinner_main_loop(start + (double)delay_ms / 1000.0);
		started = pthread_create(&t, NULL, spinner_late_thread, &until) == 0;
	}
	spinner_main_loop(until);
	if (started)
		pthread_join(t, NULL);
	return 0;
}
