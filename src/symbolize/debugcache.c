/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * debugcache: see debugcache.h. The copy is made by eu-elfcompress (elfutils, which the build
 * already depends on), started when the binaries are closed, in a process of its own session, so that neither a slow disk nor Ctrl-C in
 * the view's terminal touches it: it writes BUILDID.debug.tmp.PID and renames it into place, so a
 * reader sees a whole copy or none.
 */
#include "symbolize/debugcache.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "symbolize/debuginfo.h"
#include "util/util.h"

#define DEBUGCACHE_MAX_BYTES (2ull << 30)       /* the directory, all copies */
#define DEBUGCACHE_MAX_SOURCE (512ll << 20)     /* a compressed file bigger than this is not copied */
#define DEBUGCACHE_MAX_BID 64
#define DEBUGCACHE_MAX_CHILDREN 16

static pid_t children[DEBUGCACHE_MAX_CHILDREN];    /* 0: not started yet, or reaped */
static char started[DEBUGCACHE_MAX_CHILDREN][2 * DEBUGCACHE_MAX_BID + 1];
static char *copy_src[DEBUGCACHE_MAX_CHILDREN], *copy_dst[DEBUGCACHE_MAX_CHILDREN];
static size_t nstarted, nspawned;
static unsigned long hits;
static bool copying = true;

void debugcache_set_copying(bool on)
{
	copying = on;
}

unsigned long debugcache_hits(void)
{
	return hits;
}

static bool debugcache_enabled(void)
{
	const char *e = getenv("PERFTOP_DEBUG_CACHE");
	return !(e && !strcmp(e, "0"));
}

/* Any SHF_COMPRESSED section, or a GNU-style .zdebug one: the section headers only. */
static bool debugcache_compressed(int fd)
{
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t shstrndx;
	bool found = false;
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		for (Elf_Scn *scn = NULL; !found && (scn = elf_nextscn(elf, scn));) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh))
				continue;
			const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
			found = (sh.sh_flags & SHF_COMPRESSED) || (name && !strncmp(name, ".zdebug", 7));
		}
	}
	if (elf)
		elf_end(elf);
	return found;
}

static void debugcache_reap(bool block)
{
	for (size_t i = 0; i < nstarted; i++)
		if (children[i] > 0 && waitpid(children[i], NULL, block ? 0 : WNOHANG) == children[i])
			children[i] = 0;
}

void debugcache_wait(void)
{
	debugcache_start();
	debugcache_reap(true);
}

/* Queues the copy of src to dst, once per build-id and process; debugcache_start starts it. */
static void debugcache_fill(const char *hex, const char *src, const char *dst)
{
	for (size_t i = 0; i < nstarted; i++)
		if (!strcmp(started[i], hex))
			return;
	if (nstarted == DEBUGCACHE_MAX_CHILDREN)
		return;
	struct stat st;
	if (stat(src, &st) != 0 || st.st_size > DEBUGCACHE_MAX_SOURCE)
		return;
	snprintf(started[nstarted], sizeof(started[nstarted]), "%s", hex);
	copy_src[nstarted] = xstrdup(src);
	copy_dst[nstarted] = xstrdup(dst);
	children[nstarted] = 0;
	nstarted++;
}

/* Why at the end and not when the file is found: the copy inflates the same sections the session is
 * inflating, and on a 2-CPU machine the two slowed each other's by a third. The copy serves only
 * later sessions anyway. */
void debugcache_start(void)
{
	static const char script[] =
		"set -u; dst=$1; tmp=$1.tmp.$$\n"
		"if nice -n 10 eu-elfcompress -q -t none -o \"$tmp\" \"$2\"; then mv -f \"$tmp\" \"$dst\"\n"
		"else rm -f \"$tmp\"; exit 1; fi\n"
		/* Newest first; what goes past the bound is removed. */
		"total=0\n"
		"for f in $(ls -t \"${dst%/*}\"/*.debug); do\n"
		"  total=$((total + $(stat -c %s \"$f\"))); [ \"$total\" -gt \"$3\" ] && rm -f \"$f\"\n"
		"done\n"
		"exit 0\n";
	char max[32];
	snprintf(max, sizeof(max), "%llu", (unsigned long long)DEBUGCACHE_MAX_BYTES);
	for (; nspawned < nstarted; nspawned++) {
		size_t i = nspawned;
		char *const argv[] = { "sh", "-c", (char *)script, "sh", copy_dst[i], copy_src[i], max, NULL };
		pid_t pid = fork();
		if (pid == 0) {
			/* Only async-signal-safe calls from here to exec: the parent may have threads. */
			setsid();
			int null = open("/dev/null", O_RDWR);
			if (null >= 0) {
				dup2(null, 0);
				dup2(null, 1);
				dup2(null, 2);
			}
			execv("/bin/sh", argv);
			_exit(127);
		}
		children[i] = pid > 0 ? pid : 0;
		free(copy_src[i]);
		free(copy_dst[i]);
		copy_src[i] = copy_dst[i] = NULL;
	}
}

int debugcache_find(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		    char **debuginfo_file_name)
{
	int fd = debuginfo_find(mod, userdata, modname, base, file_name, debuglink_file, debuglink_crc,
				debuginfo_file_name);
	debugcache_reap(false);
	if (fd < 0 || !*debuginfo_file_name || !debugcache_enabled())
		return fd;
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);
	if (n <= 0 || n > DEBUGCACHE_MAX_BID || !debugcache_compressed(fd))
		return fd;
	char hex[2 * DEBUGCACHE_MAX_BID + 1];
	hex_encode(hex, bits, (size_t)n);
	char *dir = cache_dir();
	if (!dir)
		return fd;
	char path[4400];
	int w = snprintf(path, sizeof(path), "%s/debug/%s.debug", dir, hex);
	if (w > 0 && (size_t)w < sizeof(path)) {
		int cfd = debuginfo_open_checked(path, bits, (size_t)n, false, 0);
		if (cfd >= 0) {
			close(fd);
			free(*debuginfo_file_name);
			*debuginfo_file_name = xstrdup(path);
			fd = cfd;
			hits++;
		} else {
			free(dir);
			dir = cache_dir_make();
			char sub[4200];
			if (copying && dir && snprintf(sub, sizeof(sub), "%s/debug", dir) < (int)sizeof(sub) &&
			    (mkdir(sub, 0700) == 0 || errno == EEXIST))
				debugcache_fill(hex, *debuginfo_file_name, path);
		}
	}
	free(dir);
	return fd;
}
