/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libc_leaves: CPU time spent inside libc's string functions, called by functions of known shares.
 * Debian's libc is built without frame pointers, so a frame-pointer chain taken in strlen or memcpy
 * reads the return address at RBP + 8, where RBP is still the caller's frame record: the caller of
 * the libc function is skipped. The default call graph (frame pointers, their first frames from CFI)
 * must show it.
 *
 * scan_a and scan_b call strlen over a 64 KiB string, copy_a and copy_b memcpy 64 KiB, the _a ones
 * twice as many times as the _b ones per round, for SECONDS of the thread's CPU time. Each call of
 * the four is timed on the thread's CPU clock around it, and the program writes one JSON object to
 * FILE (stdout is a profiler's when it runs the program): per function its CPU nanoseconds and
 * calls, and the whole run's CPU nanoseconds (cpu_ns).
 *
 *     libc_leaves SECONDS FILE
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline, noipa))
#define KEEP() __asm__ volatile("" ::: "memory")
#define LEN (64 * 1024)

static char *volatile text;
static char *volatile src, *volatile dst;
static volatile size_t sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

NOINLINE size_t scan_a(void)
{
	size_t n = strlen(text);
	KEEP();
	return n;
}

NOINLINE size_t scan_b(void)
{
	size_t n = strlen(text);
	KEEP();
	return n;
}

NOINLINE void copy_a(void)
{
	memcpy(dst, src, LEN);
	KEEP();
}

NOINLINE void copy_b(void)
{
	memcpy(dst, src, LEN);
	KEEP();
}

enum { F_SCAN_A, F_SCAN_B, F_COPY_A, F_COPY_B, NF };
static const char *const names[NF] = {"scan_a", "scan_b", "copy_a", "copy_b"};
static uint64_t ns[NF], calls[NF];

/* A batch of BATCH calls timed together: the thread's CPU clock is a system call, as long as a
 * call of these on some machines. */
#define BATCH 200
#define TIMED(f, call)                                  \
	do {                                            \
		uint64_t t0 = cpu_ns();                 \
		for (int k = 0; k < BATCH; k++)         \
			call;                           \
		ns[f] += cpu_ns() - t0;                 \
		calls[f] += BATCH;                      \
	} while (0)

int main(int argc, char **argv)
{
	double secs = argc > 2 ? atof(argv[1]) : 0;
	if (secs <= 0) {
		fprintf(stderr, "usage: libc_leaves SECONDS FILE\n");
		return 2;
	}
	FILE *out = fopen(argv[2], "w");
	if (!out) {
		perror(argv[2]);
		return 1;
	}
	text = malloc(LEN + 1);
	src = malloc(LEN);
	dst = malloc(LEN);
	if (!text || !src || !dst)
		return 1;
	memset(text, 'x', LEN);
	text[LEN] = 0;
	memset(src, 1, LEN);
	uint64_t start = cpu_ns(), end = start + (uint64_t)(secs * 1e9);
	while (cpu_ns() < end) {
		for (int i = 0; i < 2; i++) {
			TIMED(F_SCAN_A, sink += scan_a());
			TIMED(F_SCAN_A, sink += scan_a());
			TIMED(F_SCAN_B, sink += scan_b());
			TIMED(F_COPY_A, copy_a());
			TIMED(F_COPY_A, copy_a());
			TIMED(F_COPY_B, copy_b());
		}
	}
	fprintf(out, "{\"cpu_ns\": %llu, \"functions\": {", (unsigned long long)(cpu_ns() - start));
	for (int f = 0; f < NF; f++)
		fprintf(out, "%s\"%s\": {\"ns\": %llu, \"calls\": %llu}", f ? ", " : "", names[f],
			(unsigned long long)ns[f], (unsigned long long)calls[f]);
	fprintf(out, "}}\n");
	return fclose(out) == 0 ? 0 : 1;
}
