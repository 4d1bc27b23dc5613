/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pysnap: a seed for fuzz_pyread from a real CPython process: pysnap PID TID OUT finds its
 * interpreter (pyproc_find), makes one sample's reads of thread TID (pywalk.c) with a py_read that
 * keeps every byte it read, and writes those bytes as fuzz_pyread's input (its head, then the
 * regions read, merged where they touch or lie within 256 bytes). Only what perftop reads of the
 * process goes out: its interpreter's state, frames, code objects, names and line tables.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "pywalk.h"

#define KEPT 8192

static struct { uint64_t addr; size_t len; uint8_t *p; } kept[KEPT];
static int nkept;

int py_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (got < 0)
		return -errno;
	if ((size_t)got != len)
		return -EFAULT;
	if (nkept < KEPT && len) {
		kept[nkept].addr = addr;
		kept[nkept].len = len;
		kept[nkept].p = malloc(len);
		memcpy(kept[nkept].p, buf, len);
		nkept++;
	}
	return 0;
}

int py_readv(pid_t pid, const struct py_span *s, int n)
{
	int whole = 0;
	while (whole < n && py_read(pid, s[whole].addr, s[whole].buf, s[whole].len) == 0)
		whole++;
	return whole;
}

static int by_addr(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void put(FILE *f, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		fputc((int)(v >> (8 * i) & 0xff), f);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: pysnap PID TID OUT\n");
		return 2;
	}
	pid_t pid = (pid_t)atoi(argv[1]);
	uint32_t tid = (uint32_t)atoi(argv[2]);
	struct pyproc p;
	char err[256] = "";
	if (pyproc_find(pid, &p, err, sizeof(err)) != 1) {
		fprintf(stderr, "pysnap: %d is no CPython perftop reads%s%s\n", (int)pid, err[0] ? ": " : "", err);
		return 1;
	}
	static struct pywalk w;
	pywalk_run(pid, &p, tid, &w);
	int sel = p.lay.minor >= 8 && p.lay.minor <= 13 ? p.lay.minor - 8 : 0;
	qsort(kept, (size_t)nkept, sizeof(kept[0]), by_addr);
	FILE *f = fopen(argv[3], "wb");
	if (!f)
		return 1;
	put(f, (uint64_t)sel, 4);
	put(f, tid, 4);
	put(f, p.runtime, 8);
	put(f, p.pthread_tid, 8);
	int regions = 0;
	for (int i = 0; i < nkept && regions < 128;) {
		/* one region from kept[i] on, through every read it overlaps or touches */
		uint64_t lo = kept[i].addr, hi = lo + kept[i].len;
		int j = i + 1;
		while (j < nkept && kept[j].addr <= hi + 256) {
			if (kept[j].addr + kept[j].len > hi)
				hi = kept[j].addr + kept[j].len;
			j++;
		}
		uint8_t *buf = calloc(1, (size_t)(hi - lo));
		for (int k = i; k < j; k++)
			memcpy(buf + (kept[k].addr - lo), kept[k].p, kept[k].len);
		put(f, lo, 8);
		put(f, hi - lo, 4);
		fwrite(buf, 1, (size_t)(hi - lo), f);
		free(buf);
		regions++;
		i = j;
	}
	fclose(f);
	printf("pysnap: CPython %s, %d frames, %d regions\n", p.version, w.n, regions);
	return 0;
}
