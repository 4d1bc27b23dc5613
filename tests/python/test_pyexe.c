/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_pyexe: how often pystacks looks at a sampled process's executable again besides the events
 * that say it changed. A look is a stat of /proc/PID/exe (counted here: the test is linked with
 * stat wrapped); under a busy view it was one every 100 ms per Python process, 1.65% of perftop's
 * CPU. The events (exec, fork, exit) say when an executable changes, so without lost records a look
 * is due only every few seconds; once records were lost (an exec's may be among them), within a
 * tenth of a second, and then slowly again. The samples' times are made up (10 ms apart over 10 s
 * of sample clock), so the test takes no 10 s: a child sleeping is the sampled process, and the
 * made-up chains run through a python3.X binary's name, which is what makes pystacks look.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "python/pystacks.h"
#include "pystub.h"

int __real_stat(const char *path, struct stat *sb);
int __wrap_stat(const char *path, struct stat *sb);

static pid_t watched;
static int exe_looks;

int __wrap_stat(const char *path, struct stat *sb)
{
	char exe[48];
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)watched);
	if (watched && strcmp(path, exe) == 0)
		exe_looks++;
	return __real_stat(path, sb);
}

#define MS 1000000ull

/* A sample of the child at t0 + ms: a chain through an interpreter's binary by its name. */
static void sample_at(struct pystacks *p, uint64_t t0, uint64_t ms)
{
	struct frame f[8];
	memset(f, 0, sizeof(f));
	f[0] = (struct frame){ .sym = "_PyEval_EvalFrameDefault", .dso = "python3.11", .addr = 0x1000 };
	f[1] = (struct frame){ .sym = "main", .dso = "python3.11", .addr = 0x2000 };
	pystacks_sample(p, (uint32_t)watched, (uint32_t)watched, t0 + ms * MS, f, 2, 8);
}

/* The looks made by samples every 10 ms over [from, to) ms. */
static int looks_over(struct pystacks *p, uint64_t t0, uint64_t from, uint64_t to)
{
	int before = exe_looks;
	for (uint64_t ms = from; ms < to; ms += 10)
		sample_at(p, t0, ms);
	return exe_looks - before;
}

int main(void)
{
	watched = fork();
	if (watched == 0) {
		execl("/bin/sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	CHECK(watched > 0);
	/* until it runs sleep (its exe is no longer this test's) */
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	nanosleep(&pause, NULL);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	uint64_t t0 = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	struct pystacks *p = pystacks_new(same_name, no_gen, NULL, 1000000, 100);

	int first = looks_over(p, t0, 0, 10);
	int quiet = looks_over(p, t0, 10, 5000);
	printf("looks: %d at the first sample, %d over the next 5 s of samples\n", first, quiet);
	CHECK(first >= 1);          /* looked at once it ran through an interpreter */
	CHECK(quiet >= 1 && quiet <= 3); /* every 2 s, not every 100 ms (49 then) */

	/* the records lost at 5.005 s are told before the samples after them */
	pystacks_records_lost(p, t0 + 5005 * MS);
	int soon = looks_over(p, t0, 5010, 5160);
	int after = looks_over(p, t0, 5160, 10000);
	printf("looks: %d within 150 ms of records lost, %d over the 4.85 s after\n", soon, after);
	CHECK(soon == 1);           /* the loss may have hidden an exec: looked at again at once */
	CHECK(after >= 1 && after <= 3); /* and then slowly again */

	pystacks_free(p);
	kill(watched, SIGKILL);
	waitpid(watched, NULL, 0);
	return check_failures ? 1 : 0;
}
