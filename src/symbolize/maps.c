/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * maps: processes and their executable mappings.
 *
 * Lookups are the hot path (every user frame of every sample), so a process's mappings are one
 * sorted array of non-overlapping ranges searched by bisection, and the last process looked up is
 * remembered (the frames of a sample all belong to one pid). Records are rare by comparison, so
 * inserting a mapping just shifts the array.
 *
 * The array lives in a refcounted mapset so a FORK costs a reference, not a copy; the first change
 * to a shared set (usually the child's exec, which drops it anyway) makes the copy. Each map of a
 * set holds a reference on its dso, so the dso set may evict only binaries no process maps.
 *
 * Memory stays bounded: dead processes queue in a fixed ring and the oldest is freed when a newer one
 * needs its place; exited threads drop their comm at once; /proc reads for unknown pids are
 * rate-limited and each pid is read at most once.
 *
 * Sources (deleted, replaced, containers): the dso layer shares one dso among all processes mapping a
 * file, so the choice is made once per dso, on its first lookup, through the process that asks. The
 * rule is "the file the process really maps": /proc/PID/map_files/START-END always is (while the
 * process lives and we may look), but a plain path keeps the debug-link search next to the binary
 * working, so a path is preferred whenever it leads to the very inode the map_files link does.
 */
#include "symbolize/maps.h"

#include <errno.h>
#include <signal.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "symbolize/dso.h"
#include "symbolize/intern.h"
#include "symbolize/jitdump.h"
#include "symbolize/jitmap.h"
#include "symbolize/vdso.h"
#include "util/hash.h"
#include "util/safefile.h"
#include "util/util.h"

/* ---- a small uint32 -> pointer table (linear probing, values never NULL) ---- */

struct u32tab {
	uint32_t *keys;
	void **vals;
	size_t cap, n;  /* cap: 0 or a power of two */
};

static size_t u32tab_home(const struct u32tab *t, uint32_t key)
{
	return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 32) & (t->cap - 1);
}

static void *u32tab_get(const struct u32tab *t, uint32_t key)
{
	if (!t->cap)
		return NULL;
	for (size_t i = u32tab_home(t, key);; i = (i + 1) & (t->cap - 1)) {
		if (!t->vals[i])
			return NULL;
		if (t->keys[i] == key)
			return t->vals[i];
	}
}

static void u32tab_put(struct u32tab *t, uint32_t key, void *val);

static void u32tab_grow(struct u32tab *t)
{
	struct u32tab old = *t;
	t->cap = old.cap ? old.cap * 2 : 8;
	t->n = 0;
	t->keys = xcalloc(t->cap, sizeof(*t->keys));
	t->vals = xcalloc(t->cap, sizeof(*t->vals));
	for (size_t i = 0; i < old.cap; i++)
		if (old.vals[i])
			u32tab_put(t, old.keys[i], old.vals[i]);
	free(old.keys);
	free(old.vals);
}

static void u32tab_put(struct u32tab *t, uint32_t key, void *val)
{
	if ((t->n + 1) * 4 > t->cap * 3)
		u32tab_grow(t);
	size_t i = u32tab_home(t, key);
	while (t->vals[i] && t->keys[i] != key)
		i = (i + 1) & (t->cap - 1);
	if (!t->vals[i])
		t->n++;
	t->keys[i] = key;
	t->vals[i] = val;
}

/* Removes key; later entries of the probe run move back so no tombstones are needed. */
static void u32tab_del(struct u32tab *t, uint32_t key)
{
	if (!t->cap)
		return;
	size_t mask = t->cap - 1, i = u32tab_home(t, key);
	while (t->vals[i] && t->keys[i] != key)
		i = (i + 1) & mask;
	if (!t->vals[i])
		return;
	t->vals[i] = NULL;
	t->n--;
	for (size_t j = (i + 1) & mask; t->vals[j]; j = (j + 1) & mask) {
		size_t h = u32tab_home(t, t->keys[j]);
		/* Entry j may fill hole i only if its home is not in the cyclic range (i, j]. */
		if (!probe_must_move(h, i, j))
			continue;
		t->keys[i] = t->keys[j];
		t->vals[i] = t->vals[j];
		t->vals[j] = NULL;
		i = j;
	}
}

static void u32tab_done(struct u32tab *t)
{
	free(t->keys);
	free(t->vals);
	*t = (struct u32tab){ 0 };
}

/* ---- mapsets ---- */

struct mapset {
	unsigned refs;
	struct map *v;
	size_t n, cap;
};

static struct mapset *mapset_new(void)
{
	struct mapset *ms = xcalloc(1, sizeof(*ms));
	ms->refs = 1;
	return ms;
}

static void mapset_unref(struct mapset *ms)
{
	if (ms && --ms->refs == 0) {
		for (size_t i = 0; i < ms->n; i++)
			dso_unref(ms->v[i].dso);
		free(ms->v);
		free(ms);
	}
}

/* The set to modify: ms itself when unshared, else a private copy (dropping one reference). */
static struct mapset *mapset_own(struct mapset *ms)
{
	if (ms->refs == 1)
		return ms;
	struct mapset *c = mapset_new();
	if (ms->n) {
		c->v = xmalloc(ms->n * sizeof(*c->v));
		memcpy(c->v, ms->v, ms->n * sizeof(*c->v));
		c->n = c->cap = ms->n;
		for (size_t i = 0; i < c->n; i++)
			dso_ref(c->v[i].dso);
	}
	ms->refs--;
	return c;
}

/* Index of the first map ending after addr (ends are sorted as the maps do not overlap). */
static size_t mapset_first_after(const struct mapset *ms, uint64_t addr)
{
	size_t lo = 0, hi = ms->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ms->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct map *mapset_find(const struct mapset *ms, uint64_t addr)
{
	size_t i = mapset_first_after(ms, addr);
	if (i < ms->n && ms->v[i].start <= addr)
		return &ms->v[i];
	return NULL;
}

static bool mapset_overlaps(const struct mapset *ms, uint64_t start, uint64_t end)
{
	size_t i = mapset_first_after(ms, start);
	return i < ms->n && ms->v[i].start < end;
}

/* Inserts nm; the parts of older maps it covers are cut away (the kernel replaced them). */
static void mapset_insert(struct mapset *ms, const struct map *nm)
{
	size_t i = mapset_first_after(ms, nm->start);
	size_t j = i;
	while (j < ms->n && ms->v[j].start < nm->end)
		j++;
	struct map repl[3];
	size_t k = 0;
	if (i < j && ms->v[i].start < nm->start) {
		repl[k] = ms->v[i];
		repl[k++].end = nm->start;
	}
	repl[k++] = *nm;
	if (i < j && ms->v[j - 1].end > nm->end) {
		struct map r = ms->v[j - 1];
		r.pgoff += nm->end - r.start;
		r.start = nm->end;
		repl[k++] = r;
	}
	size_t old = j - i;
	/* Each map holds a reference on its dso (dso.h: unreferenced ones may be evicted). */
	for (size_t q = 0; q < k; q++)
		dso_ref(repl[q].dso);
	for (size_t q = i; q < j; q++)
		dso_unref(ms->v[q].dso);
	xgrow((void **)&ms->v, &ms->cap, ms->n - old + k, sizeof(*ms->v));
	memmove(&ms->v[i + k], &ms->v[j], (ms->n - j) * sizeof(*ms->v));
	memcpy(&ms->v[i], repl, k * sizeof(*repl));
	ms->n = ms->n - old + k;
}

/* ---- processes ---- */

struct proc {
	uint32_t pid;
	bool dead;
	bool complete;   /* the maps came from a fork/exec we saw: no need to ask /proc */
	bool fs_tried;   /* /proc/PID/maps was read (or could not be) */
	uint64_t dead_seq;
	struct mapset *ms;
	/* The maps before its last exec, until it runs in the new image: a sample the kernel takes
	 * inside execve after the exec's COMM record still carries the old image's user address (its
	 * registers are the old program's until the new one starts), as perf report names it. */
	struct mapset *pre_exec;
	const char *comm;
	struct u32tab threads;  /* tid -> interned comm */
	bool ns_read;           /* root_differs and nspid were read from /proc (live only) */
	bool root_differs;      /* its / is not ours: paths resolve under /proc/PID/root */
	bool mnt_differs;       /* its mount namespace is not ours: its /tmp may not be ours either */
	uint32_t nspid;         /* its pid in its own pid namespace (NSpid), else pid */
	struct jitmap *jit;     /* its perf map, made on the first JIT lookup */
	char *jd_path;          /* the jit-PID.dump it mapped (its MMAP record's path), or NULL */
	struct jitdump *jd;     /* that dump, made on the first JIT lookup */
	bool jit_looked;        /* a JIT lookup found neither a perf map nor a jitdump */
	const char *jit_dso;    /* "[JIT] tid PID", interned */
	/* A HotSpot JVM (it maps libjvm.so), asked for its perf map (see maps_jvm_take). */
	bool jvm;
	uint8_t jvm_state;      /* enum proc_jvm_state */
	uint8_t jvm_laters;     /* "later" answers in a row */
	uint8_t jvm_soons;      /* "soon" answers */
	bool jvm_answered;      /* it wrote its map once (its flags were asked for then) */
	uint32_t jvm_misses;    /* JIT lookups its map did not answer since it was last written */
	uint32_t jvm_lookups;   /* ... and all its JIT lookups since */
	uint64_t jvm_next_ns;   /* not asked again before this */
	uint64_t jvm_map_ns;    /* when it last wrote its map */
};

enum proc_jvm_state {
	JVM_IDLE,
	JVM_ASKED,              /* due (in maps.jvm_due) or being asked: its answer is awaited */
	JVM_NEVER,              /* refused, or gave no answer MAPS_JVM_LATER_MAX times */
};

struct maps_dead {
	uint32_t pid;
	uint64_t seq;
};

struct maps {
	struct dso_set *dsos;
	struct intern *in;
	struct u32tab procs;
	struct proc *last;
	size_t alive;
	struct maps_dead dead[MAPS_DEAD_MAX];
	size_t dead_head, dead_n;
	uint64_t dead_seq;
	uint64_t read_window_ns;
	unsigned reads_in_window;
	uint64_t reads;
	bool offline;
	struct vdso *vdso;
	bool root_known;
	struct stat root;       /* our own / */
	struct stat mnt;        /* our own mount namespace (its st_ino 0: unknown) */
	/* JVMs due to be asked for their perf map (maps_jvm_take), unless jit_attach is off. */
	bool jit_attach;
	struct maps_jvm_due jvm_due[MAPS_JVM_DUE_MAX];
	int jvm_due_n;
	size_t sweep_pos;       /* maps_sweep: where the last sweep stopped in the table */
	uint64_t sweep_ns;
	uint64_t swept;
};

struct maps *maps_new(struct dso_set *dsos, struct intern *in)
{
	struct maps *m = xcalloc(1, sizeof(*m));
	m->dsos = dsos;
	m->in = in;
	m->jit_attach = true;
	return m;
}

static void proc_destroy(struct proc *p)
{
	jitmap_free(p->jit);
	jitdump_free(p->jd);
	free(p->jd_path);
	mapset_unref(p->ms);
	mapset_unref(p->pre_exec);
	u32tab_done(&p->threads);
	free(p);
}

void maps_move_names(struct maps *m)
{
	for (size_t i = 0; i < m->procs.cap; i++) {
		struct proc *p = m->procs.vals[i];
		if (!p)
			continue;
		p->comm = intern_move(m->in, p->comm);
		p->jit_dso = intern_move(m->in, p->jit_dso);
		for (size_t t = 0; t < p->threads.cap; t++)
			if (p->threads.vals[t])
				p->threads.vals[t] = (void *)intern_move(m->in, p->threads.vals[t]);
		jitmap_move_names(p->jit);
		jitdump_move_names(p->jd);
	}
}

void maps_free(struct maps *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->procs.cap; i++)
		if (m->procs.vals[i])
			proc_destroy(m->procs.vals[i]);
	u32tab_done(&m->procs);
	vdso_free(m->vdso);
	free(m);
}

void maps_set_offline(struct maps *m, bool offline)
{
	m->offline = offline;
}

static struct proc *proc_get(struct maps *m, uint32_t pid)
{
	if (m->last && m->last->pid == pid)
		return m->last;
	struct proc *p = u32tab_get(&m->procs, pid);
	if (p)
		m->last = p;
	return p;
}

/* A JVM queued to be asked is another process now (an exec, a reused pid): its place in the queue
 * goes, or the old ask would be taken for the new process's. */
static void maps_jvm_unqueue(struct maps *m, const struct proc *p)
{
	if (p->jvm_state != JVM_ASKED)
		return;
	int k = 0;
	for (int i = 0; i < m->jvm_due_n; i++)
		if (m->jvm_due[i].pid != p->pid)
			m->jvm_due[k++] = m->jvm_due[i];
	m->jvm_due_n = k;
}

static void proc_remove(struct maps *m, struct proc *p)
{
	maps_jvm_unqueue(m, p);
	if (m->last == p)
		m->last = NULL;
	if (!p->dead)
		m->alive--;
	u32tab_del(&m->procs, p->pid);
	proc_destroy(p);
}

static struct proc *proc_create(struct maps *m, uint32_t pid)
{
	struct proc *old = u32tab_get(&m->procs, pid);
	if (old)
		proc_remove(m, old);
	struct proc *p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->ms = mapset_new();
	u32tab_put(&m->procs, pid, p);
	m->alive++;
	return p;
}

/* The process a record speaks of. A dead one means the pid was reused (we missed the FORK). */
static struct proc *proc_for_record(struct maps *m, uint32_t pid)
{
	struct proc *p = proc_get(m, pid);
	if (p && !p->dead)
		return p;
	return proc_create(m, pid);
}

static void proc_mark_dead(struct maps *m, struct proc *p)
{
	if (p->dead)
		return;
	p->dead = true;
	p->dead_seq = ++m->dead_seq;
	m->alive--;
	if (m->dead_n == MAPS_DEAD_MAX) {
		struct maps_dead *o = &m->dead[m->dead_head];
		struct proc *victim = u32tab_get(&m->procs, o->pid);
		/* Unless that pid has come back to life (or died again, queued later) since. */
		if (victim && victim->dead && victim->dead_seq == o->seq)
			proc_remove(m, victim);
		m->dead_head = (m->dead_head + 1) % MAPS_DEAD_MAX;
		m->dead_n--;
	}
	m->dead[(m->dead_head + m->dead_n) % MAPS_DEAD_MAX] = (struct maps_dead){ p->pid, p->dead_seq };
	m->dead_n++;
}

static void proc_set_thread_comm(struct proc *p, uint32_t tid, const char *comm)
{
	if (comm)
		u32tab_put(&p->threads, tid, (void *)comm);
	if (tid == p->pid && comm)
		p->comm = comm;
}

static const char *proc_thread_comm(const struct proc *p, uint32_t tid)
{
	const char *c = u32tab_get(&p->threads, tid);
	return c ? c : p->comm;
}

/*
 * A process whose EXIT record was lost (a ring overrun under load) would stay alive here for good,
 * with its maps and thread comms; under days of churn that is a leak. Live, a few processes are
 * checked at each call (at most once a second), and one the kernel no longer has is marked dead,
 * as its EXIT would have: freed once the dead ring pushes it out.
 */
void maps_sweep(struct maps *m)
{
	uint64_t now = now_ns();
	if (m->offline || !m->procs.cap || now - m->sweep_ns < 1000000000ull)
		return;
	m->sweep_ns = now;
	for (size_t k = 0; k < MAPS_SWEEP_PER_SEC && k < m->procs.cap; k++) {
		size_t i = m->sweep_pos++ & (m->procs.cap - 1);
		struct proc *p = m->procs.vals[i];
		if (!p || p->dead || p->pid == 0)
			continue;
		if (kill((pid_t)p->pid, 0) != 0 && errno == ESRCH) {
			proc_mark_dead(m, p);
			m->swept++;
		}
	}
}

static void mapset_mark_live(const struct mapset *ms, uint64_t now)
{
	for (size_t i = 0; ms && i < ms->n; i++)
		dso_mark_live(ms->v[i].dso, now);
}

void maps_mark_live(struct maps *m, uint64_t now)
{
	for (size_t i = 0; i < m->procs.cap; i++) {
		const struct proc *p = m->procs.vals[i];
		if (p && !p->dead) {
			mapset_mark_live(p->ms, now);
			mapset_mark_live(p->pre_exec, now);
		}
	}
}

uint64_t maps_swept(const struct maps *m)
{
	return m->swept;
}

/* ---- records ---- */

static bool maps_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* What a mapping's name says it is; anonymous memory as perf counts it (its JIT code lives there). */
static uint8_t maps_kind(const char *path)
{
	if (strcmp(path, "[vdso]") == 0)
		return MAP_KIND_VDSO;
	/* A region named by prctl(PR_SET_VMA_ANON_NAME) ("[anon:v8]") is that name, as perf shows
	 * it: not JIT code of the process's perf map. */
	/* Executable memory of no file, [heap], [stack...] and SysV shared memory included, is code
	 * a JIT wrote, named by its perf map as perf names it ("[JIT] tid PID"). */
	if (strcmp(path, "//anon") == 0 || maps_has_prefix(path, "/dev/zero") ||
	    maps_has_prefix(path, "/anon_hugepage") || strcmp(path, "[heap]") == 0 ||
	    maps_has_prefix(path, "[stack") || maps_has_prefix(path, "/SYSV"))
		return MAP_KIND_ANON;
	if (path[0] == '/' && path[1] != '/' && !maps_has_prefix(path, "/memfd:") &&
	    !maps_has_prefix(path, "/SYSV") && !maps_has_prefix(path, "/dev/") &&
	    !maps_has_prefix(path, "/dmabuf") && !maps_has_prefix(path, "/proc/"))
		return MAP_KIND_FILE;
	return MAP_KIND_OTHER;
}

/* "jit-PID.dump", the name perf looks for in a process's mappings: the runtime maps its dump
 * executable so that the mapping marks it (jitdump.h). */
static bool maps_is_jitdump(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	if (strncmp(b, "jit-", 4) != 0)
		return false;
	b += 4;
	const char *d = b;
	while (*d >= '0' && *d <= '9')
		d++;
	return d > b && d - b <= 10 && strcmp(d, ".dump") == 0;
}

/* The process's dump is the last one it mapped (a runtime opens one per process). */
static void proc_set_jitdump(struct proc *p, const char *path)
{
	if (!maps_is_jitdump(path) || strlen(path) >= 4096 || (p->jd_path && !strcmp(p->jd_path, path)))
		return;
	jitdump_free(p->jd);
	p->jd = NULL;
	free(p->jd_path);
	p->jd_path = xstrdup(path);
}

/* HotSpot's library: the process is a JVM (src/runtime/jvmattach.h checks again before asking). */
static bool maps_is_libjvm(const char *path)
{
	static const char lib[] = "/libjvm.so", gone[] = "/libjvm.so (deleted)";
	size_t n = strlen(path);
	return (n >= sizeof(lib) - 1 && !strcmp(path + n - (sizeof(lib) - 1), lib)) ||
	       (n >= sizeof(gone) - 1 && !strcmp(path + n - (sizeof(gone) - 1), gone));
}

/* The process's JVM state starts over (a new process, or an exec). */
static void proc_jvm_reset(struct proc *p, bool jvm)
{
	p->jvm = jvm;
	p->jvm_state = JVM_IDLE;
	p->jvm_laters = 0;
	p->jvm_soons = 0;
	p->jvm_answered = false;
	p->jvm_misses = 0;
	p->jvm_lookups = 0;
	p->jvm_next_ns = 0;
	p->jvm_map_ns = 0;
}

static void maps_feed_mmap(struct maps *m, const struct rec *r)
{
	const struct rec_mmap *mm = &r->u.mmap;
	if (!mm->executable || !mm->len)
		return;
	/* perf writes the kernel's map up to the end of the address space (start + len wraps to 0,
	 * or past it): it ends at the top. */
	uint64_t end = mm->start + mm->len < mm->start ? UINT64_MAX : mm->start + mm->len;
	if (mm->filename_off < sizeof(struct rec) || mm->filename_off >= r->size)
		return;
	const char *fn = rec_filename(r);
	size_t room = r->size - mm->filename_off;
	if (strnlen(fn, room) == room)
		return;  /* not terminated inside the record */
	struct dso_id id = {
		.build_id = mm->has_build_id ? mm->build_id : NULL,
		.build_id_size = mm->has_build_id ? mm->build_id_size : 0,
		.maj = mm->has_build_id ? 0 : mm->maj,
		.min = mm->has_build_id ? 0 : mm->min,
		.ino = mm->has_build_id ? 0 : mm->ino,
	};
	struct proc *p = proc_for_record(m, mm->pid);
	if (mm->pid == UINT32_MAX && maps_has_prefix(fn, "[kernel.kallsyms]")) {
		/* The kernel's own map of a recording covers _text to _etext, but the kernel's code
		 * goes on past it (.init.text: start_kernel, the idle task's callers): perf report
		 * names those addresses from the kernel's symbols, so the map reaches up to the next
		 * kernel map above it (a module's, which cuts it when it comes later) or the top. */
		size_t i = mapset_first_after(p->ms, mm->start);
		end = i < p->ms->n && p->ms->v[i].start > mm->start ? p->ms->v[i].start : UINT64_MAX;
	}
	struct map nm = { mm->start, end, mm->pgoff, dso_set_get(m->dsos, fn, &id),
			  id.ino, mm->ksymbol && mm->pid == UINT32_MAX ? MAP_KIND_KSYM : maps_kind(fn),
			  mm->has_build_id };
	p->ms = mapset_own(p->ms);
	mapset_insert(p->ms, &nm);
	if (nm.kind == MAP_KIND_FILE)
		proc_set_jitdump(p, fn);
	if (!p->jvm && maps_is_libjvm(fn))
		p->jvm = true;
}

static void maps_feed_comm(struct maps *m, const struct rec *r)
{
	const struct rec_comm *c = &r->u.comm;
	struct proc *p = proc_for_record(m, c->pid);
	const char *comm = intern_strn(m->in, c->comm, strnlen(c->comm, sizeof(c->comm)));
	if (c->exec || (r->misc & (1u << 13)) /* PERF_RECORD_MISC_COMM_EXEC */) {
		mapset_unref(p->pre_exec);
		p->pre_exec = p->ms;
		p->ms = mapset_new();
		p->complete = true;
		/* exec kills the other threads; their comms would only mislead a reused tid. */
		u32tab_done(&p->threads);
		p->comm = NULL;
		jitdump_free(p->jd);
		p->jd = NULL;
		free(p->jd_path);
		p->jd_path = NULL;
		p->jit_looked = false;
		maps_jvm_unqueue(m, p);
		proc_jvm_reset(p, false);
	}
	proc_set_thread_comm(p, c->tid, comm);
	if (c->tid == c->pid || !p->comm)
		p->comm = comm;
}

static void maps_feed_fork(struct maps *m, const struct rec *r)
{
	const struct rec_task *t = &r->u.task;
	if (t->pid != t->ppid) {
		struct proc *parent = proc_get(m, t->ppid);
		const char *comm = parent ? proc_thread_comm(parent, t->ptid) : NULL;
		struct mapset *pms = NULL;
		bool complete = false;
		if (parent) {
			pms = parent->ms;
			pms->refs++;  /* before proc_create: it may free a stale proc sharing it */
			complete = parent->complete || parent->fs_tried;
		}
		struct proc *child = proc_create(m, t->pid);
		if (pms) {
			mapset_unref(child->ms);
			child->ms = pms;
		}
		child->complete = complete;
		child->jvm = parent && parent->jvm;
		proc_set_thread_comm(child, t->tid, comm);
		return;
	}
	struct proc *p = proc_for_record(m, t->pid);
	const char *comm = proc_thread_comm(p, t->ptid);
	proc_set_thread_comm(p, t->tid, comm);
}

static void maps_feed_exit(struct maps *m, const struct rec *r)
{
	const struct rec_task *t = &r->u.task;
	struct proc *p = proc_get(m, t->pid);
	if (!p)
		return;
	if (t->pid == t->tid)
		proc_mark_dead(m, p);
	else if (!p->dead)
		u32tab_del(&p->threads, t->tid);
}

void maps_feed(struct maps *m, const struct rec *r)
{
	switch (r->type) {
	case REC_MMAP: maps_feed_mmap(m, r); break;
	case REC_COMM: maps_feed_comm(m, r); break;
	case REC_FORK: maps_feed_fork(m, r); break;
	case REC_EXIT: maps_feed_exit(m, r); break;
	default: break;
	}
}

/* ---- /proc fallback ---- */

static bool maps_read_allowed(struct maps *m)
{
	uint64_t now = now_ns();
	if (now - m->read_window_ns >= 1000000000ull) {
		m->read_window_ns = now;
		m->reads_in_window = 0;
	}
	if (m->reads_in_window >= MAPS_PROC_READS_PER_SEC)
		return false;
	m->reads_in_window++;
	return true;
}

/* Parses one line of /proc/PID/maps into p (only gaps are filled: records are at least as new). */
static void maps_read_line(struct maps *m, struct proc *p, char *line)
{
	unsigned long long start, end, off, ino;
	unsigned maj, min;
	char perms[8];
	int pos = 0;
	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj, &min, &ino,
		   &pos) < 7)
		return;
	if (strlen(perms) < 3 || perms[2] != 'x' || end <= start)
		return;
	char *path = line + pos;
	path[strcspn(path, "\n")] = 0;
	if (!path[0])
		path = "//anon";
	if (mapset_overlaps(p->ms, start, end))
		return;
	struct dso_id id = { .maj = maj, .min = min, .ino = ino };
	struct map nm = { start, end, off, dso_set_get(m->dsos, path, &id), ino, maps_kind(path), false };
	p->ms = mapset_own(p->ms);
	mapset_insert(p->ms, &nm);
	if (nm.kind == MAP_KIND_FILE)
		proc_set_jitdump(p, path);
	if (!p->jvm && maps_is_libjvm(path))
		p->jvm = true;
}

/* Reads /proc/PID/maps and comm once. Returns false when rate-limited (to be tried again later). */
static bool maps_read_proc(struct maps *m, struct proc *p)
{
	if (!maps_read_allowed(m))
		return false;
	p->fs_tried = true;
	m->reads++;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", p->pid);
	FILE *f = fopen(path, "re");
	if (!f) {
		if (!p->ms->n)
			proc_mark_dead(m, p);  /* gone: keep the empty entry only as long as the dead */
		return true;
	}
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0)
		maps_read_line(m, p, line);
	free(line);
	fclose(f);
	if (!p->comm) {
		char buf[64];
		snprintf(path, sizeof(path), "/proc/%" PRIu32 "/comm", p->pid);
		long n = read_small_file(path, buf, sizeof(buf));
		if (n > 0) {
			buf[strcspn(buf, "\n")] = 0;
			proc_set_thread_comm(p, p->pid, intern_str(m->in, buf));
		}
	}
	return true;
}

/* pid 0 is the idle task and -1 "no pid": neither has a /proc entry worth reading. */
static bool maps_pid_readable(uint32_t pid)
{
	return pid != 0 && pid != UINT32_MAX;
}

static struct proc *proc_get_lazy(struct maps *m, uint32_t pid)
{
	struct proc *p = proc_get(m, pid);
	if (p || !maps_pid_readable(pid) || m->offline)
		return p;
	p = proc_create(m, pid);
	m->last = p;
	maps_read_proc(m, p);
	return p;
}

/* ---- where a mapped file is really read from ---- */

/* Whether the process's / is ours, and its pid in its own namespace: read once, live only. */
static void proc_read_ns(struct maps *m, struct proc *p)
{
	if (p->ns_read)
		return;
	p->ns_read = true;
	p->nspid = p->pid;
	if (m->offline || !maps_pid_readable(p->pid))
		return;
	char path[64];
	if (!m->root_known)
		m->root_known = stat("/", &m->root) == 0;
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/root", p->pid);
	if (m->root_known && stat(path, &st) == 0)
		p->root_differs = st.st_dev != m->root.st_dev || st.st_ino != m->root.st_ino;
	/* Its own mount namespace (unshare -m, a service's PrivateTmp) may have its own /tmp. */
	if (!m->mnt.st_ino && stat("/proc/self/ns/mnt", &m->mnt) != 0)
		m->mnt.st_ino = 0;
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/ns/mnt", p->pid);
	if (m->mnt.st_ino && stat(path, &st) == 0)
		p->mnt_differs = st.st_dev != m->mnt.st_dev || st.st_ino != m->mnt.st_ino;
	/* NSpid lists the pid in each namespace from ours inward; the last is the process's own. */
	char buf[4096];
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/status", p->pid);
	if (read_small_file(path, buf, sizeof(buf)) <= 0)
		return;
	const char *ns = strstr(buf, "\nNSpid:");
	if (!ns)
		return;
	ns += 7;
	unsigned long last = 0;
	for (;;) {
		char *end;
		unsigned long v = strtoul(ns, &end, 10);
		if (end == ns)
			break;
		last = v;
		ns = end;
		if (*ns == '\n')
			break;
	}
	if (last && last <= UINT32_MAX)
		p->nspid = (uint32_t)last;
}

static bool maps_same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* /proc/PID/map_files/LO-HI of the VMA that holds addr, into buf; false when it cannot be stat'ed. Our
 * map may be a piece of the kernel's VMA (cut by a later mmap, or the VMA by mprotect): the exact
 * range is tried first and /proc/PID/maps tells the VMA otherwise. */
static bool maps_map_file(uint32_t pid, const struct map *mp, char *buf, size_t len, struct stat *st)
{
	snprintf(buf, len, "/proc/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64, pid, mp->start, mp->end);
	if (stat(buf, st) == 0)
		return true;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	char line[512];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		if (sscanf(line, "%llx-%llx", &lo, &hi) != 2 || mp->start < lo || mp->start >= hi)
			continue;
		snprintf(buf, len, "/proc/%" PRIu32 "/map_files/%llx-%llx", pid, lo, hi);
		found = stat(buf, st) == 0;
		break;
	}
	fclose(f);
	return found;
}

static bool maps_deleted_name(const char *path)
{
	static const char suffix[] = " (deleted)";
	size_t n = strlen(path), k = sizeof(suffix) - 1;
	return n > k && strcmp(path + n - k, suffix) == 0;
}

/* Decides the file a dso is read from, on its first lookup through process p (see the top). */
static void maps_choose_source(struct maps *m, struct proc *p, const struct map *mp)
{
	struct dso *d = mp->dso;
	if (mp->kind == MAP_KIND_VDSO) {
		if (!m->vdso)
			m->vdso = vdso_new();
		dso_set_source(d, vdso_file(m->vdso));
		return;
	}
	if (mp->kind != MAP_KIND_FILE)
		return;
	const char *path = dso_path(d);
	bool deleted = maps_deleted_name(path);
	if (m->offline || p->dead || !maps_pid_readable(p->pid)) {
		/* Nothing to ask; a deleted one stays undecided: a live process may map it later. */
		if (!deleted)
			dso_set_source(d, NULL);
		return;
	}
	proc_read_ns(m, p);
	char mf[96];
	struct stat mst, st;
	bool have_mf = maps_map_file(p->pid, mp, mf, sizeof(mf), &mst);
	/* The VMA there now may hold another file than the record said (it was unmapped and the range
	 * reused): only an inode that matches, or a build-id the open will check, lets us read it. */
	if (have_mf && !(mp->ino ? (uint64_t)mst.st_ino == mp->ino : mp->build_id))
		have_mf = false;
	if (!deleted && p->root_differs) {
		/* resolved inside its root (safefile.h): /proc/PID/root/PATH would take an absolute
		 * symlink in there to the host's file of that name */
		char *in_root = safefile_in_root_path(p->pid, path, &st);
		bool ok = in_root && (!have_mf || maps_same_file(&st, &mst));
		if (ok)
			dso_set_source(d, in_root);
		free(in_root);
		if (ok)
			return;
	}
	if (!deleted && (!have_mf || (stat(path, &st) == 0 && maps_same_file(&st, &mst)))) {
		dso_set_source(d, NULL);  /* the path is the file (or we cannot tell better) */
		return;
	}
	if (have_mf)
		dso_set_source(d, mf);  /* deleted, replaced, or only reachable inside its root */
	else if (!deleted)
		dso_set_source(d, NULL);
}

const struct map *maps_find(struct maps *m, uint32_t pid, uint64_t addr)
{
	struct proc *p = proc_get_lazy(m, pid);
	if (!p)
		return NULL;
	const struct map *mp = mapset_find(p->ms, addr);
	if (!mp && !p->complete && !p->fs_tried && !p->dead && maps_pid_readable(pid) && !m->offline &&
	    maps_read_proc(m, p))
		mp = mapset_find(p->ms, addr);
	if (mp && p->pre_exec) {
		/* an address of the new image: the exec is over */
		mapset_unref(p->pre_exec);
		p->pre_exec = NULL;
	} else if (!mp && p->pre_exec) {
		mp = mapset_find(p->pre_exec, addr);
	}
	if (mp && mp->kind != MAP_KIND_ANON && mp->kind != MAP_KIND_OTHER && dso_source_pending(mp->dso))
		maps_choose_source(m, p, mp);
	return mp;
}

/* ---- JIT code ---- */

static void maps_jvm_missed(struct maps *m, struct proc *p);

bool maps_jit_path(struct maps *m, uint32_t pid, char *buf, size_t len)
{
	struct proc *p = proc_get(m, pid);
	if (!p)
		return false;
	proc_read_ns(m, p);
	if (p->root_differs || p->mnt_differs)
		snprintf(buf, len, "/proc/%" PRIu32 "/root/tmp/perf-%" PRIu32 ".map", p->pid, p->nspid);
	else
		snprintf(buf, len, "/tmp/perf-%" PRIu32 ".map", p->nspid);
	return true;
}

/* The owner a live process's files must have: its own uid (/proc/PID's owner), else root only. */
static uint32_t proc_uid(const struct maps *m, const struct proc *p)
{
	struct stat st;
	char path[32];
	if (m->offline)
		return UINT32_MAX; /* the recording's files: ours or root's (jitdump_new) */
	snprintf(path, sizeof(path), "/proc/%" PRIu32, p->pid);
	return stat(path, &st) == 0 ? (uint32_t)st.st_uid : 0;
}

static struct jitdump *proc_jitdump(struct maps *m, struct proc *p)
{
	if (!p->jd_path)
		return NULL;
	if (!p->jd) {
		proc_read_ns(m, p);
		/* under the process's root as maps_jit_path reads its perf map: its own root or mounts
		 * (a private /tmp) */
		bool in_root = (p->root_differs || p->mnt_differs) && !m->offline;
		p->jd = jitdump_new(p->jd_path, in_root ? p->pid : 0, proc_uid(m, p), m->in);
		if (m->offline)
			jitdump_set_static(p->jd);
	}
	return p->jd;
}

/* Whether addr of p may be code a JIT wrote. That code lives in anonymous executable memory, which
 * the kernel's records (and the synthesized ones at start) map; an address outside every mapping is
 * most often a return address of code without frame pointers, which would cost every process, however
 * short-lived, a look for its perf map (the root and namespace stats, the file's open). It is asked
 * only of a process whose perf map or jitdump is already known to exist. */
static bool proc_may_jit(const struct proc *p, uint64_t addr)
{
	if (p->jd_path || (p->jit && jitmap_found(p->jit)))
		return true;
	const struct map *mp = mapset_find(p->ms, addr);
	if (!mp && p->pre_exec)
		mp = mapset_find(p->pre_exec, addr);
	return mp && mp->kind == MAP_KIND_ANON;
}

bool maps_jit_lookup(struct maps *m, uint32_t pid, uint64_t addr, bool want_line,
		     struct maps_jit_hit *hit)
{
	struct proc *p = proc_get(m, pid);
	if (!p || !maps_pid_readable(pid) || !proc_may_jit(p, addr))
		return false;
	struct jitdump *jd = proc_jitdump(m, p);
	struct jitdump_hit h;
	if (jd && jitdump_lookup(jd, addr, want_line, &h)) {
		*hit = (struct maps_jit_hit){ h.name, h.start, h.srcline, h.has_code };
		return true;
	}
	/* the perf map too: a runtime may write both, or the dump may lack this code */
	if (!p->jit) {
		char path[96];
		maps_jit_path(m, pid, path, sizeof(path));
		p->jit = jitmap_new(path, m->in);
		/* its name resolves inside its root as the process sees it (maps_jit_path's choice) */
		bool in_root = p->root_differs || p->mnt_differs;
		char inner[48];
		snprintf(inner, sizeof(inner), "/tmp/perf-%" PRIu32 ".map", p->nspid);
		jitmap_set_source(p->jit, in_root ? p->pid : 0, inner, proc_uid(m, p));
		if (m->offline)
			jitmap_set_static(p->jit);
	}
	*hit = (struct maps_jit_hit){ 0 };
	bool found = jitmap_lookup(p->jit, addr, &hit->sym, &hit->start);
	if (p->jvm && p->jvm_lookups < UINT32_MAX)
		p->jvm_lookups++;
	if (found)
		return true;
	if (!jitmap_found(p->jit) && !(jd && jitdump_found(jd)))
		p->jit_looked = true;
	if (p->jvm)
		maps_jvm_missed(m, p);
	return false;
}

bool maps_jit_unnamed(struct maps *m, uint32_t pid)
{
	struct proc *p = proc_get(m, pid);
	return p && p->jit_looked && !p->jd_path && p->jit && !jitmap_found(p->jit);
}

size_t maps_jit_code(struct maps *m, uint32_t pid, uint64_t start, size_t max, uint8_t **buf,
		   char *err, size_t errlen)
{
	struct proc *p = proc_get(m, pid);
	struct jitdump *jd = p ? proc_jitdump(m, p) : NULL;
	if (!jd) {
		snprintf(err, errlen, "[JIT] tid %" PRIu32 ": no jitdump (a perf map has names only; "
			 "node --perf-prof writes one)", pid);
		*buf = NULL;
		return 0;
	}
	return jitdump_code(jd, start, max, buf, err, errlen);
}

bool maps_jit_line(struct maps *m, uint32_t pid, uint64_t addr, const char **file, unsigned *line)
{
	struct proc *p = proc_get(m, pid);
	struct jitdump *jd = p ? proc_jitdump(m, p) : NULL;
	return jd && jitdump_line(jd, addr, file, line);
}

/* ---- JVMs asked for their perf map ---- */

void maps_set_jit_attach(struct maps *m, bool on)
{
	m->jit_attach = on;
}

/* A JIT lookup of JVM p missed: p is due when it was never asked (its first unnamed code), or
 * when MAPS_JVM_MISSES more have missed since its map was last written and it was written
 * MAPS_JVM_RETRY_NS ago, or MAPS_JVM_RETRY_FIRST_NS ago when a tenth of its JIT lookups missed
 * since (a JVM warming up: its hot code is new); never before jvm_next_ns (a "later" or "soon"). */
static void maps_jvm_missed(struct maps *m, struct proc *p)
{
	if (!m->jit_attach || m->offline || p->dead || p->jvm_state != JVM_IDLE)
		return;
	if (p->jvm_misses < UINT32_MAX)
		p->jvm_misses++;
	if (p->jvm_misses < (p->jvm_answered ? MAPS_JVM_MISSES : 1) || m->jvm_due_n >= MAPS_JVM_DUE_MAX)
		return;
	uint64_t now = now_ns();
	if (p->jvm_next_ns && now < p->jvm_next_ns)
		return;
	if (p->jvm_answered && now - p->jvm_map_ns < MAPS_JVM_RETRY_NS &&
	    (now - p->jvm_map_ns < MAPS_JVM_RETRY_FIRST_NS || p->jvm_misses < p->jvm_lookups / 10))
		return;
	m->jvm_due[m->jvm_due_n++] = (struct maps_jvm_due){ .pid = p->pid, .first = !p->jvm_answered };
	p->jvm_state = JVM_ASKED;
}

int maps_jvm_take(struct maps *m, struct maps_jvm_due *out, int max)
{
	int n = m->jvm_due_n < max ? m->jvm_due_n : max;
	if (n <= 0)
		return 0;
	memcpy(out, m->jvm_due, (size_t)n * sizeof(*out));
	memmove(m->jvm_due, m->jvm_due + n, (size_t)(m->jvm_due_n - n) * sizeof(*out));
	m->jvm_due_n -= n;
	return n;
}

bool maps_jvm_result(struct maps *m, uint32_t pid, enum maps_jvm_outcome o)
{
	struct proc *p = proc_get(m, pid);
	if (!p || p->jvm_state != JVM_ASKED)
		return false;  /* another process by now (the pid reused), or an exec since */
	p->jvm_state = JVM_IDLE;
	if (o == MAPS_JVM_SOON && p->jvm_soons < MAPS_JVM_SOON_MAX) {
		p->jvm_soons++;
		p->jvm_next_ns = now_ns() + MAPS_JVM_SOON_NS;
		return false;
	}
	p->jvm_next_ns = now_ns() + MAPS_JVM_RETRY_NS;
	if (o == MAPS_JVM_DONE) {
		p->jvm_next_ns = 0;  /* maps_jvm_missed decides by the time of this map */
		p->jvm_map_ns = now_ns();
		p->jvm_lookups = 0;
		p->jvm_answered = true;
		p->jvm_laters = 0;
		p->jvm_misses = 0;
		if (p->jit)
			jitmap_reread(p->jit);  /* written anew from its start */
		return false;
	}
	if ((o == MAPS_JVM_LATER || o == MAPS_JVM_SOON) && ++p->jvm_laters < MAPS_JVM_LATER_MAX)
		return false;
	p->jvm_state = JVM_NEVER;
	return true;
}

const char *maps_jit_dso(struct maps *m, uint32_t pid)
{
	struct proc *p = proc_get(m, pid);
	char buf[32];
	if (p && p->jit_dso)
		return p->jit_dso;
	int n = snprintf(buf, sizeof(buf), "[JIT] tid %" PRIu32, pid);
	const char *name = intern_strn(m->in, buf, (size_t)n);
	if (p)
		p->jit_dso = name;
	return name;
}

const char *maps_comm(struct maps *m, uint32_t pid, uint32_t tid)
{
	struct proc *p = proc_get(m, pid);
	return p ? proc_thread_comm(p, tid) : NULL;
}

size_t maps_alive(const struct maps *m) { return m->alive; }
size_t maps_kept(const struct maps *m) { return m->procs.n; }
uint64_t maps_proc_reads(const struct maps *m) { return m->reads; }
