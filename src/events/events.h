/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * events: perf's event language (-e) to the sampler's event descriptions (sampler.h: struct
 * sampler_event). A function of the text and of the machine's sysfs and tracefs (whose roots a
 * context is given, so that tests use fake trees): nothing is opened here but to ask the kernel
 * what the hardware can do (the :P modifier, --list-events); the sampler opens what it is given.
 *
 * The forms, as perf writes them (docs/events.md):
 *   cycles, cpu-clock, page-faults...   the generic hardware and software names
 *   L1-dcache-load-misses, LLC-loads... hardware cache events (PERF_TYPE_HW_CACHE)
 *   EVENT:ukhGHIpppPD                   modifiers, as perf reads them
 *   rNNNN                               a raw hardware event
 *   pmu/term=value,.../, pmu/name/      a PMU's events from sysfs (format/ and events/)
 *   name                                a PMU event by its sysfs name alone (msr's tsc)
 *   subsys:name                         a tracepoint (its id from tracefs)
 *   uprobe:PATH:FUNC[+OFF]              through the uprobe PMU; uretprobe:PATH:FUNC
 *   kprobe:FUNC[+OFF], kretprobe:FUNC   through the kprobe PMU
 *   mem:ADDR[/LEN][:rwx], mem:SYMBOL    hardware breakpoints; SYMBOL a global of the target
 *   {a,b}[:mods]                        a group
 * separated by commas, and -e given several times. Tracepoints, probes and breakpoints count hits:
 * they come with sample_period 1 (a sample at every hit) unless -F or -c say otherwise.
 *
 * Errors are one line naming the event and why: an unknown name (with the nearest known ones), a
 * form this machine cannot have (no hardware PMU in sysfs, no kprobe PMU, no such tracepoint, PMU,
 * term or function, a probe without CAP_SYS_ADMIN). What only opening can tell is the sampler's.
 */
#ifndef PERFTOP_EVENTS_H
#define PERFTOP_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "sampler/sampler.h"

/* Where a context looks, and what it may do. Zeroed: this machine. */
struct events_env {
	const char *sysfs;     /* the PMUs: /sys/bus/event_source/devices */
	const char *tracefs;   /* a tracefs root; NULL: /sys/kernel/tracing, else
				  /sys/kernel/debug/tracing, mounting tracefs when neither is (root) */
	bool no_mount;         /* never mount tracefs (say what to run instead) */
	/* The highest precise_ip (0-3) the hardware takes for a (:P); NULL: ask the kernel. */
	int (*max_precise)(const struct perf_event_attr *a);
	/* Whether we hold a capability (CAP_SYS_ADMIN, CAP_PERFMON); NULL: ask the kernel. */
	bool (*capable)(int cap);
};

struct events_ctx;

/* A parsing context: the roots, what was learnt of them, and the strings the attrs point to
 * (uprobe paths, kprobe functions: config1 is a pointer), which live until events_ctx_free. env
 * NULL: this machine. */
struct events_ctx *events_ctx_new(const struct events_env *env);
void events_ctx_free(struct events_ctx *c);

/* Parses text into out (room for max events, max <= SAMPLER_MAX_EVENTS), after the n already
 * there. Returns the new count, or -1 with a one-line message naming the event in err. The
 * members of a group {a,b} have leader = the index of its first event (the leader's own index
 * included); other events -1. */
int events_parse(struct events_ctx *c, const char *text, struct sampler_event *out, int n, int max,
		 char *err, size_t errlen);

/* --filter EXPR: the kernel filter of the last event parsed (out[n - 1]), which must be a
 * tracepoint or a probe. EXPR is kept by pointer. 0, or -1 with a message. */
int events_set_filter(struct events_ctx *c, struct sampler_event *out, int n, const char *expr,
		      char *err, size_t errlen);

/* The program the breakpoints on symbols (mem:SYMBOL) are in: a process (-p), or a command's
 * executable (looked up in PATH). */
struct events_target {
	pid_t pid;             /* 0: none */
	const char *command;   /* NULL: none */
	const char *proc;      /* /proc; NULL: /proc */
};

/* Gives the mem:SYMBOL events among out[0..n) their addresses in the target. 0, or -1 with a
 * message (no target, no such global, a position-independent command not started yet). */
int events_resolve(struct events_ctx *c, struct sampler_event *out, int n,
		   const struct events_target *t, char *err, size_t errlen);

/* -F was given: the events of out[0..n) that sample every hit by default (tracepoints, probes,
 * breakpoints) sample at the frequency instead. A period= term stays. */
void events_use_freq(struct events_ctx *c, struct sampler_event *out, int n);

/* The tracefs root (mounted when absent, as for a tracepoint), or NULL with the one-line reason in
 * err. */
const char *events_tracefs(struct events_ctx *c, char *err, size_t errlen);

/* --list-events: every event this machine offers, grouped like perf list, each marked usable or
 * not here and why. 0, or -1 when out failed. */
int events_list(struct events_ctx *c, FILE *out);

#endif
