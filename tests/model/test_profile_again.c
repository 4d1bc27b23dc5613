/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_profile_again: profile_add_again counts exactly what profile_add counts.
 *
 * Two profiles take the same stream of samples, drawn from a few chains (recursion, inline frames
 * first, frameless samples, several processes and threads) with random periods, over windows that
 * decay, drop faded rows or zero, under several sort keys: one through profile_add, the other
 * through profile_add_rows / profile_add_again with row places kept per chain and dropped when the
 * layout changes, as the replay's sample memo does. Their rows must be the same, field for field.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/profile.h"

#define NCHAINS 12
#define MAXF 6

static const char *const syms[] = { "main", "run", "work", "leaf", "inl", "other", "rec" };
static const char *const dsos[] = { "a.out", "libc.so.6", "[kernel.kallsyms]" };
static const char *const comms[] = { "one", "two" };
static const char *const lines[] = { "a.c:1", "a.c:2", NULL };

struct chain {
	struct frame f[MAXF];
	int n;
	uint32_t pid, tid;
	const char *comm;
	uint32_t rows[MAXF + 1];
	uint64_t layout;
};

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void make_chains(struct chain *c)
{
	for (int i = 0; i < NCHAINS; i++) {
		c[i] = (struct chain){ .n = (int)(rnd() % (MAXF + 1)), .pid = 100 + (uint32_t)(i % 3),
				       .comm = comms[i % 2] };
		c[i].tid = c[i].pid + (uint32_t)(i % 2);
		for (int k = 0; k < c[i].n; k++)
			c[i].f[k] = (struct frame){ .sym = syms[rnd() % 7], .dso = dsos[rnd() % 3],
						    .srcline = lines[rnd() % 3], .inlined = k == 0 && i % 4 == 0 };
	}
}

static void same_rows(const struct profile *a, const struct profile *b)
{
	CHECK_EQ_U64(profile_nrows(a), profile_nrows(b));
	CHECK_EQ_U64(profile_total_period(a), profile_total_period(b));
	CHECK_EQ_U64(profile_held_samples(a), profile_held_samples(b));
	CHECK_EQ_U64(profile_window_samples(a), profile_window_samples(b));
	if (profile_nrows(a) != profile_nrows(b))
		return;
	const struct profile_row *ra = profile_rows(a), *rb = profile_rows(b);
	for (size_t i = 0; i < profile_nrows(a); i++) {
		CHECK(ra[i].sym == rb[i].sym && ra[i].dso == rb[i].dso && ra[i].comm == rb[i].comm &&
		      ra[i].pid == rb[i].pid && ra[i].tid == rb[i].tid && ra[i].srcline == rb[i].srcline);
		CHECK_EQ_U64(ra[i].self_period, rb[i].self_period);
		CHECK_EQ_U64(ra[i].total_period, rb[i].total_period);
		CHECK_EQ_U64(ra[i].samples, rb[i].samples);
		CHECK_EQ_U64(ra[i].main_pid, rb[i].main_pid);
		CHECK(ra[i].main_comm == rb[i].main_comm);
		CHECK_EQ_U64(ra[i].id, rb[i].id);
	}
}

static void run(const enum sort_key *keys, int nkeys)
{
	struct chain c[NCHAINS];
	make_chains(c);
	struct profile *plain = profile_new(keys, nkeys), *fast = profile_new(keys, nkeys);
	uint64_t again = 0;
	for (int w = 0; w < 40; w++) {
		for (int s = 0; s < 500; s++) {
			struct chain *ch = &c[rnd() % NCHAINS];
			struct sample_ctx ctx = { .comm = ch->comm, .pid = ch->pid, .tid = ch->tid,
						  .period = 1 + rnd() % 1000, .frames = ch->f,
						  .nframes = ch->n };
			profile_add(plain, &ctx);
			if (ch->layout == profile_layout(fast)) {
				profile_add_again(fast, &ctx, ch->rows);
				again++;
			} else {
				profile_add_rows(fast, &ctx, ch->rows);
				ch->layout = profile_layout(fast);
			}
		}
		same_rows(plain, fast);
		bool zero = w % 7 == 6;
		profile_end_window(plain, zero);
		profile_end_window(fast, zero);
		same_rows(plain, fast);
	}
	CHECK(again > 10000);
	profile_free(plain);
	profile_free(fast);
}

int main(void)
{
	static const enum sort_key dso_sym[] = { SORT_DSO, SORT_SYM };
	static const enum sort_key all[] = { SORT_COMM, SORT_PID, SORT_TID, SORT_DSO, SORT_SYM,
					     SORT_SRCLINE };
	static const enum sort_key sym[] = { SORT_SYM };
	run(dso_sym, 2);
	run(all, 6);
	run(sym, 1);
	return CHECK_DONE();
}
