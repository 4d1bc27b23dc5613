/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pyproc: is a process a CPython one, where is its _PyRuntime, and which struct layout does it
 * have.
 *
 * The interpreter lives in libpython3.X.so (shared builds: pyenv's) or in the python3.X executable
 * (static builds: Debian's); its _PyRuntime and Py_Version (3.11+) are in the ELF symbols of that
 * file (.symtab, else .dynsym: both are exported), placed at the load address read from
 * /proc/PID/maps. Py_Version, read from the process, says the version. 3.13 and later publish their
 * offsets at the start of _PyRuntime (_Py_DebugOffsets, cookie "xdebugpy"); 3.8 to 3.12 do not,
 * and their offsets come from the tables below, which hold the layouts of x86-64 builds without
 * free threading or Py_TRACE_REFS (the configure options that change them). The numbers are
 * CPython's struct layouts (Include/internal/pycore_frame.h, pycore_interp.h, pycore_runtime.h,
 * cpython/pystate.h, cpython/code.h, cpython/unicodeobject.h, cpython/frameobject.h), read from the
 * DWARF of pyenv's 3.8.18, 3.9.18, 3.10.13, 3.11.7 and 3.12.1 with gdb's ptype/o; Debian's 3.11.2
 * has the same _PyRuntime size and reads with them.
 *
 * Before 3.11 there is no Py_Version: the version is the one the file's name says (libpython3.9.so,
 * python3.9), and it must agree with the size of the _PyRuntime symbol, which differs between 3.7,
 * 3.8, 3.9 and 3.10 (1520, 1464, 656, 672 bytes); a file whose name says none (a python3) takes the
 * version whose size it has. Their thread states have no native thread id either, only the
 * pthread_t (pthread_self()), which in glibc is the address of the thread's struct pthread; its tid
 * is at the offset the process's libc publishes for libthread_db (_thread_db_pthread_tid: bits,
 * count, offset), or glibc 2.36's on x86-64 (PY_PTHREAD_TID) when it does not. The reader compares
 * that tid with the sampled one, so a wrong offset (another libc) finds no thread: native frames.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "python/pyint.h"
#include "util/safefile.h"

/* 3.8-3.10: frame objects from the thread state's frame along f_back; no co_qualname, co_name
 * stands in; unicode objects still carry wstr (48 and 72 bytes of header). */
static const struct pylayout py38 = {
	.major = 3, .minor = 8,
	.rt_interp_head = 32, .is_threads_head = 8,
	.ts_next = 8, .ts_native_tid = PY_NO_FIELD, .ts_cframe = PY_NO_FIELD,
	.cf_current_frame = PY_NO_FIELD, .ts_current_frame = 24,
	.fr_code = 32, .fr_previous = 24, .fr_instr = 104, .fr_owner = PY_NO_FIELD,
	.fr_is_entry = PY_NO_FIELD,
	.co_name = 112, .co_qualname = 112, .co_filename = 104, .co_firstlineno = 40,
	.co_linetable = 120, .co_code_adaptive = PY_NO_FIELD,
	.u_state = 32, .u_length = 16, .u_ascii_size = 48, .u_compact_size = 72,
	.ts_pthread = 176, .rt_size = 1464, .frame_objects = true, .lasti_unit = 1,
	.lines = PY_LINES_LNOTAB,
};

/* 3.9: 3.8's offsets; its _PyRuntimeState lost the GC and ceval parts to the interpreter. */
static const struct pylayout py39 = {
	.major = 3, .minor = 9,
	.rt_interp_head = 32, .is_threads_head = 8,
	.ts_next = 8, .ts_native_tid = PY_NO_FIELD, .ts_cframe = PY_NO_FIELD,
	.cf_current_frame = PY_NO_FIELD, .ts_current_frame = 24,
	.fr_code = 32, .fr_previous = 24, .fr_instr = 104, .fr_owner = PY_NO_FIELD,
	.fr_is_entry = PY_NO_FIELD,
	.co_name = 112, .co_qualname = 112, .co_filename = 104, .co_firstlineno = 40,
	.co_linetable = 120, .co_code_adaptive = PY_NO_FIELD,
	.u_state = 32, .u_length = 16, .u_ascii_size = 48, .u_compact_size = 72,
	.ts_pthread = 176, .rt_size = 656, .frame_objects = true, .lasti_unit = 1,
	.lines = PY_LINES_LNOTAB,
};

/* 3.10: f_lasti counts code units and moved (f_stacktop gone); co_linetable replaces co_lnotab. */
static const struct pylayout py310 = {
	.major = 3, .minor = 10,
	.rt_interp_head = 32, .is_threads_head = 8,
	.ts_next = 8, .ts_native_tid = PY_NO_FIELD, .ts_cframe = PY_NO_FIELD,
	.cf_current_frame = PY_NO_FIELD, .ts_current_frame = 24,
	.fr_code = 32, .fr_previous = 24, .fr_instr = 96, .fr_owner = PY_NO_FIELD,
	.fr_is_entry = PY_NO_FIELD,
	.co_name = 112, .co_qualname = 112, .co_filename = 104, .co_firstlineno = 40,
	.co_linetable = 120, .co_code_adaptive = PY_NO_FIELD,
	.u_state = 32, .u_length = 16, .u_ascii_size = 48, .u_compact_size = 72,
	.ts_pthread = 176, .rt_size = 672, .frame_objects = true, .lasti_unit = 2,
	.lines = PY_LINES_310,
};

static const struct pylayout py311 = {
	.major = 3, .minor = 11,
	.rt_interp_head = 0x28, .is_threads_head = 0x10,
	.ts_next = 0x8, .ts_native_tid = 0xa0, .ts_cframe = 0x38, .cf_current_frame = 0x8,
	.ts_current_frame = PY_NO_FIELD,
	.fr_code = 32, .fr_previous = 48, .fr_instr = 56, .fr_owner = 69, .fr_is_entry = 68,
	.co_name = 0x78, .co_qualname = 0x80, .co_filename = 0x70, .co_firstlineno = 0x48,
	.co_linetable = 0x88, .co_code_adaptive = 0xb8,
	.u_state = 0x20, .u_length = 0x10, .u_ascii_size = 48, .u_compact_size = 72,
	.ts_pthread = PY_NO_FIELD,
};

static const struct pylayout py312 = {
	.major = 3, .minor = 12,
	.rt_interp_head = 0x28, .is_threads_head = 0x48,
	.ts_next = 0x8, .ts_native_tid = 0x90, .ts_cframe = 0x38, .cf_current_frame = 0,
	.ts_current_frame = PY_NO_FIELD,
	.fr_code = 0, .fr_previous = 8, .fr_instr = 56, .fr_owner = 70, .fr_is_entry = PY_NO_FIELD,
	.co_name = 0x78, .co_qualname = 0x80, .co_filename = 0x70, .co_firstlineno = 0x44,
	.co_linetable = 0x88, .co_code_adaptive = 0xc0,
	.u_state = 0x20, .u_length = 0x10, .u_ascii_size = 40, .u_compact_size = 56,
	.ts_pthread = PY_NO_FIELD,
};

const struct pylayout *pylayout_known(int major, int minor)
{
	static const struct pylayout *const known[] = { &py38, &py39, &py310, &py311, &py312 };
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i]->major == major && known[i]->minor == minor)
			return known[i];
	return NULL;
}

static uint64_t debug_u64(const uint8_t *buf, size_t off)
{
	uint64_t v;
	memcpy(&v, buf + off, sizeof(v));
	return v;
}

/* Offsets in 3.13's struct _Py_DebugOffsets (each field a uint64_t; the struct's own layout
 * changes between minor versions, so only 3.13's is read). */
enum {
	DO_VERSION = 8, DO_FREE_THREADED = 16,
	DO_RT_INTERP_HEAD = 40,
	DO_IS_THREADS_HEAD = 72,
	DO_TS_NEXT = 168, DO_TS_CURRENT_FRAME = 184, DO_TS_NATIVE_TID = 200,
	DO_FR_PREVIOUS = 232, DO_FR_EXECUTABLE = 240, DO_FR_INSTR = 248, DO_FR_OWNER = 264,
	DO_CO_FILENAME = 280, DO_CO_NAME = 288, DO_CO_QUALNAME = 296, DO_CO_LINETABLE = 304,
	DO_CO_FIRSTLINENO = 312, DO_CO_CODE_ADAPTIVE = 344,
	DO_U_STATE = 544, DO_U_LENGTH = 552, DO_U_ASCII_SIZE = 560,
	DO_SIZE_313 = 584,
};

int pylayout_from_debug(const uint8_t *buf, size_t len, struct pylayout *out)
{
	if (len < DO_SIZE_313 || memcmp(buf, "xdebugpy", 8) != 0)
		return -1;
	uint64_t version = debug_u64(buf, DO_VERSION);
	int major = (int)((version >> 24) & 0xff), minor = (int)((version >> 16) & 0xff);
	if (major != 3 || minor != 13 || debug_u64(buf, DO_FREE_THREADED))
		return -1;
	*out = (struct pylayout){
		.major = major, .minor = minor,
		.rt_interp_head = debug_u64(buf, DO_RT_INTERP_HEAD),
		.is_threads_head = debug_u64(buf, DO_IS_THREADS_HEAD),
		.ts_next = debug_u64(buf, DO_TS_NEXT),
		.ts_native_tid = debug_u64(buf, DO_TS_NATIVE_TID),
		.ts_cframe = PY_NO_FIELD, .cf_current_frame = PY_NO_FIELD,
		.ts_current_frame = debug_u64(buf, DO_TS_CURRENT_FRAME),
		.fr_code = debug_u64(buf, DO_FR_EXECUTABLE),
		.fr_previous = debug_u64(buf, DO_FR_PREVIOUS),
		.fr_instr = debug_u64(buf, DO_FR_INSTR),
		.fr_owner = debug_u64(buf, DO_FR_OWNER),
		.fr_is_entry = PY_NO_FIELD,
		.co_name = debug_u64(buf, DO_CO_NAME),
		.co_qualname = debug_u64(buf, DO_CO_QUALNAME),
		.co_filename = debug_u64(buf, DO_CO_FILENAME),
		.co_firstlineno = debug_u64(buf, DO_CO_FIRSTLINENO),
		.co_linetable = debug_u64(buf, DO_CO_LINETABLE),
		.co_code_adaptive = debug_u64(buf, DO_CO_CODE_ADAPTIVE),
		.u_state = debug_u64(buf, DO_U_STATE),
		.u_length = debug_u64(buf, DO_U_LENGTH),
		.u_ascii_size = debug_u64(buf, DO_U_ASCII_SIZE),
		.ts_pthread = PY_NO_FIELD,
	};
	/* PyCompactUnicodeObject adds utf8_length and utf8 to PyASCIIObject (3.12+). */
	out->u_compact_size = out->u_ascii_size + 16;
	/* Every offset must stay inside the objects the reader reads whole, the block's own
	 * PY_NO_FIELD too (3.13 has every field: a block that says otherwise is forged, and
	 * u_ascii_size's would be a read's length). */
	const uint64_t *f = &out->rt_interp_head;
	for (const uint64_t *e = &out->u_compact_size; f <= e; f++)
		if (f != &out->ts_cframe && f != &out->cf_current_frame && f != &out->fr_is_entry &&
		    *f > 0x4000)
			return -1;
	return 0;
}

/* A file of the interpreter, as mapped: path and the start of its mapping at file offset 0. */
struct pymap {
	char path[PATH_MAX];
	uint64_t start;
	bool found;
};

/* What a mapped file is to us. */
enum { MAP_OTHER, MAP_LIB, MAP_EXE, MAP_LIBC };

/* Is base (a basename) libpython3.X.so*, python3.X or glibc's libc? */
static int py_map_kind(const char *base, bool is_exe)
{
	if (!strncmp(base, "libpython3.", 11) && strstr(base, ".so"))
		return MAP_LIB;
	if (is_exe && !strncmp(base, "python3", 7))
		return MAP_EXE;
	if (!strncmp(base, "libc.so", 7) || (!strncmp(base, "libc-", 5) && strstr(base, ".so")))
		return MAP_LIBC;
	return MAP_OTHER;
}

/* The mapping at offset 0 of the interpreter's file (libpython first, else the executable) and of
 * libc: m[MAP_LIB], m[MAP_EXE], m[MAP_LIBC]. */
static int py_maps(pid_t pid, struct pymap *m)
{
	char path[64], line[PATH_MAX + 128], exe_path[PATH_MAX] = "";
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t el = readlink(path, exe_path, sizeof(exe_path) - 1);
	if (el > 0)
		exe_path[el] = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		int name_at = 0;
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &start, &end, &off, &name_at) < 3 ||
		    !name_at || line[name_at] != '/' || off != 0)
			continue;
		char *file = line + name_at;
		file[strcspn(file, "\n")] = 0;
		int kind = py_map_kind(strrchr(file, '/') + 1, !strcmp(file, exe_path));
		if (kind != MAP_OTHER && !m[kind].found) {
			snprintf(m[kind].path, sizeof(m[kind].path), "%s", file);
			m[kind].start = start;
			m[kind].found = true;
		}
	}
	fclose(f);
	return 0;
}

/* The symbols looked for in a file: their file addresses (0 when absent) and sizes. */
struct pysyms {
	const char *const *names;
	int n;
	uint64_t addr[2], size[2];
	uint64_t bias;               /* load address minus file address */
};

static void py_scan_symtab(Elf *e, Elf_Scn *scn, GElf_Shdr *sh, struct pysyms *ps)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !sh->sh_entsize)
		return;
	size_t n = sh->sh_size / sh->sh_entsize;
	int left = 0;
	for (int k = 0; k < ps->n; k++)
		left += !ps->addr[k];
	for (size_t i = 0; i < n && left > 0; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym) || !sym.st_value)
			continue;
		const char *name = elf_strptr(e, sh->sh_link, sym.st_name);
		for (int k = 0; name && k < ps->n; k++)
			if (!ps->addr[k] && !strcmp(name, ps->names[k])) {
				ps->addr[k] = sym.st_value;
				ps->size[k] = sym.st_size;
				left--;
			}
	}
}

/*
 * What a scan of a file found, kept by the file's identity: a pyenv libpython's .symtab is large
 * (a scan took 6-7 ms), and under a churn of short-lived interpreters (`python3 -c ...` in a
 * loop) every process is looked at once while it lives. A file changed in place has a new size or
 * mtime; one replaced has a new inode. Bounded: the least recently used entry goes.
 */
#define SYMCACHE_MAX 16
struct symcache_entry {
	const char *const *names;    /* which lookup (the callers' static name lists) */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	uint64_t use;
	int rc;
	bool dyn;                    /* ET_DYN: placed at the mapping's start minus low */
	uint64_t low;
	uint64_t addr[2], size_of[2];
};
static struct symcache_entry symcache[SYMCACHE_MAX];
static uint64_t symcache_clock;
static pthread_mutex_t symcache_mu = PTHREAD_MUTEX_INITIALIZER;

static bool symcache_same(const struct symcache_entry *c, const struct pysyms *ps,
			  const struct stat *st)
{
	return c->names == ps->names && c->dev == st->st_dev && c->ino == st->st_ino &&
	       c->size == st->st_size && c->mtime.tv_sec == st->st_mtim.tv_sec &&
	       c->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* The cached scan of the file st for ps->names, into ps (its bias for mapping m): its rc, or 1 when
 * not cached. */
static int symcache_get(const struct stat *st, const struct pymap *m, struct pysyms *ps)
{
	int rc = 1;
	pthread_mutex_lock(&symcache_mu);
	for (int i = 0; i < SYMCACHE_MAX && rc == 1; i++) {
		struct symcache_entry *c = &symcache[i];
		if (!c->use || !symcache_same(c, ps, st))
			continue;
		c->use = ++symcache_clock;
		ps->bias = c->dyn ? m->start - c->low : 0;
		for (int k = 0; k < 2; k++) {
			ps->addr[k] = c->addr[k];
			ps->size[k] = c->size_of[k];
		}
		rc = c->rc;
	}
	pthread_mutex_unlock(&symcache_mu);
	return rc;
}

static void symcache_put(const struct stat *st, const struct pysyms *ps, int rc, bool dyn, uint64_t low)
{
	pthread_mutex_lock(&symcache_mu);
	struct symcache_entry *c = &symcache[0];
	for (int i = 1; i < SYMCACHE_MAX; i++)
		if (symcache[i].use < c->use)
			c = &symcache[i];
	*c = (struct symcache_entry){ .names = ps->names, .dev = st->st_dev, .ino = st->st_ino,
				      .size = st->st_size, .mtime = st->st_mtim,
				      .use = ++symcache_clock, .rc = rc, .dyn = dyn, .low = low };
	for (int k = 0; k < 2; k++) {
		c->addr[k] = ps->addr[k];
		c->size_of[k] = ps->size[k];
	}
	pthread_mutex_unlock(&symcache_mu);
}

/* The symbols ps->names in the ELF file of mapping m (opened through the process's root); 0 when
 * the first is found. */
static int py_elf_syms(pid_t pid, const struct pymap *m, struct pysyms *ps)
{
	/* resolved inside its root, never out of it (safefile.h): an absolute symlink in a
	 * container's root is the container's file, not the host's */
	const struct safefile_want w = { .root_pid = (uint32_t)pid, .links_in_root = true,
					 .any_owner = true };
	struct stat st;
	char why[128];
	int fd = safefile_open(m->path, &w, &st, why, sizeof(why));
	if (fd < 0)
		return -ENOENT;
	int rc = symcache_get(&st, m, ps);
	if (rc != 1) {
		close(fd);
		return rc;
	}
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	rc = -ENOEXEC;
	GElf_Ehdr eh;
	if (e && gelf_getehdr(e, &eh)) {
		uint64_t low = UINT64_MAX;
		size_t nph = 0;
		elf_getphdrnum(e, &nph);
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < low)
				low = ph.p_vaddr & ~(uint64_t)0xfff;
		}
		bool dyn = eh.e_type == ET_DYN && low != UINT64_MAX;
		ps->bias = dyn ? m->start - low : 0;
		for (int pass = 0; pass < 2 && !ps->addr[0]; pass++) {
			Elf_Scn *scn = NULL;
			while ((scn = elf_nextscn(e, scn)) != NULL) {
				GElf_Shdr sh;
				if (gelf_getshdr(scn, &sh) &&
				    sh.sh_type == (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM))
					py_scan_symtab(e, scn, &sh, ps);
			}
		}
		rc = ps->addr[0] ? 0 : -ENOENT;
		symcache_put(&st, ps, rc, dyn, low);
	}
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

/* Where the process's glibc keeps a thread's tid in its struct pthread: the descriptor it publishes
 * for libthread_db (three uint32: the field's bits, its count, its offset), else glibc 2.36's. */
static uint64_t py_pthread_tid(pid_t pid, const struct pymap *libc)
{
	static const char *const names[] = { "_thread_db_pthread_tid" };
	struct pysyms ps = { .names = names, .n = 1 };
	uint32_t desc[3];
	if (libc->found && py_elf_syms(pid, libc, &ps) == 0 &&
	    py_read(pid, ps.addr[0] + ps.bias, desc, sizeof(desc)) == 0 && desc[0] == 32 &&
	    desc[1] == 1 && desc[2] < 4096)
		return desc[2];
	return PY_PTHREAD_TID;
}

/* The minor version the file's name says (libpython3.9.so.1.0, python3.9, python3.9d), or -1. */
static int py_name_minor(const char *base)
{
	const char *v = !strncmp(base, "lib", 3) ? base + 3 : base;
	if (strncmp(v, "python3.", 8) || v[8] < '0' || v[8] > '9')
		return -1;
	int minor = 0;
	for (v += 8; *v >= '0' && *v <= '9' && minor < 1000; v++)
		minor = minor * 10 + (*v - '0');
	return minor;
}

/* A CPython without Py_Version (before 3.11): its version from the file's name and the size of its
 * _PyRuntime (pyproc.c's head says why both). */
static int py_layout_old(pid_t pid, struct pyproc *p, uint64_t rt_size, const struct pymap *libc,
			 char *err, size_t errlen)
{
	int minor = py_name_minor(p->dso);
	for (int m = 8; minor < 0 && m <= 10; m++)
		if (rt_size && pylayout_known(3, m)->rt_size == rt_size)
			minor = m;
	if (minor < 0) {
		snprintf(err, errlen, "CPython older than 3.11 (_PyRuntime of %llu bytes): no known layout",
			 (unsigned long long)rt_size);
		return -1;
	}
	snprintf(p->version, sizeof(p->version), "3.%d", minor);
	const struct pylayout *l = minor < 11 ? pylayout_known(3, minor) : NULL;
	if (!l) {
		snprintf(err, errlen, "no known layout for CPython %s", p->version);
		return -1;
	}
	if (rt_size && l->rt_size && rt_size != l->rt_size) {
		snprintf(err, errlen, "CPython %s whose _PyRuntime has %llu bytes, not %llu: no known layout",
			 p->version, (unsigned long long)rt_size, (unsigned long long)l->rt_size);
		return -1;
	}
	p->lay = *l;
	p->pthread_tid = py_pthread_tid(pid, libc);
	return 0;
}

/* The layout of the interpreter whose _PyRuntime is at runtime. */
static int py_layout(pid_t pid, struct pyproc *p, const struct pysyms *ps, const struct pymap *libc,
		     char *err, size_t errlen)
{
	uint8_t buf[DO_SIZE_313];
	/* a 3.9's _PyRuntime is smaller than the debug offsets: read what there is of it */
	size_t len = ps->size[0] && ps->size[0] < sizeof(buf) ? (size_t)ps->size[0] : sizeof(buf);
	int rc = py_read(pid, p->runtime, buf, len);
	if (rc < 0) {
		snprintf(err, errlen, "cannot read its memory (%s)", strerror(-rc));
		return -1;
	}
	if (len == sizeof(buf) && !memcmp(buf, "xdebugpy", 8)) {
		uint64_t v = debug_u64(buf, DO_VERSION);
		snprintf(p->version, sizeof(p->version), "%d.%d", (int)(v >> 24 & 0xff),
			 (int)(v >> 16 & 0xff));
		if (pylayout_from_debug(buf, sizeof(buf), &p->lay) == 0)
			return 0;
		snprintf(err, errlen, "no known layout for CPython %s%s", p->version,
			 debug_u64(buf, DO_FREE_THREADED) ? " (free-threaded)" : "");
		return -1;
	}
	uint64_t v = 0;
	if (!ps->addr[1])
		return py_layout_old(pid, p, ps->size[0], libc, err, errlen);
	if (py_read(pid, ps->addr[1] + ps->bias, &v, sizeof(v)) < 0) {
		snprintf(err, errlen, "cannot read its Py_Version");
		return -1;
	}
	snprintf(p->version, sizeof(p->version), "%d.%d", (int)(v >> 24 & 0xff), (int)(v >> 16 & 0xff));
	const struct pylayout *l = pylayout_known((int)(v >> 24 & 0xff), (int)(v >> 16 & 0xff));
	if (!l || l->frame_objects) {
		snprintf(err, errlen, "no known layout for CPython %s", p->version);
		return -1;
	}
	p->lay = *l;
	return 0;
}

int pyproc_find(pid_t pid, struct pyproc *p, char *err, size_t errlen)
{
	static const char *const names[] = { "_PyRuntime", "Py_Version" };
	struct pymap m[4];
	memset(m, 0, sizeof(m));
	memset(p, 0, sizeof(*p));
	if (py_maps(pid, m) < 0 || (!m[MAP_LIB].found && !m[MAP_EXE].found))
		return 0;
	struct pysyms ps = { .names = names, .n = 2 };
	const struct pymap *at = m[MAP_LIB].found ? &m[MAP_LIB] : &m[MAP_EXE];
	if (py_elf_syms(pid, at, &ps) < 0 && m[MAP_LIB].found && m[MAP_EXE].found) {
		at = &m[MAP_EXE];
		ps = (struct pysyms){ .names = names, .n = 2 };
		py_elf_syms(pid, at, &ps);
	}
	snprintf(p->dso, sizeof(p->dso), "%s", strrchr(at->path, '/') + 1);
	if (!ps.addr[0])
		return 0; /* a python3 without _PyRuntime: 2.x, 3.6 or older, or not CPython */
	p->runtime = ps.addr[0] + ps.bias;
	return py_layout(pid, p, &ps, &m[MAP_LIBC], err, errlen) < 0 ? -1 : 1;
}
