/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind_walk: one walk's view of a sample: its memory and the mappings its addresses fall in.
 *
 * A walk's memory reads: inside [SP, SP + copied size) from the stack copy; elsewhere from the images
 * the walk already used (their read-only segments, which is where the unwind tables live:
 * .eh_frame_hdr sits in a segment the MMAP records never mention, because only executable mappings
 * are recorded), else from the image of whatever mapping holds the address. Every read is
 * bounds-checked against the copy or the file: a garbage stack ends the walk, never the process.
 * libunwind's accessors (unwind_access.c), the fast path (unwind_cfi.c) and the .debug_frame rules
 * (unwind_dwarf.c) all read through these functions, which call none of theirs.
 */
#include "symbolize/unwind_int.h"

#include <string.h>

#include "symbolize/dso.h"
#include "symbolize/maps.h"

struct touched *walk_touch(struct walk *w, uint64_t addr)
{
	for (int i = 0; i < w->nt; i++)
		if (addr >= w->t[i].start && addr < w->t[i].end)
			return &w->t[i];
	const struct map *m = maps_find(w->u->maps, w->pid, addr);
	if (!m || !m->dso || m->kind == MAP_KIND_ANON || m->kind == MAP_KIND_OTHER) {
		w->why = UNWIND_UNMAPPED;
		return NULL;
	}
	struct image *img = image_get(w->u, m->dso);
	uint64_t bias;
	if (!img || !image_bias(img, m->start, m->pgoff, &bias)) {
		w->why = UNWIND_NO_INFO;
		w->why_dso = dso_name(m->dso);
		return NULL;
	}
	struct touched *t;
	if (w->nt < UNWIND_TOUCHED) {
		t = &w->t[w->nt++];
	} else {
		t = &w->t[w->next_t];
		w->next_t = (w->next_t + 1) % UNWIND_TOUCHED;
	}
	*t = (struct touched){ img, bias, m->start, m->end };
	return t;
}

uint32_t walk_cursor_regs(unw_cursor_t *c, uint64_t regs[17])
{
	uint32_t have = 0;
	for (int r = 0; r <= UNW_X86_64_RIP; r++) {
		unw_word_t v;
		if (unw_get_reg(c, r, &v) == 0) {
			regs[r] = v;
			have |= 1u << r;
		}
	}
	return have;
}

bool walk_mapped(struct walk *w, uint64_t addr)
{
	for (int i = 0; i < w->nt; i++)
		if (addr >= w->t[i].start && addr < w->t[i].end)
			return true;
	return maps_find(w->u->maps, w->pid, addr) != NULL;
}

bool walk_in_jit(struct walk *w, uint64_t addr)
{
	const struct map *m = maps_find(w->u->maps, w->pid, addr);
	return m && m->kind == MAP_KIND_ANON;
}

/*
 * CPython's -X perf trampolines (perf map names "py::FUNC:FILE") are `sub $8,%rsp; call *%rcx;
 * add $8,%rsp; ret` in 3.12.1 and `push %rbp; mov %rsp,%rbp; call *%rcx; pop %rbp; ret` in later
 * releases: either way the caller's return address is 8 bytes above the trampoline's SP and its
 * SP 16 above; the second form (found by RBP == SP at the call's return) saved RBP below it.
 */
int walk_jit_step(struct walk *w, uint64_t ip, uint64_t sp, uint64_t bp, uint64_t *ra, uint64_t *nbp,
		  uint64_t *cfa)
{
	struct maps_jit_hit h;
	if (!maps_jit_lookup(w->u->maps, w->pid, ip, false, &h) || !h.sym || strncmp(h.sym, "py::", 4))
		return -1;
	if (!walk_read(w, sp + 8, ra, 8))
		return 0;
	*nbp = bp;
	if (bp == sp && !walk_read(w, sp, nbp, 8))
		return 0;
	*cfa = sp + 16;
	w->why = UNWIND_END;
	w->why_dso = NULL;
	return 1;
}

bool walk_read(struct walk *w, uint64_t addr, void *out, size_t n)
{
	if (w->synth && addr >= EH_TABLE_ADDR && addr - EH_TABLE_ADDR < w->synth_len &&
	    w->synth_len - (addr - EH_TABLE_ADDR) >= n) {
		memcpy(out, (const uint8_t *)w->synth + (addr - EH_TABLE_ADDR), n);
		return true;
	}
	if (addr >= w->sp && addr - w->sp < w->stack_len && w->stack_len - (addr - w->sp) >= n) {
		memcpy(out, w->stack + (addr - w->sp), n);
		return true;
	}
	for (int i = 0; i < w->nt; i++)
		if (image_read(w->t[i].img, addr - w->t[i].bias, out, n))
			return true;
	/* Above SP and near it: stack the kernel did not copy. Stacks grow down from far above. */
	if (addr >= w->sp && addr - w->sp < (64u << 20)) {
		w->why = UNWIND_SHORT_STACK;
		return false;
	}
	enum unwind_stop before = w->why;
	struct touched *t = walk_touch(w, addr);
	if (t && image_read(t->img, addr - t->bias, out, n))
		return true;
	if (before == UNWIND_END && w->why == UNWIND_END)
		w->why = UNWIND_UNMAPPED;
	return false;
}
