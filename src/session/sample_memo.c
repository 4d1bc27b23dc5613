/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sample_memo: a direct-mapped table of whole samples' names (see sample_memo.h).
 *
 * A slot holds the key (pid, tid, cpumode, ip and the raw callchain, compared in full: the hash only
 * picks the slot), what the symbolizer gave for it and where the model put its rows, in one
 * allocation per slot that is reused.
 * Forgetting is by generation, never by walking the table: a slot is current while the memo's
 * generation and its pid slot's generation are those it was kept under. Pids share generation
 * slots, so forgetting one process may forget a few others too; never too little.
 */
#include "session/sample_memo.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/util.h"

#define MEMO_SLOTS 2048
#define MEMO_PID_SLOTS 1024

struct memo_ent {
	uint64_t hash;             /* 0: empty */
	uint64_t gen;
	uint32_t pidgen;
	uint32_t pid, tid;
	uint32_t mode;             /* cpumode */
	uint64_t ip;
	uint32_t nr, nframes;
	const char *comm;
	uint64_t layout;           /* the model's, when it wrote rows (0: never) */
	void *blob;                /* nr chain words, nframes frames, nframes + 1 row indices */
	size_t cap;                /* bytes at blob */
};

struct sample_memo {
	struct memo_ent e[MEMO_SLOTS];
	uint32_t pidgen[MEMO_PID_SLOTS];
	uint64_t gen;
	uint64_t last_hash;        /* of the sample sample_memo_get last looked for */
	struct memo_ent *cur;      /* the entry last returned or put */
};

struct sample_memo *sample_memo_new(void)
{
	struct sample_memo *m = xcalloc(1, sizeof(*m));
	m->gen = 1;
	return m;
}

void sample_memo_free(struct sample_memo *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < MEMO_SLOTS; i++)
		free(m->e[i].blob);
	free(m);
}

/* The sample's callchain when it can be kept (0 entries when it has none), else -1: a user stack
 * to unwind, or more than the memo keeps. */
static int memo_chain(const struct rec *r, const uint64_t **cc)
{
	const struct rec_sample *s = &r->u.sample;
	if (r->type != REC_SAMPLE || s->regs_user_nr || s->stack_user_size)
		return -1;
	uint32_t nr = s->callchain_nr;
	/* as the symbolizer reads it: a chain that does not fit in the record is none */
	if (!nr || s->callchain_off < sizeof(struct rec) ||
	    (uint64_t)s->callchain_off + (uint64_t)nr * 8 > r->size)
		nr = 0;
	if (nr > SAMPLE_MEMO_MAX)
		return -1;
	*cc = rec_callchain(r);
	return (int)nr;
}

static uint64_t memo_hash(const struct rec *r, const uint64_t *cc, uint32_t nr)
{
	uint64_t h = hash_mix64(((uint64_t)r->pid << 32 | r->tid) ^ (uint64_t)rec_cpumode(r) << 59);
	h = hash_mix64(h ^ r->u.sample.ip);
	for (uint32_t i = 0; i < nr; i++)
		h = (h ^ cc[i]) * 0x100000001b3ULL;
	h = hash_mix64(h ^ nr);
	return h ? h : 1;
}

static bool memo_current(const struct sample_memo *m, const struct memo_ent *e)
{
	return e->gen == m->gen && e->pidgen == m->pidgen[e->pid % MEMO_PID_SLOTS];
}

const struct frame *sample_memo_get(struct sample_memo *m, const struct rec *r, int *n,
				    const char **comm)
{
	const uint64_t *cc = NULL;
	int nr = memo_chain(r, &cc);
	m->last_hash = 0;
	m->cur = NULL;
	if (nr < 0)
		return NULL;
	uint64_t h = memo_hash(r, cc, (uint32_t)nr);
	m->last_hash = h;
	struct memo_ent *e = &m->e[h % MEMO_SLOTS];
	if (e->hash != h || !memo_current(m, e) || e->pid != r->pid || e->tid != r->tid ||
	    e->mode != rec_cpumode(r) || e->ip != r->u.sample.ip || e->nr != (uint32_t)nr ||
	    memcmp(e->blob, cc, (size_t)nr * 8) != 0)
		return NULL;
	*n = (int)e->nframes;
	*comm = e->comm;
	m->cur = e;
	return (const struct frame *)((const char *)e->blob + (size_t)nr * 8);
}

uint32_t *sample_memo_rows(struct sample_memo *m, uint64_t **layout)
{
	struct memo_ent *e = m->cur;
	if (!e)
		return NULL;
	*layout = &e->layout;
	return (uint32_t *)((char *)e->blob + (size_t)e->nr * 8 + (size_t)e->nframes * sizeof(struct frame));
}

void sample_memo_put(struct sample_memo *m, const struct rec *r, const struct frame *f, int n,
		     const char *comm)
{
	const uint64_t *cc = NULL;
	int nr = memo_chain(r, &cc);
	m->cur = NULL;
	if (nr < 0 || n < 0 || n > SAMPLE_MEMO_MAX || !m->last_hash)
		return;
	uint64_t h = m->last_hash; /* the get that missed hashed this same sample */
	struct memo_ent *e = &m->e[h % MEMO_SLOTS];
	size_t need = (size_t)nr * 8 + (size_t)n * sizeof(*f) + ((size_t)n + 1) * sizeof(uint32_t);
	if (need > e->cap) {
		free(e->blob);
		e->blob = xmalloc(need);
		e->cap = need;
	}
	memcpy(e->blob, cc, (size_t)nr * 8);
	memcpy((char *)e->blob + (size_t)nr * 8, f, (size_t)n * sizeof(*f));
	e->hash = h;
	e->gen = m->gen;
	e->pid = r->pid;
	e->tid = r->tid;
	e->pidgen = m->pidgen[r->pid % MEMO_PID_SLOTS];
	e->mode = rec_cpumode(r);
	e->ip = r->u.sample.ip;
	e->nr = (uint32_t)nr;
	e->nframes = (uint32_t)n;
	e->comm = comm;
	e->layout = 0;
	m->last_hash = 0;
	m->cur = e;
}

static void memo_forget_pid(struct sample_memo *m, uint32_t pid)
{
	m->pidgen[pid % MEMO_PID_SLOTS]++;
}

void sample_memo_forget(struct sample_memo *m, const struct rec *r)
{
	switch (r->type) {
	case REC_MMAP:
		/* the kernel's and its modules' mappings: every process's samples */
		if (r->u.mmap.pid == UINT32_MAX || rec_cpumode(r) == PERF_RECORD_MISC_KERNEL)
			sample_memo_forget_all(m);
		else
			memo_forget_pid(m, r->u.mmap.pid);
		break;
	case REC_COMM:
		memo_forget_pid(m, r->u.comm.pid);
		break;
	case REC_FORK:
	case REC_EXIT:
		memo_forget_pid(m, r->u.task.pid);
		memo_forget_pid(m, r->u.task.ppid);
		break;
	default:
		break;
	}
}

void sample_memo_forget_all(struct sample_memo *m)
{
	m->gen++;
}
