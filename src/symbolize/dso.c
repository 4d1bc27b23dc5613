/*
 * dso: binaries through libdwfl, each opened once, with a sorted array of function symbols of our
 * own.
 *
 * Why our own array: dwfl_module_addrsym scans the whole symbol table on every call, which at
 * thousands of samples a second times thirty frames is far too slow. We walk the table once (lazily,
 * on the first lookup) with dwfl_module_getsym_info, which already merges the separate debug file
 * (found by dwfl_standard_find_debuginfo in /usr/lib/debug/.build-id or by debuglink) and the
 * MiniDebugInfo table, keep the function-like symbols, choose one name per address, give zero-size
 * symbols the room up to the next one, and binary-search that.
 *
 * Names stay pointers into libelf's string tables (valid while the Dwfl lives) and are interned only
 * when a lookup first returns them, so loading libc's ten thousand symbols costs no string copies.
 */
#include "symbolize/dso.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "symbolize/intern.h"
#include "util/util.h"

enum dso_state {
	DSO_NEW,     /* not opened yet */
	DSO_OPEN,
	DSO_BROKEN,  /* cannot be opened or is not what the mapping said; never retried */
};

struct dso_sym {
	uint64_t start, end;  /* ELF virtual addresses, [start, end) */
	const char *name;     /* interned once returned (interned = 1), else libelf's */
	uint8_t interned;
	uint8_t rank;         /* while loading: which of several names at one address wins */
};

struct dso_seg {              /* one PT_LOAD: file bytes [off, off + size) are at vaddr */
	uint64_t off, vaddr, size;
};

struct dso {
	struct dso_set *set;
	struct dso *next_all;
	char *path;
	const char *name;
	const char *err;
	uint8_t build_id[20];
	uint8_t build_id_size;
	uint8_t state;
	bool syms_loaded;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct dso_seg *segs;
	size_t nsegs;
	struct dso_sym *syms;
	uint64_t *starts;     /* syms[i].start, dense: the bisection touches far fewer cache lines */
	size_t nsyms;
	size_t last;          /* index of the last symbol hit: samples come in runs */
};

struct dso_slot {
	char *key;
	struct dso *dso;
};

struct dso_set {
	struct intern *in;
	struct dso_slot *slots;
	size_t nslots, count;
	struct dso *all;
	uint64_t ndsos, opened;
};

static char *dso_debuginfo_path;  /* NULL: libdwfl's default (":.debug:/usr/lib/debug") */

static const Dwfl_Callbacks dso_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &dso_debuginfo_path,
};

/* ---- the key table: several keys (build-id, inode, path) may lead to one dso ---- */

static uint64_t dso_key_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

static struct dso_slot *dso_set_slot(struct dso_set *set, const char *key)
{
	size_t mask = set->nslots - 1;
	size_t i = dso_key_hash(key) & mask;
	while (set->slots[i].key && strcmp(set->slots[i].key, key) != 0)
		i = (i + 1) & mask;
	return &set->slots[i];
}

static void dso_set_put(struct dso_set *set, const char *key, struct dso *d)
{
	struct dso_slot *sl = dso_set_slot(set, key);
	if (sl->key) {
		sl->dso = d;
		return;
	}
	sl->key = xstrdup(key);
	sl->dso = d;
	if (++set->count * 2 <= set->nslots)
		return;
	struct dso_slot *old = set->slots;
	size_t nold = set->nslots;
	set->nslots *= 2;
	set->slots = xcalloc(set->nslots, sizeof(*set->slots));
	for (size_t i = 0; i < nold; i++)
		if (old[i].key)
			*dso_set_slot(set, old[i].key) = old[i];
	free(old);
}

static struct dso *dso_set_find(struct dso_set *set, const char *key)
{
	return dso_set_slot(set, key)->dso;
}

struct dso_set *dso_set_new(struct intern *in)
{
	struct dso_set *set = xcalloc(1, sizeof(*set));
	set->in = in;
	set->nslots = 256;
	set->slots = xcalloc(set->nslots, sizeof(*set->slots));
	return set;
}

static void dso_free(struct dso *d)
{
	if (d->dwfl)
		dwfl_end(d->dwfl);
	free(d->segs);
	free(d->syms);
	free(d->starts);
	free(d->path);
	free(d);
}

void dso_set_free(struct dso_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->nslots; i++)
		free(set->slots[i].key);
	free(set->slots);
	struct dso *d = set->all;
	while (d) {
		struct dso *next = d->next_all;
		dso_free(d);
		d = next;
	}
	free(set);
}

uint64_t dso_set_opened(const struct dso_set *set) { return set->opened; }
uint64_t dso_set_count(const struct dso_set *set) { return set->ndsos; }
const char *dso_name(const struct dso *d) { return d->name; }
const char *dso_path(const struct dso *d) { return d->path; }
const char *dso_error(const struct dso *d) { return d->err; }

/* Paths that name no file we could read: pseudo mappings and anonymous or special memory. */
static bool dso_path_is_file(const char *path)
{
	static const char *const special[] = { "//anon", "/dev/", "/memfd:", "/SYSV", "/anon_hugepage",
					       "/dmabuf", "/proc/" };
	if (path[0] != '/')
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(special); i++)
		if (strncmp(path, special[i], strlen(special[i])) == 0)
			return false;
	size_t n = strlen(path);
	static const char deleted[] = " (deleted)";
	if (n >= sizeof(deleted) - 1 && strcmp(path + n - (sizeof(deleted) - 1), deleted) == 0)
		return false;  /* the name now belongs to another file, or to none */
	return true;
}

static const char *dso_short_name(struct intern *in, const char *path)
{
	if (path[0] != '/' || strncmp(path, "//", 2) == 0)
		return intern_str(in, path);  /* [vdso], [heap], //anon: as they are */
	const char *slash = strrchr(path, '/');
	return intern_str(in, slash[1] ? slash + 1 : path);
}

static void dso_hex(char *buf, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(buf + 2 * i, "%02x", b[i]);
	buf[2 * n] = 0;
}

struct dso *dso_set_get(struct dso_set *set, const char *path, const struct dso_id *id)
{
	char bkey[3 + 2 * 20 + 1] = "", ikey[64] = "";
	uint32_t bsize = id && id->build_id_size ? id->build_id_size : 0;
	if (bsize > 20)
		bsize = 20;
	struct dso *d = NULL;
	if (bsize) {
		memcpy(bkey, "b:", 2);
		dso_hex(bkey + 2, id->build_id, bsize);
		d = dso_set_find(set, bkey);
		if (d)
			return d;
	}
	if (id && id->ino) {
		snprintf(ikey, sizeof(ikey), "i:%x:%x:%llx", id->maj, id->min, (unsigned long long)id->ino);
		d = dso_set_find(set, ikey);
		/* Same inode, other build-id: the inode number was reused by a new file. */
		if (d && bsize && d->build_id_size &&
		    (d->build_id_size != bsize || memcmp(d->build_id, id->build_id, bsize) != 0))
			d = NULL;
		if (d) {
			if (bsize && !d->build_id_size) {
				memcpy(d->build_id, id->build_id, bsize);
				d->build_id_size = (uint8_t)bsize;
				dso_set_put(set, bkey, d);
			}
			return d;
		}
	}
	size_t plen = strlen(path);
	char *pkey = NULL;
	if (!bsize && !(id && id->ino)) {
		pkey = xmalloc(plen + 3);
		memcpy(pkey, "p:", 2);
		memcpy(pkey + 2, path, plen + 1);
		d = dso_set_find(set, pkey);
		if (d) {
			free(pkey);
			return d;
		}
	}

	d = xcalloc(1, sizeof(*d));
	d->set = set;
	d->path = xstrdup(path);
	d->name = dso_short_name(set->in, path);
	d->state = dso_path_is_file(path) ? DSO_NEW : DSO_BROKEN;
	if (bsize) {
		memcpy(d->build_id, id->build_id, bsize);
		d->build_id_size = (uint8_t)bsize;
		dso_set_put(set, bkey, d);
	}
	if (ikey[0])
		dso_set_put(set, ikey, d);
	if (pkey) {
		dso_set_put(set, pkey, d);
		free(pkey);
	}
	d->next_all = set->all;
	set->all = d;
	set->ndsos++;
	return d;
}

/* ---- opening ---- */

static void dso_fail(struct dso *d, const char *why)
{
	d->state = DSO_BROKEN;
	d->err = intern_str(d->set->in, why);
	if (d->dwfl) {
		dwfl_end(d->dwfl);
		d->dwfl = NULL;
		d->mod = NULL;
	}
}

static void dso_open(struct dso *d)
{
	struct stat st;
	/* A FIFO or device under a mapped name must not block us or be read as ELF. */
	if (stat(d->path, &st) != 0) {
		dso_fail(d, strerror(errno));
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		dso_fail(d, "not a regular file");
		return;
	}
	d->dwfl = dwfl_begin(&dso_callbacks);
	if (!d->dwfl) {
		dso_fail(d, dwfl_errmsg(-1));
		return;
	}
	dwfl_report_begin(d->dwfl);
	/* Base 0 relative to p_vaddr: module addresses are the file's own virtual addresses. */
	d->mod = dwfl_report_elf(d->dwfl, d->name, d->path, -1, 0, true);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!d->mod) {
		dso_fail(d, dwfl_errmsg(-1));
		return;
	}
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(d->mod, &bias);
	if (!elf) {
		dso_fail(d, dwfl_errmsg(-1));
		return;
	}
	if (d->build_id_size) {
		const unsigned char *bits;
		GElf_Addr vaddr;
		int n = dwfl_module_build_id(d->mod, &bits, &vaddr);
		/* Some producers pad the MMAP2 build-id; compare what both sides have. */
		size_t cmp = n > 0 && (size_t)n < d->build_id_size ? (size_t)n : d->build_id_size;
		if (n > 0 && memcmp(bits, d->build_id, cmp) != 0) {
			dso_fail(d, "build-id differs from the mapped file's");
			return;
		}
	}
	size_t nph = 0;
	if (elf_getphdrnum(elf, &nph) != 0) {
		dso_fail(d, elf_errmsg(-1));
		return;
	}
	d->segs = xcalloc(nph ? nph : 1, sizeof(*d->segs));
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->segs[d->nsegs++] = (struct dso_seg){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
	if (!d->nsegs) {
		dso_fail(d, "no loadable segments");
		return;
	}
	d->state = DSO_OPEN;
	d->set->opened++;
}

/* ---- the symbol table ---- */

/* Which of several symbols at one address names it: sized over unsized, functions over labels,
 * global over weak over local, then the fewest leading underscores (memcpy over __memcpy). */
static uint8_t dso_sym_rank(const GElf_Sym *sym, const char *name)
{
	unsigned r = 0;
	if (sym->st_size)
		r += 64;
	if (GELF_ST_TYPE(sym->st_info) != STT_NOTYPE)
		r += 32;
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL: r += 16; break;
	case STB_WEAK: r += 8; break;
	default: break;
	}
	unsigned us = 0;
	while (name[us] == '_' && us < 7)
		us++;
	return (uint8_t)(r + (7 - us));
}

static bool dso_sym_in_text(Elf *elf, GElf_Word shndx)
{
	if (!elf || shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
		return false;
	Elf_Scn *scn = elf_getscn(elf, shndx);
	GElf_Shdr sh;
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

static bool dso_sym_wanted(const GElf_Sym *sym, const char *name, GElf_Word shndx, Elf *elf)
{
	if (!name || !name[0] || sym->st_shndx == SHN_UNDEF || (int32_t)shndx == -1)
		return false;
	switch (GELF_ST_TYPE(sym->st_info)) {
	case STT_FUNC:
	case STT_GNU_IFUNC:
		return true;
	case STT_NOTYPE:
		/* Hand-written assembly often labels entry points without a type. Assembler-local labels
		 * and ARM mapping symbols ($a, $x, $d...) are not functions. */
		if (name[0] == '$' || (name[0] == '.' && name[1] == 'L'))
			return false;
		return dso_sym_in_text(elf, shndx);
	default:
		return false;
	}
}

static int dso_sym_cmp(const void *a, const void *b)
{
	const struct dso_sym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;  /* best first within one address */
	/* Then the longer name, as perf chooses (__memmove_avx_unaligned_erms over __memcpy_...), and
	 * the byte order so that the choice never depends on qsort. */
	size_t xl = strlen(x->name), yl = strlen(y->name);
	if (xl != yl)
		return xl > yl ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void dso_load_syms(struct dso *d)
{
	d->syms_loaded = true;
	GElf_Addr main_bias = 0;
	if (!dwfl_module_getelf(d->mod, &main_bias))
		return;
	int n = dwfl_module_getsymtab(d->mod);
	if (n <= 0) {
		if (n < 0)
			d->err = intern_str(d->set->in, dwfl_errmsg(-1));
		return;
	}
	struct dso_sym *v = xmalloc((size_t)n * sizeof(*v));
	size_t cnt = 0;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *selem = NULL;
		Dwarf_Addr sbias;
		const char *name = dwfl_module_getsym_info(d->mod, i, &sym, &addr, &shndx, &selem, &sbias);
		if (!dso_sym_wanted(&sym, name, shndx, selem))
			continue;
		uint64_t start = addr - main_bias;  /* back from module to file addresses */
		v[cnt++] = (struct dso_sym){ .start = start,
					     .end = sym.st_size ? start + sym.st_size : start,
					     .name = name,
					     .rank = dso_sym_rank(&sym, name) };
	}
	qsort(v, cnt, sizeof(*v), dso_sym_cmp);
	size_t out = 0;
	for (size_t i = 0; i < cnt; i++)
		if (out == 0 || v[out - 1].start != v[i].start)
			v[out++] = v[i];
	for (size_t i = 0; i < out; i++) {
		if (v[i].end > v[i].start)
			continue;
		if (i + 1 < out) {
			v[i].end = v[i + 1].start;
		} else {
			/* The last unsized symbol runs to the end of its segment. */
			v[i].end = v[i].start + 1;
			for (size_t s = 0; s < d->nsegs; s++) {
				const struct dso_seg *g = &d->segs[s];
				if (v[i].start >= g->vaddr && v[i].start < g->vaddr + g->size)
					v[i].end = g->vaddr + g->size;
			}
		}
	}
	d->syms = out ? xrealloc(v, out * sizeof(*v)) : (free(v), NULL);
	d->nsyms = out;
	d->starts = xmalloc((out ? out : 1) * sizeof(*d->starts));
	for (size_t i = 0; i < out; i++)
		d->starts[i] = d->syms[i].start;
}

static bool dso_ready(struct dso *d)
{
	if (d->state == DSO_NEW)
		dso_open(d);
	if (d->state != DSO_OPEN)
		return false;
	if (!d->syms_loaded)
		dso_load_syms(d);
	return true;
}

long dso_symbol_count(struct dso *d)
{
	return dso_ready(d) ? (long)d->nsyms : -1;
}

static bool dso_off_to_vaddr(const struct dso *d, uint64_t off, uint64_t *vaddr)
{
	const struct dso_seg *best = NULL;
	for (size_t i = 0; i < d->nsegs; i++) {
		const struct dso_seg *g = &d->segs[i];
		if (off >= g->off && off - g->off < g->size) {
			best = g;
			break;
		}
		/* Past a segment's file bytes but on its last page: keep the nearest one below. */
		if (off >= g->off && (!best || g->off > best->off))
			best = g;
	}
	if (!best)
		return false;
	*vaddr = off - best->off + best->vaddr;
	return true;
}

int dso_lookup(struct dso *d, uint64_t off, struct frame *out, int max)
{
	if (max < 1 || !dso_ready(d) || !d->nsyms)
		return 0;
	uint64_t va;
	if (!dso_off_to_vaddr(d, off, &va))
		return 0;
	size_t idx = d->last;
	const struct dso_sym *s = &d->syms[idx];
	if (!(va >= s->start && va < s->end)) {
		/* Branch-free bisection (a conditional move per step): sampled addresses are as good as
		 * random to the branch predictor, and the mispredictions were most of the cost. */
		const uint64_t *base = d->starts;
		size_t len = d->nsyms;
		while (len > 1) {
			size_t half = len / 2;
			base = base[half] <= va ? base + half : base;
			len -= half;
		}
		if (*base > va)
			return 0;  /* before the first symbol */
		idx = (size_t)(base - d->starts);
		s = &d->syms[idx];
		if (va >= s->end)
			return 0;  /* in padding between sized functions */
		d->last = idx;
	}
	struct dso_sym *w = &d->syms[idx];
	if (!w->interned) {
		w->name = intern_str(d->set->in, w->name);
		w->interned = 1;
	}
	out[0].sym = w->name;
	out[0].sym_start = w->start;
	out[0].srcline = NULL;
	out[0].inlined = false;
	return 1;
}
