/*
 * pywatch: a thread that reads the Python stacks of the sampled threads of CPython processes at
 * the sampling rate, and keeps each thread's last reads with their times.
 *
 * DESIGN: this is perftop's one thread boundary besides the sampler's queue. Why a thread: the
 * session takes samples in from the sampler's queue 10 to 35 ms after they were taken (the sampler
 * hands them over every ~15 ms, in bursts), and a stack read then is one stack for the whole burst,
 * tens of ms late; a Python program changes function far more often than that. So the stacks are
 * read here, on a clock of the sampling period, independently of the samples, and each sample
 * takes the read nearest to its own time (CLOCK_MONOTONIC on both sides, as the sampler's events
 * use): the gap is at most about half a period (measured per sample: pystacks_stats). What crosses
 * the boundary, under one mutex: the watched threads (the session adds one when it samples it; a
 * thread not sampled for WATCH_IDLE_NS is dropped) and their rings of reads. The reads themselves
 * (process_vm_readv) are made outside the lock; the session's side copies a read out under it.
 *
 * With nothing to watch (no Python process sampled in the last WATCH_IDLE_NS) it sleeps on a
 * condition until there is.
 *
 * Bounds: WATCH_MAX threads (a new one replaces the least recently sampled), SNAP_RING reads a
 * thread (256 ms at 1 kHz, more than the session's lag) in a frame arena of ARENA frames.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "python/pywatch.h"
#include "util/util.h"

#define WATCH_MAX 64
#define SNAP_RING 256
#define ARENA 4096
#define READ_MAX 256                 /* frames of one read at most */
/* A thread not sampled for this long is not read: what is read follows what runs (the session
 * notes a thread with each burst of its samples, every 15-35 ms), so -a on a machine of many
 * idle interpreters reads only the few on a CPU. */
#define WATCH_IDLE_NS (200 * 1000000ull)

struct snap {
	uint64_t time;
	uint64_t start;                  /* position in the arena (absolute, mod ARENA) */
	uint32_t n;
};

struct watched {
	bool used;
	uint32_t pid, tid;
	uint64_t gen;                    /* changes when the slot is given to another thread */
	uint64_t noted;                  /* last sampled */
	struct pyproc proc;
	uint64_t ts;                     /* its thread state, as last found */
	struct snap snaps[SNAP_RING];
	uint64_t nsnaps;                 /* reads so far (the ring's next slot mod SNAP_RING) */
	struct pyraw *arena;             /* ARENA frames, allocated at first use */
	uint64_t arena_pos;
};

struct pywatch {
	pthread_mutex_t mu;
	pthread_cond_t wake;             /* a thread to watch again, or stop */
	bool idle;                       /* the thread waits on wake: nothing to read */
	pthread_t thread;
	bool started;
	atomic_bool stop;
	uint64_t period_ns;
	uint64_t next_gen;
	struct watched w[WATCH_MAX];
	uint64_t reads;
	uint64_t cpu_ns;
};

struct pywatch *pywatch_new(uint64_t period_ns)
{
	struct pywatch *w = xcalloc(1, sizeof(*w));
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->wake, NULL);
	w->period_ns = period_ns;
	atomic_init(&w->stop, false);
	return w;
}

/* What the thread reads in one round: a copy of a watched slot's identity. */
struct job {
	int slot;
	uint64_t gen;
	uint32_t pid, tid;
	uint64_t ts;
	struct pyproc proc;
};

static int watch_jobs(struct pywatch *w, struct job *jobs, uint64_t now)
{
	int n = 0;
	pthread_mutex_lock(&w->mu);
	for (int i = 0; i < WATCH_MAX; i++) {
		struct watched *x = &w->w[i];
		if (!x->used)
			continue;
		if (now > x->noted + WATCH_IDLE_NS) {
			x->used = false;  /* its arena stays for the next thread of the slot */
			continue;
		}
		jobs[n++] = (struct job){ .slot = i, .gen = x->gen, .pid = x->pid, .tid = x->tid,
					  .ts = x->ts, .proc = x->proc };
	}
	pthread_mutex_unlock(&w->mu);
	return n;
}

/* Keeps one read of a slot, if the slot is still the same thread's. */
static void watch_keep(struct pywatch *w, const struct job *j, uint64_t time, const struct pyraw *raw,
		       int n)
{
	pthread_mutex_lock(&w->mu);
	struct watched *x = &w->w[j->slot];
	if (x->used && x->gen == j->gen) {
		x->ts = j->ts;
		if (!x->arena)
			x->arena = xmalloc(ARENA * sizeof(*x->arena));
		struct snap *s = &x->snaps[x->nsnaps++ % SNAP_RING];
		s->time = time;
		s->start = x->arena_pos;
		s->n = (uint32_t)n;
		for (int i = 0; i < n; i++)
			x->arena[(x->arena_pos + (uint64_t)i) % ARENA] = raw[i];
		x->arena_pos += (uint64_t)n;
	}
	w->reads++;
	pthread_mutex_unlock(&w->mu);
}

/* One round of reads; false when there was nothing to read. */
static bool watch_round(struct pywatch *w, struct job *jobs, struct pyraw *raw)
{
	int n = watch_jobs(w, jobs, now_ns());
	for (int i = 0; i < n; i++) {
		struct job *j = &jobs[i];
		uint64_t t0 = now_ns(), frame = 0;
		int k = 0;
		if (pyread_thread((pid_t)j->pid, &j->proc, j->tid, &j->ts, &frame) < 0)
			continue;
		if (frame && (k = pyread_frames((pid_t)j->pid, &j->proc, frame, raw, READ_MAX)) < 0)
			continue;
		uint64_t t1 = now_ns();
		watch_keep(w, j, t0 + (t1 - t0) / 2, raw, k);
	}
	return n > 0;
}

/* Nothing watched: sleep until a thread is (a session whose Python processes have gone costs
 * no wakeups). */
static void watch_idle(struct pywatch *w)
{
	pthread_mutex_lock(&w->mu);
	w->idle = true;
	while (w->idle && !atomic_load_explicit(&w->stop, memory_order_relaxed))
		pthread_cond_wait(&w->wake, &w->mu);
	w->idle = false;
	pthread_mutex_unlock(&w->mu);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *watch_thread(void *arg)
{
	struct pywatch *w = arg;
	struct job *jobs = xmalloc(WATCH_MAX * sizeof(*jobs));
	struct pyraw *raw = xmalloc(READ_MAX * sizeof(*raw));
	uint64_t next = now_ns();
	while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
		if (!watch_round(w, jobs, raw)) {
			watch_idle(w);
			next = now_ns();
			continue;
		}
		next += w->period_ns;
		uint64_t now = now_ns();
		if (next < now)
			next = now;  /* a round that overran: the clock starts again from now */
		struct timespec ts = { (time_t)(next / 1000000000ull), (long)(next % 1000000000ull) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		uint64_t cpu = thread_cpu_ns();
		pthread_mutex_lock(&w->mu);
		w->cpu_ns = cpu;
		pthread_mutex_unlock(&w->mu);
	}
	free(jobs);
	free(raw);
	return NULL;
}

void pywatch_free(struct pywatch *w)
{
	if (!w)
		return;
	if (w->started) {
		pthread_mutex_lock(&w->mu);
		atomic_store(&w->stop, true);
		pthread_cond_signal(&w->wake);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->thread, NULL);
	}
	pthread_cond_destroy(&w->wake);
	for (int i = 0; i < WATCH_MAX; i++)
		free(w->w[i].arena);
	pthread_mutex_destroy(&w->mu);
	free(w);
}

void pywatch_note(struct pywatch *w, uint32_t pid, uint32_t tid, const struct pyproc *proc,
		  uint64_t now)
{
	pthread_mutex_lock(&w->mu);
	struct watched *x = NULL, *old = &w->w[0];
	for (int i = 0; i < WATCH_MAX && !x; i++) {
		struct watched *y = &w->w[i];
		if (y->used && y->pid == pid && y->tid == tid)
			x = y;
		else if (!y->used || (old->used && y->noted < old->noted))
			old = y;
	}
	if (x && x->proc.runtime != proc->runtime)
		x = NULL;  /* another interpreter under the same ids (an exec) */
	if (!x) {
		x = old;
		x->used = true;
		x->pid = pid;
		x->tid = tid;
		x->gen = ++w->next_gen;
		x->proc = *proc;
		x->ts = 0;
		x->nsnaps = 0;
	}
	x->noted = now;
	if (w->idle) {
		w->idle = false;
		pthread_cond_signal(&w->wake);
	}
	if (!w->started) {
		w->started = pthread_create(&w->thread, NULL, watch_thread, w) == 0;
		if (!w->started)
			x->used = false;  /* no thread: the session reads late itself */
	}
	pthread_mutex_unlock(&w->mu);
}

int pywatch_lookup(struct pywatch *w, uint32_t pid, uint32_t tid, uint64_t time, struct pyraw *out,
		   int max, uint64_t *gap)
{
	int got = -1;
	uint64_t tolerance = 2 * w->period_ns + 1000000ull;
	pthread_mutex_lock(&w->mu);
	for (int i = 0; i < WATCH_MAX && got < 0; i++) {
		struct watched *x = &w->w[i];
		if (!x->used || x->pid != pid || x->tid != tid || !x->nsnaps)
			continue;
		const struct snap *best = NULL;
		uint64_t best_gap = UINT64_MAX;
		uint64_t have = x->nsnaps < SNAP_RING ? x->nsnaps : SNAP_RING;
		for (uint64_t k = 1; k <= have; k++) {
			const struct snap *s = &x->snaps[(x->nsnaps - k) % SNAP_RING];
			if (x->arena_pos - s->start > ARENA)
				break;  /* its frames were written over: older ones are too */
			uint64_t d = s->time > time ? s->time - time : time - s->time;
			if (d < best_gap) {
				best_gap = d;
				best = s;
			}
			if (s->time < time)
				break;  /* older ones are further away */
		}
		if (!best || best_gap > tolerance)
			break;
		got = (int)best->n < max ? (int)best->n : max;
		for (int f = 0; f < got; f++)
			out[f] = x->arena[(best->start + (uint64_t)f) % ARENA];
		*gap = best_gap;
	}
	pthread_mutex_unlock(&w->mu);
	return got;
}

void pywatch_counts(struct pywatch *w, uint64_t *reads, uint64_t *cpu_ns)
{
	pthread_mutex_lock(&w->mu);
	*reads = w->reads;
	*cpu_ns = w->cpu_ns;
	pthread_mutex_unlock(&w->mu);
}
