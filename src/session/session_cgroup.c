/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session_cgroup: which cgroup and container each sample ran in, and the pid a containerized task
 * has in its own pid namespace, for the cgroup and container sort keys, the filter, the pushes per
 * container and the pid and tid columns. Main thread only (the session's).
 *
 * A sample's cgroup comes from its PERF_SAMPLE_CGROUP id, named by the PERF_RECORD_CGROUP records
 * (the kernel's for cgroups made while recording, perf's or the sampler's synthesis for those that
 * were there): recordings made with `perf record --all-cgroups` and live sessions on kernels from
 * 5.7. Live without ids (an older kernel, or an id no record named), the process's /proc/PID/cgroup
 * answers, in the hierarchy the perf_event controller is on. A replay never reads this machine:
 * its names come from the paths alone, since the recording's containers are another machine's.
 *
 * Each cgroup path is named once (container/: its short name, and live the runtime's state files
 * for the names people gave) and its strings interned with the symbolizer's names, so that the
 * model's rows compare them by pointer and the names' compaction moves them
 * (session_cgroups_move_names).
 */
#include <stdlib.h>
#include <string.h>

#include "container/container.h"
#include "session/session_int.h"
#include "util/cgroupfs.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/util.h"

/* Cgroups named at most: a machine with more is cut to the first ones seen, the rest unnamed. */
#define CGROUPS_MAX 8192
/* Processes whose /proc answers are cached (container/'s bound) and the direct-mapped memo of a
 * pid's entry in front of it (a sample's lookup must not copy /proc's 512-byte answer). */
#define CGROUP_PROCS_MAX 16384
#define CGROUP_PID_SLOTS 4096

struct session_cg {
	uint64_t id;               /* the kernel's id; 0: known by path alone (from /proc) */
	const char *path, *name;   /* interned */
	struct container_name cn;  /* the names the pushes' labels take */
};

struct cg_pid_slot {
	uint32_t pid, nspid;       /* pid 0: empty */
	int32_t entry;             /* -1: no cgroup known */
};

struct session_cgroups {
	struct session_cg *cg;
	size_t n, cap;
	struct hashtab by_id, by_path;
	struct proc_containers *procs; /* live only */
	struct cg_pid_slot pids[CGROUP_PID_SLOTS];
	bool names;                /* the keys, the filter or the pushes want the names */
	bool nspids;               /* the pid / tid keys, live: the namespaces' numbers */
	bool live;
	bool full_told;
};

static uint64_t id_hash(uint64_t id)
{
	return hash_mix64(id ^ 0x5bd1e9955bd1e995ULL);
}

/* By content, so that a path is found before it is interned and the index survives a compaction. */
static uint64_t path_hash(const char *path)
{
	return hash_str(0x9e3779b97f4a7c15ULL, path);
}

/* Value v put in t under hash h (the caller knows the key is not there yet). */
static void index_put(struct hashtab *t, uint64_t h, uint32_t v)
{
	struct hashtab_iter it = hashtab_probe(t, h);
	uint32_t other;
	while (hashtab_next(t, &it, &other))
		;
	hashtab_add(t, &it, v);
}

bool session_cgroups_wanted(const struct session_opts *opts)
{
	for (int i = 0; i < opts->nkeys; i++)
		if (opts->keys[i] == SORT_CGROUP || opts->keys[i] == SORT_CONTAINER)
			return true;
	return opts->push_per_container;
}

static bool nspids_wanted(const struct session_opts *opts)
{
	for (int i = 0; i < opts->nkeys; i++)
		if (opts->keys[i] == SORT_PID || opts->keys[i] == SORT_TID)
			return true;
	return false;
}

void session_cgroups_open(struct session *s, const struct session_opts *opts, bool live)
{
	for (int i = 0; i < opts->nkeys; i++) {
		s->fold_container = s->fold_container || opts->keys[i] == SORT_CONTAINER;
		s->fold_cgroup = s->fold_cgroup || opts->keys[i] == SORT_CGROUP;
	}
	bool names = session_cgroups_wanted(opts), nspids = live && nspids_wanted(opts);
	if (!names && !nspids)
		return;
	struct session_cgroups *c = xcalloc(1, sizeof(*c));
	c->names = names;
	c->nspids = nspids;
	c->live = live;
	hashtab_init(&c->by_id, 64, CGROUPS_MAX);
	hashtab_init(&c->by_path, 64, CGROUPS_MAX);
	if (live) {
		c->procs = proc_containers_new(CGROUP_PROCS_MAX, "/proc");
		struct cgroupfs_mount m;
		/* /proc/PID/cgroup's line of the hierarchy the sample ids are of */
		proc_containers_set_hierarchy(c->procs, cgroupfs_perf_event_mount(&m) == 0 && !m.v2 ?
						  "perf_event" : NULL);
	}
	s->cgroups = c;
}

void session_cgroups_close(struct session *s)
{
	struct session_cgroups *c = s->cgroups;
	if (!c)
		return;
	proc_containers_free(c->procs);
	hashtab_free(&c->by_id);
	hashtab_free(&c->by_path);
	free(c->cg);
	free(c);
	s->cgroups = NULL;
}

static long find_path(const struct session_cgroups *c, const char *path)
{
	struct hashtab_iter it = hashtab_probe(&c->by_path, path_hash(path));
	uint32_t v;
	while (hashtab_next(&c->by_path, &it, &v))
		if (!strcmp(c->cg[v].path, path))
			return v;
	return -1;
}

static long find_id(const struct session_cgroups *c, uint64_t id)
{
	struct hashtab_iter it = hashtab_probe(&c->by_id, id_hash(id));
	uint32_t v;
	while (hashtab_next(&c->by_id, &it, &v))
		if (c->cg[v].id == id)
			return v;
	return -1;
}

/* The entry of path (named the first time), or -1 when the table is full. */
static long entry_of_path(struct session *s, const char *raw_path)
{
	struct session_cgroups *c = s->cgroups;
	long e = find_path(c, raw_path[0] ? raw_path : "/");
	if (e >= 0)
		return e;
	if (c->n >= CGROUPS_MAX) {
		if (!c->full_told)
			warn_msg("more than %d cgroups: the others' samples are not named", CGROUPS_MAX);
		c->full_told = true;
		return -1;
	}
	xgrow((void **)&c->cg, &c->cap, c->n + 1, sizeof(*c->cg));
	struct session_cg *g = &c->cg[c->n];
	memset(g, 0, sizeof(*g));
	const char *path = g->path = symbolizer_name(s->sym, raw_path[0] ? raw_path : "/");
	/* A replay's containers are the recording machine's: their state files are not here. */
	char why[600];
	if (!c->live)
		container_from_path(path, &g->cn);
	else if (container_resolve_why(path, NULL, &g->cn, why, sizeof(why)))
		warn_msg("%s: the container keeps its id", why); /* once: each path is named once */
	g->name = symbolizer_name(s->sym, g->cn.name[0] ? g->cn.name : path);
	index_put(&c->by_path, path_hash(path), (uint32_t)c->n); /* room: n < CGROUPS_MAX */
	return (long)c->n++;
}

void session_cgroups_learn(struct session *s, const struct rec *r)
{
	struct session_cgroups *c = s->cgroups;
	if (!c || !c->names || r->type != REC_CGROUP)
		return;
	uint64_t id = r->u.cgroup.id;
	if (!id || find_id(c, id) >= 0) /* a replay's seek feeds the records again */
		return;
	long e = entry_of_path(s, rec_cgroup_path(r));
	if (e < 0 || c->cg[e].id) /* a path known under another id: a cgroup made again */
		return;
	c->cg[e].id = id;
	index_put(&c->by_id, id_hash(id), (uint32_t)e);
}

/* Live: pid's slot of the memo, filled from /proc when it holds another pid. */
static const struct cg_pid_slot *pid_slot(struct session *s, uint32_t pid)
{
	struct session_cgroups *c = s->cgroups;
	struct cg_pid_slot *slot = &c->pids[pid % CGROUP_PID_SLOTS];
	if (slot->pid == pid)
		return slot;
	struct proc_container_info info;
	slot->pid = pid;
	slot->entry = -1;
	slot->nspid = 0;
	if (!proc_containers_get(c->procs, pid, &info))
		return slot;
	if (c->names && info.cgroup[0])
		slot->entry = (int32_t)entry_of_path(s, info.cgroup);
	if (info.own_pidns)
		slot->nspid = info.nspid;
	return slot;
}

void session_cgroups_fill(struct session *s, const struct rec *r, struct sample_ctx *ctx)
{
	struct session_cgroups *c = s->cgroups;
	if (!c)
		return;
	long e = c->names && r->u.sample.cgroup ? find_id(c, r->u.sample.cgroup) : -1;
	/* /proc only when the sample's id does not answer, or for the namespace pids: under a churn
	 * of short processes, two reads of /proc per process is most of what this costs */
	bool ask_proc = c->procs && r->pid && r->pid != UINT32_MAX && (c->nspids || (c->names && e < 0));
	const struct cg_pid_slot *slot = ask_proc ? pid_slot(s, r->pid) : NULL;
	if (c->names && e < 0 && slot)
		e = slot->entry;
	if (e >= 0) {
		ctx->cgroup = c->cg[e].path;
		ctx->container = c->cg[e].name;
	}
	if (c->nspids && slot && slot->nspid) {
		ctx->nspid = slot->nspid;
		uint32_t nstid = 0;
		if (r->tid == r->pid)
			ctx->nstid = slot->nspid;
		else if (proc_containers_nstid(c->procs, r->pid, r->tid, &nstid))
			ctx->nstid = nstid;
	}
}

void session_cgroups_forget(struct session *s, const struct rec *r)
{
	struct session_cgroups *c = s->cgroups;
	if (!c || !c->procs || r->type != REC_EXIT || r->u.task.pid != r->u.task.tid)
		return;
	struct cg_pid_slot *slot = &c->pids[r->u.task.pid % CGROUP_PID_SLOTS];
	if (slot->pid == r->u.task.pid)
		slot->pid = 0;
	proc_containers_forget(c->procs, r->u.task.pid);
}

void session_cgroups_move_names(struct session *s)
{
	struct session_cgroups *c = s->cgroups;
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		c->cg[i].path = symbolizer_name(s->sym, c->cg[i].path);
		c->cg[i].name = symbolizer_name(s->sym, c->cg[i].name);
	}
}

const struct container_name *session_cgroups_labels(const struct session *s, const char *container)
{
	const struct session_cgroups *c = s->cgroups;
	/* the name interned, or a copy of it (an export collector's) */
	for (size_t i = 0; c && container && i < c->n; i++)
		if (c->cg[i].name == container || (c->cg[i].name && !strcmp(c->cg[i].name, container)))
			return &c->cg[i].cn;
	return NULL;
}
