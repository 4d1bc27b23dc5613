/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dso_plt: PLT entries named NAME@plt, from what each entry jumps to (x86-64 only), for dso.c's
 * symbol table.
 *
 * Every PLT section (.plt, .plt.sec, .plt.got, .iplt) is decoded the same way, entry by entry: an
 * entry that jumps through a GOT slot (jmp *disp(%rip), after endbr64 and with a bnd prefix or not)
 * is named after what the slot's relocation fills it with: the symbol of a JUMP_SLOT or GLOB_DAT
 * relocation, or for an IRELATIVE one (an ifunc, in static binaries and for a binary's own ifuncs)
 * the function at its addend (the resolver), found in the binary's own symbols. Nothing is assumed
 * of the entries' size, of a PLT0 header or of the relocations' order: GNU ld 2.40 writes 8-byte
 * entries without PLT0 for static links (16-byte ones with IBT), their IRELATIVE relocations in
 * reverse entry order, and libc's own .rela.plt mixes IRELATIVE and JUMP_SLOT relocations in
 * another order than its entries. Entries that jump nowhere named (PLT0, the lazy entries of an
 * IBT .plt) get no name. */
#include "symbolize/dso_syms.h"

#include <gelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/intern.h"
#include "util/util.h"

/* A GOT slot a PLT entry may jump through, and the relocation that fills it. */
struct dso_plt_slot {
	uint64_t got;         /* r_offset: the slot's address */
	uint64_t addend;
	uint32_t type, sym;
	uint32_t symtab;      /* section index of the relocation section's symbol table (sh_link) */
};

/* Relocations kept at most (a hostile file may claim millions; real binaries have thousands). */
#define DSO_MAX_PLT_SLOTS (1u << 20)

static int dso_plt_slot_cmp(const void *a, const void *b)
{
	const struct dso_plt_slot *x = a, *y = b;
	return x->got < y->got ? -1 : x->got > y->got;
}

/* The JUMP_SLOT and GLOB_DAT relocations that carry a symbol and the IRELATIVE ones, of every
 * loaded RELA section (.rela.plt, .rela.dyn, .rela.iplt), sorted by slot address. */
static size_t dso_plt_slots(Elf *elf, struct dso_plt_slot **out)
{
	struct dso_plt_slot *v = NULL;
	size_t n = 0, cap = 0;
	size_t resz = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && resz; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !(sh.sh_flags & SHF_ALLOC))
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t nrel = data ? data->d_size / resz : 0;
		for (size_t i = 0; i < nrel && i <= INT_MAX; i++) {
			GElf_Rela r;
			if (!gelf_getrela(data, (int)i, &r))
				break;
			uint32_t type = (uint32_t)GELF_R_TYPE(r.r_info), sym = (uint32_t)GELF_R_SYM(r.r_info);
			if (!(type == R_X86_64_IRELATIVE ||
			      ((type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT) && sym)))
				continue;
			if (n == DSO_MAX_PLT_SLOTS)
				break;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				v = xrealloc(v, cap * sizeof(*v));
			}
			v[n++] = (struct dso_plt_slot){ .got = r.r_offset, .addend = (uint64_t)r.r_addend,
							.type = type, .sym = sym, .symtab = sh.sh_link };
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), dso_plt_slot_cmp);
	*out = v;
	return n;
}

static const struct dso_plt_slot *dso_plt_slot_at(const struct dso_plt_slot *v, size_t n,
						  uint64_t got)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].got < got)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].got == got ? &v[lo] : NULL;
}

/* The name of symbol idx of the symbol table in section symtab. */
static const char *dso_reloc_sym_name(Elf *elf, uint32_t symtab, uint32_t idx)
{
	Elf_Scn *scn = elf_getscn(elf, symtab);
	GElf_Shdr sh;
	if (!idx || !scn || !gelf_getshdr(scn, &sh) ||
	    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
		return NULL;
	Elf_Data *syms = elf_getdata(scn, NULL);
	size_t esz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	GElf_Sym sym;
	if (!syms || !esz || idx >= syms->d_size / esz || idx > INT_MAX ||
	    !gelf_getsym(syms, (int)idx, &sym))
		return NULL;
	const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
	return name && name[0] ? name : NULL;
}

/* Leading underscores of a name (at most 7, as dso_sym_rank counts them). */
static unsigned dso_underscores(const char *name)
{
	unsigned n = 0;
	while (name[n] == '_' && n < 7)
		n++;
	return n;
}

/* Whether x names an ifunc's PLT entry better than y: an STT_GNU_IFUNC symbol before the resolver's
 * own name (sin over __sin_ifunc), then the name the program was most likely written with: fewer
 * leading underscores (sin over __sin, memcpy over __new_memcpy), global over weak (strchr over
 * index, memcmp over bcmp), the shorter (sin over its weak aliases sinf64 and sinf32x). */
static bool dso_ifunc_better(const struct dso_sym *x, const struct dso_sym *y)
{
	if (x->ifunc != y->ifunc)
		return x->ifunc > y->ifunc;
	unsigned ux = dso_underscores(x->name), uy = dso_underscores(y->name);
	if (ux != uy)
		return ux < uy;
	if (x->rank != y->rank)
		return x->rank > y->rank;
	size_t lx = strlen(x->name), ly = strlen(y->name);
	if (lx != ly)
		return lx < ly;
	return strcmp(x->name, y->name) < 0;
}

/* The ifuncs IRELATIVE slots resolve, named at their resolvers' addresses (the addends): for each
 * distinct addend, the best of the symbols read so far (the binary's own, merged with its debug
 * files') that start there, by index into the symbol vector (which grows as entries are named). */
struct dso_plt_names {
	const struct dso_vec *vec;
	uint64_t *addends;     /* sorted, distinct */
	size_t *best;          /* index into vec->v, or SIZE_MAX */
	size_t n;
};

static int dso_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static size_t dso_addend_index(const struct dso_plt_names *pn, uint64_t addr)
{
	return dso_u64_find(pn->addends, pn->n, addr);
}

/* One pass over the nread symbols read, each looked up among the few addends. */
static void dso_plt_names_init(struct dso_plt_names *pn, const struct dso_vec *vec, size_t nread,
			       const struct dso_plt_slot *slots, size_t nslots)
{
	*pn = (struct dso_plt_names){ .vec = vec };
	for (size_t i = 0; i < nslots; i++)
		if (slots[i].type == R_X86_64_IRELATIVE)
			pn->n++;
	if (!pn->n || !nread)
		return;
	pn->addends = xmalloc(pn->n * sizeof(*pn->addends));
	size_t n = 0;
	for (size_t i = 0; i < nslots; i++)
		if (slots[i].type == R_X86_64_IRELATIVE)
			pn->addends[n++] = slots[i].addend;
	qsort(pn->addends, n, sizeof(*pn->addends), dso_u64_cmp);
	pn->n = 0;
	for (size_t i = 0; i < n; i++)
		if (!pn->n || pn->addends[pn->n - 1] != pn->addends[i])
			pn->addends[pn->n++] = pn->addends[i];
	pn->best = xmalloc(pn->n * sizeof(*pn->best));
	for (size_t k = 0; k < pn->n; k++)
		pn->best[k] = SIZE_MAX;
	for (size_t i = 0; i < nread; i++) {
		size_t k = dso_addend_index(pn, vec->v[i].start);
		if (k != SIZE_MAX && (pn->best[k] == SIZE_MAX ||
				      dso_ifunc_better(&vec->v[i], &vec->v[pn->best[k]])))
			pn->best[k] = i;
	}
}

/* The ifunc an IRELATIVE slot of this addend resolves, or NULL. */
static const char *dso_plt_ifunc_name(const struct dso_plt_names *pn, uint64_t addend)
{
	size_t k = pn->best ? dso_addend_index(pn, addend) : SIZE_MAX;
	return k != SIZE_MAX && pn->best[k] != SIZE_MAX ? pn->vec->v[pn->best[k]].name : NULL;
}

static void dso_push_plt(struct intern *in, struct dso_vec *vec, uint64_t start, uint64_t size,
			 const char *name)
{
	static const char suffix[] = "@plt";
	/* The function's name without a symbol version (a debug file's logf@@GLIBC_2.27): NAME@plt. */
	size_t len = strcspn(name, "@");
	if (!len)
		len = strlen(name);
	char small[256];
	char *buf = len + sizeof(suffix) <= sizeof(small) ? small : xmalloc(len + sizeof(suffix));
	memcpy(buf, name, len);
	memcpy(buf + len, suffix, sizeof(suffix));
	/* Interned now: there is no string table to point into. A few hundred names per library. */
	const char *n = intern_strn(in, buf, len + sizeof(suffix) - 1);
	if (buf != small)
		free(buf);
	/* Ranked as a sized global function: a real symbol at the same address is not expected. */
	dso_vec_push(vec, (struct dso_sym){ .start = start, .end = start + size, .name = n,
					    .interned = 1, .rank = 64 + 32 + 16 + 7 });
}

/* The instructions PLT entries are made of. */
enum dso_plt_insn {
	PLT_ENDBR,     /* endbr64 */
	PLT_JMP_GOT,   /* [bnd] jmp *disp32(%rip): through a GOT slot */
	PLT_PUSH_GOT,  /* push disp32(%rip): PLT0 */
	PLT_PUSH_IMM,  /* push $n: a lazy entry's relocation index */
	PLT_JMP_REL,   /* [bnd] jmp rel32: a lazy entry's jump to PLT0 */
	PLT_PAD,       /* nop of any length, int3 */
};

/* Decodes the instruction at p (n bytes left): its length, or 0 when it is none of the above. */
static size_t dso_plt_insn(const uint8_t *p, size_t n, enum dso_plt_insn *kind, int32_t *disp)
{
	if (n >= 4 && p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa) {
		*kind = PLT_ENDBR;
		return 4;
	}
	size_t bnd = n >= 1 && p[0] == 0xf2;
	if (n >= bnd + 6 && p[bnd] == 0xff && (p[bnd + 1] == 0x25 || (!bnd && p[1] == 0x35))) {
		*kind = p[bnd + 1] == 0x25 ? PLT_JMP_GOT : PLT_PUSH_GOT;
		memcpy(disp, p + bnd + 2, sizeof(*disp));
		return bnd + 6;
	}
	if (n >= bnd + 5 && p[bnd] == 0xe9) {
		*kind = PLT_JMP_REL;
		return bnd + 5;
	}
	if (bnd)
		return 0;
	if (n >= 5 && p[0] == 0x68) {
		*kind = PLT_PUSH_IMM;
		return 5;
	}
	*kind = PLT_PAD;
	if (p[0] == 0x90 || p[0] == 0xcc)
		return 1;
	/* The multi-byte nops: 66 90, and [66...] [2e] 0f 1f /0 with any addressing form. */
	size_t i = 0;
	while (i < n && i < 8 && p[i] == 0x66)
		i++;
	if (i && i < n && p[i] == 0x90)
		return i + 1;
	if (i < n && p[i] == 0x2e)
		i++;
	if (i + 3 > n || p[i] != 0x0f || p[i + 1] != 0x1f)
		return 0;
	unsigned modrm = p[i + 2], mod = modrm >> 6, rm = modrm & 7;
	size_t dlen = mod == 1 ? 1 : mod == 2 || (mod == 0 && rm == 5) ? 4 : 0;
	size_t len = i + 3 + (mod != 3 && rm == 4) + dlen;
	return len <= n ? len : 0;
}

/* Names the entry [start, end) of a PLT section after the slot it jumps through, if that slot's
 * relocation names something. */
static void dso_plt_entry(struct intern *in, Elf *elf, struct dso_vec *vec,
			  const struct dso_plt_names *pn, const struct dso_plt_slot *slots, size_t nslots,
			  uint64_t start, uint64_t end, uint64_t got)
{
	const struct dso_plt_slot *s = dso_plt_slot_at(slots, nslots, got);
	if (!s || end <= start)
		return;
	const char *name = dso_reloc_sym_name(elf, s->symtab, s->sym);
	if (!name && s->type == R_X86_64_IRELATIVE)
		name = dso_plt_ifunc_name(pn, s->addend);
	if (name)
		dso_push_plt(in, vec, start, end - start, name);
}

/* One PLT section, decoded linearly. An entry begins at an endbr64, at PLT0's push, at a jmp
 * through the GOT that neither endbr64 nor that push precedes, or at a push $n that is not the
 * second instruction of a lazy entry (jmp *slot; push $n; jmp PLT0); it ends where the next
 * begins. A byte that is no PLT instruction ends the entry, and decoding resumes at the next
 * 8-byte boundary. */
static void dso_plt_section(struct intern *in, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			    struct dso_vec *vec, const struct dso_plt_names *pn,
			    const struct dso_plt_slot *slots, size_t nslots)
{
	Elf_Data *code = elf_getdata(scn, NULL);
	if (!code || !code->d_buf)
		return;
	const uint8_t *bytes = code->d_buf;
	size_t size = code->d_size < sh->sh_size ? code->d_size : sh->sh_size;
	bool open = false, has_got = false;
	uint64_t start = 0, got = 0;
	enum dso_plt_insn prev = PLT_PAD;
	for (size_t off = 0; off < size;) {
		enum dso_plt_insn k;
		int32_t disp = 0;
		size_t len = dso_plt_insn(bytes + off, size - off, &k, &disp);
		uint64_t addr = sh->sh_addr + off;
		bool head = len && (k == PLT_ENDBR || k == PLT_PUSH_GOT ||
				    (k == PLT_JMP_GOT && prev != PLT_ENDBR && prev != PLT_PUSH_GOT) ||
				    (k == PLT_PUSH_IMM && prev != PLT_JMP_GOT && prev != PLT_ENDBR));
		if ((!len || head) && open && has_got)
			dso_plt_entry(in, elf, vec, pn, slots, nslots, start, addr, got);
		if (!len) {
			open = false;
			prev = PLT_PAD;
			off = (off + 8) & ~(size_t)7;
			continue;
		}
		if (head) {
			open = true;
			has_got = false;
			start = addr;
		}
		if (k == PLT_JMP_GOT && open && !has_got) {
			has_got = true;
			got = addr + len + (uint64_t)(int64_t)disp;
		}
		prev = k;
		off += len;
	}
	if (open && has_got)
		dso_plt_entry(in, elf, vec, pn, slots, nslots, start, sh->sh_addr + size, got);
}

void dso_synth_plt(struct intern *in, Elf *elf, struct dso_vec *vec, size_t nread)
{
	GElf_Ehdr eh;
	size_t shstrndx;
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	struct dso_plt_slot *slots;
	size_t nslots = dso_plt_slots(elf, &slots);
	struct dso_plt_names pn;
	dso_plt_names_init(&pn, vec, nread, slots, nslots);
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && nslots; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && (strcmp(name, ".plt") == 0 || strncmp(name, ".plt.", 5) == 0 ||
			     strcmp(name, ".iplt") == 0))
			dso_plt_section(in, elf, scn, &sh, vec, &pn, slots, nslots);
	}
	free(pn.addends);
	free(pn.best);
	free(slots);
}

