/* SPDX-License-Identifier: GPL-2.0-or-later */
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
 *
 * What a mapping's file is really made of is decided on its dso's first lookup, while the process
 * may still be asked: a binary deleted or replaced since it was mapped is read through
 * /proc/PID/map_files, a process in another root (a container) has its paths resolved under
 * /proc/PID/root, and [vdso] is our own vdso image. JIT code (anonymous executable memory) is named
 * from the process's jitdump (the jit-PID.dump file it mapped, jitdump.h), else its perf map,
 * /tmp/perf-PID.map under the pid, root and mounts the process itself sees
 * (/proc/PID/root/tmp/perf-NSPID.map when its root or mount namespace is not ours).
 *
 * Offline (replaying a recording) the pids are not this machine's processes: nothing is read from
 * /proc, a JIT map is /tmp/perf-PID.map of the recorded pid, as perf report reads it, and a
 * jitdump is the file at the recorded mapping's path.
 */
#ifndef PERFTOP_SYMBOLIZE_MAPS_H
#define PERFTOP_SYMBOLIZE_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/record.h"

struct dso;
struct dso_set;
struct intern;

enum map_kind {
	MAP_KIND_FILE,   /* a path to a file (perhaps deleted) */
	MAP_KIND_ANON,   /* anonymous executable memory: JIT code, named by the perf map */
	MAP_KIND_VDSO,
	MAP_KIND_OTHER,  /* [heap], [stack], memfd and the like: no names */
	MAP_KIND_KSYM,   /* a recording's kernel symbol (KSYMBOL: a BPF program...): one symbol, its
			  * dso's path the symbol's name */
};

struct map {
	uint64_t start, end;  /* [start, end) */
	uint64_t pgoff;       /* file offset of start */
	struct dso *dso;
	uint64_t ino;         /* the record's inode, 0 when it gave none */
	uint8_t kind;         /* enum map_kind */
	bool build_id;        /* the record gave a build-id (the dso checks it when opening) */
};

struct maps;

/* Limits; maps_set_limits may change them (tests). */
#define MAPS_DEAD_MAX 256         /* dead processes kept for late samples */
#define MAPS_PROC_READS_PER_SEC 64 /* lazy /proc/PID/maps reads */
#define MAPS_SWEEP_PER_SEC 64      /* processes checked for a lost EXIT each second (live) */

struct maps *maps_new(struct dso_set *dsos, struct intern *in);
void maps_free(struct maps *m);
/* The pool is being compacted (intern.h): the names held here move to the new generation
 * (comms, JIT dso names, perf map entries). */
void maps_move_names(struct maps *m);

/* The records come from a file, not from this machine's processes now (see above). */
void maps_set_offline(struct maps *m, bool offline);

/* REC_MMAP, REC_COMM, REC_FORK, REC_EXIT; anything else is ignored. */
void maps_feed(struct maps *m, const struct rec *r);

/* The mapping of pid that holds addr, or NULL. May read /proc/PID/maps once for an unknown pid. */
const struct map *maps_find(struct maps *m, uint32_t pid, uint64_t addr);

/*
 * JIT code of pid: the entry holding addr of its jitdump (the jit-PID.dump it mapped), else of its
 * perf map (/tmp/perf-PID.map under the pid and root the process sees); false when none. sym and
 * srcline (want_line, from the dump's debug info) are interned; code: the dump holds its bytes.
 * An address outside the process's anonymous code is looked up only once it has a perf map or a
 * jitdump (a JIT writes its code there: such an address is most often no code at all).
 * maps_jit_dso is the dso name perf gives a process's anonymous code, "[JIT] tid PID" (interned).
 */
struct maps_jit_hit {
	const char *sym;
	uint64_t start;
	const char *srcline;
	bool code;
};
bool maps_jit_lookup(struct maps *m, uint32_t pid, uint64_t addr, bool want_line,
		     struct maps_jit_hit *hit);
/* A JIT lookup of pid found no name and it has neither a perf map nor a jitdump. */
bool maps_jit_unnamed(struct maps *m, uint32_t pid);
/* The bytes of pid's JIT code loaded at start (its jitdump's), at most max: their count in *buf
 * (malloc'ed), or 0 with why in err. */
size_t maps_jit_code(struct maps *m, uint32_t pid, uint64_t start, size_t max, uint8_t **buf,
		     char *err, size_t errlen);
/* The source line of pid's JIT address addr by its jitdump's debug info (jitdump_line). */
bool maps_jit_line(struct maps *m, uint32_t pid, uint64_t addr, const char **file, unsigned *line);
const char *maps_jit_dso(struct maps *m, uint32_t pid);

/*
 * HotSpot JVMs (a process that maps libjvm.so), live: one whose JIT code the perf map does not name
 * becomes due to be asked for its map (the session asks it through src/runtime/, off this thread):
 * at its first such lookup, then again when MAPS_JVM_MISSES more lookups have missed since its map
 * was written, MAPS_JVM_RETRY_NS after, or MAPS_JVM_RETRY_FIRST_NS after when a tenth of its JIT
 * lookups missed (a JVM warming up compiles its hot code in its first seconds). maps_jvm_take hands the due ones over (first: never answered yet); each
 * answer comes back through maps_jvm_result: done (the map was written anew: it is read again from
 * its start), soon (it is only starting: asked again after MAPS_JVM_SOON_NS, MAPS_JVM_SOON_MAX
 * times), later (asked again no sooner than MAPS_JVM_RETRY_NS; the MAPS_JVM_LATER_MAX-th in a
 * row gives up), never. It returns true when it gives up on the process. On by default;
 * maps_set_jit_attach(false) is --no-jit-attach. Offline, never.
 */
#define MAPS_JVM_RETRY_NS 5000000000ull       /* after "later", or a map (MAPS_JVM_MISSES missed) */
#define MAPS_JVM_RETRY_FIRST_NS 2000000000ull /* after a map, when a tenth of the lookups missed */
#define MAPS_JVM_MISSES 16
#define MAPS_JVM_LATER_MAX 2
#define MAPS_JVM_SOON_NS 250000000ull  /* a JVM only starting is asked again this soon ... */
#define MAPS_JVM_SOON_MAX 40           /* ... this many times, then as if it said later */
#define MAPS_JVM_DUE_MAX 16
struct maps_jvm_due {
	uint32_t pid;
	bool first;
};
enum maps_jvm_outcome { MAPS_JVM_DONE, MAPS_JVM_SOON, MAPS_JVM_LATER, MAPS_JVM_NEVER };
void maps_set_jit_attach(struct maps *m, bool on);
int maps_jvm_take(struct maps *m, struct maps_jvm_due *out, int max);
bool maps_jvm_result(struct maps *m, uint32_t pid, enum maps_jvm_outcome o);

/* The perf map file of pid as it would be read now (tests, diagnostics); false when unknown. */
bool maps_jit_path(struct maps *m, uint32_t pid, char *buf, size_t len);

/* Interned comm of thread tid of pid (falling back to the process's), or NULL when unknown. */
const char *maps_comm(struct maps *m, uint32_t pid, uint32_t tid);

/* Live only, called often (each tick; it acts at most once a second): checks a few processes
 * believed alive and marks dead those the kernel no longer has (their EXIT record was lost). */
void maps_sweep(struct maps *m);
uint64_t maps_swept(const struct maps *m);

/* Live, before a sweep of idle binaries (dso_set_close_idle): marks live at now the dsos the
 * processes believed alive map (their maps before an exec too). A dead process's do not count:
 * it is kept only for late samples, and a lookup marks what those use. */
void maps_mark_live(struct maps *m, uint64_t now);

/* Processes alive (not exited) and all kept. */
size_t maps_alive(const struct maps *m);
size_t maps_kept(const struct maps *m);
/* Lazy /proc/PID/maps reads done so far. */
uint64_t maps_proc_reads(const struct maps *m);

#endif
