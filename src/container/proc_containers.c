// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * proc_containers: a process's cgroup path and pid-namespace numbers, read once from /proc and then
 * answered from a bounded table (container.h). One table holds processes (keyed by pid) and the
 * threads asked for by tid (keyed by tid, with their process's pid), indexed by util's hashtab;
 * when it is full the least recently used entry goes (a clock: each entry's bit is set when it is
 * used, and the hand clears bits until it finds one unset), so that a machine with more processes
 * than the bound costs reads, never memory.
 *
 * The files are the kernel's (/proc/PID/cgroup, /proc/PID/status, /proc/PID/ns/pid), read with one
 * bounded read each into a scratch buffer the table owns: a cgroup path past 511 bytes is cut,
 * a status past the buffer loses its NSpid (then 0: unknown).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/container.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/util.h"

#define SCRATCH (64u << 10)
#define NO_ENTRY UINT32_MAX

struct pc_entry {
	uint32_t key;       /* pid, or tid for a thread's entry */
	uint32_t pid;       /* the process (== key for a process's entry) */
	uint32_t nsid;      /* NSpid's last field: the pid's or the tid's */
	uint32_t next_free; /* in the free list */
	bool used, ref, own_pidns;
	char cgroup[512];   /* processes only */
};

struct proc_containers {
	struct pc_entry *e;
	size_t max, cap, top; /* e's bound, its allocation, how many of it were ever used */
	size_t count, threads, hand;
	uint32_t free_head;
	struct hashtab idx;
	char proc[256];
	char controller[64]; /* "" for the v2 line */
	bool have_self_ns;
	dev_t self_dev;
	ino_t self_ino;
	char *scratch;
};

static bool ns_of(const char *path, dev_t *dev, ino_t *ino)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return false;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return true;
}

struct proc_containers *proc_containers_new(size_t max, const char *proc_root)
{
	struct proc_containers *pc = xcalloc(1, sizeof(*pc));
	pc->max = max ? max : 1;
	if (pc->max >= NO_ENTRY)
		pc->max = NO_ENTRY - 1;
	pc->free_head = NO_ENTRY;
	hashtab_init(&pc->idx, 16, SIZE_MAX);
	snprintf(pc->proc, sizeof(pc->proc), "%s", proc_root && *proc_root ? proc_root : "/proc");
	char path[300];
	snprintf(path, sizeof(path), "%s/self/ns/pid", pc->proc);
	pc->have_self_ns = ns_of(path, &pc->self_dev, &pc->self_ino);
	pc->scratch = xmalloc(SCRATCH);
	return pc;
}

void proc_containers_free(struct proc_containers *pc)
{
	if (!pc)
		return;
	hashtab_free(&pc->idx);
	free(pc->e);
	free(pc->scratch);
	free(pc);
}

size_t proc_containers_count(const struct proc_containers *pc)
{
	return pc->count;
}

static struct pc_entry *find(struct proc_containers *pc, uint32_t key, struct hashtab_iter *it)
{
	*it = hashtab_probe(&pc->idx, hash_mix64(key));
	uint32_t v;
	while (hashtab_next(&pc->idx, it, &v))
		if (pc->e[v].key == key)
			return &pc->e[v];
	return NULL;
}

static void drop(struct proc_containers *pc, struct pc_entry *en)
{
	struct hashtab_iter it;
	if (find(pc, en->key, &it) == en)
		hashtab_del(&pc->idx, &it);
	if (en->key != en->pid)
		pc->threads--;
	en->used = false;
	en->next_free = pc->free_head;
	pc->free_head = (uint32_t)(en - pc->e);
	pc->count--;
}

void proc_containers_set_hierarchy(struct proc_containers *pc, const char *controller)
{
	snprintf(pc->controller, sizeof(pc->controller), "%s", controller ? controller : "");
	for (size_t i = 0; i < pc->top; i++)
		if (pc->e[i].used)
			drop(pc, &pc->e[i]);
}

/* A slot for a new entry: a free one, a new one below max, or the clock's victim. */
static struct pc_entry *slot(struct proc_containers *pc)
{
	if (pc->free_head != NO_ENTRY) {
		struct pc_entry *en = &pc->e[pc->free_head];
		pc->free_head = en->next_free;
		return en;
	}
	if (pc->top < pc->max) {
		if (pc->top == pc->cap) {
			pc->cap = pc->cap ? pc->cap * 2 : 16;
			if (pc->cap > pc->max)
				pc->cap = pc->max;
			pc->e = xrealloc(pc->e, pc->cap * sizeof(*pc->e));
		}
		return &pc->e[pc->top++];
	}
	/* full, nothing free: every entry is used; two turns at most find one unreferenced */
	for (;;) {
		struct pc_entry *en = &pc->e[pc->hand];
		pc->hand = (pc->hand + 1) % pc->top;
		if (en->ref) {
			en->ref = false;
			continue;
		}
		drop(pc, en);
		pc->free_head = en->next_free; /* drop put it first on the list: take it back */
		return en;
	}
}

static struct pc_entry *insert(struct proc_containers *pc, uint32_t key, uint32_t pid)
{
	struct pc_entry *en = slot(pc);
	memset(en, 0, sizeof(*en));
	en->key = key;
	en->pid = pid;
	en->used = en->ref = true;
	struct hashtab_iter it;
	if (find(pc, key, &it) || !hashtab_add(&pc->idx, &it, (uint32_t)(en - pc->e)))
		die("proc_containers: index out of memory");
	pc->count++;
	if (key != pid)
		pc->threads++;
	return en;
}

/* path's text into the scratch buffer, NUL-terminated; its length, or -1. */
static ssize_t read_scratch(struct proc_containers *pc, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	size_t got = 0;
	while (got < SCRATCH - 1) {
		ssize_t r = read(fd, pc->scratch + got, SCRATCH - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	pc->scratch[got] = '\0';
	return (ssize_t)got;
}

/* controllers (a v1 line's comma-separated list) holds want. */
static bool list_has(const char *list, size_t n, const char *want)
{
	size_t w = strlen(want);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && list[j] != ',')
			j++;
		if (j - i == w && memcmp(list + i, want, w) == 0)
			return true;
		i = j + 1;
	}
	return false;
}

/* The cgroup path of /proc/PID/cgroup's chosen line; false when the file could not be read. */
static bool read_cgroup(struct proc_containers *pc, uint32_t pid, char *out, size_t cap)
{
	char path[300];
	snprintf(path, sizeof(path), "%s/%" PRIu32 "/cgroup", pc->proc, pid);
	out[0] = '\0';
	if (read_scratch(pc, path) < 0)
		return false;
	const char *v2 = NULL, *v1 = NULL;
	for (const char *l = pc->scratch; *l;) {
		const char *nl = strchr(l, '\n');
		const char *end = nl ? nl : l + strlen(l);
		const char *c1 = memchr(l, ':', (size_t)(end - l));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
		if (c2) {
			/* the first of each: a path holding a newline cannot put a line before its own */
			if (!v2 && c1 - l == 1 && l[0] == '0' && c2 == c1 + 1)
				v2 = c2 + 1;
			if (!v1 && pc->controller[0] && list_has(c1 + 1, (size_t)(c2 - c1 - 1), pc->controller))
				v1 = c2 + 1;
		}
		l = nl ? nl + 1 : end;
	}
	const char *p = v1 ? v1 : v2;
	if (p) {
		size_t n = strcspn(p, "\n");
		if (n >= cap)
			n = cap - 1;
		memcpy(out, p, n);
		out[n] = '\0';
	}
	return true;
}

/* NSpid's last field of a status file; 0 when it has none. False when it could not be read. */
static bool read_nspid(struct proc_containers *pc, const char *path, uint32_t *nsid)
{
	*nsid = 0;
	if (read_scratch(pc, path) < 0)
		return false;
	const char *l = strstr(pc->scratch, "\nNSpid:");
	if (!l)
		return true;
	l += 7;
	const char *end = strchr(l, '\n');
	if (!end)
		end = l + strlen(l);
	unsigned long v = 0;
	for (const char *s = l; s < end;) {
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (s >= end)
			break;
		char *e;
		errno = 0;
		unsigned long x = strtoul(s, &e, 10);
		if (e == s || errno)
			return true;
		v = x;
		s = e;
	}
	*nsid = v <= UINT32_MAX ? (uint32_t)v : 0;
	return true;
}

static void fill(const struct pc_entry *en, struct proc_container_info *out)
{
	memcpy(out->cgroup, en->cgroup, sizeof(out->cgroup));
	out->nspid = en->nsid;
	out->own_pidns = en->own_pidns;
}

bool proc_containers_get(struct proc_containers *pc, uint32_t pid, struct proc_container_info *out)
{
	struct hashtab_iter it;
	struct pc_entry *en = find(pc, pid, &it);
	if (en && en->pid == pid) {
		en->ref = true;
		fill(en, out);
		return true;
	}
	if (en)
		drop(pc, en); /* a thread's entry of a tid now reused as a pid */
	char cgroup[512], path[300];
	uint32_t nsid;
	bool have_cgroup = read_cgroup(pc, pid, cgroup, sizeof(cgroup));
	snprintf(path, sizeof(path), "%s/%" PRIu32 "/status", pc->proc, pid);
	bool have_status = read_nspid(pc, path, &nsid);
	if (!have_cgroup && !have_status)
		return false;
	en = insert(pc, pid, pid);
	memcpy(en->cgroup, cgroup, sizeof(en->cgroup));
	en->nsid = have_status ? nsid : 0;
	dev_t dev;
	ino_t ino;
	snprintf(path, sizeof(path), "%s/%" PRIu32 "/ns/pid", pc->proc, pid);
	en->own_pidns = pc->have_self_ns && ns_of(path, &dev, &ino) &&
			(dev != pc->self_dev || ino != pc->self_ino);
	fill(en, out);
	return true;
}

bool proc_containers_nstid(struct proc_containers *pc, uint32_t pid, uint32_t tid, uint32_t *nstid)
{
	if (tid == pid) {
		struct proc_container_info info;
		if (!proc_containers_get(pc, pid, &info) || !info.nspid)
			return false;
		*nstid = info.nspid;
		return true;
	}
	struct hashtab_iter it;
	struct pc_entry *en = find(pc, tid, &it);
	if (en && en->pid == pid) {
		en->ref = true;
		*nstid = en->nsid;
		return en->nsid != 0;
	}
	if (en)
		drop(pc, en); /* the tid was another process's, or a process's own pid */
	char path[300];
	uint32_t nsid;
	snprintf(path, sizeof(path), "%s/%" PRIu32 "/task/%" PRIu32 "/status", pc->proc, pid, tid);
	if (!read_nspid(pc, path, &nsid))
		return false;
	en = insert(pc, tid, pid);
	en->nsid = nsid;
	*nstid = nsid;
	return nsid != 0;
}

void proc_containers_forget(struct proc_containers *pc, uint32_t pid)
{
	struct hashtab_iter it;
	struct pc_entry *en = find(pc, pid, &it);
	bool process = en && en->pid == pid;
	if (en)
		drop(pc, en);
	/* its threads' entries: a walk only while some thread is cached */
	for (size_t i = 0; process && pc->threads && i < pc->top; i++)
		if (pc->e[i].used && pc->e[i].pid == pid && pc->e[i].key != pid)
			drop(pc, &pc->e[i]);
}
