/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sampler: the live source of records. Opens the perf events for a target, runs a dedicated thread
 * that polls the per-CPU rings, parses each record, merges the rings in timestamp order and hands the
 * records to the rest through a bounded SPSC queue (queue.h) without ever blocking.
 *
 * Ordering: every record carries a time (sample_id_all + TIME, CLOCK_MONOTONIC). Each pass over the
 * rings stages parsed records per ring; at the end of a pass, records older than the start time of the
 * previous pass are emitted in time order (anything older than that had been written by the time we
 * started this pass), so a mapping is always delivered before the samples that fall in it.
 * Synthesized records (existing processes, from /proc) are emitted first, with time 0.
 *
 * Recording (opts.tee): the thread also hands every ring record it parsed, raw, and every record it
 * synthesized, to a tee, which ends each pass (-o: perfdata/perfdata_write.h writes them as a
 * perf.data file, one write(2) per pass with a FINISHED_ROUND after it); the sampler knows nothing
 * of the file's format. A tee's error stops the recording only (sampler_stats.record_error);
 * sampler_stop closes the tee.
 */
#ifndef PERFTOP_SAMPLER_H
#define PERFTOP_SAMPLER_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sampler/command.h"
#include "sampler/counters.h"
#include "sampler/offcpu.h"
#include "sampler/queue.h"
#include "record/record.h"

enum sampler_target {
	TARGET_SYSTEM,   /* -a, or no target and no command */
	TARGET_CPUS,     /* -C LIST */
	TARGET_PIDS,     /* -p PID[,PID]: all threads, and threads/children created later (inherit) */
	TARGET_TIDS,     /* -t TID[,TID]: just those threads */
	TARGET_COMMAND,  /* -- COMMAND ARGS: started by us, enabled on exec, children included */
};

/* One event of a recording as it was opened: its attr, the ids of its fds (PERF_EVENT_IOC_ID) and
 * its name. */
struct sampler_tee_event {
	const struct perf_event_attr *attr;
	const uint64_t *ids;
	size_t nids;
	const char *name;
};

/*
 * Where the thread tees what it reads. open runs in sampler_open (on the caller's thread) with the
 * events as opened (the first one carries the side-band records); add_raw (a ring record as read), add_rec (a synthesized one), note (every
 * record emitted, in time order) and end_pass (0 or -errno: the tee stops itself on error) run on
 * the sampler thread; bytes and write_ns are read there too; close runs after the thread is done
 * (0, or -errno with a message in msg).
 */
struct sampler_tee_ops {
	void *(*open)(void *arg, const struct sampler_tee_event *ev, size_t nev, char *err,
		      size_t errlen);
	void (*add_raw)(void *tee, const void *raw, size_t len);
	void (*add_rec)(void *tee, const struct rec *r);
	void (*note)(void *tee, const struct rec *r);
	int (*end_pass)(void *tee, bool round, bool sync);
	uint64_t (*bytes)(const void *tee);
	uint64_t (*write_ns)(const void *tee);
	int (*close)(void *tee, char *msg, size_t len);
};

/*
 * One event of the session as the command line described it (perf's -e language, parsed outside the
 * sampler): what to count, in attr's type, config, config1, config2, bp_type/bp_addr/bp_len and its
 * modifiers (exclude_user, exclude_kernel, exclude_hv, exclude_host, exclude_guest, precise_ip,
 * pinned), and, when the event fixes its own rate (a tracepoint or a probe sampled at every hit),
 * sample_period with freq 0. How to sample (sample_type, -F or -c, call chains, the side-band
 * records) the sampler adds, the same for every event. leader: the index of its group's leader
 * ({a,b}: opened together, scheduled together), or -1 (the leader itself: -1 or its own index;
 * a leader comes before its members).
 *
 * Several events: each is opened on every CPU and task of the target, into the same per-CPU ring;
 * the first one also carries the side-band records (mmap, comm, task), as perf's tracking event
 * does, and every record says which event it is of (rec.evidx, this array's index), told apart by
 * the sample id (PERF_SAMPLE_IDENTIFIER). -c applies to every event; an event without its own
 * period samples at -F.
 */
#define SAMPLER_MAX_EVENTS 16
struct sampler_event {
	struct perf_event_attr attr;
	char name[128];
	const char *filter;    /* a tracepoint's kernel filter (PERF_EVENT_IOC_SET_FILTER), or NULL */
	int leader;
	/* A breakpoint or a probe: that it opened says nothing of whether it will ever fire (in a VM
	 * breakpoints open and never do): the view says so when a few refreshes had no sample of it. */
	bool may_never_fire;
};

struct sampler_opts {
	enum sampler_target target;
	const int *ids;        /* pids (-p) or tids (-t) */
	int nids;
	const int *cpus;       /* -C; with -p/-t/command too: restrict to these CPUs */
	int ncpus;
	char *const *argv;     /* TARGET_COMMAND */
	const struct sampler_user *run_as; /* TARGET_COMMAND: -u USER; NULL: as perftop runs */
	/* The events (-e), nevents of them; none: event, a generic name (NULL = cycles if the machine
	 * has a PMU, else cpu-clock). */
	const struct sampler_event *events;
	int nevents;
	const char *event;
	uint64_t freq;         /* -F HZ; used when period == 0 */
	uint64_t period;       /* -c PERIOD */
	bool callchain;        /* kernel frame-pointer callchain (default on) */
	/* --call-graph dwarf: bytes of user stack copied with each sample (multiple of 8, at most
	 * SAMPLER_DWARF_STACK_MAX), with the user registers; the callchain then holds only the kernel
	 * part. 0: frame pointers (or none, per callchain). */
	unsigned dwarf_stack;
	/* --call-graph fp+cfi (the default): with the frame-pointer callchain, the user registers
	 * SAMPLER_HEAD_REGS and this many bytes of the top of the user stack, from which the
	 * symbolizer computes the frames the kernel's walk skips. 0: frame pointers alone. */
	unsigned head_stack;
	/* --call-graph lbr: the user chain from the LBR call stack (Intel's last branch records),
	 * the callchain's kernel part before it (parse.h). */
	bool lbr;
	unsigned mmap_pages;   /* data pages per CPU ring, power of two; 0 = default */
	size_t queue_bytes;    /* 0 = default */
	bool synthesize;       /* describe existing processes from /proc (default on) */
	/* --buildid-mmap: MMAP2 records with build-ids (attr.build_id). Off by default, as in perf:
	 * while one event on the machine asks for them, kernels (up to at least 6.18) mark every other
	 * event's MMAP2 records as build-id ones over inode payloads, which perf report 6.1 aborts on
	 * (util/build-id.c:1010). Binaries are then told apart by device and inode, and their build-ids
	 * read from the files. */
	bool buildid_mmap;
	/* -o FILE: a tee of everything the thread reads (below), opened with tee_arg once every event
	 * is open; NULL: none. A tee's records are read apart from the session (perf report), so the
	 * events then carry PERF_SAMPLE_IDENTIFIER, and with --call-graph dwarf the data mappings. */
	const struct sampler_tee_ops *tee;
	void *tee_arg;
	/* --off-cpu / --wall: the event offcpu->switch_evidx is sched:sched_switch; it is sampled with
	 * its raw fields and, where its switch-ins need them (a per-task session, or a format without
	 * next_pid), context-switch records; the thread pairs switch-outs with switch-ins
	 * (sampler/offcpu.h) before the queue, so only blocks reach the rest, and at the end of each
	 * pass a block still open is handed on up to the pass's time. NULL: none. */
	const struct offcpu_opts *offcpu;
	/* Every sampled event carries PERF_SAMPLE_CGROUP (the id of the task's cgroup on the
	 * perf_event hierarchy) and the side-band event attr.cgroup (PERF_RECORD_CGROUP for the
	 * cgroups made meanwhile); the cgroups that exist at the start are synthesized as
	 * PERF_RECORD_CGROUP records (time 0, at most SAMPLER_MAX_SYNTH_CGROUPS), for the queue and
	 * the tee alike. A kernel that refuses them (before 5.7): the events open without, and
	 * sampler_has_cgroup says false. */
	bool sample_cgroup;
	/* -G PATH[,PATH...]: only the tasks of these cgroups (and their descendants), paths relative
	 * to the perf_event hierarchy's mount or absolute under it: each event is opened per CPU per
	 * cgroup (PERF_FLAG_PID_CGROUP), into that CPU's ring. System-wide targets only (-a, -C): the
	 * kernel's cgroup events are per CPU. At most SAMPLER_MAX_CGROUPS. */
	const char *const *cgroups;
	int ncgroups;
};

#define SAMPLER_MAX_CGROUPS 64
#define SAMPLER_MAX_SYNTH_CGROUPS 4096

#define SAMPLER_DWARF_STACK_DEFAULT 8192
#define SAMPLER_DWARF_STACK_MAX 65528
/* The registers DWARF unwinding of x86-64 user stacks may need: all the general ones (perf's
 * numbering: AX..R15 without the segment registers DS, ES, FS, GS). */
#define SAMPLER_DWARF_REGS 0xff0fffull
/* BP and SP (perf's x86 register numbers 6 and 7): with the IP, which the callchain's user part
 * starts with, all that a frame's CFA and return address need where frame pointers are missing.
 * Not the IP itself: perf report reads a recording whose samples have user registers and stack as
 * one to unwind, and appends what it unwinds to the chain, which begins with the IP register; with
 * none it unwinds nothing, and the file reads as the frame-pointer one it is. */
#define SAMPLER_HEAD_REGS 0x1c0ull
#define SAMPLER_HEAD_STACK_DEFAULT 256

struct sampler_stats {
	uint64_t samples;       /* samples handed to the queue */
	uint64_t records;       /* all records handed to the queue */
	uint64_t lost;          /* kernel LOST records' counts + LOST_SAMPLES */
	uint64_t dropped;       /* records the queue had no room for */
	uint64_t overruns;      /* ring overruns (data overwritten before we read it) */
	uint64_t throttled;     /* THROTTLE records */
	bool target_exited;     /* the command / all -p processes are gone and the rings are drained */
	int exit_status;        /* the command's wait status when it exited */
	bool synth_truncated;   /* /proc synthesis hit its deadline */
	uint64_t bad_records;   /* ring records with an impossible size, or that failed to parse */
	uint64_t out_of_order;  /* records emitted with a time older than one already emitted */
	bool recording;         /* a tee was given and opened */
	int record_error;       /* 0, or the -errno that stopped the recording (the session goes on) */
	uint64_t record_bytes;  /* data bytes written to the recording */
	uint64_t record_write_ns; /* time the sampler thread spent in write(2) for it */
	int nevents;
	uint64_t event_samples[SAMPLER_MAX_EVENTS]; /* samples handed to the queue, per event */
	bool offcpu;            /* the pairing runs (opts.offcpu): its counts below */
	struct offcpu_stats offcpu_stats;
};

struct sampler;

/* The ring pages per CPU and the queue bytes a session with these options on ncpus CPUs gets
 * when opts leave them 0: they follow the sampling rate (of all the events together) and the size
 * of a sample (sampler.c says how), so memory grows with the work, not with the CPU count alone. */
struct sampler_sizes {
	unsigned ring_pages;
	size_t queue_bytes;
};
void sampler_sizes(const struct sampler_opts *o, int ncpus, long page_size, struct sampler_sizes *out);

/*
 * Opens the events for the target (and for a command, forks it, held before exec). On failure returns
 * NULL and writes a one-line message naming the cause and what to do into err (e.g. "no such process:
 * 4242", "permission denied for -a: kernel.perf_event_paranoid is 2, needs root or -1 ...",
 * "event 'cycles' is not supported on this machine (no hardware PMU); try -e cpu-clock",
 * "cannot run 'foo': No such file or directory").
 *
 * Defaults for a zeroed opts: event as above, freq 999 (clamped to
 * kernel.perf_event_max_sample_rate with a warn_msg), rings and queue sized by sampler_sizes.
 * opts.callchain and opts.synthesize are taken as given (the CLI sets them on by default).
 * Nothing of opts is referenced after sampler_open returns.
 */
struct sampler *sampler_open(const struct sampler_opts *o, char *err, size_t errlen);

/* Enables the events and starts the thread; for a command, releases it to exec and waits for the
 * exec to succeed or fail. 0, or -errno with a one-line message in err ("cannot run 'foo': No
 * such file or directory"; the command is then already reaped). */
int sampler_start(struct sampler *s, char *err, size_t errlen);

/* Stops the thread (the command, if still running, is sent SIGTERM then reaped) and closes events. */
void sampler_stop(struct sampler *s);
void sampler_free(struct sampler *s);

struct queue *sampler_queue(struct sampler *s);
/* Readable (an eventfd) when the thread has pushed records since the consumer last cleared it,
 * or has stopped for good (the target is gone): the consumer can sleep on it instead of polling
 * the queue. -1 when the kernel gave no eventfd (then poll the queue). sampler_wake_clear resets
 * it; clear before draining, so that what comes during the drain wakes again. */
int sampler_wake_fd(const struct sampler *s);
void sampler_wake_clear(struct sampler *s);
void sampler_get_stats(struct sampler *s, struct sampler_stats *st);

/* The session's events (at least one): event ev's name ("cpu-clock"), its attr as opened, its
 * rate (a frequency, 0 when sampling by period, or the period); and whether the one event is the
 * no-PMU fallback of the default event. */
int sampler_nevents(const struct sampler *s);
const char *sampler_event_name(const struct sampler *s, int ev);
const struct perf_event_attr *sampler_event_attr(const struct sampler *s, int ev);
uint64_t sampler_freq(const struct sampler *s, int ev);
uint64_t sampler_period(const struct sampler *s, int ev);
bool sampler_event_fell_back(const struct sampler *s);
/* Whether the samples carry their cgroup's id (opts.sample_cgroup, and the kernel took it). */
bool sampler_has_cgroup(const struct sampler *s);
pid_t sampler_child_pid(const struct sampler *s);  /* the command's pid, or 0 */
int sampler_nr_cpus(const struct sampler *s);
/* Reads the counting groups opened next to the sampled event (counters.h): cumulative, scaled
 * values. For the main thread; the sampler thread never touches them. 0 or -errno. */
int sampler_read_counters(struct sampler *s, struct counter_values *v);

#endif
