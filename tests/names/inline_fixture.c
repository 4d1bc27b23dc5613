/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inline_fixture: a hot loop whose work is done by always_inline helpers, two levels deep, so that
 * most sampled addresses sit inside inlined code. Compiled with -g -O2; the srcline tests compare
 * what perftop says about its addresses with eu-addr2line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

static inline __attribute__((always_inline)) uint64_t mix_step(uint64_t x)
{
#ifdef OTHER_BUILD
	x += 7;  /* another build of the same program: another build-id (the debuginfo tests) */
#endif
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull;
	return x ^ (x >> 29);
}

static inline __attribute__((always_inline)) uint64_t mix_round(uint64_t x, int n)
{
	for (int i = 0; i < n; i++)
		x = mix_step(x + (uint64_t)i);
	return x;
}

__attribute__((noinline)) static uint64_t work(uint64_t seed)
{
	uint64_t acc = 0;
	for (int i = 0; i < 4096; i++)
		acc += mix_round(seed + (uint64_t)i, 8);
	return acc;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t seed = 1;
	do {
		for (int k = 0; k < 64; k++)
			seed = work(seed);
		sink = seed;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
