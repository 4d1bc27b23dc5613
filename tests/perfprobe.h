/*
 * perfprobe: whether this machine lets a test open the perf events it needs, decided by asking the
 * kernel (perf_event_open of cpu-clock with the options the test needs), never by reading what
 * perftop or perf print. The live tests skip (exit 77) only on the kernel's refusal, and only where
 * the refusal is expected: a process with CAP_PERFMON or CAP_SYS_ADMIN (root, as the suite runs on
 * its machines) is never refused cpu-clock, so there a refusal is a failure, not a skip.
 *
 * Kinds: "task" (sampling this process, with inherit and call chains, per task and per CPU: what a
 * command, -p and -t need), "cpu" (every process on CPU 0: -a and -C), "dwarf" (task with the user
 * registers and stack: --call-graph dwarf). perf_probe.c wraps it as a command for the Python and
 * shell tests; the C tests include it.
 */
#ifndef PERFTOP_TEST_PERFPROBE_H
#define PERFTOP_TEST_PERFPROBE_H

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
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
 * The verdict for kind: 0 when the events open; 77 (skip) when the kernel refuses them (no perf
 * events, or the policy keeps an unprivileged process out); 1 (fail) when the policy refuses them
 * to a privileged process, or kind is unknown. why gets the reason in words.
 */
static int perfprobe_verdict(const char *kind, char *why, size_t len)
{
	int rc;
	if (strcmp(kind, "task") == 0) {
		rc = perfprobe_open(kind, 0, -1);
		if (rc == 0)
			rc = perfprobe_open(kind, 0, 0);
	} else if (strcmp(kind, "dwarf") == 0) {
		rc = perfprobe_open(kind, 0, -1);
	} else if (strcmp(kind, "cpu") == 0) {
		rc = perfprobe_open(kind, -1, 0);
	} else {
		snprintf(why, len, "unknown probe kind '%s' (task, cpu, dwarf)", kind);
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
