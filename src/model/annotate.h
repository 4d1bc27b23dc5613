/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * annotate: per-address sample counts, and their aggregation into an annotated function (the a
 * key's view): its source lines and its instructions, each with Self and Total.
 *
 * The live part is a bounded histogram keyed by (dso, function, address), fed next to the profile
 * with the same samples and the same window (decay x7/8 or zero). Self at an address is the period
 * of the samples whose leaf IP is there; Total the period of the samples with that address anywhere
 * in their chain, attributed to the function that holds it (so a caller's Total sits on its call
 * instruction). Addresses are the dso's own (ELF virtual, frame.va), so every process mapping a
 * library adds to the same entries. Inline frames add nothing of their own: the address belongs to
 * the function it was inlined into, which is what annotate shows. Return addresses are recorded one
 * byte back, inside the call instruction, so that they land on the call and on its source line (but
 * the first user address under kernel frames is where the user code was interrupted: exact).
 *
 * The document is plain data built from the counts of one function and its code (instructions with
 * their file:line, the source file's lines), both handed in by the session, which reads binaries and
 * source files; the model reads nothing. The UI reads documents only.
 */
#ifndef PERFTOP_ANNOTATE_H
#define PERFTOP_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

#define ANNOTATE_DEFAULT_MAX_ADDRS 262144

struct annotate;

/* max_addrs 0: ANNOTATE_DEFAULT_MAX_ADDRS (and never below 16). */
struct annotate *annotate_new(size_t max_addrs);
void annotate_free(struct annotate *an);

/* Adds one sample (frames leaf first, interned strings, frame.va set where known). */
void annotate_add(struct annotate *an, const struct sample_ctx *s);
/* Decay x7/8 (integer, per address) or zero; addresses that reach 0 go. */
void annotate_end_window(struct annotate *an, bool zero);

/* Every sample's period (decayed alike): the denominator of the percentages. */
/* The names were compacted (util/frame.h): every entry's names become rename(ctx, name). */
void annotate_move_names(struct annotate *an, frame_rename_fn rename, void *ctx);
uint64_t annotate_total(const struct annotate *an);
size_t annotate_addrs(const struct annotate *an);
/* Period of the samples whose leaf address found the histogram full (counted, not shown). */
uint64_t annotate_dropped(const struct annotate *an);

/* One address of one function. */
struct an_entry {
	const char *dso, *sym;     /* interned, as in the frames */
	uint64_t sym_start, va;
	uint64_t self, total;
};

/* The histogram of a window, copied when the window ends (before its decay), so that the view
 * reads the same window as the table's snapshot even under -z. Plain and immutable. */
struct an_snapshot {
	struct an_entry *e;
	size_t n;
	uint64_t total;
};

struct an_snapshot *annotate_snapshot(const struct annotate *an);
void an_snapshot_free(struct an_snapshot *s);

struct an_count {
	uint64_t va;
	uint64_t self, total;
};

/* The addresses of function sym (interned; dso NULL: any dso) with their counts, ordered by address,
 * in *out (malloc'ed, the caller frees). *sym_start is the function's start (0 when it has no
 * address in the window). Returns the count. */
size_t an_snapshot_func(const struct an_snapshot *s, const char *dso, const char *sym,
			struct an_count **out, uint64_t *sym_start);

/* --- the document ------------------------------------------------------------------------------ */

/* One instruction of the function's code, as the disassembler gave it. */
struct an_insn {
	uint64_t va;
	uint32_t len;
	const char *text;      /* "mov eax, dword ptr [rdi]" */
	const char *file;      /* its source file (the line table's), or NULL */
	unsigned line;         /* 0: unknown */
};

/* What the session knows of a function's code. Strings are copied by annotate_doc. */
struct an_code {
	const struct an_insn *insns; /* ordered by address */
	size_t ninsns;
	const char *err;       /* why there are no instructions ("[kernel.kallsyms]: no code"), or NULL */
	const char *file;      /* the function's own source file (where its first line is), or NULL */
	unsigned decl_line;    /* its signature's line in file (DWARF's decl_line), or 0 */
	const char *const *src; /* that file's lines (src[0] is line 1), NULL when it could not be read */
	size_t nsrc;
	const char *src_err;   /* why src is NULL ("fixture.c: No such file or directory") */
};

/* A row of the document: a source line (file, line, text) or an instruction (va, text). */
struct an_row {
	uint64_t self, total;
	uint64_t va;           /* instructions */
	const char *file;      /* source rows: the file; instructions: their line's file */
	unsigned line;         /* 0: unknown */
	const char *text;      /* the source text (NULL when not read) or the instruction */
	long src;              /* instructions: the index of their line's row in src[], or -1 */
};

struct an_doc {
	/* The function's own file's lines from its first to its last line with code, then the lines of
	 * other files (inlined from headers) and one row (line 0) for instructions without a line, in
	 * the order their code comes. */
	struct an_row *src;
	size_t nsrc;
	struct an_row *insn;    /* in address order */
	size_t ninsn;
	uint64_t total;         /* the window's total period: percentages are shares of it */
	uint64_t self;          /* the function's Self (the sum over its addresses) */
	uint64_t unplaced;      /* Self period at addresses outside every instruction (stale code) */
	const char *file, *err, *src_err;
	char **owned;           /* every string above and in the rows, freed with the document */
	size_t nowned, owned_cap;
};

/* Builds the document of one function from its counts (an_snapshot_func's) and code. Never NULL. */
struct an_doc *annotate_doc(const struct an_code *code, const struct an_count *counts, size_t n,
			    uint64_t total);
void annotate_doc_free(struct an_doc *d);

#endif
