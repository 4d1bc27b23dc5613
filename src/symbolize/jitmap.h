/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jitmap: the symbols a JIT compiler writes for perf into /tmp/perf-PID.map, one "START SIZE NAME"
 * line per piece of generated code (START and SIZE in hex, NAME to the end of the line). node
 * --perf-basic-prof, Java perf-map-agent and python3.12 -X perf all write this format.
 *
 * The file only ever grows while the process runs, so it is read incrementally: a refresh (at most
 * every JITMAP_CHECK_NS, from the lookups themselves) stats it and parses just the new complete lines.
 * A file that shrank or became another inode is read again from the start.
 *
 * Memory is bounded: at most JITMAP_MAX_BYTES of one file are read (a warning says the rest is not),
 * and names longer than JITMAP_MAX_NAME are cut. Names are kept in the map's own arena and interned
 * only when a lookup returns them, so a huge file costs the session's string pool nothing.
 */
#ifndef PERFTOP_SYMBOLIZE_JITMAP_H
#define PERFTOP_SYMBOLIZE_JITMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct intern;
struct jitmap;

#define JITMAP_CHECK_NS 250000000ull       /* how often a lookup may stat the file for growth */
#define JITMAP_MISS_CHECK_NS 20000000ull   /* ... and how often a lookup that missed may */
#define JITMAP_MAX_BYTES (256u << 20)      /* of one file; the rest is ignored (and said so) */
#define JITMAP_MAX_FILE (1ull << 30)      /* a bigger file is refused whole (no JIT writes one) */
#define JITMAP_MAX_NAME 1024               /* longer names are cut */
#define JITMAP_READ_CHUNK (4u << 20)       /* bytes parsed per refresh: a huge file never stalls a tick */

/* A map for the file at path (not read yet: the first lookup reads it). */
struct jitmap *jitmap_new(const char *path, struct intern *in);
void jitmap_free(struct jitmap *j);
/* Whose file it is (safefile.h): root_pid, when not 0, has its own root, in which the file is
 * in_root; uid is the process's user, whose file (or root's) is read, none other's (UINT32_MAX, the
 * default: our euid's). */
void jitmap_set_source(struct jitmap *j, uint32_t root_pid, const char *in_root, uint32_t uid);
/* The pool is being compacted (intern.h): the names held here move to the new generation
 * (each entry's name is interned again on its next lookup). */
void jitmap_move_names(struct jitmap *j);

/* Reads what was appended to the file since the last read, if now is JITMAP_CHECK_NS past the last
 * check (or force). Never fails: a missing or unreadable file is an empty map. */
void jitmap_refresh(struct jitmap *j, uint64_t now, bool force);

/* The file was written anew from its start (a JVM asked for its map rewrites it whole, in place):
 * the next refresh, due at once, reads it from the start. */
void jitmap_reread(struct jitmap *j);

/* The entry that holds addr (refreshing first when due): its name (interned) and start. */
bool jitmap_lookup(struct jitmap *j, uint64_t addr, const char **name, uint64_t *start);
/* A replay's map: the file is what the recording left, read once at the first lookup (as perf
 * report reads it) and never looked at again, so that a lookup reads no clock. */
void jitmap_set_static(struct jitmap *j);

/* Lowers the byte cap (tests). */
void jitmap_set_max_bytes(struct jitmap *j, uint64_t n);

/* Entries held, lines skipped as malformed, and whether the byte cap cut the file short. */
size_t jitmap_count(const struct jitmap *j);
uint64_t jitmap_malformed(const struct jitmap *j);
bool jitmap_truncated(const struct jitmap *j);
/* Whether the file was opened (as a regular file) at least once. */
bool jitmap_found(const struct jitmap *j);

/*
 * Parses one line (without its newline): "START SIZE NAME", START and SIZE hex with an optional 0x,
 * separated by blanks; NAME is the rest with trailing blanks removed and may contain spaces. Returns
 * false for anything else (no name, not hex, size 0, START + SIZE wrapping).
 */
bool jitmap_parse_line(const char *line, size_t len, uint64_t *start, uint64_t *size,
		       const char **name, size_t *namelen);

#endif
