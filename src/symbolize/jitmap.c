/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jitmap: /tmp/perf-PID.map files, read incrementally.
 *
 * The entries are one array sorted by start and searched by bisection. A JIT reuses addresses (code
 * is freed, moved by the GC, recompiled at another tier), so a later line must win: entries at the
 * same start keep the newest line, and an entry that runs into the next one is cut at its start, which
 * keeps the ranges disjoint and every lookup unambiguous. New lines are parsed into a batch, sorted,
 * and merged into the array, so a refresh costs O(old + new log new), never a full re-sort.
 *
 * The file is opened anew on each refresh through safefile_open (no symlink followed, a regular file
 * of the process's user or root, at most JITMAP_MAX_FILE: the name is in /tmp, where anyone may plant
 * one) and read with pread from where the last complete line ended; a line still being written is
 * left for the next refresh. A refused file is said once, by name and reason, and nothing of it is read.
 */
#include "symbolize/jitmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/intern.h"
#include "util/safefile.h"
#include "util/util.h"

struct jit_ent {
	uint64_t start, end;
	uint32_t name_off, name_len;  /* in the arena */
	const char *interned;         /* set on the first lookup that returns it */
};

struct jitmap {
	char *path;            /* as messages name it */
	char *in_root;         /* with root_pid: the path inside the process's root */
	uint32_t root_pid, uid; /* safefile_want's */
	bool refused;          /* a refusal was said: not again until the file has been read */
	struct intern *in;
	struct jit_ent *v;
	size_t n, cap;
	char *arena;
	size_t arena_n, arena_cap;
	uint64_t off;          /* bytes of the file consumed (complete lines) */
	uint64_t dev, ino;     /* identity of the file read so far */
	uint64_t last_check;   /* now_ns of the last stat; 0: never */
	uint64_t max_bytes;    /* JITMAP_MAX_BYTES unless a test says otherwise */
	bool more;             /* the last refresh stopped at the chunk limit: continue at once */
	bool is_static;        /* a replay's: read whole once, then never again */
	bool truncated, warned;
	bool found;            /* the file was opened at least once */
	bool reread;           /* jitmap_reread: start over at the next refresh */
	uint64_t malformed;
	size_t last;           /* index of the last hit: samples come in runs */
};

struct jitmap *jitmap_new(const char *path, struct intern *in)
{
	struct jitmap *j = xcalloc(1, sizeof(*j));
	j->path = xstrdup(path);
	j->in = in;
	j->max_bytes = JITMAP_MAX_BYTES;
	j->uid = UINT32_MAX;
	return j;
}

void jitmap_set_source(struct jitmap *j, uint32_t root_pid, const char *in_root, uint32_t uid)
{
	free(j->in_root);
	j->in_root = root_pid && in_root ? xstrdup(in_root) : NULL;
	j->root_pid = j->in_root ? root_pid : 0;
	j->uid = uid;
}

void jitmap_move_names(struct jitmap *j)
{
	for (size_t i = 0; j && i < j->n; i++)
		j->v[i].interned = NULL;
}

void jitmap_free(struct jitmap *j)
{
	if (!j)
		return;
	free(j->v);
	free(j->arena);
	free(j->path);
	free(j->in_root);
	free(j);
}

void jitmap_set_max_bytes(struct jitmap *j, uint64_t n) { j->max_bytes = n; }
size_t jitmap_count(const struct jitmap *j) { return j->n; }
uint64_t jitmap_malformed(const struct jitmap *j) { return j->malformed; }
bool jitmap_truncated(const struct jitmap *j) { return j->truncated; }
bool jitmap_found(const struct jitmap *j) { return j->found; }

static int jit_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A hex number at *p (optional 0x), at most 16 digits; advances *p. */
static bool jit_parse_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	uint64_t v = 0;
	int digits = 0;
	for (; s < end && jit_hex(*s) >= 0; s++) {
		if (++digits > 16)
			return false;
		v = v << 4 | (uint64_t)jit_hex(*s);
	}
	if (!digits)
		return false;
	*out = v;
	*p = s;
	return true;
}

static bool jit_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

bool jitmap_parse_line(const char *line, size_t len, uint64_t *start, uint64_t *size,
		       const char **name, size_t *namelen)
{
	const char *p = line, *end = line + len;
	while (p < end && jit_blank(*p))
		p++;
	if (!jit_parse_hex(&p, end, start) || p == end || !jit_blank(*p))
		return false;
	while (p < end && jit_blank(*p))
		p++;
	if (!jit_parse_hex(&p, end, size) || p == end || !jit_blank(*p))
		return false;
	while (p < end && jit_blank(*p))
		p++;
	while (end > p && jit_blank(end[-1]))
		end--;
	if (p == end || !*size || *start + *size < *start)
		return false;
	*name = p;
	*namelen = (size_t)(end - p);
	return true;
}

static void jit_reset(struct jitmap *j)
{
	j->n = 0;
	j->arena_n = 0;
	j->off = 0;
	j->last = 0;
	j->truncated = false;
}

static uint32_t jit_arena_add(struct jitmap *j, const char *s, size_t n)
{
	xgrow((void **)&j->arena, &j->arena_cap, j->arena_n + n + 1, 1);
	uint32_t at = (uint32_t)j->arena_n;
	memcpy(j->arena + at, s, n);
	j->arena[at + n] = 0;
	j->arena_n += n + 1;
	return at;
}

struct jit_new {
	struct jit_ent e;
	size_t seq;  /* line order within the batch: the later line wins */
};

static int jit_new_cmp(const void *a, const void *b)
{
	const struct jit_new *x = a, *y = b;
	if (x->e.start != y->e.start)
		return x->e.start < y->e.start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Merges a batch (in file order) into the sorted array; see the top of the file for the rules. */
static void jit_merge(struct jitmap *j, struct jit_new *add, size_t nadd)
{
	if (!nadd)
		return;
	qsort(add, nadd, sizeof(*add), jit_new_cmp);
	struct jit_ent *out = xmalloc((j->n + nadd) * sizeof(*out));
	size_t i = 0, k = 0, n = 0;
	while (i < j->n || k < nadd) {
		struct jit_ent e;
		if (k >= nadd || (i < j->n && j->v[i].start < add[k].e.start)) {
			e = j->v[i++];
		} else {
			/* The newest line for this start: the last of the batch's run; older ones go. */
			while (k + 1 < nadd && add[k + 1].e.start == add[k].e.start)
				k++;
			e = add[k++].e;
			if (i < j->n && j->v[i].start == e.start)
				i++;
		}
		if (n && out[n - 1].end > e.start)
			out[n - 1].end = e.start;
		out[n++] = e;
	}
	free(j->v);
	j->v = out;
	j->n = j->cap = n;
	j->last = 0;
}

/* Parses the complete lines of buf[0, len); returns the bytes consumed. */
static size_t jit_parse_buf(struct jitmap *j, const char *buf, size_t len, bool at_eof_chunk)
{
	struct jit_new *add = NULL;
	size_t nadd = 0, cap = 0, used = 0;
	for (;;) {
		const char *nl = memchr(buf + used, '\n', len - used);
		if (!nl)
			break;
		size_t ll = (size_t)(nl - (buf + used));
		uint64_t start, size;
		const char *name;
		size_t nlen;
		if (jitmap_parse_line(buf + used, ll, &start, &size, &name, &nlen)) {
			if (nlen > JITMAP_MAX_NAME)
				nlen = JITMAP_MAX_NAME;
			xgrow((void **)&add, &cap, nadd + 1, sizeof(*add));
			add[nadd] = (struct jit_new){
				.e = { .start = start, .end = start + size,
				       .name_off = jit_arena_add(j, name, nlen), .name_len = (uint32_t)nlen },
				.seq = nadd,
			};
			nadd++;
		} else if (ll) {
			j->malformed++;
		}
		used += ll + 1;
	}
	/* A whole chunk without a newline is no line of ours: skip it rather than stall on it. */
	if (!used && !at_eof_chunk && len) {
		j->malformed++;
		used = len;
	}
	jit_merge(j, add, nadd);
	free(add);
	return used;
}

void jitmap_refresh(struct jitmap *j, uint64_t now, bool force)
{
	if (!force && !j->more && j->last_check && now - j->last_check < JITMAP_CHECK_NS)
		return;
	j->last_check = now ? now : 1;
	j->more = false;
	struct stat st;
	char why[160];
	const struct safefile_want want = { .root_pid = j->root_pid, .uid = j->uid,
					    .max_size = JITMAP_MAX_FILE };
	int fd = safefile_open(j->root_pid ? j->in_root : j->path, &want, &st, why, sizeof(why));
	if (fd < 0) {
		/* once: a refresh comes every JITMAP_CHECK_NS, a warning must not */
		if (why[0] && !j->refused)
			warn_msg("%s: not read: %s", j->path, why);
		j->refused = j->refused || why[0];
		return;
	}
	j->refused = false;
	j->found = true;
	uint64_t size = (uint64_t)st.st_size;
	if ((uint64_t)st.st_dev != j->dev || (uint64_t)st.st_ino != j->ino || size < j->off ||
	    j->reread) {
		/* Another file under the name (a new process with this pid) or rewritten: start over. */
		j->reread = false;
		jit_reset(j);
		j->dev = (uint64_t)st.st_dev;
		j->ino = (uint64_t)st.st_ino;
	}
	uint64_t limit = size < j->max_bytes ? size : j->max_bytes;
	if (j->off < limit && !j->truncated) {
		size_t want = (size_t)(limit - j->off);
		bool last_chunk = true;
		if (want > JITMAP_READ_CHUNK) {
			want = JITMAP_READ_CHUNK;
			last_chunk = false;
		}
		char *buf = xmalloc(want);
		size_t got = 0;
		while (got < want) {
			ssize_t r = pread(fd, buf + got, want - got, (off_t)(j->off + got));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		j->off += jit_parse_buf(j, buf, got, last_chunk && got == want);
		free(buf);
		j->more = !last_chunk && got == want;
		if (last_chunk && size > j->max_bytes)
			j->truncated = true;  /* read up to the cap: the rest stays unread */
	}
	if (j->truncated && !j->warned) {
		j->warned = true;
		warn_msg("%s is over %llu KiB: only the JIT symbols of its first %llu KiB are used",
			 j->path, (unsigned long long)j->max_bytes >> 10,
			 (unsigned long long)j->max_bytes >> 10);
	}
	close(fd);
}

static bool jit_find(struct jitmap *j, uint64_t addr, const char **name, uint64_t *start);

void jitmap_reread(struct jitmap *j)
{
	j->reread = true;
	j->last_check = 0;
	j->more = false;
}

void jitmap_set_static(struct jitmap *j)
{
	j->is_static = true;
}

bool jitmap_lookup(struct jitmap *j, uint64_t addr, const char **name, uint64_t *start)
{
	if (j->is_static) {
		if (!j->last_check)
			do
				jitmap_refresh(j, 1, true); /* chunk by chunk, up to the cap */
			while (j->more);
		return jit_find(j, addr, name, start);
	}
	uint64_t now = now_ns();
	jitmap_refresh(j, now, false);
	if (jit_find(j, addr, name, start))
		return true;
	/* A miss is most often code whose line the JIT is about to write: look again sooner. */
	if (now - j->last_check < JITMAP_MISS_CHECK_NS)
		return false;
	jitmap_refresh(j, now, true);
	return jit_find(j, addr, name, start);
}

static bool jit_find(struct jitmap *j, uint64_t addr, const char **name, uint64_t *start)
{
	if (!j->n)
		return false;
	size_t idx = j->last < j->n ? j->last : 0;
	if (!(addr >= j->v[idx].start && addr < j->v[idx].end)) {
		size_t lo = 0, hi = j->n;  /* first entry starting after addr */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (j->v[mid].start <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo || addr >= j->v[lo - 1].end)
			return false;
		idx = lo - 1;
		j->last = idx;
	}
	struct jit_ent *e = &j->v[idx];
	if (!e->interned)
		e->interned = intern_strn(j->in, j->arena + e->name_off, e->name_len);
	*name = e->interned;
	*start = e->start;
	return true;
}
