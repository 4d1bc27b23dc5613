/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * probe_target: a program whose own counts the event tests compare with. probed() is called
 * exactly CALLS times, two thirds of them from caller_a and one third from caller_b, and so is
 * probed_nofp(), built without a frame pointer (its first instruction is no push %rbp); the file is
 * opened OPENS times (openat); page_toucher() touches PAGES fresh pages (page faults); a global,
 * watched, is written CALLS times (a breakpoint's target). It prints what it did, then lingers
 * LINGER_MS (the live tests' symbols are read while the process still exists).
 *
 *     probe_target [CALLS [OPENS [PAGES [LINGER_MS]]]]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

volatile long watched;

__attribute__((noinline)) long probed(long x)
{
	watched += x;
	return watched;
}

/* A probe at its entry: the caller's return address is at the stack pointer and RBP is still the
 * caller's, so the kernel's frame-pointer walk goes from the caller's caller on. */
__attribute__((noinline, optimize("omit-frame-pointer"))) long probed_nofp(long x)
{
	watched += x;
	return watched;
}

__attribute__((noinline)) void caller_a(long n)
{
	for (long i = 0; i < n; i++) {
		probed(i);
		probed_nofp(i);
	}
}

__attribute__((noinline)) void caller_b(long n)
{
	for (long i = 0; i < n; i++) {
		probed(i);
		probed_nofp(i);
	}
}

__attribute__((noinline)) long opener(long n, const char *path)
{
	long ok = 0;
	for (long i = 0; i < n; i++) {
		/* O_NOCTTY (nothing for a regular file) tells these opens from the loader's */
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (fd >= 0) {
			ok++;
			close(fd);
		}
	}
	return ok;
}

__attribute__((noinline)) long page_toucher(long pages)
{
	long size = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, (size_t)(pages * size), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 0;
	madvise(m, (size_t)(pages * size), MADV_NOHUGEPAGE); /* a fault per page, not per 2 MiB */
	for (long i = 0; i < pages; i++)
		m[i * size] = 1;
	munmap(m, (size_t)(pages * size));
	return pages;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 3000;
	long opens = argc > 2 ? atol(argv[2]) : 0;
	long pages = argc > 3 ? atol(argv[3]) : 0;
	long linger_ms = argc > 4 ? atol(argv[4]) : 0;
	caller_a(calls - calls / 3);
	caller_b(calls / 3);
	long opened = opener(opens, argv[0]);
	long touched = page_toucher(pages);
	printf("calls %ld caller_a %ld caller_b %ld opens %ld pages %ld\n", calls, calls - calls / 3,
	       calls / 3, opened, touched);
	fflush(stdout);
	if (linger_ms > 0)
		usleep((useconds_t)linger_ms * 1000);
	return 0;
}
