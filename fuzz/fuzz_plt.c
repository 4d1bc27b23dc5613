/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_plt: the PLT decoder (src/symbolize/dso_plt.c, dso_synth_plt) on an ELF file in memory, as
 * libelf hands it over (elf_memory): the relocations of its GOT slots, its PLT sections decoded
 * entry by entry, the entries named after their slots' symbols or, for IRELATIVE ones, after the
 * function symbols read first (as dso.c reads them). Every entry added must be NAME@plt with a
 * range that does not wrap; the rest is ASan's and UBSan's. libelf's own reading is libelf's.
 */
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/dso_syms.h"
#include "symbolize/intern.h"

static void must(int cond)
{
	if (!cond)
		abort();
}

/* The function symbols of every symbol table, as dso.c takes them before the PLT's (at most 4096). */
static void read_syms(Elf *elf, struct dso_vec *vec)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t esz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
		size_t n = d && esz ? d->d_size / esz : 0;
		for (size_t i = 1; i < n && vec->n < 4096; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s))
				break;
			int type = GELF_ST_TYPE(s.st_info);
			const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !name || !name[0])
				continue;
			dso_vec_push(vec, (struct dso_sym){ .start = s.st_value, .end = s.st_value + s.st_size,
							    .name = name, .ifunc = type == STT_GNU_IFUNC,
							    .rank = (uint8_t)(GELF_ST_BIND(s.st_info) * 8) });
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	if (!ready) {
		elf_version(EV_CURRENT);
		ready = true;
	}
	struct intern *in = intern_new();
	char *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	Elf *elf = elf_memory(copy, size);
	if (elf) {
		struct dso_vec vec = { 0 };
		read_syms(elf, &vec);
		size_t nread = vec.n;
		dso_synth_plt(in, elf, &vec, nread);
		for (size_t i = nread; i < vec.n; i++) {
			const struct dso_sym *s = &vec.v[i];
			size_t len = strlen(s->name);
			must(s->interned && len >= 4 && !strcmp(s->name + len - 4, "@plt"));
			must(s->end > s->start);
		}
		free(vec.v);
		elf_end(elf);
	}
	free(copy);
	intern_free(in);
	return 0;
}
