/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * findpy: the libpython3 shared libraries of this machine, found when the test runs, whatever
 * interpreters it has and wherever: each python3, python3.X and python3.Xd on PATH (in PATH's
 * order; a pyenv shim, a script, only as python3) is asked its LIBDIR, then pyenv's versions
 * (`pyenv root`, $PYENV_ROOT, ~/.pyenv), then the system's library directories (Debian's
 * libpython3.X.so and, with python3.X-dbg, libpython3.Xd.so). The first on PATH comes first; each
 * real file once. Tests pick from the list what they need (a PLT to read, DWARF to decode) and
 * say which one they took, or why none would do.
 */
#ifndef PERFTOP_TEST_FINDPY_H
#define PERFTOP_TEST_FINDPY_H

#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FINDPY_MAX 64

struct findpy {
	char path[FINDPY_MAX][PATH_MAX];
	char real[FINDPY_MAX][PATH_MAX];
	int n;
};

static void findpy_add_glob(struct findpy *fp, const char *pattern)
{
	glob_t g;
	if (glob(pattern, 0, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc && fp->n < FINDPY_MAX; i++) {
		char real[PATH_MAX];
		if (!realpath(g.gl_pathv[i], real))
			continue;
		bool seen = false;
		for (int j = 0; j < fp->n && !seen; j++)
			seen = strcmp(fp->real[j], real) == 0;
		if (seen)
			continue;
		snprintf(fp->path[fp->n], PATH_MAX, "%s", g.gl_pathv[i]);
		snprintf(fp->real[fp->n], PATH_MAX, "%s", real);
		fp->n++;
	}
	globfree(&g);
}

/* The first line a shell command prints, or "". */
static void findpy_sh(const char *cmd, char *out, size_t cap)
{
	out[0] = 0;
	FILE *p = popen(cmd, "r");
	if (!p)
		return;
	if (!fgets(out, (int)cap, p))
		out[0] = 0;
	pclose(p);
	out[strcspn(out, "\n")] = 0;
}

/* Whether path is an ELF file (an interpreter itself, not a script that starts one). */
static bool findpy_is_elf(const char *path)
{
	char magic[4] = "";
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(magic, 1, sizeof(magic), f) : 0;
	if (f)
		fclose(f);
	return n == 4 && memcmp(magic, "\177ELF", 4) == 0;
}

/* The libraries of the interpreter exe: its LIBDIR (asked of it) globbed for libpython3. */
static void findpy_add_interpreter(struct findpy *fp, const char *exe)
{
	char buf[PATH_MAX], pat[PATH_MAX + 64], cmd[PATH_MAX + 160];
	snprintf(cmd, sizeof(cmd),
		 "'%s' -c \"import sysconfig; print(sysconfig.get_config_var('LIBDIR') or '')\""
		 " 2>/dev/null", exe);
	findpy_sh(cmd, buf, sizeof(buf));
	if (buf[0]) {
		snprintf(pat, sizeof(pat), "%s/libpython3*.so.1*", buf);
		findpy_add_glob(fp, pat);
	}
}

static void findpy_collect(struct findpy *fp)
{
	char buf[PATH_MAX], pat[PATH_MAX + 64];
	fp->n = 0;
	/* Every python3 on PATH, in PATH's order (a pyenv shim asks pyenv's chosen version), then
	 * the python3.X and python3.Xd beside it that are interpreters themselves. */
	const char *path = getenv("PATH");
	char *dirs = strdup(path ? path : "/usr/bin:/bin");
	char *save = NULL;
	for (char *dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		snprintf(buf, sizeof(buf), "%s/python3", dir);
		if (access(buf, X_OK) == 0)
			findpy_add_interpreter(fp, buf);
		glob_t g;
		snprintf(pat, sizeof(pat), "%s/python3.[0-9]*", dir);
		if (glob(pat, 0, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			const char *name = strrchr(g.gl_pathv[i], '/') + 1 + strlen("python3.");
			size_t digits = strspn(name, "0123456789");
			bool named = digits > 0 && (!name[digits] || !strcmp(name + digits, "d"));
			if (named && access(g.gl_pathv[i], X_OK) == 0 && findpy_is_elf(g.gl_pathv[i]))
				findpy_add_interpreter(fp, g.gl_pathv[i]);
		}
		globfree(&g);
	}
	free(dirs);
	/* pyenv's versions, wherever pyenv lives. */
	char home[PATH_MAX];
	snprintf(home, sizeof(home), "%s/.pyenv", getenv("HOME") ? getenv("HOME") : "/root");
	findpy_sh("pyenv root 2>/dev/null", buf, sizeof(buf));
	const char *roots[] = { buf, getenv("PYENV_ROOT"), home };
	for (size_t i = 0; i < 3; i++) {
		if (!roots[i] || !roots[i][0])
			continue;
		snprintf(pat, sizeof(pat), "%s/versions/*/lib/libpython3*.so.1*", roots[i]);
		findpy_add_glob(fp, pat);
	}
	findpy_add_glob(fp, "/usr/lib/x86_64-linux-gnu/libpython3*.so.1*");
	findpy_add_glob(fp, "/usr/local/lib/libpython3*.so.1*");
	findpy_add_glob(fp, "/usr/lib64/libpython3*.so.1*");
}

#endif
