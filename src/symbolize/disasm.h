/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * disasm: the code of one function for the annotate view, and the source file it came from.
 *
 * The session asks for a function by the names its frames carry (the dso's short name and the
 * symbol's start in the dso's own address space, frame.sym_start); the bytes are the ELF section
 * data at the symbol's range, read through the dso's libdwfl module, decoded by capstone (x86-64:
 * the only machine perftop samples), and each instruction gets its file:line from the DWARF line
 * table. JIT code (dso "[JIT] tid PID") is the bytes of its process's jitdump, its lines the dump's
 * debug info. Source files are read from disk, after --prefix OLD=NEW remaps a build path.
 *
 * Same thread as the symbolizer (libdw handles are not shared across threads). Errors come back as
 * text ("libfoo.so: no debug info", "[kernel.kallsyms]: kernel code is not disassembled"): the view
 * shows them where the code would be.
 */
#ifndef PERFTOP_SYMBOLIZE_DISASM_H
#define PERFTOP_SYMBOLIZE_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbolizer;

/* Functions larger than this are cut (the view says so). */
#define DISASM_MAX_BYTES (1u << 20)

struct disasm_insn {
	uint64_t va;           /* in the dso's address space, as frame.va */
	uint32_t len;
	char text[192];        /* "mov rax, qword ptr [rdi + 8]" (capstone: mnemonic 32 + operands 160) */
	const char *file;      /* the line table's path (one of disasm_func.files), or NULL */
	unsigned line;         /* 0: no line */
};

struct disasm_func {
	struct disasm_insn *insns;
	size_t n;
	const char *file;      /* the file of the function's first instruction with a line, or NULL */
	unsigned decl_line;    /* where DWARF says the function is declared in file (its signature), or 0 */
	char **files;          /* the distinct paths the instructions point to (owned) */
	size_t nfiles, files_cap;
	char err[256];         /* why n is 0, or a note ("cut at 1 MiB") */
};

/* The instructions of function sym_start of dso (a short name from frame.dso). Returns 0, or -1 with
 * f->err set. f is emptied first; disasm_func_done frees it either way. */
int disasm_function(struct symbolizer *s, const char *dso, uint64_t sym_start, struct disasm_func *f);
void disasm_func_done(struct disasm_func *f);

/* A source file's lines. */
struct srcfile {
	char *buf;
	const char **lines;    /* lines[0] is line 1, without the newline */
	size_t n;
};

/* Reads path, or the first of its --prefix remaps (prefixes[i] is "OLD=NEW": a path starting with
 * OLD is read as NEW + the rest) that exists. Tabs become spaces (8 wide). 0, or -1 with a message in
 * err. */
int srcfile_read(const char *path, const char *const *prefixes, size_t nprefixes, struct srcfile *sf,
		 char *err, size_t errlen);
void srcfile_done(struct srcfile *sf);

/* The symbolizer's dso set (disasm.c looks functions up in it). */
struct dso_set *symbolizer_dso_set(struct symbolizer *s);
/*
 * The bytes of JIT code of pid (a frame's dso "[JIT] tid PID", its sym_start) from the process's
 * jitdump, at most max: their count in *buf (malloc'ed), or 0 with why in err.
 */
size_t symbolizer_jit_code(struct symbolizer *s, uint32_t pid, uint64_t start, size_t max,
			   uint8_t **buf, char *err, size_t errlen);
/* The source file and line of JIT address addr of pid by its jitdump's debug info; false when
 * unknown. file is valid until the next lookup. */
bool symbolizer_jit_line(struct symbolizer *s, uint32_t pid, uint64_t addr, const char **file,
			 unsigned *line);

#endif
