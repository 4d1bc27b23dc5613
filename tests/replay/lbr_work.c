/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lbr_work: the fixture of test_replay_lbr.py. It is never run by that test: the test reads its
 * code (objdump) for real call sites and writes a recording of it, chains and all. The calls are
 * main -> alpha -> beta -> leaf and main -> gamma -> leaf, each a call instruction (no inlining,
 * no tail calls: the build says -fno-inline -fno-optimize-sibling-calls), each function with a few
 * instructions of its own so that a sample can fall inside it.
 */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) void leaf(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) void beta(unsigned long n)
{
	sink += n;
	leaf(n);
	sink ^= n;
}

__attribute__((noinline)) void alpha(unsigned long n)
{
	sink += 2 * n;
	beta(n);
	sink ^= 3 * n;
}

__attribute__((noinline)) void gamma_(unsigned long n)
{
	sink += 5 * n;
	leaf(n / 2);
	sink ^= 7 * n;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	alpha(n);
	gamma_(n);
	return (int)(sink & 1);
}
