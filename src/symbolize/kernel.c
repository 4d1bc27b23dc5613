/*
 * kernel: /proc/kallsyms as a sorted array of text symbols.
 *
 * kallsyms has no sizes, so each symbol runs up to the next one; the last symbol of the core kernel
 * or of a module would then swallow whatever follows it, so a run never crosses from one dso to
 * another. The file is large (over 100k text symbols), so names are copied once into one pool and
 * interned only when a lookup first returns them.
 */
#include "symbolize/kernel.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/intern.h"
#include "util/util.h"

/* A symbol that is the last of its dso has no next symbol to end at; give it this much room. */
#define KERNEL_LAST_SYM_SPAN 4096

struct ksym {
	uint64_t start, end;
	union {
		size_t off;        /* into the pool while loading */
		const char *name;  /* afterwards; interned once returned */
	} n;
	const char *dso;           /* interned */
	uint8_t rank;
	uint8_t interned;
};

struct kernel {
	struct intern *in;
	char *path;
	bool loaded;
	const char *kdso;
	char *pool;
	size_t pool_len, pool_cap;
	struct ksym *syms;
	size_t nsyms, cap;
	size_t last;
};

struct kernel *kernel_new(struct intern *in, const char *path)
{
	struct kernel *k = xcalloc(1, sizeof(*k));
	k->in = in;
	k->path = xstrdup(path ? path : "/proc/kallsyms");
	k->kdso = intern_str(in, "[kernel.kallsyms]");
	return k;
}

void kernel_free(struct kernel *k)
{
	if (!k)
		return;
	free(k->pool);
	free(k->syms);
	free(k->path);
	free(k);
}

const char *kernel_dso_name(const struct kernel *k) { return k->kdso; }

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	size_t xl = strlen(x->n.name), yl = strlen(y->n.name);  /* the longer name, as perf */
	if (xl != yl)
		return xl > yl ? -1 : 1;
	return strcmp(x->n.name, y->n.name);
}

/* Global over weak over local, then the fewest leading underscores. */
static uint8_t ksym_rank(char type, const char *name)
{
	unsigned r = type == 'T' ? 32 : type == 'W' ? 16 : 0;
	unsigned us = 0;
	while (name[us] == '_' && us < 7)
		us++;
	return (uint8_t)(r + 7 - us);
}

static void kernel_warn_hidden(void)
{
	char buf[32] = "?";
	if (read_small_file("/proc/sys/kernel/kptr_restrict", buf, sizeof(buf)) > 0)
		buf[strcspn(buf, "\n")] = 0;
	warn_msg("kernel symbols are hidden (kernel.kptr_restrict=%s); kernel rows show addresses", buf);
}

static void kernel_load(struct kernel *k)
{
	k->loaded = true;
	FILE *f = fopen(k->path, "re");
	if (!f) {
		warn_msg("cannot read %s; kernel rows show addresses", k->path);
		return;
	}
	char *line = NULL;
	size_t lcap = 0;
	bool any_line = false, any_addr = false;
	const char *mod_name = NULL;   /* the last module seen: lines come grouped by module */
	char mod_key[80] = "";
	while (getline(&line, &lcap, f) > 0) {
		char *end;
		uint64_t addr = strtoull(line, &end, 16);
		if (end == line || *end != ' ')
			continue;
		any_line = true;
		if (addr)
			any_addr = true;
		char type = end[1];
		if (!type || end[2] != ' ')
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		char *name = end + 3;
		size_t nlen = strcspn(name, "\t\n");
		char *rest = name + nlen;
		const char *dso = k->kdso;
		if (*rest == '\t' && rest[1] == '[') {
			char *mod = rest + 1;
			size_t mlen = strcspn(mod, "\n");
			if (mlen >= sizeof(mod_key))
				mlen = sizeof(mod_key) - 1;
			if (strncmp(mod_key, mod, mlen) != 0 || mod_key[mlen]) {
				memcpy(mod_key, mod, mlen);
				mod_key[mlen] = 0;
				mod_name = intern_str(k->in, mod_key);
			}
			dso = mod_name;
		}
		if (!addr || !nlen)
			continue;
		name[nlen] = 0;
		xgrow((void **)&k->pool, &k->pool_cap, k->pool_len + nlen + 1, 1);
		memcpy(k->pool + k->pool_len, name, nlen + 1);
		xgrow((void **)&k->syms, &k->cap, k->nsyms + 1, sizeof(*k->syms));
		k->syms[k->nsyms++] = (struct ksym){ .start = addr,
						     .n.off = k->pool_len,
						     .dso = dso,
						     .rank = ksym_rank(type, name) };
		k->pool_len += nlen + 1;
	}
	free(line);
	fclose(f);
	if (any_line && !any_addr)
		kernel_warn_hidden();
	/* The pool no longer moves: offsets become pointers. */
	for (size_t i = 0; i < k->nsyms; i++)
		k->syms[i].n.name = k->pool + k->syms[i].n.off;
	if (k->nsyms)
		qsort(k->syms, k->nsyms, sizeof(*k->syms), ksym_cmp);
	size_t out = 0;
	for (size_t i = 0; i < k->nsyms; i++)
		if (out == 0 || k->syms[out - 1].start != k->syms[i].start)
			k->syms[out++] = k->syms[i];
	k->nsyms = out;
	for (size_t i = 0; i < out; i++) {
		struct ksym *s = &k->syms[i];
		if (i + 1 < out && k->syms[i + 1].dso == s->dso)
			s->end = k->syms[i + 1].start;
		else if (i + 1 < out && k->syms[i + 1].start - s->start < KERNEL_LAST_SYM_SPAN)
			s->end = k->syms[i + 1].start;
		else
			s->end = s->start + KERNEL_LAST_SYM_SPAN;
	}
}

long kernel_symbol_count(struct kernel *k)
{
	if (!k->loaded)
		kernel_load(k);
	return (long)k->nsyms;
}

int kernel_lookup(struct kernel *k, uint64_t addr, struct frame *out)
{
	if (!k->loaded)
		kernel_load(k);
	if (!k->nsyms)
		return 0;
	size_t idx = k->last;
	if (!(addr >= k->syms[idx].start && addr < k->syms[idx].end)) {
		size_t lo = 0, hi = k->nsyms;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (k->syms[mid].start <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0 || addr >= k->syms[lo - 1].end)
			return 0;
		idx = lo - 1;
		k->last = idx;
	}
	struct ksym *s = &k->syms[idx];
	if (!s->interned) {
		s->n.name = intern_str(k->in, s->n.name);
		s->interned = 1;
	}
	out->sym = s->n.name;
	out->dso = s->dso;
	out->sym_start = s->start;
	return 1;
}
