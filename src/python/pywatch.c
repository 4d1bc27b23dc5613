/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pywatch: a thread that reads the Python stacks of the sampled threads of CPython processes, on a
 * clock of its own, and keeps each thread's last reads with their times.
 *
 * DESIGN: this is perftop's one thread boundary besides the sampler's queue. Why a thread: the
 * session takes samples in from the sampler's queue 80 to 210 ms after they were taken (the sampler
 * hands them over every ~80 ms, in bursts), and a stack read then is one stack for the whole burst,
 * tens of ms late; a Python program changes function far more often than that. So the stacks are
 * read here, independently of the samples, and each sample takes the read nearest to its own time
 * (CLOCK_MONOTONIC on both sides, as the sampler's events use). What crosses the boundary, under
 * one mutex: the watched threads (the session adds one when it samples it; a thread not sampled
 * for WATCH_IDLE_NS is dropped) and their rings of reads. The reads themselves (process_vm_readv)
 * are made outside the lock; the session's side copies a read out under it.
 *
 * How often: a read is a few microseconds, but waking a thread is not free (about 20 us of CPU a
 * wake in a VM, where timers and idle CPUs trap to the hypervisor), and the bar set for it is that
 * Python frames cost at most a quarter more than the rest of perftop (a whole-machine session
 * with them costs no more than 0.30 of perf top's CPU: bench/run.sh). So unless --python-rate
 * fixes the rate, the thread spends at most BUDGET_SHARE of what the rest of perftop spends (its own CPU per round and the
 * process's, measured every TUNE_NS), read as often as that allows between SLOW_NS and the
 * sampling period or FAST_NS, the longer. Each interval is drawn from 0.5 to 1.5 times the mean,
 * so that the reads do not lock onto a periodic program (a read always at the same point of its
 * loop would charge the loop to one function); with the nearest read taken, a sample between reads
 * that differ is then charged to the wrong one as often one way as the other, and shares stay
 * right.
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
#include <sys/prctl.h>
#include <time.h>

#include "python/pywatch.h"
#include "util/util.h"

#define WATCH_MAX 64
#define SNAP_RING 256
#define ARENA 4096
#define READ_MAX 256                 /* frames of one read at most */
/* A thread not sampled for this long is not read: what is read follows what runs (the session
 * notes a sampled thread every 20 ms at most), so -a on a machine of many
 * idle interpreters reads only the few on a CPU. */
#define WATCH_IDLE_NS (200 * 1000000ull)
/* The rate's bounds and budget (see DESIGN): never read less often than SLOW_NS (100 Hz, py-spy's
 * rate) unless samples come less often; the rest of perftop's CPU times BUDGET_SHARE at most
 * above that. */
#define SLOW_NS (10 * 1000000ull)
/* ... and never more often than FAST_NS (1 kHz, the most --python-rate asks for), whatever the
 * sampling rate: SNAP_RING reads then span 256 ms, past the session's 80-210 ms lag. At 4 kHz
 * (-F 4000 beside a budget that allowed ~2,450 reads a second) the ring spanned ~100 ms: a sample
 * taken in later than that found no read left near it; and the reads a budget bought past 1 kHz
 * only told apart switches under a millisecond: at 1 kHz a sample is 0.3 ms from its read on
 * average (docs/python.md). */
#define FAST_NS (1000000ull)
#define TUNE_NS (1000 * 1000000ull)
#define BUDGET_SHARE 0.25
#define FAILS_MAX 3
/* The wake's slack, as a part of the mean interval (watch_slack). */
#define WATCH_SLACK_PART 5
/* Sleeps up to this long are not cut short by a stop (watch_sleep). */
#define SLEEP_PLAIN_NS (20 * 1000000ull)

struct snap {
	uint64_t start;                  /* position in the arena (absolute, mod ARENA) */
	uint32_t n;
	uint64_t reach;                  /* the farthest sample it may stand for: see pywatch_lookup */
};

struct watched {
	bool used;
	uint32_t pid, tid;
	uint64_t gen;                    /* changes when the slot is given to another thread */
	uint64_t noted;                  /* last sampled */
	struct pyproc proc;
	struct pyread_hint hint;         /* where its last read went (pyread_stack) */
	int fails;                       /* reads that failed in a row */
	struct snap snaps[SNAP_RING];
	uint64_t times[SNAP_RING];       /* each read's time, beside snaps for pywatch_nearest */
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
	uint64_t fast_ns;                /* the sampling period: never read more often */
	uint64_t slow_ns;
	uint64_t mean_ns;                /* the intervals' mean now */
	bool fixed;                      /* --python-rate: mean_ns stays */
	uint64_t rng;
	uint64_t next_gen;
	struct watched w[WATCH_MAX];
	uint64_t reads;
	uint64_t cpu_ns;
	struct py_io io;                 /* the thread's reads of process memory */
};

struct pywatch *pywatch_new(uint64_t period_ns, uint64_t fixed_ns)
{
	struct pywatch *w = xcalloc(1, sizeof(*w));
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);  /* the timed sleep's clock (watch_sleep) */
	pthread_cond_init(&w->wake, &ca);
	pthread_condattr_destroy(&ca);
	w->fast_ns = pywatch_fastest(period_ns);
	w->slow_ns = period_ns > SLOW_NS ? period_ns : SLOW_NS;
	w->fixed = fixed_ns != 0;
	/* unfixed, it starts at the cheap end and speeds up as the budget allows */
	w->mean_ns = w->fixed ? (fixed_ns > period_ns ? fixed_ns : period_ns) : w->slow_ns;
	if (w->mean_ns > w->slow_ns)
		w->slow_ns = w->mean_ns;
	w->rng = now_ns() | 1;
	atomic_init(&w->stop, false);
	return w;
}

/* What the thread reads in one round: a copy of a watched slot's identity. */
struct job {
	int slot;
	uint64_t gen;
	uint32_t pid, tid;
	struct pyread_hint hint;
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
					  .hint = x->hint, .proc = x->proc };
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
		x->hint = j->hint;
		x->fails = 0;
		if (!x->arena)
			x->arena = xmalloc(ARENA * sizeof(*x->arena));
		x->times[x->nsnaps % SNAP_RING] = time;
		struct snap *s = &x->snaps[x->nsnaps++ % SNAP_RING];
		s->start = x->arena_pos;
		s->n = (uint32_t)n;
		/* intervals reach 1.5 means: the nearest read of a sample is at most 0.75 of one away
		 * while the watcher keeps up; twice a mean and 1 ms leaves room for a late round */
		s->reach = 2 * w->mean_ns + 1000000ull;
		for (int i = 0; i < n; i++)
			x->arena[(x->arena_pos + (uint64_t)i) % ARENA] = raw[i];
		x->arena_pos += (uint64_t)n;
	}
	w->reads++;
	pthread_mutex_unlock(&w->mu);
}

/* A read of a slot failed: after FAILS_MAX in a row (the process is gone, or the thread runs no
 * Python) it is not read until it is sampled again, rather than at every round of the
 * WATCH_IDLE_NS it would be watched. */
static void watch_failed(struct pywatch *w, const struct job *j)
{
	pthread_mutex_lock(&w->mu);
	struct watched *x = &w->w[j->slot];
	if (x->used && x->gen == j->gen && ++x->fails >= FAILS_MAX)
		x->used = false;
	pthread_mutex_unlock(&w->mu);
}

/* One round of reads; false when there was nothing to read. */
static bool watch_round(struct pywatch *w, struct job *jobs, struct pyraw *raw)
{
	int n = watch_jobs(w, jobs, now_ns());
	for (int i = 0; i < n; i++) {
		struct job *j = &jobs[i];
		uint64_t t0 = now_ns();
		int k = pyread_stack((pid_t)j->pid, &j->proc, j->tid, &j->hint, raw, READ_MAX);
		if (k < 0) {
			watch_failed(w, j);
			continue;
		}
		uint64_t t1 = now_ns();
		watch_keep(w, j, t0 + (t1 - t0) / 2, raw, k);
	}
	struct py_io io;
	py_io_take(&io);
	pthread_mutex_lock(&w->mu);
	w->io.calls += io.calls;
	w->io.failed += io.failed;
	w->io.bytes += io.bytes;
	pthread_mutex_unlock(&w->mu);
	return n > 0;
}

/* Nothing watched: sleep until a thread is (a session whose Python processes have gone costs
 * no wakeups). */
static void watch_idle(struct pywatch *w)
{
	pthread_mutex_lock(&w->mu);
	/* a thread noted since watch_jobs looked (the note saw no idle watcher to wake) */
	bool any = false;
	for (int i = 0; i < WATCH_MAX && !any; i++)
		any = w->w[i].used;
	w->idle = !any;
	while (w->idle && !atomic_load_explicit(&w->stop, memory_order_relaxed))
		pthread_cond_wait(&w->wake, &w->mu);
	w->idle = false;
	pthread_mutex_unlock(&w->mu);
}

/* Until the monotonic time next, or a stop. A short sleep is clock_nanosleep's: one system call,
 * where a wait on the condition is two (a woken waiter takes the mutex back marked contended, so
 * its unlock wakes the futex), and a wake is most of a round's cost; quitting waits for it, at
 * most SLEEP_PLAIN_NS. A longer one (a low --python-rate) is on the condition, which a stop cuts
 * short. */
static void watch_sleep(struct pywatch *w, uint64_t next)
{
	struct timespec ts = { (time_t)(next / 1000000000ull), (long)(next % 1000000000ull) };
	if (next <= now_ns() + SLEEP_PLAIN_NS) {
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR &&
		       !atomic_load_explicit(&w->stop, memory_order_relaxed))
			;
		return;
	}
	pthread_mutex_lock(&w->mu);
	while (!atomic_load_explicit(&w->stop, memory_order_relaxed) && now_ns() < next)
		if (pthread_cond_timedwait(&w->wake, &w->mu, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&w->mu);
}

static uint64_t clock_cpu_ns(clockid_t which)
{
	struct timespec ts;
	if (clock_gettime(which, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The next interval: the mean times 0.5 to 1.5 (xorshift64; quality hardly matters here). */
static uint64_t watch_interval(struct pywatch *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	double u = (double)(w->rng >> 11) / 9007199254740992.0;
	return (uint64_t)((double)w->mean_ns * (0.5 + u));
}

uint64_t pywatch_fastest(uint64_t period_ns)
{
	return period_ns > FAST_NS ? period_ns : FAST_NS;
}

uint64_t pywatch_budget_interval(double per_round_ns, double others_ns, double wall_ns,
				 uint64_t fast_ns, uint64_t slow_ns)
{
	double want = (double)slow_ns;
	/* rounds every want ns cost per_round_ns * wall_ns / want in wall_ns: BUDGET_SHARE of others */
	if (others_ns > 0 && per_round_ns > 0 && wall_ns > 0)
		want = per_round_ns * wall_ns / (BUDGET_SHARE * others_ns);
	if (!(want >= (double)fast_ns))  /* NaN too */
		return fast_ns;
	return want > (double)slow_ns ? slow_ns : (uint64_t)want;
}

/*
 * The rounds' times are drawn at random anyway, so a wake may come a little late (a fifth of the
 * mean interval) with a timer the kernel fires anyway (its tick, another thread's) instead of a
 * timer interrupt of its own: in a VM each is an exit to the hypervisor, measured at a fifth of a
 * round's cost at 100 reads a second. Per thread: the rest of perftop keeps the default slack.
 */
static void watch_slack(struct pywatch *w)
{
	static _Thread_local uint64_t set;
	pthread_mutex_lock(&w->mu);
	uint64_t slack_ns = w->mean_ns / WATCH_SLACK_PART;
	pthread_mutex_unlock(&w->mu);
	if (slack_ns && slack_ns != set && prctl(PR_SET_TIMERSLACK, (unsigned long)slack_ns, 0, 0, 0) == 0)
		set = slack_ns;
}

/* What the last TUNE_NS cost, and the mean interval it allows (see DESIGN). */
struct tuning {
	uint64_t wall, proc, self, rounds;
};

static void watch_tune(struct pywatch *w, struct tuning *t, uint64_t rounds)
{
	uint64_t wall = now_ns();
	if (t->wall && wall - t->wall < TUNE_NS)
		return;  /* CPU clocks are system calls: once a TUNE_NS */
	uint64_t proc = clock_cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
	uint64_t self = clock_cpu_ns(CLOCK_THREAD_CPUTIME_ID);
	if (t->wall && !w->fixed && rounds > t->rounds && self >= t->self && proc >= t->proc) {
		double spent = (double)(self - t->self);
		uint64_t want = pywatch_budget_interval(spent / (double)(rounds - t->rounds),
							(double)(proc - t->proc) - spent,
							(double)(wall - t->wall), w->fast_ns, w->slow_ns);
		pthread_mutex_lock(&w->mu);
		w->mean_ns = (w->mean_ns + want) / 2;  /* halfway: one noisy second moves it less */
		pthread_mutex_unlock(&w->mu);
	}
	*t = (struct tuning){ wall, proc, self, rounds };
	pthread_mutex_lock(&w->mu);
	w->cpu_ns = self;
	pthread_mutex_unlock(&w->mu);
	watch_slack(w);
}

static void *watch_thread(void *arg)
{
	struct pywatch *w = arg;
	watch_slack(w);
	struct job *jobs = xmalloc(WATCH_MAX * sizeof(*jobs));
	struct pyraw *raw = xmalloc(READ_MAX * sizeof(*raw));
	struct tuning tune = { 0 };
	uint64_t next = now_ns(), rounds = 0;
	while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
		if (!watch_round(w, jobs, raw)) {
			watch_idle(w);
			next = now_ns();
			tune = (struct tuning){ 0 };  /* the idle time is not the budget's */
			continue;
		}
		rounds++;
		next += watch_interval(w);
		uint64_t now = now_ns();
		if (next < now)
			next = now;  /* a round that overran: the clock starts again from now */
		watch_sleep(w, next);
		watch_tune(w, &tune, rounds);
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
		x->hint = (struct pyread_hint){ 0 };
		x->fails = 0;
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

uint64_t pywatch_nearest(const uint64_t *times, uint64_t ring, uint64_t n, uint64_t have,
			 uint64_t time)
{
	/* The read i reads old (0: the oldest of the have) is times[(n - have + i) % ring]; times
	 * never decrease. The first at or after time, by bisection: */
	uint64_t lo = 0, hi = have;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (times[(n - have + mid) % ring] < time)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == have)
		return 1;  /* every read was before time: the newest */
	/* Of reads at one time, the newest; the one before time only when strictly nearer. */
	uint64_t up = lo, t_up = times[(n - have + up) % ring];
	while (up + 1 < have && times[(n - have + up + 1) % ring] == t_up)
		up++;
	if (lo > 0 && time - times[(n - have + lo - 1) % ring] < t_up - time)
		up = lo - 1;
	return have - up;
}

int pywatch_lookup(struct pywatch *w, uint32_t pid, uint32_t tid, uint64_t time, struct pyraw *out,
		   int max, uint64_t *gap)
{
	int got = -1;
	pthread_mutex_lock(&w->mu);
	for (int i = 0; i < WATCH_MAX && got < 0; i++) {
		struct watched *x = &w->w[i];
		if (!x->used || x->pid != pid || x->tid != tid || !x->nsnaps)
			continue;
		/* The reads whose frames are still in the arena: the newest have ones (older reads'
		 * frames were written over first), found by bisection as the nearest one is: a sample
		 * comes 80 to 210 ms after its time, hundreds of reads back at a fast rate. */
		uint64_t have = x->nsnaps < SNAP_RING ? x->nsnaps : SNAP_RING, lo = 0, hi = have;
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo + 1) / 2;  /* mid newest reads kept? */
			if (x->arena_pos - x->snaps[(x->nsnaps - mid) % SNAP_RING].start <= ARENA)
				lo = mid;
			else
				hi = mid - 1;
		}
		have = lo;
		if (!have)
			break;
		uint64_t k = pywatch_nearest(x->times, SNAP_RING, x->nsnaps, have, time);
		const struct snap *best = &x->snaps[(x->nsnaps - k) % SNAP_RING];
		uint64_t t = x->times[(x->nsnaps - k) % SNAP_RING];
		uint64_t best_gap = t > time ? t - time : time - t;
		if (best_gap > best->reach)
			break;
		got = (int)best->n < max ? (int)best->n : max;
		for (int f = 0; f < got; f++)
			out[f] = x->arena[(best->start + (uint64_t)f) % ARENA];
		*gap = best_gap;
	}
	pthread_mutex_unlock(&w->mu);
	return got;
}

void pywatch_counts(struct pywatch *w, uint64_t *reads, uint64_t *cpu_ns, uint64_t *mean_ns,
		    struct py_io *io)
{
	pthread_mutex_lock(&w->mu);
	*io = w->io;
	*reads = w->reads;
	*cpu_ns = w->cpu_ns;
	*mean_ns = w->mean_ns;
	pthread_mutex_unlock(&w->mu);
}
