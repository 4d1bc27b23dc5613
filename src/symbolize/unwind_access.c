/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind_access: libunwind's remote accessors over one walk (its reads are unwind_walk.c's).
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
