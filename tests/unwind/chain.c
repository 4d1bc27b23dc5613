/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * chain: the live DWARF-unwinding fixture. main -> top -> mid -> leaf, each noinline, built -O2
 * -fomit-frame-pointer (CMakeLists.txt) so a frame-pointer walk cannot find the callers; leaf
 * burns CPU for the number of seconds given (default 3). The volatile sink keeps the loop and the
 * calls from being optimized away; the calls are not in tail position for the same reason.
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long leaf(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < 2000000; i++)
		x = x * 6364136223846793005ul + i;
	sink += x;
	return x;
}

__attribute__((noinline)) static unsigned long mid(unsigned long n)
{
	unsigned long r = leaf(n + 1);
	sink += r;
	return r ^ n;
}

__attribute__((noinline)) static unsigned long top(unsigned long n)
{
	unsigned long r = mid(n * 3);
	sink += r;
	return r + 1;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.0;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned long acc = 0;
	do {
		acc += top(acc);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return (int)(acc & 1) * 0;
}
