/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_debuginfo: finding separate debug files. The -g -O2 fixture is split the way distributions
 * do it (objcopy --only-keep-debug, strip, objcopy --add-gnu-debuglink) into a temporary tree, and the
 * stripped binary must then be named as well as the original (its static function "work" is only in
 * the debug file's .symtab; its srclines and inline frames only in its DWARF) when the debug file is:
 *   (a) beside the binary, (b) in its .debug/ directory, (c) under DEBUG_ROOT/.build-id/xx/yyyy.debug
 *   (PERFTOP_DEBUG_ROOT stands for /usr/lib/debug), (d) beside the binary inside --symfs DIR, while the
 *   mapping names the path on the recording machine.
 * And never when the debug file belongs to another build (another build-id) or is garbage.
 * (e) A compressed debug file (as Debian's -dbg packages ship them) is copied uncompressed into the
 * cache (debugcache.c) in the background; the next lookup uses the copy, with the same names; a
 * copy of another build at that place is not used; PERFTOP_DEBUG_CACHE=0 makes no copy.
 * Last, as a test of its own (test_debuginfo libc, ctest's test_debuginfo_libc): libc's local
 * functions (those this machine's debug file names, read with nm) come out by name through
 * libc6-dbg's build-id file; it skips (77) where that file is not at
 * /usr/lib/debug/.build-id/xx/yyyy.debug for this libc's build-id (libc6-dbg not installed).
 *
 * usage: test_debuginfo [libc] (the fixture paths are compiled in)
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "symbolize/debugcache.h"
#include "symbolize/debuginfo.h"
#include "symbolize/dso.h"
#include "symbolize/intern.h"

static char tmp[256];
static unsigned long work_start, work_size;

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	int rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
	return rc;
}

static int work_range(void)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s'", INLINE_FIXTURE_PATH);
	FILE *p = popen(cmd, "r");
	char line[512], name[256], type;
	int rc = -1;
	while (p && fgets(line, sizeof(line), p))
		if (sscanf(line, "%lx %lx %c %255s", &work_start, &work_size, &type, name) == 4 &&
		    strcmp(name, "work") == 0)
			rc = 0;
	if (p)
		pclose(p);
	return rc;
}

/* The build-id of a file as hex (readelf -n), for the .build-id layout. */
static int build_id_hex(const char *path, char *out, size_t cap)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | sed -n 's/.*Build ID: *//p'", path);
	FILE *p = popen(cmd, "r");
	if (!p || !fgets(out, (int)cap, p)) {
		if (p)
			pclose(p);
		return -1;
	}
	pclose(p);
	out[strcspn(out, "\n")] = 0;
	return strlen(out) > 2 ? 0 : -1;
}

/* How many addresses of work a dso for path (the mapping's name) resolves exactly as the original
 * fixture does (name, srcline, inline frames). */
static unsigned long agree(const char *path)
{
	struct intern *in = intern_new();
	struct dso_set *ref = dso_set_new(in), *set = dso_set_new(in);
	dso_set_want(ref, true, true);
	dso_set_want(set, true, true);
	struct dso *dr = dso_set_get(ref, INLINE_FIXTURE_PATH, NULL);
	struct dso *d = dso_set_get(set, path, NULL);
	unsigned long same = 0;
	for (unsigned long i = 0; i < work_size; i++) {
		struct frame a[16], b[16];
		int na = dso_lookup(dr, work_start + i, a, 16);
		int nb = dso_lookup(d, work_start + i, b, 16);
		bool eq = na == nb && na > 0;
		for (int k = 0; eq && k < na; k++)
			eq = a[k].sym == b[k].sym && a[k].srcline == b[k].srcline && a[k].inlined == b[k].inlined;
		same += eq;
	}
	dso_set_free(ref);
	dso_set_free(set);
	intern_free(in);
	return same;
}

static int debug_files(void)
{
	if (work_range() != 0) {
		fprintf(stderr, "no 'work' in the fixture\n");
		return 1;
	}
	snprintf(tmp, sizeof(tmp), "/tmp/perftop-debuginfo-XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	char dir[512], dbg[512], path[600];
	setenv("PERFTOP_DEBUG_ROOT", "/nonexistent", 1);

	/* the reference: the stripped binary alone knows nothing of work */
	snprintf(dir, sizeof(dir), "%s/none", tmp);
	CHECK(sh("mkdir -p %s && cp '%s' %s/prog && strip -s %s/prog", dir, INLINE_FIXTURE_PATH, dir, dir) == 0);
	snprintf(path, sizeof(path), "%s/prog", dir);
	CHECK_EQ_U64(agree(path), 0);
	CHECK(agree(INLINE_FIXTURE_PATH) == work_size);

	/* (a) beside the binary, found through .gnu_debuglink */
	snprintf(dir, sizeof(dir), "%s/a", tmp);
	CHECK(sh("set -e; mkdir -p %s; cp '%s' %s/prog; cd %s; objcopy --only-keep-debug prog prog.debug;"
		 " strip -s prog; objcopy --add-gnu-debuglink=prog.debug prog", dir, INLINE_FIXTURE_PATH, dir, dir) == 0);
	snprintf(path, sizeof(path), "%s/prog", dir);
	CHECK_EQ_U64(agree(path), work_size);

	/* (b) in .debug/ beside it */
	CHECK(sh("set -e; cd %s; mkdir .debug; mv prog.debug .debug/", dir) == 0);
	CHECK_EQ_U64(agree(path), work_size);

	/* a debug file of another build under the debuglink's name: rejected (build-id) */
	CHECK(sh("set -e; cd %s; rm -r .debug; objcopy --only-keep-debug '%s' prog.debug", dir, OTHER_FIXTURE_PATH) == 0);
	CHECK_EQ_U64(agree(path), 0);
	/* garbage under the name: rejected, no crash */
	CHECK(sh("set -e; cd %s; head -c 100000 /dev/urandom > prog.debug", dir) == 0);
	CHECK_EQ_U64(agree(path), 0);
	/* a truncated debug file: whatever it gives, no crash (ASan twin) */
	CHECK(sh("set -e; cd %s; objcopy --only-keep-debug '%s' full.debug; head -c 20000 full.debug > prog.debug",
		 dir, INLINE_FIXTURE_PATH) == 0);
	agree(path);

	/* (c) by build-id under the debug root, no debuglink at all */
	char bid[128];
	CHECK(build_id_hex(INLINE_FIXTURE_PATH, bid, sizeof(bid)) == 0);
	snprintf(dir, sizeof(dir), "%s/c", tmp);
	snprintf(dbg, sizeof(dbg), "%s/root/.build-id/%.2s", tmp, bid);
	CHECK(sh("set -e; mkdir -p %s %s; cp '%s' %s/prog; objcopy --only-keep-debug %s/prog %s/%s.debug;"
		 " strip -s %s/prog", dir, dbg, INLINE_FIXTURE_PATH, dir, dir, dbg, bid + 2, dir) == 0);
	snprintf(path, sizeof(path), "%s/prog", dir);
	CHECK_EQ_U64(agree(path), 0);  /* not under the default root */
	snprintf(dbg, sizeof(dbg), "%s/root", tmp);
	setenv("PERFTOP_DEBUG_ROOT", dbg, 1);
	CHECK_EQ_U64(agree(path), work_size);
	/* another build's debug file at that build-id's place: rejected */
	snprintf(dbg, sizeof(dbg), "%s/root/.build-id/%.2s/%s.debug", tmp, bid, bid + 2);
	CHECK(sh("objcopy --only-keep-debug '%s' %s", OTHER_FIXTURE_PATH, dbg) == 0);
	CHECK_EQ_U64(agree(path), 0);

	/* (e) compressed, under the debug root: the first session uses it and starts the copy */
	char cache[600], copy[800];
	snprintf(cache, sizeof(cache), "%s/cache", tmp);
	snprintf(copy, sizeof(copy), "%s/debug/%s.debug", cache, bid);
	setenv("PERFTOP_CACHE_DIR", cache, 1);
	setenv("PERFTOP_DEBUG_CACHE", "0", 1);
	CHECK(sh("objcopy --only-keep-debug --compress-debug-sections=zlib '%s' %s/root/.build-id/%.2s/%s.debug",
		 INLINE_FIXTURE_PATH, tmp, bid, bid + 2) == 0);
	CHECK(sh("readelf -SW %s/root/.build-id/%.2s/%s.debug | grep -q ' .debug_info .* C '", tmp, bid, bid + 2) == 0);
	CHECK_EQ_U64(agree(path), work_size);
	debugcache_wait();
	CHECK(access(copy, F_OK) != 0);  /* turned off: no copy */
	unsetenv("PERFTOP_DEBUG_CACHE");
	unsigned long hits0 = debugcache_hits();
	CHECK_EQ_U64(agree(path), work_size);
	debugcache_wait();
	CHECK(access(copy, R_OK) == 0);
	CHECK(sh("! readelf -SW %s | grep -q ' .debug_info .* C '", copy) == 0);  /* uncompressed */
	CHECK(debugcache_hits() == hits0);
	CHECK_EQ_U64(agree(path), work_size);  /* from the copy */
	CHECK(debugcache_hits() > hits0);
	/* another build's debug file in the copy's place: not used, the compressed file still is */
	CHECK(sh("objcopy --only-keep-debug '%s' %s", OTHER_FIXTURE_PATH, copy) == 0);
	hits0 = debugcache_hits();
	CHECK_EQ_U64(agree(path), work_size);
	CHECK(debugcache_hits() == hits0);
	debugcache_wait();
	unsetenv("PERFTOP_CACHE_DIR");
	setenv("PERFTOP_DEBUG_ROOT", "/nonexistent", 1);

	/* (d) --symfs: the mapping says /opt/perftop-test/prog (this machine has no such file); the
	 * recording machine's tree is under tmp/sysroot, debug file beside the binary there. */
	snprintf(dir, sizeof(dir), "%s/sysroot/opt/perftop-test", tmp);
	CHECK(sh("set -e; mkdir -p %s; cp '%s' %s/prog; cd %s; objcopy --only-keep-debug prog prog.debug;"
		 " strip -s prog; objcopy --add-gnu-debuglink=prog.debug prog", dir, INLINE_FIXTURE_PATH, dir, dir) == 0);
	CHECK_EQ_U64(agree("/opt/perftop-test/prog"), 0);
	snprintf(dbg, sizeof(dbg), "%s/sysroot", tmp);
	debuginfo_configure(dbg, NULL, NULL);
	CHECK_EQ_U64(agree("/opt/perftop-test/prog"), work_size);
	debuginfo_configure(NULL, NULL, NULL);
	unsetenv("PERFTOP_DEBUG_ROOT");
	sh("rm -rf '%s'", tmp);
	return CHECK_DONE();
}

/* Exits 77 (skip) where libc6-dbg's debug file for this libc is not at its build-id path. */
static int libc_debug_symbols(void)
{
	bool skipped = false;
	/* libc6-dbg: libc's local (static) functions, only in the debug file's .symtab. Which ones
	 * exist depends on the glibc and its build (the string functions' variants differ between
	 * CPUs' ifunc sets and versions), so the reference is read from this machine's debug file
	 * with nm: every local text symbol ('t') with a size, alone at its address (no alias to
	 * choose between) and without a '.' (not a .cold or .constprop part), and LOCAL_CHECKED of
	 * them spread over the text are looked up by address and must come out by that name. */
	{
		struct intern *in = intern_new();
		struct dso_set *set = dso_set_new(in);
		const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
		struct dso *d = dso_set_get(set, libc, NULL);
		long n = dso_symbol_count(d);
		CHECK(n > 3000);
		char bid[128], dbgfile[300], cmd[1024], line[512];
		if (build_id_hex(libc, bid, sizeof(bid)) == 0)
			snprintf(dbgfile, sizeof(dbgfile), "/usr/lib/debug/.build-id/%.2s/%s.debug", bid, bid + 2);
		else
			dbgfile[0] = 0;
		if (dbgfile[0] && access(dbgfile, R_OK) == 0) {
			enum { LOCAL_MAX = 65536, LOCAL_CHECKED = 40 };
			static unsigned long addr[LOCAL_MAX];
			static char name[LOCAL_MAX][128];
			int nlocal = 0;
			snprintf(cmd, sizeof(cmd),
				 "nm -S --defined-only '%s' | awk 'NF == 4 { n[$1]++; if ($3 == \"t\" &&"
				 " $4 !~ /\\./ && $2 !~ /^0+$/) c[$1] = $4 } NF == 3 { n[$1]++ }"
				 " END { for (a in c) if (n[a] == 1) print a, c[a] }' | sort", dbgfile);
			FILE *p = popen(cmd, "r");
			CHECK(p != NULL);
			while (p && nlocal < LOCAL_MAX && fgets(line, sizeof(line), p))
				if (sscanf(line, "%lx %127s", &addr[nlocal], name[nlocal]) == 2)
					nlocal++;
			if (p)
				pclose(p);
			printf("libc: %d local functions alone at their address in %s\n", nlocal, dbgfile);
			CHECK(nlocal >= LOCAL_CHECKED);
			int named = 0, checked = 0;
			for (int i = 0; nlocal >= LOCAL_CHECKED && i < LOCAL_CHECKED; i++) {
				int j = (int)((long)i * nlocal / LOCAL_CHECKED);
				struct frame f[8];
				int k = dso_lookup(d, addr[j], f, 8);  /* libc's text: offsets equal addresses */
				checked++;
				if (k >= 1 && f[k - 1].sym && strcmp(f[k - 1].sym, name[j]) == 0)
					named++;
				else
					printf("libc: %s at 0x%lx came out as %s\n", name[j], addr[j],
					       k >= 1 && f[k - 1].sym ? f[k - 1].sym : "(nothing)");
			}
			printf("libc: %d of %d local functions named by the debug file's .symtab\n", named,
			       checked);
			CHECK(checked == LOCAL_CHECKED && named == checked);
		} else {
			/* the Makefile's PACKAGES installs it */
			printf("SKIP: libc6-dbg is not installed (no %s): libc's local symbols not checked\n",
			       dbgfile[0] ? dbgfile : "build-id for libc");
			skipped = check_failures == 0;
		}
		dso_set_free(set);
		intern_free(in);
	}
	return skipped ? 77 : CHECK_DONE();
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "libc") == 0)
		return libc_debug_symbols();
	return debug_files();
}
