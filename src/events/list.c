/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * list: --list-events, every event this machine offers, grouped like perf list (hardware,
 * software, hardware cache, raw, PMU events of sysfs, tracepoints of tracefs, probes,
 * breakpoints), each with whether it can be used here and, when not, why.
 *
 * "Usable" is asked of the kernel where that is cheap and harmless: one perf_event_open of the
 * event, sampling, on this process (user space only, disabled), closed at once; an event a task cannot have
 * (an uncore PMU's) is tried system-wide on CPU 0. Tracepoints are usable when tracefs gives
 * their id; probes when their PMU exists and we hold the capability the kernel asks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "events/events_int.h"
#include "sampler/event.h"
#include "util/util.h"

#define NAME_W 46
/* An uncore PMU can have thousands of events: past this many opens, the rest are not tried. */
#define MAX_PROBES 4096

struct lister {
	struct events_ctx *c;
	FILE *out;
	int paranoid;
	bool root;
	int probes;
	long count;
};

static int paranoid_level(void)
{
	char buf[32];
	long n = read_small_file("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf));
	return n > 0 ? atoi(buf) : 2;
}

static void row(struct lister *l, const char *name, const char *state)
{
	fprintf(l->out, "  %-*s %s\n", NAME_W - 1, name, state);
	l->count++;
}

/* One open of a (user space only on this process, else all of CPU 0), closed at once: 0 or errno. */
static int open_once(struct perf_event_attr *a, bool system_wide)
{
	a->exclude_kernel = !system_wide;
	a->exclude_hv = !system_wide;
	long fd = syscall(SYS_perf_event_open, a, system_wide ? -1 : 0, system_wide ? 0 : -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close((int)fd);
	return 0;
}

/* Whether attr's event can be sampled here: "yes", or why not. */
static const char *try_open(struct lister *l, const struct perf_event_attr *w, char *buf,
			    size_t len)
{
	if (l->probes++ >= MAX_PROBES)
		return "not tried (too many events to try them all)";
	struct perf_event_attr a = *w;
	a.size = sizeof(a);
	a.disabled = 1;
	a.sample_period = 1000000; /* sampling, as perftop opens it: some PMUs only count */
	int e = open_once(&a, false);
	if (!e)
		return "yes";
	if (!open_once(&a, true))
		return "yes, system-wide only (-a, -C)";
	a.sample_period = 0;
	if (!open_once(&a, false) || !open_once(&a, true))
		return "no: it can be counted, not sampled";
	if (e == EACCES || e == EPERM)
		snprintf(buf, len, "no: permission (perf_event_paranoid is %d; needs root or "
			 "CAP_PERFMON)", l->paranoid);
	else if ((w->type == PERF_TYPE_HARDWARE || w->type == PERF_TYPE_HW_CACHE ||
		  w->type == PERF_TYPE_RAW) && !pmu_have_core(l->c))
		snprintf(buf, len, "no: no hardware PMU");
	else
		snprintf(buf, len, "no: the kernel refuses it (%s)", strerror(e));
	return buf;
}

static void generic(struct lister *l, uint32_t type)
{
	const char *name;
	for (size_t i = 0; (name = event_known_name(i)) != NULL; i++) {
		uint32_t t;
		uint64_t config;
		event_lookup(name, &t, &config);
		if (t != type || event_name(t, config) != name)
			continue; /* aliases are listed with their canonical name */
		char names[128], why[160];
		size_t used = (size_t)snprintf(names, sizeof(names), "%s", name);
		for (size_t j = 0; (name = event_known_name(j)) != NULL; j++) {
			uint32_t t2;
			uint64_t c2;
			event_lookup(name, &t2, &c2);
			if (t2 == t && c2 == config && strcmp(name, names) && used < sizeof(names))
				used += (size_t)snprintf(names + used, sizeof(names) - used, " OR %s",
							 name);
		}
		struct perf_event_attr a = { .type = t, .config = config };
		row(l, names, try_open(l, &a, why, sizeof(why)));
	}
}

static void caches(struct lister *l)
{
	char name[64], why[160];
	uint64_t config;
	for (size_t i = 0; cache_name(i, name, sizeof(name), &config); i++) {
		struct perf_event_attr a = { .type = PERF_TYPE_HW_CACHE, .config = config };
		row(l, name, try_open(l, &a, why, sizeof(why)));
	}
}

/* The PMUs that have forms of their own in this list. */
static bool listed_elsewhere(const char *pmu)
{
	return !strcmp(pmu, "software") || !strcmp(pmu, "tracepoint") ||
	       !strcmp(pmu, "breakpoint") || !strcmp(pmu, "uprobe") || !strcmp(pmu, "kprobe");
}

static void pmu_row(void *arg, const char *pmu, const char *alias)
{
	struct lister *l = arg;
	char name[320], why[320], err[512];
	if (listed_elsewhere(pmu))
		return;
	if (!alias) {
		char formats[256];
		pmu_formats(l->c, pmu, formats, sizeof(formats));
		snprintf(name, sizeof(name), "%s/TERM=VALUE,.../", pmu);
		snprintf(why, sizeof(why), "terms: %s", formats[0] ? formats : "config, config1, config2");
		row(l, name, why);
		return;
	}
	struct sampler_event ev;
	memset(&ev, 0, sizeof(ev));
	snprintf(ev.name, sizeof(ev.name), "%s/%s/", pmu, alias);
	snprintf(name, sizeof(name), "%s/%s/", pmu, alias);
	if (pmu_event(l->c, pmu, alias, &ev, err, sizeof(err)))
		row(l, name, "no: cannot read its sysfs description");
	else
		row(l, name, try_open(l, &ev.attr, why, sizeof(why)));
}

static void tracepoint_row(void *arg, const char *sys, const char *name)
{
	struct lister *l = arg;
	char full[256];
	snprintf(full, sizeof(full), "%s:%s", sys, name);
	row(l, full, l->root || l->paranoid <= -1 ? "yes" : "yes, your own processes (-a needs root)");
}

static void probes(struct lister *l)
{
	static const struct { const char *form, *pmu; int cap; } forms[] = {
		{ "uprobe:PATH:FUNC[+OFFSET]", "uprobe", CAP_SYS_ADMIN },
		{ "uretprobe:PATH:FUNC", "uprobe", CAP_SYS_ADMIN },
		{ "kprobe:FUNC[+OFFSET]", "kprobe", CAP_PERFMON },
		{ "kretprobe:FUNC", "kprobe", CAP_PERFMON },
	};
	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		char why[256];
		uint32_t type;
		bool is_k = !strcmp(forms[i].pmu, "kprobe");
		if (pmu_type(l->c, forms[i].pmu, &type))
			snprintf(why, sizeof(why), "no: this kernel has no %s PMU (%s)", forms[i].pmu,
				 is_k ? "kprobes are compiled out, CONFIG_KPROBES is off"
				      : "CONFIG_UPROBE_EVENTS is off");
		else if (!ev_capable(l->c, forms[i].cap) && !ev_capable(l->c, CAP_SYS_ADMIN))
			snprintf(why, sizeof(why), "no: needs %s (run as root)",
				 is_k ? "CAP_PERFMON" : "CAP_SYS_ADMIN");
		else
			snprintf(why, sizeof(why), "yes (the %s PMU, type %u)", forms[i].pmu, type);
		row(l, forms[i].form, why);
	}
}

static void breakpoints(struct lister *l)
{
	static volatile long watched;
	char why[160];
	struct perf_event_attr a = { .type = PERF_TYPE_BREAKPOINT, .bp_type = 3,
				     .bp_addr = (uint64_t)(uintptr_t)&watched, .bp_len = 8 };
	const char *state = try_open(l, &a, why, sizeof(why));
	char text[256];
	snprintf(text, sizeof(text), "%s%s", state, strcmp(state, "yes") ? ""
		 : " (opens; in a VM it may never fire)");
	row(l, "mem:ADDR[/LEN][:rwx]", text);
	row(l, "mem:SYMBOL[/LEN][:rwx]", text);
}

int events_list(struct events_ctx *c, FILE *out)
{
	struct lister l = { .c = c, .out = out, .paranoid = paranoid_level(),
			    .root = ev_capable(c, CAP_SYS_ADMIN) };
	bool pmu = pmu_have_core(c);
	fprintf(out, "Events of this machine (perf_event_paranoid %d%s); 'yes' = perftop can sample "
		"it here.\n", l.paranoid, l.root ? ", running as root" : "");
	fprintf(out, "\nHardware events%s:\n", pmu ? "" : " (this machine has no hardware PMU)");
	generic(&l, PERF_TYPE_HARDWARE);
	fprintf(out, "\nSoftware events:\n");
	generic(&l, PERF_TYPE_SOFTWARE);
	fprintf(out, "\nHardware cache events (CACHE-OP-RESULT, perf's aliases too):\n");
	caches(&l);
	fprintf(out, "\nRaw hardware events:\n");
	row(&l, "rNNNN (hex)", pmu ? "yes, where the CPU has that event" : "no: no hardware PMU");
	fprintf(out, "\nPMU events (%s: PMU/EVENT/, PMU/TERM=VALUE,.../, or EVENT alone):\n",
		c->sysfs);
	pmu_each(c, true, pmu_row, &l);
	char why[400];
	const char *root = tracefs_root(c, why, sizeof(why));
	if (root) {
		fprintf(out, "\nTracepoints (%s/events; --filter EXPR after one filters it):\n", root);
		tracefs_each(c, tracepoint_row, &l);
	} else {
		fprintf(out, "\nTracepoints:\n");
		row(&l, "SUBSYSTEM:NAME", why);
	}
	fprintf(out, "\nProbes (a sample at every hit):\n");
	probes(&l);
	fprintf(out, "\nHardware breakpoints (a sample at every hit):\n");
	breakpoints(&l);
	fprintf(out, "\nModifiers: EVENT:MODS with u (user), k (kernel), h (hypervisor), G (guest), "
		"H (host),\np, pp, ppp (precise), P (most precise), D (pinned): cycles:upp. Groups: "
		"{EVENT,EVENT...}[:MODS].\n");
	return ferror(out) ? -1 : 0;
}
