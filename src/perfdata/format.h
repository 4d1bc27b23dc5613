/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * format: the constants of perf's perf.data format, written down once for the reader
 * (perfdata.c), the writer (perfdata_write.c) and the directory reader (perfdata_dir.c): the magic,
 * the headers' sizes, perf's own record types (tools/perf/util/event.h; not in the uapi header)
 * and the feature bits of the file header (tools/perf/util/header.h). What perftop reads, writes
 * and prints of each feature is in one table (perfdata_features.h), which also names them.
 */
#ifndef PERFTOP_PERFDATA_FORMAT_H
#define PERFTOP_PERFDATA_FORMAT_H

#define PD_MAGIC_TEXT "PERFILE2"         /* the file's first 8 bytes, as written */
#define PD_MAGIC2 0x32454c4946524550ULL  /* "PERFILE2" read as a little-endian u64 */
#define PD_MAGIC1 0x454c494646524550ULL  /* "PERFFILE": version 1 files */
#define PD_FILE_HEADER_SIZE 104
#define PD_PIPE_HEADER_SIZE 16
#define PD_NAME_ALIGN 64                 /* perf pads feature strings and build-id names to this */
#define PD_HEADER_FEATURES_AT 72         /* the file header's 256-bit map of feature sections */
#define PD_FEATURE_BITS 256
/* A build-id entry (BUILD_ID feature, HEADER_BUILD_ID record): perf_event_header, pid, a 20-byte id
 * and its size byte in 24 bytes, then the file name, padded to PD_NAME_ALIGN. */
#define PD_BUILD_ID_HEAD (8 + 4 + 24)
#define PD_BUILD_ID_MAX 20
#define PD_MISC_BUILD_ID_SIZE (1u << 15) /* the entry's header: its size byte is valid */

/* perf.data's own record types. */
enum {
	PD_HEADER_ATTR = 64,
	PD_HEADER_EVENT_TYPE = 65,
	PD_HEADER_TRACING_DATA = 66,
	PD_HEADER_BUILD_ID = 67,
	PD_FINISHED_ROUND = 68,
	PD_ID_INDEX = 69,
	PD_AUXTRACE_INFO = 70,
	PD_AUXTRACE = 71,
	PD_AUXTRACE_ERROR = 72,
	PD_THREAD_MAP = 73,
	PD_CPU_MAP = 74,
	PD_STAT_CONFIG = 75,
	PD_STAT = 76,
	PD_STAT_ROUND = 77,
	PD_EVENT_UPDATE = 78,
	PD_TIME_CONV = 79,
	PD_HEADER_FEATURE = 80,
	PD_COMPRESSED = 81,
	PD_FINISHED_INIT = 82,
	PD_COMPRESSED2 = 83,
	PD_USER_LAST = 83,
};

/* Feature bits of the file header; bit 0 is reserved. */
enum {
	FEAT_RESERVED = 0, FEAT_TRACING_DATA, FEAT_BUILD_ID, FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_VERSION,
	FEAT_ARCH, FEAT_NRCPUS, FEAT_CPUDESC, FEAT_CPUID, FEAT_TOTAL_MEM, FEAT_CMDLINE, FEAT_EVENT_DESC,
	FEAT_CPU_TOPOLOGY, FEAT_NUMA_TOPOLOGY, FEAT_BRANCH_STACK, FEAT_PMU_MAPPINGS, FEAT_GROUP_DESC,
	FEAT_AUXTRACE, FEAT_STAT, FEAT_CACHE, FEAT_SAMPLE_TIME, FEAT_MEM_TOPOLOGY, FEAT_CLOCKID,
	FEAT_DIR_FORMAT, FEAT_BPF_PROG_INFO, FEAT_BPF_BTF, FEAT_COMPRESSED, FEAT_CPU_PMU_CAPS,
	FEAT_CLOCK_DATA, FEAT_HYBRID_TOPOLOGY, FEAT_PMU_CAPS, FEAT_COUNT
};

#endif
