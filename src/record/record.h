/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record: the plain, self-contained form of one perf record after parsing.
 *
 * A struct rec is flat: a fixed header, a per-type union, and trailing variable data (a sample's
 * callchain, an mmap's file name) addressed by byte offsets from the start of the record, so that a
 * record can be copied byte-for-byte through the sampler->rest queue or out of a perf.data file and
 * read on the other side without pointer fix-ups. size is always a multiple of 8.
 *
 * This header is the contract between the layers: the sampler and the perf.data reader write records,
 * the symbolizer and the session read them (parse.h makes them from perf's bytes); nothing
 * here depends on how the record was obtained (live ring, synthesized from /proc, or a file).
 */
#ifndef PERFTOP_RECORD_H
#define PERFTOP_RECORD_H

#include <stdbool.h>
#include <stdint.h>

enum rec_type {
	REC_SAMPLE = 1,
	REC_MMAP,         /* PERF_RECORD_MMAP and MMAP2 */
	REC_COMM,
	REC_FORK,
	REC_EXIT,
	REC_LOST,
	REC_LOST_SAMPLES,
	REC_THROTTLE,
	REC_UNTHROTTLE,
	REC_OTHER,        /* a record type we know to skip: only the header fields are filled */
	REC_SWITCH,       /* PERF_RECORD_SWITCH and SWITCH_CPU_WIDE (attr.context_switch) */
	REC_CGROUP,       /* PERF_RECORD_CGROUP: a cgroup's id and path (attr.cgroup, perf's synthesis) */
};

#define REC_NO_CPU UINT32_MAX
#define REC_BUILD_ID_MAX 20
#define REC_COMM_MAX 32

struct rec_sample {
	uint64_t ip;
	uint64_t period;        /* 1 when the attr does not sample PERIOD */
	uint64_t addr;
	/* Raw kernel callchain, PERF_CONTEXT_* markers included; 0/0 when absent. With an LBR call
	 * stack (lbr_chain) its user part is the branch stack's (parse.h). */
	uint32_t callchain_off;
	uint32_t callchain_nr;
	/* User registers and stack (--call-graph dwarf, fp+cfi); 0 when absent. */
	uint64_t regs_user_abi;
	uint64_t regs_user_mask;
	uint32_t regs_user_off;
	uint32_t regs_user_nr;
	uint32_t stack_user_off;
	uint32_t stack_user_size;  /* bytes kept: those the kernel filled (dyn_size), at most its size */
	uint64_t stack_user_dyn_size;
	/* PERF_SAMPLE_RAW: a tracepoint's fields as the kernel wrote them; 0/0 when absent. */
	uint32_t raw_off;
	uint32_t raw_size;
	/* Off-CPU time (sampler/offcpu.h): a sample made of a block, its period the nanoseconds of
	 * this piece of the block. block_ns 0: an ordinary sample. */
	uint64_t block_ns;      /* the block's length from its switch-out to the end of this piece */
	uint8_t block_state;    /* enum offcpu_state: how the thread left the CPU */
	uint8_t block_begins;   /* the block's first piece: it counts once in the blocks */
	uint8_t lbr_chain;      /* the chain's user part came from the LBR call stack */
	uint8_t block_reserved[5];
	/* PERF_SAMPLE_CGROUP: the id of the cgroup the task ran in (of the hierarchy the perf_event
	 * controller is on); 0 when the sample does not carry one. */
	uint64_t cgroup;
};

struct rec_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	uint8_t has_build_id;   /* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
	uint8_t build_id_size;
	uint8_t build_id[REC_BUILD_ID_MAX];
	uint8_t is_mmap2;
	uint8_t executable;     /* not PERF_RECORD_MISC_MMAP_DATA */
	uint8_t ksymbol;        /* a PERF_RECORD_KSYMBOL: the "file name" is the symbol's name */
	uint32_t filename_off;  /* NUL-terminated path */
};

struct rec_comm {
	uint32_t pid, tid;
	uint8_t exec;           /* PERF_RECORD_MISC_COMM_EXEC */
	char comm[REC_COMM_MAX];
};

struct rec_task {           /* FORK and EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct rec_lost {           /* LOST (id, lost) and LOST_SAMPLES (lost) */
	uint64_t id;
	uint64_t lost;
};

struct rec_throttle {
	uint64_t time, id, stream_id;
};

struct rec_switch {         /* rec.pid/tid: the task that switched (in, or out when out is set) */
	uint32_t next_prev_pid, next_prev_tid; /* SWITCH_CPU_WIDE: the task on the other side */
	uint8_t out;            /* PERF_RECORD_MISC_SWITCH_OUT */
	uint8_t preempt;        /* PERF_RECORD_MISC_SWITCH_OUT_PREEMPT: still runnable */
	uint8_t cpu_wide;
	uint8_t reserved[5];
};

struct rec_cgroup {         /* the path follows, NUL-terminated, as the kernel gives it ("/a/b") */
	uint64_t id;
	uint32_t path_off;
	uint32_t reserved;
};

struct rec {
	uint32_t size;          /* bytes of this record with its trailing data; multiple of 8 */
	uint16_t type;          /* enum rec_type */
	uint16_t misc;          /* perf_event_header.misc (cpumode bits, MMAP_DATA, COMM_EXEC...) */
	uint32_t perf_type;     /* PERF_RECORD_* as read */
	uint32_t evidx;         /* which event of the session (parse_cfg.evidx) */
	uint64_t time;          /* sample TIME / sample_id time; 0 when none (synthesized records) */
	uint32_t pid, tid;      /* sample TID or sample_id; for side-band records their own pid/tid */
	uint32_t cpu;           /* REC_NO_CPU when unknown */
	uint32_t reserved;
	uint64_t id;            /* sample ID/IDENTIFIER; 0 when absent */
	union {
		struct rec_sample sample;
		struct rec_mmap mmap;
		struct rec_comm comm;
		struct rec_task task;
		struct rec_lost lost;
		struct rec_throttle throttle;
		struct rec_switch sw;
		struct rec_cgroup cgroup;
	} u;
	/* trailing data follows */
};

static inline const void *rec_at(const struct rec *r, uint32_t off)
{
	return (const char *)r + off;
}

static inline const uint64_t *rec_callchain(const struct rec *r)
{
	return (const uint64_t *)rec_at(r, r->u.sample.callchain_off);
}

static inline const void *rec_raw(const struct rec *r)
{
	return rec_at(r, r->u.sample.raw_off);
}

static inline const char *rec_filename(const struct rec *r)
{
	return (const char *)rec_at(r, r->u.mmap.filename_off);
}

static inline const char *rec_cgroup_path(const struct rec *r)
{
	return (const char *)rec_at(r, r->u.cgroup.path_off);
}

/* perf_event_header.misc cpumode of a sample (PERF_RECORD_MISC_KERNEL, _USER, ...). */
static inline unsigned rec_cpumode(const struct rec *r)
{
	return r->misc & 7u;
}

#endif
