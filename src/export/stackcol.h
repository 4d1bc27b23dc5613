/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stackcol: the stacks an export (or a push) is made of, collected sample by sample next to the
 * profile. The profile and call tree aggregate away what the export formats keep: which thread
 * sampled which whole stack, and when. The collector keeps it in bounded tables:
 *  - strings: its own copies (names, dso files, srclines, comms), found by content, so nothing it
 *    holds points into the symbolizer's pool and compaction cannot move them; a pointer cache in
 *    front saves the hashing of names seen before and is dropped when the pool is compacted
 *    (stackcol_forget_names);
 *  - frames: (sym, dso, srcline, address, inline, kernel) -> id, each with what the session said
 *    of it when first seen (its display name, its mapping: stackcol_describe_fn);
 *  - stacks: frame id arrays (leaf first) -> id;
 *  - keys: (stack, pid, tid, comm, container, cgroup, event) -> samples and summed weight (the
 *    sample's period); container and cgroup are string ids (0: unknown), so that the pprof labels
 *    and a push per container can tell the containers' stacks apart;
 *  - log: (time, key, weight) in arrival order, for speedscope's time-ordered samples.
 * Bounds: when the string, frame or stack tables are full a sample's stack becomes the one frame
 * "[perftop: export tables full]" (so totals stay whole); when the key table is full the sample
 * goes to that overflow stack's key of pid 0, tid 0 (room for one per event is kept); when the log
 * is full it stops (log_dropped counts the samples past it; the aggregated keys still hold them).
 * Everything is counted in stackcol_stats.
 *
 * Only a session that exports (or pushes) makes one: the others pay nothing.
 * A collector belongs to one thread (the session's); it takes no locks.
 */
#ifndef PERFTOP_EXPORT_STACKCOL_H
#define PERFTOP_EXPORT_STACKCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "util/frame.h"

#define STACKCOL_MAX_EVENTS 16
#define STACKCOL_NO_STRING 0u /* string id 0 is "" */

struct stackcol_limits {
	size_t string_bytes;  /* the strings' bytes (default 16 MiB) */
	size_t frames;        /* distinct frames (default 256K) */
	size_t stacks;        /* distinct stacks (default 256K) */
	size_t stack_frames;  /* frame ids of all stacks together (default 8M) */
	size_t keys;          /* distinct (stack, pid, tid, comm, container, cgroup, event) (512K) */
	size_t log;           /* time-ordered samples (default 2M) */
};

/* What the session knows of a frame, asked once when the frame is first seen. Strings are copied. */
struct stackcol_desc {
	const char *display;  /* the demangled name (NULL: the raw one) */
	/* Its mapping (have_map false: unknown, a fake one per dso name is made) */
	bool have_map;
	uint64_t map_start, map_limit, map_offset;
	const char *map_file; /* the mapped file's path (NULL: the dso name) */
	uint8_t build_id[20];
	uint8_t build_id_size;
};
typedef void (*stackcol_describe_fn)(void *ctx, uint32_t pid, const struct frame *f,
				     struct stackcol_desc *out);

struct stackcol_frame {
	uint32_t sym, display, dso, file;  /* string ids: raw name, demangled, dso, source file */
	uint32_t srcline;                   /* string id of the whole "file:line" */
	uint32_t line;                      /* source line; 0 unknown */
	uint32_t map;                       /* mapping index */
	uint64_t addr;
	bool inlined, kernel;
};

struct stackcol_map {
	uint64_t start, limit, offset;
	uint32_t file;                      /* string id */
	uint32_t build_id_hex;              /* string id of the build-id in hex (0: none) */
	uint8_t build_id[20];
	uint8_t build_id_size;
	bool fake;                          /* made from the dso name alone */
};

struct stackcol_key {
	uint32_t stack;
	uint32_t pid, tid;
	uint32_t comm;                      /* string id */
	uint32_t container, cgroup;         /* string ids; 0: unknown */
	uint8_t event;
	uint64_t samples, weight;
};

struct stackcol_sample {
	uint64_t time;                      /* the record's time (ns, perf clock); 0 unknown */
	uint32_t key;
	uint64_t weight;
};

struct stackcol_stats {
	uint64_t samples;                   /* taken in */
	uint64_t overflowed;                /* samples whose stack became the overflow frame */
	uint64_t key_overflowed;            /* samples folded into a pid 0 key */
	uint64_t log_dropped;               /* samples past the end of the log */
	uint64_t truncated_frames;          /* stacks cut to STACKCOL_MAX_DEPTH */
};

#define STACKCOL_MAX_DEPTH 1024

struct stackcol;

/* lim NULL: the defaults. NULL on allocation failure. */
struct stackcol *stackcol_new(const struct stackcol_limits *lim);
void stackcol_free(struct stackcol *c);
/* Forgets everything taken in (a new window), keeping the allocations. */
void stackcol_reset(struct stackcol *c);
void stackcol_set_describe(struct stackcol *c, stackcol_describe_fn fn, void *ctx);
/* The symbolizer's names were compacted: the pointer cache is dropped (the copies stay). */
void stackcol_forget_names(struct stackcol *c);

/* One sample of event (< STACKCOL_MAX_EVENTS) at time (ns). */
void stackcol_add(struct stackcol *c, int event, uint64_t time, const struct sample_ctx *s);

/* Reading (the encoders): tables by index; strings by id (0: ""). */
const char *stackcol_string(const struct stackcol *c, uint32_t id);
size_t stackcol_nstrings(const struct stackcol *c);
size_t stackcol_nframes(const struct stackcol *c);
const struct stackcol_frame *stackcol_frames(const struct stackcol *c);
size_t stackcol_nmaps(const struct stackcol *c);
const struct stackcol_map *stackcol_maps(const struct stackcol *c);
size_t stackcol_nstacks(const struct stackcol *c);
/* Stack id's frame ids, leaf first; *n their number. */
const uint32_t *stackcol_stack(const struct stackcol *c, uint32_t id, size_t *n);
size_t stackcol_nkeys(const struct stackcol *c);
const struct stackcol_key *stackcol_keys(const struct stackcol *c);
size_t stackcol_nlog(const struct stackcol *c);
const struct stackcol_sample *stackcol_log(const struct stackcol *c);
void stackcol_get_stats(const struct stackcol *c, struct stackcol_stats *st);

#endif
