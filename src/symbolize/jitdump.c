/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jitdump: jit-PID.dump files, read incrementally (the format: jitdump.h).
 *
 * The code is one array sorted by start and searched by bisection, as the perf map's (jitmap.c),
 * with the same rule for reused addresses: the later record wins. Every entry carries the order of
 * its record (seq); where two overlap the older one gives way: cut at the newer one's start when it
 * begins first, dropped when it begins inside the newer one (its code there was overwritten, and
 * what is left of it is stale). New loads are parsed into a batch, sorted and merged, so a refresh
 * costs O(old + new log new). Past max_entries the oldest entries (by seq) are evicted.
 *
 * A DEBUG_INFO record comes before the load of the code it describes (the runtime knows the lines
 * when it emits the code): its lines wait as the pending ones and go to the next load at their
 * code_addr. Lines live in one array, an entry's a sorted slice of it; file names are deduplicated
 * in a bounded table. Both and the names' arena hold garbage once entries are replaced: they are
 * rebuilt from the live entries when the garbage outweighs them.
 */
#include "symbolize/jitdump.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/intern.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/safefile.h"
#include "util/util.h"

#define JD_HEADER_SIZE 40u
#define JD_PREFIX 16u
#define JD_LOAD_FIXED 56u
#define JD_MOVE_FIXED 64u
#define JD_DEBUG_FIXED 32u
#define JD_DEBUG_ENTRY 16u     /* addr, line, discrim; then the name */
#define JD_UNWIND_FIXED 40u
#define JD_NO_FILE UINT32_MAX

struct jd_ent {
	uint64_t start, end;   /* [start, end): lookups; start is the load's code_addr */
	uint64_t seq;          /* the record's order in the file */
	uint64_t code_off;     /* the bytes' offset in the file; 0: none */
	uint32_t code_len;
	uint32_t name_off, name_len;
	uint32_t dbg_first, dbg_n;
	const char *interned;
};

struct jd_line {
	uint64_t addr;
	uint32_t line, file;
};

struct jd_file {
	uint32_t off, len;     /* in the arena */
};

struct jitdump {
	char *path;
	uint32_t root_pid, uid;
	struct intern *in;
	struct jd_ent *v, *add;
	size_t n, cap, nadd, add_cap;
	char *arena;
	size_t arena_n, arena_cap;
	struct jd_line *lines;
	size_t nlines, lines_cap;
	struct jd_file *files;
	size_t nfiles, files_cap;
	struct hashtab file_index;
	uint64_t pending_addr;            /* the last DEBUG_INFO's code_addr ... */
	uint32_t pending_first, pending_n; /* ... and its lines, until its load comes */
	bool pending;
	uint64_t off;                      /* bytes consumed (header and complete records) */
	uint64_t dev, ino;
	uint64_t last_check, seq;
	uint64_t max_bytes;
	size_t max_entries, max_lines;
	bool header_ok, found, more, is_static, stopped, closed;
	uint64_t records, skipped, evicted;
	bool warned_lines, warned_files;
	bool lines_full;       /* a compaction for room left the lines nearly full */
	size_t last;
	char line_file[JITDUMP_MAX_NAME + 1]; /* jitdump_line's */
};

struct jitdump *jitdump_new(const char *path, uint32_t root_pid, uint32_t uid, struct intern *in)
{
	struct jitdump *j = xcalloc(1, sizeof(*j));
	j->path = xstrdup(path);
	j->root_pid = root_pid;
	j->uid = uid;
	j->in = in;
	j->max_bytes = JITDUMP_MAX_BYTES;
	j->max_entries = JITDUMP_MAX_ENTRIES;
	j->max_lines = JITDUMP_MAX_LINES;
	hashtab_init(&j->file_index, 64, JITDUMP_MAX_FILES);
	return j;
}

void jitdump_free(struct jitdump *j)
{
	if (!j)
		return;
	free(j->v);
	free(j->add);
	free(j->arena);
	free(j->lines);
	free(j->files);
	hashtab_free(&j->file_index);
	free(j->path);
	free(j);
}

void jitdump_move_names(struct jitdump *j)
{
	for (size_t i = 0; j && i < j->n; i++)
		j->v[i].interned = NULL;
}

void jitdump_set_static(struct jitdump *j) { j->is_static = true; }
bool jitdump_found(const struct jitdump *j) { return j->found; }

void jitdump_set_limits(struct jitdump *j, uint64_t max_bytes, size_t max_entries,
			size_t max_lines)
{
	if (max_lines)
		j->max_lines = max_lines;
	if (max_bytes)
		j->max_bytes = max_bytes;
	if (max_entries)
		j->max_entries = max_entries;
}

void jitdump_get_stats(const struct jitdump *j, struct jitdump_stats *st)
{
	*st = (struct jitdump_stats){ .entries = j->n, .lines = j->nlines, .files = j->nfiles,
				      .records = j->records, .bytes = j->off, .skipped = j->skipped,
				      .evicted = j->evicted, .stopped = j->stopped };
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* ---- opening ---- */

/* A regular file of the right owner and size, never through a symlink, under the process's root
 * when it has its own (safefile_open), or -1; a refusal is said once. */
static int jd_open_checked(struct jitdump *j, struct stat *st)
{
	char why[160];
	const struct safefile_want want = { .root_pid = j->root_pid, .uid = j->uid,
					    .max_size = JITDUMP_MAX_FILE };
	int fd = safefile_open(j->path, &want, st, why, sizeof(why));
	if (fd < 0) {
		if (why[0]) {
			if (!j->found && !j->stopped)
				warn_msg("jitdump %s: not read: %s", j->path, why);
			j->stopped = true;
		}
		return -1;
	}
	j->found = true;
	return fd;
}

/* ---- names, files, lines ---- */

static uint32_t jd_arena_add(struct jitdump *j, const char *s, size_t n)
{
	xgrow((void **)&j->arena, &j->arena_cap, j->arena_n + n + 1, 1);
	uint32_t at = (uint32_t)j->arena_n;
	memcpy(j->arena + at, s, n);
	j->arena[at + n] = 0;
	j->arena_n += n + 1;
	return at;
}

/* Printable UTF-8 without control characters: a file name a srcline may show. (node 20's V8 writes
 * some names from freed memory: those give no line rather than garbage.) */
static bool jd_printable(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t k = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2
			 : (c & 0xf8) == 0xf0 ? 3 : 9;
		if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xc2) || k > 3 || n - i <= k)
			return false;
		for (size_t b = 1; b <= k; b++)
			if ((s[i + b] & 0xc0) != 0x80)
				return false;
		i += k + 1;
	}
	return n > 0;
}

/* The index of file name s (made on first sight), or JD_NO_FILE past the table's bound or for a
 * name that is no text. */
static uint32_t jd_file(struct jitdump *j, const char *s, size_t n)
{
	if (!jd_printable((const unsigned char *)s, n))
		return JD_NO_FILE;
	uint64_t h = hash_fnv1a(s, n);
	struct hashtab_iter it = hashtab_probe(&j->file_index, h);
	uint32_t v;
	while (hashtab_next(&j->file_index, &it, &v))
		if (j->files[v].len == n && !memcmp(j->arena + j->files[v].off, s, n))
			return v;
	if (j->nfiles >= JITDUMP_MAX_FILES || !hashtab_add(&j->file_index, &it, (uint32_t)j->nfiles)) {
		if (!j->warned_files) {
			j->warned_files = true;
			warn_msg("jitdump %s: over %d source files: the lines of later ones are not shown",
				 j->path, JITDUMP_MAX_FILES);
		}
		return JD_NO_FILE;
	}
	xgrow((void **)&j->files, &j->files_cap, j->nfiles + 1, sizeof(*j->files));
	j->files[j->nfiles] = (struct jd_file){ jd_arena_add(j, s, n), (uint32_t)n };
	return (uint32_t)j->nfiles++;
}

static int jd_line_cmp(const void *a, const void *b)
{
	const struct jd_line *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Rebuilds the names' arena and the lines from the live entries (the file table stays: the lines
 * point into it). */
static void jd_compact(struct jitdump *j)
{
	size_t names = 0, nl = 0;
	for (size_t i = 0; i < j->n; i++) {
		names += j->v[i].name_len + 1;
		nl += j->v[i].dbg_n;
	}
	for (size_t i = 0; i < j->nfiles; i++)
		names += j->files[i].len + 1;
	char *arena = xmalloc(names ? names : 1);
	struct jd_line *lines = xmalloc((nl ? nl : 1) * sizeof(*lines));
	size_t an = 0, ln = 0;
	for (size_t i = 0; i < j->nfiles; i++) {
		memcpy(arena + an, j->arena + j->files[i].off, j->files[i].len + 1);
		j->files[i].off = (uint32_t)an;
		an += j->files[i].len + 1;
	}
	for (size_t i = 0; i < j->n; i++) {
		struct jd_ent *e = &j->v[i];
		memcpy(arena + an, j->arena + e->name_off, e->name_len + 1);
		e->name_off = (uint32_t)an;
		an += e->name_len + 1;
		memcpy(lines + ln, j->lines + e->dbg_first, e->dbg_n * sizeof(*lines));
		e->dbg_first = (uint32_t)ln;
		ln += e->dbg_n;
	}
	free(j->arena);
	free(j->lines);
	j->arena = arena;
	j->arena_n = j->arena_cap = an;
	j->lines = lines;
	j->nlines = j->lines_cap = ln;
	j->pending = false;
	j->lines_full = false;
}

/* ---- the index ---- */

static int jd_ent_cmp(const void *a, const void *b)
{
	const struct jd_ent *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int jd_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Past max_entries, the oldest go, down to 7/8 of it (so that this runs once per many loads). */
static void jd_evict(struct jitdump *j)
{
	if (j->n <= j->max_entries)
		return;
	size_t keep = j->max_entries - j->max_entries / 8;
	uint64_t *seqs = xmalloc(j->n * sizeof(*seqs));
	for (size_t i = 0; i < j->n; i++)
		seqs[i] = j->v[i].seq;
	qsort(seqs, j->n, sizeof(*seqs), jd_u64_cmp);
	uint64_t cut = seqs[j->n - keep]; /* the oldest kept */
	free(seqs);
	size_t w = 0;
	for (size_t i = 0; i < j->n; i++)
		if (j->v[i].seq >= cut)
			j->v[w++] = j->v[i];
	j->evicted += j->n - w;
	j->n = w;
}

/* Appends e to the merged array under the overlap rule (top of the file). */
static void jd_push(struct jd_ent *out, size_t *n, const struct jd_ent *e)
{
	while (*n) {
		struct jd_ent *p = &out[*n - 1];
		if (p->end <= e->start)
			break;
		if (p->start == e->start || p->seq > e->seq) {
			if (p->seq > e->seq)
				return; /* e starts inside newer code: stale */
			(*n)--;         /* the same start: the newer one wins */
			continue;
		}
		p->end = e->start;
		break;
	}
	out[(*n)++] = *e;
}

static void jd_merge(struct jitdump *j)
{
	if (!j->nadd)
		return;
	qsort(j->add, j->nadd, sizeof(*j->add), jd_ent_cmp);
	struct jd_ent *out = xmalloc((j->n + j->nadd) * sizeof(*out));
	size_t i = 0, k = 0, n = 0;
	while (i < j->n || k < j->nadd) {
		bool old = k >= j->nadd || (i < j->n && jd_ent_cmp(&j->v[i], &j->add[k]) <= 0);
		jd_push(out, &n, old ? &j->v[i++] : &j->add[k++]);
	}
	free(j->v);
	j->v = out;
	j->n = j->cap = n;
	j->nadd = 0;
	j->last = 0;
	jd_evict(j);
	size_t live = 0;
	for (size_t e = 0; e < j->n; e++)
		live += j->v[e].name_len + 1u + j->v[e].dbg_n * sizeof(struct jd_line);
	size_t held = j->arena_n + j->nlines * sizeof(struct jd_line);
	if (held > (16u << 20) && held > 2 * live + (size_t)JITDUMP_MAX_FILES * 16)
		jd_compact(j);
}

/* The entry that starts at start, merged or in the batch (its last loads only: a move names code
 * loaded before it, and a search of a whole batch per move would let a file of moves cost n^2). */
static const struct jd_ent *jd_find_start(const struct jitdump *j, uint64_t start)
{
	for (size_t k = j->nadd, lim = 64; k-- > 0 && lim--;)
		if (j->add[k].start == start)
			return &j->add[k];
	size_t lo = 0, hi = j->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (j->v[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < j->n && j->v[lo].start == start ? &j->v[lo] : NULL;
}

static void jd_add(struct jitdump *j, const struct jd_ent *e)
{
	if (j->nadd >= JITDUMP_MAX_ENTRIES)
		jd_merge(j); /* a batch is bounded too */
	xgrow((void **)&j->add, &j->add_cap, j->nadd + 1, sizeof(*j->add));
	j->add[j->nadd++] = *e;
}

/* ---- records ---- */

/* The pending lines go to e, those inside its code only (its lines are sorted: a slice of them).
 * V8 adds 0x40 (the ELF header perf inject once put before the code) to its lines' addresses, so
 * the slice reaches that far past the end; an entry beyond is garbage (node 20 writes some). */
static void jd_attach_lines(struct jitdump *j, struct jd_ent *e)
{
	const struct jd_line *l = j->lines + j->pending_first;
	size_t lo = 0, hi = j->pending_n;
	while (lo < hi && l[lo].addr < e->start)
		lo++;
	while (hi > lo && l[hi - 1].addr >= e->end + 0x40)
		hi--;
	e->dbg_first = j->pending_first + (uint32_t)lo;
	e->dbg_n = (uint32_t)(hi - lo);
	j->pending = false;
}

static bool jd_load(struct jitdump *j, const uint8_t *r, uint32_t size, uint64_t file_off)
{
	if (size < JD_LOAD_FIXED + 1)
		return false;
	uint64_t addr = rd64(r + 32), len = rd64(r + 40);
	const char *name = (const char *)r + JD_LOAD_FIXED;
	const char *nul = memchr(name, 0, size - JD_LOAD_FIXED);
	if (!nul)
		return false;
	size_t nlen = (size_t)(nul - name);
	uint64_t room = size - JD_LOAD_FIXED - nlen - 1;
	if (!len || len > room || addr + len < addr)
		return false;
	struct jd_ent e = { .start = addr, .end = addr + len, .seq = ++j->seq,
			    .code_off = file_off + JD_LOAD_FIXED + nlen + 1,
			    .code_len = (uint32_t)len,
			    .name_len = (uint32_t)(nlen > JITDUMP_MAX_NAME ? JITDUMP_MAX_NAME : nlen) };
	e.name_off = jd_arena_add(j, name, e.name_len);
	if (j->pending && j->pending_addr == addr)
		jd_attach_lines(j, &e);
	jd_add(j, &e);
	return true;
}

static bool jd_move(struct jitdump *j, const uint8_t *r, uint32_t size)
{
	if (size < JD_MOVE_FIXED)
		return false;
	uint64_t from = rd64(r + 32), to = rd64(r + 40), len = rd64(r + 48);
	const struct jd_ent *old = jd_find_start(j, from);
	if (!len || to + len < to)
		return false;
	if (!old)
		return true; /* code we never saw loaded (evicted, or before a cap): nothing to name */
	struct jd_ent e = *old;
	e.start = to;
	e.end = to + len;
	e.seq = ++j->seq;
	e.interned = NULL;
	if (len != old->code_len)
		e.code_off = 0; /* not the bytes the load wrote */
	jd_add(j, &e);
	return true;
}

/* The lines of one DEBUG_INFO record: kept as the pending ones. Entries up to the first malformed
 * one are used. */
static bool jd_debug(struct jitdump *j, const uint8_t *r, uint32_t size)
{
	if (size < JD_DEBUG_FIXED)
		return false;
	uint64_t addr = rd64(r + 16), nr = rd64(r + 24);
	if (nr > (size - JD_DEBUG_FIXED) / (JD_DEBUG_ENTRY + 1))
		return false;
	if (j->nlines + nr > j->max_lines && !j->lines_full) {
		/* the batch's entries point into the lines and the arena too: merged first */
		jd_merge(j);
		jd_compact(j);
		/* a compaction that freed too little is not tried again at every record (a file of
		 * debug records would cost n^2): the next compaction of a merge clears this */
		j->lines_full = j->nlines + nr > j->max_lines / 2;
	}
	if (j->nlines + nr > j->max_lines) {
		if (!j->warned_lines) {
			j->warned_lines = true;
			warn_msg("jitdump %s: over %zu source lines: later code has none", j->path,
				 j->max_lines);
		}
		return false;
	}
	uint32_t first = (uint32_t)j->nlines, prev = JD_NO_FILE;
	size_t p = JD_DEBUG_FIXED;
	for (uint64_t i = 0; i < nr; i++) {
		if (size - p < JD_DEBUG_ENTRY + 1)
			break;
		const char *s = (const char *)r + p + JD_DEBUG_ENTRY;
		const char *nul = memchr(s, 0, size - p - JD_DEBUG_ENTRY);
		if (!nul)
			break;
		size_t n = (size_t)(nul - s);
		/* "\xff" repeats the previous entry's file (the format's shorthand) */
		uint32_t file = n == 1 && (uint8_t)s[0] == 0xff ? prev
			      : jd_file(j, s, n > JITDUMP_MAX_NAME ? JITDUMP_MAX_NAME : n);
		xgrow((void **)&j->lines, &j->lines_cap, j->nlines + 1, sizeof(*j->lines));
		j->lines[j->nlines++] = (struct jd_line){ rd64(r + p), rd32(r + p + 8), file };
		prev = file;
		p += JD_DEBUG_ENTRY + n + 1;
	}
	uint32_t got = (uint32_t)(j->nlines - first);
	if (got)  /* none read: j->lines may still be NULL, and NULL + 0 is undefined */
		qsort(j->lines + first, got, sizeof(*j->lines), jd_line_cmp);
	j->pending = true;
	j->pending_addr = addr;
	j->pending_first = first;
	j->pending_n = got;
	return got == nr;
}

static bool jd_unwind(const uint8_t *r, uint32_t size)
{
	if (size < JD_UNWIND_FIXED)
		return false;
	uint64_t unwind = rd64(r + 16), hdr = rd64(r + 24);
	/* Not used (V8's frames have frame pointers), but held to the record's own bounds. */
	return unwind <= size - JD_UNWIND_FIXED && hdr <= unwind;
}

/* One record (its prefix checked by the caller): false when malformed (skipped, counted). */
static bool jd_record(struct jitdump *j, const uint8_t *r, uint32_t size, uint64_t file_off)
{
	j->records++;
	switch (rd32(r)) {
	case JITDUMP_CODE_LOAD: return jd_load(j, r, size, file_off);
	case JITDUMP_CODE_MOVE: return jd_move(j, r, size);
	case JITDUMP_CODE_DEBUG_INFO: return jd_debug(j, r, size);
	case JITDUMP_CODE_UNWINDING_INFO: return jd_unwind(r, size);
	case JITDUMP_CODE_CLOSE: j->closed = true; return true;
	default: return true; /* a newer record type: the format says to skip it */
	}
}

/* ---- reading ---- */

static void jd_stop(struct jitdump *j, const char *why)
{
	if (!j->stopped)
		warn_msg("jitdump %s: %s at byte %" PRIu64 ": the rest is not read", j->path, why, j->off);
	j->stopped = true;
}

static bool jd_header(struct jitdump *j, int fd, uint64_t size)
{
	uint8_t h[JD_HEADER_SIZE];
	if (size < JD_HEADER_SIZE)
		return false; /* not written yet */
	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return false;
	uint32_t total = rd32(h + 8);
	if (rd32(h) != JITDUMP_MAGIC)
		jd_stop(j, rd32(h) == __builtin_bswap32(JITDUMP_MAGIC) ? "a big-endian dump"
								   : "no jitdump magic");
	else if (rd32(h + 4) < 1 || total < JD_HEADER_SIZE || total > 4096)
		jd_stop(j, "a bad header");
	if (j->stopped)
		return false;
	j->header_ok = true;
	j->off = total;
	return true;
}

static void jd_reset(struct jitdump *j)
{
	j->n = j->nadd = j->arena_n = j->nlines = j->nfiles = 0;
	j->off = j->seq = 0;
	j->last = 0;
	j->header_ok = j->pending = j->closed = j->stopped = false;
	hashtab_clear(&j->file_index);
}

/* Parses the complete records of buf (got bytes at j->off); returns the bytes consumed. Sets
 * *need when the first record is bigger than buf (read again with that many). */
static size_t jd_parse(struct jitdump *j, const uint8_t *buf, size_t got, uint64_t fsize,
		       size_t *need)
{
	size_t p = 0;
	*need = 0;
	while (got - p >= JD_PREFIX && !j->stopped && !j->closed) {
		uint32_t size = rd32(buf + p + 4);
		if (size < JD_PREFIX) {
			jd_stop(j, "a record smaller than its header");
			break;
		}
		if (size > JITDUMP_MAX_RECORD || j->off + p + size > j->max_bytes) {
			jd_stop(j, size > JITDUMP_MAX_RECORD ? "a record over 16 MiB" : "the byte cap");
			break;
		}
		if (size > got - p) {
			if (j->off + p + size <= fsize && p == 0)
				*need = size;
			break; /* the rest of it is in the next read (or not written yet) */
		}
		if (!jd_record(j, buf + p, size, j->off + p))
			j->skipped++;
		p += size;
	}
	return p;
}

/* Reads one chunk from j->off; sets j->more when there is more to read at once. */
static void jd_read_chunk(struct jitdump *j, int fd, uint64_t fsize)
{
	uint64_t limit = fsize < j->max_bytes ? fsize : j->max_bytes;
	size_t want = limit - j->off > JITDUMP_READ_CHUNK ? JITDUMP_READ_CHUNK : (size_t)(limit - j->off);
	for (int pass = 0; pass < 2 && want; pass++) {
		uint8_t *buf = xmalloc(want);
		size_t got = 0;
		while (got < want) {
			ssize_t r = pread(fd, buf + got, want - got, (off_t)(j->off + got));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		size_t need = 0;
		size_t used = jd_parse(j, buf, got, fsize, &need);
		free(buf);
		j->off += used;
		j->more = used && j->off < limit && !j->stopped && !j->closed;
		if (!need || used)
			break;
		want = need; /* one record bigger than a chunk (bounded by JITDUMP_MAX_RECORD) */
	}
	if (!j->stopped && fsize >= j->max_bytes && j->off + JD_PREFIX > j->max_bytes)
		jd_stop(j, "the byte cap");
}

void jitdump_refresh(struct jitdump *j, uint64_t now, bool force)
{
	if (!force && !j->more && j->last_check && now - j->last_check < JITDUMP_CHECK_NS)
		return;
	j->last_check = now ? now : 1;
	j->more = false;
	struct stat st;
	bool was_stopped = j->stopped;
	int fd = jd_open_checked(j, &st);
	if (fd < 0)
		return;
	uint64_t size = (uint64_t)st.st_size;
	if ((uint64_t)st.st_dev != j->dev || (uint64_t)st.st_ino != j->ino || size < j->off) {
		/* another file under the name (a new process with this pid) or rewritten */
		if (j->dev || j->ino) {
			jd_reset(j);
			was_stopped = false;
		}
		j->dev = (uint64_t)st.st_dev;
		j->ino = (uint64_t)st.st_ino;
	}
	if (was_stopped || j->closed) {
		close(fd);
		return;
	}
	if (j->header_ok || jd_header(j, fd, size))
		jd_read_chunk(j, fd, size);
	/* A replay's file is complete: a record cut short at its end is refused, not waited for (V8
	 * leaves one there at every exit: its last stdio buffer is never written whole). */
	if (j->is_static && !j->more && !j->stopped && !j->closed && j->off < size &&
	    j->off < j->max_bytes && j->header_ok)
		jd_stop(j, "a record cut short by the end of the file");
	jd_merge(j);
	close(fd);
}

/* ---- lookups ---- */

static struct jd_ent *jd_find(struct jitdump *j, uint64_t addr)
{
	if (!j->n)
		return NULL;
	size_t idx = j->last < j->n ? j->last : 0;
	if (addr >= j->v[idx].start && addr < j->v[idx].end)
		return &j->v[idx];
	size_t lo = 0, hi = j->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (j->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= j->v[lo - 1].end)
		return NULL;
	j->last = lo - 1;
	return &j->v[lo - 1];
}

/* The entry's line for addr: the last line at or before it. */
static const struct jd_line *jd_line_of(const struct jitdump *j, const struct jd_ent *e,
					uint64_t addr)
{
	if (!e->dbg_n)
		return NULL;
	const struct jd_line *l = j->lines + e->dbg_first;
	size_t lo = 0, hi = e->dbg_n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && l[lo - 1].line ? &l[lo - 1] : NULL;
}

/* The file the code's own name gives, V8's "JS:*fn /path/file.js:LINE:COL": its start and length
 * in *file, *n; false when the name has none. */
static bool jd_name_file(const struct jitdump *j, const struct jd_ent *e, const char **file, size_t *n)
{
	const char *name = j->arena + e->name_off, *end = name + e->name_len;
	const char *sp = memrchr(name, ' ', e->name_len);
	if (!sp)
		return false;
	const char *p = end;
	for (int colons = 0; colons < 2; colons++) {
		const char *d = p;
		while (d > sp && d[-1] >= '0' && d[-1] <= '9')
			d--;
		if (d == p || d - 1 <= sp || d[-1] != ':')
			return false;
		p = d - 1;
	}
	if (p - sp - 1 <= 0 || !jd_printable((const unsigned char *)sp + 1, (size_t)(p - sp - 1)))
		return false;
	*file = sp + 1;
	*n = (size_t)(p - sp - 1);
	return true;
}

/* The file of line l of e into buf: its record's name, else the file the code's own name gives.
 * node 20's V8 writes some debug records' names from freed memory, printable as often as not: a
 * record's name with no '/' that is not the code's own file is taken for such garbage when the
 * code's name gives a file (a script's name is a path or a URL; a builtin's, "node:events", is
 * its code's own). False when neither gives a file. */
static bool jd_line_file(const struct jitdump *j, const struct jd_ent *e, const struct jd_line *l,
			 char *buf, size_t len)
{
	const char *own = NULL;
	size_t own_n = 0;
	bool has_own = jd_name_file(j, e, &own, &own_n);
	if (l->file != JD_NO_FILE) {
		const struct jd_file *f = &j->files[l->file];
		const char *fn = j->arena + f->off;
		bool plausible = memchr(fn, '/', f->len) || (has_own && f->len == own_n &&
							      !memcmp(fn, own, own_n));
		if (plausible || !has_own) {
			snprintf(buf, len, "%.*s", (int)f->len, fn);
			return true;
		}
	}
	if (!has_own)
		return false;
	snprintf(buf, len, "%.*s", (int)own_n, own);
	return true;
}

static void jd_ensure(struct jitdump *j)
{
	if (j->is_static) {
		if (!j->last_check)
			do
				jitdump_refresh(j, 1, true);
			while (j->more);
		return;
	}
	jitdump_refresh(j, now_ns(), false);
}

bool jitdump_lookup(struct jitdump *j, uint64_t addr, bool want_line, struct jitdump_hit *hit)
{
	jd_ensure(j);
	struct jd_ent *e = jd_find(j, addr);
	if (!e && !j->is_static && now_ns() - j->last_check >= JITDUMP_MISS_CHECK_NS) {
		/* a miss is most often code whose record the runtime is about to write */
		jitdump_refresh(j, now_ns(), true);
		e = jd_find(j, addr);
	}
	if (!e)
		return false;
	if (!e->interned)
		e->interned = intern_strn(j->in, j->arena + e->name_off, e->name_len);
	*hit = (struct jitdump_hit){ .name = e->interned, .start = e->start, .has_code = e->code_off };
	const struct jd_line *l = want_line ? jd_line_of(j, e, addr) : NULL;
	char path[JITDUMP_MAX_NAME + 1];
	if (l && jd_line_file(j, e, l, path, sizeof(path))) {
		const char *base = strrchr(path, '/');
		char buf[JITDUMP_MAX_NAME + 16];
		int n = snprintf(buf, sizeof(buf), "%s:%" PRIu32, base ? base + 1 : path, l->line);
		if (n > 0)
			hit->srcline = intern_strn(j->in, buf, (size_t)n < sizeof(buf) ? (size_t)n
										 : sizeof(buf) - 1);
	}
	return true;
}

bool jitdump_line(struct jitdump *j, uint64_t addr, const char **file, unsigned *line)
{
	const struct jd_ent *e = jd_find(j, addr);
	const struct jd_line *l = e ? jd_line_of(j, e, addr) : NULL;
	if (!l || !jd_line_file(j, e, l, j->line_file, sizeof(j->line_file)))
		return false;
	*file = j->line_file;
	*line = l->line;
	return true;
}

size_t jitdump_code(struct jitdump *j, uint64_t start, size_t max, uint8_t **buf, char *err,
		    size_t errlen)
{
	*buf = NULL;
	jd_ensure(j);
	const struct jd_ent *e = jd_find(j, start);
	if (!e || e->start != start || !e->code_off) {
		snprintf(err, errlen, "jitdump %s has no code at 0x%" PRIx64, j->path, start);
		return 0;
	}
	struct stat st;
	int fd = jd_open_checked(j, &st);
	if (fd < 0 || (uint64_t)st.st_dev != j->dev || (uint64_t)st.st_ino != j->ino) {
		snprintf(err, errlen, "jitdump %s: cannot read it again", j->path);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	size_t len = e->code_len < max ? e->code_len : max;
	*buf = xmalloc(len ? len : 1);
	ssize_t got = pread(fd, *buf, len, (off_t)e->code_off);
	close(fd);
	if (got != (ssize_t)len) {
		free(*buf);
		*buf = NULL;
		snprintf(err, errlen, "jitdump %s: the code's bytes are cut short", j->path);
		return 0;
	}
	return len;
}
