/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_pyproc: two processes of the same interpreter are each found at their own _PyRuntime. The
 * second one's symbols come from what the scan of the first kept (a pyenv libpython's .symtab took
 * 6-7 ms to scan, and a churn of short-lived interpreters looks at each one), so this holds the
 * cache to placing them at each process's own load address. The reference is this test's own
 * decode of the interpreter's ELF file (libelf: _PyRuntime's value, the lowest PT_LOAD) and each
 * process's /proc/PID/maps. The processes are sleeps with a libpython3.X.so preloaded, each at its
 * own address.
 */
#include <fcntl.h>
#include <glob.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "python/pyint.h"

/* _PyRuntime's file address minus the lowest loaded page's, from the file itself; 0 when absent. */
static uint64_t runtime_offset(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	uint64_t value = 0, low = UINT64_MAX;
	size_t nph = 0;
	elf_getphdrnum(e, &nph);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < low)
			low = ph.p_vaddr & ~(uint64_t)0xfff;
	}
	Elf_Scn *scn = NULL;
	while (!value && (scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			if (gelf_getsym(d, (int)i, &sym) && (name = elf_strptr(e, sh.sh_link, sym.st_name)) &&
			    !strcmp(name, "_PyRuntime") && sym.st_value) {
				value = sym.st_value;
				break;
			}
		}
	}
	elf_end(e);
	close(fd);
	return value && low != UINT64_MAX ? value - low : 0;
}

/* Where pid maps path's first page (offset 0), or 0. */
static uint64_t map_start(pid_t pid, const char *path)
{
	char mp[64], line[PATH_MAX + 128];
	snprintf(mp, sizeof(mp), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(mp, "re");
	uint64_t at = 0;
	while (f && !at && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		int n = 0;
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &s, &e, &off, &n) >= 3 && n &&
		    off == 0 && !strncmp(line + n, path, strlen(path)) && line[n + strlen(path)] == '\n')
			at = s;
	}
	if (f)
		fclose(f);
	return at;
}

/* A process that maps the interpreter's library and waits: sleep with the library preloaded (no
 * interpreter started; its symbols and Py_Version are there all the same). Each exec gets its own
 * load address (ASLR), as two interpreters would. */
static pid_t start_holder(const char *lib)
{
	pid_t pid = fork();
	if (pid == 0) {
		setenv("LD_PRELOAD", lib, 1);
		execl("/bin/sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500 && !map_start(pid, lib); i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return pid;
}

/* A libpython3.X.so of this machine with a _PyRuntime (Debian's, pyenv's), or 0. */
static int find_lib(char *out, size_t cap, uint64_t *off)
{
	const char *patterns[] = { "/usr/lib/x86_64-linux-gnu/libpython3.1[1-9].so.1.0",
				   "/root/.pyenv/versions/3.1[1-9]*/lib/libpython3.1[1-9].so.1.0" };
	int found = 0;
	for (size_t k = 0; k < 2 && !found; k++) {
		glob_t g;
		if (glob(patterns[k], 0, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc && !found; i++)
			if (realpath(g.gl_pathv[i], out) && strlen(out) < cap &&
			    (*off = runtime_offset(out)) != 0)
				found = 1;
		globfree(&g);
	}
	return found;
}

int main(void)
{
	char lib[PATH_MAX];
	uint64_t off = 0;
	if (!find_lib(lib, sizeof(lib), &off)) {
		printf("SKIP: no libpython3.11+ (Debian's libpython3.11, pyenv's) with a _PyRuntime\n");
		return 77;
	}
	pid_t pids[2];
	for (int i = 0; i < 2; i++)
		pids[i] = start_holder(lib);
	uint64_t bases[2];
	for (int i = 0; i < 2; i++) {
		struct pyproc p;
		char err[160] = "";
		int rc = pyproc_find(pids[i], &p, err, sizeof(err));
		bases[i] = map_start(pids[i], lib);
		printf("pid %d: rc %d (%s) version %s runtime 0x%llx, %s mapped at 0x%llx + 0x%llx\n",
		       (int)pids[i], rc, err, p.version, (unsigned long long)p.runtime, lib,
		       (unsigned long long)bases[i], (unsigned long long)off);
		CHECK(rc == 1);
		CHECK(bases[i] != 0);
		CHECK_EQ_U64(p.runtime, bases[i] + off);
	}
	if (bases[0] == bases[1])
		printf("note: both processes loaded it at the same address (ASLR off?)\n");
	for (int i = 0; i < 2; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
	return CHECK_DONE();
}
