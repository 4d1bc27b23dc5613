/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind: DWARF unwinding of a sampled user stack (--call-graph dwarf) with libunwind in remote mode.
 *
 * A sample carries the user registers and a copy of the top of the user stack. libunwind walks it
 * through our accessors: registers from the sample, memory from the stack copy and, outside it, from
 * the mapped binaries' files (read-only bytes: the unwind tables and code); procedure info from each
 * binary's .eh_frame_hdr search table (or one built from its .eh_frame where it has none, as GCC's
 * -static executables), and for code .eh_frame does not cover from the .debug_frame of
 * the binary or of its separate debug file (libdw's CFI, whose rules we evaluate on the sample's
 * registers and stack copy). Each binary's file is mapped and its tables found once, cached
 * per dso (which is itself one per build-id/inode); libunwind's own cache is kept per process, since
 * an address means different code in different processes.
 *
 * The result is raw addresses: the IP, then return addresses minus one (the call instruction, so a
 * call at a function's very end is not charged to the next function), ready for the symbolizer. When
 * the walk stops before the thread's root, unwind says why. No frame is guessed: where no CFI
 * describes an address, or a return address is in no mapping, the walk ends there.
 *
 * One thread only (the session's), like the rest of the symbolizer.
 */
#ifndef PERFTOP_SYMBOLIZE_UNWIND_H
#define PERFTOP_SYMBOLIZE_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include "record/record.h"

struct maps;
struct unwind;

/* Hard bound on the frames of one walk, whatever the stack holds. */
#define UNWIND_MAX_FRAMES 256

enum unwind_stop {
	UNWIND_END,          /* libunwind found the outermost frame (or no more frames) */
	UNWIND_SHORT_STACK,  /* a read beyond the copied stack: the stack copy is too short */
	UNWIND_NO_INFO,      /* a binary without unwind tables (or that cannot be read) */
	UNWIND_UNMAPPED,     /* an address in no known mapping */
	UNWIND_TOO_DEEP,     /* UNWIND_MAX_FRAMES (or the caller's max) reached */
	UNWIND_ERROR,        /* anything else libunwind refused */
};

struct unwind_result {
	enum unwind_stop stop;
	const char *dso;     /* UNWIND_NO_INFO: the binary's short name; else NULL */
};

struct unwind *unwind_new(struct maps *maps);
void unwind_free(struct unwind *u);

/* Whether r carries what unwinding needs (user registers and some stack). */
bool unwind_possible(const struct rec *r);

/*
 * Unwinds sample r of process r->pid. Writes up to max addresses into ips: ips[0] the user IP (from
 * the registers), then the callers (return address - 1). Returns the number written (0 when the
 * registers say no user context). Never reads outside the record or the mapped files.
 */
int unwind_sample(struct unwind *u, const struct rec *r, uint64_t *ips, int max,
		  struct unwind_result *res);

/*
 * The first frames of sample r's frame-pointer chain, for the default call graph (frame pointers
 * with the user registers and a small stack copy), from its user IP ip (the chain's user part
 * begins with it; the registers need not have it). The kernel's walk reads each caller at RBP + 8,
 * so where the sampled code has no frame record of its own (a leaf of a library built without frame
 * pointers, a function's first or last instructions, a probe at its entry) it skips the caller,
 * whose return address is on the stack below. The CFI rows (.eh_frame) step from the sampled IP
 * until a frame whose CFA is RBP + 16: the kernel's chain goes on from that frame's caller. Writes
 * ras[0] the IP and then the return addresses (raw, as the kernel's chain has them) and returns how
 * many, with UNWIND_HEAD_COMPLETE set when an outermost frame (or a zero return address) ended the
 * chain before any frame record: the head is then the whole chain. 0: nothing to add (the IP's
 * frame is a frame record), or no head to trust (no CFI, the stack copy too short, RBP changed on
 * the way, more than max frames).
 */
#define UNWIND_HEAD_MAX 16
#define UNWIND_HEAD_COMPLETE 0x100
int unwind_head(struct unwind *u, const struct rec *r, uint64_t ip, uint64_t *ras, int max);

/* The process exec'd or exited: drop what libunwind cached for its addresses. */
/* The dso is going (evicted from its set): its image and the rows cached from it go. */
struct dso;
void unwind_forget_dso(struct unwind *u, const struct dso *d);
void unwind_forget(struct unwind *u, uint32_t pid);
/* The mapped images' pages leave this process's resident set (they stay in the page cache and
 * come back, as minor faults, on the next read): a walk touches a few pages of each binary, and
 * over minutes of process churn the whole .eh_frame of every library stays resident otherwise. */
void unwind_release_pages(struct unwind *u);
/* The images of binaries no live process maps any more (dso_idle) are unmapped; the rows cached
 * from them stay, and a walk that needs one again maps it again. Between walks. */
void unwind_release_idle(struct unwind *u);

/* Binaries mapped for unwinding (each once), and those without usable tables. */
void unwind_counts(const struct unwind *u, uint64_t *images, uint64_t *no_info);

#endif
