/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * debugframe: the .debug_frame fixture of the DWARF-unwinding tests (test_unwind_debugframe.py).
 * main -> top -> mid -> leaf as in chain.c, built -O2 -fomit-frame-pointer but without .eh_frame
 * entries for its own functions (-fno-asynchronous-unwind-tables -fno-unwind-tables) and with -g, so
 * .debug_frame is their only unwind information (CMakeLists.txt). mid and top keep a stack buffer
 * across their call, so their CFA is not RSP + 8 and a caller cannot be found by guessing; main's
 * buffer is 64-byte aligned (gcc realigns the stack and main's CFA is RBP-based).
 *
 * Every row of that build has the compact form the fast path caches. Built with -DDRAP, main also has
 * a variable-length array, and gcc realigns through a DRAP register instead: main's CFA is then an
 * expression (DW_CFA_def_cfa_expression: DW_OP_breg6 N; DW_OP_deref) and RBP's and the callee-saved
 * registers' rules are expressions too, which only a full evaluation of the rules follows (libunwind,
 * with our .debug_frame steps). leaf burns CPU for the number of seconds given (default 3).
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
	volatile unsigned long pad[5];
	for (int i = 0; i < 5; i++)
		pad[i] = n + (unsigned long)i;
	unsigned long r = leaf(n + 1);
	sink += r + pad[2];
	return r ^ n;
}

__attribute__((noinline)) static unsigned long top(unsigned long n)
{
	volatile unsigned long pad[9];
	for (int i = 0; i < 9; i++)
		pad[i] = n * (unsigned long)i;
	unsigned long r = mid(n * 3);
	sink += r + pad[7];
	return r + 1;
}

int main(int argc, char **argv)
{
	_Alignas(64) volatile unsigned char buf[64];
#ifdef DRAP
	volatile unsigned char vla[(argc & 7) + 8];
	vla[0] = 1;
	(void)vla[0]; /* read back: a VLA only set is a warning, and the point is its frame */
#endif
	double secs = argc > 1 ? atof(argv[1]) : 3.0;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned long acc = 0;
	do {
		buf[acc & 63] = (unsigned char)acc;
		acc += top(acc + buf[0]);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return (int)(acc & 1) * 0;
}
