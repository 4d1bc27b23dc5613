/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * synth: records for the processes that already existed when sampling started.
 *
 * The kernel only reports mappings and names as they change; for anything that was running
 * before, we read /proc: /proc/PID/task/TID/comm gives one COMM per thread, /proc/PID/maps one
 * MMAP2 per executable mapping (file-backed, [vdso], and anonymous executable memory as "//anon",
 * perf's name for JIT code). The records look like the kernel's (time 0, cpu unknown) so the code
 * downstream needs no special case. Processes can vanish at any moment: that is -ESRCH, not an
 * error worth reporting.
 */
#include "sampler/synth.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/perf_event.h>

#include "util/cgroupfs.h"
#include "util/util.h"

/* A struct rec with room for the longest path /proc shows. */
union synth_buf {
	struct rec rec;
	unsigned char bytes[sizeof(struct rec) + PATH_MAX + 16];
};

static void synth_header(struct rec *r, uint16_t type, uint32_t perf_type, uint32_t pid,
			 uint32_t tid)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	r->type = type;
	r->perf_type = perf_type;
	r->misc = PERF_RECORD_MISC_USER;
	r->pid = pid;
	r->tid = tid;
	r->cpu = REC_NO_CPU;
}

static int synth_comm(uint32_t pid, uint32_t tid, synth_emit_fn emit, void *ctx)
{
	char path[64], buf[64];
	struct rec r;
	long n;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	n = read_small_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	synth_header(&r, REC_COMM, PERF_RECORD_COMM, pid, tid);
	r.u.comm.pid = pid;
	r.u.comm.tid = tid;
	/* The kernel's comm is at most 15 characters; the record has room for 31. */
	buf[sizeof(r.u.comm.comm) - 1] = '\0';
	memcpy(r.u.comm.comm, buf, strlen(buf) + 1);
	return emit(ctx, &r) ? 1 : 0;
}

/* One line of /proc/PID/maps -> an MMAP2 record, or 0 when the mapping is not executable. */
static int synth_map_line(uint32_t pid, char *line, union synth_buf *b)
{
	unsigned long long start, end, pgoff, ino;
	unsigned maj, min;
	char perms[8];
	int used = 0;
	const char *name;
	size_t len;
	struct rec *r = &b->rec;
	struct rec_mmap *m = &r->u.mmap;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff, &maj, &min,
		   &ino, &used) < 7 || used == 0 || end <= start || strlen(perms) < 4)
		return -EINVAL;
	if (perms[2] != 'x')
		return 0;
	name = line + used;
	len = strlen(name);
	while (len > 0 && (name[len - 1] == '\n' || name[len - 1] == ' '))
		len--;
	if (len == 0) {
		name = "//anon";
		len = 6;
	}
	if (len > PATH_MAX)
		len = PATH_MAX;

	synth_header(r, REC_MMAP, PERF_RECORD_MMAP2, pid, pid);
	m->pid = pid;
	m->tid = pid;
	m->start = start;
	m->len = end - start;
	m->pgoff = pgoff;
	m->maj = maj;
	m->min = min;
	m->ino = ino;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
	m->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	m->is_mmap2 = 1;
	m->executable = 1;
	m->filename_off = sizeof(*r);
	memcpy(b->bytes + sizeof(*r), name, len);
	/* NUL plus zero padding up to the next multiple of 8. */
	memset(b->bytes + sizeof(*r) + len, 0, 8 - (len & 7));
	r->size = (uint32_t)(sizeof(*r) + ((len + 8) & ~(size_t)7));
	return 1;
}

static int synth_maps(uint32_t pid, synth_emit_fn emit, void *ctx)
{
	char path[64];
	char *line = NULL;
	size_t cap = 0;
	union synth_buf *b;
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	b = xmalloc(sizeof(*b));
	while (getline(&line, &cap, f) > 0) {
		if (synth_map_line(pid, line, b) == 1 && emit(ctx, &b->rec)) {
			ret = 1;
			break;
		}
	}
	free(b);
	free(line);
	fclose(f);
	return ret;
}

static int is_number(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* As synth_process, but 1 when emit asked to stop. */
static int synth_one(uint32_t pid, synth_emit_fn emit, void *ctx)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int ret = 0, any = 0;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(d)) != NULL) {
		if (!is_number(de->d_name))
			continue;
		ret = synth_comm(pid, (uint32_t)strtoul(de->d_name, NULL, 10), emit, ctx);
		if (ret > 0)
			break;
		if (ret == 0)
			any = 1;
		ret = 0;   /* a thread that just exited is not an error */
	}
	closedir(d);
	if (ret > 0)
		return 1;
	if (!any)
		return -ESRCH;
	ret = synth_maps(pid, emit, ctx);
	if (ret < 0 && ret != -ESRCH)
		ret = 0;   /* e.g. maps unreadable: the names alone are still worth having */
	return ret;
}

int synth_process(uint32_t pid, synth_emit_fn emit, void *ctx)
{
	int ret = synth_one(pid, emit, ctx);
	return ret > 0 ? 0 : ret;
}

int synth_all(uint64_t deadline_ns, int *truncated, synth_emit_fn emit, void *ctx)
{
	struct dirent *de;
	DIR *d;
	int done = 0, ret;

	*truncated = 0;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d)) != NULL) {
		if (!is_number(de->d_name))
			continue;
		if (now_ns() >= deadline_ns) {
			*truncated = 1;
			break;
		}
		ret = synth_one((uint32_t)strtoul(de->d_name, NULL, 10), emit, ctx);
		if (ret >= 0)
			done++;
		if (ret > 0)
			break;   /* the caller asked to stop: not a truncation by the deadline */
	}
	closedir(d);
	return done;
}

/* The cgroups' records, one after another in one buffer (each a multiple of 8 bytes). */
struct synth_cgroups {
	unsigned char *buf;
	size_t len, cap, n;
	bool truncated;
};

static void cgroup_rec(void *arg, uint64_t id, const char *path)
{
	struct synth_cgroups *c = arg;
	size_t plen = strnlen(path, PATH_MAX);
	size_t size = sizeof(struct rec) + ((plen + 8) & ~(size_t)7);
	xgrow((void **)&c->buf, &c->cap, c->len + size, 1);
	struct rec *r = (struct rec *)(c->buf + c->len);
	synth_header(r, REC_CGROUP, PERF_RECORD_CGROUP, 0, 0);
	r->misc = 0;
	r->size = (uint32_t)size;
	r->u.cgroup.id = id;
	r->u.cgroup.path_off = sizeof(*r);
	memset((unsigned char *)r + sizeof(*r), 0, size - sizeof(*r));
	memcpy((unsigned char *)r + sizeof(*r), path, plen);
	c->len += size;
	c->n++;
}

struct synth_cgroups *synth_cgroups_collect(size_t max)
{
	struct cgroupfs_mount m;
	if (cgroupfs_perf_event_mount(&m) != 0)
		return NULL;
	struct synth_cgroups *c = xcalloc(1, sizeof(*c));
	cgroupfs_walk(&m, max, cgroup_rec, c, &c->truncated);
	return c;
}

bool synth_cgroups_truncated(const struct synth_cgroups *c)
{
	return c && c->truncated;
}

size_t synth_cgroups_count(const struct synth_cgroups *c)
{
	return c ? c->n : 0;
}

void synth_cgroups_emit(const struct synth_cgroups *c, synth_emit_fn emit, void *ctx)
{
	for (size_t off = 0; c && off < c->len;) {
		const struct rec *r = (const struct rec *)(c->buf + off);
		if (emit(ctx, r))
			return;
		off += r->size;
	}
}

void synth_cgroups_free(struct synth_cgroups *c)
{
	if (!c)
		return;
	free(c->buf);
	free(c);
}
