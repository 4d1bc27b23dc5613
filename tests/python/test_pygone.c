/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_pygone: a CPython process that exits while perftop looks at it is not reported as one it
 * cannot read. Under a system-wide session, short-lived interpreters (`python3 -c pass`) exit all
 * the time between the read of their maps and the read of their memory; that is their exit, and a
 * warning about it ("cannot read its memory (No such process), native frames only") is noise
 * that tools printing nothing but their output (the push agent) must not show.
 *
 * The race is made certain: the test is linked with process_vm_readv wrapped (-Wl,--wrap), and
 * the first read of the child's memory kills the child first and waits until it is a zombie (its
 * pid still there, its memory gone). A second child that stays alive but is read through a
 * failing read shows that a live interpreter perftop cannot read is still reported.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "python/pystacks.h"
#include "pystub.h"

ssize_t __real_process_vm_readv(pid_t pid, const struct iovec *local, unsigned long nlocal,
				const struct iovec *remote, unsigned long nremote, unsigned long flags);
ssize_t __wrap_process_vm_readv(pid_t pid, const struct iovec *local, unsigned long nlocal,
				const struct iovec *remote, unsigned long nremote, unsigned long flags);

enum { READ_PASS, READ_KILL_FIRST, READ_FAIL_EPERM };
static int read_mode = READ_PASS;
static int reads_seen;

ssize_t __wrap_process_vm_readv(pid_t pid, const struct iovec *local, unsigned long nlocal,
				const struct iovec *remote, unsigned long nremote, unsigned long flags)
{
	reads_seen++;
	if (read_mode == READ_FAIL_EPERM) {
		errno = EPERM;
		return -1;
	}
	if (read_mode == READ_KILL_FIRST) {
		read_mode = READ_PASS;
		kill(pid, SIGKILL);
		siginfo_t si;
		/* a zombie: the pid stays, the memory is gone */
		waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT);
	}
	return __real_process_vm_readv(pid, local, nlocal, remote, nremote, flags);
}

/* A python3.X binary of this machine (resolved, so that its file's name is python3.X), or 0. */
static int find_python(char *out, size_t cap)
{
	const char *cands[] = { "/usr/bin/python3", "/usr/local/bin/python3" };
	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		char real[PATH_MAX];
		if (realpath(cands[i], real) && strstr(real, "/python3.") && access(real, X_OK) == 0) {
			snprintf(out, cap, "%s", real);
			return 1;
		}
	}
	return 0;
}

/* Starts the interpreter sleeping, and waits until it runs it (its exe is the interpreter). */
static pid_t start_python(const char *python)
{
	pid_t pid = fork();
	if (pid == 0) {
		execl(python, python, "-c", "import time; time.sleep(60)", (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0);
	char link[64], target[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	for (int i = 0; i < 500; i++) {
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = 0;
			if (strcmp(target, python) == 0)
				break;
		}
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	/* the interpreter's runtime is set up by the time it sleeps; a little slack for its start */
	struct timespec ts = { 0, 300 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	return pid;
}

/* A native chain that runs through the interpreter's binary (what makes pystacks look). */
static int sample(struct pystacks *p, pid_t pid, const char *python)
{
	struct frame f[8];
	memset(f, 0, sizeof(f));
	const char *base = strrchr(python, '/') + 1;
	f[0] = (struct frame){ .sym = "_PyEval_EvalFrameDefault", .dso = base, .addr = 0x1000 };
	f[1] = (struct frame){ .sym = "main", .dso = base, .addr = 0x2000 };
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	uint64_t t = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	return pystacks_sample(p, (uint32_t)pid, (uint32_t)pid, t, f, 2, 8);
}

int main(void)
{
	char python[PATH_MAX];
	if (!find_python(python, sizeof(python))) {
		printf("SKIP: no /usr/bin/python3 resolving to a python3.X binary\n");
		return 77;
	}
	printf("interpreter: %s\n", python);

	/* exits between the read of its maps and the read of its memory: no notice */
	pid_t pid = start_python(python);
	struct pystacks *p = pystacks_new(same_name, no_gen, NULL, 1000000, 100);
	read_mode = READ_KILL_FIRST;
	reads_seen = 0;
	sample(p, pid, python);
	printf("gone: %d reads, notice: %s\n", reads_seen, pystacks_notice(p) ? pystacks_notice(p) : "none");
	CHECK(reads_seen > 0);  /* the race was made: its memory was read after it died */
	CHECK(pystacks_notice(p) == NULL);
	waitpid(pid, NULL, 0);
	pystacks_free(p);

	/* alive, its memory not readable: the notice says so */
	pid = start_python(python);
	p = pystacks_new(same_name, no_gen, NULL, 1000000, 100);
	read_mode = READ_FAIL_EPERM;
	sample(p, pid, python);
	read_mode = READ_PASS;
	printf("alive: notice: %s\n", pystacks_notice(p) ? pystacks_notice(p) : "none");
	CHECK(pystacks_notice(p) != NULL && strstr(pystacks_notice(p), "native frames only"));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	pystacks_free(p);
	return check_failures ? 1 : 0;
}
