/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * probe_work: calls probe_target exactly N times (argv[1], default 3000), from two callers: caller_a
 * twice for each call from caller_b. A probe on probe_target counts N hits; the loop in it gives a
 * clock event something to sample. Prints N.
 */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long sink;

__attribute__((noinline)) void probe_target(unsigned long x)
{
	for (int i = 0; i < 4000; i++)
		sink += x * (unsigned long)i;
}

/* The store after the call keeps it a call (not a tail jump), so the caller is on the stack. */
__attribute__((noinline)) void caller_a(unsigned long x)
{
	probe_target(x);
	sink++;
}

__attribute__((noinline)) void caller_b(unsigned long x)
{
	probe_target(x);
	sink++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3000;
	for (long i = 0; i < n; i++) {
		if (i % 3 == 2)
			caller_b((unsigned long)i);
		else
			caller_a((unsigned long)i);
	}
	printf("%ld\n", n);
	return 0;
}
