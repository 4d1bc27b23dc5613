/*
 * maps: the address spaces of the processes we sample, built from side-band records.
 *
 * A process is keyed by pid; its threads share its maps (and their comms are kept per tid). MMAP
 * adds an executable mapping, cutting whatever it overlaps; COMM with the exec flag empties the
 * maps; FORK of a new process copies the parent's (copy-on-write: a fork is usually followed by an
 * exec); EXIT of the leader marks the process dead, kept for late samples until a bounded queue of
 * dead processes pushes it out.
 *
 * A process we never heard of (it started before we attached and the /proc synthesis missed it, or
 * its records were lost) is read from /proc/PID/maps once, on the first lookup that needs it.
 */
#ifndef PERFTOP_SYMBOLIZE_MAPS_H
#define PERFTOP_SYMBOLIZE_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include "sampler/record.h"

struct dso;
struct dso_set;
struct intern;

struct map {
	uint64_t start, end;  /* [start, end) */
	uint64_t pgoff;       /* file offset of start */
	struct dso *dso;
};

struct maps;

/* Limits; maps_set_limits may change them (tests). */
#define MAPS_DEAD_MAX 256         /* dead processes kept for late samples */
#define MAPS_PROC_READS_PER_SEC 64 /* lazy /proc/PID/maps reads */

struct maps *maps_new(struct dso_set *dsos, struct intern *in);
void maps_free(struct maps *m);

/* REC_MMAP, REC_COMM, REC_FORK, REC_EXIT; anything else is ignored. */
void maps_feed(struct maps *m, const struct rec *r);

/* The mapping of pid that holds addr, or NULL. May read /proc/PID/maps once for an unknown pid. */
const struct map *maps_find(struct maps *m, uint32_t pid, uint64_t addr);

/* Interned comm of thread tid of pid (falling back to the process's), or NULL when unknown. */
const char *maps_comm(struct maps *m, uint32_t pid, uint32_t tid);

/* Processes alive (not exited) and all kept. */
size_t maps_alive(const struct maps *m);
size_t maps_kept(const struct maps *m);
/* Lazy /proc/PID/maps reads done so far. */
uint64_t maps_proc_reads(const struct maps *m);

#endif
