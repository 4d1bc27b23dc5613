/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * intern: the session's string pool. Every name a frame carries goes through here, so that equal
 * strings are the same pointer (the model compares and hashes rows by pointer).
 *
 * The pool is bounded by compaction rather than by refusing names: a session that runs for days
 * under churn meets names without end (the unnamed addresses of each short process, the JIT code of
 * each node or java run, the threads perf calls ":TID"), and most of them stop being used soon.
 * When the pool has grown past twice what was alive at the last compaction (and past a floor), the
 * owner compacts it: intern_compact_begin starts a new generation, every holder of names passes
 * each pointer it keeps through intern_move (equal contents give equal new pointers, so identities
 * survive among the holders), and intern_compact_end lets the old generation go. A pointer stays
 * valid as long as its generation lives: until the compaction that follows it ends, or longer for
 * a generation someone holds (intern_hold: a snapshot a view still shows).
 */
#ifndef PERFTOP_SYMBOLIZE_INTERN_H
#define PERFTOP_SYMBOLIZE_INTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct intern;
struct intern_gen;

struct intern *intern_new(void);
void intern_free(struct intern *in);

/* The pooled copy of s (NUL-terminated) or of its first n bytes. */
const char *intern_strn(struct intern *in, const char *s, size_t n);
const char *intern_str(struct intern *in, const char *s);

/* Bytes held by the current generation (strings and their terminators). */
size_t intern_bytes(const struct intern *in);

/* The current generation's number (it changes at each compaction) and a reference that keeps its
 * strings alive past the compactions to come, until released. */
uint64_t intern_generation(const struct intern *in);
struct intern_gen *intern_hold(struct intern *in);
void intern_release(struct intern_gen *g);

/* Compaction (see above). intern_due says the pool has grown enough to be worth it; the floor is
 * min_bytes (0: the default, 1 MiB; 1, for tests: whenever the pool has grown at all). intern_move(old) is old's content interned
 * in the new generation (NULL stays NULL); old must be a pointer of a living generation. */
void intern_set_floor(struct intern *in, size_t min_bytes);
bool intern_due(const struct intern *in);
void intern_compact_begin(struct intern *in);
const char *intern_move(struct intern *in, const char *old);
void intern_compact_end(struct intern *in);

#endif
