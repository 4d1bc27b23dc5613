/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * counters: the counting groups next to the sampler's rings (see counters.h).
 *
 * Each attach opens up to two groups on one (pid, cpu). A group's leader is opened disabled (or
 * enable_on_exec) and its members enabled, so the leader alone starts and stops the whole group.
 * An event the machine does not support is remembered as such after its first failure, so a
 * machine without a PMU does not try the hardware events again for every CPU or thread. With
 * inherit, a read of the leader also sums the task's children and later threads (the kernel walks
 * the inherited copies), which is why one group per task is enough for -p and commands.
 */
#include "sampler/counters.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "util/util.h"

#define GROUP_MAX 4

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} counter_events[COUNTER_NR] = {
	[COUNTER_CYCLES] = { "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	[COUNTER_INSTRUCTIONS] = { "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	[COUNTER_CACHE_MISSES] = { "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	[COUNTER_BRANCH_MISSES] = { "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	[COUNTER_CTX_SWITCHES] = { "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	[COUNTER_MIGRATIONS] = { "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	[COUNTER_PAGE_FAULTS] = { "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
};

/* The two groups, leader first. */
static const enum counter_kind hw_group[] = { COUNTER_CYCLES, COUNTER_INSTRUCTIONS,
					      COUNTER_CACHE_MISSES, COUNTER_BRANCH_MISSES };
static const enum counter_kind sw_group[] = { COUNTER_CTX_SWITCHES, COUNTER_MIGRATIONS,
					      COUNTER_PAGE_FAULTS };

struct counter_group {
	int leader;                      /* fd */
	int fds[GROUP_MAX];              /* members' fds after the leader's (-1: none) */
	enum counter_kind kinds[GROUP_MAX]; /* in read order: the leader, then members that opened */
	size_t n;
};

struct counters {
	struct counters_opts o;
	bool unsupported[COUNTER_NR];    /* failed once with "not here": not tried again */
	bool opened[COUNTER_NR];
	struct counter_group *groups;
	size_t ngroups, cap;
};

const char *counter_name(enum counter_kind k)
{
	return (unsigned)k < COUNTER_NR ? counter_events[k].name : "?";
}

struct counters *counters_new(const struct counters_opts *o)
{
	struct counters *c = xcalloc(1, sizeof(*c));
	c->o = *o;
	return c;
}

static int open_counter(struct counters *c, enum counter_kind k, pid_t pid, int cpu, int group_fd)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = counter_events[k].type;
	a.config = counter_events[k].config;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.inherit = c->o.inherit;
	a.exclude_kernel = c->o.exclude_kernel;
	a.exclude_hv = c->o.exclude_kernel;
	if (group_fd < 0) {
		a.disabled = 1;
		a.enable_on_exec = c->o.enable_on_exec;
	}
	for (;;) {
		long fd = syscall(SYS_perf_event_open, &a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			return (int)fd;
		/* Like the sampler: paranoid 2 still lets us count our own tasks in user space. */
		if ((errno == EACCES || errno == EPERM) && pid != -1 && !a.exclude_kernel) {
			a.exclude_kernel = 1;
			a.exclude_hv = 1;
			continue;
		}
		return -errno;
	}
}

/* Opens one group on (pid, cpu); a leader that cannot open takes the group with it. */
static int attach_group(struct counters *c, const enum counter_kind *kinds, size_t n, pid_t pid,
			int cpu)
{
	struct counter_group g = { .leader = -1 };
	for (size_t i = 0; i < GROUP_MAX; i++)
		g.fds[i] = -1;
	for (size_t i = 0; i < n; i++) {
		enum counter_kind k = kinds[i];
		if (c->unsupported[k]) {
			if (i == 0)
				return 0;
			continue;
		}
		int fd = open_counter(c, k, pid, cpu, g.leader);
		if (fd < 0) {
			/* No such event here (no PMU, or a PMU without it): never again. Other errors
			 * (a thread that just ended, no fds left) are about this target only. */
			if (fd == -ENOENT || fd == -EOPNOTSUPP || fd == -ENODEV || fd == -EINVAL)
				c->unsupported[k] = true;
			if (i == 0)
				return 0;
			continue;
		}
		if (i == 0)
			g.leader = fd;
		g.fds[g.n] = fd;
		g.kinds[g.n++] = k;
		c->opened[k] = true;
	}
	xgrow((void **)&c->groups, &c->cap, c->ngroups + 1, sizeof(*c->groups));
	c->groups[c->ngroups++] = g;
	return (int)g.n;
}

int counters_attach(struct counters *c, pid_t pid, int cpu)
{
	if (!c)
		return 0;
	return attach_group(c, hw_group, ARRAY_SIZE(hw_group), pid, cpu) +
	       attach_group(c, sw_group, ARRAY_SIZE(sw_group), pid, cpu);
}

void counters_enable(struct counters *c)
{
	if (!c || c->o.enable_on_exec)
		return;
	for (size_t i = 0; i < c->ngroups; i++)
		ioctl(c->groups[i].leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

uint64_t counters_scale(uint64_t value, uint64_t enabled, uint64_t running)
{
	if (running == 0)
		return 0;
	if (running >= enabled)
		return value;
	/* 128-bit so a large count times a long enabled time cannot overflow. */
	unsigned __int128 v = (unsigned __int128)value * enabled / running;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

int counters_add_group(struct counter_values *v, const uint64_t *buf, size_t nwords,
		       const enum counter_kind *kinds, size_t nkinds)
{
	if (nwords < 3 || buf[0] != nkinds || nwords < 3 + nkinds)
		return -EINVAL;
	uint64_t enabled = buf[1], running = buf[2];
	for (size_t i = 0; i < nkinds; i++) {
		if ((unsigned)kinds[i] >= COUNTER_NR)
			return -EINVAL;
		v->have[kinds[i]] = true;
		v->value[kinds[i]] += counters_scale(buf[3 + i], enabled, running);
	}
	if (nkinds && kinds[0] < COUNTER_CTX_SWITCHES) {
		v->hw_time_enabled += enabled;
		v->hw_time_running += running;
	}
	return 0;
}

int counters_read(struct counters *c, struct counter_values *v)
{
	memset(v, 0, sizeof(*v));
	if (!c)
		return -ENODEV;
	for (int k = 0; k < COUNTER_NR; k++)
		v->have[k] = c->opened[k];
	int ok = 0, err = -ENODEV;
	for (size_t i = 0; i < c->ngroups; i++) {
		struct counter_group *g = &c->groups[i];
		uint64_t buf[3 + GROUP_MAX];
		ssize_t n = read(g->leader, buf, sizeof(buf));
		if (n < 0) {
			err = -errno;
			continue;
		}
		if (counters_add_group(v, buf, (size_t)n / sizeof(uint64_t), g->kinds, g->n) == 0)
			ok++;
	}
	return ok || c->ngroups == 0 ? 0 : err;
}

void counters_free(struct counters *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ngroups; i++)
		for (size_t j = 0; j < c->groups[i].n; j++)
			close(c->groups[i].fds[j]);
	free(c->groups);
	free(c);
}
