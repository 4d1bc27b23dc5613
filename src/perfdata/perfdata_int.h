/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_int: the reader's state and the functions its files share. The reader is one module
 * (perfdata.h) in several files, each one layer of it, and a lower one never calls a higher one:
 *
 *   perfdata_notes.c     what reading tells: the warning that says where it stopped, the records
 *                        it skipped by kind, the header's text lines, perf's record names;
 *   perfdata_events.c    the events: attrs (in either byte order), their ids and the id -> event
 *                        map, the names perf gives them, the file header's attrs section;
 *   perfdata_input.c     the data section as one run of bytes (mapped, in memory, or a stream);
 *   perfdata_compressed.c  the zstd stream of COMPRESSED records;
 *   perfdata_order.c     kernel records parsed and handed out in time order;
 *   perfdata_features.c  the header's feature sections, read, written and printed (one table);
 *   perfdata_records.c   one perf record at a time, perf's own user records, records out;
 *   perfdata.c           opening a file, a stream or memory; closing, rewinding.
 *
 * Everything is bounded: the input buffer holds one record at most 64 KiB plus slack, the
 * decompression buffer is fixed, the reorder arena is capped, feature sections and id lists are
 * capped. A size field never drives an allocation beyond those caps.
 *
 * Byte order: a file written on a machine of the other byte order has a byte-swapped magic; every
 * field read here is swapped, and parse_cfg.swapped makes parse_record do the same for records.
 */
#ifndef PERFTOP_PERFDATA_INT_H
#define PERFTOP_PERFDATA_INT_H

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <zstd.h>

#include "perfdata/perfdata.h"
#include "record/parse.h"

#define PD_MAX_EVENTS 256
#define PD_MAX_IDS (1u << 20)        /* all events together */
#define PD_MAX_ATTR_SIZE 4096
#define PD_MAX_FEATURE (16u << 20)   /* one feature section */
#define PD_MAX_LINES 4096
#define PD_BUF_SIZE (1u << 20)       /* input buffer: a record is at most 64 KiB */
#define PD_TRACING_PREFIX (512u << 10) /* of a stream's tracing data: where its formats are */
#define PD_ZOUT_SIZE (1u << 20)      /* decompressed bytes not yet consumed */
#define PD_REORDER_CAP (64u << 20)   /* parsed records waiting for their round */
#define PD_REC_MAX (sizeof(struct rec) + 65536 + 64) /* largest parsed form of one record */
#define PD_RELEASE_STEP (256u << 10) /* mapped bytes read between two releases of the pages behind */
#define PD_MAX_BUILD_IDS 4096        /* (path, build-id) pairs kept for the symbolizer */

struct pd_event {
	struct perfdata_event pub;
	struct parse_cfg cfg;
	uint64_t *ids;
	bool named;                /* name came from the file (EVENT_DESC) */
};

/* A record waiting for its turn: parsed in the arena, or (in_file) still raw where it lies in the
 * mapped file, to be parsed when it is handed out. */
struct pd_ent {
	uint64_t time;
	uint64_t off;              /* in the arena, or in the file */
	uint32_t evi;              /* the event it belongs to (in_file) */
	uint32_t in_file;
};

struct perfdata_reader {
	FILE *f;
	bool own_f;
	bool pipe_format;          /* the 16-byte pipe header: attrs and features come inline */
	bool seekable;
	/* A pipe or FIFO (-i -): read(2) takes what has arrived, so a live stream is followed as it
	 * comes instead of in buffers' worth (stdio's fread waits for a whole one). */
	bool follow;
	atomic_bool interrupted;   /* perfdata_interrupt: a followed stream reads no more */
	bool swapped;
	char path[256];

	struct pd_event ev[PD_MAX_EVENTS];
	size_t nev;
	size_t total_ids;
	/* id -> event index, open addressing; 0 is the empty key (perf never hands out id 0) */
	uint64_t *hkeys;
	uint32_t *hvals;
	size_t hcap, hcount;

	struct perfdata_info info;
	size_t lines_cap;

	/* input: buf is own_buf (a stream) or the bytes of the whole file (mem; mapped: ours) */
	const unsigned char *buf;
	unsigned char *own_buf;
	size_t bpos, blen;
	uint64_t file_pos;         /* file offset of buf[blen] */
	const unsigned char *mem;
	size_t mem_len;
	bool mapped;
	size_t released;           /* mapped pages below this offset were given back */
	size_t release_at;         /* the reading point where pd_in_release looks next */
	uint64_t data_start;       /* offset of the first data record (after pipe-mode preamble) */
	uint64_t data_end;         /* UINT64_MAX when unknown (pipe, or data size 0 in the header) */
	bool header_unfinished;    /* data size 0 or no feature bits: the writer never finished it */
	bool eof;

	/* zstd */
	ZSTD_DStream *zd;
	unsigned char *zin;
	size_t zin_len, zin_pos;
	unsigned char *zout;
	size_t zout_pos, zout_len;

	/* reorder */
	unsigned char *arena, *arena2;
	size_t arena_len, arena_cap, arena2_cap;
	struct radix_kv *sort_kv;  /* pd_order_flush's scratch */
	size_t sort_kv_cap;
	struct pd_ent *sort_ents;
	size_t sort_ents_cap;
	size_t live_bytes;         /* of the arena: records not handed out yet */
	size_t file_live;          /* bytes of the records waiting raw in the mapped file */
	struct rec *scratch;       /* a record from the file, parsed when handed out */
	size_t sorted_end;         /* ents[next_ent, sorted_end) are in order (left from a flush) */
	struct pd_ent *ents;
	size_t nents, ents_cap, ready, next_ent;
	uint64_t max_time, next_flush;

	/* The recording's (path, build-id) pairs: the BUILD_ID feature, a stream's HEADER_BUILD_ID
	 * records. Appended by whichever thread reads (perfdata_ahead's), read by the consumer: an
	 * entry is complete before nbids counts it (release), and never changes after. */
	struct perfdata_build_id **bids;
	atomic_size_t nbids;
	uint64_t bids_dropped;

	bool done;
	bool in_preamble;          /* open_pipe_preamble is reading */
	bool attrs_frozen;         /* after a rewind, pipe-mode attrs are not added again */
	struct perfdata_stats stats;
	uint64_t raw_records;      /* complete records read from the data, for the cut-short message */
};

/* Fields of the file's byte order. */
static inline uint64_t sw64(const struct perfdata_reader *r, uint64_t v)
{
	return r->swapped ? __builtin_bswap64(v) : v;
}

static inline uint32_t sw32(const struct perfdata_reader *r, uint32_t v)
{
	return r->swapped ? __builtin_bswap32(v) : v;
}

static inline uint16_t sw16(const struct perfdata_reader *r, uint16_t v)
{
	return r->swapped ? __builtin_bswap16(v) : v;
}

static inline uint64_t ld64(const struct perfdata_reader *r, const void *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return sw64(r, v);
}

static inline uint32_t ld32(const struct perfdata_reader *r, const void *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return sw32(r, v);
}

/* A record's size field (perf_event_header.size) at p. */
static inline uint16_t rec_size_at(const struct perfdata_reader *r, const unsigned char *p)
{
	uint16_t size;
	memcpy(&size, p + 6, 2);
	return sw16(r, size);
}

/* perfdata_notes.c */
void pd_set_warning(struct perfdata_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pd_count_bad(struct perfdata_reader *r, uint32_t type);
void pd_add_line(struct perfdata_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* perfdata_events.c */
void pd_attr_load(struct perfdata_reader *r, const unsigned char *p, size_t attr_size,
		  struct perf_event_attr *a);
int pd_id_lookup(const struct perfdata_reader *r, uint64_t id);
int pd_event_add(struct perfdata_reader *r, const struct perf_event_attr *a,
		 const unsigned char *ids, size_t nids);
int pd_read_attrs(struct perfdata_reader *r, uint64_t attr_size, uint64_t attrs_off,
		  uint64_t attrs_size, char *err, size_t errlen);

/* perfdata_input.c */
size_t pd_in_fill(struct perfdata_reader *r, size_t need);
void pd_in_mem_at(struct perfdata_reader *r, uint64_t off);
void pd_in_release(struct perfdata_reader *r);
uint64_t pd_in_offset(const struct perfdata_reader *r);
bool pd_in_skip(struct perfdata_reader *r, uint64_t n);

/* perfdata_compressed.c */
void pd_z_load(struct perfdata_reader *r, const unsigned char *p, size_t len);
bool pd_z_next(struct perfdata_reader *r, const unsigned char **p, size_t *size);
void pd_z_rewind(struct perfdata_reader *r);
void pd_z_free(struct perfdata_reader *r);

/* perfdata_order.c */
void pd_order_flush(struct perfdata_reader *r, uint64_t limit);
void pd_order_compact(struct perfdata_reader *r);
void pd_order_add(struct perfdata_reader *r, const unsigned char *p, size_t size, uint32_t type,
		  bool in_file);
int pd_order_take(struct perfdata_reader *r, struct rec *dst, size_t cap, bool copy,
		  const struct rec **out);

/* perfdata_features.c */
void pd_features_read(struct perfdata_reader *r, const uint64_t bits[4]);
void pd_feature_read(struct perfdata_reader *r, unsigned feat, const unsigned char *p, size_t len);
size_t pd_build_id_entry(struct perfdata_reader *r, const unsigned char *p, size_t avail,
			 bool list);

/* perfdata_records.c */
int pd_raw_pump(struct perfdata_reader *r);

#endif
