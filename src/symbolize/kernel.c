/*
 * kernel: /proc/kallsyms as a sorted array of text symbols.
 *
 * kallsyms has no sizes, so each symbol runs up to the next one; the last symbol of the core kernel
 * or of a module would then swallow whatever follows it, so a run never crosses from one dso to
 * another. The file is large (over 100k text symbols), so names are copied once into one pool and
 * interned only when a lookup first returns them.
 *
 * Reading /proc/kallsyms costs the kernel about 70 ms (it formats every symbol, text or not), which
 * is most of the time to the first frame and of a short replay. So the parsed table is cached in
 * ~/.cache/perftop/kallsyms (0600: kernel addresses are not for everyone's eyes), valid for the boot
 * it was read in and the set of loaded modules (boot_id and a hash of /proc/modules); any mismatch
 * or damage and the table is read from /proc/kallsyms again. BPF programs' symbols may be stale in
 * the cache; they are rare in profiles and perf names them from KSYMBOL records anyway.
 */
#include "symbolize/kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	uint32_t seq;              /* line order in kallsyms, while loading */
	uint8_t interned;
};

struct kernel {
	struct intern *in;
	char *path;
	bool loaded;
	bool from_cache;
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
	/* Of several names at one address perf ends up with the one listed last (the others get a
	 * size of zero when it closes each symbol at the next one's start): sort that one first. */
	if (x->seq != y->seq)
		return x->seq > y->seq ? -1 : 1;
	return 0;
}

static void kernel_warn_hidden(void)
{
	char buf[32] = "?";
	if (read_small_file("/proc/sys/kernel/kptr_restrict", buf, sizeof(buf)) > 0)
		buf[strcspn(buf, "\n")] = 0;
	warn_msg("kernel symbols are hidden (kernel.kptr_restrict=%s); kernel rows show addresses", buf);
}

#define KCACHE_MAGIC "PTKSYM02"
#define KCACHE_MAX_BYTES (256u << 20)
#define KCACHE_MAX_DSOS 4096

struct kcache_header {
	char magic[8];
	char boot_id[40];
	uint64_t modules_hash;
	uint64_t nsyms;
	uint64_t pool_len;
	uint64_t dso_names_len;     /* NUL-separated names; index = order */
};

struct kcache_entry {
	uint64_t start, end;
	uint32_t name_off;
	uint16_t dso_idx;
	uint8_t reserved;
	uint8_t pad;
};

static uint64_t fnv1a(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

/* What the cache must match: this boot and these modules. */
static bool kcache_key(char boot_id[40], uint64_t *modules_hash)
{
	memset(boot_id, 0, 40);
	if (read_small_file("/proc/sys/kernel/random/boot_id", boot_id, 40) <= 0)
		return false;
	size_t cap = 1u << 20;
	char *buf = xmalloc(cap);
	long n = read_small_file("/proc/modules", buf, cap);
	*modules_hash = n >= 0 ? fnv1a(buf, (size_t)n) : 0;
	free(buf);
	return true;
}

static char *kcache_dir(void)
{
	const char *d = getenv("PERFTOP_CACHE_DIR");
	if (d && *d)
		return xstrdup(d);
	char buf[4096];
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	if (xdg && *xdg)
		snprintf(buf, sizeof(buf), "%s/perftop", xdg);
	else if (home && *home)
		snprintf(buf, sizeof(buf), "%s/.cache/perftop", home);
	else
		return NULL;
	return xstrdup(buf);
}

static bool kcache_load(struct kernel *k)
{
	char boot_id[40];
	uint64_t mhash;
	char *dir = kcache_dir();
	if (!dir || !kcache_key(boot_id, &mhash)) {
		free(dir);
		return false;
	}
	char path[4200];
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	free(dir);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	char *buf = NULL;
	bool ok = false;
	if (fstat(fd, &st) || st.st_uid != geteuid() || st.st_size < (off_t)sizeof(struct kcache_header) ||
	    (uint64_t)st.st_size > KCACHE_MAX_BYTES)
		goto out;
	size_t size = (size_t)st.st_size;
	buf = xmalloc(size);
	if (read(fd, buf, size) != (ssize_t)size)
		goto out;
	struct kcache_header h;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, KCACHE_MAGIC, 8) || memcmp(h.boot_id, boot_id, 40) || h.modules_hash != mhash)
		goto out;
	/* Sizes checked one by one so no product can overflow. */
	size_t rest = size - sizeof(h);
	if (h.nsyms > rest / sizeof(struct kcache_entry))
		goto out;
	rest -= (size_t)h.nsyms * sizeof(struct kcache_entry);
	if (h.pool_len > rest || h.dso_names_len != rest - h.pool_len || h.pool_len == 0 ||
	    h.dso_names_len == 0)
		goto out;
	const char *entries = buf + sizeof(h);
	char *pool = (char *)entries + h.nsyms * sizeof(struct kcache_entry);
	const char *names = pool + h.pool_len;
	if (pool[h.pool_len - 1] || names[h.dso_names_len - 1])
		goto out;
	const char *dsos[KCACHE_MAX_DSOS];
	size_t ndsos = 0;
	for (const char *p = names; p < names + h.dso_names_len && ndsos < KCACHE_MAX_DSOS; p += strlen(p) + 1)
		dsos[ndsos++] = intern_str(k->in, p);
	k->pool = xmalloc(h.pool_len);
	memcpy(k->pool, pool, h.pool_len);
	k->pool_len = k->pool_cap = h.pool_len;
	k->syms = xcalloc(h.nsyms ? h.nsyms : 1, sizeof(*k->syms));
	k->cap = h.nsyms;
	for (size_t i = 0; i < h.nsyms; i++) {
		struct kcache_entry e;
		memcpy(&e, entries + i * sizeof(e), sizeof(e));
		if (e.name_off >= h.pool_len || e.dso_idx >= ndsos || e.end <= e.start ||
		    (i && e.start <= k->syms[i - 1].start)) {
			free(k->pool);
			free(k->syms);
			k->pool = NULL;
			k->syms = NULL;
			k->pool_len = k->pool_cap = k->cap = 0;
			goto out;
		}
		k->syms[i] = (struct ksym){ .start = e.start, .end = e.end, .n.name = k->pool + e.name_off,
					    .dso = dsos[e.dso_idx] };
	}
	k->nsyms = h.nsyms;
	k->from_cache = true;
	ok = true;
out:
	free(buf);
	close(fd);
	return ok;
}

/* Best effort: a cache that cannot be written only costs the next start its 70 ms. */
static void kcache_save(const struct kernel *k)
{
	char boot_id[40];
	uint64_t mhash;
	char *dir = kcache_dir();
	if (!dir || !k->nsyms || !kcache_key(boot_id, &mhash)) {
		free(dir);
		return;
	}
	/* One level of parents is enough for ~/.cache/perftop. */
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		mkdir(dir, 0700);
		*slash = '/';
	}
	mkdir(dir, 0700);
	char path[4200], tmp[4220];
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	snprintf(tmp, sizeof(tmp), "%s/kallsyms.%d", dir, (int)getpid());
	free(dir);

	const char *dsos[KCACHE_MAX_DSOS];
	size_t ndsos = 0, names_len = 0;
	struct kcache_entry *ents = xcalloc(k->nsyms, sizeof(*ents));
	for (size_t i = 0; i < k->nsyms; i++) {
		const struct ksym *s = &k->syms[i];
		size_t d = 0;
		while (d < ndsos && dsos[d] != s->dso)
			d++;
		if (d == ndsos) {
			if (ndsos == KCACHE_MAX_DSOS) {
				free(ents);
				return;
			}
			dsos[ndsos++] = s->dso;
			names_len += strlen(s->dso) + 1;
		}
		ents[i] = (struct kcache_entry){ .start = s->start, .end = s->end,
						 .name_off = (uint32_t)(s->n.name - k->pool),
						 .dso_idx = (uint16_t)d };
	}
	struct kcache_header h = { .nsyms = k->nsyms, .pool_len = k->pool_len, .dso_names_len = names_len,
				   .modules_hash = mhash };
	memcpy(h.magic, KCACHE_MAGIC, 8);
	memcpy(h.boot_id, boot_id, 40);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	bool ok = fd >= 0;
	if (ok)
		ok = write(fd, &h, sizeof(h)) == (ssize_t)sizeof(h) &&
		     write(fd, ents, k->nsyms * sizeof(*ents)) == (ssize_t)(k->nsyms * sizeof(*ents)) &&
		     write(fd, k->pool, k->pool_len) == (ssize_t)k->pool_len;
	for (size_t d = 0; ok && d < ndsos; d++)
		ok = write(fd, dsos[d], strlen(dsos[d]) + 1) == (ssize_t)(strlen(dsos[d]) + 1);
	if (fd >= 0)
		close(fd);
	if (!ok || rename(tmp, path))
		unlink(tmp);
	free(ents);
}

static void kernel_load_file(struct kernel *k);

static void kernel_load(struct kernel *k)
{
	k->loaded = true;
	bool proc = !strcmp(k->path, "/proc/kallsyms");
	if (proc && kcache_load(k))
		return;
	kernel_load_file(k);
	/* Names in the pool are only pointers into it while no lookup has interned them: true here. */
	if (proc && k->nsyms)
		kcache_save(k);
}

bool kernel_from_cache(const struct kernel *k)
{
	return k->from_cache;
}

static void kernel_load_file(struct kernel *k)
{
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
		k->syms[k->nsyms] = (struct ksym){ .start = addr,
						   .n.off = k->pool_len,
						   .dso = dso,
						   .seq = (uint32_t)k->nsyms };
		k->nsyms++;
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
