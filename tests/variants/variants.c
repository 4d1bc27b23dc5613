/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * variants: the program test_build_variants.py builds every way the world builds C (PIE and not,
 * static, static-pie, -z now, CET, LTO, split DWARF, compressed debug sections, DWARF 4 and 5, a
 * debug file by debuglink, no build-id, clang) and profiles. Its call structure is the reference:
 * main -> outer -> middle -> hot_leaf, hot_leaf taking about 3/4 of the time and middle's own
 * loop the rest; middle calls memcpy through the PLT (a stub the linker makes in each variant).
 * For SECS seconds (argv[1], default 1).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile uint64_t sink;
static char src[4096], dst[4096];

__attribute__((noinline)) uint64_t hot_leaf(uint64_t n)
{
	uint64_t s = 0;
	for (uint64_t i = 0; i < n; i++)
		s += i * i ^ (s >> 3);
	return s;
}

__attribute__((noinline)) uint64_t middle(uint64_t n)
{
	uint64_t s = hot_leaf(3 * n);
	for (uint64_t i = 0; i < n; i++)
		s += i ^ (s << 1);
	memcpy(dst, src, sizeof(dst));
	return s + (uint64_t)dst[7];
}

__attribute__((noinline)) uint64_t outer(uint64_t n)
{
	return middle(n) + 1;
}

/* The process's CPU time, not the wall's: the run is as many samples long on a busy machine as on
 * an idle one, so that a chain of one or two samples weighs as little in either. */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, end = now() + secs;
	memset(src, 'x', sizeof(src));
	while (now() < end)
		sink += outer(200000);
	return 0;
}
