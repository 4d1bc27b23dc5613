/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dso: one binary (executable or shared object), opened once and shared by every process that maps
 * it. A dso set finds the object for a mapping by build-id, else device+inode, else path, so a
 * library mapped by a thousand processes is read once.
 *
 * A dso owns its libdwfl handle (Dwfl + the one module reported in it) while it is open: the symbol
 * names we hand out point into its string tables until they are interned, and the same handle gives
 * DWARF (inline chains, file:line). Opening is lazy, on the first lookup; a file that cannot be
 * opened or parsed leaves a broken dso whose lookups simply miss. Open dsos are bounded
 * (DSO_MAX_OPEN, least recently used closed first, reopened on demand), so a session that meets new
 * binaries for days keeps a bounded set of files open.
 *
 * Addresses given to dso_lookup are file offsets (what a mapping's pgoff speaks in); the dso turns them
 * into ELF virtual addresses through its PT_LOAD headers, which makes PIE, shared objects and
 * ET_EXEC binaries the same case.
 */
#ifndef PERFTOP_SYMBOLIZE_DSO_H
#define PERFTOP_SYMBOLIZE_DSO_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/frame.h"

struct intern;
struct dso;
struct dso_set;

/* What identifies a mapped file; any part may be absent (size 0, ino 0). */
struct dso_id {
	const uint8_t *build_id;
	uint32_t build_id_size;
	uint32_t maj, min;
	uint64_t ino;
};

struct dso_set *dso_set_new(struct intern *in);
void dso_set_free(struct dso_set *set);
/* The pool is being compacted (intern.h): the names held here move to the new generation
 * (dso names, symbol names handed out, inline frames and source lines cached). */
void dso_set_move_names(struct dso_set *set);

/* The dso for a file mapped from path; created (not opened) on first sight. Never NULL. */
struct dso *dso_set_get(struct dso_set *set, const char *path, const struct dso_id *id);

/* How many dsos are open now, how many exist, and how many were closed to bound the open ones:
 * at most max_open (DSO_MAX_OPEN unless a test says otherwise; 0: the default) are open at once,
 * the least recently used closing before another opens (reopened on its next lookup). */
#define DSO_MAX_OPEN 128
/* Binaries known at once: past this, creating another evicts the least recently used one that no
 * mapping references (dso_ref), and tells whoever keeps dso pointers (dso_set_on_evict) first. */
#define DSO_MAX_KEPT 1024
uint64_t dso_set_opened(const struct dso_set *set);
uint64_t dso_set_count(const struct dso_set *set);
uint64_t dso_set_closed(const struct dso_set *set);
void dso_set_max_open(struct dso_set *set, size_t max);
void dso_set_max_kept(struct dso_set *set, size_t max);
uint64_t dso_set_evicted(const struct dso_set *set);
/* References from mappings (maps.c): a referenced dso is never evicted. NULL-safe. */
void dso_ref(struct dso *d);
void dso_unref(struct dso *d);
/* Called with a dso about to be freed by eviction (caches keyed by its pointer drop it). */
void dso_set_on_evict(struct dso_set *set, void (*fn)(void *ctx, struct dso *d), void *ctx);

/*
 * Live, binaries no live process maps any more are closed (dso_idle.c): before each sweep the maps
 * mark with dso_mark_live what their live processes map; dso_set_close_idle (now: now_ns()) then
 * closes the open binaries neither marked nor looked up for DSO_IDLE_NS, as DSO_MAX_OPEN would
 * (reopened on their next lookup), and returns how many. dso_idle says whether d is such a binary
 * (the unwinder unmaps its image too); one read through /proc/PID/ never is: it could not be
 * reopened once its process is gone. A replay never calls them.
 */
#define DSO_IDLE_NS 5000000000ull
/* A binary opened again within DSO_IDLE_RECUR_NS of its idle close stays open four times as long
 * next time, up to DSO_IDLE_MAX_NS; one that comes back later starts again at DSO_IDLE_NS. */
#define DSO_IDLE_RECUR_NS 60000000000ull
#define DSO_IDLE_MAX_NS 300000000000ull
void dso_mark_live(struct dso *d, uint64_t now);
size_t dso_set_close_idle(struct dso_set *set, uint64_t now);
bool dso_idle(const struct dso *d);
uint64_t dso_set_idle_closed(const struct dso_set *set);

/* Short name as perf prints it (basename, or "[vdso]"-style names as they are); interned. */
const char *dso_name(const struct dso *d);
const char *dso_path(const struct dso *d);
/* The build-id (from the mapping's record, or the file once opened); *len 0 when none. */
const uint8_t *dso_build_id(const struct dso *d, size_t *len);
/* Why the dso could not be used, or NULL. */
const char *dso_error(const struct dso *d);

/*
 * Where to read a dso whose path is not the file to read: a deleted or replaced binary
 * (/proc/PID/map_files/...), a file inside a container's root (/proc/PID/root/...), the vdso (an
 * in-memory copy); NULL: its own path. Decided once, before the first open: dso_source_pending says
 * it is still to be decided, and dso_set_source returns false once it is too late. dso_source is the
 * file read, else the path.
 */
bool dso_source_pending(const struct dso *d);
bool dso_set_source(struct dso *d, const char *file);
const char *dso_source(const struct dso *d);

/*
 * Resolves file offset off. Writes up to max frames (innermost inline first, the containing function
 * last: see dso_set_want) with sym, sym_start (ELF virtual address), srcline and inlined set; the
 * caller fills addr, dso and kernel. Returns the number written, 0 when nothing covers off.
 */
int dso_lookup(struct dso *d, uint64_t off, struct frame *out, int max);

/*
 * What lookups add to the ELF symbol: inline frames (innermost first, marked inlined and named
 * "NAME (inlined)") and source lines ("file.c:12"). Both off by default; DWARF is loaded only when
 * one is on and only on a binary's first lookup.
 */
void dso_set_want(struct dso_set *set, bool inlines, bool srclines);
/*
 * A recording's build-id for the file at path (its BUILD_ID section, a stream's HEADER_BUILD_ID
 * records). A dso of that path whose mapping gave no build-id reads only a file with this one: the
 * --symfs copy, the path itself, perf's build-id cache, DEBUG_ROOT/.build-id, or what debuginfod
 * fetches (see dso_open_by_build_id); a file of another build at the path is not read. At most
 * DSO_MAX_EXPECTED paths (false past it); the latest build-id of a path wins. Before the dso's
 * first lookup.
 */
#define DSO_MAX_EXPECTED 4096
bool dso_set_expect(struct dso_set *set, const char *path, const uint8_t *bid, size_t len);
/* A reader that may wait (a batch replay): a binary opened by build-id that nothing here has waits
 * for its debuginfod fetch (at most 30 s) instead of going on without it. Off by default. */
void dso_set_wait_fetches(struct dso_set *set, bool on);
/* How many binaries had a file of another build here (left unresolved), and a one-line notice
 * naming the first ("libfoo.so: file here is another build ..."), or NULL. */
uint64_t dso_set_mismatched(const struct dso_set *set);
const char *dso_set_notice(const struct dso_set *set);
/* Opens again the dsos with this build-id (their debug file arrived, e.g. from debuginfod). */
void dso_set_reload(struct dso_set *set, const uint8_t *bid, size_t len);
/* True once the dso's DWARF was opened (tests: the srcinfo store answers without it). */
bool dso_dwarf_loaded(const struct dso *d);
/* The srcinfo caches' hits and misses over all dsos (bench, tests). */
void dso_srcinfo_counts(const struct dso_set *set, uint64_t *hits, uint64_t *misses);

/* The file an opened dso reads (--symfs, dso_set_source applied), opening it if needed; NULL when it
 * cannot be used (unreadable, not ELF, another build-id). For the unwinder, which maps it itself. */
const char *dso_file(struct dso *d);

/* An open dso's Go function table (.gopclntab, gopclntab.h), read on first use; NULL when it has
 * none or is not open. Valid until the dso closes. For the unwinder: Go code has no .eh_frame. */
struct gopcln;
const struct gopcln *dso_gopcln(struct dso *d);

/* Number of function symbols once loaded (opens and loads if needed); for tests and stats. */
long dso_symbol_count(struct dso *d);

/* For annotate: the dso whose short name (dso_name) is name, or NULL; and the code of the function
 * symbol that starts at sym_start: its module (ELF and DWARF through libdwfl, module address = va +
 * *bias) and its end, or NULL when the dso cannot be read or has no such symbol. */
struct dso *dso_set_find_name(struct dso_set *set, const char *name);
Dwfl_Module *dso_code(struct dso *d, uint64_t sym_start, uint64_t *end, uint64_t *bias);

#endif
