/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind: the unwinder (unwind.h): a sample's registers and stack copy walked by the fast path over
 * cached CFI rows, else by libunwind in remote mode; libunwind's address spaces, one per process.
 *
 * DESIGN
 * - Images (unwind_image.c): each binary a walk touches, mapped read-only once per dso, its
 *   PT_LOADs and .eh_frame_hdr read (or its .eh_frame section found, and a search table built from
 *   it by unwind_ehframe.c); a bounded number mapped at a time.
 * - No guesses: where no CFI describes an address libunwind is stopped (it would guess the caller
 *   from RBP), and a return address in no mapping ends the chain rather than being a frame.
 * - One walk's reads and libunwind's accessors (unwind_access.c): the stack copy, else the images;
 *   the accessors note why a walk stopped as they fail, and it is reported with the result.
 * - The fast path (unwind_cfi.c) goes first: each address's CFI row computed once and cached in a
 *   compact form, a frame a hash probe and two loads from the stack copy. A sample it cannot walk
 *   goes whole to libunwind (the slow path, here). PERFTOP_UNWIND=libunwind turns it off;
 *   PERFTOP_UNWIND=check walks every sample both ways, keeps libunwind's chain and counts the
 *   differences (printed on stderr at the end).
 * - libunwind caches what it parsed per address space, by IP. Addresses mean different code in
 *   different processes, so there is one address space per process (a bounded set, the least
 *   recently used one recycled) and an exec drops its process's space.
 * - .debug_frame (unwind_dwarf.c): code that .eh_frame does not cover is unwound from the
 *   .debug_frame of the binary or of its separate debug file. libunwind has no remote .debug_frame
 *   lookup, so when it reaches such a frame our find_proc_info stops it, dbg_resume steps that frame
 *   from the registers libunwind had, and libunwind starts again from the caller.
 */
#include "symbolize/unwind_int.h"

#include <inttypes.h>
#include <linux/perf_event.h>
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "record/record.h"
#include "symbolize/dso.h"
#include "util/util.h"

/* perf's x86-64 register numbers (arch/x86/include/uapi/asm/perf_regs.h) */
enum {
	PREG_AX, PREG_BX, PREG_CX, PREG_DX, PREG_SI, PREG_DI, PREG_BP, PREG_SP, PREG_IP,
	PREG_R8 = 16,
	PREG_NR = 24,
};

struct unwind *unwind_new(struct maps *maps)
{
	struct unwind *u = xcalloc(1, sizeof(*u));
	u->maps = maps;
	u->acc = acc_table();
	const char *mode = getenv("PERFTOP_UNWIND");
	u->fast_off = mode && !strcmp(mode, "libunwind");
	u->check = mode && !strcmp(mode, "check");
	return u;
}

void unwind_free(struct unwind *u)
{
	if (!u)
		return;
	for (int i = 0; i < UNWIND_SPACES; i++)
		if (u->spaces[i].used)
			unw_destroy_addr_space(u->spaces[i].as);
	image_free_all(u);
	fast_free(&u->fast);
	if (u->check)
		fprintf(stderr, "unwind check: %" PRIu64 " samples by both paths, %" PRIu64 " differ; %" PRIu64
			" left to libunwind; %" PRIu64 " frames stepped through .debug_frame around it\n",
			u->checked, u->mismatched, u->fast.fallbacks, u->dbg_steps);
	free(u);
}

void unwind_forget_dso(struct unwind *u, const struct dso *d)
{
	if (!u || !image_drop(u, d))
		return;
	/* The fast path's rows are keyed on image pointers, which may come back for another file. */
	fast_clear(&u->fast);
}

void unwind_forget(struct unwind *u, uint32_t pid)
{
	for (int i = 0; u && i < UNWIND_SPACES; i++) {
		if (u->spaces[i].used && u->spaces[i].pid == pid) {
			unw_destroy_addr_space(u->spaces[i].as);
			u->spaces[i].used = false;
		}
	}
}

/* The libunwind address space of pid, made (or recycled) on demand; NULL when libunwind fails. */
static unw_addr_space_t unwind_space(struct unwind *u, uint32_t pid)
{
	struct space *victim = &u->spaces[0];
	u->clock++;
	for (int i = 0; i < UNWIND_SPACES; i++) {
		struct space *sp = &u->spaces[i];
		if (sp->used && sp->pid == pid) {
			sp->last_use = u->clock;
			return sp->as;
		}
		if (!sp->used || (victim->used && sp->last_use < victim->last_use))
			victim = sp;
	}
	if (victim->used)
		unw_destroy_addr_space(victim->as);
	victim->used = false;
	unw_addr_space_t as = unw_create_addr_space(&u->acc, 0);
	if (!as)
		return NULL;
	unw_set_caching_policy(as, UNW_CACHE_NONE);
	*victim = (struct space){ .pid = pid, .used = true, .last_use = u->clock, .as = as };
	return as;
}

bool unwind_possible(const struct rec *r)
{
	const struct rec_sample *s = &r->u.sample;
	return r->type == REC_SAMPLE && s->regs_user_abi != 0 && s->regs_user_nr > 0 &&
	       s->stack_user_size > 0;
}

/* Fills w's registers from the sample's (perf numbering, in mask bit order). */
static bool walk_regs(struct walk *w, const struct rec *r)
{
	static const int8_t to_unw[PREG_NR] = {
		[PREG_AX] = UNW_X86_64_RAX, [PREG_BX] = UNW_X86_64_RBX, [PREG_CX] = UNW_X86_64_RCX,
		[PREG_DX] = UNW_X86_64_RDX, [PREG_SI] = UNW_X86_64_RSI, [PREG_DI] = UNW_X86_64_RDI,
		[PREG_BP] = UNW_X86_64_RBP, [PREG_SP] = UNW_X86_64_RSP, [PREG_IP] = UNW_X86_64_RIP,
		[9] = -1, [10] = -1, [11] = -1, [12] = -1, [13] = -1, [14] = -1, [15] = -1,
		[PREG_R8] = UNW_X86_64_R8, [17] = UNW_X86_64_R9, [18] = UNW_X86_64_R10,
		[19] = UNW_X86_64_R11, [20] = UNW_X86_64_R12, [21] = UNW_X86_64_R13,
		[22] = UNW_X86_64_R14, [23] = UNW_X86_64_R15,
	};
	const struct rec_sample *s = &r->u.sample;
	if ((uint64_t)s->regs_user_off + (uint64_t)s->regs_user_nr * 8 > r->size ||
	    s->regs_user_off < sizeof(struct rec))
		return false;
	const uint8_t *vals = rec_at(r, s->regs_user_off);
	uint32_t k = 0;
	for (int bit = 0; bit < 64 && k < s->regs_user_nr; bit++) {
		if (!(s->regs_user_mask & (1ull << bit)))
			continue;
		uint64_t v;
		memcpy(&v, vals + 8 * k, 8);
		k++;
		if (bit < PREG_NR && to_unw[bit] >= 0 && (bit == PREG_AX || to_unw[bit] != 0)) {
			w->regs[to_unw[bit]] = v;
			w->have |= 1u << to_unw[bit];
		}
	}
	const uint32_t need = (1u << UNW_X86_64_RIP) | (1u << UNW_X86_64_RSP);
	return (w->have & need) == need;
}

/*
 * libunwind stopped at JIT code (w->jit_stop): a -X perf trampoline is stepped here
 * (walk_jit_step) from the registers libunwind has for it, and libunwind starts again from the
 * caller; other JIT code ends the walk. Returns 1 to go on, 0 at the end (res set when early).
 */
static int jit_resume(struct walk *w, unw_cursor_t *c, unw_addr_space_t as, uint64_t *ips, int *n,
		      uint64_t *prev_ip, uint64_t *prev_sp, struct unwind_result *res)
{
	w->jit_stop = false;
	w->why = UNWIND_END;
	w->why_dso = NULL;
	uint64_t regs[17];
	uint32_t have = walk_cursor_regs(c, regs);
	uint64_t ra = 0, nbp = 0, sp = 0;
	int k = (have & (1u << UNW_X86_64_RBP))
			? walk_jit_step(w, regs[UNW_X86_64_RIP], regs[UNW_X86_64_RSP], regs[UNW_X86_64_RBP],
					&ra, &nbp, &sp)
			: -1;
	if (k <= 0) {
		res->stop = k == 0 ? UNWIND_SHORT_STACK : UNWIND_UNMAPPED;
		return 0;
	}
	if (ra == 0)
		return 0;
	if (ra == *prev_ip && sp == *prev_sp) {
		res->stop = UNWIND_ERROR;
		return 0;
	}
	if (!walk_mapped(w, ra - 1)) {
		res->stop = UNWIND_UNMAPPED;
		return 0;
	}
	*prev_ip = ra;
	*prev_sp = sp;
	ips[(*n)++] = ra - 1;
	memcpy(w->regs, regs, sizeof(w->regs));
	w->have = have;
	w->regs[UNW_X86_64_RSP] = sp;
	w->regs[UNW_X86_64_RBP] = nbp;
	w->regs[UNW_X86_64_RIP] = ra - 1; /* the call instruction's row, as libunwind looks callers up */
	w->why = UNWIND_END;
	w->why_dso = NULL;
	if (unw_init_remote(c, as, w) < 0) {
		res->stop = UNWIND_ERROR;
		return 0;
	}
	return 1;
}

/* The walk by libunwind: what the fast path cannot do. */
static int unwind_slow(struct unwind *u, struct walk *wp, const struct rec *r, uint64_t *ips, int max,
		       struct unwind_result *res)
{
	struct walk w = *wp;
	w.dbg_row = NULL;
	int n = 0;
	ips[n++] = w.regs[UNW_X86_64_RIP];
	unw_addr_space_t as = unwind_space(u, r->pid);
	unw_cursor_t c;
	if (!as || unw_init_remote(&c, as, &w) < 0) {
		res->stop = UNWIND_ERROR;
		return n;
	}
	uint64_t prev_sp = w.sp, prev_ip = ips[0];
	for (;;) {
		if (n >= max) {
			res->stop = UNWIND_TOO_DEEP;
			break;
		}
		w.why = UNWIND_END;
		w.why_dso = NULL;
		int st = unw_step(&c);
		if (st == -UNW_ESTOPUNWIND && w.dbg_row) {
			if (dbg_resume(u, &w, &c, as, ips, &n, &prev_ip, &prev_sp, res))
				continue;
			break;
		}
		if (st == -UNW_ESTOPUNWIND && w.jit_stop) {
			if (jit_resume(&w, &c, as, ips, &n, &prev_ip, &prev_sp, res))
				continue;
			break;
		}
		if (st <= 0) {
			/* 0: libunwind found no caller; a failure says why when an accessor knew. */
			if (st < 0) {
				res->stop = w.why != UNWIND_END ? w.why : UNWIND_ERROR;
				res->dso = w.why_dso;
			}
			break;
		}
		unw_word_t ip = 0, sp = 0;
		if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || unw_get_reg(&c, UNW_REG_SP, &sp) < 0) {
			res->stop = UNWIND_ERROR;
			break;
		}
		if (ip == 0)
			break;
		/* A frame that did not move would repeat forever. */
		if (ip == prev_ip && sp == prev_sp) {
			res->stop = UNWIND_ERROR;
			break;
		}
		prev_ip = ip;
		prev_sp = sp;
		/* The caller is at the call instruction, one byte before where it returns to; a signal
		 * frame's IP is the interrupted instruction itself. */
		uint64_t at = unw_is_signal_frame(&c) > 0 ? ip : ip - 1;
		/* A return address in no mapping (or not even canonical) is no frame: the end. */
		if (!walk_mapped(&w, at)) {
			res->stop = UNWIND_UNMAPPED;
			break;
		}
		ips[n++] = at;
	}
	free(w.dbg_row);
	return n;
}

/* A walk of sample r: its registers and stack copy; ip, when not 0, is the IP (a frame-pointer
 * sample's registers leave it out: unwind_head). False when the registers are not there. */
static bool walk_start(struct unwind *u, const struct rec *r, uint64_t ip, struct walk *w)
{
	u->clock++;
	if (u->mapped > UNWIND_MAPPED)
		image_trim(u);
	*w = (struct walk){ .u = u, .pid = r->pid };
	if (!unwind_possible(r))
		return false;
	if (ip) {
		w->regs[UNW_X86_64_RIP] = ip;
		w->have |= 1u << UNW_X86_64_RIP;
	}
	if (!walk_regs(w, r))
		return false;
	const struct rec_sample *s = &r->u.sample;
	uint64_t len = s->stack_user_size;
	if (s->stack_user_dyn_size && s->stack_user_dyn_size < len)
		len = s->stack_user_dyn_size;
	if (s->stack_user_off < sizeof(struct rec) || (uint64_t)s->stack_user_off + len > r->size)
		len = 0;
	w->sp = w->regs[UNW_X86_64_RSP];
	w->stack = len ? rec_at(r, s->stack_user_off) : NULL;
	w->stack_len = len;
	return true;
}

int unwind_head(struct unwind *u, const struct rec *r, uint64_t ip, uint64_t *ras, int max)
{
	struct walk w;
	if (max > UNWIND_HEAD_MAX)
		max = UNWIND_HEAD_MAX;
	/* x86-64's CFI over a 64-bit process's registers only (not a 32-bit one's) */
	if (!ip || r->u.sample.regs_user_abi != PERF_SAMPLE_REGS_ABI_64 || !walk_start(u, r, ip, &w))
		return 0;
	return fast_head(&w, ras, max);
}

int unwind_sample(struct unwind *u, const struct rec *r, uint64_t *ips, int max,
		  struct unwind_result *res)
{
	*res = (struct unwind_result){ UNWIND_END, NULL };
	if (max <= 0)
		return 0;
	if (max > UNWIND_MAX_FRAMES)
		max = UNWIND_MAX_FRAMES;
	struct walk w;
	if (!walk_start(u, r, 0, &w))
		return 0;
	/* The user IP itself in no mapping (a sample in execve, whose registers are the old image's)
	 * starts no chain: no frame of it, only the reason. */
	if (!walk_mapped(&w, w.regs[UNW_X86_64_RIP])) {
		res->stop = UNWIND_UNMAPPED;
		return 0;
	}

	if (!u->fast_off) {
		int n = fast_walk(&w, ips, max, res);
		if (n >= 0 && !u->check)
			return n;
		if (n < 0) {
			u->fast.fallbacks++;
		} else {
			/* The check: libunwind's walk of the same sample must give the same chain. */
			uint64_t fips[UNWIND_MAX_FRAMES];
			struct unwind_result fres = *res;
			memcpy(fips, ips, (size_t)n * sizeof(*ips));
			struct walk w2 = w;
			w2.nt = w2.next_t = 0;
			int m = unwind_slow(u, &w2, r, ips, max, res);
			u->checked++;
			if (m != n || memcmp(fips, ips, (size_t)n * sizeof(*ips)) != 0 || fres.stop != res->stop)
				u->mismatched++;
			return m;
		}
		*res = (struct unwind_result){ UNWIND_END, NULL };
		w.why = UNWIND_END;
		w.why_dso = NULL;
	}
	return unwind_slow(u, &w, r, ips, max, res);
}

void unwind_release_pages(struct unwind *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->cap; i++) {
		const struct image *img = u->imgs[i];
		if (img && img->data && img->size)
			madvise((void *)img->data, img->size, MADV_DONTNEED);
	}
}

void unwind_release_idle(struct unwind *u)
{
	for (size_t i = 0; u && i < u->cap; i++) {
		struct image *img = u->imgs[i];
		if (img && img->tried && dso_idle(img->dso))
			image_reset(u, img);
	}
}

void unwind_counts(const struct unwind *u, uint64_t *images, uint64_t *no_info)
{
	*images = u ? u->images : 0;
	*no_info = u ? u->no_info : 0;
}
