/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * debuginfo: the search for separate debug files, our own find_debuginfo for libdwfl, and the
 * debuginfod fetches run as child processes.
 *
 * Why our own callback rather than dwfl_standard_find_debuginfo: the standard one knows neither
 * --symfs nor perf's ~/.debug cache, and when DEBUGINFOD_URLS is set it asks the servers right
 * there, synchronously, on the thread that draws the view. Ours looks only at local files and
 * leaves the network to a child process.
 *
 * Every candidate is opened, parsed as ELF and its build-id compared before libdwfl sees it; a
 * truncated, garbage or foreign file is closed and the search goes on. CRC32 (which only binaries
 * without a build-id need) reads the whole file, so it is the last resort.
 *
 * Fetch children: at most DEBUGINFO_FETCH_PARALLEL at a time, each a posix_spawn of the fetcher with
 * its stdout on a non-blocking pipe; the child prints the path of the file in libdebuginfod's cache.
 * A build-id is asked for once per session, whether the fetch succeeds or not.
 */
#include "symbolize/debuginfo.h"

#include <elfutils/debuginfod.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "symbolize/lazylib.h"
#include "util/util.h"

extern char **environ;

#define DEBUGINFO_FETCH_PARALLEL 2
#define DEBUGINFO_MAX_BID 64

struct fetch {
	uint8_t bid[DEBUGINFO_MAX_BID];
	size_t len;
	char name[64];       /* the binary's short name, for the status line */
	pid_t pid;           /* 0: queued */
	int fd;              /* read end of the child's stdout */
	char out[PATH_MAX];
	size_t nout;
	int state;           /* 0 queued, 1 running, 2 done (path in out), 3 failed */
};

static struct {
	char *symfs;
	char *urls;
	char *fetcher;
	struct fetch *fetches;
	size_t nfetches, cap;
	char status[160];
} cfg;

void debuginfo_configure(const char *symfs, const char *urls, const char *fetcher)
{
	free(cfg.symfs);
	free(cfg.urls);
	free(cfg.fetcher);
	cfg.symfs = symfs && symfs[0] ? xstrdup(symfs) : NULL;
	cfg.urls = urls && urls[0] ? xstrdup(urls) : NULL;
	cfg.fetcher = fetcher ? xstrdup(fetcher) : NULL;
}

const char *debuginfo_symfs(void)
{
	return cfg.symfs;
}

static bool debuginfo_is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

char *debuginfo_resolve_path(const char *path)
{
	if (cfg.symfs && path[0] == '/') {
		char buf[PATH_MAX];
		if (snprintf(buf, sizeof(buf), "%s%s", cfg.symfs, path) < (int)sizeof(buf) &&
		    debuginfo_is_file(buf))
			return xstrdup(buf);
	}
	return xstrdup(path);
}

static const char *debuginfo_root(void)
{
	const char *r = getenv("PERFTOP_DEBUG_ROOT");
	return r && r[0] ? r : "/usr/lib/debug";
}

const char *debuginfo_debug_root(void)
{
	return debuginfo_root();
}

int debuginfo_build_id_of(const char *path, uint8_t *out, size_t max)
{
	if (!debuginfo_is_file(path))
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int ret = -1;
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		const void *got = NULL;
		ssize_t n = dwelf_elf_gnu_build_id(elf, &got);
		ret = n > 0 && (size_t)n <= max ? (int)n : 0;
		if (ret)
			memcpy(out, got, (size_t)n);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* ---- checking a candidate ---- */

/* The standard CRC-32 (reflected, polynomial 0xedb88320), as the GNU debuglink section stores it. */
static uint32_t crc_table[256];

static void crc_init(void)
{
	if (crc_table[1])
		return;
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

bool debuginfo_file_crc(int fd, uint32_t *crc)
{
	crc_init();
	uint32_t c = 0xffffffffu;
	unsigned char buf[65536];
	off_t off = 0;
	for (;;) {
		ssize_t n = pread(fd, buf, sizeof(buf), off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		if (n == 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			c = crc_table[(c ^ buf[i]) & 0xff] ^ (c >> 8);
		off += n;
	}
	*crc = c ^ 0xffffffffu;
	return true;
}

int debuginfo_open_checked(const char *path, const uint8_t *bid, size_t bid_len, bool check_crc,
			   uint32_t crc)
{
	if (!debuginfo_is_file(path))
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	bool ok = false;
	if (bid_len) {
		elf_version(EV_CURRENT);
		Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		const void *got = NULL;
		ssize_t n = elf && elf_kind(elf) == ELF_K_ELF ? dwelf_elf_gnu_build_id(elf, &got) : -1;
		ok = n > 0 && (size_t)n == bid_len && memcmp(got, bid, bid_len) == 0;
		if (elf)
			elf_end(elf);
	} else if (check_crc) {
		uint32_t c;
		ok = debuginfo_file_crc(fd, &c) && c == crc;
	}
	if (!ok) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Tries path under --symfs, then as it is. On success *found gets a malloc'd copy of the path. */
static int debuginfo_try(const char *path, const uint8_t *bid, size_t len, bool check_crc,
			 uint32_t crc, const char *self, char **found)
{
	char buf[PATH_MAX];
	const char *cands[2];
	int nc = 0;
	if (cfg.symfs && path[0] == '/' &&
	    snprintf(buf, sizeof(buf), "%s%s", cfg.symfs, path) < (int)sizeof(buf))
		cands[nc++] = buf;
	cands[nc++] = path;
	for (int i = 0; i < nc; i++) {
		/* The binary itself is not its own debug file (a debuglink naming the file's own name). */
		if (self && strcmp(cands[i], self) == 0)
			continue;
		int fd = debuginfo_open_checked(cands[i], bid, len, check_crc, crc);
		if (fd >= 0) {
			*found = xstrdup(cands[i]);
			return fd;
		}
	}
	return -1;
}

static const struct fetch *debuginfo_fetched(const uint8_t *bid, size_t len)
{
	for (size_t i = 0; i < cfg.nfetches; i++)
		if (cfg.fetches[i].len == len && memcmp(cfg.fetches[i].bid, bid, len) == 0)
			return &cfg.fetches[i];
	return NULL;
}

static void debuginfo_fetch_request(const uint8_t *bid, size_t len, const char *modname);

const char *debuginfo_fetched_path(const uint8_t *bid, size_t len)
{
	const struct fetch *f = debuginfo_fetched(bid, len);
	return f && f->state == 2 ? f->out : NULL;
}

bool debuginfo_fetch_want(const uint8_t *bid, size_t len, const char *name)
{
	if (!cfg.urls || !len || len > DEBUGINFO_MAX_BID)
		return false;
	debuginfo_fetch_request(bid, len, name);
	const struct fetch *f = debuginfo_fetched(bid, len);
	return f && f->state < 2;
}

bool debuginfo_fetch_wait(const uint8_t *bid, size_t len, double secs)
{
	uint64_t end = now_ns() + (uint64_t)(secs * 1e9);
	const struct fetch *f;
	while ((f = debuginfo_fetched(bid, len)) != NULL && f->state < 2) {
		if (now_ns() >= end)
			return false;
		debuginfo_fetch_poll(NULL, NULL);
		if (f->state < 2)
			usleep(10000);
	}
	return f && f->state == 2;
}

int debuginfo_find(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		   const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		   char **debuginfo_file_name)
{
	(void)userdata;
	(void)base;
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);
	size_t len = n > 0 && n <= DEBUGINFO_MAX_BID ? (size_t)n : 0;
	char path[PATH_MAX];
	int fd;

	if (len) {
		char hex[2 * DEBUGINFO_MAX_BID + 1];
		hex_encode(hex, bits, len);
		const struct fetch *f = debuginfo_fetched(bits, len);
		if (f && f->state == 2) {
			fd = debuginfo_open_checked(f->out, bits, len, false, 0);
			if (fd >= 0) {
				*debuginfo_file_name = xstrdup(f->out);
				return fd;
			}
		}
		if (snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", debuginfo_root(), hex,
			     hex + 2) < (int)sizeof(path) &&
		    (fd = debuginfo_try(path, bits, len, false, 0, file_name, debuginfo_file_name)) >= 0)
			return fd;
		const char *home = getenv("HOME");
		if (home && home[0]) {
			/* perf's build-id cache: .../debug is the debug file, .../elf the binary (useful when
			 * it was not stripped, e.g. a recording from another machine with perf archive). */
			static const char *const leaves[] = { "debug", "elf" };
			for (size_t i = 0; i < 2; i++) {
				if (snprintf(path, sizeof(path), "%s/.debug/.build-id/%.2s/%s/%s", home, hex,
					     hex + 2, leaves[i]) >= (int)sizeof(path))
					continue;
				fd = debuginfo_open_checked(path, bits, len, false, 0);
				if (fd >= 0) {
					*debuginfo_file_name = xstrdup(path);
					return fd;
				}
			}
		}
	}
	if (debuglink_file && file_name && debuglink_file[0] && !strchr(debuglink_file, '/')) {
		const char *slash = strrchr(file_name, '/');
		int dlen = slash ? (int)(slash - file_name) : 0;
		const char *fmts[] = { "%.*s/%s", "%.*s/.debug/%s" };
		for (size_t i = 0; i < 3; i++) {
			int w = i < 2 ? snprintf(path, sizeof(path), fmts[i], dlen, file_name, debuglink_file)
				      : snprintf(path, sizeof(path), "%s%.*s/%s", debuginfo_root(), dlen,
						 file_name, debuglink_file);
			if (w >= (int)sizeof(path))
				continue;
			fd = debuginfo_try(path, bits, len, !len, debuglink_crc, file_name,
					   debuginfo_file_name);
			if (fd >= 0)
				return fd;
		}
	}
	if (len && cfg.urls)
		debuginfo_fetch_request(bits, len, modname);
	errno = ENOENT;
	return -1;
}

/* ---- debuginfod fetches ---- */

static void debuginfo_fetch_request(const uint8_t *bid, size_t len, const char *modname)
{
	if (debuginfo_fetched(bid, len))
		return;  /* running, queued, done or failed: asked once */
	xgrow((void **)&cfg.fetches, &cfg.cap, cfg.nfetches + 1, sizeof(*cfg.fetches));
	struct fetch *f = &cfg.fetches[cfg.nfetches++];
	memset(f, 0, sizeof(*f));
	memcpy(f->bid, bid, len);
	f->len = len;
	f->fd = -1;
	snprintf(f->name, sizeof(f->name), "%s", modname ? modname : "?");
}

static void debuginfo_fetch_start(struct fetch *f)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0) {
		f->state = 3;
		return;
	}
	char hex[2 * DEBUGINFO_MAX_BID + 1];
	hex_encode(hex, f->bid, f->len);
	const char *prog = cfg.fetcher ? cfg.fetcher : "/proc/self/exe";
	char *argv[] = { (char *)"perftop", (char *)"--debuginfod-fetch", hex, NULL };

	/* The child's environment: ours (DEBUGINFOD_URLS was taken out of it so that libdwfl never asks
	 * on its own) plus the URLs again. */
	size_t ne = 0;
	while (environ && environ[ne])
		ne++;
	char **env = xcalloc(ne + 2, sizeof(*env));
	size_t k = 0;
	for (size_t i = 0; i < ne; i++)
		if (strncmp(environ[i], "DEBUGINFOD_URLS=", 16) != 0)
			env[k++] = environ[i];
	size_t ul = strlen(cfg.urls) + 17;
	char *u = xmalloc(ul);
	snprintf(u, ul, "DEBUGINFOD_URLS=%s", cfg.urls);
	env[k++] = u;

	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	int rc = posix_spawn(&pid, prog, &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	free(u);
	free(env);
	close(p[1]);
	if (rc != 0) {
		close(p[0]);
		f->state = 3;
		return;
	}
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	f->pid = pid;
	f->fd = p[0];
	f->state = 1;
}

size_t debuginfo_fetch_poll(void (*done)(void *ctx, const uint8_t *bid, size_t len), void *ctx)
{
	size_t running = 0, queued = 0;
	const char *current = NULL;
	for (size_t i = 0; i < cfg.nfetches; i++) {
		struct fetch *f = &cfg.fetches[i];
		if (f->state != 1)
			continue;
		for (;;) {
			ssize_t n = read(f->fd, f->out + f->nout, sizeof(f->out) - 1 - f->nout);
			if (n > 0) {
				f->nout += (size_t)n;
				if (f->nout < sizeof(f->out) - 1)
					continue;
			}
			if (n < 0 && errno == EAGAIN)
				break;
			if (n < 0 && errno == EINTR)
				continue;
			/* EOF (or a full buffer, or an error): the child is finishing. */
			int st = 0;
			pid_t w = waitpid(f->pid, &st, WNOHANG);
			if (w == 0)
				break;  /* closed its stdout but not exited yet: next poll */
			close(f->fd);
			f->fd = -1;
			f->out[f->nout] = 0;
			f->out[strcspn(f->out, "\n")] = 0;
			bool ok = w == f->pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 && f->out[0] == '/';
			f->state = ok ? 2 : 3;
			if (ok && done)
				done(ctx, f->bid, f->len);
			break;
		}
		if (f->state == 1) {
			running++;
			current = f->name;
		}
	}
	for (size_t i = 0; i < cfg.nfetches && running < DEBUGINFO_FETCH_PARALLEL; i++) {
		struct fetch *f = &cfg.fetches[i];
		if (f->state == 0) {
			debuginfo_fetch_start(f);
			if (f->state == 1) {
				running++;
				current = f->name;
			}
		}
	}
	for (size_t i = 0; i < cfg.nfetches; i++)
		queued += cfg.fetches[i].state == 0;
	if (current) {
		size_t more = running + queued - 1;
		if (more)
			snprintf(cfg.status, sizeof(cfg.status), "debuginfod: fetching debug info for %s (%zu more)",
				 current, more);
		else
			snprintf(cfg.status, sizeof(cfg.status), "debuginfod: fetching debug info for %s", current);
	} else {
		cfg.status[0] = 0;
	}
	return running + queued;
}

const char *debuginfo_fetch_status(void)
{
	return cfg.status[0] ? cfg.status : NULL;
}

static int debuginfo_unhex(const char *hex, unsigned char *out, size_t cap)
{
	size_t n = strlen(hex);
	if (n % 2 || n / 2 > cap || n == 0)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (unsigned char)v;
	}
	return (int)(n / 2);
}

int debuginfo_fetch_child(const char *hex)
{
	unsigned char bid[DEBUGINFO_MAX_BID];
	int n = debuginfo_unhex(hex, bid, sizeof(bid));
	if (n <= 0)
		return 2;
	/* libdebuginfod (and its libcurl, gnutls, krb5...) is loaded here, in the child, not linked into
	 * perftop: see lazylib.c. Without it the fetch fails like any other, the reason on stderr. */
	const char *why = NULL;
	const struct lazy_debuginfod *di = lazy_debuginfod(&why);
	if (!di) {
		fprintf(stderr, "perftop: debuginfod unavailable: %s\n", why);
		return 1;
	}
	debuginfod_client *c = di->begin();
	if (!c)
		return 1;
	char *path = NULL;
	int fd = di->find_debuginfo(c, bid, n, &path);
	di->end(c);
	if (fd < 0 || !path)
		return 1;
	close(fd);
	printf("%s\n", path);
	free(path);
	return fflush(stdout) == 0 ? 0 : 1;
}
