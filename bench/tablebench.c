/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tablebench: the model's hot tables alone, on synthetic samples: profile_add (rows keyed by comm,
 * pid, tid, dso, sym and srcline, so tens of thousands of rows), calltree_add (call paths through
 * a random call graph, up to the node cap) and annotate_add (addresses of the frames), with a window
 * end every 100k samples, as a replay has. Prints the CPU seconds of each. The same source is built against two trees' libraries for an A/B
 * of a change to the tables (bench/tables.sh); the samples are the same from run to run.
 *   usage: tablebench [SAMPLES]   (2,000,000 by default)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model/annotate.h"
#include "model/calltree.h"
#include "model/profile.h"

#define NFUNC 20000
#define NDSO 64
#define NCOMM 40
#define DEPTH 24

static uint64_t rnd_state = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char names[NFUNC][16], lines[NFUNC][16], dsos[NDSO][16], comms[NCOMM][16];

/* A skewed pick in [0, n): small values far more often, as hot functions are. */
static unsigned skew(unsigned n)
{
	uint64_t r = rnd();
	return (unsigned)(((r & 0xffff) * ((r >> 16) & 0xffff) >> 16) * n >> 16);
}

int main(int argc, char **argv)
{
	long nsamples = argc > 1 ? atol(argv[1]) : 2000000;
	for (int i = 0; i < NFUNC; i++) {
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		snprintf(lines[i], sizeof(lines[i]), "f.c:%d", i);
	}
	for (int i = 0; i < NDSO; i++)
		snprintf(dsos[i], sizeof(dsos[i]), "lib%d.so", i);
	for (int i = 0; i < NCOMM; i++)
		snprintf(comms[i], sizeof(comms[i]), "comm%d", i);

	/* The samples, made once: each function calls one of 4 callees picked by the caller. */
	struct frame *fr = malloc(sizeof(*fr) * DEPTH * 4096);
	struct sample_ctx *sc = malloc(sizeof(*sc) * 4096);
	for (int s = 0; s < 4096; s++) {
		unsigned f = skew(64), n = 4 + (unsigned)(rnd() % (DEPTH - 4)), c = skew(NCOMM);
		for (unsigned d = 0; d < n; d++) {
			struct frame *x = &fr[s * DEPTH + (n - 1 - d)];
			*x = (struct frame){ .sym = names[f], .dso = dsos[f % NDSO], .srcline = lines[f],
					     .addr = f * 64u, .sym_start = f * 64u,
					     .va = f * 64u + (rnd() & 15) };
			f = (unsigned)((f * 2654435761u + (rnd() & 3) + 1) % NFUNC);
		}
		sc[s] = (struct sample_ctx){ .comm = comms[c], .pid = 1000 + c, .tid = 1000 + c + (s & 1),
					     .period = 1000, .frames = &fr[s * DEPTH], .nframes = (int)n };
	}
	enum sort_key keys[] = { SORT_COMM, SORT_PID, SORT_TID, SORT_DSO, SORT_SYM, SORT_SRCLINE };
	struct profile *p = profile_new(keys, 6);
	struct calltree *t = calltree_new(0);
	/* Each table alone over the same sequence of samples (a clock read per sample would cost more
	 * than the lookups). */
	struct annotate *an = annotate_new(0);
	double tm[3] = { 0 };
	for (int pass = 0; pass < 3; pass++) {
		rnd_state = 0x9e3779b97f4a7c15ull;
		double t0 = cpu_now();
		for (long i = 0; i < nsamples; i++) {
			const struct sample_ctx *s = &sc[(i * 7 + (long)(rnd() & 63)) & 4095];
			if (pass == 0)
				profile_add(p, s);
			else if (pass == 1)
				calltree_add(t, s);
			else
				annotate_add(an, s);
			if (i % 100000 == 99999) {
				if (pass == 0)
					profile_end_window(p, false);
				else if (pass == 1)
					calltree_end_window(t, false);
				else
					annotate_end_window(an, false);
			}
		}
		tm[pass] = cpu_now() - t0;
	}
	printf("profile %.3f s (%zu rows)  calltree %.3f s (%zu nodes)  annotate %.3f s (%zu addresses)\n",
	       tm[0], profile_nrows(p), tm[1], calltree_nodes(t), tm[2], annotate_addrs(an));
	annotate_free(an);
	profile_free(p);
	calltree_free(t);
	free(fr);
	free(sc);
	return 0;
}
