/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pyproc: is a process a CPython one, where is its _PyRuntime, and which struct layout does it
 * have.
 *
 * The interpreter lives in libpython3.X.so (shared builds: pyenv's) or in the python3.X executable
 * (static builds: Debian's); its _PyRuntime and Py_Version (3.11+) are in the ELF symbols of that
 * file (.symtab, else .dynsym: both are exported), placed at the load address read from
 * /proc/PID/maps. Py_Version, read from the process, says the version. 3.13 and later publish their
 * offsets at the start of _PyRuntime (_Py_DebugOffsets, cookie "xdebugpy"); 3.11 and 3.12 do not,
 * and their offsets come from the table below, which holds the layouts of x86-64 builds without
 * free threading or Py_TRACE_REFS (the configure options that change them). The numbers are
 * CPython's struct layouts (Include/internal/pycore_frame.h, pycore_interp.h, pycore_runtime.h,
 * cpython/pystate.h, cpython/code.h, cpython/unicodeobject.h), read from the DWARF of pyenv's
 * 3.11.7 and 3.12.1 with gdb's ptype/o; Debian's 3.11.2 has the same _PyRuntime size and reads
 * with them.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "python/pyint.h"

static const struct pylayout py311 = {
	.major = 3, .minor = 11,
	.rt_interp_head = 0x28, .is_threads_head = 0x10,
	.ts_next = 0x8, .ts_native_tid = 0xa0, .ts_cframe = 0x38, .cf_current_frame = 0x8,
	.ts_current_frame = PY_NO_FIELD,
	.fr_code = 32, .fr_previous = 48, .fr_instr = 56, .fr_owner = 69, .fr_is_entry = 68,
	.co_name = 0x78, .co_qualname = 0x80, .co_filename = 0x70, .co_firstlineno = 0x48,
	.co_linetable = 0x88, .co_code_adaptive = 0xb8,
	.u_state = 0x20, .u_length = 0x10, .u_ascii_size = 48, .u_compact_size = 72,
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
};

const struct pylayout *pylayout_known(int major, int minor)
{
	if (major == 3 && minor == 11)
		return &py311;
	if (major == 3 && minor == 12)
		return &py312;
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
	};
	/* PyCompactUnicodeObject adds utf8_length and utf8 to PyASCIIObject (3.12+). */
	out->u_compact_size = out->u_ascii_size + 16;
	/* Every offset must stay inside the objects the reader reads whole. */
	const uint64_t *f = &out->rt_interp_head;
	for (const uint64_t *e = &out->u_compact_size; f <= e; f++)
		if (*f != PY_NO_FIELD && *f > 0x4000)
			return -1;
	return 0;
}

int py_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (got < 0)
		return -errno;
	return (size_t)got == len ? 0 : -EFAULT;
}

/* A file of the interpreter, as mapped: path and the start of its mapping at file offset 0. */
struct pymap {
	char path[PATH_MAX];
	uint64_t start;
	bool found;
};

/* Is base (a basename) libpython3.X.so* or python3.X? */
static bool py_name(const char *base, bool lib)
{
	if (lib)
		return !strncmp(base, "libpython3.", 11) && strstr(base, ".so");
	return !strncmp(base, "python3", 7);
}

/* The mapping at offset 0 of the interpreter's file: libpython first, else the executable. */
static int py_maps(pid_t pid, struct pymap *lib, struct pymap *exe)
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
		const char *base = strrchr(file, '/') + 1;
		struct pymap *m = NULL;
		if (py_name(base, true))
			m = lib;
		else if (!strcmp(file, exe_path) && py_name(base, false))
			m = exe;
		if (m && !m->found) {
			snprintf(m->path, sizeof(m->path), "%s", file);
			m->start = start;
			m->found = true;
		}
	}
	fclose(f);
	return 0;
}

struct pysyms {
	uint64_t runtime, version;   /* file addresses; 0 when absent */
	uint64_t bias;               /* load address minus file address */
};

static void py_scan_symtab(Elf *e, Elf_Scn *scn, GElf_Shdr *sh, struct pysyms *ps)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !sh->sh_entsize)
		return;
	size_t n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n && (!ps->runtime || !ps->version); i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym) || !sym.st_value)
			continue;
		const char *name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name)
			continue;
		if (!strcmp(name, "_PyRuntime"))
			ps->runtime = sym.st_value;
		else if (!strcmp(name, "Py_Version"))
			ps->version = sym.st_value;
	}
}

/* _PyRuntime and Py_Version in the ELF file at path (opened through the process's root). */
static int py_elf_syms(pid_t pid, const struct pymap *m, struct pysyms *ps)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, m->path);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	int rc = -ENOEXEC;
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
		ps->bias = eh.e_type == ET_DYN && low != UINT64_MAX ? m->start - low : 0;
		for (int pass = 0; pass < 2 && !ps->runtime; pass++) {
			Elf_Scn *scn = NULL;
			while ((scn = elf_nextscn(e, scn)) != NULL) {
				GElf_Shdr sh;
				if (gelf_getshdr(scn, &sh) &&
				    sh.sh_type == (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM))
					py_scan_symtab(e, scn, &sh, ps);
			}
		}
		rc = ps->runtime ? 0 : -ENOENT;
	}
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

/* The layout of the interpreter whose _PyRuntime is at runtime. */
static int py_layout(pid_t pid, struct pyproc *p, uint64_t version_addr, char *err, size_t errlen)
{
	uint8_t buf[DO_SIZE_313];
	int rc = py_read(pid, p->runtime, buf, sizeof(buf));
	if (rc < 0) {
		snprintf(err, errlen, "cannot read its memory (%s)", strerror(-rc));
		return -1;
	}
	if (!memcmp(buf, "xdebugpy", 8)) {
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
	if (!version_addr || py_read(pid, version_addr, &v, sizeof(v)) < 0) {
		snprintf(err, errlen, "CPython older than 3.11: no known layout");
		return -1;
	}
	snprintf(p->version, sizeof(p->version), "%d.%d", (int)(v >> 24 & 0xff), (int)(v >> 16 & 0xff));
	const struct pylayout *l = pylayout_known((int)(v >> 24 & 0xff), (int)(v >> 16 & 0xff));
	if (!l) {
		snprintf(err, errlen, "no known layout for CPython %s", p->version);
		return -1;
	}
	p->lay = *l;
	return 0;
}

int pyproc_find(pid_t pid, struct pyproc *p, char *err, size_t errlen)
{
	struct pymap lib = { .found = false }, exe = { .found = false };
	memset(p, 0, sizeof(*p));
	if (py_maps(pid, &lib, &exe) < 0 || (!lib.found && !exe.found))
		return 0;
	struct pysyms ps = { 0 };
	const struct pymap *m = lib.found ? &lib : &exe;
	if (py_elf_syms(pid, m, &ps) < 0 && lib.found && exe.found) {
		m = &exe;
		memset(&ps, 0, sizeof(ps));
		py_elf_syms(pid, m, &ps);
	}
	snprintf(p->dso, sizeof(p->dso), "%s", strrchr(m->path, '/') + 1);
	if (!ps.runtime)
		return 0; /* a python3 without _PyRuntime: 2.x, or not CPython */
	p->runtime = ps.runtime + ps.bias;
	return py_layout(pid, p, ps.version ? ps.version + ps.bias : 0, err, errlen) < 0 ? -1 : 1;
}
