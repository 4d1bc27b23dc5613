/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symbolizer: addresses in processes -> names. The only public header of src/symbolize.
 *
 * Per-process address spaces are built from the side-band records (MMAP/MMAP2, COMM, FORK, EXIT: exec
 * replaces the maps, fork copies them). Each binary is opened once through libdw (dwfl) and shared by
 * every process that maps it, keyed by build-id, else device+inode; symbol tables are read on the
 * binary's first lookup (.symtab, else .dynsym). Kernel addresses resolve through /proc/kallsyms into
 * dso "[kernel.kallsyms]". JIT code is named from the process's jitdump or /tmp/perf-PID.map (dso "[JIT] tid PID"),
 * [vdso] from our own vdso image, deleted binaries through /proc/PID/map_files and a container's
 * files under /proc/PID/root (maps.h says how). Names are interned (struct frame says how).
 *
 * One thread only (the session's): libdw handles are not shared across threads.
 */
#ifndef PERFTOP_SYMBOLIZER_H
#define PERFTOP_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/record.h"
#include "util/frame.h"

struct symbolizer;

struct symbolizer_stats {
	uint64_t dsos_opened;     /* binaries open now (dso.h: bounded, least recently used closed) */
	uint64_t lookups;
	uint64_t unresolved;      /* addresses with no symbol */
	uint64_t no_map;          /* addresses in no known mapping */
	uint64_t jit;             /* addresses named by a JIT's jitdump or perf map */
	uint64_t processes;       /* address spaces alive */
	uint64_t interned_bytes;
	uint64_t name_compactions; /* compactions of the names' pool (intern.h) */
	uint64_t dsos_closed;      /* binaries closed to bound the open ones (dso.h) */
	uint64_t dsos_evicted;     /* binaries forgotten to bound the known ones */
	uint64_t unwind_samples;  /* --call-graph dwarf samples with a user stack to unwind */
	uint64_t unwind_root;     /* ... whose chain reached the thread's root (_start, clone3 ...) */
};

struct symbolizer *symbolizer_new(void);
void symbolizer_free(struct symbolizer *s);

/*
 * The records come from a recording (replay): its pids are not this machine's processes now, so
 * nothing is read from /proc for them (no lazy maps, map_files or container roots); JIT names come
 * from /tmp/perf-PID.map of the recorded pid, as perf report reads them.
 */
void symbolizer_set_offline(struct symbolizer *s);
/* A replay's kernel addresses are named from path (the format of /proc/kallsyms: the recording
 * machine's, --kallsyms), whatever kernel the recording says it ran on. */
void symbolizer_set_kallsyms(struct symbolizer *s, const char *path);

/* Side-band records (MMAP, COMM, FORK, EXIT) update the address spaces; other types are ignored. */
void symbolizer_feed(struct symbolizer *s, const struct rec *r);

/*
 * Resolves one address of process pid (kernel says which address space). Writes up to max frames for
 * that address: the inline chain innermost first (inlined = true) and the function that holds the
 * address last. Returns the number written, >= 1 when max >= 1.
 */
int symbolizer_lookup(struct symbolizer *s, uint32_t pid, uint64_t addr, bool kernel,
		      struct frame *out, int max);

/*
 * A frame-pointer sample with the user registers and a small stack copy (the default call graph):
 * the record as symbolizer_sample should name it, its callchain's user part begun by the frames the
 * kernel's walk skips (unwind_head), the registers and stack left out. Other records come back as
 * they are. The copy is valid until the next call; named by the chain it holds, so the memo may
 * keep it (sample_memo.h).
 */
const struct rec *symbolizer_fp_head(struct symbolizer *s, const struct rec *r);

/*
 * Resolves a whole sample: its IP first, then the callers from its callchain (PERF_CONTEXT_* markers
 * decide kernel or user; the callchain's first entry repeating the IP is not doubled), each address
 * expanded as symbolizer_lookup does. Without a callchain it is the IP alone. A sample with user
 * registers and stack (--call-graph dwarf) gets its user callers unwound (unwind.h) after the kernel
 * part; a chain that stops before the thread's root ends in a frame saying why ("[stack copy too
 * short]", "[no unwind info: libfoo.so]", "[unmapped address]": also where a frame-pointer chain's
 * return address is in no mapping, the rest being data read as a chain). Returns frames written.
 */
int symbolizer_sample(struct symbolizer *s, const struct rec *sample, struct frame *out, int max);

/*
 * The mapping that holds a user address of process pid (the exports' mappings): its range, file
 * offset, path and build-id (*bid_len 0: none; valid until the next feed). False when no file
 * mapping holds it (kernel, JIT, unknown).
 */
struct symbolizer_mapping {
	uint64_t start, limit, offset;
	const char *path;
	const uint8_t *build_id;
	size_t build_id_size;
};
bool symbolizer_mapping(struct symbolizer *s, uint32_t pid, uint64_t addr,
			struct symbolizer_mapping *out);
/* The running kernel's build-id into out (at most max bytes): its size, 0 when unknown or when
 * replaying (the recording's kernel may be another). */
size_t symbolizer_kernel_build_id(const struct symbolizer *s, uint8_t *out, size_t max);

/*
 * The command name of a thread (interned), from COMM records (the thread's, else its process's, else
 * /proc/PID/comm read with the maps of an unknown process); ":<tid>" as perf prints it when unknown.
 */
const char *symbolizer_comm(struct symbolizer *s, uint32_t pid, uint32_t tid);

void symbolizer_get_stats(const struct symbolizer *s, struct symbolizer_stats *st);

/*
 * What DWARF adds to frames: inline frames (each address expands into the functions inlined there,
 * innermost first, named "NAME (inlined)", before the function that holds it) and source lines
 * ("file.c:12", or perf's "SYM+OFFSET" / "??:0" where no line is known). Both off at start; the
 * session turns on inlines unless --no-inline, and srclines only when srcline is a sort key, because
 * a line lookup is the costly part of a cold address.
 */
void symbolizer_set_names(struct symbolizer *s, bool inlines, bool srclines);

/* Names in frames are the raw symbols; the view shows symbolizer_display_name's form: demangled
 * C++/Rust (as perf report prints them, without parameters) unless turned off (--no-demangle, the
 * view's key). Interned; cached per name. */
void symbolizer_set_demangle(struct symbolizer *s, bool on);
bool symbolizer_demangling(const struct symbolizer *s);
const char *symbolizer_display_name(struct symbolizer *s, const char *sym);

/*
 * Names are bounded by compaction (intern.h): when symbolizer_names_due, the session compacts at a
 * point where no frame is in flight: symbolizer_compact_begin moves every name the symbolizer
 * keeps to the new generation, the session passes each name it and the model keep through
 * symbolizer_name (the current generation's pointer for a name, which is also how a name from an
 * older snapshot is brought into the current one), and symbolizer_compact_end lets the old
 * generation go, or leaves it to the snapshots that hold it: symbolizer_names_hold takes a
 * reference on the current generation, symbolizer_names_release drops it.
 */
bool symbolizer_names_due(const struct symbolizer *s);
void symbolizer_compact_begin(struct symbolizer *s);
const char *symbolizer_name(void *symbolizer, const char *name);
void symbolizer_compact_end(struct symbolizer *s);
uint64_t symbolizer_names_generation(const struct symbolizer *s);
void *symbolizer_names_hold(struct symbolizer *s);
void symbolizer_names_release(void *hold);

/*
 * HotSpot JVMs (processes that map libjvm.so) whose JIT code their perf map does not name, live:
 * the session asks them to write their map (src/runtime/jvmjob.h, off this thread) and gives
 * each answer back. A JVM is due at its first unnamed JIT address, then again when its map keeps
 * missing, at most every few seconds (maps.h: MAPS_JVM_*). symbolizer_jvm_due hands the due ones
 * over (first: never answered yet, so its flags are worth asking for too); symbolizer_jvm_answer
 * takes an answer: done (its map, written anew from its start, is read again), soon (it is only
 * starting: asked again in a moment), later (asked again after a while; the second in a row gives
 * up), never. It returns true when it gives up on the
 * process. On by default; off with symbolizer_set_jit_attach(false) (--no-jit-attach) and in
 * replays.
 */
struct symbolizer_jvm {
	uint32_t pid;
	bool first;
};
enum symbolizer_jvm_answer {
	SYMBOLIZER_JVM_DONE, SYMBOLIZER_JVM_SOON, SYMBOLIZER_JVM_LATER, SYMBOLIZER_JVM_NEVER
};
void symbolizer_set_jit_attach(struct symbolizer *s, bool on);
int symbolizer_jvm_due(struct symbolizer *s, struct symbolizer_jvm *out, int max);
bool symbolizer_jvm_answer(struct symbolizer *s, uint32_t pid, enum symbolizer_jvm_answer a);

/* Process-wide, before the first lookup: --symfs DIR (NULL: none) and the debuginfod servers
 * (DEBUGINFOD_URLS; NULL: no fetching). Fetches run as "perftop --debuginfod-fetch BUILDID" children. */
void symbolizer_configure_debuginfo(const char *symfs, const char *debuginfod_urls);
/* Each tick: reaps finished debuginfod fetches and reopens the binaries whose debug file arrived.
 * Never blocks. */
void symbolizer_poll(struct symbolizer *s);
/* Called once a window. Every sixtieth window the mapped files read for unwinding and the
 * kernel's table leave the resident set until next read, so that a long churn does not keep every
 * library's pages. Each window the binaries no live process has mapped for DSO_IDLE_NS (longer for
 * one that keeps coming back) close (dso.h), their unwinding images unmapped. Live only: a replay
 * never calls it. */
void symbolizer_release_pages(struct symbolizer *s);
/* A recording's build-id for a file it mapped (a replay: the file's BUILD_ID section, a stream's
 * HEADER_BUILD_ID records), before the first sample in that file: the symbolizer then reads only a
 * file with that build-id, found at the --symfs copy or the path, in perf's build-id cache
 * (~/.debug/.build-id), /usr/lib/debug/.build-id, or fetched by debuginfod; never a file of
 * another build (dso_set_expect). False when the table is full (DSO_MAX_EXPECTED paths). */
bool symbolizer_add_build_id(struct symbolizer *s, const char *path, const uint8_t *bid, size_t len);
/* A reader that may wait (a batch replay): a binary of the recording found nowhere here waits for
 * its debuginfod fetch (at most 30 s) before its first lookup goes on; the view never waits. */
void symbolizer_wait_fetches(struct symbolizer *s, bool on);
/* What the view should say ("debuginfod: fetching debug info for libfoo.so", or that a binary here
 * is another build than the recording's, else symbolizer_hint's), or NULL. */
const char *symbolizer_notice(struct symbolizer *s);
/* How to get names the profile lacks: a node process without a perf map or jitdump ("node (pid 12)
 * has no JavaScript names: run it with --perf-basic-prof ..."), or NULL. */
const char *symbolizer_hint(struct symbolizer *s);
/* The body of "perftop --debuginfod-fetch BUILDID": returns the exit status. */
int symbolizer_fetch_main(const char *build_id_hex);

#endif
