/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dso_syms: a binary's function symbols while dso.c loads them, shared with the PLT's decoder
 * (dso_plt.c), which adds NAME@plt entries to the same vector, and with dso_go.c, which adds a Go
 * binary's functions from its .gopclntab when it has no .symtab. Internal to symbolize/.
 */
#ifndef PERFTOP_DSO_SYMS_H
#define PERFTOP_DSO_SYMS_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

struct intern;

struct dso_sym {
	uint64_t start, end;  /* ELF virtual addresses, [start, end) */
	const char *name;     /* interned once returned (interned = 1), else libelf's */
	uint8_t interned;
	uint8_t rank;         /* while loading: which of several names at one address wins */
	uint8_t unsized;      /* while loading: end is only the limit (its section's end) */
	uint8_t ifunc;        /* while loading: STT_GNU_IFUNC (names an IRELATIVE PLT entry first) */
};

struct dso_vec {
	struct dso_sym *v;
	size_t n, cap;
};

static inline void dso_vec_push(struct dso_vec *vec, struct dso_sym s)
{
	if (vec->n == vec->cap) {
		vec->cap = vec->cap ? vec->cap * 2 : 64;
		vec->v = xrealloc(vec->v, vec->cap * sizeof(*vec->v));
	}
	vec->v[vec->n++] = s;
}

/* The index of key in the sorted v[0..n), or SIZE_MAX: a bisection over a dense array. */
static inline size_t dso_u64_find(const uint64_t *v, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == key ? lo : SIZE_MAX;
}

/* Adds to vec the PLT entries of elf (x86-64) as NAME@plt, named from the relocations of the GOT
 * slots they jump through; the first nread entries are the binary's own symbols (an IRELATIVE
 * entry is named after the function at its addend). Names are interned in in. */
void dso_synth_plt(struct intern *in, Elf *elf, struct dso_vec *vec, size_t nread);

/* A Go binary's function table (.gopclntab), or NULL when elf has none or it cannot be used (then a
 * one-line warning names the binary, name, and what was wrong). Reads elf's mapped bytes: freed
 * before elf is. */
struct dso_go;
struct gopcln;
struct dso_go *dso_go_open(Elf *elf, const char *name);
void dso_go_free(struct dso_go *g);
const struct gopcln *dso_go_table(const struct dso_go *g);
/* Adds its functions to vec, ranked below any ELF symbol at the same address. */
bool dso_go_has_symtab(Elf *elf);
void dso_go_syms(const struct dso_go *g, struct dso_vec *vec, const char *name);

#endif
