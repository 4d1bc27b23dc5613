/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgloop: calls clock_gettime in a loop for SECONDS, so that most samples land in the vdso's
 * __vdso_clock_gettime. Prints "ready" once running.
 *
 *   cgloop SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3;
	struct timespec t0, ts;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		for (int i = 0; i < 1000; i++)
			clock_gettime(CLOCK_MONOTONIC, &ts);
		if ((double)(ts.tv_sec - t0.tv_sec) + (double)(ts.tv_nsec - t0.tv_nsec) / 1e9 > secs)
			return 0;
	}
}
