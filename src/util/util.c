/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util: allocation that never returns NULL, fatal errors that restore the terminal first,
 * warnings that can be routed to the view, and the monotonic clock.
 */
#include "util/util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void (*fatal_hook)(void);
static void (*warn_hook)(const char *msg);

void util_set_fatal_hook(void (*hook)(void)) { fatal_hook = hook; }
void util_set_warn_hook(void (*hook)(const char *msg)) { warn_hook = hook; }

static void run_fatal_hook(void)
{
	void (*hook)(void) = fatal_hook;
	fatal_hook = NULL; /* never twice, even if the hook itself fails */
	if (hook)
		hook();
}

_Noreturn void die(const char *fmt, ...)
{
	va_list ap;
	run_fatal_hook();
	fputs("perftop: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void warn_msg(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (warn_hook)
		warn_hook(buf);
	else
		fprintf(stderr, "perftop: %s\n", buf);
}

static _Noreturn void out_of_memory(size_t n)
{
	die("out of memory (allocating %zu bytes)", n);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		out_of_memory(nmemb * size);
	return p;
}

void *xcalloc_lines(size_t nmemb, size_t size, void **raw)
{
	if (size && nmemb > (SIZE_MAX - 64) / size)
		out_of_memory(SIZE_MAX);
	unsigned char *p = xcalloc(1, nmemb * size + 64);
	*raw = p;
	return p + (64 - (uintptr_t)p % 64) % 64;
}

#define HUGE_PAGE_BYTES ((size_t)2 << 20)

void *xmalloc_huge(size_t n)
{
	if (n < HUGE_PAGE_BYTES || n > SIZE_MAX - HUGE_PAGE_BYTES)
		return xmalloc(n);
	size_t whole = (n + HUGE_PAGE_BYTES - 1) & ~(HUGE_PAGE_BYTES - 1);
	void *p = NULL;
	if (posix_memalign(&p, HUGE_PAGE_BYTES, whole) != 0)
		out_of_memory(whole);
	madvise(p, whole, MADV_HUGEPAGE);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		out_of_memory(n);
	return q;
}

/* The capacity an array of cap elements doubles to until it holds need (8 at first). */
static size_t grown_cap(size_t cap, size_t need)
{
	size_t ncap = cap ? cap : 8;
	while (ncap < need)
		ncap *= 2;
	return ncap;
}

void xgrow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return;
	size_t ncap = grown_cap(*cap, need);
	*p = xrealloc(*p, ncap * elem);
	*cap = ncap;
}

void xgrow_huge(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return;
	size_t ncap = grown_cap(*cap, need);
	if (ncap * elem < HUGE_PAGE_BYTES) {
		*p = xrealloc(*p, ncap * elem);
	} else {
		void *q = xmalloc_huge(ncap * elem);
		if (*cap)
			memcpy(q, *p, *cap * elem);
		free(*p);
		*p = q;
	}
	*cap = ncap;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = xmalloc(n);
	memcpy(d, s, n);
	return d;
}

uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

long read_small_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t off = 0;
	while (off + 1 < cap) {
		ssize_t n = read(fd, buf + off, cap - 1 - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		off += (size_t)n;
	}
	buf[off] = 0;
	close(fd);
	return (long)off;
}

char *cache_dir(void)
{
	const char *d = getenv("PERFTOP_CACHE_DIR");
	if (d && *d)
		return xstrdup(d);
	char buf[4096];
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	if (xdg && *xdg)
		snprintf(buf, sizeof(buf), "%s/perftop", xdg);
	else if (home && *home)
		snprintf(buf, sizeof(buf), "%s/.cache/perftop", home);
	else
		return NULL;
	return xstrdup(buf);
}

char *cache_dir_make(void)
{
	char *dir = cache_dir();
	if (!dir)
		return NULL;
	/* One level of parents is enough for ~/.cache/perftop. */
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		mkdir(dir, 0700);
		*slash = '/';
	}
	mkdir(dir, 0700);
	return dir;
}

void hex_encode(char *out, const unsigned char *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = 0;
}

size_t elf_notes_build_id(const unsigned char *p, size_t n, size_t align, uint8_t *out, size_t max)
{
	size_t off = 0;
	while (off + 12 <= n) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		size_t name_at = off + 12;
		size_t desc_at = name_at + ((namesz + align - 1) & ~(align - 1));
		size_t next = desc_at + ((descsz + align - 1) & ~(align - 1));
		if (namesz > n || descsz > n || desc_at > n || desc_at + descsz > n || next <= off)
			return 0;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(p + name_at, "GNU", 4) == 0 &&
		    descsz > 0) {
			size_t k = descsz < max ? descsz : max;
			memcpy(out, p + desc_at, k);
			return k;
		}
		off = next;
	}
	return 0;
}

size_t kernel_build_id(uint8_t *out, size_t max)
{
	unsigned char buf[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 ? elf_notes_build_id(buf, (size_t)n, 4, out, max) : 0;
}

struct self_note {
	uint8_t *out;
	size_t max, n;
};

/* The first object dl_iterate_phdr reports is the executable itself. */
static int self_note_scan(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct self_note *sn = arg;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum && !sn->n; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_NOTE)
			sn->n = elf_notes_build_id((const unsigned char *)(info->dlpi_addr + ph->p_vaddr),
						   ph->p_memsz, ph->p_align >= 8 ? 8 : 4, sn->out, sn->max);
	}
	return 1;
}

size_t self_build_id(uint8_t *out, size_t max)
{
	struct self_note sn = {.out = out, .max = max};
	dl_iterate_phdr(self_note_scan, &sn);
	return sn.n;
}

bool write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		} else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pfd = {.fd = fd, .events = POLLOUT};
			poll(&pfd, 1, 100);
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else {
			return false;
		}
	}
	return true;
}
