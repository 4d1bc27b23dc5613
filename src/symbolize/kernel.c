/* SPDX-License-Identifier: GPL-2.0-or-later */
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
 *
 * One table format for both sources: entries (start, end, name offset, dso index) sorted by start,
 * a pool of names and a list of dso names, which is also the cache file's layout. A cached table is
 * mmapped, not read: a replay touches a handful of its 6 MB (the binary search's pages and the names
 * it returns), where reading and copying it cost ~10 MB of memory and 5 ms. The file is ours (0600,
 * our uid, checked), but what a lookup takes from it is still bounds-checked, so a damaged cache
 * gives wrong names at worst, never a read out of bounds.
 */
#include "symbolize/kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/intern.h"
#include "util/hash.h"
#include "util/radix.h"
#include "util/safefile.h"
#include "util/util.h"

/* A symbol that is the last of its dso has no next symbol to end at; give it this much room. */
#define KERNEL_LAST_SYM_SPAN 4096

struct ksym {                  /* while parsing /proc/kallsyms */
	uint64_t start;
	size_t off;                /* into the pool */
	uint32_t dso;              /* index into dsos */
};

struct kcache_entry {          /* the table (and cache file) format */
	uint64_t start, end;
	uint32_t name_off;
	uint16_t dso_idx;
	uint8_t reserved;
	uint8_t pad;
};

#define KCACHE_MAX_DSOS 4096
/* Addresses recently named, by address: a kernel stack's return addresses come back sample after
 * sample (fork, exec and exit under process churn are deep), and each would otherwise cost a
 * bisection of 100k entries spread over megabytes of the mapped table. */
#define KERNEL_HOT_SLOTS 4096

struct kernel_hot {
	uint64_t addr;
	uint32_t idx;  /* the entry + 1; 0: empty */
};

struct kernel {
	struct intern *in;
	char *path;
	bool loaded;
	bool from_cache;
	const char *kdso;
	const struct kcache_entry *ents;
	size_t nents;
	const char *pool;
	size_t pool_len;
	const char *dsos[KCACHE_MAX_DSOS];  /* interned */
	size_t ndsos;
	const char **names;        /* interned names by entry, filled as lookups return them */
	void *map;                 /* the cache file's mapping, or NULL */
	size_t map_len;
	void *owned_ents;          /* or the table parsed here */
	char *owned_pool;
	size_t last;
	struct kernel_hot *hot;    /* KERNEL_HOT_SLOTS, made on the first lookup */
};

void kernel_move_names(struct kernel *k)
{
	k->kdso = intern_move(k->in, k->kdso);
	for (size_t i = 0; i < k->ndsos; i++)
		k->dsos[i] = intern_move(k->in, k->dsos[i]);
	if (k->names)
		memset(k->names, 0, k->nents * sizeof(*k->names));
}

struct kernel *kernel_new(struct intern *in, const char *path)
{
	struct kernel *k = xcalloc(1, sizeof(*k));
	k->in = in;
	k->path = xstrdup(path ? path : "/proc/kallsyms");
	k->kdso = intern_str(in, "[kernel.kallsyms]");
	return k;
}

void kernel_release_pages(struct kernel *k)
{
	if (k && k->map)
		madvise(k->map, k->map_len, MADV_DONTNEED);
}

void kernel_free(struct kernel *k)
{
	if (!k)
		return;
	if (k->map)
		munmap(k->map, k->map_len);
	free(k->owned_ents);
	free(k->owned_pool);
	free(k->names);
	free(k->hot);
	free(k->path);
	free(k);
}

const char *kernel_dso_name(const struct kernel *k) { return k->kdso; }

static void kernel_warn_hidden(void)
{
	char buf[32] = "?";
	if (read_small_file("/proc/sys/kernel/kptr_restrict", buf, sizeof(buf)) > 0)
		buf[strcspn(buf, "\n")] = 0;
	warn_msg("kernel symbols are hidden (kernel.kptr_restrict=%s); kernel rows show addresses", buf);
}

#define KCACHE_MAGIC "PTKSYM02"
#define KCACHE_MAX_BYTES (256u << 20)

struct kcache_header {
	char magic[8];
	char boot_id[40];
	uint64_t modules_hash;
	uint64_t nsyms;
	uint64_t pool_len;
	uint64_t dso_names_len;     /* NUL-separated names; index = order */
};

/* What the cache must match: this boot and these modules. */
static bool kcache_key(char boot_id[40], uint64_t *modules_hash)
{
	memset(boot_id, 0, 40);
	if (read_small_file("/proc/sys/kernel/random/boot_id", boot_id, 40) <= 0)
		return false;
	size_t cap = 1u << 20;
	char *buf = xmalloc(cap);
	long n = read_small_file("/proc/modules", buf, cap);
	*modules_hash = n >= 0 ? hash_fnv1a(buf, (size_t)n) : 0;
	free(buf);
	return true;
}


/* The dso names (NUL-separated, in index order) as interned strings. */
static bool kernel_set_dsos(struct kernel *k, const char *names, size_t len)
{
	k->ndsos = 0;
	for (const char *p = names; p < names + len; p += strlen(p) + 1) {
		if (k->ndsos == KCACHE_MAX_DSOS)
			return false;
		k->dsos[k->ndsos++] = intern_str(k->in, p);
	}
	return k->ndsos > 0;
}

static bool kcache_load(struct kernel *k)
{
	char boot_id[40];
	uint64_t mhash;
	char *dir = cache_dir();
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
	void *map = MAP_FAILED;
	size_t size = 0;
	if (!fstat(fd, &st) && st.st_uid == geteuid() && st.st_size >= (off_t)sizeof(struct kcache_header) &&
	    (uint64_t)st.st_size <= KCACHE_MAX_BYTES) {
		size = (size_t)st.st_size;
		map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	}
	close(fd);
	if (map == MAP_FAILED)
		return false;
	const char *buf = map;
	struct kcache_header h;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, KCACHE_MAGIC, 8) || memcmp(h.boot_id, boot_id, 40) || h.modules_hash != mhash)
		goto bad;
	/* Sizes checked one by one so no product can overflow. */
	size_t rest = size - sizeof(h);
	if (h.nsyms == 0 || h.nsyms > rest / sizeof(struct kcache_entry))
		goto bad;
	rest -= (size_t)h.nsyms * sizeof(struct kcache_entry);
	if (h.pool_len > rest || h.dso_names_len != rest - h.pool_len || h.pool_len == 0 ||
	    h.dso_names_len == 0)
		goto bad;
	const char *pool = buf + sizeof(h) + h.nsyms * sizeof(struct kcache_entry);
	const char *names = pool + h.pool_len;
	if (pool[h.pool_len - 1] || names[h.dso_names_len - 1] || !kernel_set_dsos(k, names, h.dso_names_len))
		goto bad;
	k->map = map;
	k->map_len = size;
	k->ents = (const struct kcache_entry *)(buf + sizeof(h));  /* the header keeps them 8-aligned */
	k->nents = h.nsyms;
	k->pool = pool;
	k->pool_len = h.pool_len;
	k->from_cache = true;
	return true;
bad:
	munmap(map, size);
	k->ndsos = 0;
	return false;
}

/* Best effort: a cache that cannot be written only costs the next start its 70 ms. */
static void kcache_save(const struct kernel *k)
{
	char boot_id[40];
	uint64_t mhash;
	char *dir = cache_dir_make();
	if (!dir || !k->nents || !kcache_key(boot_id, &mhash)) {
		free(dir);
		return;
	}
	char path[4200];
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	free(dir);

	size_t names_len = 0;
	for (size_t d = 0; d < k->ndsos; d++)
		names_len += strlen(k->dsos[d]) + 1;
	struct kcache_header h = { .nsyms = k->nents, .pool_len = k->pool_len, .dso_names_len = names_len,
				   .modules_hash = mhash };
	memcpy(h.magic, KCACHE_MAGIC, 8);
	memcpy(h.boot_id, boot_id, 40);
	/* a temporary renamed over it (safefile.h): never through a symlink, never half written */
	struct safefile_out out;
	char err[64];
	int fd = safefile_create(&out, path, 0, err, sizeof(err));
	bool ok = fd >= 0 && write_full(fd, &h, sizeof(h)) &&
		  write_full(fd, k->ents, k->nents * sizeof(*k->ents)) && write_full(fd, k->pool, k->pool_len);
	for (size_t d = 0; ok && d < k->ndsos; d++)
		ok = write_full(fd, k->dsos[d], strlen(k->dsos[d]) + 1);
	if (ok)
		safefile_commit(&out, err, sizeof(err));
	else if (fd >= 0)
		safefile_abort(&out);
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
	if (proc && k->nents)
		kcache_save(k);
}

bool kernel_from_cache(const struct kernel *k)
{
	return k->from_cache;
}

static uint32_t kernel_dso_index(struct kernel *k, const char *dso)
{
	for (size_t d = k->ndsos; d-- > 0;)  /* lines come grouped by module: the last one is likely */
		if (k->dsos[d] == dso)
			return (uint32_t)d;
	if (k->ndsos == KCACHE_MAX_DSOS)
		return 0;  /* absurdly many modules: the rest count as the kernel's */
	k->dsos[k->ndsos] = dso;
	return (uint32_t)k->ndsos++;
}

/* The whole file in one buffer (a /proc file says its size is 0: read until the end), NUL-ended.
 * NULL when it cannot be read. */
static char *kernel_slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 8u << 20, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n >= KCACHE_MAX_BYTES) {
			warn_msg("%s is over %u MiB; kernel symbols past that are not read", path,
				 KCACHE_MAX_BYTES >> 20);
			break;
		}
		if (cap - n < (1u << 20))
			xgrow((void **)&buf, &cap, cap + 1, 1);
		ssize_t got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* Hex digits at *p up to a space; UINT64_MAX when there are none or something else ends them. */
static uint64_t kernel_hex(const char **p)
{
	uint64_t v = 0;
	const char *c = *p;
	for (;; c++) {
		unsigned d;
		if (*c >= '0' && *c <= '9')
			d = (unsigned)(*c - '0');
		else if (*c >= 'a' && *c <= 'f')
			d = (unsigned)(*c - 'a' + 10);
		else if (*c >= 'A' && *c <= 'F')
			d = (unsigned)(*c - 'A' + 10);
		else
			break;
		v = v << 4 | d;
	}
	if (c == *p || *c != ' ')
		return UINT64_MAX;
	*p = c;
	return v;
}

/*
 * Parses kallsyms ("ADDR TYPE NAME[\t[MODULE]]" lines) in one buffer: each text symbol's name is
 * moved down to the front of the buffer, which becomes the pool (a name is never longer than its
 * line, so the copy never overtakes the reading). Sorted by address with a stable radix sort; of
 * several names at one address perf ends up with the one listed last (the others get a size of
 * zero when it closes each symbol at the next one's start), so the last of each run is kept.
 */
static void kernel_load_file(struct kernel *k)
{
	size_t len;
	char *buf = kernel_slurp(k->path, &len);
	if (!buf) {
		warn_msg("cannot read %s; kernel rows show addresses", k->path);
		return;
	}
	size_t pool_len = 0, nsyms = 0, cap = 0;
	struct ksym *syms = NULL;
	bool any_line = false, any_addr = false;
	const char *mod_name = NULL;   /* the last module seen: lines come grouped by module */
	char mod_key[80] = "";
	k->ndsos = 0;
	kernel_dso_index(k, k->kdso);
	for (char *line = buf, *next; line < buf + len; line = next) {
		char *nl = memchr(line, '\n', (size_t)(buf + len - line));
		next = nl ? nl + 1 : buf + len;
		if (nl)
			*nl = 0;
		const char *c = line;
		uint64_t addr = kernel_hex(&c);
		if (addr == UINT64_MAX)
			continue;
		any_line = true;
		if (addr)
			any_addr = true;
		char type = c[1];
		if (!type || c[2] != ' ')
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		char *name = (char *)c + 3;
		size_t nlen = strcspn(name, "\t");
		char *rest = name + nlen;
		const char *dso = k->kdso;
		if (*rest == '\t' && rest[1] == '[') {
			char *mod = rest + 1;
			size_t mlen = strlen(mod);
			if (mlen >= sizeof(mod_key))
				mlen = sizeof(mod_key) - 1;
			if (strncmp(mod_key, mod, mlen) != 0 || mod_key[mlen]) {
				memcpy(mod_key, mod, mlen);
				mod_key[mlen] = 0;
				mod_name = intern_str(k->in, mod_key);
			}
			dso = mod_name;
		}
		if (!addr || !nlen || pool_len + nlen + 1 > UINT32_MAX)
			continue;
		memmove(buf + pool_len, name, nlen);
		buf[pool_len + nlen] = 0;
		xgrow((void **)&syms, &cap, nsyms + 1, sizeof(*syms));
		syms[nsyms] = (struct ksym){ .start = addr, .off = pool_len, .dso = kernel_dso_index(k, dso) };
		nsyms++;
		pool_len += nlen + 1;
	}
	if (any_line && !any_addr && !strcmp(k->path, "/proc/kallsyms"))
		kernel_warn_hidden();
	else if (any_line && !any_addr)  /* copied by a user that kernel.kptr_restrict hid them from */
		warn_msg("%s lists every kernel symbol at address 0 (copied without the right to see "
			 "them?); kernel rows show addresses", k->path);
	struct radix_kv *kv = xmalloc((nsyms ? 2 * nsyms : 1) * sizeof(*kv));
	for (size_t i = 0; i < nsyms; i++)
		kv[i] = (struct radix_kv){ .key = syms[i].start, .val = i };
	const struct radix_kv *sorted = radix_sort_kv(kv, kv + nsyms, nsyms);
	size_t out = 0;
	struct ksym *uniq = xmalloc((nsyms ? nsyms : 1) * sizeof(*uniq));
	for (size_t i = 0; i < nsyms; i++)
		if (i + 1 == nsyms || sorted[i + 1].key != sorted[i].key)
			uniq[out++] = syms[sorted[i].val];  /* the last listed at this address */
	free(kv);
	free(syms);
	syms = uniq;
	struct kcache_entry *ents = xcalloc(out ? out : 1, sizeof(*ents));
	for (size_t i = 0; i < out; i++) {
		const struct ksym *s = &syms[i];
		uint64_t end;
		if (i + 1 < out && syms[i + 1].dso == s->dso)
			end = syms[i + 1].start;
		else if (i + 1 < out && syms[i + 1].start - s->start < KERNEL_LAST_SYM_SPAN)
			end = syms[i + 1].start;
		else
			end = s->start + KERNEL_LAST_SYM_SPAN;
		ents[i] = (struct kcache_entry){ .start = s->start, .end = end, .name_off = (uint32_t)s->off,
						 .dso_idx = (uint16_t)s->dso };
	}
	free(syms);
	k->owned_ents = ents;
	k->owned_pool = pool_len ? xrealloc(buf, pool_len) : (free(buf), NULL);
	k->ents = ents;
	k->nents = out;
	k->pool = k->owned_pool ? k->owned_pool : "";
	k->pool_len = pool_len;
}

long kernel_symbol_count(struct kernel *k)
{
	if (!k->loaded)
		kernel_load(k);
	return (long)k->nents;
}

int kernel_lookup(struct kernel *k, uint64_t addr, struct frame *out)
{
	if (!k->loaded)
		kernel_load(k);
	if (!k->nents)
		return 0;
	if (!k->hot)
		k->hot = xcalloc(KERNEL_HOT_SLOTS, sizeof(*k->hot));
	size_t slot = (size_t)((addr * 0x9E3779B97F4A7C15ull) >> 32) & (KERNEL_HOT_SLOTS - 1);
	struct kernel_hot *hot = &k->hot[slot];
	size_t idx = k->last;
	if (hot->idx && hot->addr == addr && hot->idx <= k->nents) {
		idx = hot->idx - 1;
	} else if (!(addr >= k->ents[idx].start && addr < k->ents[idx].end)) {
		size_t lo = 0, hi = k->nents;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (k->ents[mid].start <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0 || addr >= k->ents[lo - 1].end)
			return 0;
		idx = lo - 1;
		k->last = idx;
		if (idx < UINT32_MAX)
			*hot = (struct kernel_hot){ addr, (uint32_t)idx + 1 };
	}
	const struct kcache_entry *e = &k->ents[idx];
	if (e->name_off >= k->pool_len || e->dso_idx >= k->ndsos)
		return 0;  /* a damaged cache */
	if (!k->names)
		k->names = xcalloc(k->nents, sizeof(*k->names));  /* pages are touched as names are */
	if (!k->names[idx]) {
		const char *name = k->pool + e->name_off;
		k->names[idx] = intern_strn(k->in, name, strnlen(name, k->pool_len - e->name_off));
	}
	out->sym = k->names[idx];
	out->dso = k->dsos[e->dso_idx];
	out->sym_start = e->start;
	return 1;
}
