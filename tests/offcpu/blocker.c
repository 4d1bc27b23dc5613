/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * blocker: the reference workload of the off-CPU tests. Named threads wait in known
 * ways, each wait inside a known function, and time their own waits, so a test can hold perftop's
 * --off-cpu figures against the workload's clocks:
 *
 *   sleeper  nanosleep(10 ms) in a loop, inside sleep_wait          (state S)
 *   syncer   pwrite 4 KiB + fdatasync on a file in DIR, in sync_wait (state D when DIR is on a disk)
 *   locker   pthread_mutex_lock on a mutex the holder keeps 30 ms at a time, inside lock_wait
 *   holder   keeps the mutex while it sleeps 30 ms, inside hold_lock
 *   spinner  burns CPU in spin_work for the whole timed phase (off CPU only when preempted)
 *
 * Each call of those functions in the timed phase is timed around the call: its wall time
 * (CLOCK_MONOTONIC) minus the thread's CPU time over it (CLOCK_THREAD_CPUTIME_ID) is the time the
 * thread spent off the CPU there; getrusage(RUSAGE_THREAD)'s voluntary switches over it tell whether
 * it blocked at all (on tmpfs fdatasync never does). At exit it prints one JSON object: per function
 * its summed off_ns, wall_ns, cpu_ns, calls, blocked_calls, the longest off-CPU time of one call
 * (max_off_ns) and the thread's context switches inside its calls (switches: voluntary and
 * involuntary, getrusage: each one a block of that function's for a profiler); per thread name its
 * tid and the wall_ns and cpu_ns of its timed phase, and the kernel's figure of its run-queue
 * waits over it (run_delay_ns, schedstat; 0 without SCHED_INFO) and of its context switches
 * (switches: voluntary and involuntary, getrusage).
 *
 *   blocker SECONDS [--dir DIR] [--out FILE] [--wait-signal]
 *
 * The JSON goes to FILE (--out; default stdout, where a profiler running the command as its child
 * would mix it with its own output).
 * --wait-signal: the threads run their loops untimed ("warm-up") and the program prints
 * "ready PID" until SIGUSR1 comes; then it prints "started" and the timed phase runs SECONDS.
 * A test attaches a profiler mid-run, then starts the phase it compares. The warm-up waits the
 * same ways inside functions of their own (warmup_sleep, warmup_sync, warmup_lock, warmup_hold,
 * warmup_spin):
 * a live profiler's windows are cut when it has taken the records in, which may be well after
 * they were written, so no window boundary can split the timed phase from what came before it;
 * with the names apart, every block of a timed function is of the timed phase, whatever window
 * it lands in. Without --wait-signal the timed phase is the whole run. Built -O2 -g -fno-omit-frame-pointer; the functions are noipa (no clone
 * renames them) and do something after their blocking call (a tail jump would take them off the
 * stack).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noipa))
#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

enum { PH_WARMUP, PH_TIMED, PH_STOP };
static atomic_int phase = PH_WARMUP;

enum { FN_SLEEP, FN_SYNC, FN_LOCK, FN_HOLD, FN_SPIN, NFN };
static const char *const fname[NFN] = {"sleep_wait", "sync_wait", "lock_wait", "hold_lock",
				       "spin_work"};
/* Each function is called by one thread only: no sharing. */
static struct fstat {
	uint64_t off_ns, wall_ns, cpu_ns, calls, blocked_calls, max_off_ns, switches;
} fst[NFN];

enum { T_SLEEPER, T_SYNCER, T_LOCKER, T_HOLDER, T_SPINNER, NT };
static const char *const tname[NT] = {"sleeper", "syncer", "locker", "holder", "spinner"};
static struct tstat {
	long tid;
	uint64_t t0, c0, t1, c1; /* monotonic and thread CPU clocks at the timed phase's ends */
	uint64_t d0, d1;         /* the kernel's run-queue wait of the thread (schedstat) there */
	long s0, s1;             /* its context switches, voluntary and not (getrusage) there */
	int started;
} tst[NT];

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t locked, taken;
static int sync_fd = -1;
static volatile unsigned long sink;

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The kernel's count of the time this thread waited on a run queue (the second field of
 * /proc/thread-self/schedstat, CONFIG_SCHED_INFO), 0 where there is none. The thread's CPU clock
 * leaves out time a hypervisor stole from its virtual CPU (paravirtual steal accounting), so on a
 * loaded VM wall minus CPU time overstates a spinner's waits; this does not. */
static uint64_t run_delay_ns(void)
{
	unsigned long long run = 0, delay = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	if (f) {
		if (fscanf(f, "%llu %llu", &run, &delay) != 2)
			delay = 0;
		fclose(f);
	}
	return delay;
}

/* The thread's switches so far: voluntary (it blocked) in *vol, every one in *all. */
static void thread_switches(long *vol, long *all)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	*vol = ru.ru_nvcsw;
	*all = ru.ru_nvcsw + ru.ru_nivcsw;
}

static long all_switches(void)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/*
 * The libc calls go through helpers of their own: glibc is built without frame pointers, so a
 * frame-pointer chain taken inside it skips the function that called into it (the return address
 * into that caller is on the stack, not in a frame record). Skipped is then the helper, and the
 * function the tests look for (its caller) is on every chain.
 */
NOINLINE void nap(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	KEEP_FRAME();
}

NOINLINE void write_sync(int fd, const void *buf, size_t len, off_t at)
{
	if (pwrite(fd, buf, len, at) != (ssize_t)len || fdatasync(fd) != 0) {
		perror("blocker: write + fdatasync");
		exit(1);
	}
	KEEP_FRAME();
}

NOINLINE void take_release(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
	pthread_mutex_unlock(m);
	KEEP_FRAME();
}

NOINLINE void sleep_wait(void)
{
	nap(10);
	KEEP_FRAME();
}

NOINLINE void sync_wait(void)
{
	static char buf[4096];
	static off_t at;
	memset(buf, (int)(at >> 12), sizeof(buf));
	write_sync(sync_fd, buf, sizeof(buf), at);
	at = (at + 4096) % (256 * 4096);
	KEEP_FRAME();
}

NOINLINE void lock_wait(void)
{
	take_release(&lock);
	KEEP_FRAME();
}

NOINLINE void hold_lock(void)
{
	nap(30);
	KEEP_FRAME();
}

/* The warm-up's waits (--wait-signal): the timed functions' twins, under names of their own. */
NOINLINE void warmup_sleep(void)
{
	nap(10);
	KEEP_FRAME();
}

NOINLINE void warmup_sync(void)
{
	static char buf[4096];
	write_sync(sync_fd, buf, sizeof(buf), 0);
	KEEP_FRAME();
}

NOINLINE void warmup_lock(void)
{
	take_release(&lock);
	KEEP_FRAME();
}

NOINLINE void warmup_hold(void)
{
	nap(30);
	KEEP_FRAME();
}

/* Spins until the phase it was called in ends. */
static inline __attribute__((always_inline)) void spin_until(int ph)
{
	unsigned long x = 1;
	while (atomic_load_explicit(&phase, memory_order_relaxed) == ph)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

NOINLINE void spin_work(int ph)
{
	spin_until(ph);
}

NOINLINE void warmup_spin(int ph)
{
	spin_until(ph);
}

/* The thread's clocks and counts at the start of its timed phase, once. */
static void start_timed(int t)
{
	if (tst[t].started)
		return;
	tst[t].started = 1;
	tst[t].d0 = run_delay_ns();
	tst[t].t0 = clock_ns(CLOCK_MONOTONIC);
	tst[t].c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	/* The switches are counted last here and first in leave(): a switch while the schedstat file
	 * is read (open, read, close: each a point where the thread may be switched out) is none of
	 * the timed functions', so it stays out of the count that perftop's blocks are held to. */
	tst[t].s0 = all_switches();
}

/* The phase this thread is in now; the first time it sees the timed phase its clocks start. */
static int enter(int t)
{
	int ph = atomic_load(&phase);
	if (ph != PH_WARMUP)
		start_timed(t);
	return ph;
}

static void leave(int t)
{
	start_timed(t); /* stopped before it ever saw the timed phase: an empty one */
	tst[t].s1 = all_switches();
	tst[t].t1 = clock_ns(CLOCK_MONOTONIC);
	tst[t].c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	tst[t].d1 = run_delay_ns();
}

/* Calls the timed function (timed) in the timed phase, its warm-up twin before it. */
#define CALL(f, ph, warmup, ...)                                                           \
	do {                                                                               \
		if ((ph) != PH_TIMED) {                                                    \
			warmup;                                                            \
			break;                                                             \
		}                                                                          \
		long v0, s0;                                                               \
		thread_switches(&v0, &s0);                                                 \
		uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), t0 = clock_ns(CLOCK_MONOTONIC); \
		__VA_ARGS__;                                                               \
		uint64_t t1 = clock_ns(CLOCK_MONOTONIC), c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID); \
		long v1, s1;                                                               \
		thread_switches(&v1, &s1);                                                 \
		uint64_t w = t1 - t0, c = c1 - c0;                                         \
		fst[f].wall_ns += w;                                                       \
		fst[f].cpu_ns += c;                                                        \
		fst[f].off_ns += w > c ? w - c : 0;                                        \
		if (w > c && w - c > fst[f].max_off_ns)                                    \
			fst[f].max_off_ns = w - c;                                         \
		fst[f].calls++;                                                            \
		fst[f].blocked_calls += v1 > v0;                                           \
		fst[f].switches += s1 - s0;                                                \
	} while (0)

static void start_thread(int t)
{
	pthread_setname_np(pthread_self(), tname[t]);
	tst[t].tid = syscall(SYS_gettid);
}

static void *sleeper(void *arg)
{
	(void)arg;
	start_thread(T_SLEEPER);
	for (int ph; (ph = enter(T_SLEEPER)) != PH_STOP;)
		CALL(FN_SLEEP, ph, warmup_sleep(), sleep_wait());
	leave(T_SLEEPER);
	return NULL;
}

static void *syncer(void *arg)
{
	(void)arg;
	start_thread(T_SYNCER);
	for (int ph; (ph = enter(T_SYNCER)) != PH_STOP;)
		CALL(FN_SYNC, ph, warmup_sync(), sync_wait());
	leave(T_SYNCER);
	return NULL;
}

/* The holder takes the mutex, says so (locked), keeps it 30 ms, lets it go and waits for the locker
 * to have had it (taken), so that the locker blocks each time. At the end the holder posts locked
 * once more so that a locker waiting for it sees the stop. */
static void *holder(void *arg)
{
	(void)arg;
	start_thread(T_HOLDER);
	for (int ph; (ph = enter(T_HOLDER)) != PH_STOP;) {
		pthread_mutex_lock(&lock);
		sem_post(&locked);
		CALL(FN_HOLD, ph, warmup_hold(), hold_lock());
		pthread_mutex_unlock(&lock);
		while (sem_wait(&taken) != 0)
			;
	}
	leave(T_HOLDER);
	sem_post(&locked);
	return NULL;
}

static void *locker(void *arg)
{
	(void)arg;
	start_thread(T_LOCKER);
	for (;;) {
		while (sem_wait(&locked) != 0)
			;
		int ph = enter(T_LOCKER);
		if (ph == PH_STOP)
			break;
		CALL(FN_LOCK, ph, warmup_lock(), lock_wait());
		sem_post(&taken);
	}
	leave(T_LOCKER);
	sem_post(&taken);
	return NULL;
}

static void *spinner(void *arg)
{
	(void)arg;
	start_thread(T_SPINNER);
	for (int ph; (ph = enter(T_SPINNER)) != PH_STOP;)
		CALL(FN_SPIN, ph, warmup_spin(ph), spin_work(ph));
	leave(T_SPINNER);
	return NULL;
}

/* The main thread's wait through the timed phase: not nap's, whose time is the sleeper's and the
 * holder's only. */
NOINLINE void run_phase(double secs)
{
	struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	KEEP_FRAME();
}

static void print_json(FILE *o, double secs, const char *dir, uint64_t phase_ns)
{
	fprintf(o, "{\"pid\": %d, \"seconds\": %g, \"dir\": \"%s\", \"phase_ns\": %llu, \"functions\": {",
	       (int)getpid(), secs, dir, (unsigned long long)phase_ns);
	for (int f = 0; f < NFN; f++)
		fprintf(o, "%s\"%s\": {\"off_ns\": %llu, \"wall_ns\": %llu, \"cpu_ns\": %llu, \"calls\": %llu, "
		       "\"blocked_calls\": %llu, \"max_off_ns\": %llu, \"switches\": %llu}",
		       f ? ", " : "", fname[f], (unsigned long long)fst[f].off_ns,
		       (unsigned long long)fst[f].wall_ns, (unsigned long long)fst[f].cpu_ns,
		       (unsigned long long)fst[f].calls, (unsigned long long)fst[f].blocked_calls,
		       (unsigned long long)fst[f].max_off_ns, (unsigned long long)fst[f].switches);
	fprintf(o, "}, \"threads\": {");
	for (int t = 0; t < NT; t++)
		fprintf(o, "%s\"%s\": {\"tid\": %ld, \"wall_ns\": %llu, \"cpu_ns\": %llu, "
			"\"run_delay_ns\": %llu, \"switches\": %ld}", t ? ", " : "",
		       tname[t], tst[t].tid, (unsigned long long)(tst[t].t1 - tst[t].t0),
		       (unsigned long long)(tst[t].c1 - tst[t].c0),
		       (unsigned long long)(tst[t].d1 - tst[t].d0), tst[t].s1 - tst[t].s0);
	fprintf(o, "}}\n");
}

int main(int argc, char **argv)
{
	const char *dir = ".", *out = NULL;
	int wait_signal = 0;
	double secs = -1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--wait-signal"))
			wait_signal = 1;
		else if (secs < 0 && argv[i][0] != '-')
			secs = atof(argv[i]);
		else
			secs = -2;
	}
	if (secs <= 0) {
		fprintf(stderr, "usage: blocker SECONDS [--dir DIR] [--out FILE] [--wait-signal]\n");
		return 2;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/blocker-%d.dat", dir, (int)getpid());
	sync_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (sync_fd < 0) {
		fprintf(stderr, "blocker: %s: %s\n", path, strerror(errno));
		return 1;
	}
	unlink(path);
	sem_init(&locked, 0, 0);
	sem_init(&taken, 0, 0);
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL); /* the threads inherit it: only sigwait takes it */
	if (!wait_signal)
		atomic_store(&phase, PH_TIMED);

	void *(*fn[NT])(void *) = {sleeper, syncer, locker, holder, spinner};
	pthread_t th[NT];
	for (int t = 0; t < NT; t++)
		if (pthread_create(&th[t], NULL, fn[t], NULL) != 0) {
			fprintf(stderr, "blocker: pthread_create failed\n");
			return 1;
		}
	if (wait_signal) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		int sig;
		sigwait(&usr1, &sig);
		atomic_store(&phase, PH_TIMED);
		printf("started\n");
		fflush(stdout);
	}
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
	run_phase(secs);
	atomic_store(&phase, PH_STOP);
	uint64_t t1 = clock_ns(CLOCK_MONOTONIC);
	for (int t = 0; t < NT; t++)
		pthread_join(th[t], NULL);
	FILE *o = out ? fopen(out, "w") : stdout;
	if (!o) {
		fprintf(stderr, "blocker: %s: %s\n", out, strerror(errno));
		return 1;
	}
	print_json(o, secs, dir, t1 - t0);
	return fclose(o) == 0 ? 0 : 1;
}
