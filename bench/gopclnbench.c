/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gopclnbench: what a Go binary's function table costs the dso layer (bench/runtime_go.sh). For each
 * binary given: the time to open it and load its functions (dso_symbol_count: .symtab, or the
 * .gopclntab of a stripped build), then N random addresses of its .text looked up with inline
 * frames and source lines, cold and warm. Medians of ROUNDS fresh dso sets.
 *
 * usage: gopclnbench ROUNDS N BINARY TEXT_START-TEXT_END [BINARY RANGE...]  (file offsets, hex)
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

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	if (argc < 5 || (argc - 3) % 2)
		return fprintf(stderr, "usage: gopclnbench ROUNDS N BINARY START-END...\n"), 2;
	int rounds = atoi(argv[1]), n = atoi(argv[2]);
	if (rounds < 1 || rounds > 99 || n < 1)
		return 2;
	uint64_t *addr = malloc((size_t)n * sizeof(*addr));
	struct frame f[64];
	for (int b = 3; b + 1 < argc; b += 2) {
		uint64_t lo, hi;
		if (sscanf(argv[b + 1], "%" SCNx64 "-%" SCNx64, &lo, &hi) != 2 || hi <= lo)
			return 2;
		srand(1);
		for (int i = 0; i < n; i++)
			addr[i] = lo + (((uint64_t)rand() << 31) ^ (uint64_t)rand()) % (hi - lo);
		double load[99], cold[99], warm[99];
		long nsyms = 0;
		for (int r = 0; r < rounds; r++) {
			struct intern *in = intern_new();
			struct dso_set *set = dso_set_new(in);
			dso_set_want(set, true, true);
			struct dso *d = dso_set_get(set, argv[b], NULL);
			double t0 = now();
			nsyms = dso_symbol_count(d);
			load[r] = now() - t0;
			t0 = now();
			for (int i = 0; i < n; i++)
				dso_lookup(d, addr[i], f, 64);
			cold[r] = now() - t0;
			t0 = now();
			for (int i = 0; i < n; i++)
				dso_lookup(d, addr[i], f, 64);
			warm[r] = now() - t0;
			dso_set_free(set);
			intern_free(in);
		}
		printf("%s: %ld functions, load %.1f ms, %d lookups with inline frames and lines: "
		       "cold %.0f k/s, warm %.1f M/s\n", argv[b], nsyms, median(load, rounds) * 1e3, n,
		       n / median(cold, rounds) / 1e3, n / median(warm, rounds) / 1e6);
	}
	free(addr);
	return 0;
}
