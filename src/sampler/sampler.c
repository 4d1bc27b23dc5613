/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sampler: opens the perf events for a target; its thread (sampler_thread.c) turns the per-CPU
 * rings into one time-ordered stream of struct rec on the SPSC queue. The state both files share
 * is in sampler_int.h.
 *
 * DESIGN
 * - One ring per CPU. Every event fd of that CPU (one per thread with -p/-t, one per event with
 *   several) is redirected into it with PERF_EVENT_IOC_SET_OUTPUT, so the number of mmaps grows
 *   with neither the thread count nor the events.
 * - Several events: each has its own attr (and parse layout: an event at its own period has no
 *   PERIOD field); all carry PERF_SAMPLE_IDENTIFIER, whose place does not depend on the layout
 *   (a sample's first word, the last of any other record), so stage() finds a record's event
 *   from it before parsing (a hash of the fds' ids). One event takes no such lookup.
 * - Ordering: a ring is written in time order (per CPU), but rings are read one after another, so
 *   a record of CPU 1 may be older than one already read from CPU 0. Each pass stages the parsed
 *   records per ring and emits, merged across rings, only those not newer than the start of the
 *   previous pass: by the time the previous pass started, anything older had been written to its
 *   ring, and this pass has read it. The cost is one pass (~80 ms) of latency.
 * - The thread owns the rings, the staging and the child's reaping; other threads see only the
 *   queue (consumer side) and the atomic counters.
 * - A command is forked in sampler_open but held on a pipe before execvp so that its events exist
 *   (enable_on_exec) before it runs; a CLOEXEC pipe carries an exec failure back as an errno.
 * - Recording (-o) is a tee on this thread (sampler_tee_ops; perfdata/perfdata_write.c writes the
 *   file): the raw bytes of each ring record that parsed go to it in ring order (perf report orders
 *   them again, FINISHED_ROUND telling it how far it may), and every emitted record, in time order,
 *   goes to it too (the writer follows mappings to find the binaries samples hit). One end_pass per
 *   pass; the time the tee takes is counted, and a failed one ends the recording, never the thread.
 */
#include "sampler/sampler.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "sampler/command.h"
#include "sampler/counters.h"
#include "sampler/event.h"
#include "record/parse.h"
#include "sampler/ring.h"
#include "sampler/synth.h"
#include "util/cgroupfs.h"
#include "util/util.h"

#include "sampler/sampler_int.h"


static long read_long_file(const char *path, long dflt)
{
	char buf[64];
	if (read_small_file(path, buf, sizeof(buf)) <= 0)
		return dflt;
	return strtol(buf, NULL, 10);
}

/* Parses a CPU list like "0-3,8,10-11" into a sorted-as-given array; -EINVAL when malformed. */
static int parse_cpu_list(const char *s, int **out, int *n)
{
	int *v = NULL;
	size_t cap = 0, cnt = 0;

	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b;
		if (end == s || a < 0 || a > 65535)
			goto bad;
		b = a;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a || b > 65535)
				goto bad;
			s = end;
		}
		for (long c = a; c <= b; c++) {
			xgrow((void **)&v, &cap, cnt + 1, sizeof(*v));
			v[cnt++] = (int)c;
		}
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			goto bad;
	}
	*out = v;
	*n = (int)cnt;
	return 0;
bad:
	free(v);
	return -EINVAL;
}

static int online_cpus(int **cpus, int *n)
{
	char buf[4096];
	if (read_small_file("/sys/devices/system/cpu/online", buf, sizeof(buf)) <= 0) {
		/* No sysfs: assume what sysconf says, numbered from 0. */
		long k = sysconf(_SC_NPROCESSORS_ONLN);
		if (k < 1)
			k = 1;
		*cpus = xmalloc((size_t)k * sizeof(int));
		for (long i = 0; i < k; i++)
			(*cpus)[i] = (int)i;
		*n = (int)k;
		return 0;
	}
	return parse_cpu_list(buf, cpus, n);
}

/* cgroup_fd >= 0: the event counts on cpu only while a task of that cgroup runs (-G; pid is
 * then -1 to the callers, and the cgroup's directory goes in its place). */
static long sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
				int cgroup_fd)
{
	if (cgroup_fd >= 0)
		return syscall(SYS_perf_event_open, a, cgroup_fd, cpu, group_fd,
			       PERF_FLAG_FD_CLOEXEC | PERF_FLAG_PID_CGROUP);
	return syscall(SYS_perf_event_open, a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* Opens event ev for pid (or cgroup_fd's cgroup) on cpu (in group_fd's group, or -1), relaxing
 * what old kernels or unprivileged users cannot have. */
static int open_one(struct sampler_ev *ev, pid_t pid, int cpu, int group_fd, int cgroup_fd)
{
	struct perf_event_attr *a = &ev->attr;
	int member_retries = 40;
	for (;;) {
		long fd = sys_perf_event_open(a, pid, cpu, group_fd, cgroup_fd);
		if (fd >= 0)
			return (int)fd;
		if (errno == EINVAL && group_fd >= 0 && pid != -1 && member_retries-- > 0) {
			/* A task's member comes back EINVAL now and then under load (a TSan test, about
			 * one run in six on a busy 2-CPU machine, three quick retries were not enough):
			 * the kernel refuses a member whose leader's context is not the task's at that
			 * moment, and a task's context can be swapped with a related task's at a context
			 * switch. Tries spaced by a millisecond, 40 ms at most, let the tasks run and
			 * meet again; a member the kernel refuses for good costs those 40 ms. */
			nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
			continue;
		}
		if (errno == EINVAL && a->build_id) {
			/* build ids in MMAP2 came with 5.12; the symbolizer can read them from files. */
			a->build_id = 0;
			continue;
		}
		if ((errno == EACCES || errno == EPERM) && pid != -1 && !a->exclude_kernel) {
			/* perf_event_paranoid 2 allows user-space profiling of one's own processes. */
			a->exclude_kernel = 1;
			a->exclude_hv = 1;
			continue;
		}
		return -errno;
	}
}

static void open_error(struct sampler *s, const struct sampler_ev *ev, int e, pid_t pid, int cpu,
		       char *err, size_t errlen)
{
	/* LBR call stacks exist on Intel CPUs' hardware events only (software events, most VMs and
	 * other vendors' PMUs refuse branch sampling): say that, not "no such event". */
	if ((ev->attr.branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK) &&
	    (e == EOPNOTSUPP || e == EINVAL || e == ENOENT || e == ENODEV)) {
		seterr(err, errlen,
		       "--call-graph lbr: the kernel refuses LBR call stacks for event '%s' (%s): they "
		       "need a hardware event of an Intel CPU with last branch records (most VMs have "
		       "none); use --call-graph fp or --call-graph dwarf",
		       ev->name, strerror(e));
		return;
	}
	/* A PMU without precise sampling (no PEBS or IBS: most VMs that have a PMU) refuses :p, :pp,
	 * :ppp alone; saying "no hardware PMU" there would send the user the wrong way. */
	if (ev->attr.precise_ip && (e == EOPNOTSUPP || e == EINVAL)) {
		seterr(err, errlen,
		       "event '%s': precise sampling (precise_ip %u) refused by this CPU's PMU (%s): "
		       "no PEBS or IBS here?; try it with fewer p or none",
		       ev->name, (unsigned)ev->attr.precise_ip, strerror(e));
		return;
	}
	switch (e) {
	case ESRCH:
		seterr(err, errlen, "no such process: %d", (int)pid);
		break;
	case EACCES:
	case EPERM:
		if (pid == -1)
			seterr(err, errlen,
			       "permission denied for system-wide profiling: kernel.perf_event_paranoid is %d; "
			       "run as root or set it to -1/0 (sysctl -w kernel.perf_event_paranoid=0)",
			       s->paranoid);
		else
			seterr(err, errlen,
			       "permission denied for process %d (another user's?): "
			       "kernel.perf_event_paranoid is %d; run as root or as its owner",
			       (int)pid, s->paranoid);
		break;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (ev->attr.type == PERF_TYPE_HARDWARE)
			seterr(err, errlen,
			       "event '%s' is not supported on this machine (no hardware PMU?); "
			       "try -e cpu-clock",
			       ev->name);
		else
			seterr(err, errlen,
			       "event '%s' is not supported on this machine (%s); try -e cpu-clock",
			       ev->name, strerror(e));
		break;
	case EMFILE:
	case ENFILE:
		seterr(err, errlen,
		       "too many open files (%zu perf events open so far); raise the limit with "
		       "ulimit -n",
		       s->nfds);
		break;
	case EBUSY:
		seterr(err, errlen, "event '%s' is busy on CPU %d (in use by another tool?)",
		       ev->name, cpu);
		break;
	default:
		seterr(err, errlen, "cannot open event '%s' on CPU %d: %s", ev->name, cpu,
		       strerror(e));
		break;
	}
}

/* Maps the ring of rings[ri] from fd. Over the locked-memory limit (kernel.perf_event_mlock_kb
 * and RLIMIT_MEMLOCK, for a user without CAP_IPC_LOCK) it takes smaller rings, this one and the
 * next ones, down to SAMPLER_RING_MIN_PAGES, and says so once: a smaller ring may lose records
 * under a burst, no ring loses them all. */
static int map_ring(struct sampler *s, int ri, int fd, char *err, size_t errlen)
{
	struct sampler_ring *r = &s->rings[ri];
	size_t len = (size_t)(s->mmap_pages + 1) * (size_t)s->page_size;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int e = errno;

	while (m == MAP_FAILED && e == EPERM && s->mmap_pages > SAMPLER_RING_MIN_PAGES) {
		s->mmap_pages >>= 1;
		len = (size_t)(s->mmap_pages + 1) * (size_t)s->page_size;
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		e = errno;
		if (m != MAP_FAILED && !s->rings_shrunk) {
			s->rings_shrunk = true;
			warn_msg("ring buffers of %zu KiB (more is over the locked-memory limit; raise "
				 "kernel.perf_event_mlock_kb or use -m): records may be lost under load",
				 (len - (size_t)s->page_size) / 1024);
		}
	}
	if (m == MAP_FAILED) {
		seterr(err, errlen,
		       "cannot map the %zu KiB ring buffer of CPU %d: %s; try fewer pages (-m) or "
		       "raise kernel.perf_event_mlock_kb",
		       len / 1024, r->cpu, strerror(e));
		return -e;
	}
	r->fd = fd;
	r->map = m;
	r->map_len = len;
	ring_init(&r->ring, m, (unsigned char *)m + s->page_size,
		  (uint64_t)s->mmap_pages * (uint64_t)s->page_size);
	r->ring_ok = true;
	return 0;
}

/* A kernel before 5.7 (or without CONFIG_CGROUP_PERF) refuses PERF_SAMPLE_CGROUP and
 * attr.cgroup with EINVAL: the session goes on without them (sampler_has_cgroup says so). Only
 * at the first open, so that every event and fd of the session has the same layout. */
static bool drop_cgroup(struct sampler *s, int fd)
{
	if (fd != -EINVAL || !s->has_cgroup || s->nfds > 0)
		return false;
	for (int e = 0; e < s->nev; e++) {
		s->ev[e].attr.sample_type &= ~(uint64_t)PERF_SAMPLE_CGROUP;
		s->ev[e].attr.cgroup = 0;
	}
	s->has_cgroup = false;
	return true;
}

/* Opens event e for pid (or the cgroup cgroup_fd, with pid -1) on the CPU of ring ri, into that
 * ring (group: the fds of the events already opened for this pid and CPU, for a member's leader).
 * Returns the fd or -errno. */
static int open_event(struct sampler *s, int e, pid_t pid, int cgroup_fd, int ri, const int *group,
		      char *err, size_t errlen)
{
	struct sampler_ring *r = &s->rings[ri];
	struct sampler_ev *ev = &s->ev[e];
	int gfd = ev->leader >= 0 ? group[ev->leader] : -1;
	int fd = open_one(ev, pid, r->cpu, gfd, cgroup_fd);
	if (drop_cgroup(s, fd))
		fd = open_one(ev, pid, r->cpu, gfd, cgroup_fd);
	if (fd == -EINVAL && ev->leader >= 0 && pid != -1 && ev->attr.type == PERF_TYPE_SOFTWARE &&
	    s->ev[ev->leader].attr.type == PERF_TYPE_SOFTWARE) {
		/* A software member of a task's group refused for 40 ms, though its leader opened
		 * (seen under load in about one CI run in three, not understood: the kernel's
		 * checks that say EINVAL here compare the leader's and the member's context, CPU
		 * and clock, all the same). Software events are never multiplexed, so a group only
		 * orders their reads: the member is opened on its own, and said so once. */
		fd = open_one(ev, pid, r->cpu, -1, cgroup_fd);
		static atomic_bool told;
		if (fd >= 0 && !atomic_exchange(&told, true))
			warn_msg("event '%s' could not join its group on CPU %d (EINVAL); counted on its "
				 "own", ev->name, r->cpu);
	}
	if (fd < 0) {
		open_error(s, ev, -fd, pid, r->cpu, err, errlen);
		return fd;
	}
	if (ev->filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, ev->filter) != 0) {
		int x = errno;
		close(fd);
		seterr(err, errlen, "cannot set the filter '%s' of event '%s': %s", ev->filter,
		       ev->name, strerror(x));
		return -x;
	}
	xgrow((void **)&s->fds, &s->fds_cap, s->nfds + 1, sizeof(*s->fds));
	s->fds[s->nfds] = (struct sampler_fd){ .fd = fd, .ring = ri, .ev = e };
	s->nfds++;
	if (!r->ring_ok) {
		int ret = map_ring(s, ri, fd, err, errlen);
		if (ret)
			return ret;
	} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) != 0) {
		int x = errno;
		seterr(err, errlen, "cannot redirect event '%s' into the ring of CPU %d: %s", ev->name,
		       r->cpu, strerror(x));
		return -x;
	}
	return fd;
}

/* Opens every event for pid on every CPU of the session, each into that CPU's ring; system-wide
 * with -G, once per cgroup (each cgroup's events a group of their own). */
static int open_task(struct sampler *s, pid_t pid, char *err, size_t errlen)
{
	int ncg = pid == -1 && s->ncgroups > 0 ? s->ncgroups : 1;
	for (int i = 0; i < s->nrings; i++) {
		for (int g = 0; g < ncg; g++) {
			int group[SAMPLER_MAX_EVENTS];
			int cgfd = pid == -1 && s->ncgroups > 0 ? s->cgroup_fds[g] : -1;
			for (int e = 0; e < s->nev; e++) {
				group[e] = open_event(s, e, pid, cgfd, i, group, err, errlen);
				if (group[e] < 0)
					return group[e];
			}
		}
	}
	/* The counting groups follow the same target: per CPU system-wide, per task elsewhere (with
	 * inherit, one group per task covers all CPUs). They are extras: failing to open is no error.
	 * With -G none: they would count the whole CPU, not the cgroups. */
	if (pid == -1 && s->ncgroups > 0)
		return 0;
	if (pid == -1)
		for (int i = 0; i < s->nrings; i++)
			counters_attach(s->counters, -1, s->rings[i].cpu);
	else
		counters_attach(s->counters, pid, -1);
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* The thread ids of pid, sorted; -ESRCH when the process is gone. */
static int list_tasks(pid_t pid, int **tids, size_t *n)
{
	char path[64];
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	*tids = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		xgrow((void **)tids, &cap, *n + 1, sizeof(**tids));
		(*tids)[(*n)++] = atoi(de->d_name);
	}
	closedir(d);
	qsort(*tids, *n, sizeof(**tids), cmp_int);
	return *n ? 0 : -ESRCH;
}

/*
 * Every thread of pid, each with inherit so that later threads and children are covered. Threads
 * born while we open are caught by listing again until nothing new appears (a few rounds at most:
 * a process spawning threads without end still gets them through inherit from its older ones).
 */
static int open_process(struct sampler *s, pid_t pid, char *err, size_t errlen)
{
	int *done = NULL, *tids;
	size_t ndone = 0, capdone = 0, n;
	int ret = 0;

	for (int round = 0; round < 4; round++) {
		bool added = false;
		ret = list_tasks(pid, &tids, &n);
		if (ret) {
			if (ndone == 0)
				seterr(err, errlen, "no such process: %d", (int)pid);
			else
				ret = 0;
			break;
		}
		for (size_t i = 0; i < n; i++) {
			bool seen = false;
			for (size_t j = 0; j < ndone && !seen; j++)
				seen = done[j] == tids[i];
			if (seen)
				continue;
			ret = open_task(s, tids[i], err, errlen);
			if (ret == -ESRCH) {
				ret = 0;   /* that thread just ended */
				continue;
			}
			if (ret)
				break;
			xgrow((void **)&done, &capdone, ndone + 1, sizeof(*done));
			done[ndone++] = tids[i];
			added = true;
		}
		free(tids);
		if (ret || !added)
			break;
	}
	if (!ret && ndone == 0) {
		seterr(err, errlen, "no such process: %d", (int)pid);
		ret = -ESRCH;
	}
	free(done);
	return ret;
}

static uint64_t clamp_freq(uint64_t freq)
{
	static atomic_bool warned;
	long max = read_long_file("/proc/sys/kernel/perf_event_max_sample_rate", 0);

	if (max > 0 && freq > (uint64_t)max) {
		if (!atomic_exchange(&warned, true))
			warn_msg("-F %llu is above kernel.perf_event_max_sample_rate; using %ld Hz",
				 (unsigned long long)freq, max);
		freq = (uint64_t)max;
	}
	return freq;
}

static int setup_sampling(struct sampler *s, int e, const struct sampler_opts *o, char *err,
			  size_t errlen);

/* What the described event counts, from its attr (sampler.h: struct sampler_event); the rest of
 * the attr is the sampler's. */
static void event_what(struct perf_event_attr *a, const struct perf_event_attr *w)
{
	a->type = w->type;
	a->config = w->config;
	a->config1 = w->config1;
	a->config2 = w->config2;
	a->bp_type = w->bp_type;
	a->exclude_user = w->exclude_user;
	a->exclude_kernel = w->exclude_kernel;
	a->exclude_hv = w->exclude_hv;
	a->exclude_host = w->exclude_host;
	a->exclude_guest = w->exclude_guest;
	a->precise_ip = w->precise_ip;
	a->pinned = w->pinned;
}

/* The described events (opts.events): what each counts, its name, filter, own period and group. */
static int events_of_opts(struct sampler *s, const struct sampler_opts *o, char *err, size_t errlen)
{
	if (o->nevents > SAMPLER_MAX_EVENTS) {
		seterr(err, errlen, "too many events (%d; at most %d)", o->nevents, SAMPLER_MAX_EVENTS);
		return -EINVAL;
	}
	for (int i = 0; i < o->nevents; i++) {
		const struct sampler_event *d = &o->events[i];
		struct sampler_ev *ev = &s->ev[i];
		memset(&ev->attr, 0, sizeof(ev->attr));
		event_what(&ev->attr, &d->attr);
		snprintf(ev->name, sizeof(ev->name), "%s", d->name);
		ev->filter = d->filter ? xstrdup(d->filter) : NULL;
		/* An event that fixes its own rate (every hit of a probe) keeps it unless -c says
		 * otherwise. */
		ev->own_period = !d->attr.freq ? d->attr.sample_period : 0;
		ev->leader = d->leader == i ? -1 : d->leader;
		if (ev->leader >= i || ev->leader < -1 ||
		    (ev->leader >= 0 && s->ev[ev->leader].leader != -1)) {
			seterr(err, errlen, "event '%s': its group leader (%d) is not an event before it",
			       ev->name, d->leader);
			return -EINVAL;
		}
	}
	s->nev = o->nevents;
	return 0;
}

/* The session's one event by its generic name (NULL: cycles, or cpu-clock without a PMU). */
static int event_by_name(struct sampler *s, const char *name, char *err, size_t errlen)
{
	struct sampler_ev *ev = &s->ev[0];
	uint32_t type;
	uint64_t config;

	if (!name) {
		if (event_have_hw_pmu()) {
			name = "cycles";
		} else {
			name = "cpu-clock";
			s->fell_back = true;
		}
	}
	if (event_lookup(name, &type, &config) != 0) {
		char list[1024];
		size_t len = 0;
		const char *k;
		list[0] = '\0';
		for (size_t i = 0; (k = event_known_name(i)) != NULL && len + 1 < sizeof(list); i++) {
			int n = snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "", k);
			if (n < 0)
				break;
			len += (size_t)n;
		}
		seterr(err, errlen, "unknown event '%s'; known events: %s", name, list);
		return -ENOENT;
	}
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	memset(&ev->attr, 0, sizeof(ev->attr));
	ev->attr.type = type;
	ev->attr.config = config;
	ev->leader = -1;
	s->nev = 1;
	return 0;
}

static int setup_event(struct sampler *s, const struct sampler_opts *o, char *err, size_t errlen)
{
	int ret = o->nevents > 0 ? events_of_opts(s, o, err, errlen)
				 : event_by_name(s, o->event, err, errlen);
	for (int e = 0; e < s->nev && !ret; e++)
		ret = setup_sampling(s, e, o, err, errlen);
	return ret;
}

/* How event e is sampled: everything of the attr but what it counts. */
static int setup_sampling(struct sampler *s, int e, const struct sampler_opts *o, char *err,
			  size_t errlen)
{
	struct sampler_ev *ev = &s->ev[e];
	struct perf_event_attr *a = &ev->attr;
	uint64_t period = o->period ? o->period : ev->own_period;
	a->size = sizeof(*a);
	if (period) {
		a->sample_period = period;
	} else {
		uint64_t freq = clamp_freq(o->freq ? o->freq : SAMPLER_DEFAULT_FREQ);
		a->freq = 1;
		a->sample_freq = freq ? freq : 1;
	}
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	/* A fixed period goes without the field, as perf record -c does: with PERIOD asked and no
	 * freq, the kernel samples a software event (page-faults...) at every occurrence, with period
	 * 1. stage() gives such samples the attr's period. */
	if (!period)
		a->sample_type |= PERF_SAMPLE_PERIOD;
	if (o->callchain)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o->dwarf_stack) {
		/* The kernel copies the user registers and the top of the user stack; we unwind it.
		 * Its own callchain keeps the kernel part only: the user part would be frame-pointer
		 * guesses where there are no frame pointers. */
		if (o->dwarf_stack % 8 || o->dwarf_stack > SAMPLER_DWARF_STACK_MAX) {
			seterr(err, errlen, "--call-graph dwarf,%u: the stack size must be a multiple of 8 "
			       "up to %u", o->dwarf_stack, SAMPLER_DWARF_STACK_MAX);
			return -EINVAL;
		}
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = SAMPLER_DWARF_REGS;
		a->sample_stack_user = o->dwarf_stack;
		a->exclude_callchain_user = 1;
	}
	if (o->head_stack && o->callchain && !o->dwarf_stack && !o->lbr) {
		/* The frame-pointer chain keeps its user part; the registers and the top of the
		 * stack let the symbolizer add the frames it skips (symbolizer_fp_head). */
		if (o->head_stack % 8 || o->head_stack > SAMPLER_DWARF_STACK_MAX) {
			seterr(err, errlen, "--call-graph fp+cfi,%u: the stack size must be a multiple "
			       "of 8 up to %u", o->head_stack, SAMPLER_DWARF_STACK_MAX);
			return -EINVAL;
		}
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = SAMPLER_HEAD_REGS;
		a->sample_stack_user = o->head_stack;
	}
	if (o->lbr && a->type != PERF_TYPE_TRACEPOINT) {
		/* The user chain from the CPU's last branch records in call-stack mode (parse.h builds
		 * the chain); the callchain keeps the kernel part. A recording (-o) keeps the
		 * callchain's user part too: perf report takes an LBR chain only from a callchain that
		 * has one (its PERF_CONTEXT_USER marks where the branch stack's part goes). */
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK;
		a->exclude_callchain_user = !o->tee;
	}
	/* A recording's readers match every record to its attr by this id, however many events; and
	 * so does stage() when there are several. */
	if (o->tee || s->nev > 1)
		a->sample_type |= PERF_SAMPLE_IDENTIFIER;
	/* A recording's tracepoint samples carry their fields, as perf record's do: perf script
	 * prints them, and perf report's default sort for tracepoints reads them (perf 6.1 crashes
	 * on a tracepoint sample without them). */
	if (o->tee && a->type == PERF_TYPE_TRACEPOINT)
		a->sample_type |= PERF_SAMPLE_RAW;
	if (s->offcpu && (uint32_t)e == s->offcpu_opts.switch_evidx) {
		a->sample_type |= PERF_SAMPLE_RAW;
		/* The switch-ins come from context-switch records. Per task, the sched_switch event
		 * fires at the task's switch-outs only. Per CPU, a sample is also the switch-in of its
		 * next_pid, but this kernel (6.18) often does not sample the tracepoint on a switch
		 * away from the idle task (a wakeup on an idle CPU: most of them), while the switch
		 * records always come. The switch-out records also mark the switch more closely than
		 * the sample's time (offcpu.h). */
		a->context_switch = 1;
	}
	if (s->has_cgroup)
		a->sample_type |= PERF_SAMPLE_CGROUP;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	/* Wake us when the ring is half full; the poll timeout handles the steady trickle. */
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)((uint64_t)s->mmap_pages * (uint64_t)s->page_size / 2);
	if (s->target == TARGET_PIDS || s->target == TARGET_COMMAND)
		a->inherit = 1;
	/* A group's members follow their leader: it alone is armed and enabled. */
	if (ev->leader < 0) {
		a->disabled = 1;
		a->enable_on_exec = s->target == TARGET_COMMAND;
	}
	/* The side-band (mappings, names, tasks) comes once, with the first event, as with perf's
	 * tracking event: every event asking would write each record once per event. */
	if (e == 0) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->build_id = o->buildid_mmap;
		/* the cgroups made while we run (those before are synthesized) */
		a->cgroup = s->has_cgroup;
		/* perf report reads the unwind tables through the process's mappings, and
		 * .eh_frame_hdr sits in a read-only one: a recording needs the data mappings too. */
		if (o->dwarf_stack && o->tee)
			a->mmap_data = 1;
	}
	return 0;
}

static int setup_cpus(struct sampler *s, const struct sampler_opts *o, char *err, size_t errlen)
{
	int *online, nonline;

	if (online_cpus(&online, &nonline) != 0 || nonline == 0) {
		seterr(err, errlen, "cannot read the online CPUs from /sys/devices/system/cpu/online");
		return -EINVAL;
	}
	if (o->ncpus > 0) {
		s->cpus = xmalloc((size_t)o->ncpus * sizeof(int));
		s->ncpus = 0;
		for (int i = 0; i < o->ncpus; i++) {
			bool ok = false, dup = false;
			for (int j = 0; j < nonline; j++)
				ok |= online[j] == o->cpus[i];
			for (int j = 0; j < s->ncpus; j++)
				dup |= s->cpus[j] == o->cpus[i];
			if (!ok) {
				seterr(err, errlen, "CPU %d is not online; see /sys/devices/system/cpu/online",
				       o->cpus[i]);
				free(online);
				return -EINVAL;
			}
			if (!dup)
				s->cpus[s->ncpus++] = o->cpus[i];
		}
		free(online);
	} else {
		s->cpus = online;
		s->ncpus = nonline;
	}
	s->nrings = s->ncpus;
	s->rings = xcalloc((size_t)s->nrings, sizeof(*s->rings));
	for (int i = 0; i < s->nrings; i++) {
		s->rings[i].cpu = s->cpus[i];
		s->rings[i].fd = -1;
	}
	return 0;
}

/* Reads the sample id of every fd, once every event is open. */
static void read_ids(struct sampler *s)
{
	for (size_t i = 0; i < s->nfds; i++)
		if (ioctl(s->fds[i].fd, PERF_EVENT_IOC_ID, &s->fds[i].id) != 0)
			s->fds[i].id = 0;
}

/* The id -> event table of a session of several events (read_ids first). */
static void idmap_build(struct sampler *s)
{
	struct sampler_idmap *m = &s->idmap;
	m->cap = 16;
	while (m->cap < 2 * s->nfds)
		m->cap <<= 1;
	m->keys = xcalloc(m->cap, sizeof(*m->keys));
	m->vals = xcalloc(m->cap, sizeof(*m->vals));
	for (size_t i = 0; i < s->nfds; i++) {
		uint64_t id = s->fds[i].id;
		if (!id)
			continue;
		size_t j = (size_t)(id * 0x9E3779B97F4A7C15ull) & (m->cap - 1);
		while (m->keys[j] && m->keys[j] != id)
			j = (j + 1) & (m->cap - 1);
		m->keys[j] = id;
		m->vals[j] = (uint32_t)s->fds[i].ev;
	}
}


/* Opens the tee (-o) once every event is open: a recording lists each event's ids. */
static int open_recording(struct sampler *s, const struct sampler_opts *o, char *err, size_t errlen)
{
	uint64_t *ids = xmalloc((s->nfds ? s->nfds : 1) * sizeof(*ids));
	struct sampler_tee_event tev[SAMPLER_MAX_EVENTS];
	size_t n = 0;

	for (int e = 0; e < s->nev; e++) {
		tev[e] = (struct sampler_tee_event){ .attr = &s->ev[e].attr, .ids = ids + n,
						     .name = s->ev[e].name };
		for (size_t i = 0; i < s->nfds; i++)
			if (s->fds[i].ev == e && s->fds[i].id)
				ids[n++] = s->fds[i].id;
		tev[e].nids = (size_t)(ids + n - tev[e].ids);
	}
	s->pw = o->tee->open(o->tee_arg, tev, (size_t)s->nev, err, errlen);
	free(ids);
	if (!s->pw)
		return -EIO;
	s->tee = o->tee;
	return 0;
}

/* -G: the cgroups' directories, opened before the events (an unknown one is a one-line error
 * naming it); closed once the events are open (close_cgroups), the kernel holds the cgroups. */
static int open_cgroups(struct sampler *s, const struct sampler_opts *o, char *err, size_t errlen)
{
	struct cgroupfs_mount m;

	if (o->ncgroups <= 0)
		return 0;
	if (o->ncgroups > SAMPLER_MAX_CGROUPS) {
		seterr(err, errlen, "-G: too many cgroups (%d; at most %d)", o->ncgroups,
		       SAMPLER_MAX_CGROUPS);
		return -EINVAL;
	}
	if (o->target != TARGET_SYSTEM && o->target != TARGET_CPUS) {
		seterr(err, errlen, "-G needs -a or -C, as the kernel's cgroup events are per CPU");
		return -EINVAL;
	}
	if (cgroupfs_perf_event_mount(&m) != 0) {
		seterr(err, errlen, "-G: no cgroup hierarchy with the perf_event controller is mounted "
		       "(see /proc/self/mountinfo)");
		return -ENOENT;
	}
	for (int i = 0; i < o->ncgroups; i++) {
		int fd = cgroupfs_open(&m, o->cgroups[i], err, errlen);
		if (fd < 0)
			return -ENOENT;
		s->cgroup_fds[s->ncgroups++] = fd;
	}
	return 0;
}

static void close_cgroups(struct sampler *s)
{
	for (int i = 0; i < s->ncgroups; i++)
		close(s->cgroup_fds[i]);
	s->ncgroups = 0;
}

/* The CPUs the rings will be on before they are known for sure (-C, else the online ones). */
static int expected_cpus(const struct sampler_opts *o)
{
	if (o->ncpus > 0)
		return o->ncpus;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* The samples per second per CPU one event will give: its frequency, or for a period, the rate of
 * a clock (cpu-clock and task-clock count nanoseconds) or an assumed one. ev NULL: the generic
 * event named o->event. */
static double event_rate(const struct sampler_opts *o, const struct sampler_event *ev)
{
	uint64_t period = o->period ? o->period : ev && !ev->attr.freq ? ev->attr.sample_period : 0;
	if (!period)
		return (double)(o->freq ? o->freq : SAMPLER_DEFAULT_FREQ);
	bool clock = ev ? ev->attr.type == PERF_TYPE_SOFTWARE &&
				  (ev->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
				   ev->attr.config == PERF_COUNT_SW_TASK_CLOCK)
			: o->event && (!strcmp(o->event, "cpu-clock") || !strcmp(o->event, "task-clock"));
	return clock ? 1e9 / (double)period : SAMPLER_ASSUMED_RATE;
}

void sampler_sizes(const struct sampler_opts *o, int ncpus, long page_size, struct sampler_sizes *out)
{
	double rate = o->nevents > 0 ? 0 : event_rate(o, NULL);
	double sample = SAMPLER_SAMPLE_BYTES + (o->callchain ? 8.0 * SAMPLER_EST_FRAMES : 0);
	/* a stack copy and its registers: the whole size (the kernel copies what the thread uses) */
	if (o->dwarf_stack)
		sample += o->dwarf_stack + 8.0 * 17 + 16;
	else if (o->head_stack && o->callchain && !o->lbr)
		sample += o->head_stack + 8.0 * 3 + 16;
	double bytes_per_sec = 0;
	for (int e = 0; e < o->nevents; e++) {
		if (o->offcpu && (uint32_t)e == o->offcpu->switch_evidx) {
			/* A block reaches the queue at every switch-in: the switch rate, as samples. */
			bytes_per_sec += SAMPLER_SWITCH_RATE * SAMPLER_SWITCH_RECORD_BYTES;
			rate += SAMPLER_SWITCH_RATE;
			continue;
		}
		rate += event_rate(o, &o->events[e]);
	}
	bytes_per_sec += rate * sample;
	double ring = SAMPLER_RING_SECS * bytes_per_sec + SAMPLER_SIDEBAND_BYTES;
	if (ring > SAMPLER_RINGS_MAX_BYTES / ncpus)
		ring = SAMPLER_RINGS_MAX_BYTES / ncpus;
	unsigned pages = SAMPLER_RING_MIN_PAGES;
	while ((double)pages * (double)page_size < ring && pages < SAMPLER_RING_MAX_PAGES)
		pages <<= 1;
	double flow = ncpus * rate, most = o->dwarf_stack ? SAMPLER_CONSUMER_RATE_DWARF
							  : SAMPLER_CONSUMER_RATE;
	double q = SAMPLER_QUEUE_SECS * (flow < most ? flow : most) * (sample + sizeof(struct rec)) +
		   (double)ncpus * SAMPLER_SIDEBAND_BYTES;
	out->ring_pages = pages;
	out->queue_bytes = q < SAMPLER_QUEUE_MIN ? SAMPLER_QUEUE_MIN
			   : q > SAMPLER_QUEUE_MAX ? SAMPLER_QUEUE_MAX : (size_t)q;
}

struct sampler *sampler_open(const struct sampler_opts *o, char *err, size_t errlen)
{
	struct sampler *s = xcalloc(1, sizeof(*s));
	struct sampler_sizes sz;
	sampler_sizes(o, expected_cpus(o), sysconf(_SC_PAGESIZE), &sz);
	unsigned pages = o->mmap_pages ? o->mmap_pages : sz.ring_pages;
	int ret = 0;

	seterr(err, errlen, "%s", "");
	s->target = o->target;
	s->callchain = o->callchain;
	s->synthesize = o->synthesize;
	command_init(&s->cmd);
	s->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	s->page_size = sysconf(_SC_PAGESIZE);
	pthread_mutex_init(&s->offcpu_lock, NULL);
	if (o->offcpu) {
		s->offcpu_opts = *o->offcpu;
		s->offcpu = offcpu_new(&s->offcpu_opts);
	}
	s->paranoid = (int)read_long_file("/proc/sys/kernel/perf_event_paranoid", 2);
	s->mmap_pages = 1;
	while (s->mmap_pages < pages && s->mmap_pages < (1u << 16))
		s->mmap_pages <<= 1;
	atomic_init(&s->stop, false);
	if (o->nids > 0) {
		s->ids = xmalloc((size_t)o->nids * sizeof(int));
		memcpy(s->ids, o->ids, (size_t)o->nids * sizeof(int));
		s->nids = o->nids;
	}

	if ((s->target == TARGET_PIDS || s->target == TARGET_TIDS) && s->nids == 0) {
		seterr(err, errlen, "no process given");
		goto fail;
	}
	if (s->target == TARGET_CPUS && o->ncpus == 0) {
		seterr(err, errlen, "no CPU given");
		goto fail;
	}
	if (s->target == TARGET_COMMAND) {
		int e;
		if (!o->argv || !o->argv[0]) {
			seterr(err, errlen, "no command given");
			goto fail;
		}
		s->cmd_name = xstrdup(o->argv[0]);
		e = command_find(o->argv[0]);
		if (e) {
			seterr(err, errlen, "cannot run '%s': %s", o->argv[0], strerror(e));
			goto fail;
		}
	}
	s->has_cgroup = o->sample_cgroup;
	if (open_cgroups(s, o, err, errlen) || setup_event(s, o, err, errlen) ||
	    setup_cpus(s, o, err, errlen))
		goto fail;
	s->counters = counters_new(&(struct counters_opts){
		.inherit = s->ev[0].attr.inherit, .enable_on_exec = s->ev[0].attr.enable_on_exec });

	switch (s->target) {
	case TARGET_SYSTEM:
	case TARGET_CPUS:
		ret = open_task(s, -1, err, errlen);
		break;
	case TARGET_PIDS:
		for (int i = 0; i < s->nids && !ret; i++) {
			if (s->ids[i] <= 0 || (kill(s->ids[i], 0) != 0 && errno == ESRCH)) {
				seterr(err, errlen, "no such process: %d", s->ids[i]);
				ret = -ESRCH;
				break;
			}
			ret = open_process(s, s->ids[i], err, errlen);
		}
		break;
	case TARGET_TIDS:
		for (int i = 0; i < s->nids && !ret; i++) {
			if (s->ids[i] <= 0) {
				seterr(err, errlen, "no such process: %d", s->ids[i]);
				ret = -ESRCH;
				break;
			}
			ret = open_task(s, s->ids[i], err, errlen);
		}
		break;
	case TARGET_COMMAND:
		ret = command_fork(&s->cmd, o->argv, o->run_as, err, errlen);
		if (!ret)
			ret = open_task(s, s->cmd.pid, err, errlen);
		break;
	}
	close_cgroups(s);
	if (ret)
		goto fail;
	/* The cgroups that exist now, for the thread to hand out first (read here, on the caller's
	 * thread, where a warning may still go to the terminal). */
	if (s->has_cgroup) {
		s->synth_cgroups = synth_cgroups_collect(SAMPLER_MAX_SYNTH_CGROUPS);
		if (s->synth_cgroups && synth_cgroups_truncated(s->synth_cgroups))
			warn_msg("cgroups past the first %d (or %d levels deep) are not named at the "
				 "start; samples of those show their id", SAMPLER_MAX_SYNTH_CGROUPS,
				 CGROUPFS_MAX_DEPTH);
	}

	for (int e = 0; e < s->nev; e++)
		parse_cfg_init(&s->ev[e].cfg, &s->ev[e].attr, (uint32_t)e);
	if (o->tee || s->nev > 1)
		read_ids(s);
	if (s->nev > 1)
		idmap_build(s);
	if (o->tee && open_recording(s, o, err, errlen) != 0)
		goto fail;
	sampler_sizes(o, s->ncpus > 0 ? s->ncpus : 1, s->page_size, &sz);
	s->q = queue_new(o->queue_bytes ? o->queue_bytes : sz.queue_bytes);
	s->pfds = xcalloc(s->nfds ? s->nfds : 1, sizeof(*s->pfds));
	return s;

fail:
	sampler_free(s);
	return NULL;
}

void sampler_free(struct sampler *s)
{
	if (!s)
		return;
	sampler_stop(s);
	for (int i = 0; i < s->nrings; i++) {
		free(s->rings[i].arena);
		free(s->rings[i].idx);
	}
	close_cgroups(s);
	synth_cgroups_free(s->synth_cgroups);
	free(s->rings);
	free(s->fds);
	free(s->idmap.keys);
	free(s->idmap.vals);
	for (int e = 0; e < SAMPLER_MAX_EVENTS; e++)
		free(s->ev[e].filter);
	free(s->pfds);
	free(s->cpus);
	free(s->ids);
	free(s->cmd_name);
	counters_free(s->counters);
	offcpu_free(s->offcpu);
	pthread_mutex_destroy(&s->offcpu_lock);
	queue_free(s->q);
	if (s->wake_fd >= 0)
		close(s->wake_fd);
	free(s);
}

struct queue *sampler_queue(struct sampler *s)
{
	return s->q;
}

int sampler_wake_fd(const struct sampler *s)
{
	return s->wake_fd;
}

void sampler_wake_clear(struct sampler *s)
{
	uint64_t v;
	if (s->wake_fd < 0 || !atomic_load(&s->wake_pending))
		return;  /* nothing signalled since the last clear: no read needed */
	/* The descriptor is read before the flag is cleared: a write between the two is skipped by
	 * the thread (the flag still set), but its records are in the queue before the drain that
	 * follows this clear; every push after the clear finds the flag down and writes.
	 * EAGAIN: the thread set the flag and has not written yet. The flag stays up, so that its
	 * write is read at the next clear: lowered now, the write would leave the descriptor readable
	 * with the flag down, later clears would skip the read, and a view waiting on it would wake
	 * at once, turn after turn, until the thread's next push (on an idle target, never). */
	if (read(s->wake_fd, &v, sizeof(v)) < 0)
		return;
	atomic_store(&s->wake_pending, false);
}

void sampler_get_stats(struct sampler *s, struct sampler_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->samples = atomic_load_explicit(&s->st_samples, memory_order_relaxed);
	st->records = atomic_load_explicit(&s->st_records, memory_order_relaxed);
	st->lost = atomic_load_explicit(&s->st_lost, memory_order_relaxed);
	st->dropped = s->q ? queue_dropped(s->q) : 0;
	st->overruns = atomic_load_explicit(&s->st_overruns, memory_order_relaxed);
	st->throttled = atomic_load_explicit(&s->st_throttled, memory_order_relaxed);
	st->bad_records = atomic_load_explicit(&s->st_bad, memory_order_relaxed);
	st->out_of_order = atomic_load_explicit(&s->st_out_of_order, memory_order_relaxed);
	/* The thread stores exit_status before target_exited (seq_cst): read in the other order. */
	st->target_exited = atomic_load(&s->st_exited);
	st->exit_status = atomic_load(&s->st_exit_status);
	st->synth_truncated = atomic_load(&s->st_synth_truncated);
	st->recording = s->tee != NULL;
	st->record_error = atomic_load(&s->st_rec_err);
	st->record_bytes = atomic_load_explicit(&s->st_rec_bytes, memory_order_relaxed);
	st->record_write_ns = atomic_load_explicit(&s->st_rec_write_ns, memory_order_relaxed);
	st->nevents = s->nev;
	if (s->nev == 1)
		st->event_samples[0] = st->samples;
	for (int e = 0; e < s->nev && s->nev > 1; e++)
		st->event_samples[e] = atomic_load_explicit(&s->ev[e].samples, memory_order_relaxed);
	if (s->offcpu) {
		st->offcpu = true;
		pthread_mutex_lock(&s->offcpu_lock);
		st->offcpu_stats = s->offcpu_stats;
		pthread_mutex_unlock(&s->offcpu_lock);
	}
}

int sampler_nevents(const struct sampler *s)
{
	return s->nev;
}

static const struct sampler_ev *sampler_ev(const struct sampler *s, int ev)
{
	return &s->ev[ev >= 0 && ev < s->nev ? ev : 0];
}

const char *sampler_event_name(const struct sampler *s, int ev)
{
	return sampler_ev(s, ev)->name;
}

const struct perf_event_attr *sampler_event_attr(const struct sampler *s, int ev)
{
	return &sampler_ev(s, ev)->attr;
}

bool sampler_event_fell_back(const struct sampler *s)
{
	return s->fell_back;
}

bool sampler_has_cgroup(const struct sampler *s)
{
	return s->has_cgroup;
}

uint64_t sampler_freq(const struct sampler *s, int ev)
{
	const struct perf_event_attr *a = sampler_event_attr(s, ev);
	return a->freq ? a->sample_freq : 0;
}

uint64_t sampler_period(const struct sampler *s, int ev)
{
	const struct perf_event_attr *a = sampler_event_attr(s, ev);
	return a->freq ? 0 : a->sample_period;
}

pid_t sampler_child_pid(const struct sampler *s)
{
	return s->cmd.pid;
}

int sampler_nr_cpus(const struct sampler *s)
{
	return s->ncpus;
}

int sampler_read_counters(struct sampler *s, struct counter_values *v)
{
	return counters_read(s->counters, v);
}
