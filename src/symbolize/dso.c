/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dso: binaries through libdwfl, each opened once, with a sorted array of function symbols of our
 * own.
 *
 * Why our own array: dwfl_module_addrsym scans the whole symbol table on every call, which at
 * thousands of samples a second times thirty frames is far too slow. We walk the table once (lazily,
 * on the first lookup) with dwfl_module_getsym_info, which already merges the separate debug file
 * (found by dwfl_standard_find_debuginfo in /usr/lib/debug/.build-id or by debuglink) and the
 * MiniDebugInfo table, keep the function-like symbols, add the PLT entries as perf names them
 * (NAME@plt, synthesized from the PLT relocations), choose one name per address, give zero-size
 * symbols the room up to the next one but never past the end of their section, and binary-search
 * that.
 *
 * Names stay pointers into libelf's string tables (valid while the Dwfl lives) and are interned only
 * when a lookup first returns them, so loading libc's ten thousand symbols costs no string copies.
 */
#include "symbolize/dso.h"
#include "symbolize/dso_int.h"
#include "symbolize/dso_syms.h"

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/debugcache.h"
#include "symbolize/debuginfo.h"
#include "symbolize/intern.h"
#include "symbolize/srcinfo.h"
#include "util/hash.h"
#include "util/radix.h"
#include "util/util.h"

static char *dso_debuginfo_path;  /* NULL: libdwfl's default (":.debug:/usr/lib/debug") */

/* Our own find_debuginfo (debuginfo.c): build-id, ~/.debug, debuglink, --symfs, and debuginfod in
 * the background instead of libdwfl's synchronous queries. */
static const Dwfl_Callbacks dso_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = debugcache_find,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &dso_debuginfo_path,
};

/* ---- the key table: several keys (build-id, inode, path) may lead to one dso ---- */

static struct dso_slot *dso_set_slot(struct dso_set *set, const char *key)
{
	size_t mask = set->nslots - 1;
	size_t i = hash_fnv1a(key, strlen(key)) & mask;
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

/* Removes the key of slot i; the entries after it in its probe run move back (no tombstones). */
static void dso_set_del_slot(struct dso_set *set, size_t i)
{
	size_t mask = set->nslots - 1;
	free(set->slots[i].key);
	set->slots[i] = (struct dso_slot){ 0 };
	set->count--;
	for (size_t j = (i + 1) & mask; set->slots[j].key; j = (j + 1) & mask) {
		size_t h = hash_fnv1a(set->slots[j].key, strlen(set->slots[j].key)) & mask;
		if (!probe_must_move(h, i, j))
			continue;
		set->slots[i] = set->slots[j];
		set->slots[j] = (struct dso_slot){ 0 };
		i = j;
	}
}

struct dso_set *dso_set_new(struct intern *in)
{
	struct dso_set *set = xcalloc(1, sizeof(*set));
	set->in = in;
	set->nslots = 256;
	set->slots = xcalloc(set->nslots, sizeof(*set->slots));
	set->max_open = DSO_MAX_OPEN;
	set->max_kept = DSO_MAX_KEPT;
	return set;
}

static void dso_free(struct dso *d)
{
	srcinfo_free(d->si);
	dso_go_free(d->go);  /* it reads the Dwfl's mapping */
	if (d->dwfl)
		dwfl_end(d->dwfl);
	free(d->segs);
	free(d->syms);
	free(d->starts);
	free(d->path);
	free(d->source);
	free(d->file);
	free(d);
}

void dso_set_free(struct dso_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; set->expect && i < DSO_MAX_EXPECTED * 2; i++)
		free(set->expect[i].path);
	free(set->expect);
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
	debugcache_start();  /* the copies this session found wanting, for the next ones */
}

void dso_set_move_names(struct dso_set *set)
{
	struct intern *in = set->in;
	for (struct dso *d = set->all; d; d = d->next_all) {
		d->name = intern_move(in, d->name);
		d->err = intern_move(in, d->err);
		for (size_t i = 0; i < d->nsyms; i++)
			if (d->syms[i].interned)
				d->syms[i].name = intern_move(in, d->syms[i].name);
		srcinfo_move_names(d->si);
	}
}

void dso_ref(struct dso *d)
{
	if (d)
		d->refs++;
}

void dso_unref(struct dso *d)
{
	if (d && d->refs)
		d->refs--;
}

void dso_set_on_evict(struct dso_set *set, void (*fn)(void *ctx, struct dso *d), void *ctx)
{
	set->on_evict = fn;
	set->evict_ctx = ctx;
}

/*
 * The set is bounded too: a machine that builds and runs new binaries for days (a CI runner) meets
 * new dsos without end. Past max_kept, the least recently used one that no mapping references goes
 * whole: closed (its srcinfo saved), its keys out of the table, the callback told.
 */
static void dso_set_evict(struct dso_set *set)
{
	struct dso *lru = NULL, **link = NULL;
	for (struct dso **pp = &set->all; *pp; pp = &(*pp)->next_all)
		if (!(*pp)->refs && (!lru || (*pp)->used < lru->used)) {
			lru = *pp;
			link = pp;
		}
	if (!lru)
		return;  /* every one is mapped by a living (or recently dead) process */
	dso_close(lru);
	if (set->on_evict)
		set->on_evict(set->evict_ctx, lru);
	for (size_t i = 0; i < set->nslots;) {
		if (set->slots[i].key && set->slots[i].dso == lru)
			dso_set_del_slot(set, i);  /* an entry may have moved into i: look at it again */
		else
			i++;
	}
	*link = lru->next_all;
	set->ndsos--;
	set->evicted++;
	dso_free(lru);
}

void dso_set_max_kept(struct dso_set *set, size_t max)
{
	set->max_kept = max ? max : DSO_MAX_KEPT;
}

uint64_t dso_set_evicted(const struct dso_set *set) { return set->evicted; }
uint64_t dso_set_opened(const struct dso_set *set) { return set->opened; }
uint64_t dso_set_closed(const struct dso_set *set) { return set->closed; }

void dso_set_max_open(struct dso_set *set, size_t max)
{
	set->max_open = max ? max : DSO_MAX_OPEN;
}
uint64_t dso_set_count(const struct dso_set *set) { return set->ndsos; }
const char *dso_name(const struct dso *d) { return d->name; }
const char *dso_path(const struct dso *d) { return d->path; }

const uint8_t *dso_build_id(const struct dso *d, size_t *len)
{
	*len = d->build_id_size;
	return d->build_id;
}
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
	const char *slash = strrchr(path, '/');
	if (path[0] == '[' || strncmp(path, "//", 2) == 0 || !slash)
		return intern_str(in, path);  /* [vdso], [heap], [anon:NAME], //anon: as they are */
	/* a path, absolute or not ("64/ld-2.17.so" of an old recording): its base name, as perf's */
	return intern_str(in, slash[1] ? slash + 1 : path);
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
		hex_encode(bkey + 2, id->build_id, bsize);
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

	if (set->ndsos >= set->max_kept)
		dso_set_evict(set);
	d = xcalloc(1, sizeof(*d));
	d->set = set;
	d->used = ++set->clock;  /* new: not the next one evicted */
	d->live_ns = set->sweep_ns;
	d->idle_ns = DSO_IDLE_NS;
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

bool dso_source_pending(const struct dso *d)
{
	return !d->sourced && !d->tried;
}

bool dso_set_source(struct dso *d, const char *file)
{
	if (d->tried)
		return false;
	d->sourced = true;
	if (!file)
		return true;
	free(d->source);
	d->source = xstrdup(file);
	d->state = DSO_NEW;  /* a deleted binary or [vdso] is readable after all */
	return true;
}

const char *dso_source(const struct dso *d)
{
	return d->source ? d->source : d->path;
}

static void dso_open_file(struct dso *d, const char *file);

/* Back to a dso never opened: its libdwfl handle, files, symbol table and DWARF caches go (the
 * srcinfo cache is saved to its store first); the next lookup opens it again. The names it handed
 * out stay valid (interned). */
void dso_close(struct dso *d)
{
	if (d->state != DSO_OPEN)
		return;
	srcinfo_free(d->si);
	d->si = NULL;
	dso_go_free(d->go);
	d->go = NULL;
	dwfl_end(d->dwfl);
	d->dwfl = NULL;
	d->mod = NULL;
	free(d->segs);
	free(d->syms);
	free(d->starts);
	d->segs = NULL;
	d->syms = NULL;
	d->starts = NULL;
	d->nsegs = d->nsyms = d->last = 0;
	d->syms_loaded = d->dwarf_tried = d->has_dwarf = d->go_tried = false;
	d->tried = false;
	d->state = DSO_NEW;
	d->set->opened--;
}

/* Open binaries are bounded (DSO_MAX_OPEN): before one more opens, the least recently used one
 * closes. A session under churn meets new binaries without end, and each open one holds file
 * descriptors (the binary, its debug file) and mapped memory. */
static void dso_make_room(struct dso_set *set)
{
	while (set->opened >= set->max_open) {
		struct dso *lru = NULL;
		for (struct dso *d = set->all; d; d = d->next_all)
			if (d->state == DSO_OPEN && (!lru || d->used < lru->used))
				lru = d;
		if (!lru)
			return;
		dso_close(lru);
		set->closed++;
	}
}

/* ---- a recording's build-ids ---- */

static struct dso_expect *dso_expect_slot(const struct dso_set *set, const char *path)
{
	size_t mask = DSO_MAX_EXPECTED * 2 - 1;
	size_t i = hash_fnv1a(path, strlen(path)) & mask;
	while (set->expect[i].path && strcmp(set->expect[i].path, path) != 0)
		i = (i + 1) & mask;
	return &set->expect[i];
}

void dso_set_wait_fetches(struct dso_set *set, bool on)
{
	set->wait_fetches = on;
}

bool dso_set_expect(struct dso_set *set, const char *path, const uint8_t *bid, size_t len)
{
	if (!len || path[0] != '/')
		return false;
	if (!set->expect)
		set->expect = xcalloc(DSO_MAX_EXPECTED * 2, sizeof(*set->expect));
	struct dso_expect *e = dso_expect_slot(set, path);
	if (!e->path) {
		if (set->nexpect >= DSO_MAX_EXPECTED)
			return false;
		e->path = xstrdup(path);
		set->nexpect++;
	}
	/* The latest wins: a stream names a rebuilt binary's new build-id before its samples. */
	e->len = (uint8_t)(len < sizeof(e->bid) ? len : sizeof(e->bid));
	memcpy(e->bid, bid, e->len);
	return true;
}

uint64_t dso_set_mismatched(const struct dso_set *set)
{
	return set->mismatched;
}

const char *dso_set_notice(const struct dso_set *set)
{
	return set->notice[0] ? set->notice : NULL;
}

/* The recording's build-id for d's path, when the mapping gave none: the file to read must have it. */
static void dso_take_expected(struct dso *d)
{
	if ((d->build_id_size && !d->bid_from_file) || !d->set->expect)
		return;
	const struct dso_expect *e = dso_expect_slot(d->set, d->path);
	if (!e->path)
		return;
	memcpy(d->build_id, e->bid, e->len);
	d->build_id_size = e->len;
	d->bid_from_file = false;
}

/* Whether the ELF file at path has d's build-id: 1 yes, 0 another one (or none), -1 no such file.
 * Some producers pad the MMAP2 build-id: what both sides have is compared. */
static int dso_file_matches(const struct dso *d, const char *path)
{
	uint8_t got[64];
	int n = debuginfo_build_id_of(path, got, sizeof(got));
	if (n < 0)
		return -1;
	size_t cmp = (size_t)n < d->build_id_size ? (size_t)n : d->build_id_size;
	return n > 0 && memcmp(got, d->build_id, cmp) == 0;
}

/* libdebuginfod's client cache, where an earlier session's fetch left its files:
 * $DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client, else ~/.cache/debuginfod_client. */
static bool dso_debuginfod_cache(char *buf, size_t cap, const char *hex, const char *leaf)
{
	const char *c = getenv("DEBUGINFOD_CACHE_PATH"), *x = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;
	if (c && c[0])
		n = snprintf(buf, cap, "%s/%s/%s", c, hex, leaf);
	else if (x && x[0])
		n = snprintf(buf, cap, "%s/debuginfod_client/%s/%s", x, hex, leaf);
	else if (home && home[0])
		n = snprintf(buf, cap, "%s/.cache/debuginfod_client/%s/%s", home, hex, leaf);
	else
		return false;
	return n >= 0 && (size_t)n < cap;
}

#define DSO_CANDIDATES 9
#define DSO_FETCH_WAIT_SECS 30.0

/* Where a file with d's build-id may be, in order (see dso_open_by_build_id); the first two are
 * its own path (under --symfs, then as it is). Returns how many were written. */
static int dso_candidates(const struct dso *d, char (*c)[PATH_MAX])
{
	char hex[2 * 20 + 1];
	hex_encode(hex, d->build_id, d->build_id_size);
	const char *symfs = debuginfo_symfs(), *root = debuginfo_debug_root(), *home = getenv("HOME");
	const char *fetched = debuginfo_fetched_path(d->build_id, d->build_id_size);
	int n = 0;
#define DSO_CAND(...) (snprintf(c[n], PATH_MAX, __VA_ARGS__) < PATH_MAX ? (void)n++ : (void)0)
	if (symfs && d->path[0] == '/')
		DSO_CAND("%s%s", symfs, d->path);
	DSO_CAND("%s", dso_source(d));
	if (home && home[0])
		DSO_CAND("%s/.debug/.build-id/%.2s/%s/elf", home, hex, hex + 2);
	if (symfs)
		DSO_CAND("%s%s/.build-id/%.2s/%s.debug", symfs, root, hex, hex + 2);
	DSO_CAND("%s/.build-id/%.2s/%s.debug", root, hex, hex + 2);
	if (home && home[0])
		DSO_CAND("%s/.debug/.build-id/%.2s/%s/debug", home, hex, hex + 2);
	if (fetched)
		DSO_CAND("%s", fetched);
#undef DSO_CAND
	if (dso_debuginfod_cache(c[n], PATH_MAX, hex, "executable"))
		n++;
	if (dso_debuginfod_cache(c[n], PATH_MAX, hex, "debuginfo"))
		n++;
	return n;
}

/*
 * A dso whose build-id is known (from the mapping, or the recording's build-id table) reads only a
 * file with that build-id, the first of: the --symfs copy of its path, the path (or its source),
 * perf's build-id cache's copy of the binary (~/.debug/.build-id/xx/rest/elf), the debug file by
 * build-id (DEBUG_ROOT/.build-id/xx/rest.debug, under --symfs first), perf's cache's debug file,
 * the one debuginfod fetched this session or an earlier one left in its client cache. A binary
 * comes before a debug file: its own segments say where its code is (a debug file's do not). A file
 * of another build is never read: its names would be wrong ones, and unresolved is better. Nothing
 * found: a debuginfod fetch is asked for, and the dso opens again when it arrives (dso_set_reload).
 */
static void dso_open_by_build_id(struct dso *d)
{
	char (*cand)[PATH_MAX] = xmalloc(DSO_CANDIDATES * sizeof(*cand));
	int n = dso_candidates(d, cand);
	bool differs = false;
	for (int i = 0, waited = 0; i < n; i++) {
		int m = dso_file_matches(d, cand[i]);
		if (m == 0 && i < (debuginfo_symfs() && d->path[0] == '/' ? 2 : 1))
			differs = true;  /* a file at the path itself, of another build */
		if (m == 1) {
			d->awaiting = false;
			dso_open_file(d, cand[i]);
			free(cand);
			return;
		}
		/* A reader that may wait: the fetch now, then the candidates again with its file. */
		if (i == n - 1 && d->set->wait_fetches && !waited++ &&
		    debuginfo_fetch_want(d->build_id, d->build_id_size, d->name) &&
		    debuginfo_fetch_wait(d->build_id, d->build_id_size, DSO_FETCH_WAIT_SECS)) {
			n = dso_candidates(d, cand);
			i = -1;
		}
	}
	free(cand);
	d->tried = true;
	d->awaiting = debuginfo_fetch_want(d->build_id, d->build_id_size, d->name);
	if (differs) {
		dso_fail(d, "the file here is another build than the recording's (build-id differs)");
		if (d->set->mismatched++ == 0)
			snprintf(d->set->first_mismatch, sizeof(d->set->first_mismatch), "%s", d->name);
		snprintf(d->set->notice, sizeof(d->set->notice),
			 "%s%s: file here is another build than the recorded one; its samples stay "
			 "unresolved", d->set->first_mismatch, d->set->mismatched > 1 ? " and others" : "");
	} else {
		dso_fail(d, "no file with the recorded build-id");
	}
}

/* Reopening is dearer than keeping open (the file's ELF read again, its symbol table built, its
 * unwinding image mapped, and each unmapping a TLB flush on every CPU the sampler ran on): the
 * binaries a churn runs every few seconds (env, a shell, an interpreter's extension modules) were
 * closed and opened again, 84 opens a minute in all, at the fixed DSO_IDLE_NS. So one that comes
 * back soon after its idle close waits longer next time; one run once still goes after
 * DSO_IDLE_NS. */
static void dso_idle_reopening(struct dso *d)
{
	if (!d->idle_closed_ns)
		return;
	if (d->set->sweep_ns - d->idle_closed_ns < DSO_IDLE_RECUR_NS)
		d->idle_ns = d->idle_ns * 4 < DSO_IDLE_MAX_NS ? d->idle_ns * 4 : DSO_IDLE_MAX_NS;
	else
		d->idle_ns = DSO_IDLE_NS;
	d->idle_closed_ns = 0;
}

static void dso_open(struct dso *d)
{
	dso_idle_reopening(d);
	dso_make_room(d->set);
	dso_take_expected(d);
	if (d->build_id_size && !d->bid_from_file) {
		dso_open_by_build_id(d);
		return;
	}
	/* --symfs: a recording from another machine reads that machine's copy of the path. */
	char *symfs = d->source || !debuginfo_symfs() ? NULL : debuginfo_resolve_path(d->path);
	dso_open_file(d, symfs ? symfs : dso_source(d));
	free(symfs);
}

/*
 * The PT_LOAD segments, which turn the mapping's file offsets into virtual addresses. A separate
 * debug file alone (the binary missing here) keeps the segments' addresses but not their file
 * offsets (objcopy --only-keep-debug zeroes them with the file sizes): there the offsets are taken
 * as the linkers of GNU binutils lay them out, each segment at its address's distance from the
 * first one's page, which holds for the code of Debian's binaries (the layout perf assumes too).
 */
static void dso_load_segments(struct dso *d, Elf *elf, size_t nph)
{
	bool code = false, no_bytes = true;  /* code segments, none with bytes in the file */
	uint64_t base = UINT64_MAX;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_flags & PF_X) {
			code = true;
			if (ph.p_filesz)
				no_bytes = false;  /* a debug file keeps a few sections (notes), never code */
		}
		if (base == UINT64_MAX)
			base = ph.p_vaddr & ~(ph.p_align > 1 ? ph.p_align - 1 : 0xfff);
		d->segs[d->nsegs++] = (struct dso_seg){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
	if (!code || !no_bytes)
		return;
	d->nsegs = 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			d->segs[d->nsegs++] = (struct dso_seg){ ph.p_vaddr - base, ph.p_vaddr, ph.p_memsz };
	}
}

static void dso_open_file(struct dso *d, const char *file)
{
	struct stat st;
	d->tried = true;
	free(d->file);
	d->file = xstrdup(file);
	/* A FIFO or device under a mapped name must not block us or be read as ELF. */
	if (stat(file, &st) != 0) {
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
	d->mod = dwfl_report_elf(d->dwfl, d->name, file, -1, 0, true);
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
	d->bias = bias;
	if (!d->build_id_size) {
		/* No build-id from the mapping (MMAP2 in its inode form): the file's own, so that a debug
		 * file arriving for it later (debuginfod) finds this dso. */
		const unsigned char *bits;
		GElf_Addr vaddr;
		int n = dwfl_module_build_id(d->mod, &bits, &vaddr);
		if (n > 0 && (size_t)n <= sizeof(d->build_id)) {
			memcpy(d->build_id, bits, (size_t)n);
			d->build_id_size = (uint8_t)n;
			d->bid_from_file = true;
		}
	} else {
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
	dso_load_segments(d, elf, nph);
	if (!d->nsegs) {
		dso_fail(d, "no loadable segments");
		return;
	}
	d->state = DSO_OPEN;
	d->set->opened++;
}

/* ---- the symbol table ---- */

/* Which of several symbols at one address names it, as perf chooses: sized over unsized, functions
 * over labels, then any binding but weak over weak and global over local (so libc's write, whose
 * public names are all weak, reads __GI___libc_write as in perf report), then the fewest leading
 * underscores (memcpy over __memcpy), then (dso_sym_cmp) the longer name. */
static uint8_t dso_sym_rank(const GElf_Sym *sym, const char *name)
{
	unsigned r = 0;
	if (sym->st_size)
		r += 64;
	if (GELF_ST_TYPE(sym->st_info) != STT_NOTYPE)
		r += 32;
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL: r += 16; break;
	case STB_WEAK: break;
	default: r += 8; break;
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

/* Where a zero-size symbol must stop at the latest: the end of the section that holds it, else of its
 * PT_LOAD segment. The section comes from the file the symbol was read from (a separate debug file
 * keeps the section headers, addresses and sizes of the original). */
static uint64_t dso_sym_limit(const struct dso *d, Elf *selem, GElf_Word shndx, uint64_t sec_delta,
			      uint64_t start)
{
	if (selem && shndx != SHN_UNDEF && shndx != SHN_ABS && shndx != SHN_COMMON) {
		Elf_Scn *scn = elf_getscn(selem, shndx);
		GElf_Shdr sh;
		if (scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC)) {
			uint64_t lo = sh.sh_addr + sec_delta, hi = lo + sh.sh_size;
			if (start >= lo && start < hi)
				return hi;
		}
	}
	for (size_t s = 0; s < d->nsegs; s++) {
		const struct dso_seg *g = &d->segs[s];
		if (start >= g->vaddr && start < g->vaddr + g->size)
			return g->vaddr + g->size;
	}
	return start + 1;
}

/* A Go binary's function table: names, lines, inline frames where -ldflags='-s -w' left no others. */
const struct gopcln *dso_gopcln(struct dso *d)
{
	GElf_Addr bias;
	if (!d->go_tried && d->state == DSO_OPEN) {
		d->go_tried = true;
		d->go = dso_go_open(dwfl_module_getelf(d->mod, &bias), d->name);
	}
	return dso_go_table(d->go);
}

static void dso_load_syms(struct dso *d)
{
	d->syms_loaded = true;
	GElf_Addr main_bias = 0;
	Elf *main_elf = dwfl_module_getelf(d->mod, &main_bias);
	if (!main_elf)
		return;
	int n = dwfl_module_getsymtab(d->mod);
	if (n < 0)
		d->err = intern_str(d->set->in, dwfl_errmsg(-1));
	struct dso_vec vec = { 0 };
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
		struct dso_sym s = { .start = start, .name = name, .rank = dso_sym_rank(&sym, name),
				     .ifunc = GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC };
		if (sym.st_size) {
			s.end = start + sym.st_size;
		} else {
			s.unsized = 1;
			s.end = dso_sym_limit(d, selem, shndx, sbias - main_bias, start);
		}
		dso_vec_push(&vec, s);
	}
	/* Synthesized from the main file, which has the dynamic sections whatever the symbols came from. */
	dso_synth_plt(d->set->in, main_elf, &vec, vec.n);
	if (!dso_go_has_symtab(main_elf) && dso_gopcln(d))
		dso_go_syms(d->go, &vec, d->name);

	/* By address (a radix sort: qsort's comparator calls were most of this function's time), one
	 * symbol per address: the best of those at it by dso_sym_cmp. */
	size_t cnt = vec.n, out = 0;
	struct dso_sym *v = xmalloc((cnt ? cnt : 1) * sizeof(*v));
	struct radix_kv *kv = xmalloc((cnt ? 2 * cnt : 1) * sizeof(*kv));
	for (size_t i = 0; i < cnt; i++)
		kv[i] = (struct radix_kv){ .key = vec.v[i].start, .val = i };
	const struct radix_kv *sorted = radix_sort_kv(kv, kv + cnt, cnt);
	for (size_t i = 0; i < cnt;) {
		size_t best = sorted[i].val, j = i + 1;
		for (; j < cnt && sorted[j].key == sorted[i].key; j++)
			if (dso_sym_cmp(&vec.v[sorted[j].val], &vec.v[best]) < 0)
				best = sorted[j].val;
		v[out++] = vec.v[best];
		i = j;
	}
	free(kv);
	free(vec.v);
	/* Zero-size symbols run to the next symbol, within their section; what ends up empty goes. */
	size_t kept = 0;
	for (size_t i = 0; i < out; i++) {
		struct dso_sym s = v[i];
		if (s.unsized && i + 1 < out && v[i + 1].start < s.end)
			s.end = v[i + 1].start;
		s.unsized = 0;
		if (s.end > s.start)
			v[kept++] = s;
	}
	d->syms = kept ? xrealloc(v, kept * sizeof(*v)) : (free(v), NULL);
	d->nsyms = kept;
	d->starts = xmalloc((kept ? kept : 1) * sizeof(*d->starts));
	for (size_t i = 0; i < kept; i++)
		d->starts[i] = d->syms[i].start;
}

static bool dso_ready(struct dso *d)
{
	d->used = ++d->set->clock;
	if (d->state == DSO_NEW)
		dso_open(d);
	if (d->state != DSO_OPEN)
		return false;
	if (!d->syms_loaded)
		dso_load_syms(d);
	return true;
}

const char *dso_file(struct dso *d)
{
	d->used = ++d->set->clock;
	if (d->state == DSO_NEW)
		dso_open(d);
	return d->state == DSO_OPEN ? d->file : NULL;
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

/* Where this binary's DWARF comes from, as the srcinfo store's identity (srcstore.h): its own
 * sections, a separate debug file (which must match the build-id, so its content is fixed by it), or
 * none. A store written while no debug file was found is not used once one is. */
static uint64_t dso_dwarf_identity(struct dso *d)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(d->mod, &bias);
	size_t shstrndx;
	const char *src = "none";
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0)
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
			GElf_Shdr sh;
			const char *name;
			if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
			    (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
			    (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")))
				src = "own";
		}
	if (elf && !strcmp(src, "none")) {
		GElf_Word crc = 0;
		const char *link = dwelf_elf_gnu_debuglink(elf, &crc);
		char *found = NULL;
		int fd = debuginfo_find(d->mod, NULL, d->name, 0, d->file, link, crc, &found);
		if (fd >= 0) {
			src = "separate";
			close(fd);
		}
		free(found);
	}
	/* perftop's own build is part of the answer's identity: a store written by another build (one
	 * whose naming of inline frames differed) is ignored and replaced, never read. */
	uint8_t self[64];
	char selfhex[2 * sizeof(self) + 1] = "";
	hex_encode(selfhex, self, self_build_id(self, sizeof(self)));
	char key[64 + sizeof(selfhex)];
	int n = snprintf(key, sizeof(key), "srcinfo-v1:%s:%s", src, selfhex);
	return strcmp(src, "none") ? hash_fnv1a(key, (size_t)n) : 0;
}

/* The store of earlier sessions' answers, for a binary with a build-id whose DWARF can be found. */
static void dso_attach_store(struct dso *d)
{
	const char *e = getenv("PERFTOP_DEBUG_CACHE");
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int nbits = dwfl_module_build_id(d->mod, &bits, &vaddr);  /* the file's own */
	if (nbits < 8 || nbits > 64 || (e && !strcmp(e, "0")))
		return;
	uint64_t id = dso_dwarf_identity(d);
	char *dir = id ? cache_dir_make() : NULL;
	if (!dir)
		return;
	char hex[2 * 64 + 1], path[4400];
	hex_encode(hex, bits, (size_t)nbits);
	int w = snprintf(path, sizeof(path), "%s/srcinfo", dir);
	if (w > 0 && (size_t)w < sizeof(path) && (mkdir(path, 0700) == 0 || errno == EEXIST)) {
		w = snprintf(path, sizeof(path), "%s/srcinfo/%s.si", dir, hex);
		if (w > 0 && (size_t)w < sizeof(path))
			srcinfo_set_store(d->si, path, id);
	}
	free(dir);
}

/* Inline frames and srclines for va (in w): DWARF is loaded on the first lookup that wants it and
 * that neither this session nor the store has answered. */
static int dso_lookup_dwarf(struct dso *d, uint64_t va, const struct dso_sym *w, struct frame *out,
			    int max)
{
	if (!d->si) {
		d->si = srcinfo_new(d->set->in);
		dso_attach_store(d);
	}
	if (!d->dwarf_tried && !srcinfo_known(d->si, va, d->set->want)) {
		d->dwarf_tried = true;
		Dwarf_Addr b;
		d->has_dwarf = dwfl_module_getdwarf(d->mod, &b) != NULL;
		/* Go's table answers where DWARF does not: read as lazily, once (both go at dso_close) */
		srcinfo_set_go(d->si, dso_gopcln(d));
	}
	return srcinfo_lookup(d->si, d->has_dwarf ? d->mod : NULL, d->bias, va, w->name, w->start,
			      d->set->want, out, max);
}

bool dso_dwarf_loaded(const struct dso *d)
{
	return d->dwarf_tried;
}

void dso_set_want(struct dso_set *set, bool inlines, bool srclines)
{
	set->want = (inlines ? SRCINFO_INLINE : 0u) | (srclines ? SRCINFO_SRCLINE : 0u);
	debugcache_set_copying(inlines || srclines);
}

void dso_set_reload(struct dso_set *set, const uint8_t *bid, size_t len)
{
	for (struct dso *d = set->all; d; d = d->next_all) {
		if (!d->build_id_size || len < d->build_id_size ||
		    memcmp(d->build_id, bid, d->build_id_size) != 0)
			continue;
		if (d->state == DSO_BROKEN && d->awaiting) {
			/* no file had its build-id: the fetched one may be it */
			d->state = DSO_NEW;
			d->tried = false;
			d->err = NULL;
			continue;
		}
		if (d->state != DSO_OPEN)
			continue;
		/* The next lookup opens it again and finds the new debug file. */
		dso_close(d);
	}
}

void dso_srcinfo_counts(const struct dso_set *set, uint64_t *hits, uint64_t *misses)
{
	*hits = *misses = 0;
	for (const struct dso *d = set->all; d; d = d->next_all) {
		if (!d->si)
			continue;
		uint64_t h, m;
		srcinfo_counts(d->si, &h, &m);
		*hits += h;
		*misses += m;
	}
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
	int n = 1;
	if (d->set->want) {
		n = dso_lookup_dwarf(d, va, w, out, max);
	} else {
		out[0].sym = w->name;
		out[0].sym_start = w->start;
		out[0].srcline = NULL;
		out[0].inlined = false;
	}
	/* Every frame of the address (its inline chain too) is at the same place in the file. */
	for (int i = 0; i < n; i++)
		out[i].va = va;
	return n;
}

/* ---- annotate (disasm.c): the code of one function ---- */

struct dso *dso_set_find_name(struct dso_set *set, const char *name)
{
	/* A walk of every dso: it runs when the annotate view opens, not per sample. */
	for (struct dso *d = set->all; d; d = d->next_all)
		if (d->state != DSO_BROKEN && (d->name == name || !strcmp(dso_name(d), name)))
			return d;
	return NULL;
}

Dwfl_Module *dso_code(struct dso *d, uint64_t sym_start, uint64_t *end, uint64_t *bias)
{
	if (!dso_ready(d) || !d->nsyms)
		return NULL;
	/* The symbol that starts at sym_start (several names may share it: any gives the range). */
	size_t i = dso_u64_find(d->starts, d->nsyms, sym_start);
	if (i == SIZE_MAX)
		return NULL;
	*end = d->syms[i].end;
	*bias = d->bias;
	if (!d->dwarf_tried) {
		/* DWARF may not be loaded yet (no srclines asked for so far): annotate wants its lines. */
		Dwarf_Addr b;
		d->dwarf_tried = true;
		d->has_dwarf = dwfl_module_getdwarf(d->mod, &b) != NULL;
		if (!d->si) {
			d->si = srcinfo_new(d->set->in);
			dso_attach_store(d);
		}
	}
	return d->mod;
}
