/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_linetab: linetab.c's decoder against libdw, CU by CU.
 *
 * For every compile unit of (a) the inline fixtures (DWARF 5 as the compiler emits by default, and
 * the same source built -gdwarf-2/3/4), (b) libc.so.6 through its separate debug file (libc6-dbg),
 * (c) a libpython3 with DWARF, found at run time whatever python3 is first on PATH (findpy.h: the
 *     first on PATH's, else pyenv's):
 * for every row address of libdw's table, the address one past it, one before it and the midpoint to
 * the next row, linetab_line must give what dwarf_getsrc_die + dwarf_linesrc + dwarf_lineno give
 * (the file's basename and the line, or nothing for both); and for every file index (and one past
 * the last), linetab_file must give dwarf_filesrc's basename. A CU the decoder gives up on is counted
 * (libdw answers for it in srcinfo); it must not be one libdw decodes when all the checked binaries
 * are plain gcc output, so the count of those is required to be 0 too.
 *
 * (b) and (c) are parts of their own, each its own ctest test, that skip (77) where the machine lacks
 * what they read: test_linetab libc (test_linetab_libc) where libc6-dbg's debug file for this libc
 * is not at /usr/lib/debug/.build-id/xx/yyyy.debug, test_linetab libpython (test_linetab_libpython)
 * where no libpython3 found here has DWARF (Debian's has none, nor a debug file for it).
 *
 * usage: test_linetab [libc | libpython] (fixture paths compiled in)
 */
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "findpy.h"
#include "symbolize/linetab.h"

static uint64_t n_addrs, n_cus, n_files, n_diff, n_gaveup;

static const char *base_of(const char *p)
{
	if (!p)
		return NULL;
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

static void cmp_addr(Dwarf_Die *cu, const struct linetab *t, uint64_t pc)
{
	Dwarf_Line *l = dwarf_getsrc_die(cu, pc);
	int dl = 0;
	const char *dn = NULL;
	if (l && dwarf_lineno(l, &dl) == 0)
		dn = base_of(dwarf_linesrc(l, NULL, NULL));
	const char *mn = NULL;
	int ml = 0;
	if (!linetab_line(t, pc, &mn, &ml))
		mn = NULL;
	n_addrs++;
	bool same = (!dn && !mn) || (dn && mn && strcmp(dn, mn) == 0 && dl == ml);
	if (!same) {
		if (n_diff++ < 20)
			fprintf(stderr, "  CU %#llx pc %#llx: libdw %s:%d, linetab %s:%d\n",
				(unsigned long long)dwarf_dieoffset(cu), (unsigned long long)pc, dn ? dn : "-",
				dn ? dl : 0, mn ? mn : "-", mn ? ml : 0);
	}
}

static void check_cu(Dwarf_Die *cu)
{
	struct linetab *t = linetab_decode(cu);
	Dwarf_Lines *lines;
	size_t n;
	bool dw_ok = dwarf_getsrclines(cu, &lines, &n) == 0;
	if (!t) {
		if (dw_ok && n > 0) {
			n_gaveup++;
			fprintf(stderr, "  CU %#llx: linetab gave up on a table libdw reads (%zu rows)\n",
				(unsigned long long)dwarf_dieoffset(cu), n);
		}
		return;
	}
	n_cus++;
	if (!dw_ok) {
		if (linetab_nrows(t)) {
			n_diff++;
			fprintf(stderr, "  CU %#llx: libdw has no lines, linetab %zu rows\n",
				(unsigned long long)dwarf_dieoffset(cu), linetab_nrows(t));
		}
		linetab_free(t);
		return;
	}
	if (n != linetab_nrows(t)) {
		n_diff++;
		fprintf(stderr, "  CU %#llx: %zu rows in libdw, %zu in linetab\n",
			(unsigned long long)dwarf_dieoffset(cu), n, linetab_nrows(t));
	}
	for (size_t i = 0; i < n; i++) {
		Dwarf_Addr a;
		if (dwarf_lineaddr(dwarf_onesrcline(lines, i), &a) != 0)
			continue;
		if (i < linetab_nrows(t) && linetab_row_addr(t, i) != a && n_diff++ < 20)
			fprintf(stderr, "  row %zu: libdw %#llx linetab %#llx\n", i, (unsigned long long)a,
				(unsigned long long)linetab_row_addr(t, i));
		cmp_addr(cu, t, a);
		cmp_addr(cu, t, a + 1);
		cmp_addr(cu, t, a - 1);
		Dwarf_Addr next;
		if (i + 1 < n && dwarf_lineaddr(dwarf_onesrcline(lines, i + 1), &next) == 0 && next > a)
			cmp_addr(cu, t, a + (next - a) / 2);
	}
	Dwarf_Files *files;
	size_t nf;
	if (dwarf_getsrcfiles(cu, &files, &nf) == 0) {
		if (nf != linetab_nfiles(t) && n_diff++ < 20)
			fprintf(stderr, "  CU %#llx: %zu files in libdw, %zu in linetab\n",
				(unsigned long long)dwarf_dieoffset(cu), nf, linetab_nfiles(t));
		for (size_t i = 0; i <= nf; i++) {
			const char *dn = i < nf ? base_of(dwarf_filesrc(files, i, NULL, NULL)) : NULL;
			const char *mn = linetab_file(t, i);
			n_files++;
			if (!((!dn && !mn) || (dn && mn && strcmp(dn, mn) == 0)) && n_diff++ < 20)
				fprintf(stderr, "  CU %#llx file %zu: libdw %s linetab %s\n",
					(unsigned long long)dwarf_dieoffset(cu), i, dn ? dn : "-", mn ? mn : "-");
		}
	} else {
		n_diff++;
		fprintf(stderr, "  CU %#llx: libdw has no files\n", (unsigned long long)dwarf_dieoffset(cu));
	}
	linetab_free(t);
}

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* Compares every CU of path's DWARF (its own or its debug file's); returns the CU count. */
static uint64_t check_binary(const char *path)
{
	uint64_t cus0 = n_cus, addrs0 = n_addrs, files0 = n_files;
	Dwfl *dwfl = dwfl_begin(&callbacks);
	Dwfl_Module *m = dwfl ? dwfl_report_offline(dwfl, "", path, -1) : NULL;
	if (dwfl)
		dwfl_report_end(dwfl, NULL, NULL);
	Dwarf_Addr bias;
	Dwarf *dbg = m ? dwfl_module_getdwarf(m, &bias) : NULL;
	if (!dbg) {
		fprintf(stderr, "%s: no DWARF\n", path);
		CHECK(dbg != NULL);
		dwfl_end(dwfl);
		return 0;
	}
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t unit_type;
	while (dwarf_get_units(dbg, cu, &cu, NULL, &unit_type, &cudie, NULL) == 0)
		check_cu(&cudie);
	printf("%s: %llu CUs decoded, %llu addresses and %llu file indices compared\n", path,
	       (unsigned long long)(n_cus - cus0), (unsigned long long)(n_addrs - addrs0),
	       (unsigned long long)(n_files - files0));
	dwfl_end(dwfl);
	return n_cus - cus0;
}

/* Whether libdw finds DWARF for path: its own, or a debug file's (build-id, .gnu_debuglink). */
static bool has_dwarf(const char *path)
{
	Dwfl *dwfl = dwfl_begin(&callbacks);
	Dwfl_Module *m = dwfl ? dwfl_report_offline(dwfl, "", path, -1) : NULL;
	if (dwfl)
		dwfl_report_end(dwfl, NULL, NULL);
	Dwarf_Addr bias;
	bool ok = m && dwfl_module_getdwarf(m, &bias) != NULL;
	if (dwfl)
		dwfl_end(dwfl);
	return ok;
}

/* Where libc6-dbg puts the debug file of the libc at path: /usr/lib/debug/.build-id/xx/yyyy.debug of
 * its build-id, into out; false when libdw finds no build-id in it. */
static bool build_id_debug_path(const char *path, char *out, size_t cap)
{
	Dwfl *dwfl = dwfl_begin(&callbacks);
	Dwfl_Module *m = dwfl ? dwfl_report_offline(dwfl, "", path, -1) : NULL;
	if (dwfl)
		dwfl_report_end(dwfl, NULL, NULL);
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = m ? dwfl_module_build_id(m, &bits, &vaddr) : -1;
	if (n > 1) {
		size_t o = (size_t)snprintf(out, cap, "/usr/lib/debug/.build-id/%02x/", bits[0]);
		for (int i = 1; i < n && o + 3 < cap; i++)
			o += (size_t)snprintf(out + o, cap - o, "%02x", bits[i]);
		snprintf(out + o, cap > o ? cap - o : 0, ".debug");
	}
	if (dwfl)
		dwfl_end(dwfl);
	return n > 1;
}

/* libc.so.6 through its separate debug file (libc6-dbg); 77 where that file is not here. */
static int libc_part(void)
{
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	char dbg[512];
	if (!build_id_debug_path(libc, dbg, sizeof(dbg))) {
		printf("SKIP: %s has no build-id: no libc6-dbg debug file to find for it\n", libc);
		return 77;
	}
	if (access(dbg, R_OK) != 0) {
		/* the Makefile's PACKAGES installs it */
		printf("SKIP: libc6-dbg is not installed (no %s for %s)\n", dbg, libc);
		return 77;
	}
	CHECK(check_binary(libc) > 100);
	return 0;
}

/* A libpython with DWARF (pyenv's builds have it; Debian's has none, nor a debug file for it): the
 * first found, the python3 first on PATH's before the others (findpy.h); 77 where there is none. */
static int libpython_part(void)
{
	static struct findpy fp;  /* 512 KiB: not on the stack */
	findpy_collect(&fp);
	int py = -1;
	for (int i = 0; i < fp.n && py < 0; i++)
		if (has_dwarf(fp.path[i]))
			py = i;
	if (py < 0) {
		printf("SKIP: none of the %d libpython3 libraries found here has DWARF (pyenv's would)\n",
		       fp.n);
		return 77;
	}
	CHECK(check_binary(fp.path[py]) > 0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *part = argc > 1 ? argv[1] : "";
	if (strcmp(part, "libc") == 0) {
		if (libc_part() == 77)
			return 77;
	} else if (strcmp(part, "libpython") == 0) {
		if (libpython_part() == 77)
			return 77;
	} else if (part[0]) {
		fprintf(stderr, "usage: test_linetab [libc | libpython]\n");
		return 2;
	} else {
		static const char *fixtures[] = { INLINE_FIXTURE_PATH, OTHER_FIXTURE_PATH,
						  DW2_FIXTURE_PATH, DW3_FIXTURE_PATH, DW4_FIXTURE_PATH };
		for (size_t i = 0; i < sizeof(fixtures) / sizeof(*fixtures); i++)
			CHECK(check_binary(fixtures[i]) > 0);
	}
	printf("total: %llu CUs, %llu addresses, %llu file indices compared; %llu differences; "
	       "%llu CUs left to libdw\n",
	       (unsigned long long)n_cus, (unsigned long long)n_addrs, (unsigned long long)n_files,
	       (unsigned long long)n_diff, (unsigned long long)n_gaveup);
	CHECK_EQ_U64(n_diff, 0);
	CHECK_EQ_U64(n_gaveup, 0);
	return CHECK_DONE();
}
