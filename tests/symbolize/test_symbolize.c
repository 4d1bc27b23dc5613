/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_symbolize: the symbolizer against this very process. We dlopen a fixture library with known
 * symbols, read our own /proc/self/maps, and feed hand-built MMAP2/COMM/FORK/EXIT records as the
 * sampler would, then check the names that come back for function starts and middles, for the
 * test's own PIE executable, for libc (with its separate debug info when installed) and for the
 * kernel, and NAME@plt for PLT entries found independently by decoding their jumps. It ends with a
 * lookup micro benchmark (printed, not asserted).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "findpy.h"
#include "mkrec.h"
#include "symbolize/dso.h"
#include "symbolize/intern.h"
#include "symbolize/kernel.h"
#include "symbolize/maps.h"
#include "symbolize/symbolizer.h"
#include "util/util.h"

#define FAKE_PID 0x7ffffff0u  /* above any pid_max: never read from /proc */

struct mapline {
	uint64_t start, end, off, ino;
	unsigned maj, min;
	char perms[8];
	char path[512];
};

static int self_maps(struct mapline *v, int max)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	int n = 0;
	while (f && n < max && fgets(line, sizeof(line), f)) {
		struct mapline *m = &v[n];
		int pos = 0;
		unsigned long long s, e, o, ino;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &s, &e, m->perms, &o, &m->maj, &m->min,
			   &ino, &pos) < 7)
			continue;
		m->start = s, m->end = e, m->off = o, m->ino = ino;
		snprintf(m->path, sizeof(m->path), "%s", line + pos);
		m->path[strcspn(m->path, "\n")] = 0;
		n++;
	}
	if (f)
		fclose(f);
	return n;
}

static void feed_mmap(struct symbolizer *s, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		      const char *path)
{
	struct rec *r = mk_mmap(pid, start, len, pgoff, 0, 0, 0, path);
	symbolizer_feed(s, r);
	free(r);
}

/* Feeds pid the executable mappings of this process whose path contains what (all when NULL). */
static int feed_self(struct symbolizer *s, uint32_t pid, const char *what)
{
	static struct mapline v[512];
	int n = self_maps(v, 512), fed = 0;
	for (int i = 0; i < n; i++) {
		if (v[i].perms[2] != 'x' || (what && !strstr(v[i].path, what)))
			continue;
		struct rec *r = mk_mmap(pid, v[i].start, v[i].end - v[i].start, v[i].off, v[i].maj, v[i].min,
					v[i].ino, v[i].path[0] ? v[i].path : "//anon");
		symbolizer_feed(s, r);
		free(r);
		fed++;
	}
	return fed;
}

static struct rec task_rec(enum rec_type type, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	struct rec r = { .size = sizeof(struct rec), .type = (uint16_t)type, .pid = pid, .tid = tid };
	r.u.task = (struct rec_task){ .pid = pid, .ppid = ppid, .tid = tid, .ptid = ptid };
	return r;
}

static struct rec comm_rec(uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct rec r = { .size = sizeof(struct rec), .type = REC_COMM, .pid = pid, .tid = tid };
	r.u.comm.pid = pid;
	r.u.comm.tid = tid;
	r.u.comm.exec = exec;
	snprintf(r.u.comm.comm, sizeof(r.u.comm.comm), "%s", comm);
	return r;
}

static struct frame look1(struct symbolizer *s, uint32_t pid, const void *addr)
{
	struct frame f[4];
	memset(f, 0, sizeof(f));
	int n = symbolizer_lookup(s, pid, (uint64_t)(uintptr_t)addr, false, f, 4);
	CHECK(n >= 1);
	return f[n - 1];
}

/* Size of an exported symbol from the dynamic symbol table, 0 if unknown. */
static size_t dyn_size(void *addr)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;
	if (!dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
		return 0;
	return sym->st_size;
}

__attribute__((noinline)) int test_marker_function(int x)
{
	volatile int y = x;
	for (int i = 0; i < 10; i++)
		y += i;
	return y;
}

typedef int (*fixfn)(int);
static fixfn fx_alpha, fx_beta, fx_weak, fx_local;

/* ---- PLT entries, found the independent way: the entry whose jmp reads name's GOT slot ---- */

struct elf_file {
	int fd;
	Elf *elf;
	size_t shstrndx;
};

static bool elf_file_open(struct elf_file *f, const char *path)
{
	elf_version(EV_CURRENT);
	f->fd = open(path, O_RDONLY);
	f->elf = f->fd >= 0 ? elf_begin(f->fd, ELF_C_READ, NULL) : NULL;
	if (f->elf && elf_getshdrstrndx(f->elf, &f->shstrndx) == 0)
		return true;
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	return false;
}

static void elf_file_close(struct elf_file *f)
{
	elf_end(f->elf);
	close(f->fd);
}

static Elf_Scn *elf_file_scn(struct elf_file *f, const char *want, GElf_Shdr *sh)
{
	for (Elf_Scn *scn = elf_nextscn(f->elf, NULL); scn; scn = elf_nextscn(f->elf, scn)) {
		const char *n;
		if (gelf_getshdr(scn, sh) && (n = elf_strptr(f->elf, f->shstrndx, sh->sh_name)) &&
		    strcmp(n, want) == 0)
			return scn;
	}
	return NULL;
}

/* r_offset of the GOT slot a relocation of section rel_name fills for the dynamic symbol name. */
static uint64_t got_slot_of(struct elf_file *f, const char *rel_name, const char *name)
{
	GElf_Shdr sh, dsh;
	Elf_Scn *scn = elf_file_scn(f, rel_name, &sh);
	Elf_Scn *dyn = scn ? elf_getscn(f->elf, sh.sh_link) : NULL;
	if (!dyn || !gelf_getshdr(dyn, &dsh))
		return 0;
	Elf_Data *rd = elf_getdata(scn, NULL), *sd = elf_getdata(dyn, NULL);
	for (size_t i = 0; rd && sd && i < sh.sh_size / sizeof(Elf64_Rela); i++) {
		GElf_Rela r;
		GElf_Sym sym;
		if (!gelf_getrela(rd, (int)i, &r) || !GELF_R_SYM(r.r_info) ||
		    !gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym))
			continue;
		const char *n = elf_strptr(f->elf, dsh.sh_link, sym.st_name);
		if (n && strcmp(n, name) == 0)
			return r.r_offset;
	}
	return 0;
}

/* The name of the first function .rela.plt has a slot for ("" if none). */
static void first_plt_func(struct elf_file *f, char *out, size_t cap)
{
	GElf_Shdr sh, dsh;
	Elf_Scn *scn = elf_file_scn(f, ".rela.plt", &sh);
	Elf_Scn *dyn = scn ? elf_getscn(f->elf, sh.sh_link) : NULL;
	out[0] = 0;
	if (!dyn || !gelf_getshdr(dyn, &dsh))
		return;
	Elf_Data *rd = elf_getdata(scn, NULL), *sd = elf_getdata(dyn, NULL);
	for (size_t i = 0; rd && sd && !out[0] && i < sh.sh_size / sizeof(Elf64_Rela); i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *n;
		if (gelf_getrela(rd, (int)i, &r) && GELF_R_SYM(r.r_info) &&
		    gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym) &&
		    GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
		    (n = elf_strptr(f->elf, dsh.sh_link, sym.st_name)) && n[0])
			snprintf(out, cap, "%s", n);
	}
}

/* Virtual address of the entry of PLT section sec_name whose jmp *disp(%rip) reads slot, 0 if none. */
static uint64_t plt_entry_reading(struct elf_file *f, const char *sec_name, uint64_t slot)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_file_scn(f, sec_name, &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	if (!d || !d->d_buf || !slot)
		return 0;
	const uint8_t *b = d->d_buf;
	/* Every byte position: the test must not share the symbolizer's idea of the entry layout. */
	for (size_t i = 0; i + 6 <= d->d_size; i++) {
		if (b[i] != 0xff || b[i + 1] != 0x25)
			continue;
		int32_t disp;
		memcpy(&disp, b + i + 2, 4);
		if (sh.sh_addr + i + 6 + (uint64_t)(int64_t)disp != slot)
			continue;
		/* Back to the entry start: endbr64 (4 bytes) and bnd (1) may precede the jmp. */
		size_t start = i;
		if (start >= 1 && b[start - 1] == 0xf2)
			start--;
		if (start >= 4 && memcmp(b + start - 4, "\xf3\x0f\x1e\xfa", 4) == 0)
			start -= 4;
		return sh.sh_addr + start;
	}
	return 0;
}

/* The value of symbol name in f's .symtab, 0 when absent. */
static uint64_t elf_sym_vaddr(struct elf_file *f, const char *name)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_file_scn(f, ".symtab", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym sym;
		const char *n;
		if (gelf_getsym(d, (int)i, &sym) && (n = elf_strptr(f->elf, sh.sh_link, sym.st_name)) &&
		    strcmp(n, name) == 0)
			return sym.st_value;
	}
	return 0;
}

static uint64_t elf_vaddr_to_off(struct elf_file *f, uint64_t va)
{
	size_t nph = 0;
	elf_getphdrnum(f->elf, &nph);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(f->elf, (int)i, &ph) && ph.p_type == PT_LOAD && va >= ph.p_vaddr &&
		    va < ph.p_vaddr + ph.p_filesz)
			return va - ph.p_vaddr + ph.p_offset;
	}
	return UINT64_MAX;
}

/* Name dso_lookup gives the virtual address va of the file f (NULL when nothing covers it). */
static const char *name_at(struct dso *d, struct elf_file *f, uint64_t va)
{
	struct frame fr[2];
	uint64_t off = elf_vaddr_to_off(f, va);
	if (off == UINT64_MAX || dso_lookup(d, off, fr, 2) < 1)
		return NULL;
	return fr[0].sym;
}

/* Checks func@plt on the PLT entry calling func (through .rela.plt, or .plt.got for got_func), and
 * that _init stops at the end of .init. Returns the vaddr of func's entry, 0 if not found. */
static uint64_t check_plt_file(const char *path, const char *func, const char *got_func)
{
	struct elf_file f;
	CHECK(elf_file_open(&f, path));
	struct intern *in = intern_new();
	struct dso_set *set = dso_set_new(in);
	struct dso *d = dso_set_get(set, path, NULL);
	char want[256];
	GElf_Shdr sh;
	bool sec = elf_file_scn(&f, ".plt.sec", &sh) != NULL;
	uint64_t slot = got_slot_of(&f, ".rela.plt", func);
	uint64_t entry = plt_entry_reading(&f, sec ? ".plt.sec" : ".plt", slot);
	printf("plt: %s: %s@plt at %#" PRIx64 " in %s\n", strrchr(path, '/') + 1, func, entry,
	       sec ? ".plt.sec" : ".plt");
	CHECK(entry != 0);
	snprintf(want, sizeof(want), "%s@plt", func);
	for (uint64_t k = 0; entry && k < 16; k += 5)
		CHECK_STR(name_at(d, &f, entry + k), want);
	if (got_func) {
		uint64_t got = plt_entry_reading(&f, ".plt.got", got_slot_of(&f, ".rela.dyn", got_func));
		printf("plt: %s: %s@plt at %#" PRIx64 " in .plt.got\n", strrchr(path, '/') + 1, got_func,
		       got);
		CHECK(got != 0);
		snprintf(want, sizeof(want), "%s@plt", got_func);
		if (got)
			CHECK_STR(name_at(d, &f, got + 2), want);
	}
	/* _init has size 0: it may name .init, never the PLT0 header (or anything else) after it. */
	GElf_Shdr init, plt;
	if (elf_file_scn(&f, ".init", &init) && elf_file_scn(&f, ".plt", &plt)) {
		const char *n = name_at(d, &f, init.sh_addr);
		printf("plt: %s: .init -> %s, PLT0 -> %s\n", strrchr(path, '/') + 1, n ? n : "(none)",
		       name_at(d, &f, plt.sh_addr + 4) ? name_at(d, &f, plt.sh_addr + 4) : "(none)");
		CHECK(n == NULL || strcmp(n, "_init") == 0);
		for (uint64_t va = plt.sh_addr; va < plt.sh_addr + plt.sh_size; va += 4) {
			n = name_at(d, &f, va);
			CHECK(n == NULL || strcmp(n, "_init") != 0);
			if (n && strcmp(n, "_init") == 0)
				break;
		}
	}
	dso_set_free(set);
	intern_free(in);
	elf_file_close(&f);
	return entry;
}

static int open_fds(void)
{
	int n = 0;
	char path[64];
	for (int fd = 0; fd < 4096; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n += access(path, F_OK) == 0;
	}
	return n;
}

/* Open binaries are bounded: with room for two, three binaries looked up in turn keep at most two
 * open (the least recently used closes, and its files with it) and every lookup still names its
 * function, with the same interned pointer as before the close. */
static void test_open_bound(void)
{
	const char *paths[] = { SYMFIXTURE_PATH, SYMFIXTURE_IBT_PATH, "/proc/self/exe" };
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(n > 0);
	exe[n > 0 ? n : 0] = 0;
	paths[2] = exe;
	struct intern *in = intern_new();
	struct dso_set *set = dso_set_new(in);
	dso_set_max_open(set, 2);
	struct elf_file f[3];
	struct dso *d[3];
	const char *first[3] = { 0 };
	int fds0 = open_fds();
	for (int i = 0; i < 3; i++) {
		CHECK(elf_file_open(&f[i], paths[i]));
		d[i] = dso_set_get(set, paths[i], NULL);
	}
	uint64_t va[3] = { elf_sym_vaddr(&f[0], "fixture_alpha"), elf_sym_vaddr(&f[1], "fixture_beta"),
			   elf_sym_vaddr(&f[2], "main") };
	const char *want[3] = { "fixture_alpha", "fixture_beta", "main" };
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 3; i++) {
			const char *got = name_at(d[i], &f[i], va[i]);
			CHECK_STR(got, want[i]);
			if (!first[i])
				first[i] = got;
			CHECK(got == first[i]);
			CHECK(dso_set_opened(set) <= 2);
		}
	}
	CHECK(dso_set_closed(set) >= 8);  /* each lookup in turn found its binary closed */
	int fds1 = open_fds();
	printf("open bound: %d files open beside the test's own with 2 binaries open\n", fds1 - fds0);
	CHECK(fds1 - fds0 <= 2 * 2 + 3);  /* the binaries (and debug files) open, the 3 ELF readers */
	dso_set_free(set);
	intern_free(in);
	for (int i = 0; i < 3; i++)
		elf_file_close(&f[i]);
	CHECK(open_fds() == fds0);
}

static void test_plt(void)
{
	/* The fixture built with a classic PLT, and with IBT (.plt.sec); both with a .plt.got entry. */
	uint64_t entry = check_plt_file(SYMFIXTURE_PATH, "puts", "getenv");
	check_plt_file(SYMFIXTURE_IBT_PATH, "puts", "getenv");

	/* Through the symbolizer at the address where the fixture is loaded in this process. */
	Dl_info info;
	if (entry && dladdr((void *)fx_alpha, &info)) {
		struct symbolizer *s = symbolizer_new();
		uint32_t pid = (uint32_t)getpid();
		CHECK(feed_self(s, pid, "libsymfixture.so") >= 1);
		struct frame f = look1(s, pid, (const char *)info.dli_fbase + entry + 3);
		CHECK_STR(f.sym, "puts@plt");
		CHECK_STR(f.dso, "libsymfixture.so");
		CHECK_EQ_U64(f.sym_start, entry);
		symbolizer_free(s);
	}

	/* The library where the problem was seen (perf report: PyObject_Malloc@plt): a libpython3
	 * that calls it through its PLT (pyenv's builds do; Debian's binds it inside the library),
	 * found at run time (findpy.h); else any libpython3's first PLT function; else, on a machine
	 * without any libpython, libelf's, a library every perftop has. */
	static struct findpy fp;  /* 512 KiB: not on the stack */
	findpy_collect(&fp);
	char lib[PATH_MAX] = "", fn[256] = "";
	for (int i = 0; i < fp.n && !lib[0]; i++) {
		struct elf_file f;
		if (!elf_file_open(&f, fp.path[i]))
			continue;
		if (got_slot_of(&f, ".rela.plt", "PyObject_Malloc")) {
			snprintf(lib, sizeof(lib), "%s", fp.path[i]);
			snprintf(fn, sizeof(fn), "PyObject_Malloc");
		}
		elf_file_close(&f);
	}
	Dl_info li;
	if (!lib[0] && fp.n > 0)
		snprintf(lib, sizeof(lib), "%s", fp.path[0]);
	else if (!lib[0] && dladdr((void *)elf_begin, &li) && li.dli_fname)
		snprintf(lib, sizeof(lib), "%s", li.dli_fname);
	if (!fn[0]) {
		struct elf_file f;
		CHECK(elf_file_open(&f, lib));
		first_plt_func(&f, fn, sizeof(fn));
		elf_file_close(&f);
	}
	printf("plt: a real library: %s, %s@plt (%d libpython3 found)\n", lib, fn, fp.n);
	CHECK(fn[0] != 0);
	if (fn[0])
		check_plt_file(lib, fn, NULL);
}

static void test_intern(void)
{
	struct intern *in = intern_new();
	const char *a = intern_str(in, "alpha");
	char buf[32];
	snprintf(buf, sizeof(buf), "al%s", "pha");
	CHECK(intern_str(in, buf) == a);
	CHECK(intern_strn(in, "alphabet", 5) == a);
	const char *first[5000];
	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "name_%d", i);
		first[i] = intern_str(in, buf);
	}
	int same = 0;
	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "name_%d", i);
		same += intern_str(in, buf) == first[i] && strcmp(first[i], buf) == 0;
	}
	CHECK(same == 5000);
	CHECK_STR(a, "alpha");
	static char big[100000];
	memset(big, 'x', sizeof(big) - 1);
	const char *b = intern_str(in, big);
	CHECK(b != big && strlen(b) == sizeof(big) - 1);
	CHECK(intern_str(in, "alpha") == a);
	intern_free(in);
}

/* Compaction (intern.h): the names moved keep their identities among themselves, the others go
 * with their generation, and a held generation outlives the compaction (ASan checks the reads). */
static void test_intern_compaction(void)
{
	struct intern *in = intern_new();
	intern_set_floor(in, 64);
	const char *keep = intern_str(in, "kept_name");
	const char *held = intern_str(in, "held_name");
	char buf[32];
	for (int i = 0; i < 200; i++) {
		snprintf(buf, sizeof(buf), "garbage_%d", i);
		intern_str(in, buf);
	}
	CHECK(intern_due(in));
	uint64_t gen = intern_generation(in);
	struct intern_gen *hold = intern_hold(in);
	size_t before = intern_bytes(in);
	intern_compact_begin(in);
	const char *keep2 = intern_move(in, keep);
	CHECK(intern_move(in, NULL) == NULL);
	intern_compact_end(in);
	CHECK(intern_generation(in) == gen + 1);
	CHECK_STR(keep2, "kept_name");
	CHECK(intern_str(in, "kept_name") == keep2);       /* one pointer per name, still */
	CHECK(intern_bytes(in) < before / 10);              /* the garbage went */
	CHECK_STR(held, "held_name");                       /* its generation is held */
	CHECK(intern_str(in, "held_name") != held);         /* ... but it was not moved */
	CHECK(!intern_due(in));
	intern_release(hold);
	/* Another compaction with nothing held frees the generation at once. */
	for (int i = 0; i < 200; i++) {
		snprintf(buf, sizeof(buf), "more_%d", i);
		intern_str(in, buf);
	}
	CHECK(intern_due(in));
	intern_compact_begin(in);
	keep2 = intern_move(in, keep2);
	intern_compact_end(in);
	CHECK(intern_str(in, "kept_name") == keep2);
	intern_free(in);
}

/* A compaction of the symbolizer's pool: what it hands out afterwards is what symbolizer_name
 * gives for the names handed out before (each module moved its own), and lookups keep working. */
static void test_symbolizer_compaction(void)
{
	struct symbolizer *s = symbolizer_new();
	uint32_t pid = (uint32_t)getpid();
	CHECK(feed_self(s, pid, "libsymfixture") >= 1);
	feed_mmap(s, pid, 0x10000, 0x1000, 0x3000, "/nonexistent/dir/fake2.so");
	char alpha[64], beta[64], dso[64], unres[64];
	struct frame a = look1(s, pid, (void *)fx_alpha), b = look1(s, pid, (void *)fx_beta);
	struct frame u = look1(s, pid, (void *)0x10010);
	snprintf(alpha, sizeof(alpha), "%s", a.sym);
	snprintf(beta, sizeof(beta), "%s", b.sym);
	snprintf(dso, sizeof(dso), "%s", a.dso);
	snprintf(unres, sizeof(unres), "%s", u.sym);
	const char *comm = symbolizer_comm(s, pid, pid);
	char commbuf[64];
	snprintf(commbuf, sizeof(commbuf), "%s", comm);
	void *hold = symbolizer_names_hold(s);  /* as a snapshot would */
	uint64_t gen = symbolizer_names_generation(s);

	symbolizer_compact_begin(s);
	const char *alpha2 = symbolizer_name(s, a.sym), *dso2 = symbolizer_name(s, a.dso);
	symbolizer_compact_end(s);
	CHECK(symbolizer_names_generation(s) == gen + 1);
	CHECK_STR(a.sym, alpha);                  /* the held generation is readable */
	symbolizer_names_release(hold);

	struct frame a2 = look1(s, pid, (void *)fx_alpha), b2 = look1(s, pid, (void *)fx_beta);
	CHECK(a2.sym == alpha2 && a2.dso == dso2);
	CHECK_STR(a2.sym, alpha);
	CHECK_STR(b2.sym, beta);
	CHECK(b2.sym == symbolizer_name(s, beta));
	struct frame u2 = look1(s, pid, (void *)0x10010);
	CHECK_STR(u2.sym, unres);
	CHECK_STR(u2.dso, "fake2.so");
	CHECK(symbolizer_comm(s, pid, pid) == symbolizer_name(s, commbuf));
	symbolizer_free(s);
}

static void test_fixture(void)
{
	struct symbolizer *s = symbolizer_new();
	uint32_t pid = (uint32_t)getpid();
	CHECK(feed_self(s, pid, "libsymfixture") >= 1);
	struct {
		fixfn fn;
		const char *name;
	} want[] = { { fx_alpha, "fixture_alpha" }, { fx_beta, "fixture_beta" },
		     { fx_weak, "fixture_weak" }, { fx_local, "fixture_local" } };
	Dl_info info;
	CHECK(dladdr((void *)fx_alpha, &info));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const char *p = (const char *)want[i].fn;
		size_t sz = dyn_size((void *)want[i].fn);
		size_t mid = sz ? sz / 2 : 5;
		struct frame f = look1(s, pid, p);
		CHECK_STR(f.sym, want[i].name);
		CHECK_STR(f.dso, "libsymfixture.so");
		CHECK_EQ_U64(f.sym_start, (uint64_t)(uintptr_t)(p - (const char *)info.dli_fbase));
		CHECK_EQ_U64(f.addr, (uint64_t)(uintptr_t)p);
		CHECK(!f.kernel && !f.inlined);
		f = look1(s, pid, p + mid);
		CHECK_STR(f.sym, want[i].name);
		if (sz) {
			f = look1(s, pid, p + sz - 1);
			CHECK_STR(f.sym, want[i].name);
		}
	}
	/* Equal names are equal pointers. */
	CHECK(look1(s, pid, (void *)fx_alpha).sym == look1(s, pid, (char *)fx_alpha + 3).sym);

	struct frame f = look1(s, pid, (void *)0x10);
	CHECK_STR(f.dso, "[unknown]");
	CHECK_STR(f.sym, "0x0000000000000010");

	/* A newer mapping over part of an old one cuts it: the rest keeps resolving. */
	uint64_t a = (uint64_t)(uintptr_t)fx_alpha;
	feed_mmap(s, pid, a, 2, 0, "/nonexistent/dir/fake.so");
	f = look1(s, pid, (void *)fx_alpha);
	CHECK_STR(f.dso, "fake.so");
	/* No symbol: named by the address in the file (addr - start + pgoff), as perf report does. */
	CHECK_STR(f.sym, "0x0000000000000000");
	f = look1(s, pid, (char *)fx_alpha + 1);
	CHECK_STR(f.sym, "0x0000000000000001");
	/* The same file in another process at another address: the same name (one row). */
	feed_mmap(s, pid + 1, 0x500000, 0x1000, 0x2000, "/nonexistent/dir/fake.so");
	struct frame g[2];
	CHECK(symbolizer_lookup(s, pid + 1, 0x500000 + 0x10, false, g, 2) == 1);
	CHECK_STR(g[0].dso, "fake.so");
	CHECK_STR(g[0].sym, "0x0000000000002010");
	CHECK(g[0].addr == 0x500010);
	f = look1(s, pid, (char *)fx_alpha + 3);
	CHECK_STR(f.sym, "fixture_alpha");
	f = look1(s, pid, (void *)fx_beta);
	CHECK_STR(f.sym, "fixture_beta");

	struct symbolizer_stats st;
	symbolizer_get_stats(s, &st);
	CHECK(st.dsos_opened == 1);  /* fake.so is not a file: never counted as opened */
	CHECK(st.no_map == 1);
	symbolizer_free(s);
}

static void test_executable_and_libc(void)
{
	struct symbolizer *s = symbolizer_new();
	uint32_t pid = (uint32_t)getpid();
	CHECK(feed_self(s, pid, NULL) >= 3);
	struct frame f = look1(s, pid, (char *)test_marker_function + 4);
	CHECK_STR(f.sym, "test_marker_function");
	CHECK(strstr(f.dso, "test_symbolize") == f.dso);

	f = look1(s, pid, (void *)getpid);
	printf("libc: getpid -> %s in %s\n", f.sym, f.dso);
	CHECK(strstr(f.sym, "getpid") != NULL);
	CHECK_STR(f.dso, "libc.so.6");

	/* memcpy resolves (IFUNC) to an implementation that only .symtab names: a local symbol from the
	 * separate debug file when libc6-dbg is installed. */
	void *mc = dlsym(RTLD_DEFAULT, "memcpy");
	f = look1(s, pid, (char *)mc + 1);
	bool dbg = access("/usr/lib/debug/.build-id", F_OK) == 0;
	printf("libc: memcpy implementation -> %s in %s (debug files %s)\n", f.sym, f.dso,
	       dbg ? "installed" : "absent");
	if (strcmp(f.dso, "libc.so.6") == 0 && dbg)
		CHECK(strncmp(f.sym, "0x", 2) != 0);
	symbolizer_free(s);
}

static void test_fork_exec_comm(void)
{
	struct symbolizer *s = symbolizer_new();
	uint32_t pid = (uint32_t)getpid();
	feed_self(s, pid, "libsymfixture");
	struct rec r = comm_rec(pid, pid, "parent-comm", false);
	symbolizer_feed(s, &r);
	r = task_rec(REC_FORK, FAKE_PID, pid, FAKE_PID, pid);
	symbolizer_feed(s, &r);
	CHECK_STR(look1(s, FAKE_PID, (void *)fx_beta).sym, "fixture_beta");
	CHECK_STR(symbolizer_comm(s, FAKE_PID, FAKE_PID), "parent-comm");

	/* A thread of the child shares its maps; its comm comes from its own COMM. */
	r = task_rec(REC_FORK, FAKE_PID, FAKE_PID, FAKE_PID + 1, FAKE_PID);
	symbolizer_feed(s, &r);
	r = comm_rec(FAKE_PID, FAKE_PID + 1, "worker", false);
	symbolizer_feed(s, &r);
	CHECK_STR(symbolizer_comm(s, FAKE_PID, FAKE_PID + 1), "worker");
	CHECK_STR(symbolizer_comm(s, FAKE_PID, FAKE_PID + 7), "parent-comm");

	r = comm_rec(FAKE_PID, FAKE_PID, "newprog", true);
	symbolizer_feed(s, &r);
	/* Inside execve, after its COMM, a sample's user address is still the old program's (its
	 * registers are): the maps before the exec name it until the new image runs. */
	CHECK_STR(look1(s, FAKE_PID, (void *)fx_beta).sym, "fixture_beta");
	struct rec *mm = mk_mmap(FAKE_PID, 0x400000, 0x1000, 0, 8, 1, 4321, "/nonexistent/newprog");
	symbolizer_feed(s, mm);
	free(mm);
	struct frame f = look1(s, FAKE_PID, (void *)0x400100);
	CHECK_STR(f.dso, "newprog");
	/* an address of the new image was met: the old maps are gone */
	f = look1(s, FAKE_PID, (void *)fx_beta);
	CHECK_STR(f.dso, "[unknown]");
	CHECK(strncmp(f.sym, "0x", 2) == 0);
	CHECK_STR(symbolizer_comm(s, FAKE_PID, FAKE_PID), "newprog");
	/* The parent's maps were shared, not moved. */
	CHECK_STR(look1(s, pid, (void *)fx_beta).sym, "fixture_beta");

	/* Exit: kept for late samples. */
	r = task_rec(REC_EXIT, FAKE_PID, FAKE_PID, FAKE_PID, FAKE_PID);
	symbolizer_feed(s, &r);
	CHECK_STR(symbolizer_comm(s, FAKE_PID, FAKE_PID), "newprog");
	CHECK_STR(symbolizer_comm(s, 0x7fffff00, 0x7fffff01), ":2147483393");
	struct symbolizer_stats st;
	symbolizer_get_stats(s, &st);
	CHECK_EQ_U64(st.processes, 1);
	symbolizer_free(s);
}

static void test_dead_bound(void)
{
	struct intern *in = intern_new();
	struct dso_set *ds = dso_set_new(in);
	struct maps *m = maps_new(ds, in);
	for (uint32_t i = 0; i < 5000; i++) {
		struct rec r = task_rec(REC_FORK, FAKE_PID - 10000 + i, 1, FAKE_PID - 10000 + i, 1);
		maps_feed(m, &r);
		struct rec *mm = mk_mmap(FAKE_PID - 10000 + i, 0x400000, 0x1000, 0, 8, 1, 1234, "/bin/true");
		maps_feed(m, mm);
		free(mm);
		r = task_rec(REC_EXIT, FAKE_PID - 10000 + i, 1, FAKE_PID - 10000 + i, 1);
		maps_feed(m, &r);
	}
	CHECK_EQ_U64(maps_alive(m), 0);
	CHECK(maps_kept(m) <= MAPS_DEAD_MAX);
	CHECK(maps_find(m, FAKE_PID - 10000 + 4999, 0x400100) != NULL);  /* a recent dead one */
	CHECK_EQ_U64(maps_proc_reads(m), 0);  /* dead processes are never looked for in /proc */
	CHECK(maps_find(m, FAKE_PID - 10000, 0x400100) == NULL);         /* long gone */
	CHECK_EQ_U64(maps_proc_reads(m), 1);  /* ... and as unknown it is read once, not again: */
	CHECK(maps_find(m, FAKE_PID - 10000, 0x400100) == NULL);
	CHECK_EQ_U64(maps_proc_reads(m), 1);
	CHECK_EQ_U64(dso_set_count(ds), 1);   /* one /bin/true for all */
	maps_free(m);
	dso_set_free(ds);
	intern_free(in);
}

/* A process whose EXIT record never came (lost in a ring overrun) is found gone by the sweep and
 * marked dead, so it joins the bounded dead ring instead of staying alive for good; a live one stays. */
static void test_lost_exit_swept(void)
{
	struct intern *in = intern_new();
	struct dso_set *ds = dso_set_new(in);
	struct maps *m = maps_new(ds, in);
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	int status;
	waitpid(child, &status, 0);  /* gone, and its pid not yet reused */
	uint32_t pids[2] = { (uint32_t)child, (uint32_t)getpid() };
	for (int i = 0; i < 2; i++) {
		struct rec r = task_rec(REC_FORK, pids[i], 1, pids[i], 1);
		maps_feed(m, &r);
	}
	CHECK_EQ_U64(maps_alive(m), 2);
	maps_sweep(m);            /* the first sweep runs at once */
	CHECK_EQ_U64(maps_alive(m), 1);
	CHECK_EQ_U64(maps_swept(m), 1);
	maps_sweep(m);            /* at most once a second: nothing more */
	CHECK_EQ_U64(maps_swept(m), 1);
	maps_free(m);
	dso_set_free(ds);
	intern_free(in);
}

static int evictions;
static void count_eviction(void *ctx, struct dso *d)
{
	(void)ctx;
	(void)d;
	evictions++;
}

/* The set of binaries is bounded: past max_kept, creating one evicts the least recently used one no
 * mapping references (a process's maps hold references; its exit and the dead ring release them),
 * telling the callback; the keys of an evicted one find nothing, a later mapping makes it anew. */
static void test_dso_eviction(void)
{
	struct intern *in = intern_new();
	struct dso_set *ds = dso_set_new(in);
	struct maps *m = maps_new(ds, in);
	maps_set_offline(m, true);
	dso_set_max_kept(ds, 4);
	dso_set_on_evict(ds, count_eviction, NULL);
	char path[64];
	/* Two processes keep two binaries mapped. */
	for (uint32_t p = 0; p < 2; p++) {
		snprintf(path, sizeof(path), "/nonexistent/kept%u", p);
		struct rec *mm = mk_mmap(FAKE_PID - 100 + p, 0x400000, 0x1000, 0, 8, 1, 500 + p, path);
		maps_feed(m, mm);
		free(mm);
	}
	/* Twenty others come and go, each mapped by nothing once its process is gone. */
	for (uint32_t i = 0; i < 20; i++) {
		snprintf(path, sizeof(path), "/nonexistent/churn%u", i);
		uint32_t pid = FAKE_PID - 50 + i;
		struct rec *mm = mk_mmap(pid, 0x400000, 0x1000, 0, 8, 1, 1000 + i, path);
		maps_feed(m, mm);
		free(mm);
		struct rec c = comm_rec(pid, pid, "next", true);  /* an exec empties its maps */
		maps_feed(m, &c);
		/* and once the new program runs, the maps before it go too */
		mm = mk_mmap(pid, 0x500000, 0x1000, 0, 8, 1, 999, "/nonexistent/next");
		maps_feed(m, mm);
		free(mm);
		CHECK(maps_find(m, pid, 0x500100) != NULL);
	}
	CHECK(dso_set_count(ds) <= 4);
	CHECK(evictions >= 16);
	CHECK_EQ_U64(dso_set_evicted(ds), (uint64_t)evictions);
	/* The two mapped ones are still there: their processes find them. */
	for (uint32_t p = 0; p < 2; p++) {
		const struct map *mp = maps_find(m, FAKE_PID - 100 + p, 0x400100);
		CHECK(mp != NULL);
		if (mp) {
			snprintf(path, sizeof(path), "kept%u", p);
			CHECK_STR(dso_name(mp->dso), path);
		}
	}
	maps_free(m);
	dso_set_free(ds);
	intern_free(in);
}

static void test_lazy_proc(void)
{
	struct symbolizer *s = symbolizer_new();
	/* No records at all: our pid is read from /proc once. */
	struct frame f = look1(s, (uint32_t)getpid(), (void *)fx_alpha);
	CHECK_STR(f.sym, "fixture_alpha");
	CHECK_STR(f.dso, "libsymfixture.so");
	char self[64];
	snprintf(self, sizeof(self), "%s", symbolizer_comm(s, (uint32_t)getpid(), (uint32_t)getpid()));
	CHECK(strstr(self, "test_symbolize") == self);
	symbolizer_free(s);
}

static void test_bad_files(void)
{
	struct symbolizer *s = symbolizer_new();
	uint32_t pid = FAKE_PID;
	/* Truncated copy of the fixture, a text file, a directory, a missing file, a pseudo path. */
	char trunc[] = "/tmp/perftop-symtest-XXXXXX";
	int fd = mkstemp(trunc);
	CHECK(fd >= 0);
	int src = open(SYMFIXTURE_PATH, O_RDONLY);
	char buf[1500];
	ssize_t n = read(src, buf, sizeof(buf));
	CHECK(n > 64);
	CHECK(write(fd, buf, (size_t)n) == n);
	close(src);
	close(fd);
	const char *paths[] = { trunc, "/etc/passwd", "/etc", "/nonexistent.so", "[vdso]", "//anon",
				"/dev/zero" };
	struct rec r = comm_rec(pid, pid, "bad", true);
	symbolizer_feed(s, &r);
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		feed_mmap(s, pid, 0x100000 * (i + 1), 0x10000, 0, paths[i]);
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
			struct frame f[2];
			int k = symbolizer_lookup(s, pid, 0x100000 * (i + 1) + 0x40, false, f, 2);
			CHECK(k == 1);
			CHECK(strncmp(f[0].sym, "0x", 2) == 0);
			const char *slash = strrchr(paths[i], '/');
			const char *want = paths[i][0] == '/' && paths[i][1] != '/' ? slash + 1 : paths[i];
			/* Anonymous executable memory is JIT code to perf, whatever its name. */
			if (!strcmp(paths[i], "//anon") || !strcmp(paths[i], "/dev/zero"))
				want = "[JIT] tid 2147483632";
			CHECK_STR(f[0].dso, want);
		}
	struct symbolizer_stats st;
	symbolizer_get_stats(s, &st);
	printf("bad files: %" PRIu64 " opened (the truncated ELF may open with no symbols)\n",
	       st.dsos_opened);
	unlink(trunc);
	symbolizer_free(s);
}

static void test_kernel(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512];
	uint64_t addr = 0;
	const char *name = NULL;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char t, nm[256];
		if (sscanf(line, "%llx %c %255s", &a, &t, nm) != 3 || (t != 'T' && t != 't'))
			continue;
		if (strcmp(nm, "schedule") == 0 || strcmp(nm, "do_sys_openat2") == 0) {
			addr = a;
			name = strcmp(nm, "schedule") == 0 ? "schedule" : "do_sys_openat2";
			break;
		}
	}
	if (f)
		fclose(f);
	if (!addr) {
		printf("kernel: no usable address in /proc/kallsyms (kptr_restrict?): skipped\n");
		return;
	}
	struct symbolizer *s = symbolizer_new();
	struct frame fr[2];
	CHECK(symbolizer_lookup(s, 0, addr, true, fr, 2) == 1);
	CHECK_STR(fr[0].sym, name);
	CHECK_STR(fr[0].dso, "[kernel.kallsyms]");
	CHECK(fr[0].kernel);
	CHECK_EQ_U64(fr[0].sym_start, addr);
	CHECK(symbolizer_lookup(s, 0, addr + 8, true, fr, 2) == 1);
	CHECK_STR(fr[0].sym, name);
	CHECK(symbolizer_lookup(s, 0, 0x10, true, fr, 2) == 1);
	CHECK_STR(fr[0].sym, "0x0000000000000010");
	CHECK_STR(fr[0].dso, "[kernel.kallsyms]");

	/* Kernel part then user part of one callchain. */
	uint64_t ua = (uint64_t)(uintptr_t)fx_alpha + 4, ub = (uint64_t)(uintptr_t)fx_beta + 4;
	uint64_t cc[] = { PERF_CONTEXT_KERNEL, addr + 8, addr + 16, PERF_CONTEXT_USER, ua, ub };
	size_t size = sizeof(struct rec) + sizeof(cc);
	struct rec *r = xcalloc(1, size);
	r->size = (uint32_t)size;
	r->type = REC_SAMPLE;
	r->misc = PERF_RECORD_MISC_KERNEL;
	r->pid = r->tid = (uint32_t)getpid();
	r->u.sample.ip = addr + 8;
	r->u.sample.callchain_off = sizeof(struct rec);
	r->u.sample.callchain_nr = ARRAY_SIZE(cc);
	memcpy((char *)r + sizeof(struct rec), cc, sizeof(cc));
	feed_self(s, r->pid, "libsymfixture");
	struct frame out[8];
	int n = symbolizer_sample(s, r, out, 8);
	CHECK(n == 4);
	if (n == 4) {
		CHECK_STR(out[0].sym, name);
		CHECK(out[0].kernel && out[1].kernel && !out[2].kernel && !out[3].kernel);
		CHECK_STR(out[1].sym, name);
		CHECK_STR(out[2].sym, "fixture_alpha");
		CHECK_STR(out[3].sym, "fixture_beta");
	}
	free(r);

	symbolizer_free(s);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A replay's kernel frames come from a cache of them, which a kernel map of the recording (pid -1)
 * empties: an address named [unknown] before the map that covers it is named after it. */
static void test_kernel_frames_cached(const char *kallsyms)
{
	struct symbolizer *s = symbolizer_new();
	symbolizer_set_offline(s);
	symbolizer_set_kallsyms(s, kallsyms);
	struct frame f[2];
	const uint64_t addr = 0xffffffff81000150;
	for (int i = 0; i < 2; i++) {  /* the second from the cache */
		CHECK(symbolizer_lookup(s, 1, addr, true, f, 2) == 1);
		CHECK_STR(f[0].dso, "[unknown]");
		CHECK(f[0].kernel);
	}
	feed_mmap(s, UINT32_MAX, 0xffffffff81000000, 0x1000, 0xffffffff81000000, "[kernel.kallsyms]_text");
	for (int i = 0; i < 2; i++) {
		CHECK(symbolizer_lookup(s, 1, addr, true, f, 2) == 1);
		CHECK_STR(f[0].sym, "foo");
		CHECK_STR(f[0].dso, "[kernel.kallsyms]");
		CHECK(f[0].kernel && f[0].addr == addr && f[0].sym_start == 0xffffffff81000100);
	}
	symbolizer_free(s);
}

/* kallsyms parsing on made-up files: duplicates, weak symbols, modules, hidden addresses. */
static void test_kallsyms_file(void)
{
	char path[] = "/tmp/perftop-kallsyms-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	write_file(path, "ffffffff81000000 T _stext\n"
			 "ffffffff81000100 t __foo_alias\n"
			 "ffffffff81000100 T foo\n"
			 "ffffffff81000200 W bar\n"
			 "ffffffff81000300 D some_data\n"
			 "ffffffffc0001000 t modfn\t[mymod]\n"
			 "ffffffffc0001040 t modfn2\t[mymod]\n"
			 "garbage line\n");
	struct intern *in = intern_new();
	struct kernel *k = kernel_new(in, path);
	struct frame f = { 0 };
	CHECK_EQ_U64(kernel_symbol_count(k), 5);
	CHECK(kernel_lookup(k, 0xffffffff81000150, &f) == 1);
	CHECK_STR(f.sym, "foo");
	CHECK_STR(f.dso, "[kernel.kallsyms]");
	CHECK_EQ_U64(f.sym_start, 0xffffffff81000100);
	CHECK(kernel_lookup(k, 0xffffffff81000350, &f) == 1);  /* data is not a symbol: bar runs on */
	CHECK_STR(f.sym, "bar");
	CHECK(kernel_lookup(k, 0xffffffffc0001010, &f) == 1);
	CHECK_STR(f.sym, "modfn");
	CHECK_STR(f.dso, "[mymod]");
	CHECK(kernel_lookup(k, 0xffffffffc0001050, &f) == 1);
	CHECK_STR(f.sym, "modfn2");
	CHECK(kernel_lookup(k, 0xffffffffc0001040 + 8192, &f) == 0);
	CHECK(kernel_lookup(k, 0xffffffff80000000, &f) == 0);
	kernel_free(k);
	test_kernel_frames_cached(path);

	printf("expect one warning about hidden kernel symbols:\n");
	write_file(path, "0000000000000000 T _stext\n0000000000000000 t foo\n");
	k = kernel_new(in, path);
	CHECK_EQ_U64(kernel_symbol_count(k), 0);
	CHECK(kernel_lookup(k, 0xffffffff81000150, &f) == 0);
	kernel_free(k);
	intern_free(in);
	unlink(path);
}

/* Sample r's IP and callchain (nr entries, within the record's room) set to ip and cc. */
static void set_chain(struct rec *r, uint64_t ip, const uint64_t *cc, size_t nr)
{
	r->u.sample.ip = ip;
	r->u.sample.callchain_nr = nr;
	memcpy((char *)r + sizeof(struct rec), cc, nr * sizeof(*cc));
}

static void test_sample(void)
{
	struct symbolizer *s = symbolizer_new();
	uint32_t pid = (uint32_t)getpid();
	feed_self(s, pid, "libsymfixture");
	uint64_t ip = (uint64_t)(uintptr_t)fx_alpha + 4;
	uint64_t cc[] = { PERF_CONTEXT_USER, ip, (uint64_t)(uintptr_t)fx_beta + 6,
			  (uint64_t)(uintptr_t)fx_local + 6 };
	size_t size = sizeof(struct rec) + 8 * sizeof(uint64_t); /* room for the longer chains below */
	struct rec *r = xcalloc(1, size);
	r->size = (uint32_t)size;
	r->type = REC_SAMPLE;
	r->misc = PERF_RECORD_MISC_USER;
	r->pid = r->tid = pid;
	r->u.sample.ip = ip;
	r->u.sample.period = 1;
	r->u.sample.callchain_off = sizeof(struct rec);
	r->u.sample.callchain_nr = ARRAY_SIZE(cc);
	memcpy((char *)r + sizeof(struct rec), cc, sizeof(cc));
	struct frame out[8];
	int n = symbolizer_sample(s, r, out, 8);
	CHECK(n == 3);
	if (n == 3) {
		CHECK_STR(out[0].sym, "fixture_alpha");
		CHECK_EQ_U64(out[0].addr, ip);
		CHECK_STR(out[1].sym, "fixture_beta");
		CHECK_STR(out[2].sym, "fixture_local");
	}
	CHECK(symbolizer_sample(s, r, out, 2) == 2);
	CHECK(symbolizer_sample(s, r, out, 0) == 0);

	/* The chain's first address off the IP by a precise event's skid, or at the function's
	 * entry (an LBR call stack's first target), is the leaf again: once. A 0 where the kernel's
	 * walk ended is no frame. */
	uint64_t firsts[] = { ip + 2, (uint64_t)(uintptr_t)fx_alpha };
	for (size_t i = 0; i < ARRAY_SIZE(firsts); i++) {
		uint64_t cc2[] = { PERF_CONTEXT_USER, firsts[i], (uint64_t)(uintptr_t)fx_beta + 6,
				   (uint64_t)(uintptr_t)fx_local + 6 };
		memcpy((char *)r + sizeof(struct rec), cc2, sizeof(cc2));
		n = symbolizer_sample(s, r, out, 8);
		CHECK(n == 3);
		if (n == 3) {
			CHECK_STR(out[0].sym, "fixture_alpha");
			CHECK_STR(out[1].sym, "fixture_beta");
		}
	}
	uint64_t cc3[] = { PERF_CONTEXT_USER, ip, (uint64_t)(uintptr_t)fx_beta + 6, 0 };
	memcpy((char *)r + sizeof(struct rec), cc3, sizeof(cc3));
	n = symbolizer_sample(s, r, out, 8);
	CHECK(n == 2);
	if (n == 2)
		CHECK_STR(out[1].sym, "fixture_beta");
	/* A first address in another function (the skid crossed a return) is a frame. */
	uint64_t cc4[] = { PERF_CONTEXT_USER, (uint64_t)(uintptr_t)fx_beta + 6,
			   (uint64_t)(uintptr_t)fx_local + 6, 0 };
	memcpy((char *)r + sizeof(struct rec), cc4, sizeof(cc4));
	n = symbolizer_sample(s, r, out, 8);
	CHECK(n == 3);
	if (n == 3)
		CHECK_STR(out[1].sym, "fixture_beta");
	/* A return address in no mapping is data read through a frame pointer that was not one:
	 * the chain ends there with one frame, whatever follows (here a real caller again). The IP
	 * in no mapping is still the sample's own frame, by its address. */
	uint64_t cc5[] = { PERF_CONTEXT_USER, ip, (uint64_t)(uintptr_t)fx_beta + 6, 0x1000,
			   (uint64_t)(uintptr_t)fx_local + 6 };
	set_chain(r, ip, cc5, ARRAY_SIZE(cc5));
	n = symbolizer_sample(s, r, out, 8);
	CHECK(n == 3);
	if (n == 3) {
		CHECK_STR(out[1].sym, "fixture_beta");
		CHECK_STR(out[2].sym, "[unmapped address]");
	}
	uint64_t cc6[] = { PERF_CONTEXT_USER, 0x1000, (uint64_t)(uintptr_t)fx_beta + 6,
			   (uint64_t)(uintptr_t)fx_local + 6 };
	set_chain(r, 0x1000, cc6, ARRAY_SIZE(cc6));
	n = symbolizer_sample(s, r, out, 8);
	CHECK(n == 3);
	if (n == 3) {
		CHECK_STR(out[0].sym, "0x0000000000001000");
		CHECK_STR(out[1].sym, "fixture_beta");
	}
	set_chain(r, ip, cc, ARRAY_SIZE(cc));

	/* No callchain: the IP alone. */
	r->u.sample.callchain_nr = 0;
	n = symbolizer_sample(s, r, out, 8);
	CHECK(n == 1);
	CHECK_STR(out[0].sym, "fixture_alpha");

	/* A callchain pointing outside the record is ignored, not read. */
	r->u.sample.callchain_nr = 1000;
	CHECK(symbolizer_sample(s, r, out, 8) == 1);
	free(r);
	symbolizer_free(s);
}

static double secs(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void bench(void)
{
	struct symbolizer *s = symbolizer_new();
	uint32_t pid = (uint32_t)getpid();
	feed_self(s, pid, NULL);
	static struct mapline v[512];
	int nm = self_maps(v, 512);
	uint64_t lo = 0, hi = 0, llo = 0, lhi = 0;
	for (int i = 0; i < nm; i++) {
		if (v[i].perms[2] != 'x')
			continue;
		if (strstr(v[i].path, "libsymfixture"))
			lo = v[i].start, hi = v[i].end;
		if (strstr(v[i].path, "/libc.so"))
			llo = v[i].start, lhi = v[i].end;
	}
	struct frame f[4];
	const int N = 2000000;
	uint64_t x = 88172645463325252ull;
	for (int which = 0; which < 2; which++) {
		uint64_t a = which ? llo : lo, b = which ? lhi : hi;
		if (!a)
			continue;
		symbolizer_lookup(s, pid, a, false, f, 4);  /* load outside the timing */
		double t0 = secs();
		for (int i = 0; i < N; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			symbolizer_lookup(s, pid, a + x % (b - a), false, f, 4);
		}
		double t = secs() - t0;
		printf("bench: %.1f M lookups/s on random addresses in %s (%.0f ns each)\n", N / t / 1e6,
		       which ? "libc" : "the fixture", t / N * 1e9);
	}
	/* What a profile looks like: a few thousand hot addresses, revisited, across libc. */
	if (llo) {
		static uint64_t hot[4096];
		for (size_t i = 0; i < ARRAY_SIZE(hot); i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			hot[i] = llo + x % (lhi - llo);
		}
		double t0 = secs();
		for (int i = 0; i < N; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			symbolizer_lookup(s, pid, hot[x % ARRAY_SIZE(hot)], false, f, 4);
		}
		double t = secs() - t0;
		printf("bench: %.1f M lookups/s on 4096 hot libc addresses (%.0f ns each)\n", N / t / 1e6,
		       t / N * 1e9);
	}
	symbolizer_free(s);
}

int main(void)
{
	void *h = dlopen(SYMFIXTURE_PATH, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen %s: %s\n", SYMFIXTURE_PATH, dlerror());
		return 1;
	}
	fx_alpha = (fixfn)dlsym(h, "fixture_alpha");
	fx_beta = (fixfn)dlsym(h, "fixture_beta");
	fx_weak = (fixfn)dlsym(h, "fixture_weak");
	fx_local = (fixfn)((void *(*)(void))dlsym(h, "fixture_local_ptr"))();
	CHECK(fx_alpha && fx_beta && fx_weak && fx_local);
	test_marker_function(1);

	test_intern();
	test_intern_compaction();
	test_fixture();
	test_symbolizer_compaction();
	test_executable_and_libc();
	test_fork_exec_comm();
	test_dead_bound();
	test_lost_exit_swept();
	test_dso_eviction();
	test_lazy_proc();
	test_bad_files();
	test_kernel();
	test_kallsyms_file();
	test_sample();
	test_plt();
	test_open_bound();
	bench();
	return CHECK_DONE();
}
