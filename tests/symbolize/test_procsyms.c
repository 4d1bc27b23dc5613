/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_procsyms: the process-side names of the symbolizer against this very process: perf map files
 * (parsing good and malformed lines, growth and re-reads, the byte cap, JIT frames through the facade
 * live and offline), the vdso (our own image: __vdso_clock_gettime found independently in its
 * dynamic symbols, then named through a [vdso] mapping), and binaries deleted or replaced after they
 * were mapped (a copy of the fixture library, dlopened, then removed or renamed over).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "mkrec.h"
#include "symbolize/intern.h"
#include "symbolize/jitmap.h"
#include "symbolize/maps.h"
#include "symbolize/symbolizer.h"
#include "symbolize/vdso.h"
#include "util/util.h"

static char tmpdir[] = "/tmp/perftop-procsyms-XXXXXX";

static void feed_mmap(struct symbolizer *s, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		      uint64_t ino, const char *path)
{
	struct rec *r = mk_mmap(pid, start, len, pgoff, 0, 0, ino, path);
	symbolizer_feed(s, r);
	free(r);
}

static void write_file(const char *path, const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* ---- the perf map parser ---- */

static bool parse(const char *line, uint64_t *start, uint64_t *size, char *name, size_t cap)
{
	const char *n;
	size_t nl;
	if (!jitmap_parse_line(line, strlen(line), start, size, &n, &nl))
		return false;
	snprintf(name, cap, "%.*s", (int)nl, n);
	return true;
}

static void test_parse_lines(void)
{
	uint64_t st, sz;
	char name[128];
	CHECK(parse("7f0012340000 1e0 JS:*hot /tmp/a.js:1:2", &st, &sz, name, sizeof(name)));
	CHECK_EQ_U64(st, 0x7f0012340000ull);
	CHECK_EQ_U64(sz, 0x1e0);
	CHECK_STR(name, "JS:*hot /tmp/a.js:1:2");  /* names keep their spaces */
	CHECK(parse("0x10\t0X20\tLjava/lang/String;::hashCode  \r", &st, &sz, name, sizeof(name)));
	CHECK_EQ_U64(st, 0x10);
	CHECK_EQ_U64(sz, 0x20);
	CHECK_STR(name, "Ljava/lang/String;::hashCode");  /* trailing blanks (and CR) go */
	CHECK(parse("  AbCdEf 1 py::f:/x.py", &st, &sz, name, sizeof(name)));
	CHECK_EQ_U64(st, 0xabcdef);

	static const char *const bad[] = {
		"",                            /* empty */
		"7f00 10",                     /* no name */
		"7f00 10   ",                  /* blank name */
		"zz 10 name",                  /* not hex */
		"7f00 0 name",                 /* zero size */
		"7f00 -10 name",               /* signed */
		"7f00g 10 name",               /* junk glued to the start */
		"ffffffffffffffff 10 name",    /* wraps */
		"10000000000000000 10 name",   /* 17 digits */
		"7f00",                        /* start only */
		"# comment",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		bool ok = parse(bad[i], &st, &sz, name, sizeof(name));
		if (ok)
			fprintf(stderr, "accepted malformed line \"%s\"\n", bad[i]);
		CHECK(!ok);
	}
}

/* ---- reading map files: growth, partial lines, newer lines winning, rewrites, the cap ---- */

static const char *jit_name(struct jitmap *j, uint64_t addr)
{
	const char *n;
	uint64_t start;
	return jitmap_lookup(j, addr, &n, &start) ? n : NULL;
}

static void test_map_file(void)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/perf-1.map", tmpdir);
	struct intern *in = intern_new();
	struct jitmap *j = jitmap_new(path, in);
	CHECK(jit_name(j, 0x1000) == NULL);  /* no file yet: empty, no error */

	write_file(path, "1000 100 alpha\n1200 80 beta\nnot a line\n\x01\x02\xff garbage\n1300 10 gam", "w");
	jitmap_refresh(j, now_ns(), true);
	CHECK_EQ_U64(jitmap_count(j), 2);    /* "gam..." is not complete yet */
	CHECK_EQ_U64(jitmap_malformed(j), 2);
	CHECK_STR(jit_name(j, 0x1000), "alpha");
	CHECK_STR(jit_name(j, 0x10ff), "alpha");
	CHECK(jit_name(j, 0x1100) == NULL);  /* between entries */
	CHECK_STR(jit_name(j, 0x127f), "beta");
	CHECK(jit_name(j, 0x1280) == NULL);
	CHECK(jit_name(j, 0xfff) == NULL);
	const char *n;
	uint64_t start = 0;
	CHECK(jitmap_lookup(j, 0x1234, &n, &start) && start == 0x1200);

	/* The writer finishes its line and the JIT reuses addresses: later lines win. */
	write_file(path, "ma\n1000 40 alpha2\n1400 100 delta\n1380 100 eps\n", "a");
	jitmap_refresh(j, now_ns(), true);
	CHECK_STR(jit_name(j, 0x1305), "gamma");
	CHECK_STR(jit_name(j, 0x1000), "alpha2");   /* same start: the newer line */
	CHECK(jit_name(j, 0x1050) == NULL);         /* alpha2 is shorter than alpha was */
	CHECK_STR(jit_name(j, 0x1390), "eps");
	CHECK_STR(jit_name(j, 0x1400), "delta");    /* eps is cut where delta starts */
	CHECK_EQ_U64(jitmap_count(j), 5);
	/* Interned: equal names are one pointer across lookups. */
	CHECK(jit_name(j, 0x1400) == jit_name(j, 0x1401));

	/* The growth check is rate-limited: an append is seen by a forced or a due refresh. */
	write_file(path, "2000 10 zeta\n", "a");
	jitmap_refresh(j, now_ns() + JITMAP_CHECK_NS + 1, false);
	CHECK_STR(jit_name(j, 0x2001), "zeta");

	/* Rewritten smaller (another process with this pid): read again from the start. */
	write_file(path, "3000 10 theta\n", "w");
	jitmap_refresh(j, now_ns(), true);
	CHECK_STR(jit_name(j, 0x3000), "theta");
	CHECK(jit_name(j, 0x1000) == NULL);
	CHECK_EQ_U64(jitmap_count(j), 1);
	CHECK(!jitmap_truncated(j));
	jitmap_free(j);
	j = jitmap_new(path, in);

	/* A JVM asked for its map rewrites it whole, in place (the same inode, fopen "w"), in
	 * HotSpot's format (0x and 16 digits); longer than before, a read from where the last one
	 * stopped would start inside a line: jitmap_reread (the answer's) starts over. */
	write_file(path, "0x0000000000003000 0x0000000000000010 Interpreter\n", "w");
	jitmap_refresh(j, now_ns(), true);
	CHECK_STR(jit_name(j, 0x3000), "Interpreter");
	write_file(path, "0x0000000000004000 0x0000000000000100 long Hot.alpha(long)\n"
			 "0x0000000000003000 0x0000000000000010 Interpreter\n"
			 "0x0000000000005000 0x0000000000000100 long Hot.beta(long)\n", "w");
	jitmap_reread(j);
	CHECK_STR(jit_name(j, 0x4010), "long Hot.alpha(long)");
	CHECK_STR(jit_name(j, 0x50ff), "long Hot.beta(long)");
	CHECK_STR(jit_name(j, 0x3000), "Interpreter");
	CHECK_EQ_U64(jitmap_count(j), 3);
	CHECK_EQ_U64(jitmap_malformed(j), 0);
	jitmap_free(j);

	/* The byte cap: only the lines inside it are read, and the map says it was cut. */
	FILE *f = fopen(path, "w");
	for (int i = 0; f && i < 1000; i++)
		fprintf(f, "%x 10 fn_%04d\n", 0x10000 + i * 0x10, i);
	if (f)
		fclose(f);
	j = jitmap_new(path, in);
	jitmap_set_max_bytes(j, 4096);
	jitmap_refresh(j, now_ns(), true);
	CHECK(jitmap_truncated(j));
	CHECK(jitmap_count(j) > 100 && jitmap_count(j) < 300);
	CHECK_STR(jit_name(j, 0x10000), "fn_0000");
	CHECK(jit_name(j, 0x10000 + 999 * 0x10) == NULL);
	jitmap_free(j);

	/* Long names are cut, and a FIFO under the name is not waited for. */
	char big[JITMAP_MAX_NAME * 2 + 32];
	int k = snprintf(big, sizeof(big), "5000 10 ");
	memset(big + k, 'x', JITMAP_MAX_NAME * 2);
	strcpy(big + k + JITMAP_MAX_NAME * 2, "\n");
	write_file(path, big, "w");
	j = jitmap_new(path, in);
	const char *ln = jit_name(j, 0x5000);
	CHECK(ln && strlen(ln) == JITMAP_MAX_NAME);
	jitmap_free(j);
	unlink(path);
	CHECK(mkfifo(path, 0600) == 0);
	j = jitmap_new(path, in);
	CHECK(jit_name(j, 0x5000) == NULL);
	jitmap_free(j);
	unlink(path);
	intern_free(in);
}

/* ---- JIT frames through the facade ---- */

static void test_jit_frames(void)
{
	uint32_t pid = (uint32_t)getpid();
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	/* Anonymous executable memory of our own, as a JIT would have it. */
	size_t len = 3 * 4096;
	uint8_t *code = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(code != MAP_FAILED);
	if (code == MAP_FAILED)
		return;
	uint64_t base = (uint64_t)(uintptr_t)code;
	char text[256];
	snprintf(text, sizeof(text), "%" PRIx64 " 100 JS:*hotLoopFunction /x/hot.js:1:25\n%" PRIx64
		 " 40 LazyCompile:~outer\n", base, base + 0x1000);
	write_file(path, text, "w");

	for (int offline = 0; offline < 2; offline++) {
		struct symbolizer *s = symbolizer_new();
		if (offline)
			symbolizer_set_offline(s);
		feed_mmap(s, pid, base, len, 0, 0, "//anon");
		char want_dso[32];
		snprintf(want_dso, sizeof(want_dso), "[JIT] tid %u", pid);
		struct frame f;
		CHECK(symbolizer_lookup(s, pid, base + 0x10, false, &f, 1) == 1);
		CHECK_STR(f.sym, "JS:*hotLoopFunction /x/hot.js:1:25");
		CHECK_STR(f.dso, want_dso);
		CHECK_EQ_U64(f.sym_start, base);
		CHECK(symbolizer_lookup(s, pid, base + 0x1010, false, &f, 1) == 1);
		CHECK_STR(f.sym, "LazyCompile:~outer");
		/* Anonymous code without a line: perf's JIT dso, the address as its name. */
		CHECK(symbolizer_lookup(s, pid, base + 0x2000, false, &f, 1) == 1);
		CHECK_STR(f.dso, want_dso);
		CHECK(f.sym[0] == '0' && f.sym[1] == 'x');
		struct symbolizer_stats st;
		symbolizer_get_stats(s, &st);
		CHECK_EQ_U64(st.jit, 2);
		symbolizer_free(s);
	}
	/* An address outside every mapping is no JIT code until the process is known to have a perf
	 * map (a return address of code without frame pointers, most often): not looked up, so a
	 * process that never maps anonymous code never has its map looked for. Offline: no /proc. */
	struct symbolizer *s = symbolizer_new();
	symbolizer_set_offline(s);
	feed_mmap(s, pid, base + 0x1000, 0x1000, 0, 0, "//anon");
	struct frame f;
	CHECK(symbolizer_lookup(s, pid, base + 0x10, false, &f, 1) == 1);
	CHECK(strcmp(f.sym, "JS:*hotLoopFunction /x/hot.js:1:25") != 0);
	CHECK(symbolizer_lookup(s, pid, base + 0x1010, false, &f, 1) == 1);
	CHECK_STR(f.sym, "LazyCompile:~outer");
	/* its map found, the map names what it holds wherever the records left a gap */
	CHECK(symbolizer_lookup(s, pid, base + 0x10, false, &f, 1) == 1);
	CHECK_STR(f.sym, "JS:*hotLoopFunction /x/hot.js:1:25");
	symbolizer_free(s);
	/* The map file's path: our own pid and root, so plain /tmp/perf-PID.map. */
	struct intern *in = intern_new();
	struct maps *m = maps_new(NULL, in);
	struct rec c = { .size = sizeof(struct rec), .type = REC_COMM, .pid = pid, .tid = pid };
	c.u.comm.pid = c.u.comm.tid = pid;
	strcpy(c.u.comm.comm, "self");
	maps_feed(m, &c);
	char got[128];
	CHECK(maps_jit_path(m, pid, got, sizeof(got)));
	CHECK_STR(got, path);
	maps_free(m);
	intern_free(in);
	unlink(path);
	munmap(code, len);
}

/* ---- the vdso ---- */

/* The address (in our process) of a dynamic symbol of our vdso image, read with libelf. */
static uint64_t vdso_sym_addr(const void *img, size_t size, const char *want)
{
	elf_version(EV_CURRENT);
	Elf *e = elf_memory((char *)img, size);
	uint64_t addr = 0;
	Elf_Scn *scn = NULL;
	while (e && !addr && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;
			if (gelf_getsym(d, (int)i, &sym) && (n = elf_strptr(e, sh.sh_link, sym.st_name)) &&
			    strcmp(n, want) == 0) {
				/* The image is linked at 0 (or its own p_vaddr): st_value is an offset in it. */
				GElf_Phdr ph;
				uint64_t vbase = 0;
				for (int k = 0; gelf_getphdr(e, k, &ph); k++)
					if (ph.p_type == PT_LOAD) {
						vbase = ph.p_vaddr - ph.p_offset;
						break;
					}
				addr = (uint64_t)(uintptr_t)img + sym.st_value - vbase;
				break;
			}
		}
	}
	if (e)
		elf_end(e);
	return addr;
}

static void test_vdso(void)
{
	size_t size = 0;
	const void *img = vdso_self_image(&size);
	if (!img) {
		printf("no vdso in this process: vdso checks skipped\n");
		return;
	}
	CHECK(size >= 1024 && size <= (1u << 20));
	uint64_t fn = vdso_sym_addr(img, size, "__vdso_clock_gettime");
	CHECK(fn != 0);
	uint64_t base = (uint64_t)(uintptr_t)img;
	/* For any process, ours or one that never existed: every process has this kernel's vdso. */
	uint32_t pids[] = { (uint32_t)getpid(), 0x7ffffff0u };
	for (size_t i = 0; i < ARRAY_SIZE(pids); i++) {
		struct symbolizer *s = symbolizer_new();
		feed_mmap(s, pids[i], base, 2 * 4096, 0, 0, "[vdso]");
		struct frame f;
		CHECK(symbolizer_lookup(s, pids[i], fn + 4, false, &f, 1) == 1);
		CHECK_STR(f.dso, "[vdso]");
		CHECK_STR(f.sym, "__vdso_clock_gettime");
		CHECK_EQ_U64(f.sym_start, fn - base);
		symbolizer_free(s);
	}
	struct vdso *v = vdso_new();
	const char *file = vdso_file(v);
	struct stat st;
	CHECK(file && stat(file, &st) == 0 && (size_t)st.st_size == size);
	CHECK(vdso_file(v) == file);  /* made once */
	vdso_free(v);
}

/* ---- deleted and replaced binaries ---- */

static int copy_file(const char *from, const char *to)
{
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	char buf[65536];
	size_t n;
	int rc = a && b ? 0 : -1;
	while (rc == 0 && (n = fread(buf, 1, sizeof(buf), a)) > 0)
		if (fwrite(buf, 1, n, b) != n)
			rc = -1;
	if (a)
		fclose(a);
	if (b)
		fclose(b);
	return rc;
}

/* Feeds pid the executable mappings of ours whose path starts with prefix, under the name given. */
static int feed_self_as(struct symbolizer *s, uint32_t pid, const char *prefix, const char *as)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	int fed = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off, ino;
		unsigned maj, min;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &lo, &hi, perms, &off, &maj, &min, &ino,
			   &pos) < 7 || perms[2] != 'x' || strncmp(line + pos, prefix, strlen(prefix)) != 0)
			continue;
		struct rec *r = mk_mmap(pid, lo, hi - lo, off, maj, min, ino, as);
		symbolizer_feed(s, r);
		free(r);
		fed++;
	}
	if (f)
		fclose(f);
	return fed;
}

static void test_deleted(void)
{
	uint32_t pid = (uint32_t)getpid();
	char lib[256], other[256], deleted[300];
	snprintf(lib, sizeof(lib), "%s/libfixture-copy.so", tmpdir);
	snprintf(other, sizeof(other), "%s/other.so", tmpdir);
	CHECK(copy_file(SYMFIXTURE_PATH, lib) == 0);
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL);
	if (!h)
		return;
	uint64_t alpha = (uint64_t)(uintptr_t)dlsym(h, "fixture_alpha");
	uint64_t beta = (uint64_t)(uintptr_t)dlsym(h, "fixture_beta");
	CHECK(alpha && beta);

	/* Replaced: a different file renamed over the path (an upgrade); the mapping still has the old
	 * one. The record names the path as it was mapped, with the old inode. */
	CHECK(copy_file("/proc/self/exe", other) == 0);
	CHECK(rename(other, lib) == 0);
	snprintf(deleted, sizeof(deleted), "%s (deleted)", lib);
	struct symbolizer *s = symbolizer_new();
	CHECK(feed_self_as(s, pid, deleted, lib) >= 1);
	struct frame f;
	symbolizer_lookup(s, pid, alpha + 1, false, &f, 1);
	CHECK_STR(f.sym, "fixture_alpha");
	CHECK_STR(f.dso, "libfixture-copy.so");
	symbolizer_free(s);

	/* Deleted: the records carry " (deleted)", as /proc/PID/maps (and so -p) show it. */
	CHECK(unlink(lib) == 0);
	s = symbolizer_new();
	CHECK(feed_self_as(s, pid, deleted, deleted) >= 1);
	symbolizer_lookup(s, pid, beta + 2, false, &f, 1);
	CHECK_STR(f.sym, "fixture_beta");
	CHECK_STR(f.dso, "libfixture-copy.so (deleted)");
	symbolizer_free(s);

	/* Offline (a recording) nothing can be asked of the process: an address, never a wrong name. */
	s = symbolizer_new();
	symbolizer_set_offline(s);
	CHECK(feed_self_as(s, pid, deleted, deleted) >= 1);
	symbolizer_lookup(s, pid, beta + 2, false, &f, 1);
	CHECK(f.sym[0] == '0' && f.sym[1] == 'x');
	symbolizer_free(s);

	/* A process that is gone: no crash, no name. */
	s = symbolizer_new();
	feed_mmap(s, 0x7ffffff1u, 0x400000, 0x1000, 0, 1234, "/nonexistent/x (deleted)");
	symbolizer_lookup(s, 0x7ffffff1u, 0x400010, false, &f, 1);
	CHECK(f.sym[0] == '0' && f.sym[1] == 'x');
	symbolizer_free(s);
	dlclose(h);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_parse_lines();
	test_map_file();
	test_jit_frames();
	test_vdso();
	test_deleted();
	rmdir(tmpdir);
	return CHECK_DONE();
}
