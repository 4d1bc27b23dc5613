/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gopclntab: the function table every Go binary carries for its own runtime (tracebacks, GC), read
 * when the binary has no .symtab and no DWARF (go build -ldflags='-s -w'), so that its frames still
 * have names, source lines and inline frames.
 *
 * The four layouts Go has written since 1.2 are told apart by the header's magic: Go 1.2-1.15
 * (0xfffffffb), 1.16-1.17 (0xfffffffa), 1.18-1.19 (0xfffffff0), 1.20 and later (0xfffffff1). Inline
 * frames come from each function's inline tree (FUNCDATA_InlTree, indexed by PCDATA_InlTreeIndex),
 * written since Go 1.12; from 1.18 on the tree is found through the runtime's moduledata, which this
 * parser looks for in the data the image offers.
 *
 * The table is the profiled program's and is read as hostile input: every offset, count and string is
 * checked against the bytes the image holds before it is used, loops are bounded by the bytes they
 * consume or by fixed depths, and nothing is allocated in proportion to a count the file states.
 * Little-endian tables only (x86-64, arm64, ...).
 */
#ifndef PERFTOP_SYMBOLIZE_GOPCLNTAB_H
#define PERFTOP_SYMBOLIZE_GOPCLNTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* File bytes [off, off + size) are at virtual address vaddr (a PT_LOAD segment). */
struct gopcln_seg {
	uint64_t vaddr, off, size;
};

/*
 * What the parser may read of a binary: its bytes, where they are loaded, and (position-independent
 * binaries) the R_*_RELATIVE relocations, whose values replace the zeros the file holds at their
 * offsets. The pointers must outlive the table.
 */
struct gopcln_image {
	const uint8_t *file;
	size_t size;
	const struct gopcln_seg *segs;
	size_t nsegs;
	const uint64_t *rel_off, *rel_val;  /* sorted by rel_off; nrels may be 0 */
	size_t nrels;
	uint64_t pcln_vaddr, pcln_off, pcln_size;  /* the .gopclntab section */
	uint64_t data_vaddr, data_size;  /* where moduledata may be (.noptrdata); size 0: nowhere */
	uint64_t text_vaddr;             /* .text: the code base when the header's is not in the file */
};

struct gopcln;

/* The Go version family of the layout: 12, 116, 118 or 120. */
#define GOPCLN_GO12  12
#define GOPCLN_GO116 116
#define GOPCLN_GO118 118
#define GOPCLN_GO120 120

/* Frames an address expands into at most (inline frames and the function). */
#define GOPCLN_MAX_DEPTH 32

/* Reads the header and checks the function table; NULL with why filled when the table cannot be used. */
struct gopcln *gopcln_open(const struct gopcln_image *img, char *why, size_t whylen);
void gopcln_free(struct gopcln *t);
int gopcln_version(const struct gopcln *t);
size_t gopcln_count(const struct gopcln *t);
/* Whether the inline trees can be reached (1.18+: moduledata was found). */
bool gopcln_has_inlines(const struct gopcln *t);

/* Function i (by address): [*entry, *end) and its name (NUL-terminated, inside the image).
 * False when its entry in the table is damaged (the caller skips it). */
bool gopcln_func(const struct gopcln *t, size_t i, uint64_t *entry, uint64_t *end, const char **name);

/* Function i's flags byte (1.17+; 0 before): GOPCLN_FLAG_ASM marks one written in assembly,
 * GOPCLN_FLAG_TOPFRAME the outermost frame of a stack (goexit, mstart, rt0_go). */
#define GOPCLN_FLAG_TOPFRAME 1
#define GOPCLN_FLAG_ASM 4
unsigned gopcln_func_flags(const struct gopcln *t, size_t i);

/* The stack pointer's distance below the function's entry value at pc (pcsp: what the function has
 * pushed and reserved), and the function's flags; false when no function or table covers pc. */
bool gopcln_spdelta(const struct gopcln *t, uint64_t pc, int32_t *delta, unsigned *flags);

struct gopcln_frame {
	const char *name;   /* inside the image */
	const char *file;   /* full path as the compiler saw it, or NULL */
	int line;           /* 0 when unknown */
	bool inlined;
};

/*
 * The frames of pc: the functions inlined there, innermost first, then the function that holds it
 * (always last). Each frame's file:line is where it stands at pc: the innermost one's is pc's own,
 * each outer one's is the call it inlined. Returns how many were written (0: no function covers pc).
 * A damaged inline tree costs the inline frames, never the function's.
 */
int gopcln_frames(const struct gopcln *t, uint64_t pc, struct gopcln_frame *out, int max);

#endif
