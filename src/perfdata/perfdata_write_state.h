/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_write_state: the writer's state, shared by the files of the writer: the file and stream
 * forms and their passes (perfdata_write.c), the mapping table that finds the binaries samples hit
 * and their build-ids (perfdata_buildids.c), and the feature sections (perfdata_features.c, whose
 * table says what each one holds). Also the growing buffer they write into.
 */
#ifndef PERFTOP_PERFDATA_WRITE_STATE_H
#define PERFTOP_PERFDATA_WRITE_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>

#include "perfdata/format.h"
#include "record/record.h"
#include "sampler/sampler.h"
#include "util/safefile.h"
#include "util/util.h"

struct pw_buf {
	unsigned char *p;
	size_t len, cap;
};

struct pw_map {
	uint64_t start, end;
	uint32_t file;
};

struct pw_proc {
	uint32_t pid;
	bool used;
	struct pw_map *maps;
	size_t n, cap;
};

struct pw_file {
	char *name;
	uint8_t bid[REC_BUILD_ID_MAX];
	uint8_t bid_size;
	bool hit;
};

/* One event of the file: its attr as it ran, its ids, its name (EVENT_DESC). */
struct pw_event {
	struct perf_event_attr attr;
	uint64_t *ids;
	size_t nids;
	char name[128];
};

struct perfdata_writer {
	int fd;
	char *path;
	struct safefile_out out; /* the file form's: a temporary renamed over path at close */
	bool pipe; /* the stream form: nothing is rewritten, build-ids and features are records */
	/* The events; the first carries the side-band, and our synthesized records are its. */
	struct pw_event ev[SAMPLER_MAX_EVENTS];
	size_t nev;
	size_t total_ids;
	uint64_t id0; /* the id our synthesized records carry */

	uint64_t data_off;
	uint64_t data_size;   /* bytes of data completely written */
	uint64_t synced_size; /* data size the header on disk says */
	uint64_t last_sync_ns;
	uint64_t write_ns;
	int error;

	struct pw_buf pass; /* records of the current pass */

	/* Mapping table: processes (open addressing on pid) and the binaries they map. */
	struct pw_proc *procs;
	size_t nprocs_used, procs_cap;
	struct pw_file *files;
	size_t nfiles, files_cap;
	uint32_t *file_hash; /* index + 1 into files, 0 = empty */
	size_t file_hash_cap;
	bool kernel_hit;
};

static inline void buf_put(struct pw_buf *b, const void *p, size_t n)
{
	xgrow((void **)&b->p, &b->cap, b->len + n, 1);
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static inline void buf_zero(struct pw_buf *b, size_t n)
{
	xgrow((void **)&b->p, &b->cap, b->len + n, 1);
	memset(b->p + b->len, 0, n);
	b->len += n;
}

static inline void buf_u32(struct pw_buf *b, uint32_t v)
{
	buf_put(b, &v, sizeof(v));
}

static inline void buf_u64(struct pw_buf *b, uint64_t v)
{
	buf_put(b, &v, sizeof(v));
}

/* perf's header string: u32 length (NUL and padding included), then the string padded to 64. */
static inline void buf_string(struct pw_buf *b, const char *s)
{
	size_t n = strlen(s) + 1, padded = (n + PD_NAME_ALIGN - 1) & ~(size_t)(PD_NAME_ALIGN - 1);
	buf_u32(b, (uint32_t)padded);
	buf_put(b, s, n - 1);
	buf_zero(b, padded - (n - 1));
}

/* perfdata_buildids.c: the build-id entry of file f (-1: the kernel) into b, as a record of type
 * type: 0 in the BUILD_ID feature, HEADER_BUILD_ID in a stream's pass when a sample first hits f. */
void pw_put_build_id(struct perfdata_writer *w, struct pw_buf *b, uint32_t type, long f);
/* The build-id of the ELF file at path from its PT_NOTE segments (at most REC_BUILD_ID_MAX bytes
 * into out): its length, 0 when it has none or is not ELF. The file is a profiled process's,
 * hostile: fuzzed (fuzz_buildid). */
size_t pw_file_build_id(const char *path, uint8_t *out);

#endif
