/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fixture: a known call graph for the drill-down tests, main -> top -> mid -> leaf_a / leaf_b.
 * Every function is noinline and does its own busy work (leaf_a about twice leaf_b's), so both
 * leaves get samples and mid has both as callees; built -O2 -g -fno-omit-frame-pointer so the
 * frame-pointer call graph sees every frame. Runs for argv[1] seconds (default 30).
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long finish(unsigned long x)
{
	return x ^ (x >> 31);
}

static unsigned long (*volatile finish_ptr)(unsigned long) = finish;

__attribute__((noinline)) static unsigned long spin(unsigned long n, unsigned long seed)
{
	unsigned long x = seed;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) unsigned long leaf_a(unsigned long seed)
{
	unsigned long x = finish_ptr(seed);
	for (int i = 0; i < 200000; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	return x;
}

__attribute__((noinline)) unsigned long leaf_b(unsigned long seed)
{
	unsigned long x = finish_ptr(seed);
	for (int i = 0; i < 100000; i++)
		x ^= x << 7, x ^= x >> 9;
	return x;
}

__attribute__((noinline)) unsigned long mid(unsigned long seed)
{
	unsigned long x = leaf_a(seed);
	x += leaf_b(x);
	return x + spin(1000, x);
}

__attribute__((noinline)) unsigned long top(unsigned long seed)
{
	return mid(seed) + spin(100, seed);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 30, end = now() + secs;
	unsigned long x = 1;
	while (now() < end)
		for (int i = 0; i < 50; i++)
			x = top(x);
	sink = x;
	return 0;
}
