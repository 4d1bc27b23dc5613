/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fakejvm: a process that looks like a HotSpot JVM to perftop (it maps a file named libjvm.so,
 * runs code from anonymous executable memory, catches SIGQUIT, has a thread named
 * "Signal Dispatch") and answers the attach the way MODE says: a well-behaved one and hostile ones.
 *
 *   fakejvm MODE SECS DIR [LIBDIR] [-XX:...]
 *
 * On a SIGQUIT the dispatcher thread looks for .attach_pid<PID> in the working directory, then in
 * DIR (HotSpot's order; DIR stands for /tmp), and, when the file is there and is its own euid's or
 * root's, starts listening on DIR/.java_pid<PID> (a socket of its own euid); it prints "trigger" or
 * "no trigger" on stdout. Then, by MODE:
 *   ok        answers each request "0\n" after checking it is exactly jcmd's (else "-1\n"), and for
 *             Compiler.perfmap writes DIR/perf-<PID>.map naming its code "fake_jit_spin"; takes a
 *             connection only from root or its own euid and egid (HotSpot 17)
 *   strict    the same, but takes only its own euid and egid (HotSpot 8: root is refused)
 *   garbage   answers "Zzz\1garbage" and a newline
 *   silent    takes the connection and never answers
 *   huge      answers "0\n" and then 256 MiB
 *   drip      answers "0" and then a byte every 100 ms, never a newline
 *   nosocket  never listens
 *   noquit    does not catch SIGQUIT (ignores it)
 *   symlink   DIR/.java_pid<PID> is a symlink to a socket that answers "0\n"
 * "ready" on stdout once it runs; it prints "conn UID GID" for each connection it takes. LIBDIR
 * (default DIR) is where it makes the libjvm.so it maps. Exits after SECS seconds. With
 * FAKEJVM_IDLE=1 in its environment it sleeps instead of running its code (test_jvmattach, which
 * samples nothing, leaves the CPUs to the tests beside it).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const char *mode, *dir;
static int quit_pipe[2];
static pthread_barrier_t named; /* the dispatcher has its name: "ready" may be said */

static void on_quit(int sig)
{
	(void)sig;
	char c = 'q';
	(void)!write(quit_pipe[1], &c, 1);
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static bool trigger_at(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && (st.st_uid == geteuid() || st.st_uid == 0);
}

static bool triggered(void)
{
	char p[512];
	snprintf(p, sizeof(p), ".attach_pid%d", (int)getpid());
	struct stat st;
	if (stat(p, &st) == 0)   /* HotSpot looks no further than the working directory's */
		return st.st_uid == geteuid() || st.st_uid == 0;
	snprintf(p, sizeof(p), "%s/.attach_pid%d", dir, (int)getpid());
	return trigger_at(p);
}

static int listen_at(const char *path)
{
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	unlink(path);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(s, 5) != 0) {
		perror("fakejvm: listen");
		exit(1);
	}
	chmod(path, 0600);
	return s;
}

static const char request[] = "1\0jcmd\0Compiler.perfmap\0\0";
static const char flags_request[] = "1\0jcmd\0VM.flags\0\0";
static uint8_t *code;

static void write_map(void)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/perf-%d.map", dir, (int)getpid());
	FILE *f = fopen(p, "w");
	if (f) {
		fprintf(f, "0x%016lx 0x%016x fake_jit_spin\n", (unsigned long)(uintptr_t)code, 64);
		fclose(f);
	}
}

/* One connection of a well-behaved mode. */
static void serve_ok(int c, bool strict)
{
	struct ucred cr;
	socklen_t l = sizeof(cr);
	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &l) != 0)
		return;
	say("conn %d %d\n", (int)cr.uid, (int)cr.gid);
	bool ok = (cr.uid == geteuid() && cr.gid == getegid()) || (!strict && cr.uid == 0);
	if (!ok)
		return;  /* HotSpot closes such a connection without a word */
	char buf[2048];
	size_t n = 0;
	int nul = 0;
	while (nul < 5 && n < sizeof(buf)) {
		ssize_t r = read(c, buf + n, sizeof(buf) - n);
		if (r <= 0)
			break;
		for (ssize_t i = 0; i < r; i++)
			nul += buf[n + (size_t)i] == 0;
		n += (size_t)r;
	}
	if (n == sizeof(request) && !memcmp(buf, request, n)) {
		write_map();
		(void)!write(c, "0\n", 2);
	} else if (n == sizeof(flags_request) && !memcmp(buf, flags_request, n)) {
		static const char flags[] = "0\n-XX:CICompilerCount=2 -XX:+UseSerialGC\n";
		(void)!write(c, flags, sizeof(flags) - 1);
	} else {
		static const char bad[] = "-1\njava.lang.IllegalArgumentException: not jcmd's request\n";
		(void)!write(c, bad, sizeof(bad) - 1);
	}
}

static void serve(int listener)
{
	for (;;) {
		int c = accept(listener, NULL, NULL);
		if (c < 0)
			continue;
		if (!strcmp(mode, "ok") || !strcmp(mode, "strict") || !strcmp(mode, "symlink")) {
			serve_ok(c, !strcmp(mode, "strict"));
		} else if (!strcmp(mode, "garbage")) {
			(void)!write(c, "Zzz\1garbage\n", 12);
		} else if (!strcmp(mode, "silent")) {
			continue;  /* kept open, never answered */
		} else if (!strcmp(mode, "huge")) {
			static char chunk[65536];
			memset(chunk, 'A', sizeof(chunk));
			(void)!write(c, "0\n", 2);
			for (int i = 0; i < 4096; i++)
				if (write(c, chunk, sizeof(chunk)) < 0)
					break;  /* the reader has had enough */
		} else if (!strcmp(mode, "drip")) {
			(void)!write(c, "0", 1);
			for (int i = 0; i < 600; i++) {
				struct timespec ts = { 0, 100000000L };
				nanosleep(&ts, NULL);
				if (write(c, "1", 1) < 0)
					break;
			}
		}
		close(c);
	}
}

static void *dispatcher(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "Signal Dispatch", 0, 0, 0);
	pthread_barrier_wait(&named);
	bool listening = false;
	for (;;) {
		char c;
		if (read(quit_pipe[0], &c, 1) <= 0)
			continue;
		bool t = triggered();
		say("%s\n", t ? "trigger" : "no trigger");
		if (!t || listening || !strcmp(mode, "nosocket"))
			continue;
		listening = true;
		char p[512];
		snprintf(p, sizeof(p), "%s/.java_pid%d", dir, (int)getpid());
		if (!strcmp(mode, "symlink")) {
			char real[600];
			snprintf(real, sizeof(real), "%s.real", p);
			int s = listen_at(real);
			unlink(p);
			if (symlink(real, p) != 0)
				perror("fakejvm: symlink");
			serve(s);
		}
		serve(listen_at(p));
	}
	return NULL;
}

/* A file named libjvm.so in libdir, mapped executable: what perftop takes for HotSpot. */
static void map_libjvm(const char *libdir)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/libjvm.so", libdir);
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, 4096) != 0 ||
	    mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
		perror("fakejvm: libjvm.so");
		exit(1);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: fakejvm MODE SECS DIR [LIBDIR]\n");
		return 2;
	}
	mode = argv[1];
	double secs = atof(argv[2]);
	dir = argv[3];
	signal(SIGPIPE, SIG_IGN);
	map_libjvm(argc > 4 && argv[4][0] != '-' ? argv[4] : dir);  /* "-XX:...": an argument shown */
#if defined(__x86_64__)
	/* mov ecx, 200000; 1: dec ecx; jnz 1b; ret */
	static const uint8_t spin[] = { 0xb9, 0x40, 0x0d, 0x03, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0xc3 };
	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("fakejvm: mmap");
		return 1;
	}
	memcpy(code, spin, sizeof(spin));
#endif
	if (pipe2(quit_pipe, O_CLOEXEC) != 0)
		return 1;
	struct sigaction sa = { .sa_handler = on_quit, .sa_flags = SA_RESTART };
	if (!strcmp(mode, "noquit"))
		sa.sa_handler = SIG_IGN;
	sigaction(SIGQUIT, &sa, NULL);
	pthread_t t;
	pthread_barrier_init(&named, NULL, 2);
	pthread_create(&t, NULL, dispatcher, NULL);
	pthread_barrier_wait(&named);
	say("ready\n");
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	bool idle = getenv("FAKEJVM_IDLE") != NULL;
	for (;;) {
		if (idle) {
			struct timespec ts = { 0, 50000000L };
			nanosleep(&ts, NULL);
		}
#if defined(__x86_64__)
		else
			((void (*)(void))code)();
#endif
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 > secs)
			break;
	}
	return 0;
}
