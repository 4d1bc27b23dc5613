/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_tracing: HEADER_TRACING_DATA (feature bit 1) from tracefs, for perf report and perf
 * script to decode a recording's tracepoint samples.
 *
 * The section, in host byte order (the layout perf 6.1 writes, trace-cmd's version 0.6):
 *   "\027\010\104tracing", "0.6\0", endianness (0 little, 1 big), sizeof(long), page size (u32)
 *   "header_page\0", u64 size, events/header_page;  "header_event\0", u64 size, events/header_event
 *   u32 count, then each {u64 size, format} of the ftrace system's recorded events
 *   u32 count of systems, each: name NUL-terminated, u32 count, each {u64 size, format}
 *   u32 size + kallsyms (0: perf takes its symbols elsewhere), u32 size + printk_formats,
 *   u64 size + saved_cmdlines
 * Only the recorded events' formats go in, as perf does. tracefs files say size 0 in stat, so each
 * is read to its end, with a cap: a format or header file beyond it fails the section; printk
 * formats or cmdlines beyond it are written empty (perf accepts an empty one).
 */
#include "perfdata/perfdata_tracing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

#define TD_FILE_MAX (8u << 20)    /* one tracefs file */
#define TD_SCAN_MAX 100000        /* event directories looked at when searching by id */
#define TD_NAME_MAX 256

struct td_buf {
	unsigned char *p;
	size_t len, cap;
};

/* One recorded event, resolved: its system and name under events/. */
struct td_event {
	char sys[TD_NAME_MAX], name[TD_NAME_MAX];
	uint64_t id;
};

static void td_put(struct td_buf *b, const void *p, size_t n)
{
	xgrow((void **)&b->p, &b->cap, b->len + n + 1, 1);
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void td_u32(struct td_buf *b, uint32_t v)
{
	td_put(b, &v, sizeof(v));
}

static void td_u64(struct td_buf *b, uint64_t v)
{
	td_put(b, &v, sizeof(v));
}

/* A whole tracefs file (its stat size is 0), at most TD_FILE_MAX bytes; false when it cannot be
 * read or is longer. */
static bool read_whole(const char *path, struct td_buf *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	out->len = 0;
	for (;;) {
		xgrow((void **)&out->p, &out->cap, out->len + 65536, 1);
		ssize_t k = read(fd, out->p + out->len, out->cap - out->len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			close(fd);
			return k == 0;
		}
		out->len += (size_t)k;
		if (out->len > TD_FILE_MAX) {
			close(fd);
			return false;
		}
	}
}

static bool has_events(const char *root)
{
	char path[PATH_MAX];
	struct stat st;
	snprintf(path, sizeof(path), "%s/events/header_page", root);
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static const char *find_root(const char *root)
{
	static const char *const places[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	if (root)
		return has_events(root) ? root : NULL;
	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++)
		if (has_events(places[i]))
			return places[i];
	return NULL;
}

/* The id in events/SYS/NAME/id, or UINT64_MAX. */
static uint64_t event_id(const char *root, const char *sys, const char *name)
{
	char path[PATH_MAX], text[32];
	if ((size_t)snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, sys, name) >= sizeof(path))
		return UINT64_MAX;
	if (read_small_file(path, text, sizeof(text)) <= 0)
		return UINT64_MAX;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	return errno || end == text ? UINT64_MAX : (uint64_t)v;
}

/* Searches every events/SYS/NAME/id for id (a name that does not lead there: an alias, a
 * modifier we did not strip). */
static bool scan_for_id(const char *root, uint64_t id, struct td_event *ev)
{
	char path[PATH_MAX];
	size_t looked = 0;
	bool found = false;
	snprintf(path, sizeof(path), "%s/events", root);
	DIR *top = opendir(path);
	if (!top)
		return false;
	struct dirent *s;
	while (!found && looked < TD_SCAN_MAX && (s = readdir(top))) {
		if (s->d_name[0] == '.' || strlen(s->d_name) >= TD_NAME_MAX)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/events/%s", root, s->d_name) >= sizeof(path))
			continue;
		DIR *sub = opendir(path);
		if (!sub)
			continue;
		struct dirent *e;
		while (!found && looked < TD_SCAN_MAX && (e = readdir(sub))) {
			looked++;
			if (e->d_name[0] == '.' || strlen(e->d_name) >= TD_NAME_MAX)
				continue;
			if (event_id(root, s->d_name, e->d_name) == id) {
				snprintf(ev->sys, sizeof(ev->sys), "%s", s->d_name);
				snprintf(ev->name, sizeof(ev->name), "%s", e->d_name);
				found = true;
			}
		}
		closedir(sub);
	}
	closedir(top);
	return found;
}

/* The event's system and name: from "sys:name[:mods|/terms/]" when it leads to the id, else by
 * searching. */
static bool resolve(const char *root, const struct perfdata_tp *tp, struct td_event *ev)
{
	const char *name = tp->name ? tp->name : "", *colon = strchr(name, ':');
	ev->id = tp->id;
	if (colon && colon > name && (size_t)(colon - name) < TD_NAME_MAX) {
		size_t nl = strcspn(colon + 1, ":/ ");
		if (nl > 0 && nl < TD_NAME_MAX) {
			memcpy(ev->sys, name, (size_t)(colon - name));
			ev->sys[colon - name] = '\0';
			memcpy(ev->name, colon + 1, nl);
			ev->name[nl] = '\0';
			if (event_id(root, ev->sys, ev->name) == tp->id)
				return true;
		}
	}
	return scan_for_id(root, tp->id, ev);
}

/* "label\0", u64 size, then the file. */
static bool put_header_file(struct td_buf *b, const char *root, const char *label, struct td_buf *tmp)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/events/%s", root, label);
	if (!read_whole(path, tmp))
		return false;
	td_put(b, label, strlen(label) + 1);
	td_u64(b, tmp->len);
	td_put(b, tmp->p, tmp->len);
	return true;
}

/* u32 count, then {u64 size, format} of each event of sys among ev. */
static bool put_formats(struct td_buf *b, const char *root, const char *sys,
                        const struct td_event *ev, size_t n, struct td_buf *tmp)
{
	char path[PATH_MAX];
	uint32_t count = 0;
	for (size_t i = 0; i < n; i++)
		count += strcmp(ev[i].sys, sys) == 0;
	td_u32(b, count);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(ev[i].sys, sys) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, sys, ev[i].name);
		if (!read_whole(path, tmp))
			return false;
		td_u64(b, tmp->len);
		td_put(b, tmp->p, tmp->len);
	}
	return true;
}

/* The systems other than ftrace (which has a part of its own), each once, in first-seen order. */
static bool put_systems(struct td_buf *b, const char *root, const struct td_event *ev, size_t n,
                        struct td_buf *tmp)
{
	uint32_t nsys = 0;
	for (size_t i = 0; i < n; i++) {
		bool first = strcmp(ev[i].sys, "ftrace") != 0;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(ev[j].sys, ev[i].sys) != 0;
		nsys += first;
	}
	td_u32(b, nsys);
	for (size_t i = 0; i < n; i++) {
		bool first = strcmp(ev[i].sys, "ftrace") != 0;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(ev[j].sys, ev[i].sys) != 0;
		if (!first)
			continue;
		td_put(b, ev[i].sys, strlen(ev[i].sys) + 1);
		if (!put_formats(b, root, ev[i].sys, ev, n, tmp))
			return false;
	}
	return true;
}

/* printk_formats (u32 size) and saved_cmdlines (u64 size): empty when unreadable or too long. */
static void put_tail(struct td_buf *b, const char *root, struct td_buf *tmp)
{
	char path[PATH_MAX];
	td_u32(b, 0); /* kallsyms: perf reads the symbols from the kernel's mapping instead */
	snprintf(path, sizeof(path), "%s/printk_formats", root);
	bool ok = read_whole(path, tmp) && tmp->len <= UINT32_MAX;
	td_u32(b, ok ? (uint32_t)tmp->len : 0);
	if (ok)
		td_put(b, tmp->p, tmp->len);
	snprintf(path, sizeof(path), "%s/saved_cmdlines", root);
	ok = read_whole(path, tmp);
	td_u64(b, ok ? tmp->len : 0);
	if (ok)
		td_put(b, tmp->p, tmp->len);
}

bool perfdata_tracing_data(const char *root, const struct perfdata_tp *tp, size_t n,
                           unsigned char **out, size_t *len)
{
	static const unsigned char magic[] = { 027, 010, 0104, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const uint16_t one = 1;
	struct td_buf b = {0}, tmp = {0};
	struct td_event *ev;
	size_t nev = 0;
	bool ok = false;

	*out = NULL;
	*len = 0;
	if (!n || !(root = find_root(root)))
		return false;
	ev = xcalloc(n, sizeof(*ev));
	for (size_t i = 0; i < n; i++) {
		bool dup = false;
		for (size_t j = 0; j < nev && !dup; j++)
			dup = ev[j].id == tp[i].id;
		if (dup)
			continue;
		if (!resolve(root, &tp[i], &ev[nev]))
			goto done;
		nev++;
	}

	td_put(&b, magic, sizeof(magic));
	td_put(&b, "0.6", 4);
	unsigned char endian = *(const unsigned char *)&one == 1 ? 0 : 1, lsize = sizeof(long);
	td_put(&b, &endian, 1);
	td_put(&b, &lsize, 1);
	long page = sysconf(_SC_PAGESIZE);
	td_u32(&b, (uint32_t)(page > 0 ? page : 4096));
	if (!put_header_file(&b, root, "header_page", &tmp) ||
	    !put_header_file(&b, root, "header_event", &tmp) ||
	    !put_formats(&b, root, "ftrace", ev, nev, &tmp) ||
	    !put_systems(&b, root, ev, nev, &tmp))
		goto done;
	put_tail(&b, root, &tmp);
	ok = true;
done:
	free(ev);
	free(tmp.p);
	if (ok) {
		*out = b.p;
		*len = b.len;
	} else {
		free(b.p);
	}
	return ok;
}

/* ---- reading a section ---- */

/* A bounded cursor over a section; bad once anything would read past its end. */
struct td_cur {
	const unsigned char *p, *end;
	bool big;     /* written big-endian */
	bool bad;
};

static uint64_t td_num(struct td_cur *c, unsigned size)
{
	if (c->bad || (size_t)(c->end - c->p) < size) {
		c->bad = true;
		return 0;
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)c->p[i] << (8 * (c->big ? size - 1 - i : i));
	c->p += size;
	return v;
}

/* A NUL-terminated string; NULL (and bad) when it does not end inside the section. */
static const char *td_str(struct td_cur *c)
{
	if (c->bad)
		return NULL;
	const unsigned char *nul = memchr(c->p, 0, (size_t)(c->end - c->p));
	if (!nul) {
		c->bad = true;
		return NULL;
	}
	const char *s = (const char *)c->p;
	c->p = nul + 1;
	return s;
}

/* Skips {u64 size, bytes}; returns the bytes (and their size) or NULL. */
static const unsigned char *td_blob(struct td_cur *c, uint64_t *size)
{
	*size = td_num(c, 8);
	if (c->bad || *size > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return NULL;
	}
	const unsigned char *b = c->p;
	c->p += *size;
	return b;
}

/* The "name: X" line of a format file is X. */
static bool td_format_named(const unsigned char *f, uint64_t size, const char *name)
{
	size_t n = strlen(name);
	const unsigned char *end = f + size;
	for (const unsigned char *l = f; l < end;) {
		const unsigned char *nl = memchr(l, '\n', (size_t)(end - l));
		const unsigned char *le = nl ? nl : end;
		if ((size_t)(le - l) >= 6 + n && !memcmp(l, "name: ", 6))
			return (size_t)(le - l) == 6 + n && !memcmp(l + 6, name, n);
		l = le + 1;
	}
	return false;
}

bool perfdata_tracing_format(const unsigned char *p, size_t len, const char *system,
                             const char *name, const unsigned char **text, size_t *tlen)
{
	static const unsigned char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct td_cur c = { p, p + len, false, false };
	if (len < sizeof(magic) || memcmp(p, magic, sizeof(magic)))
		return false;
	c.p += sizeof(magic);
	td_str(&c);                     /* the version */
	c.big = td_num(&c, 1) != 0;
	td_num(&c, 1);                  /* sizeof(long) */
	td_num(&c, 4);                  /* page size */
	uint64_t size;
	for (int h = 0; h < 2 && !c.bad; h++) {
		td_str(&c);             /* "header_page", "header_event" */
		td_blob(&c, &size);
	}
	uint64_t nftrace = td_num(&c, 4);
	for (uint64_t i = 0; i < nftrace && !c.bad; i++)
		td_blob(&c, &size);
	uint64_t nsys = td_num(&c, 4);
	for (uint64_t i = 0; i < nsys && !c.bad; i++) {
		const char *sys = td_str(&c);
		uint64_t nev = td_num(&c, 4);
		for (uint64_t e = 0; e < nev && !c.bad; e++) {
			const unsigned char *f = td_blob(&c, &size);
			if (f && sys && !strcmp(sys, system) && td_format_named(f, size, name)) {
				*text = f;
				*tlen = (size_t)size;
				return true;
			}
		}
	}
	return false;
}
