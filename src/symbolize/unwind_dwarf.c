/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind_dwarf: .debug_frame, for code that .eh_frame does not cover (a binary built with
 * -fno-asynchronous-unwind-tables, hand-written assembly).
 *
 * The .debug_frame of the binary or of its separate debug file is found by libdwfl
 * (debugcache_find, as the symbolizer does) on the first address of the image that needs it, once
 * per image, and parsed by libdw (dwarf_cfi_addrframe); we evaluate the rules it gives on the walk's
 * registers and memory. libunwind has no remote .debug_frame lookup, so when it reaches such a frame
 * our find_proc_info stops it (UNW_ESTOPUNWIND, which it returns as is rather than guessing a
 * frame-pointer frame), dbg_resume steps that frame itself from the registers libunwind had, and
 * libunwind starts again from the caller. The fast path takes .debug_frame rows too, whenever they
 * have its compact form (dbg_compact).
 */
#include "symbolize/unwind_int.h"

#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/debugcache.h"
#include "symbolize/debuginfo.h"
#include "symbolize/dso.h"

static char *dbg_debuginfo_path;  /* NULL: libdwfl's default */

/* As the symbolizer's dsos: our find_debuginfo (build-id, debuglink, --symfs, debuginfod). */
static const Dwfl_Callbacks dbg_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = debugcache_find,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &dbg_debuginfo_path,
};

static bool dbg_has_section(Elf *elf, const char *name)
{
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) != NULL;) {
		GElf_Shdr sh;
		const char *n;
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    (n = elf_strptr(elf, shstrndx, sh.sh_name)) && !strcmp(n, name))
			return true;
	}
	return false;
}

/* Whether mod's file (elf, already open) or its separate debug file has a .debug_frame.
 * Asked before libdwfl loads the DWARF, which costs tens of ms for a big debug file (libdw inflates
 * its compressed sections when it opens it) and which distributions' binaries do not need: their
 * debug files have no .debug_frame (gcc writes .eh_frame), yet a few addresses of theirs have no
 * .eh_frame entry (ld.so's entry point, some PLT stubs). */
static bool dbg_module_has_frame(Dwfl_Module *mod, Elf *elf, const char *file)
{
	if (dbg_has_section(elf, ".debug_frame"))
		return true;
	GElf_Word crc = 0;
	const char *link = dwelf_elf_gnu_debuglink(elf, &crc);
	void *ud = NULL;
	char *name = NULL;
	int fd = debuginfo_find(mod, &ud, file, 0, file, link, crc, &name);
	free(name);
	if (fd < 0)
		return false;
	Elf *dbg = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	bool has = dbg_has_section(dbg, ".debug_frame");
	elf_end(dbg);
	close(fd);
	return has;
}

/* img's .debug_frame (its own or its separate debug file's), opened on first use; NULL if none. */
static Dwarf_CFI *dbg_cfi(struct unwind *u, struct image *img)
{
	if (img->dbg_tried)
		return img->dbg_cfi;
	img->dbg_tried = true;
	const char *file = dso_file(img->dso);
	if (!file || !(img->dwfl = dwfl_begin(&dbg_callbacks)))
		return NULL;
	dwfl_report_begin(img->dwfl);
	Dwfl_Module *mod = dwfl_report_elf(img->dwfl, dso_name(img->dso), file, -1, 0, true);
	dwfl_report_end(img->dwfl, NULL, NULL);
	GElf_Addr elf_bias = 0;
	Dwarf_Addr cfi_bias = 0;
	Elf *elf = mod ? dwfl_module_getelf(mod, &elf_bias) : NULL;
	if (elf && dbg_module_has_frame(mod, elf, file))
		img->dbg_cfi = dwfl_module_dwarf_cfi(mod, &cfi_bias);
	if (!img->dbg_cfi) {
		dwfl_end(img->dwfl);
		img->dwfl = NULL;
		return NULL;
	}
	/* module address = file virtual address + elf_bias = CFI address + cfi_bias */
	img->dbg_bias = cfi_bias - elf_bias;
	if (!img->ok && u->no_info)
		u->no_info--;  /* it has unwind tables after all */
	return img->dbg_cfi;
}

Dwarf_Frame *dbg_frame(struct unwind *u, struct image *img, uint64_t va)
{
	Dwarf_CFI *cfi = dbg_cfi(u, img);
	Dwarf_Frame *f = NULL;
	if (!cfi || dwarf_cfi_addrframe(cfi, va - img->dbg_bias, &f) != 0)
		return NULL;
	return f;
}

/* ---- .debug_frame rules, evaluated ----
 *
 * libdw gives a row as DWARF expressions (dwarf_frame_cfa: the CFA; dwarf_frame_register: where
 * each register of the caller is, an offset rule being DW_OP_call_frame_cfa, DW_OP_plus_uconst N).
 * libunwind numbers the x86-64 registers as DWARF does, so the walk's registers are indexed by DWARF
 * number as they are. */

_Static_assert(UNW_X86_64_RAX == 0 && UNW_X86_64_RDX == 1 && UNW_X86_64_RBX == 3 &&
	       UNW_X86_64_RBP == DW_RBP && UNW_X86_64_RSP == DW_RSP && UNW_X86_64_R8 == 8 &&
	       UNW_X86_64_R15 == 15 && UNW_X86_64_RIP == DW_RA, "libunwind's x86-64 registers are DWARF's");

#define DW_EVAL_STACK 32
#define DW_EVAL_STEPS 512  /* DW_OP_skip and DW_OP_bra can loop */

/* x a y for DWARF's binary operation a (y the top of the stack); false for what has no value (a
 * division by zero or one that overflows). */
static bool dbg_binop(unsigned a, uint64_t x, uint64_t y, uint64_t *out)
{
	switch (a) {
	case DW_OP_and: x &= y; break;
	case DW_OP_div:
		if (y == 0 || ((int64_t)y == -1 && x == (uint64_t)INT64_MIN))
			return false;
		x = (uint64_t)((int64_t)x / (int64_t)y);
		break;
	case DW_OP_minus: x -= y; break;
	case DW_OP_mod: if (y == 0) return false; x %= y; break;
	case DW_OP_mul: x *= y; break;
	case DW_OP_or: x |= y; break;
	case DW_OP_plus: x += y; break;
	case DW_OP_shl: x = y >= 64 ? 0 : x << y; break;
	case DW_OP_shr: x = y >= 64 ? 0 : x >> y; break;
	case DW_OP_shra: x = (uint64_t)((int64_t)x >> (y >= 64 ? 63 : y)); break;
	case DW_OP_xor: x ^= y; break;
	case DW_OP_eq: x = x == y; break;
	case DW_OP_ge: x = (int64_t)x >= (int64_t)y; break;
	case DW_OP_gt: x = (int64_t)x > (int64_t)y; break;
	case DW_OP_le: x = (int64_t)x <= (int64_t)y; break;
	case DW_OP_lt: x = (int64_t)x < (int64_t)y; break;
	case DW_OP_ne: x = x != y; break;
	default: return false;
	}
	*out = x;
	return true;
}

/* DW_OP_skip or a taken DW_OP_bra at op: *i becomes the index before the target operation (the
 * loop's i++ lands on it), or the last one when the target is past the end. The target is a byte
 * offset in the expression: after this 3-byte operation, plus the signed operand; libdw gives each
 * operation its offset. False for a target in the middle of an operation. */
static bool dbg_jump(const Dwarf_Op *ops, size_t nops, const Dwarf_Op *op, size_t *i)
{
	uint64_t to = op->offset + 3 + op->number;
	size_t j = 0;
	while (j < nops && ops[j].offset != to)
		j++;
	if (j == nops) {
		if (to <= ops[nops - 1].offset)
			return false;
		*i = nops - 1;
		return true;
	}
	*i = j - 1; /* j == 0: wraps to SIZE_MAX, and the loop's i++ to 0 */
	return true;
}

/* Evaluates a DWARF expression of a CFI row on registers regs (have: bit per known register) with
 * cfa the frame's CFA (NULL while the CFA itself is computed). *out: the result; *value: it is the
 * register's value itself (DW_OP_stack_value, or a register rule), not the address that holds it.
 * False for what cannot be evaluated: unknown operations, unknown registers, unreadable memory. */
static bool dbg_eval(struct walk *w, const Dwarf_Op *ops, size_t nops, const uint64_t *regs,
		     uint32_t have, const uint64_t *cfa, uint64_t *out, bool *value)
{
	uint64_t st[DW_EVAL_STACK];
	int sp = 0;
	unsigned steps = 0;
	*value = false;
#define NEED(k) do { if (sp < (k)) return false; } while (0)
#define PUSH(v) do { uint64_t v_ = (v); if (sp == DW_EVAL_STACK) return false; st[sp++] = v_; } while (0)
	for (size_t i = 0; i < nops; i++) {
		if (++steps > DW_EVAL_STEPS)
			return false;
		const Dwarf_Op *op = &ops[i];
		unsigned a = op->atom, r;
		uint64_t x, y;
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			PUSH(a - DW_OP_lit0);
			continue;
		}
		if ((a >= DW_OP_breg0 && a <= DW_OP_breg31) || a == DW_OP_bregx) {
			r = a == DW_OP_bregx ? (unsigned)op->number : a - DW_OP_breg0;
			if (r > DW_RA || !(have & (1u << r)))
				return false;
			PUSH(regs[r] + (a == DW_OP_bregx ? op->number2 : op->number));
			continue;
		}
		if ((a >= DW_OP_reg0 && a <= DW_OP_reg31) || a == DW_OP_regx) {
			/* A register rule: the caller's value is in that register of this frame. */
			r = a == DW_OP_regx ? (unsigned)op->number : a - DW_OP_reg0;
			if (nops != 1 || r > DW_RA || !(have & (1u << r)))
				return false;
			*out = regs[r];
			*value = true;
			return true;
		}
		switch (a) {
		case DW_OP_addr: case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
		case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u:
		case DW_OP_const8s: case DW_OP_constu: case DW_OP_consts:
			PUSH(op->number);  /* libdw sign-extends the signed forms */
			break;
		case DW_OP_call_frame_cfa:
			if (!cfa)
				return false;
			PUSH(*cfa);
			break;
		case DW_OP_dup: NEED(1); PUSH(st[sp - 1]); break;
		case DW_OP_drop: NEED(1); sp--; break;
		case DW_OP_over: NEED(2); PUSH(st[sp - 2]); break;
		case DW_OP_pick:
			if (op->number >= (uint64_t)sp)
				return false;
			PUSH(st[sp - 1 - (int)op->number]);
			break;
		case DW_OP_swap: NEED(2); x = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = x; break;
		case DW_OP_rot:  /* the top becomes the third, the second the top, the third the second */
			NEED(3);
			x = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = st[sp - 3];
			st[sp - 3] = x;
			break;
		case DW_OP_deref:
		case DW_OP_deref_size: {
			NEED(1);
			size_t n = a == DW_OP_deref ? 8 : (size_t)op->number;
			uint64_t v = 0;
			if (n == 0 || n > 8 || !walk_read(w, st[sp - 1], &v, n))
				return false;
			st[sp - 1] = v;  /* little-endian: the n bytes, zero-extended */
			break;
		}
		case DW_OP_abs: NEED(1); if ((int64_t)st[sp - 1] < 0) st[sp - 1] = -st[sp - 1]; break;
		case DW_OP_neg: NEED(1); st[sp - 1] = -st[sp - 1]; break;
		case DW_OP_not: NEED(1); st[sp - 1] = ~st[sp - 1]; break;
		case DW_OP_plus_uconst: NEED(1); st[sp - 1] += op->number; break;
		case DW_OP_and: case DW_OP_div: case DW_OP_minus: case DW_OP_mod: case DW_OP_mul:
		case DW_OP_or: case DW_OP_plus: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
		case DW_OP_xor: case DW_OP_eq: case DW_OP_ge: case DW_OP_gt: case DW_OP_le: case DW_OP_lt:
		case DW_OP_ne:
			NEED(2);
			y = st[--sp];  /* the top */
			if (!dbg_binop(a, st[sp - 1], y, &st[sp - 1]))
				return false;
			break;
		case DW_OP_skip:
		case DW_OP_bra: {
			if (a == DW_OP_bra) {
				NEED(1);
				if (st[--sp] == 0)
					break;
			}
			if (!dbg_jump(ops, nops, op, &i))
				return false;
			break;
		}
		case DW_OP_nop:
			break;
		case DW_OP_stack_value:
			NEED(1);
			*out = st[sp - 1];
			*value = true;
			return true;
		default:
			return false;  /* DW_OP_piece, TLS, calls, typed operations... */
		}
	}
	NEED(1);
	*out = st[sp - 1];
	return true;
#undef NEED
#undef PUSH
}

/* One frame up through .debug_frame row f: the caller's registers from this frame's (regs, have: bit
 * per known register, DWARF numbering). Registers the row leaves undefined or that cannot be read
 * are unknown in the caller; the return address must be known, and says the caller's RIP. The
 * caller's RSP is the CFA unless a rule says otherwise (the x86-64 convention). False when the CFA
 * or the return address cannot be had; *outermost when the return address is undefined (the end).
 */
static bool dbg_step(struct walk *w, Dwarf_Frame *f, const uint64_t *regs, uint32_t have,
		     uint64_t *nregs, uint32_t *nhave, bool *outermost)
{
	Dwarf_Op *ops, mem[3];
	size_t nops;
	uint64_t cfa, v;
	bool is_value;
	*outermost = false;
	*nhave = 0;
	if (dwarf_frame_info(f, NULL, NULL, NULL) != DW_RA)
		return false;
	if (dwarf_frame_cfa(f, &ops, &nops) != 0 || nops == 0 ||
	    !dbg_eval(w, ops, nops, regs, have, NULL, &cfa, &is_value))
		return false;
	bool rsp_rule = false;
	for (unsigned r = 0; r <= DW_RA; r++) {
		if (dwarf_frame_register(f, (int)r, mem, &ops, &nops) != 0)
			return false;
		if (nops == 0) {
			if (r == DW_RA && !ops)
				return false;  /* the same return address again: no frame */
			if (!ops && (have & (1u << r))) {  /* same value */
				nregs[r] = regs[r];
				*nhave |= 1u << r;
			} else if (ops && r == DW_RA) {    /* undefined return address: the outermost frame */
				*outermost = true;
				return true;
			}
			continue;
		}
		if (r == DW_RSP)
			rsp_rule = true;
		if (!dbg_eval(w, ops, nops, regs, have, &cfa, &v, &is_value) ||
		    (!is_value && !walk_read(w, v, &v, 8))) {
			if (r == DW_RA)
				return false;
			continue;  /* a callee-saved register we cannot recover: unknown above */
		}
		nregs[r] = v;
		*nhave |= 1u << r;
	}
	if (!rsp_rule || !(*nhave & (1u << DW_RSP))) {
		nregs[DW_RSP] = cfa;
		*nhave |= 1u << DW_RSP;
	}
	return (*nhave & (1u << DW_RA)) != 0;
}

/* cfa + N, as libdw gives an offset rule: N in *off. */
static bool dbg_offset_rule(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return true;
	}
	if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

static bool dbg_fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

void dbg_compact(Dwarf_Frame *f, struct fast_row *row)
{
	Dwarf_Op *ops, mem[3];
	size_t nops;
	bool signal = false;
	int64_t cfa_off, ra_off = 0, bp_off = 0;
	row->ok = 0;
	if (dwarf_frame_info(f, NULL, NULL, &signal) != DW_RA || signal)
		return;
	/* CFA = register + offset: libdw says DW_OP_bregx REG OFFSET. */
	if (dwarf_frame_cfa(f, &ops, &nops) != 0 || nops != 1)
		return;
	uint64_t cfa_reg;
	if (ops[0].atom == DW_OP_bregx) {
		cfa_reg = ops[0].number;
		cfa_off = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		cfa_reg = ops[0].atom - DW_OP_breg0;
		cfa_off = (int64_t)ops[0].number;
	} else {
		return;
	}
	if (cfa_reg != DW_RSP && cfa_reg != DW_RBP)
		return;
	uint8_t ra_rule, bp_rule;
	if (dwarf_frame_register(f, DW_RA, mem, &ops, &nops) != 0)
		return;
	if (nops == 0 && ops)
		ra_rule = RULE_UNDEF;
	else if (dbg_offset_rule(ops, nops, &ra_off))
		ra_rule = RULE_OFFSET;
	else
		return;
	if (dwarf_frame_register(f, DW_RBP, mem, &ops, &nops) != 0)
		return;
	if (nops == 0 && !ops)
		bp_rule = RULE_SAME;
	else if (dbg_offset_rule(ops, nops, &bp_off))
		bp_rule = RULE_OFFSET;
	else
		return;
	/* The caller's RSP: the CFA (libdw's x86-64 default says so as a value rule) or no rule. */
	if (dwarf_frame_register(f, DW_RSP, mem, &ops, &nops) != 0)
		return;
	if (nops != 0 && !(nops == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
			   ops[1].atom == DW_OP_stack_value))
		return;
	if (!dbg_fits32(cfa_off) || !dbg_fits32(ra_off) || !dbg_fits32(bp_off))
		return;
	row->ok = 1;
	row->cfa_reg = (uint8_t)cfa_reg;
	row->ra_rule = ra_rule;
	row->bp_rule = bp_rule;
	row->cfa_off = (int32_t)cfa_off;
	row->ra_off = (int32_t)ra_off;
	row->bp_off = (int32_t)bp_off;
}

int dbg_resume(struct unwind *u, struct walk *w, unw_cursor_t *c, unw_addr_space_t as, uint64_t *ips,
	       int *n, uint64_t *prev_ip, uint64_t *prev_sp, struct unwind_result *res)
{
	Dwarf_Frame *f = w->dbg_row;
	w->dbg_row = NULL;
	uint64_t regs[17], nregs[17];
	uint32_t have = walk_cursor_regs(c, regs), nhave;
	w->why = UNWIND_END;  /* registers libunwind could not read are just unknown */
	w->why_dso = NULL;
	bool outermost, signal = false;
	dwarf_frame_info(f, NULL, NULL, &signal);
	bool ok = dbg_step(w, f, regs, have, nregs, &nhave, &outermost);
	free(f);
	if (!ok) {
		res->stop = w->why != UNWIND_END ? w->why : UNWIND_ERROR;
		res->dso = w->why_dso;
		return 0;
	}
	u->dbg_steps++;
	uint64_t ip = nregs[UNW_X86_64_RIP], sp = nregs[UNW_X86_64_RSP];
	if (outermost || ip == 0)
		return 0;
	if (ip == *prev_ip && sp == *prev_sp) {
		res->stop = UNWIND_ERROR;
		return 0;
	}
	if (!walk_mapped(w, signal ? ip : ip - 1)) {
		res->stop = UNWIND_UNMAPPED;
		return 0;
	}
	*prev_ip = ip;
	*prev_sp = sp;
	ips[(*n)++] = signal ? ip : ip - 1;
	/* libunwind takes a new walk's first IP as exact; a caller's row is the call instruction's, so
	 * it gets that (as it looks a caller up itself), except for a return into the signal
	 * trampoline, which libunwind recognizes by its address. */
	memcpy(w->regs, nregs, sizeof(w->regs));
	w->have = nhave;
	if (!signal) {
		struct touched *t = walk_touch(w, ip);
		if (!t || !image_sigreturn(t->img, ip - t->bias))
			w->regs[UNW_X86_64_RIP] = ip - 1;
		w->why = UNWIND_END;
		w->why_dso = NULL;
	}
	if (unw_init_remote(c, as, w) < 0) {
		res->stop = UNWIND_ERROR;
		return 0;
	}
	return 1;
}
