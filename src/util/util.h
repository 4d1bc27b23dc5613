/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util: the small things every layer needs and none should own.
 *
 * xmalloc and friends never return NULL: on failure they run the registered fatal hook (the UI
 * registers one that restores the terminal) and exit with a one-line message. die() does the same
 * for a fatal error. now_ns() is CLOCK_MONOTONIC, the clock the perf events are told to use
 * (attr.use_clockid), so sample times and wall time can be compared.
 */
#ifndef PERFTOP_UTIL_H
#define PERFTOP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
/* nmemb zeroed elements of size bytes, the first on a cache line (64 bytes): in a table of entries
 * of a line, or of half of one, no entry then lies across two lines (calloc's 16-byte alignment put
 * every other 32-byte entry across two). *raw is what to free. */
void *xcalloc_lines(size_t nmemb, size_t size, void **raw);
void *xrealloc(void *p, size_t n);
/* n bytes for a big array about to be written whole: from 2 MiB on, on 2 MiB-aligned transparent
 * huge pages (n rounded up to them), one fault a 2 MiB page instead of one a 4 KiB page (in a VM
 * that virtualizes paging, ~11 us each: a snapshot of 25,000 rows took a thousand). A malloc'd
 * block is not aligned, so a hint on it reached only its middle. Freed with free(). */
void *xmalloc_huge(size_t n);
/* Grows *p (of *cap elements of size elem) so that it holds at least need elements. */
void xgrow(void **p, size_t *cap, size_t need, size_t elem);
/* xgrow for an array that may grow past 2 MiB (a replay's rows): from there on, each new array
 * is on huge pages (xmalloc_huge), so growing it faults a few times rather than once a 4 KiB page. */
void xgrow_huge(void **p, size_t *cap, size_t need, size_t elem);
char *xstrdup(const char *s);

/* Called once, before the message is printed, by die() and by a failed allocation. */
void util_set_fatal_hook(void (*hook)(void));
_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Warnings go to stderr unless a hook (the TUI's status line) takes them. */
void warn_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void util_set_warn_hook(void (*hook)(const char *msg));

uint64_t now_ns(void);
/* Reads a whole small file (e.g. under /proc) into buf, NUL-terminated; returns bytes or -errno. */
long read_small_file(const char *path, char *buf, size_t cap);

/* out = the n bytes at b as lowercase hex, NUL-terminated (out has room for 2n + 1). */
void hex_encode(char *out, const unsigned char *b, size_t n);
/* The GNU build-id note among n bytes of ELF notes aligned to align (4 or 8) into out, cut at max
 * bytes: its size, 0 when there is none. */
size_t elf_notes_build_id(const unsigned char *p, size_t n, size_t align, uint8_t *out, size_t max);
/* The running kernel's build-id (its notes, /sys/kernel/notes) the same way; 0 when unknown. */
size_t kernel_build_id(uint8_t *out, size_t max);
/* This program's own build-id (the running executable's notes, as loaded) the same way; 0 when it
 * has none. What perftop caches across sessions carries it, so that another build of perftop never
 * reads answers the one before wrote. */
size_t self_build_id(uint8_t *out, size_t max);
/* Writes all of buf to fd: retries after EINTR, and waits for room after EAGAIN (a profiled command
 * shares our stdout and may have made it non-blocking, as node does). False on any other error. */
bool write_full(int fd, const void *buf, size_t len);

/* perftop's cache directory: $PERFTOP_CACHE_DIR, else $XDG_CACHE_HOME/perftop, else
 * ~/.cache/perftop (malloc'd; NULL when none can be named). Not created here. */
char *cache_dir(void);
/* Creates the cache directory (0700, and its parent) and returns it, malloc'd, or NULL. */
char *cache_dir_make(void);

#endif
