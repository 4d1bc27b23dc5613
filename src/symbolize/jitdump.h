/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jitdump: the jit-PID.dump file a JIT runtime writes for perf (node/V8 --perf-prof, the JVM's
 * perf agent, LLVM's ORC, ...): a header, then records, each a piece of generated code (its address,
 * size, name and bytes), a move of one, the source lines of one, its unwinding tables, or the end.
 * The runtime maps the file executable so that perf sees it in the process's MMAP records: that
 * mapping is how a process's dump is found (maps.c), not a path of our own guessing.
 *
 * The file grows while the process runs: it is read incrementally like the perf map (jitmap.h), a
 * refresh reading only the records appended since the last one; a record not yet complete waits for
 * the next refresh. The profiled process writes it, so it is hostile input: opened without following
 * any symlink (openat2 RESOLVE_NO_SYMLINKS, under the process's root when it has its own), a regular
 * file owned by the process's uid or root (util/safefile.h; one of over JITDUMP_MAX_FILE refused),
 * at most JITDUMP_MAX_BYTES read, a record larger than
 * JITDUMP_MAX_RECORD or smaller than its fixed part ends the reading (one warning), names cut at
 * JITDUMP_MAX_NAME, at most JITDUMP_MAX_ENTRIES pieces of code (the oldest evicted past it) and
 * JITDUMP_MAX_LINES source lines kept.
 *
 * The code bytes are not kept in memory: an entry remembers where they are in the file and
 * jitdump_code reads them when annotate asks. Same thread as the symbolizer.
 */
#ifndef PERFTOP_SYMBOLIZE_JITDUMP_H
#define PERFTOP_SYMBOLIZE_JITDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct intern;
struct jitdump;

#define JITDUMP_MAGIC 0x4A695444u          /* "JiTD" as a little-endian u32 */
#define JITDUMP_MAX_BYTES (256ull << 20)   /* of one file; the rest is not read (and said so) */
#define JITDUMP_MAX_FILE (4ull << 30)     /* a bigger file is refused whole (safefile_open) */
#define JITDUMP_MAX_RECORD (16u << 20)     /* one record; a larger one ends the reading */
#define JITDUMP_MAX_ENTRIES (1u << 20)     /* pieces of code kept; the oldest go past it */
#define JITDUMP_MAX_LINES (4u << 20)       /* debug-info lines kept; later ones are dropped */
#define JITDUMP_MAX_FILES 65536            /* distinct source file names */
#define JITDUMP_MAX_NAME 1024              /* longer names are cut */
#define JITDUMP_READ_CHUNK (4u << 20)      /* bytes parsed per refresh: a big file never stalls a tick */
#define JITDUMP_CHECK_NS 250000000ull      /* how often a lookup may look for growth */
#define JITDUMP_MISS_CHECK_NS 20000000ull  /* ... and how often one that missed may */

/* Record types of the format (tools/perf/Documentation/jitdump-specification.txt). */
enum {
	JITDUMP_CODE_LOAD = 0,
	JITDUMP_CODE_MOVE = 1,
	JITDUMP_CODE_DEBUG_INFO = 2,
	JITDUMP_CODE_CLOSE = 3,
	JITDUMP_CODE_UNWINDING_INFO = 4,
};

/*
 * The dump at path, as process root_pid sees it (0: path is ours; else it resolves under
 * /proc/ROOT_PID/root), owned by uid or root (UINT32_MAX: by our euid or root). Not read yet.
 */
struct jitdump *jitdump_new(const char *path, uint32_t root_pid, uint32_t uid, struct intern *in);
void jitdump_free(struct jitdump *j);
/* The names' pool is being compacted (intern.h): names are interned again on their next lookup. */
void jitdump_move_names(struct jitdump *j);
/* A replay's: read whole at the first lookup, never again (no clock read by a lookup). */
void jitdump_set_static(struct jitdump *j);
/* Lowers the caps (tests): bytes read, entries kept, lines kept. 0 leaves one as it is. */
void jitdump_set_limits(struct jitdump *j, uint64_t max_bytes, size_t max_entries,
			size_t max_lines);

/* Reads what was appended since the last read, if due (or force). Never fails. */
void jitdump_refresh(struct jitdump *j, uint64_t now, bool force);

struct jitdump_hit {
	const char *name;      /* interned */
	uint64_t start;        /* the code's address (its load record's code_addr) */
	const char *srcline;   /* "file.js:12" (interned) when asked for and known, else NULL */
	bool has_code;         /* its bytes are in the file (annotate can show them) */
};
/* The code that holds addr (refreshing first when due). want_line: fill srcline. */
bool jitdump_lookup(struct jitdump *j, uint64_t addr, bool want_line, struct jitdump_hit *hit);

/* The bytes of the code loaded at start (an entry's start), at most max of them, into *buf
 * (malloc'ed, the caller frees): their count, or 0 with why in err. */
size_t jitdump_code(struct jitdump *j, uint64_t start, size_t max, uint8_t **buf, char *err,
		    size_t errlen);
/* The source line of addr by the code's debug info: file and line; false when none. The file is
 * the debug record's name, or where that is no text (node 20's V8 writes some from freed memory)
 * the one in the code's own name (V8's "JS:*fn /path/file.js:LINE:COL"). file stays valid until
 * the next call. jitdump_lookup's srcline is its basename and line. */
bool jitdump_line(struct jitdump *j, uint64_t addr, const char **file, unsigned *line);

/* Whether the file was found (opened and accepted) at least once. */
bool jitdump_found(const struct jitdump *j);

struct jitdump_stats {
	size_t entries, lines, files;
	uint64_t records;      /* records read */
	uint64_t bytes;        /* bytes consumed */
	uint64_t skipped;      /* records skipped as malformed, unknown or over a cap */
	uint64_t evicted;      /* entries evicted past max_entries */
	bool stopped;          /* reading ended for good (a bad header or record, the byte cap) */
};
void jitdump_get_stats(const struct jitdump *j, struct jitdump_stats *st);

#endif
