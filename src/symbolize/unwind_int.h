/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind_int: what the files of the unwinder share, and only they include (unwind.c, unwind_image.c,
 * unwind_ehframe.c, unwind_access.c, unwind_cfi.c, unwind_dwarf.c): the unwinder, its images, one
 * walk, the fast path's rows, and the few functions one file calls in another.
 *
 * unwind.c: the facade (unwind.h) and the slow path driving libunwind; unwind_image.c: the mapped
 * binaries, their .eh_frame_hdr or .eh_frame section; unwind_ehframe.c: the .eh_frame reader (values,
 * records, CIEs) and the search of an image's FDEs, with the table it builds where there is no
 * .eh_frame_hdr; unwind_walk.c: a walk's reads and mappings; unwind_access.c: libunwind's
 * accessors over them; unwind_cfi.c: CFI instructions and the fast path over cached rows (and the
 * first frames of frame-pointer chains); unwind_dwarf.c: .debug_frame through libdw, its rules
 * evaluated. The calls go one way: unwind.c -> unwind_access.c -> unwind_cfi.c -> unwind_dwarf.c ->
 * unwind_walk.c -> unwind_ehframe.c -> unwind_image.c, each file calling only files after it
 * (tests/layout/check_calls.py fails on a circle).
 */
#ifndef PERFTOP_SYMBOLIZE_UNWIND_INT_H
#define PERFTOP_SYMBOLIZE_UNWIND_INT_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <libunwind.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolize/unwind.h"

#define UNWIND_SPACES 64     /* per-process libunwind address spaces kept */
#define UNWIND_MAPPED 128    /* images mapped at once (least recently used unmapped past it) */
#define UNWIND_TOUCHED 8     /* images remembered during one walk */
#define UNWIND_MAX_LOADS 16  /* PT_LOAD segments read per binary */

/* DWARF's x86-64 register numbers, which are libunwind's too (unwind_dwarf.c asserts it). */
#define DW_RBP 6
#define DW_RSP 7
#define DW_RA 16

struct image_load {
	uint64_t vaddr, off, filesz;
};

struct image {
	struct dso *dso;        /* key */
	bool tried, ok;         /* mapped; ok: with a usable .eh_frame_hdr */
	const uint8_t *data;
	size_t size;
	struct image_load loads[UNWIND_MAX_LOADS];
	int nloads;
	uint64_t hdr_vaddr;     /* .eh_frame_hdr */
	uint64_t table_vaddr;   /* its sorted (initial location, FDE) pairs */
	uint64_t fde_count;
	/* Without .eh_frame_hdr: the .eh_frame section (from the section headers), and the search
	 * table built from it on first use (unwind_ehframe.c): fde_count int32 pairs, as the
	 * header's, relative to ehf_vaddr; NULL when it has no FDE we can read. */
	uint64_t ehf_vaddr, ehf_size;
	bool ehf_built;
	int32_t *ehf_tab;
	uint64_t ehf_count;
	/* .debug_frame, for addresses .eh_frame does not cover: opened on the first such address */
	bool dbg_tried;
	Dwfl *dwfl;
	Dwarf_CFI *dbg_cfi;
	uint64_t dbg_bias;      /* CFI address = file virtual address - dbg_bias */
	uint64_t used;          /* the unwinder's clock at its last use */
	/* The fast path's rows by address span (unwind_cfi.c): [0, nsorted) sorted by address, the
	 * rest the latest few, merged in when there are SPAN_PENDING of them */
	struct fast_span *spans;
	uint32_t nspans, spans_cap, nsorted;
	/* image_sigreturn's 2 bits per page of the file (searched; a trampoline starts there) */
	uint8_t *sigpages;
};

struct space {
	uint32_t pid;
	bool used;
	uint64_t last_use;
	unw_addr_space_t as;
};

struct touched {
	struct image *img;
	uint64_t bias;          /* runtime address = file virtual address + bias */
	uint64_t start, end;    /* the executable mapping it came from */
};

/* How a row of the fast path finds the caller's return address and RBP. */
enum { RULE_NONE, RULE_SAME, RULE_OFFSET, RULE_UNDEF, RULE_BAD };

/* A row of the fast path (unwind_cfi.c): CFA = RSP or RBP + offset, the return address and RBP at
 * CFA + offset (or RBP unchanged). */
struct fast_row {
	const struct image *img; /* key with va; NULL = empty slot */
	uint64_t va;             /* the address of the row, | FAST_CALLER for a caller's */
	uint8_t ok;              /* a row this path can use; 0: libunwind does this address */
	uint8_t cfa_reg;         /* DW_RSP or DW_RBP */
	uint8_t ra_rule, bp_rule;
	int32_t cfa_off, ra_off, bp_off;
};

/* A row of the fast path for the file addresses [lo, hi) of an image (unwind_cfi.c's spans), kept
 * in the image's array sorted by lo; spans never overlap. */
struct fast_span {
	uint64_t lo, hi;
	uint8_t cfa_reg, ra_rule, bp_rule;
	int32_t cfa_off, ra_off, bp_off;
};

struct fast_cache {
	struct fast_row *rows;   /* on a cache line: a row is half of one */
	void *rows_mem;          /* what to free */
	/* Copies of the rows last used, direct-mapped, in front of rows: a sampled program's few
	 * hundred hot addresses then sit in a few pages, where in rows they are spread over all of
	 * its pages (a cache and TLB miss each, most of a lookup's cost). */
	struct fast_row *front;
	void *front_mem;
	size_t used;
	size_t spans;            /* fast_span entries over all images */
	uint64_t fallbacks;      /* samples handed to libunwind */
};

/* One walk: what the accessors read from. */
struct walk {
	struct unwind *u;
	uint32_t pid;
	uint64_t regs[17];      /* libunwind's numbering, UNW_X86_64_RAX .. RIP */
	uint32_t have;          /* bit per register in regs */
	uint64_t sp;
	const uint8_t *stack;
	uint64_t stack_len;
	struct touched t[UNWIND_TOUCHED];
	int nt, next_t;
	enum unwind_stop why;   /* set by an accessor that failed */
	const char *why_dso;
	/* find_proc_info stopped libunwind at code only .debug_frame describes: that row (malloc'd) */
	Dwarf_Frame *dbg_row;
	/* ... or at JIT code, perhaps a -X perf trampoline (walk_jit_step) */
	bool jit_stop;
	/* During one find_proc_info: the built search table libunwind reads at EH_TABLE_ADDR */
	const int32_t *synth;
	uint64_t synth_len;     /* bytes */
};

/* Where libunwind reads a table unwind_ehframe.c built: a non-canonical address, so that no
 * process's memory is ever there (walk_read serves it from struct walk's synth). */
#define EH_TABLE_ADDR 0x5afe000000000000ull

struct unwind {
	struct maps *maps;
	struct image **imgs;    /* open addressing on the dso pointer */
	size_t nimgs, cap;
	size_t mapped;          /* images whose file is mapped (or whose .debug_frame is open) */
	struct space spaces[UNWIND_SPACES];
	uint64_t clock;
	unw_accessors_t acc;
	uint64_t images, no_info;
	struct fast_cache fast;
	bool fast_off;           /* PERFTOP_UNWIND=libunwind: every sample through libunwind */
	bool check;              /* PERFTOP_UNWIND=check: both, libunwind's kept, differences counted */
	uint64_t checked, mismatched;
	uint64_t dbg_steps;      /* frames the slow path stepped through .debug_frame itself */
};

/* ---- unwind_image.c ---- */

/* What img's file (data, size) says: its PT_LOAD segments, its .eh_frame_hdr table (ok) or, without
 * one, its .eh_frame section. Pure over the bytes (the fuzz target fuzz_unwind calls it). */
void image_read_elf(struct image *img);

/* The image of d, mapped and read on first use; NULL when its file cannot be read at all. */
struct image *image_get(struct unwind *u, struct dso *d);
/* d's image goes (unmapped and freed); false when it had none. */
bool image_drop(struct unwind *u, const struct dso *d);
/* Unmaps the least recently used images past UNWIND_MAPPED; only between walks. */
void image_trim(struct unwind *u);
/* Back to an image never mapped (its file unmapped) but for its spans of CFI rows, which hold for
 * the file mapped or not; the struct stays, for the fast path's rows are keyed on it. Only
 * between walks. */
void image_reset(struct unwind *u, struct image *img);
/* Every image goes. */
void image_free_all(struct unwind *u);
/* Runtime minus file virtual address for a mapping of img at start from file offset pgoff. */
bool image_bias(const struct image *img, uint64_t start, uint64_t pgoff, uint64_t *bias);
/* The bytes of [va, va + len) of img's file, or NULL. */
const uint8_t *image_ptr(const struct image *img, uint64_t va, uint64_t len);
/* len bytes at file virtual address vaddr of img into out; false when the file has none there. */
bool image_read(const struct image *img, uint64_t vaddr, void *out, size_t len);
/* Whether img's code at file address va is rt_sigreturn's trampoline. */
bool image_sigreturn(struct image *img, uint64_t va);
/* Frees img's fast-path spans (unwind_cfi.c's), counted out of u's. */
void image_spans_free(struct unwind *u, struct image *img);

/* ---- unwind_ehframe.c ---- */

/* A cursor over CFI bytes: a read past end marks it bad (and reads 0). */
struct cfi_cursor {
	const uint8_t *p, *end;
	bool bad;
};
uint64_t cfi_uleb(struct cfi_cursor *c);
int64_t cfi_sleb(struct cfi_cursor *c);
uint64_t cfi_fixed(struct cfi_cursor *c, unsigned n);
/* A pointer in encoding enc at file virtual address va (the field's own, for pc-relative values);
 * apply false: the value alone, as an FDE's range is. Only the forms .eh_frame uses for code. */
uint64_t cfi_pointer(struct cfi_cursor *c, uint8_t enc, uint64_t va, bool apply);
/* One CFI record (CIE or FDE) at va: its content after the length, and the va of that content. */
bool cfi_record(const struct image *img, uint64_t va, struct cfi_cursor *c, uint64_t *body_va);

struct cfi_cie {
	struct cfi_cursor insns;  /* its initial instructions */
	uint64_t caf, ra_col;     /* code alignment factor, return address column */
	int64_t daf;              /* data alignment factor */
	uint8_t fde_enc;          /* how its FDEs' addresses are encoded ('R') */
	bool z, signal;           /* augmentation data ('z'); a signal frame's ('S') */
};
/* The CIE at va; false when it cannot be read or has a form we do not know. */
bool cfi_cie(const struct image *img, uint64_t va, struct cfi_cie *cie);
/* The FDE that may cover file address pc of img (the last one starting at or below it), from its
 * .eh_frame_hdr table or, without one, the table built from .eh_frame on first use. */
bool eh_find(struct image *img, uint64_t pc, uint64_t *fde_va);
/* eh_find, and the addresses [*lo, *hi) around pc for which it finds the same FDE the same way. */
bool eh_find_span(struct image *img, uint64_t pc, uint64_t *fde_va, uint64_t *lo, uint64_t *hi);
/* img's table built from .eh_frame (on first use) and its pair count; NULL when img has an
 * .eh_frame_hdr (libunwind reads that one in the file), no .eh_frame or no FDE in it. */
const int32_t *eh_table(struct image *img, uint64_t *count);
/* The table eh_find searches: .eh_frame_hdr's where the image has one, else the one built from
 * .eh_frame (eh_table); *count pairs of sdata4 (location, FDE) relative to *base. */
const uint8_t *eh_search_table(struct image *img, uint64_t *count, uint64_t *base);

/* ---- unwind_access.c ---- */

/* libunwind's remote accessors over a struct walk (their arg). */
unw_accessors_t acc_table(void);

/* ---- unwind_walk.c ---- */
/* The image and bias for the executable mapping holding addr, remembered for this walk; NULL (and
 * w->why says why) when there is none. */
struct touched *walk_touch(struct walk *w, uint64_t addr);
/* Whether addr is in a mapping of the process (a file, JIT code, the vdso...): a return address
 * anywhere else is garbage, and ends the chain. */
bool walk_mapped(struct walk *w, uint64_t addr);
/* Whether addr is in anonymous executable memory (JIT code: no unwind tables). */
bool walk_in_jit(struct walk *w, uint64_t addr);
/* A step out of JIT code at ip (SP sp, RBP bp) when it is one of CPython's -X perf trampolines,
 * whose two forms are known: 1 with the caller's return address, RBP and CFA (its SP); 0 when the
 * stack copy is too short; -1 when it is no such trampoline. */
int walk_jit_step(struct walk *w, uint64_t ip, uint64_t sp, uint64_t bp, uint64_t *ra, uint64_t *nbp,
		  uint64_t *cfa);
/* n bytes at addr of the walk's memory: the stack copy, else the binaries' files. Notes why not. */
bool walk_read(struct walk *w, uint64_t addr, void *out, size_t n);
/* The registers libunwind has at cursor c (RAX..RIP, DWARF numbering) into regs: the bit set of
 * those it could read. Where a walk libunwind stopped is stepped by hand (unwind.c, unwind_dwarf.c). */
uint32_t walk_cursor_regs(unw_cursor_t *c, uint64_t regs[17]);

/* ---- unwind_dwarf.c ---- */

/* The .debug_frame row of img's code at file address va (free() it), or NULL. */
Dwarf_Frame *dbg_frame(struct unwind *u, struct image *img, uint64_t va);
/* The fast path's compact form of .debug_frame row f, when it has one (row->ok). */
void dbg_compact(Dwarf_Frame *f, struct fast_row *row);
/*
 * libunwind stopped at a frame only .debug_frame describes (w->dbg_row, taken): step it from the
 * registers libunwind has for it and start libunwind again (cursor c in as) from the caller. Returns
 * 1 to go on, 0 at the end of the chain (res set when it ended early); appends the caller to ips.
 */
int dbg_resume(struct unwind *u, struct walk *w, unw_cursor_t *c, unw_addr_space_t as, uint64_t *ips,
	       int *n, uint64_t *prev_ip, uint64_t *prev_sp, struct unwind_result *res);

/* ---- unwind_cfi.c ---- */

/* The row of img's code at file address pc from its .eh_frame FDE (rip: the frame's IP, pc itself
 * or, for a caller, pc + 1). False when no FDE covers pc; true when one does, row->ok saying
 * whether the fast path can use the row. */
bool cfi_compute(struct image *img, uint64_t pc, uint64_t rip, struct fast_row *row);
/* cfi_compute, and when the row is ok and does not depend on rip, the file addresses [*lo, *hi)
 * around pc that have that same row (the same FDE, found the same way, the same row of it); else
 * *lo == *hi. */
bool cfi_compute_span(struct image *img, uint64_t pc, uint64_t rip, struct fast_row *row, uint64_t *lo,
		      uint64_t *hi);

/* The walk of w through cached rows, its frames into ips as unwind_sample says. Returns the frames,
 * or -1 when libunwind must do this sample. */
int fast_walk(struct walk *w, uint64_t *ips, int max, struct unwind_result *res);
/* The first frames of a frame-pointer chain (unwind_head); HEAD_COMPLETE is unwind.h's. */
int fast_head(struct walk *w, uint64_t *ras, int max);
/* Every cached row goes (their images may go); fast_free: and the table. */
void fast_clear(struct fast_cache *fc);
void fast_free(struct fast_cache *fc);

#endif
