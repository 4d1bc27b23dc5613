/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata: reading perf.data files (perf's PERFILE2 format, and its pipe mode) as a source of the
 * same struct rec records the live sampler produces, so that everything after parsing is the same
 * code for live sessions and replays.
 *
 * The reader handles: the file header and its attrs with their ids (HEADER_ATTR records in pipe
 * mode), files of the other byte order (a swapped magic), the feature sections (header info),
 * COMPRESSED records (zstd), FINISHED_ROUND and a bounded reorder window for time order, files cut
 * short (it says so and how much was recovered) and bad input (clear error, or a partial result with
 * a warning saying where reading stopped). It never allocates without bound.
 *
 * Records come out in timestamp order across CPUs; each record's evidx says which event (attr) it
 * belongs to (matched through the sample id when the file has several events).
 */
#ifndef PERFTOP_PERFDATA_H
#define PERFTOP_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "record/record.h"

struct perfdata_event {
	struct perf_event_attr attr;
	char name[128];            /* from EVENT_DESC when present, else the canonical name */
	const uint64_t *ids;
	size_t nids;
};

/* What the file's header and feature sections say; strings are empty when absent. */
struct perfdata_info {
	char hostname[256];
	char osrelease[256];
	char version[64];          /* perf version that wrote it */
	char arch[64];
	uint32_t nr_cpus_online, nr_cpus_avail;
	char cpudesc[256];
	char cpuid[256];
	uint64_t total_mem_kib;
	char cmdline[1024];
	/* Further text lines (topology, NUMA, PMU mappings, groups, build-ids...), "Name: value". */
	char **extra_lines;
	size_t nextra;
	bool pipe_mode;
	bool swapped;              /* written on a machine of the other byte order */
	uint64_t data_offset, data_size;
	uint64_t first_time, last_time; /* sample time range (ns), when known */
	/* sched:sched_switch's format file on the recording machine (from TRACING_DATA), "" when the
	 * file has none: an off-CPU replay decodes prev_state and next_pid by it. Cut at the size,
	 * which only the print fmt at its end can pass. */
	char switch_format[4096];
};

struct perfdata_stats {
	uint64_t records;          /* records delivered */
	uint64_t samples;
	uint64_t skipped_unknown;  /* record types we do not know, skipped by size */
	uint64_t bad_records;      /* records that did not parse (-EINVAL) */
	uint64_t compressed_bytes; /* decompressed from COMPRESSED records */
	bool truncated;            /* the file ends before its header says it should, or mid-record */
	uint64_t bytes_recovered;  /* data bytes read up to the cut */
	char warning[256];         /* where reading stopped and why, when it stopped early */
	struct {                   /* the kinds of the records that did not parse, first ones first */
		uint32_t type;     /* the record's type (PERF_RECORD_*, perf's user types from 64) */
		uint64_t n;
	} bad_kinds[4];
	uint64_t aux_records;      /* AUXTRACE_INFO and AUXTRACE records: an AUX area trace (not decoded) */
	uint32_t aux_type;         /* the first AUXTRACE_INFO's kind (perf's enum auxtrace_type) */
};

struct perfdata_reader;

/* Opens path ("-" = stdin, pipe mode). NULL with a one-line message in err on failure ("not a
 * perf.data file", "cannot open ...: No such file or directory", ...). */
struct perfdata_reader *perfdata_open(const char *path, char *err, size_t errlen);
/* Several files of one session played as one, in the order given (perf record --switch-output's
 * files; perfdata_dir.h); one file: perfdata_open. */
struct perfdata_reader *perfdata_open_files(const char *const *paths, size_t n, char *err,
					    size_t errlen);
/* The same from a memory buffer (the fuzzers, tests); buf must outlive the reader. */
struct perfdata_reader *perfdata_open_mem(const void *buf, size_t len, char *err, size_t errlen);
void perfdata_close(struct perfdata_reader *r);

size_t perfdata_nevents(const struct perfdata_reader *r);
const struct perfdata_event *perfdata_event(const struct perfdata_reader *r, size_t i);
const struct perfdata_info *perfdata_info(const struct perfdata_reader *r);
/* perf's dummy event (side-band only, never samples). */
bool perfdata_event_is_dummy(const struct perfdata_reader *r, size_t i);

/* Everything the header holds as "name: value" lines (allocated; free with perfdata_free_lines). */
char **perfdata_header_lines(const struct perfdata_reader *r, size_t *nlines);
void perfdata_free_lines(char **lines, size_t n);

/*
 * The next record in time order, parsed into out (cap bytes). Returns 1 for a record, 0 at the end
 * of the data (check stats.truncated / warning), or -errno for an error that stops reading (with
 * stats.warning set). Records that do not parse are counted and skipped, not returned.
 */
int perfdata_next(struct perfdata_reader *r, struct rec *out, size_t cap);
/* The same without the copy: *out points into the reader and is valid until the next call. */
int perfdata_next_ref(struct perfdata_reader *r, const struct rec **out);
/* The next record parsed straight into buf (cap bytes): 1, 0 at the end, or -ENOSPC when it needs
 * more than cap (it is not consumed: call again with more room). */
int perfdata_next_into(struct perfdata_reader *r, void *buf, size_t cap);

/* True when the records are read from memory (a mapped file, perfdata_open_mem): reading never
 * waits for input. */
bool perfdata_in_memory(const struct perfdata_reader *r);
/* True when the input is a pipe or FIFO followed as it arrives (-i -): it may be a live stream. */
bool perfdata_is_stream(const struct perfdata_reader *r);
/* A stream with no record to hand out now: none ready in the order queue, no whole record
 * buffered and nothing to read on the pipe, so the next perfdata_next* would wait for the
 * producer. False for files (which never wait) and when unsure. */
bool perfdata_would_block(const struct perfdata_reader *r);
/* From another thread: a followed stream's reading stops (its wait for the producer ends, as at
 * the end of the stream). For closing a stream read on perfdata_ahead's thread. */
void perfdata_interrupt(struct perfdata_reader *r);

/*
 * The build-ids the recording gives for the files it mapped: its BUILD_ID feature section (read at
 * open) and, in a stream, the HEADER_BUILD_ID records met so far (perftop -o -, perf inject -b send
 * one as a binary is first hit, before the samples in it). Only paths of files (from /), each pair
 * once, at most PD_MAX_BUILD_IDS (4096). Entries [0, *n) are complete and never change; the table
 * only grows, so a consumer keeps how many it has seen. May be called from another thread than the
 * one reading (perfdata_ahead's): what it returns is safe to read there.
 */
struct perfdata_build_id {
	uint8_t bid[20];
	uint8_t size;
	char path[];
};
const struct perfdata_build_id *const *perfdata_build_ids(const struct perfdata_reader *r, size_t *n);

/* Starts again from the first record (not for pipe mode: -ESPIPE). */
int perfdata_rewind(struct perfdata_reader *r);

void perfdata_get_stats(const struct perfdata_reader *r, struct perfdata_stats *st);
/* perf's name of a record type ("MMAP2", "SAMPLE", "HEADER_ATTR"...), or NULL for one it has not. */
const char *perfdata_record_name(uint32_t type);

#endif
