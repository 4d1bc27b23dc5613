/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sampler_int: the sampler's state, shared by its two files alone: sampler.c opens the events,
 * rings and counters for a target and tears them down; sampler_thread.c is the thread that reads
 * the rings, merges them in time order and pushes to the queue. Nothing outside sampler/ includes
 * it. Which fields belong to which thread is said beside them.
 */
#ifndef PERFTOP_SAMPLER_INT_H
#define PERFTOP_SAMPLER_INT_H

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/perf_event.h>

#include "record/parse.h"
#include "sampler/command.h"
#include "sampler/counters.h"
#include "sampler/offcpu.h"
#include "sampler/ring.h"
#include "sampler/sampler.h"
#include "sampler/synth.h"

#define SAMPLER_DEFAULT_FREQ 999
/*
 * Buffer sizes follow what will flow through them, not a fixed size per CPU (on a 256-CPU machine
 * perf's 512 KiB per ring is 128 MiB of rings whatever the rate): each CPU's ring holds
 * SAMPLER_RING_SECS of samples at the sampling rate, the queue SAMPLER_QUEUE_SECS of all of them as
 * parsed records, plus room for the side-band records of a churn of processes (MMAP2, COMM, FORK,
 * EXIT: ~30 KiB/s per CPU under a steady churn of short processes). The ring is drained every
 * 40 ms pass, or woken at half full, and the queue every 20-50 ms tick, a pass's burst arriving
 * just after one: both hold several times that, for a machine whose threads wait for a CPU. A sample is estimated at SAMPLER_SAMPLE_BYTES
 * plus 8 bytes per frame of a SAMPLER_EST_FRAMES-deep chain (a busy -a -g session averages ~110 bytes
 * here), and with --call-graph dwarf or fp+cfi its registers and stack copy (at most: the kernel
 * copies what the thread uses). The queue is a ring the producer walks whole, so all of it is resident; it is
 * sized for what one consumer thread can take (SAMPLER_CONSUMER_RATE: on a machine of hundreds of
 * CPUs the samples come faster than one thread symbolizes them, and a bigger queue would only hold
 * a longer backlog), and records past it are counted as dropped.
 */
#define SAMPLER_RING_SECS 0.2
#define SAMPLER_QUEUE_SECS 0.25
#define SAMPLER_CONSUMER_RATE 500000.0       /* records/s, frame-pointer or no call graphs */
#define SAMPLER_CONSUMER_RATE_DWARF 100000.0 /* records/s with user stacks to unwind */
#define SAMPLER_SIDEBAND_BYTES (32u << 10)
#define SAMPLER_SAMPLE_BYTES 64u
#define SAMPLER_EST_FRAMES 32u
#define SAMPLER_RING_MIN_PAGES 8u
#define SAMPLER_RING_MAX_PAGES 4096u
/* All rings together: past this, more ring would hold samples the sampler thread cannot copy out in
 * time anyway (hundreds of CPUs with user stacks at a high rate). */
#define SAMPLER_RINGS_MAX_BYTES (256.0 * 1024 * 1024)
#define SAMPLER_QUEUE_MIN (256u << 10)
#define SAMPLER_QUEUE_MAX (64u << 20)
/* The rate assumed for an event sampled by period whose rate cannot be told from it (cpu-clock
 * and task-clock count nanoseconds; page-faults -c 1000 could be anything). */
#define SAMPLER_ASSUMED_RATE 4000u
/* The switch rate a CPU's ring is sized for in the off-CPU modes: a busy server switches some
 * tens of thousands of times a second per CPU (perf bench sched pipe: 50-100k on one), and every
 * switch brings a sample with its chain and raw fields and two context-switch records. */
#define SAMPLER_SWITCH_RATE 30000u
#define SAMPLER_SWITCH_RECORD_BYTES 112u
/* A pass every 80 ms while records flow: each pass wakes this thread and, when it pushed records,
 * the view's; a wake costs about 50 us of CPU in a VM (a timer and an idle CPU trap to the
 * hypervisor), and under process churn the wakes of passes every 40 ms were a tenth of perftop's
 * CPU (every 15 ms, most of this thread's time). The rings hold 200 ms (SAMPLER_RING_SECS) and
 * wake us at half, so a burst is read before they fill. The first passes of a session keep 40 ms,
 * so the first rows come no later than they did. */
#define SAMPLER_POLL_MS 80
#define SAMPLER_FIRST_POLL_MS 40
#define SAMPLER_FIRST_NS (1000ull * 1000 * 1000)
/* A pass that found nothing doubles the wait before the next, up to this: an idle session (a -p
 * target that sleeps) wakes a few times a second, not 66 (the rings wake us anyway when they fill
 * to half, and a target's exit hangs its events up). */
#define SAMPLER_IDLE_POLL_MS 250
#define SAMPLER_SYNTH_NS (500ull * 1000 * 1000)
/* The live records of a ring's staging arena are moved down when the dead bytes before them are at
 * least this many times theirs: a record is then moved once every few passes, not once a pass. */
#define SAMPLER_ARENA_DEAD 3
/* Staged bytes per ring beyond which we stop waiting for order (only with absurd timestamps). */
#define SAMPLER_STAGE_MAX (32u << 20)
/* A parsed record is at most the struct plus the raw record (header.size is a u16). */
#define SAMPLER_REC_MAX (sizeof(struct rec) + 65536 + 16)

struct staged {
	uint64_t time;
	uint32_t off;
	uint32_t size;
};

struct sampler_ring {
	int cpu;
	int fd;                 /* the fd the ring is mmapped from */
	void *map;
	size_t map_len;
	struct ring ring;
	bool ring_ok;
	/* Parsed records waiting for their turn: bytes, and an index kept sorted by time. Those
	 * before arena_head are all emitted (dead); the live ones are moved down to the start only
	 * once the dead bytes are several times the live ones, not on every pass: each move copies a
	 * whole pass of records (8 KiB stack copies with --call-graph dwarf) once more. */
	unsigned char *arena;
	size_t arena_len, arena_cap, arena_head;
	struct staged *idx;
	size_t nidx, idx_cap, idx_pos;
};

struct sampler_fd {
	int fd;
	int ring;
	int ev;                 /* index into sampler.ev */
	bool hup;
	uint64_t id;            /* its sample id (PERF_EVENT_IOC_ID; read when needed), or 0 */
};

/* One event of the session as opened. */
struct sampler_ev {
	struct perf_event_attr attr;
	struct parse_cfg cfg;
	char name[128];
	char *filter;           /* its tracepoint filter, or NULL */
	uint64_t own_period;    /* its own fixed period (every hit), or 0 */
	int leader;             /* its group's leader (an index below its own), or -1 */
	_Atomic uint64_t samples;
};

/* Sample id -> event index, open addressing (several events only). */
struct sampler_idmap {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap;             /* a power of two, at least twice the ids */
};

struct sampler {
	enum sampler_target target;
	int *ids;
	int nids;
	int *cpus;
	int ncpus;
	bool callchain;
	bool synthesize;
	unsigned mmap_pages;
	bool rings_shrunk;        /* map_ring took smaller rings (the locked-memory limit) */
	long page_size;

	struct sampler_ev ev[SAMPLER_MAX_EVENTS];
	int nev;
	struct sampler_idmap idmap;
	bool fell_back;
	int paranoid;
	bool has_cgroup;          /* the events carry PERF_SAMPLE_CGROUP (opts.sample_cgroup) */
	/* -G: the cgroups' directories, open while the events are opened (sampler_open closes
	 * them), and their number; 0: no -G. */
	int cgroup_fds[SAMPLER_MAX_CGROUPS];
	int ncgroups;
	/* The cgroups that existed at the start, as records for the thread to emit first (synth.h);
	 * NULL without opts.sample_cgroup or when no hierarchy is mounted. */
	struct synth_cgroups *synth_cgroups;

	struct sampler_ring *rings;
	int nrings;
	struct sampler_fd *fds;
	size_t nfds, fds_cap;
	struct pollfd *pfds;
	struct queue *q;
	int wake_fd;            /* eventfd: the thread pushed records (or is done); -1 when none */
	/* Set by the thread when it writes wake_fd, cleared by the consumer's sampler_wake_clear: a
	 * write the consumer has not taken yet needs no second one, so the thread's passes (every
	 * SAMPLER_POLL_MS while records flow) cost a system call only once per consumer turn. */
	atomic_bool wake_pending;
	uint64_t pushed;        /* records pushed this pass (the thread's) */

	struct command cmd;     /* TARGET_COMMAND: the command, held until sampler_start */
	char *cmd_name;

	/* The counting groups next to the rings: read by the main thread only (sampler_read_counters),
	 * never by ours. */
	struct counters *counters;

	const struct sampler_tee_ops *tee;  /* -o: the tee's state (pw) is the thread's while it runs */
	void *pw;
	_Atomic uint64_t st_rec_bytes, st_rec_write_ns;
	atomic_int st_rec_err;

	pthread_t thread;
	bool thread_started;
	bool stopped;
	atomic_bool stop;
	uint64_t last_time;

	/* Off-CPU pairing (opts.offcpu): the thread's; its stats copied under offcpu_lock at the end
	 * of each pass for sampler_get_stats. */
	struct offcpu *offcpu;
	struct offcpu_opts offcpu_opts;
	pthread_mutex_t offcpu_lock;
	struct offcpu_stats offcpu_stats;

	_Atomic uint64_t st_samples, st_records, st_lost, st_overruns, st_throttled, st_bad,
		st_out_of_order;
	atomic_bool st_exited, st_synth_truncated;
	atomic_int st_exit_status;
};

/* err, when given, takes the message. */
static inline void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static inline void stat_add(_Atomic uint64_t *c, uint64_t n)
{
	atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}


#endif
