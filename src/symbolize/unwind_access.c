/*
 * unwind_access: one walk's view of a sample, and libunwind's remote accessors over it.
 *
 * A walk's memory reads: inside [SP, SP + copied size) from the stack copy; elsewhere from the images
 * the walk already used (their read-only segments, which is where the unwind tables live:
 * .eh_frame_hdr sits in a segment the MMAP records never mention, because only executable mappings
 * are recorded), else from the image of whatever mapping holds the address. Every read is
 * bounds-checked against the copy or the file: a garbage stack ends the walk, never the process.
 * The fast path (unwind_cfi.c) and the .debug_frame rules (unwind_dwarf.c) read through the same
 * functions.
 *
 * Why a walk stopped is noted by the accessors as they fail (no mapping, no table, a read past the
 * stack copy) and reported with the result. Procedure info comes from the image's .eh_frame_hdr
 * table, searched by libunwind, or from the table unwind_ehframe.c built from .eh_frame, which
 * libunwind reads at a reserved address during that one search; for code only .debug_frame
 * describes, find_proc_info stops libunwind (see unwind.c) with that row in the walk. Where no CFI
 * describes the code at all, the walk ends: libunwind is never left to guess frames.
 */
#include "symbolize/unwind_int.h"

#include <stdlib.h>
#include <string.h>

#include "symbolize/dso.h"
#include "symbolize/maps.h"

/* Not in libunwind's public headers, but exported: the search of an .eh_frame_hdr table, given as
 * UNW_INFO_FORMAT_REMOTE_TABLE and read through our access_mem. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip, unw_dyn_info_t *di,
					      unw_proc_info_t *pi, int need_unwind_info, void *arg);

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
	const char *sym = NULL;
	uint64_t start = 0;
	if (!maps_jit_lookup(w->u->maps, w->pid, ip, &sym, &start) || !sym || strncmp(sym, "py::", 4))
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

static int acc_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			      int need_unwind_info, void *arg)
{
	struct walk *w = arg;
	struct touched *t = walk_touch(w, ip);
	if (!t && walk_in_jit(w, ip)) {
		/* stepped by unwind_slow (walk_jit_step), else the end */
		w->jit_stop = true;
		return -UNW_ESTOPUNWIND;
	}
	/* Any error but UNW_ENOINFO makes unw_step return it as it is, with the cursor still on this
	 * frame; UNW_ENOINFO would make libunwind guess the caller from RBP, which in code built
	 * without frame pointers reads whatever the stack holds there: no guesses, the chain ends. */
	if (!t)
		return -UNW_ESTOPUNWIND;
	int r = -UNW_ENOINFO;
	unw_dyn_info_t di;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = t->start;
	di.end_ip = t->end;
	uint64_t count;
	const int32_t *built;
	if (t->img->ok) {
		di.u.rti.segbase = t->img->hdr_vaddr + t->bias;
		di.u.rti.table_data = t->img->table_vaddr + t->bias;
		/* In words: each entry is two int32s, one unw_word_t. */
		di.u.rti.table_len = t->img->fde_count * 8 / sizeof(unw_word_t);
		r = UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
	} else if ((built = eh_table(t->img, &count)) != NULL) {
		/* The table built from .eh_frame, read by libunwind at EH_TABLE_ADDR (walk_read). */
		di.u.rti.segbase = t->img->ehf_vaddr + t->bias;
		di.u.rti.table_data = EH_TABLE_ADDR;
		di.u.rti.table_len = count * 8 / sizeof(unw_word_t);
		w->synth = built;
		w->synth_len = count * 8;
		r = UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
		w->synth = NULL;
		w->synth_len = 0;
	}
	if (r == -UNW_ENOINFO) {
		/* No .eh_frame entry for ip: .debug_frame's, if it has one, stepped by unwind_slow. */
		Dwarf_Frame *f = dbg_frame(w->u, t->img, ip - t->bias);
		if (f) {
			free(w->dbg_row);
			w->dbg_row = f;
			return -UNW_ESTOPUNWIND;
		}
	}
	if (r < 0 && w->why == UNWIND_END) {
		w->why = UNWIND_NO_INFO;
		w->why_dso = dso_name(t->img->dso);
	}
	return r == -UNW_ENOINFO ? -UNW_ESTOPUNWIND : r;
}

static void acc_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	/* libunwind frees the table-format info it allocated itself; we hand out nothing. */
	(void)as;
	(void)pi;
	(void)arg;
}

static int acc_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	/* No dynamically registered unwind info: JIT code has none we could read. */
	(void)as;
	(void)addr;
	(void)arg;
	return -UNW_ENOINFO;
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

static int acc_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write,
			  void *arg)
{
	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	return walk_read(arg, addr, valp, 8) ? 0 : -UNW_EINVAL;
}

static int acc_access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *valp, int write,
			  void *arg)
{
	struct walk *w = arg;
	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	if (reg < 0 || reg > UNW_X86_64_RIP || !(w->have & (1u << reg)))
		return -UNW_EBADREG;
	*valp = w->regs[reg];
	return 0;
}

static int acc_access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
			    void *arg)
{
	(void)as;
	(void)reg;
	(void)val;
	(void)write;
	(void)arg;
	return -UNW_EINVAL;
}

static int acc_resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as;
	(void)c;
	(void)arg;
	return -UNW_EINVAL;
}

static int acc_get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
			     unw_word_t *offp, void *arg)
{
	/* Names come from the symbolizer, not from libunwind. */
	(void)as;
	(void)addr;
	(void)buf;
	(void)len;
	(void)offp;
	(void)arg;
	return -UNW_EINVAL;
}

unw_accessors_t acc_table(void)
{
	return (unw_accessors_t){
		.find_proc_info = acc_find_proc_info,
		.put_unwind_info = acc_put_unwind_info,
		.get_dyn_info_list_addr = acc_get_dyn_info_list_addr,
		.access_mem = acc_access_mem,
		.access_reg = acc_access_reg,
		.access_fpreg = acc_access_fpreg,
		.resume = acc_resume,
		.get_proc_name = acc_get_proc_name,
	};
}
