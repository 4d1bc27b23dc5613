/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * events_int: what the parts of src/events share and nobody else sees: the parsing context (the
 * roots, what was learnt of them, the strings attrs point to, and what is known of each event
 * parsed), and each part's entry points (names.c: cache names and suggestions; pmu.c: sysfs
 * PMUs; tracefs.c: tracepoints; probes.c: probes and breakpoints; list.c: --list-events).
 */
#ifndef PERFTOP_EVENTS_INT_H
#define PERFTOP_EVENTS_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events/events.h"

#ifndef CAP_SYS_ADMIN
#define CAP_SYS_ADMIN 21
#endif
#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

enum ev_kind { EV_GENERIC, EV_CACHE, EV_RAW, EV_PMU, EV_TRACEPOINT, EV_UPROBE, EV_KPROBE,
	       EV_BREAKPOINT };

/* What the context knows of the event at an index of the caller's array. */
struct ev_meta {
	enum ev_kind kind;
	bool hit_default;        /* sample_period 1 because the form counts hits */
	bool exclude_gh;         /* a G or H modifier chose guest/host already */
	char symbol[128];        /* mem:SYMBOL waiting for events_resolve; "" otherwise */
};

#define EVENTS_MAX_STRINGS (2 * SAMPLER_MAX_EVENTS)

struct events_ctx {
	struct events_env env;
	char sysfs[PATH_MAX];
	char tracefs[PATH_MAX];  /* the tracefs root once found (or mounted) */
	int tracefs_state;       /* 0: not looked yet; 1: found; -1: none (why in tracefs_err) */
	char tracefs_err[320];
	int core_pmu;            /* -1: not looked yet; 0/1: a core (hardware) PMU in sysfs */
	char *strings[EVENTS_MAX_STRINGS]; /* what config1 of probes points to */
	int nstrings;
	struct ev_meta meta[SAMPLER_MAX_EVENTS];
};

void ev_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A copy of s[0..len) the context keeps until it is freed; NULL when it holds too many. */
char *ev_keep(struct events_ctx *c, const char *s, size_t len);
bool ev_capable(struct events_ctx *c, int cap);
/* A number as perf writes them: 0x hex or decimal. */
int ev_number(const char *s, uint64_t *out);

/* names.c */
/* PERF_TYPE_HW_CACHE's config for a cache event name (cache-op-result, perf's names and
 * aliases, any case), or -1. */
int cache_decode(const char *name, uint64_t *config);
/* The i-th canonical cache event name ("L1-dcache-load-misses") into buf; false past the end. */
bool cache_name(size_t i, char *buf, size_t len, uint64_t *config);
/* The nearest names to a wanted one: fed candidates, keeps the few closest within reach. */
#define SUGGEST_MAX 3
struct suggest {
	const char *want;
	char names[SUGGEST_MAX][128];
	int dist[SUGGEST_MAX];
	int n;
};
void suggest_init(struct suggest *s, const char *want);
void suggest_add(struct suggest *s, const char *candidate);
/* "; did you mean a, b or c?" or "", into buf. */
void suggest_text(const struct suggest *s, char *buf, size_t len);
/* The generic, cache and PMU names as candidates. */
void suggest_known(struct events_ctx *c, struct suggest *s);

/* pmu.c */
bool pmu_have_core(struct events_ctx *c);
/* The type of a sysfs PMU; -1 when there is no such PMU (or no type file). */
int pmu_type(struct events_ctx *c, const char *pmu, uint32_t *type);
/* Fills attr from "pmu" and its terms (the text between the slashes); name may be renamed by a
 * name= term. 0, or -1 with a message. */
int pmu_event(struct events_ctx *c, const char *pmu, const char *terms, struct sampler_event *ev,
	      char *err, size_t errlen);
/* Sets a format term of pmu (format/TERM) in attr to value. 0, -ENOENT (no such format), or
 * -1 with a message. */
int pmu_set_format(struct events_ctx *c, const char *pmu, const char *term, uint64_t value,
		   struct perf_event_attr *attr, char *err, size_t errlen);
/* The PMU that has events/NAME into pmu; how many PMUs have it. */
int pmu_find_alias(struct events_ctx *c, const char *name, char *pmu, size_t len);
/* Calls fn for every PMU (name, type) and, with aliases, for each of its events/ names. */
void pmu_each(struct events_ctx *c, bool aliases,
	      void (*fn)(void *arg, const char *pmu, const char *alias), void *arg);
/* The term names of a PMU's format/ directory, comma-separated, into buf. */
void pmu_formats(struct events_ctx *c, const char *pmu, char *buf, size_t len);

/* tracefs.c */
/* The tracefs root (found, or mounted when allowed); NULL with a message saying what to run. */
const char *tracefs_root(struct events_ctx *c, char *err, size_t errlen);
/* The id of subsys:name. 0, or -1 with a message (suggesting the nearest tracepoints). */
int tracepoint_id(struct events_ctx *c, const char *text, const char *sys, const char *name,
		  uint64_t *id, char *err, size_t errlen);
/* Calls fn with every "subsys:name" of tracefs; how many. */
long tracefs_each(struct events_ctx *c, void (*fn)(void *arg, const char *sys, const char *name),
		  void *arg);

/* probes.c */
int probe_uprobe(struct events_ctx *c, const char *text, const char *spec, bool ret,
		 struct sampler_event *ev, char *err, size_t errlen);
int probe_kprobe(struct events_ctx *c, const char *text, const char *spec, bool ret,
		 struct sampler_event *ev, char *err, size_t errlen);
/* mem:SPEC; a symbol is left in meta->symbol for events_resolve. */
int probe_breakpoint(struct events_ctx *c, const char *text, const char *spec,
		     struct sampler_event *ev, struct ev_meta *meta, char *err, size_t errlen);
int probe_resolve_symbol(struct events_ctx *c, struct sampler_event *ev, const char *symbol,
			 const struct events_target *t, char *err, size_t errlen);

#endif
