/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dso_go: a Go binary's .gopclntab as a dso's source of names, source lines and inline frames when
 * the binary has no .symtab (names) or no DWARF (lines): go build -ldflags='-s -w' leaves both out,
 * but the runtime's own function table stays. This file hands the parser (gopclntab.c) the binary as
 * libelf maps it: its bytes, its PT_LOAD segments, .noptrdata (where the runtime's moduledata is),
 * and, in a position-independent binary, the RELATIVE relocations that fill in its pointers.
 */
#include "symbolize/dso_syms.h"

#include <elf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/gopclntab.h"
#include "util/radix.h"
#include "util/util.h"

#define DSO_GO_MAX_RELS (16u << 20)  /* relocations kept; a binary with more is read without them */

struct dso_go {
	struct gopcln *t;
	struct gopcln_seg *segs;
	uint64_t *rel_off, *rel_val;
};

void dso_go_free(struct dso_go *g)
{
	if (!g)
		return;
	gopcln_free(g->t);
	free(g->segs);
	free(g->rel_off);
	free(g->rel_val);
	free(g);
}

const struct gopcln *dso_go_table(const struct dso_go *g)
{
	return g ? g->t : NULL;
}

/* The section named want, or (relro) ".data.rel.ro" + want: a PIE's table is relocated data. */
static bool dso_go_section(Elf *elf, size_t shstrndx, const char *want, GElf_Shdr *out)
{
	static const char relro[] = ".data.rel.ro";
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		const char *name;
		if (!gelf_getshdr(scn, out) || out->sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, out->sh_name)))
			continue;
		if (!strncmp(name, relro, sizeof(relro) - 1) && !strcmp(want, ".gopclntab"))
			name += sizeof(relro) - 1;
		if (!strcmp(name, want))
			return true;
	}
	return false;
}

/* The RELATIVE relocations of a position-independent binary, by offset: a PIE's pointers (the
 * header's code base, moduledata's words, funcdata before 1.18) are zeros in the file. */
static size_t dso_go_rels(Elf *elf, struct dso_go *g)
{
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh) || eh.e_type != ET_DYN)
		return 0;
	unsigned relative = eh.e_machine == EM_AARCH64 ? R_AARCH64_RELATIVE : R_X86_64_RELATIVE;
	struct radix_kv *kv = NULL;
	size_t n = 0, cap = 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		size_t cnt = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < cnt && n < DSO_GO_MAX_RELS; i++) {
			GElf_Rela r;
			if (!gelf_getrela(data, (int)i, &r) || GELF_R_TYPE(r.r_info) != relative)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 1024;
				kv = xrealloc(kv, 2 * cap * sizeof(*kv));  /* the sort's scratch half too */
				g->rel_val = xrealloc(g->rel_val, cap * sizeof(*g->rel_val));
			}
			kv[n] = (struct radix_kv){ .key = r.r_offset, .val = n };
			g->rel_val[n++] = (uint64_t)r.r_addend;
		}
	}
	if (!n) {
		free(kv);
		return 0;
	}
	const struct radix_kv *sorted = radix_sort_kv(kv, kv + n, n);
	uint64_t *val = xmalloc(n * sizeof(*val));
	g->rel_off = xmalloc(n * sizeof(*g->rel_off));
	for (size_t i = 0; i < n; i++) {
		g->rel_off[i] = sorted[i].key;
		val[i] = g->rel_val[sorted[i].val];
	}
	free(g->rel_val);
	g->rel_val = val;
	free(kv);
	return n;
}

struct dso_go *dso_go_open(Elf *elf, const char *name)
{
	size_t shstrndx, fsize = 0, nph = 0;
	GElf_Shdr pcln, sh;
	/* The section first: elf_rawfile reads a file libelf has not mapped whole, only for Go's. */
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0 ||
	    !dso_go_section(elf, shstrndx, ".gopclntab", &pcln) || elf_getphdrnum(elf, &nph) != 0)
		return NULL;
	const char *raw = elf_rawfile(elf, &fsize);
	if (!raw)
		return NULL;
	struct dso_go *g = xcalloc(1, sizeof(*g));
	struct gopcln_image img = { .file = (const uint8_t *)raw, .size = fsize,
				    .pcln_vaddr = pcln.sh_addr, .pcln_off = pcln.sh_offset,
				    .pcln_size = pcln.sh_size };
	g->segs = xcalloc(nph ? nph : 1, sizeof(*g->segs));
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			g->segs[img.nsegs++] = (struct gopcln_seg){ ph.p_vaddr, ph.p_offset, ph.p_filesz };
	}
	img.segs = g->segs;
	if (dso_go_section(elf, shstrndx, ".noptrdata", &sh) || dso_go_section(elf, shstrndx, ".data", &sh)) {
		img.data_vaddr = sh.sh_addr;
		img.data_size = sh.sh_size;
	}
	if (dso_go_section(elf, shstrndx, ".text", &sh))
		img.text_vaddr = sh.sh_addr;
	img.nrels = dso_go_rels(elf, g);
	img.rel_off = g->rel_off;
	img.rel_val = g->rel_val;
	char why[160];
	g->t = gopcln_open(&img, why, sizeof(why));
	if (!g->t) {
		warn_msg("%s: .gopclntab skipped: %s", name, why);
		dso_go_free(g);
		return NULL;
	}
	return g;
}

/* Whether elf has a .symtab (go build without -s): its names are then the binary's own. */
bool dso_go_has_symtab(Elf *elf)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	}
	return false;
}

void dso_go_syms(const struct dso_go *g, struct dso_vec *vec, const char *name)
{
	size_t bad = 0, n = gopcln_count(g->t);
	for (size_t i = 0; i < n; i++) {
		uint64_t entry, end;
		const char *fn;
		if (!gopcln_func(g->t, i, &entry, &end, &fn)) {
			bad++;
			continue;
		}
		/* rank 0: an ELF symbol (.dynsym) at the same address names it */
		dso_vec_push(vec, (struct dso_sym){ .start = entry, .end = end, .name = fn });
	}
	if (bad)
		warn_msg("%s: .gopclntab: %zu of %zu functions skipped (damaged entries)", name, bad, n);
}
