/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfprobe: whether this machine lets a test open the perf events it needs, decided by asking the
 * kernel (perf_event_open of cpu-clock with the options the test needs), never by reading what
 * perftop or perf print. The live tests skip (exit 77) only on the kernel's refusal, and only where
 * the refusal is expected: a process with CAP_PERFMON or CAP_SYS_ADMIN (root, as the suite runs on
 * its machines) is never refused cpu-clock, so there a refusal is a failure, not a skip.
 *
 * Kinds: "task" (sampling this process, with inherit and call chains, per task and per CPU: what a
 * command, -p and -t need), "cpu" (every process on CPU 0: -a and -C), "dwarf" (task with the user
 * registers and stack: --call-graph dwarf), "tracepoint:SUBSYS:NAME" (that tracepoint in tracefs,
 * opened on this process), and the hardware-PMU kinds below (a refusal of those is a skip of the
 * part that needs them, never a failure). perf_probe.c wraps it as a command for the Python and
 * shell tests; the C tests include it.
 */
#ifndef PERFTOP_TEST_PERFPROBE_H
#define PERFTOP_TEST_PERFPROBE_H

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Opens one cpu-clock sampling event of kind on (pid, cpu); 0 or -errno. User space only when
 * user_only (what perftop falls back to for its own tasks under perf_event_paranoid 2). */
static int perfprobe_open1(const char *kind, int pid, int cpu, bool user_only)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = 999;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	a.disabled = 1;
	a.inherit = pid != -1;
	a.mmap = a.comm = a.task = 1;
	a.sample_id_all = 1;
	a.exclude_kernel = a.exclude_hv = user_only;
	if (strcmp(kind, "dwarf") == 0) {
		a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a.sample_regs_user = 0xff0fff; /* x86-64: the general registers, ip, sp */
		a.sample_stack_user = 8192;
	}
	long fd = syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close((int)fd);
	return 0;
}

static int perfprobe_open(const char *kind, int pid, int cpu)
{
	int rc = perfprobe_open1(kind, pid, cpu, false);
	if ((rc == -EACCES || rc == -EPERM) && pid != -1)
		rc = perfprobe_open1(kind, pid, cpu, true);
	return rc;
}

/* CAP_PERFMON (38) or CAP_SYS_ADMIN (21) in this process's effective set. */
static bool perfprobe_privileged(void)
{
	char line[256];
	unsigned long long eff = 0;
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return (eff >> 38 & 1) || (eff >> 21 & 1);
}

/*
 * The hardware-PMU kinds: whether the kernel opens the hardware events of perftop's PMU paths, on
 * this process as perftop opens them for a command (sampling at 999 Hz; user space only when the
 * policy keeps the kernel out). A refusal here is never a failure: a machine without a PMU (a VM),
 * or whose PMU lacks precise sampling or branch records, is a machine, not a fault.
 *
 *   cycles    PERF_TYPE_HARDWARE cycles                         (-e cycles, the default event)
 *   precise   the same with precise_ip 2                        (-e cycles:pp: PEBS, IBS)
 *   raw       PERF_TYPE_RAW config 0x1c2                        (-e r01c2)
 *   cpu-pmu   the cpu PMU's type (sysfs cpu/type), config 0x3c  (-e cpu/event=0x3c/)
 *   group     cycles leading instructions, both sampling        (-e '{cycles,instructions}')
 *   counters  the counting group cycles + instructions          (the header's counters and IPC)
 *   cache     PERF_TYPE_HW_CACHE L1D read misses                (-e L1-dcache-load-misses)
 *   lbr       cycles with user call-stack branch records        (LBR call stacks)
 */
static const char *const perfprobe_hw_kinds[] = { "cycles", "precise", "raw", "cpu-pmu", "group",
						   "counters", "cache", "lbr" };

static bool perfprobe_is_hw(const char *kind)
{
	for (size_t i = 0; i < sizeof(perfprobe_hw_kinds) / sizeof(perfprobe_hw_kinds[0]); i++)
		if (strcmp(kind, perfprobe_hw_kinds[i]) == 0)
			return true;
	return false;
}

/* The errno's own name (the test matches on it), or "errno N". */
static const char *perfprobe_errno_name(int e)
{
	static char buf[32];
	switch (e) {
	case ENOENT: return "ENOENT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case E2BIG: return "E2BIG";
	case EBUSY: return "EBUSY";
	case ENOSPC: return "ENOSPC";
	case EMFILE: return "EMFILE";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

/* One hardware event on this process; its fd (the caller closes it) or -errno. */
static int perfprobe_hw_open(struct perf_event_attr *a, int group_fd)
{
	a->size = sizeof(*a);
	for (;;) {
		long fd = syscall(SYS_perf_event_open, a, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			return (int)fd;
		if ((errno == EACCES || errno == EPERM) && !a->exclude_kernel) {
			a->exclude_kernel = a->exclude_hv = 1;
			continue;
		}
		return -errno;
	}
}

static void perfprobe_hw_sampling(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->config = config;
	a->freq = 1;
	a->sample_freq = 999;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	a->disabled = 1;
}

/* The cpu PMU's type from sysfs, or -1 (no such PMU: a VM without one, or a hybrid CPU's
 * cpu_core/cpu_atom). */
static int perfprobe_cpu_pmu_type(void)
{
	int type = -1;
	FILE *f = fopen("/sys/bus/event_source/devices/cpu/type", "r");
	if (f) {
		if (fscanf(f, "%d", &type) != 1)
			type = -1;
		fclose(f);
	}
	return type;
}

/* Opens the hardware kind's events: 0, or -errno with what was refused in why. */
static int perfprobe_hw(const char *kind, char *why, size_t len)
{
	struct perf_event_attr a, m;
	const char *what;
	int fd, member = -1, rc;
	if (strcmp(kind, "cycles") == 0) {
		what = "PERF_TYPE_HARDWARE cycles";
		perfprobe_hw_sampling(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	} else if (strcmp(kind, "precise") == 0) {
		what = "PERF_TYPE_HARDWARE cycles with precise_ip 2 (:pp)";
		perfprobe_hw_sampling(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
		a.precise_ip = 2;
	} else if (strcmp(kind, "raw") == 0) {
		what = "PERF_TYPE_RAW config 0x1c2 (r01c2)";
		perfprobe_hw_sampling(&a, PERF_TYPE_RAW, 0x1c2);
	} else if (strcmp(kind, "cpu-pmu") == 0) {
		int type = perfprobe_cpu_pmu_type();
		if (type < 0) {
			snprintf(why, len, "the kernel has no PMU named cpu (cpu/event=0x3c/): "
				 "/sys/bus/event_source/devices/cpu/type: ENOENT (No such file or "
				 "directory)");
			return -ENOENT;
		}
		what = "the cpu PMU's type, config 0x3c (cpu/event=0x3c/)";
		perfprobe_hw_sampling(&a, (uint32_t)type, 0x3c);
	} else if (strcmp(kind, "group") == 0) {
		what = "a sampling group {cycles,instructions}";
		perfprobe_hw_sampling(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
		perfprobe_hw_sampling(&m, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
		m.disabled = 0;
	} else if (strcmp(kind, "counters") == 0) {
		what = "the counting group cycles + instructions (IPC)";
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_CPU_CYCLES;
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		a.disabled = 1;
		m = a;
		m.config = PERF_COUNT_HW_INSTRUCTIONS;
		m.disabled = 0;
	} else if (strcmp(kind, "cache") == 0) {
		what = "PERF_TYPE_HW_CACHE L1D read misses (L1-dcache-load-misses)";
		perfprobe_hw_sampling(&a, PERF_TYPE_HW_CACHE,
				      PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
					      PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	} else if (strcmp(kind, "lbr") == 0) {
		what = "PERF_TYPE_HARDWARE cycles with user call-stack branch records (LBR)";
		perfprobe_hw_sampling(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
		a.sample_type |= PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_CALLCHAIN;
		a.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK;
		a.exclude_kernel = a.exclude_hv = 1;
	} else {
		snprintf(why, len, "unknown hardware probe kind '%s'", kind);
		return -EINVAL;
	}
	fd = perfprobe_hw_open(&a, -1);
	if (fd >= 0 && (strcmp(kind, "group") == 0 || strcmp(kind, "counters") == 0)) {
		m.exclude_kernel = m.exclude_hv = a.exclude_kernel;
		member = perfprobe_hw_open(&m, fd);
		if (member < 0) {
			close(fd);
			fd = member;
			what = strcmp(kind, "group") == 0
				       ? "instructions as a member of a sampling group led by cycles"
				       : "instructions as a member of the counting group led by cycles";
		}
	}
	if (fd < 0) {
		rc = fd;
		snprintf(why, len, "kernel refused %s: %s (%s)", what, perfprobe_errno_name(-rc),
			 strerror(-rc));
		return rc;
	}
	if (member >= 0)
		close(member);
	close(fd);
	snprintf(why, len, "kernel opens %s", what);
	return 0;
}

/*
 * The verdict for a tracepoint, "SUBSYS:NAME": 0 when tracefs has it and the kernel opens it
 * (sampling this process at every hit); 77 (skip) when tracefs is not mounted, has no such
 * tracepoint, or keeps an unprivileged process out; 1 when the kernel refuses it to a privileged
 * process. Only the filesystem and the kernel are asked: tracefs is looked for where perf looks
 * (/sys/kernel/tracing, then /sys/kernel/debug/tracing) and never mounted here (the suite's
 * tracefs fixture mounts it, tests/lib/tracefs-fixture.sh).
 */
static int perfprobe_tracepoint_verdict(const char *tp, char *why, size_t len)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char sys[128], name[128], path[512];
	const char *colon = strchr(tp, ':');
	if (!colon || colon == tp || !colon[1] || (size_t)(colon - tp) >= sizeof(sys) ||
	    strlen(colon + 1) >= sizeof(name)) {
		snprintf(why, len, "not a tracepoint name '%s' (SUBSYS:NAME)", tp);
		return 1;
	}
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - tp), tp);
	snprintf(name, sizeof(name), "%s", colon + 1);
	const char *root = NULL;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]) && !root; i++) {
		snprintf(path, sizeof(path), "%s/events", roots[i]);
		if (access(path, F_OK) == 0)
			root = roots[i];
	}
	if (!root) {
		snprintf(why, len, "tracefs is not mounted (no events/ under /sys/kernel/tracing or "
			 "/sys/kernel/debug/tracing): mount -t tracefs nodev /sys/kernel/tracing");
		return 77;
	}
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, sys, name);
	FILE *f = fopen(path, "r");
	unsigned long long id = 0;
	if (!f) {
		int e = errno;
		bool wrong = (e == EACCES || e == EPERM) && perfprobe_privileged();
		snprintf(why, len, "cannot read %.160s: %s%s", path, strerror(e),
			 wrong ? " (with CAP_PERFMON/CAP_SYS_ADMIN: a failure)" : "");
		return wrong ? 1 : 77;
	}
	int got = fscanf(f, "%llu", &id);
	fclose(f);
	if (got != 1) {
		snprintf(why, len, "%.160s holds no id", path);
		return 1;
	}
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = id;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	a.disabled = 1;
	a.inherit = 1;
	a.sample_id_all = 1;
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close((int)fd);
		snprintf(why, len, "perf_event_open of %.100s (id %llu in %s) works", tp, id, root);
		return 0;
	}
	int e = errno;
	bool wrong = (e == EACCES || e == EPERM) && perfprobe_privileged();
	snprintf(why, len, "perf_event_open of %.100s refused: %s%s", tp, strerror(e),
		 wrong ? " (with CAP_PERFMON/CAP_SYS_ADMIN: a refusal there is a failure)" : "");
	return wrong ? 1 : 77;
}


/*
 * The verdict for kind: 0 when the events open; 77 (skip) when the kernel refuses them (no perf
 * events, or the policy keeps an unprivileged process out); 1 (fail) when the policy refuses them
 * to a privileged process, or kind is unknown. why gets the reason in words.
 */
static int perfprobe_verdict(const char *kind, char *why, size_t len)
{
	int rc;
	if (perfprobe_is_hw(kind))
		return perfprobe_hw(kind, why, len) == 0 ? 0 : 77;
	if (strncmp(kind, "tracepoint:", 11) == 0)
		return perfprobe_tracepoint_verdict(kind + 11, why, len);
	if (strcmp(kind, "task") == 0) {
		rc = perfprobe_open(kind, 0, -1);
		if (rc == 0)
			rc = perfprobe_open(kind, 0, 0);
	} else if (strcmp(kind, "dwarf") == 0) {
		rc = perfprobe_open(kind, 0, -1);
	} else if (strcmp(kind, "cpu") == 0) {
		rc = perfprobe_open(kind, -1, 0);
	} else {
		snprintf(why, len, "unknown probe kind '%s' (task, cpu, dwarf, tracepoint:SUBSYS:NAME, or a "
			 "hardware one: cycles, precise, raw, cpu-pmu, group, counters, cache, lbr)", kind);
		return 1;
	}
	if (rc == 0) {
		snprintf(why, len, "perf_event_open of cpu-clock (%s) works", kind);
		return 0;
	}
	int paranoid = -100;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = -100;
		fclose(f);
	}
	/* Refused by policy to a process the policy lets through: something is wrong here. */
	bool wrong = (rc == -EACCES || rc == -EPERM) && paranoid != -100 && perfprobe_privileged();
	snprintf(why, len,
		 "perf_event_open of cpu-clock (%s) refused: %s (perf_event_paranoid %d%s)", kind,
		 strerror(-rc), paranoid,
		 wrong ? ", with CAP_PERFMON/CAP_SYS_ADMIN: a refusal there is a failure" : "");
	return wrong ? 1 : 77;
}

#endif
