/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symbench: symbolization throughput of the dso layer on real binaries (libpython and libc, whose
 * debug files are installed here), in addresses per second:
 *   cold = the first lookup of each address, with the binary opened, its symbols loaded and (for
 *          the DWARF modes) its debug info read on the way; warm = the same addresses again (cached).
 * Modes: ELF symbols only; + inline frames; + inline frames and source lines.
 * usage: symbench N_ADDRESSES BINARY...     (built and run by bench/symbolize.sh)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "symbolize/dso.h"
#include "symbolize/intern.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The file offsets of the binary's text: read with readelf by the script, passed as lo-hi. */
int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	long n = atol(argv[1]);
	int nbin = (argc - 2) / 2;
	static const struct {
		const char *name;
		bool inl, src;
	} modes[] = { { "ELF only", false, false }, { "+ inline", true, false }, { "+ inline + srcline", true, true } };
	for (size_t m = 0; m < 3; m++) {
		struct intern *in = intern_new();
		struct dso_set *set = dso_set_new(in);
		dso_set_want(set, modes[m].inl, modes[m].src);
		uint64_t *addr = malloc((size_t)n * sizeof(*addr));
		struct dso **which = malloc((size_t)n * sizeof(*which));
		srand(42);
		for (long i = 0; i < n; i++) {
			int b = (int)(i % nbin);
			uint64_t lo, hi;
			sscanf(argv[3 + 2 * b], "%" SCNx64 "-%" SCNx64, &lo, &hi);
			which[i] = dso_set_get(set, argv[2 + 2 * b], NULL);
			addr[i] = lo + ((uint64_t)rand() * 4096u + (uint64_t)rand()) % (hi - lo);
		}
		struct frame f[64];
		long frames = 0;
		double t0 = now();
		for (long i = 0; i < n; i++)
			frames += dso_lookup(which[i], addr[i], f, 64);
		double cold = now() - t0;
		t0 = now();
		int reps = 5;
		for (int r = 0; r < reps; r++)
			for (long i = 0; i < n; i++)
				dso_lookup(which[i], addr[i], f, 64);
		double warm = (now() - t0) / reps;
		printf("%-20s cold %10.0f addr/s   warm %10.0f addr/s   (%.2f frames per address)\n",
		       modes[m].name, (double)n / cold, (double)n / warm, (double)frames / (double)n);
		free(addr);
		free(which);
		dso_set_free(set);
		intern_free(in);
	}
	return 0;
}
