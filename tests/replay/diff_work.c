/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diff_work: a workload whose mix of functions is chosen on the command line, so that two
 * recordings of it differ in known ways for the --diff test: diff_work SECS A B C D runs, in each
 * round, work_a A times, work_b B times, work_c C times and work_d D times (equal units of work
 * each), for SECS seconds. A function given 0 is never called, so it is absent from that
 * recording (a "new" or "gone" row in the diff).
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

#define UNIT 200000

__attribute__((noinline)) unsigned long work_a(unsigned long x)
{
	for (int i = 0; i < UNIT; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) unsigned long work_b(unsigned long x)
{
	for (int i = 0; i < UNIT; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	return x;
}

__attribute__((noinline)) unsigned long work_c(unsigned long x)
{
	for (int i = 0; i < UNIT; i++)
		x = x * 3202034522624059733UL + 1UL;
	return x;
}

__attribute__((noinline)) unsigned long work_d(unsigned long x)
{
	for (int i = 0; i < UNIT; i++)
		x = x * 1181783497276652981UL + 7UL;
	return x;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 6)
		return 2;
	double end = now() + atof(argv[1]);
	int n[4] = { atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]) };
	unsigned long x = 1;
	while (now() < end) {
		for (int i = 0; i < n[0]; i++)
			x = work_a(x);
		for (int i = 0; i < n[1]; i++)
			x = work_b(x);
		for (int i = 0; i < n[2]; i++)
			x = work_c(x);
		for (int i = 0; i < n[3]; i++)
			x = work_d(x);
	}
	sink = x;
	return 0;
}
