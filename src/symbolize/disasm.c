/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * disasm: a function's instructions (capstone over the ELF section bytes), their source lines (the
 * DWARF line table through libdwfl), and source files read from disk.
 *
 * The line of an instruction is dwfl_module_getsrc's for its address: the row of the line table
 * that covers it, which is what perf annotate and objdump -S show; where DWARF has none, a Go
 * binary's own table's (gopclntab.h: a -w build, or Go's DWARF, in which libdw finds no unit).
 * Capstone is opened per call: the view asks once per function it opens, and the session caches
 * the result.
 *
 * JIT code ("[JIT] tid PID") is its process's jitdump's bytes (jitdump.h), its lines the dump's
 * debug info: the same decoding without an ELF file.
 *
 * libcapstone itself is loaded on the first call (lazylib.c: dlopen, not linked, so that the sessions
 * that never show assembly do not pay for it at startup); when it cannot be, the function's error
 * says "disassembly unavailable: <dlerror>".
 */
#include "symbolize/disasm.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/dso.h"
#include "symbolize/gopclntab.h"
#include "symbolize/lazylib.h"
#include "util/util.h"

void disasm_func_done(struct disasm_func *f)
{
	for (size_t i = 0; i < f->nfiles; i++)
		free(f->files[i]);
	free(f->files);
	free(f->insns);
	memset(f, 0, sizeof(*f));
}

/* One copy of each path: a function's instructions point to a handful of files. */
static const char *func_file(struct disasm_func *f, const char *path)
{
	if (!path)
		return NULL;
	for (size_t i = f->nfiles; i-- > 0;)
		if (!strcmp(f->files[i], path))
			return f->files[i];
	xgrow((void **)&f->files, &f->files_cap, f->nfiles + 1, sizeof(*f->files));
	return f->files[f->nfiles++] = xstrdup(path);
}

/* The bytes [start, end) from the executable section holding them; NULL with err set. */
static const uint8_t *func_bytes(Elf *elf, uint64_t start, uint64_t end, size_t *len, char *err,
				 size_t errlen)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		if (start < sh.sh_addr || start >= sh.sh_addr + sh.sh_size)
			continue;
		if (sh.sh_type == SHT_NOBITS) {
			snprintf(err, errlen, "the code is not in this file (a debug file?)");
			return NULL;
		}
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf) {
			snprintf(err, errlen, "cannot read the section: %s", elf_errmsg(-1));
			return NULL;
		}
		uint64_t off = start - sh.sh_addr, lim = sh.sh_addr + sh.sh_size;
		*len = (size_t)((end < lim ? end : lim) - start);
		if (off + *len > data->d_size)
			*len = data->d_size > off ? (size_t)(data->d_size - off) : 0;
		return (const uint8_t *)data->d_buf + off;
	}
	snprintf(err, errlen, "no executable section holds 0x%llx", (unsigned long long)start);
	return NULL;
}

/* The declaration line of the subprogram holding module address pc when it is declared in file (the
 * line table starts at the body; the signature is what a reader looks for). 0 when unknown. */
static unsigned decl_line(Dwfl_Module *mod, Dwarf_Addr pc, const char *file)
{
	Dwarf_Addr b;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &b);
	Dwarf_Die *scopes = NULL;
	int n = cu ? dwarf_getscopes(cu, pc - b, &scopes) : 0;
	unsigned line = 0;
	for (int i = 0; i < n && !line; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		int l = 0;
		const char *f = dwarf_decl_file(&scopes[i]);
		if (dwarf_decl_line(&scopes[i], &l) == 0 && l > 0 && f && file && !strcmp(f, file))
			line = (unsigned)l;
		break;
	}
	free(scopes);
	return line;
}

/* Where an instruction's source line comes from: the DWARF of an ELF module (a Go binary's own
 * table where DWARF has none), or a jitdump's debug info. */
struct line_src {
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	const struct gopcln *go;
	struct symbolizer *s;  /* JIT code: its process's dump */
	uint32_t pid;
};

static void insn_line(struct disasm_func *f, const struct line_src *ls, struct disasm_insn *o)
{
	const char *file = NULL;
	int lineno = 0;
	unsigned jl = 0;
	if (ls->mod) {
		Dwfl_Line *l = dwfl_module_getsrc(ls->mod, o->va + ls->bias);
		file = l ? dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL) : NULL;
		struct gopcln_frame g;
		if (!file && ls->go && gopcln_frames(ls->go, o->va, &g, 1) == 1) {
			file = g.file;
			lineno = g.line;
		}
	} else if (symbolizer_jit_line(ls->s, ls->pid, o->va, &file, &jl)) {
		lineno = jl > INT32_MAX ? 0 : (int)jl;
	}
	if (file && lineno > 0) {
		o->file = func_file(f, file);
		o->line = (unsigned)lineno;
		if (!f->file)
			f->file = o->file;
	}
}

/* Decodes len bytes of code at va into f (x86-64), each instruction with its line. */
static int disasm_bytes(struct disasm_func *f, const uint8_t *code, size_t len, uint64_t va,
			const struct line_src *ls, const char *dso)
{
	const char *dlwhy = NULL;
	const struct lazy_capstone *cap = lazy_capstone(&dlwhy);
	if (!cap) {
		snprintf(f->err, sizeof(f->err), "disassembly unavailable: %s", dlwhy);
		return -1;
	}
	csh cs;
	if (cap->open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		snprintf(f->err, sizeof(f->err), "capstone cannot open x86-64");
		return -1;
	}
	cs_insn *in = NULL;
	size_t n = cap->disasm(cs, code, len, va, 0, &in);
	f->insns = xcalloc(n ? n : 1, sizeof(*f->insns));
	for (size_t i = 0; i < n; i++) {
		struct disasm_insn *o = &f->insns[f->n++];
		o->va = in[i].address;
		o->len = in[i].size;
		snprintf(o->text, sizeof(o->text), "%s%s%s", in[i].mnemonic, in[i].op_str[0] ? " " : "",
			 in[i].op_str);
		insn_line(f, ls, o);
	}
	if (n)
		cap->free(in, n);
	cap->close(&cs);
	if (!f->n) {
		snprintf(f->err, sizeof(f->err), "%s: capstone decoded no instruction at 0x%llx", dso,
			 (unsigned long long)va);
		return -1;
	}
	return 0;
}

/* JIT code ("[JIT] tid PID"): the bytes its process's jitdump holds. */
static int disasm_jit(struct symbolizer *s, const char *dso, uint64_t start, struct disasm_func *f)
{
	unsigned long pid = strtoul(dso + 10, NULL, 10);
	uint8_t *code = NULL;
	char why[200];
	size_t len = pid && pid <= UINT32_MAX
		? symbolizer_jit_code(s, (uint32_t)pid, start, DISASM_MAX_BYTES, &code, why, sizeof(why)) : 0;
	if (!len) {
		snprintf(f->err, sizeof(f->err), "%s: %s", dso, pid ? why : "no pid");
		return -1;
	}
	struct line_src ls = { .s = s, .pid = (uint32_t)pid };
	int rc = disasm_bytes(f, code, len, start, &ls, dso);
	free(code);
	return rc;
}

int disasm_function(struct symbolizer *s, const char *dso, uint64_t sym_start, struct disasm_func *f)
{
	memset(f, 0, sizeof(*f));
	if (dso && !strncmp(dso, "[JIT] tid ", 10) && sym_start)
		return disasm_jit(s, dso, sym_start, f);
	if (!dso || (dso[0] == '[' && strncmp(dso, "[vdso]", 6) != 0) || !sym_start) {
		snprintf(f->err, sizeof(f->err), "%s: no code to disassemble (kernel, JIT or unknown)",
			 dso ? dso : "?");
		return -1;
	}
	struct dso *d = dso_set_find_name(symbolizer_dso_set(s), dso);
	uint64_t end, bias;
	Dwfl_Module *mod = d ? dso_code(d, sym_start, &end, &bias) : NULL;
	if (!mod) {
		snprintf(f->err, sizeof(f->err), "%s: cannot read the function's code%s%s", dso,
			 d && dso_error(d) ? ": " : "", d && dso_error(d) ? dso_error(d) : "");
		return -1;
	}
	Dwarf_Addr ebias;
	Elf *elf = dwfl_module_getelf(mod, &ebias);
	GElf_Ehdr eh;
	if (!elf || !gelf_getehdr(elf, &eh)) {
		snprintf(f->err, sizeof(f->err), "%s: not an ELF file", dso);
		return -1;
	}
	if (eh.e_machine != EM_X86_64) {
		snprintf(f->err, sizeof(f->err), "%s: annotate disassembles x86-64 code only", dso);
		return -1;
	}
	if (end - sym_start > DISASM_MAX_BYTES) {
		snprintf(f->err, sizeof(f->err), "cut at %u KiB", DISASM_MAX_BYTES / 1024);
		end = sym_start + DISASM_MAX_BYTES;
	}
	size_t len = 0;
	char why[160];
	const uint8_t *code = func_bytes(elf, sym_start, end, &len, why, sizeof(why));
	if (!code) {
		snprintf(f->err, sizeof(f->err), "%s: %s", dso, why);
		return -1;
	}
	struct line_src ls = { .mod = mod, .bias = bias, .go = dso_gopcln(d) };
	if (disasm_bytes(f, code, len, sym_start, &ls, dso) != 0)
		return -1;
	if (f->file)
		f->decl_line = decl_line(mod, sym_start + bias, f->file);
	return 0;
}

void srcfile_done(struct srcfile *sf)
{
	free(sf->buf);
	free(sf->lines);
	memset(sf, 0, sizeof(*sf));
}

/* The whole file, NUL-terminated, or NULL with errno set. */
static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n - 1, fp)) > 0) {
		n += got;
		if (cap - n - 1 == 0)
			buf = xrealloc(buf, cap *= 2);
	}
	int bad = ferror(fp);
	fclose(fp);
	if (bad) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

int srcfile_read(const char *path, const char *const *prefixes, size_t nprefixes, struct srcfile *sf,
		 char *err, size_t errlen)
{
	memset(sf, 0, sizeof(sf[0]));
	char *raw = NULL;
	size_t len = 0;
	int first_errno = 0;
	/* A remap first: the build's path may exist here too, but be another checkout. */
	for (size_t i = 0; i < nprefixes && !raw; i++) {
		const char *eq = strchr(prefixes[i], '=');
		size_t ol = eq ? (size_t)(eq - prefixes[i]) : 0;
		if (!eq || strncmp(path, prefixes[i], ol) != 0)
			continue;
		char buf[4096];
		snprintf(buf, sizeof(buf), "%s%s", eq + 1, path + ol);
		raw = slurp(buf, &len);
		if (!raw && !first_errno)
			first_errno = errno;
	}
	if (!raw)
		raw = slurp(path, &len);
	if (!raw) {
		snprintf(err, errlen, "%s: %s%s", path, strerror(first_errno ? first_errno : errno),
			 nprefixes ? "" : " (--prefix OLD=NEW remaps a build path)");
		return -1;
	}
	/* Expand tabs once here, so the view draws plain cells. */
	size_t tabs = 0;
	for (size_t i = 0; i < len; i++)
		tabs += raw[i] == '\t';
	sf->buf = xmalloc(len + tabs * 7 + 1);
	size_t cap = 0, col = 0, o = 0;
	xgrow((void **)&sf->lines, &cap, 1, sizeof(*sf->lines));
	sf->lines[sf->n++] = sf->buf;
	for (size_t i = 0; i < len; i++) {
		char c = raw[i];
		if (c == '\n') {
			sf->buf[o++] = 0;
			col = 0;
			if (i + 1 < len) {
				xgrow((void **)&sf->lines, &cap, sf->n + 1, sizeof(*sf->lines));
				sf->lines[sf->n++] = sf->buf + o;
			}
		} else if (c == '\t') {
			do
				sf->buf[o++] = ' ';
			while (++col % 8);
		} else if (c != '\r') {
			sf->buf[o++] = c;
			col++;
		}
	}
	sf->buf[o] = 0;
	free(raw);
	return 0;
}
