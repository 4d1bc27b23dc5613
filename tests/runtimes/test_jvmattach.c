/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_jvmattach: HotSpot's attach protocol as src/runtime/jvmattach.c speaks it, against servers
 * of this test, each on a UNIX socket in a temporary directory of its own:
 *   - the request's bytes, and every reply: HotSpot's ("0\n", "-1\n<why>", "101\n"), garbage, none,
 *     a partial one, one that never ends (silent, or a byte at a time), a huge one (read up to the
 *     bound, the rest left), a first line too long; each within its time bound;
 *   - the socket's checks (a symlink, a regular file, another owner's), the trigger file's (made
 *     O_EXCL and never through a symlink, owned by the JVM's ids, removed only while it is ours),
 *     the connection under the JVM's ids (the server reads them from SO_PEERCRED);
 *   - the whole attach (jvmattach_target_run) on fakejvm processes (tests/runtimes/fakejvm.c: a
 *     fake JVM whose /tmp is a temporary directory here): well-behaved, as another user that takes
 *     only its own ids, and hostile (garbage, silent, huge, drip, no socket, a symlinked socket, a
 *     trigger file of another user in its way); never a trigger file left behind;
 *   - jvmattach_run's refusals through /proc (not a JVM, no such process, -XX:+DisableAttachMechanism
 *     on the command line or in JAVA_TOOL_OPTIONS), and the job thread (jvmjob: its TSan twin checks
 *     the handover), stopped early by its free.
 * Run as root (the id switch and chown need it); as another user those checks are skipped.
 *
 * usage: test_jvmattach FAKEJVM
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "runtime/jvmattach.h"
#include "runtime/jvmjob.h"
#include "util/util.h"

#define NOBODY 65534

static const char *fakejvm;
static char base[40];   /* the test's temporary directory */

static uint64_t ms(void)
{
	return now_ns() / 1000000;
}

/* ---- a server of this test ---- */

enum reply {
	REPLY_OK, REPLY_ERROR, REPLY_BADVER, REPLY_GARBAGE, REPLY_CLOSE, REPLY_PARTIAL, REPLY_SILENT, REPLY_DRIP, REPLY_HUGE, REPLY_LONGLINE,
	REPLY_SLOWTAIL,
};

struct srv {
	int listener;
	enum reply reply;
	char got[2048];
	size_t gotn;
	uid_t peer_uid;
	gid_t peer_gid;
	atomic_bool quit;
};

static int listen_unix(const char *path)
{
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	unlink(path);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(s, 5) != 0) {
		perror(path);
		exit(1);
	}
	return s;
}

static void srv_write(struct srv *v, int c, const void *p, size_t n)
{
	(void)v;
	(void)!send(c, p, n, MSG_NOSIGNAL);
}

/* Waits (up to 3 s) for the client to go, or for the test to say quit. */
static void srv_linger(struct srv *v, int c, int step_ms, const char *drip)
{
	for (int i = 0; i < 3000 / step_ms && !atomic_load(&v->quit); i++) {
		struct pollfd p = { .fd = c, .events = POLLIN };
		if (poll(&p, 1, step_ms) > 0) {
			char b[64];
			if (recv(c, b, sizeof(b), MSG_DONTWAIT) == 0)
				return;
		}
		if (drip && send(c, drip, 1, MSG_NOSIGNAL) < 0)
			return;
	}
}

static void *srv_main(void *arg)
{
	struct srv *v = arg;
	int c = accept(v->listener, NULL, NULL);
	if (c < 0)
		return NULL;
	struct ucred cr;
	socklen_t l = sizeof(cr);
	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &l) == 0) {
		v->peer_uid = cr.uid;
		v->peer_gid = cr.gid;
	}
	int nul = 0;
	while (nul < 5 && v->gotn < sizeof(v->got)) {
		ssize_t r = recv(c, v->got + v->gotn, sizeof(v->got) - v->gotn, 0);
		if (r <= 0)
			break;
		for (ssize_t i = 0; i < r; i++)
			nul += v->got[v->gotn + (size_t)i] == 0;
		v->gotn += (size_t)r;
	}
	static char big[1 << 16];
	switch (v->reply) {
	case REPLY_OK: srv_write(v, c, "0\n", 2); break;
	case REPLY_ERROR: srv_write(v, c, "-1\nUnknown diagnostic command\n", 30); break;
	case REPLY_BADVER: srv_write(v, c, "101\n", 4); break;
	case REPLY_GARBAGE: srv_write(v, c, "Zzz\1\n", 5); break;
	case REPLY_CLOSE: break;
	case REPLY_PARTIAL: srv_write(v, c, "0", 1); break;
	case REPLY_SILENT: srv_linger(v, c, 20, NULL); break;
	case REPLY_DRIP: srv_write(v, c, "0", 1); srv_linger(v, c, 20, "1"); break;
	case REPLY_SLOWTAIL: srv_write(v, c, "0\nsome", 6); srv_linger(v, c, 20, "x"); break;
	case REPLY_HUGE:
		memset(big, 'A', sizeof(big));
		srv_write(v, c, "0\n", 2);
		for (int i = 0; i < 160 && !atomic_load(&v->quit); i++)  /* 10 MiB */
			if (send(c, big, sizeof(big), MSG_NOSIGNAL) < 0)
				break;
		break;
	case REPLY_LONGLINE:
		memset(big, '7', sizeof(big));
		srv_write(v, c, big, sizeof(big));
		break;
	}
	close(c);
	return NULL;
}

static const char REQUEST[] = "1\0jcmd\0Compiler.perfmap\0\0"; /* sizeof: its 5 NULs */

/* One request against a server that replies so; returns the result code and the time taken. */
static int exchange(enum reply reply, int timeout_ms, const atomic_bool *stop, size_t max, size_t *len,
		    bool *cut, uint64_t *took, struct srv *v)
{
	char path[100], *buf = xmalloc(max);
	snprintf(path, sizeof(path), "%s/srv.sock", base);
	memset(v, 0, sizeof(*v));
	v->listener = listen_unix(path);
	v->reply = reply;
	atomic_init(&v->quit, false);
	pthread_t t;
	pthread_create(&t, NULL, srv_main, v);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	CHECK(connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	uint64_t t0 = ms();
	int rc = jvmattach_request(fd, "Compiler.perfmap", buf, max, len, cut, timeout_ms, stop);
	*took = ms() - t0;
	close(fd);
	atomic_store(&v->quit, true);
	pthread_join(t, NULL);
	close(v->listener);
	unlink(path);
	free(buf);
	return rc;
}

static void test_protocol(void)
{
	char req[64];
	CHECK_EQ_U64(jvmattach_format(req, sizeof(req), "Compiler.perfmap"), sizeof(REQUEST));
	CHECK(!memcmp(req, REQUEST, sizeof(REQUEST)));
	CHECK_EQ_U64(jvmattach_format(req, 10, "Compiler.perfmap"), 0);  /* does not fit */

	struct srv v;
	size_t len;
	bool cut;
	uint64_t took;
	int rc = exchange(REPLY_OK, 2000, NULL, 4096, &len, &cut, &took, &v);
	CHECK_EQ_U64(rc, 0);
	CHECK_EQ_U64(v.gotn, sizeof(REQUEST));  /* exactly jcmd's bytes, nothing after */
	CHECK(v.gotn == sizeof(REQUEST) && !memcmp(v.got, REQUEST, sizeof(REQUEST)));
	CHECK(!cut && len == 2);
	CHECK_EQ_U64(exchange(REPLY_ERROR, 2000, NULL, 4096, &len, &cut, &took, &v), (uint64_t)-1);
	CHECK_EQ_U64(exchange(REPLY_BADVER, 2000, NULL, 4096, &len, &cut, &took, &v), 101);
	CHECK_EQ_U64(exchange(REPLY_GARBAGE, 2000, NULL, 4096, &len, &cut, &took, &v),
		     (uint64_t)JVMATTACH_EGARBAGE);
	CHECK_EQ_U64(exchange(REPLY_CLOSE, 2000, NULL, 4096, &len, &cut, &took, &v),
		     (uint64_t)JVMATTACH_EIO);
	rc = exchange(REPLY_PARTIAL, 2000, NULL, 4096, &len, &cut, &took, &v);
	CHECK(rc <= JVMATTACH_EBASE);
	CHECK_EQ_U64(exchange(REPLY_LONGLINE, 2000, NULL, 4096, &len, &cut, &took, &v),
		     (uint64_t)JVMATTACH_EGARBAGE);
	/* never an answer, or a byte at a time without a newline: the time bound ends it */
	rc = exchange(REPLY_SILENT, 300, NULL, 4096, &len, &cut, &took, &v);
	CHECK_EQ_U64(rc, (uint64_t)JVMATTACH_ETIME);
	CHECK(took >= 290 && took < 800);
	rc = exchange(REPLY_DRIP, 300, NULL, 4096, &len, &cut, &took, &v);
	CHECK(rc == JVMATTACH_ETIME || rc == JVMATTACH_EGARBAGE); /* garbage: over 10 digits by then */
	CHECK(took >= 290 && took < 800);
	/* a whole first line, then output that never ends: the code, the rest cut at the bound */
	rc = exchange(REPLY_SLOWTAIL, 300, NULL, 4096, &len, &cut, &took, &v);
	CHECK_EQ_U64(rc, 0);
	CHECK(cut && took < 800);
	/* 10 MiB: read up to the bound, the rest left unread, at once */
	rc = exchange(REPLY_HUGE, 2000, NULL, 65536, &len, &cut, &took, &v);
	CHECK_EQ_U64(rc, 0);
	CHECK_EQ_U64(len, 65535);
	CHECK(cut && took < 1000);
	/* the stop flag ends a wait at its next step */
	atomic_bool stop;
	atomic_init(&stop, true);
	rc = exchange(REPLY_SILENT, 5000, &stop, 4096, &len, &cut, &took, &v);
	CHECK_EQ_U64(rc, (uint64_t)JVMATTACH_ESTOP);
	CHECK(took < 200);
}

/* ---- the socket, the connection, the trigger file ---- */

static void test_socket_checks(void)
{
	char dir[128], path[192];
	snprintf(dir, sizeof(dir), "%s/sock", base);
	mkdir(dir, 0700);
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/.java_pid7", dir);
	int l = listen_unix(path);
	int fd = jvmattach_socket_at(dfd, ".java_pid7", getuid());
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	errno = 0;
	CHECK(jvmattach_socket_at(dfd, ".java_pid7", getuid() + 1) < 0 && errno == EPERM);
	CHECK(jvmattach_socket_at(dfd, ".java_pid8", getuid()) < 0 && errno == ENOENT);
	/* a symlink to the very socket is no socket of the JVM's; nor is a regular file */
	CHECK(symlinkat(path, dfd, ".java_pid9") == 0);
	CHECK(jvmattach_socket_at(dfd, ".java_pid9", getuid()) < 0 && errno == ENOTSOCK);
	int f = openat(dfd, ".java_pid10", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	close(f);
	CHECK(jvmattach_socket_at(dfd, ".java_pid10", getuid()) < 0 && errno == ENOTSOCK);

	/* the connection, under the JVM's ids when we are root: the server's SO_PEERCRED says so */
	if (geteuid() == 0) {
		CHECK(chown(path, NOBODY, NOBODY) == 0);
		struct srv v = { .listener = l, .reply = REPLY_OK };
		atomic_init(&v.quit, false);
		pthread_t t;
		pthread_create(&t, NULL, srv_main, &v);
		int pfd = jvmattach_socket_at(dfd, ".java_pid7", NOBODY);
		int before = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
		int c = pfd >= 0 ? jvmattach_connect(pfd, true, NOBODY, NOBODY, 200, NULL) : -1;
		CHECK(c >= 0);
		CHECK(geteuid() == 0 && getegid() == 0);  /* back to ours at once */
		CHECK(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == before);
		char buf[64];
		size_t len;
		bool cut;
		CHECK(c >= 0 && jvmattach_request(c, "Compiler.perfmap", buf, sizeof(buf), &len, &cut, 2000,
						  NULL) == 0);
		pthread_join(t, NULL);
		CHECK_EQ_U64(v.peer_uid, NOBODY);
		CHECK_EQ_U64(v.peer_gid, NOBODY);
		if (c >= 0)
			close(c);
		if (pfd >= 0)
			close(pfd);
	}
	close(l);
	close(dfd);
}

static void test_trigger(void)
{
	char dir[128], victim[192];
	snprintf(dir, sizeof(dir), "%s/trig", base);
	mkdir(dir, 01777);
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat made, st;
	uid_t uid = geteuid() == 0 ? NOBODY : geteuid();
	gid_t gid = geteuid() == 0 ? NOBODY : getegid();
	CHECK(jvmattach_trigger(dfd, ".attach_pid5", uid, gid, &made) == 0);
	CHECK(fstatat(dfd, ".attach_pid5", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode));
	CHECK(st.st_uid == uid && st.st_gid == gid);
	/* there already: EEXIST, and the file is left as it is */
	struct stat again;
	CHECK_EQ_U64(jvmattach_trigger(dfd, ".attach_pid5", uid, gid, &again), (uint64_t)-EEXIST);
	jvmattach_untrigger(dfd, ".attach_pid5", &made);
	CHECK(fstatat(dfd, ".attach_pid5", &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT);
	/* a symlink at the name is not followed: its target is never made */
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	CHECK(symlinkat(victim, dfd, ".attach_pid6") == 0);
	CHECK_EQ_U64(jvmattach_trigger(dfd, ".attach_pid6", uid, gid, &again), (uint64_t)-EEXIST);
	CHECK(access(victim, F_OK) != 0);
	/* a file put in the place of ours is not removed */
	CHECK(jvmattach_trigger(dfd, ".attach_pid7", uid, gid, &made) == 0);
	CHECK(unlinkat(dfd, ".attach_pid7", 0) == 0);
	int f = openat(dfd, ".attach_pid7", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	close(f);
	jvmattach_untrigger(dfd, ".attach_pid7", &made);
	CHECK(fstatat(dfd, ".attach_pid7", &st, AT_SYMLINK_NOFOLLOW) == 0);
	close(dfd);
}

static void test_flags(void)
{
	static const char cmd[] = "java\0-XX:+DisableAttachMechanism\0-cp\0.\0Hot";
	CHECK(jvmattach_flag_in(cmd, sizeof(cmd), false, "DisableAttachMechanism") == 1);
	static const char cmd2[] = "java\0-XX:+DisableAttachMechanism\0-XX:-DisableAttachMechanism";
	CHECK(jvmattach_flag_in(cmd2, sizeof(cmd2), false, "DisableAttachMechanism") == 0);
	static const char cmd3[] = "java\0-XX:+DisableAttachMechanismX\0-XX:+Disable";
	CHECK(jvmattach_flag_in(cmd3, sizeof(cmd3), false, "DisableAttachMechanism") == -1);
	const char *opts = "-Xmx1g  -XX:+DisableAttachMechanism\t-Dx=y";
	CHECK(jvmattach_flag_in(opts, strlen(opts), true, "DisableAttachMechanism") == 1);
	CHECK(jvmattach_flag_in(opts, strlen(opts), false, "DisableAttachMechanism") == -1);
	CHECK(jvmattach_flags_preserve_fp("-XX:CICompilerCount=2 -XX:+PreserveFramePointer\n"));
	CHECK(!jvmattach_flags_preserve_fp("-XX:CICompilerCount=2 -XX:-PreserveFramePointer\n"));
	CHECK(!jvmattach_flags_preserve_fp("-XX:+PreserveFramePointerX"));
	CHECK(!jvmattach_flags_preserve_fp(""));
}

/* ---- fake JVMs ---- */

struct fake {
	pid_t pid;
	int out;            /* its stdout */
	char tmp[128], cwd[128];
	struct jvmattach_target t;
};

/* Starts fakejvm MODE with its /tmp and working directory fresh directories of ours, as uid
 * (root or NOBODY), with env (NULL: ours) and extra arguments; waits for its "ready". */
static bool fake_start(struct fake *f, const char *mode, uid_t uid, char *const *env, const char *extra)
{
	static int n;
	memset(f, 0, sizeof(*f));
	snprintf(f->tmp, sizeof(f->tmp), "%s/tmp%d", base, n);
	snprintf(f->cwd, sizeof(f->cwd), "%s/cwd%d", base, n++);
	mkdir(f->tmp, 01777);
	chmod(f->tmp, 01777);
	mkdir(f->cwd, 0755);
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return false;
	f->pid = fork();
	if (f->pid == 0) {
		dup2(p[1], 1);
		if (chdir(f->cwd) != 0)
			_exit(126);
		if (uid && (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 ||
			    setresuid(uid, uid, uid) != 0))
			_exit(126);
		char *argv[] = { (char *)fakejvm, (char *)mode, "60", f->tmp, (char *)extra, NULL };
		if (env)
			execve(fakejvm, argv, env);
		else
			execv(fakejvm, argv);
		_exit(127);
	}
	close(p[1]);
	f->out = p[0];
	char line[64] = "";
	struct pollfd pf = { .fd = f->out, .events = POLLIN };
	if (poll(&pf, 1, 5000) <= 0 || read(f->out, line, sizeof(line) - 1) <= 0 ||
	    strncmp(line, "ready", 5) != 0) {
		fprintf(stderr, "fakejvm %s did not start: %s\n", mode, line);
		return false;
	}
	char proc[32];
	snprintf(proc, sizeof(proc), "/proc/%d", (int)f->pid);
	f->t = (struct jvmattach_target){
		.procfd = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC),
		.pid = (uint32_t)f->pid, .nspid = (uint32_t)f->pid,
		.uid = uid, .gid = uid, .catches_quit = true, .dispatching = true,
		.tmpfd = open(f->tmp, O_PATH | O_DIRECTORY | O_CLOEXEC),
		.cwdfd = open(f->cwd, O_PATH | O_DIRECTORY | O_CLOEXEC),
	};
	return true;
}

/* What it said since (lines), within wait_ms. */
static void fake_said(struct fake *f, char *buf, size_t cap, int wait_ms)
{
	size_t n = 0;
	struct pollfd pf = { .fd = f->out, .events = POLLIN };
	while (n + 1 < cap && poll(&pf, 1, wait_ms) > 0) {
		ssize_t r = read(f->out, buf + n, cap - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
		wait_ms = 50;
	}
	buf[n] = 0;
}

/* No trigger file left in its working directory or its /tmp. */
static bool no_trigger_left(struct fake *f)
{
	char name[32];
	snprintf(name, sizeof(name), ".attach_pid%d", (int)f->pid);
	struct stat st;
	return fstatat(f->t.cwdfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 &&
	       fstatat(f->t.tmpfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0;
}

static void rm_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char p[512];
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			rm_tree(p);
		else
			unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static void fake_stop(struct fake *f)
{
	kill(f->pid, SIGKILL);
	waitpid(f->pid, NULL, 0);
	close(f->out);
	close(f->t.procfd);
	close(f->t.tmpfd);
	close(f->t.cwdfd);
	rm_tree(f->tmp);
	rm_tree(f->cwd);
}

/* One attach of a fake in mode; returns its result and the time it took. */
static struct jvmattach_result fake_attach(const char *mode, uid_t uid, uint64_t *took, char *said,
					   size_t cap)
{
	struct fake f;
	struct jvmattach_result res = { .status = JVMATTACH_GONE };
	if (!fake_start(&f, mode, uid, NULL, NULL)) {
		CHECK(!"fakejvm started");
		return res;
	}
	uint64_t t0 = ms();
	jvmattach_target_run(&f.t, true, NULL, &res);
	*took = ms() - t0;
	CHECK(no_trigger_left(&f));
	fake_said(&f, said, cap, 100);
	printf("fakejvm %s (uid %d): status %d%s in %llu ms: %s; it said: %s\n", mode, (int)uid,
	       (int)res.status, res.signalled ? ", signalled" : "", (unsigned long long)*took, res.why,
	       said);
	fake_stop(&f);
	return res;
}

static void test_fakes(void)
{
	char said[512];
	uint64_t took;
	struct jvmattach_result r = fake_attach("ok", 0, &took, said, sizeof(said));
	CHECK(r.status == JVMATTACH_OK && r.signalled && r.flags_known && !r.preserve_fp);
	CHECK(strstr(said, "trigger") && strstr(said, "conn 0 0"));  /* HotSpot 17 takes root */
	if (geteuid() == 0) {
		/* a JVM of another user that takes its own ids only (HotSpot 8): connected as it */
		r = fake_attach("strict", NOBODY, &took, said, sizeof(said));
		CHECK(r.status == JVMATTACH_OK && r.flags_known);
		CHECK(strstr(said, "conn 65534 65534") != NULL);
	}
	r = fake_attach("garbage", 0, &took, said, sizeof(said));
	CHECK(r.status == JVMATTACH_REFUSED && strstr(r.why, "not HotSpot's"));
	r = fake_attach("silent", 0, &took, said, sizeof(said));
	CHECK(r.status == JVMATTACH_LATER && strstr(r.why, "no reply"));
	CHECK(took < JVMATTACH_SOCKET_WAIT_MS + JVMATTACH_REPLY_MS + 1000);
	r = fake_attach("drip", 0, &took, said, sizeof(said));
	CHECK(r.status == JVMATTACH_LATER || r.status == JVMATTACH_REFUSED);
	CHECK(took < JVMATTACH_SOCKET_WAIT_MS + JVMATTACH_REPLY_MS + 1000);
	r = fake_attach("huge", 0, &took, said, sizeof(said));
	CHECK(r.status == JVMATTACH_OK && !r.flags_known);  /* "0\n", then more than is read */
	CHECK(took < 3000);
	r = fake_attach("nosocket", 0, &took, said, sizeof(said));
	CHECK(r.status == JVMATTACH_LATER && r.signalled && strstr(r.why, "no attach socket"));
	CHECK(took >= JVMATTACH_SOCKET_WAIT_MS && took < JVMATTACH_SOCKET_WAIT_MS + 1000);
	r = fake_attach("symlink", 0, &took, said, sizeof(said));
	CHECK(r.status == JVMATTACH_REFUSED && strstr(r.why, "not its own socket"));

	/* a trigger file of another user in its working directory: the JVM would look no further
	 * (and print a thread dump): no SIGQUIT, and the file is left alone */
	struct fake f;
	if (geteuid() == 0 && fake_start(&f, "ok", 0, NULL, NULL)) {
		char name[32];
		snprintf(name, sizeof(name), ".attach_pid%d", (int)f.pid);
		int fd = openat(f.t.cwdfd, name, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
		CHECK(fd >= 0 && fchown(fd, 12345, 12345) == 0);
		close(fd);
		jvmattach_target_run(&f.t, false, NULL, &r);
		printf("a trigger file of uid 12345 in the way: status %d: %s\n", (int)r.status, r.why);
		CHECK(r.status == JVMATTACH_REFUSED && !r.signalled && strstr(r.why, "another user's"));
		struct stat st;
		CHECK(fstatat(f.t.cwdfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0);
		fake_stop(&f);
	}
	/* Another user's file in its /tmp: made in its working directory instead, where the JVM
	 * looks first, only if its user could make it there (its own, or writable by all): a root
	 * JVM's root-owned directory is; nobody's in a root-owned 0755 one is refused, unsignalled. */
	for (int k = 0; geteuid() == 0 && k < 2; k++) {
		uid_t uid = k ? NOBODY : 0;
		if (!fake_start(&f, k ? "strict" : "ok", uid, NULL, NULL))
			continue;
		char name[32];
		snprintf(name, sizeof(name), ".attach_pid%d", (int)f.pid);
		int fd = openat(f.t.tmpfd, name, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
		CHECK(fd >= 0 && fchown(fd, 12345, 12345) == 0);
		close(fd);
		jvmattach_target_run(&f.t, false, NULL, &r);
		printf("another user's file in its /tmp, uid %d: status %d: %s\n", (int)uid, (int)r.status,
		       r.why);
		if (!k) {
			CHECK(r.status == JVMATTACH_OK && r.signalled);
		} else {
			CHECK(r.status == JVMATTACH_REFUSED && !r.signalled);
			CHECK(strstr(r.why, "cannot make") != NULL);
		}
		struct stat st;
		CHECK(fstatat(f.t.cwdfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0);  /* ours removed */
		CHECK(fstatat(f.t.tmpfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0);  /* theirs left */
		fake_stop(&f);
	}
}

/* ---- through /proc ---- */

static void test_run(void)
{
	struct jvmattach_result r;
	jvmattach_run((uint32_t)getpid(), false, NULL, &r);
	CHECK(r.status == JVMATTACH_REFUSED && strstr(r.why, "not a JVM"));
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	jvmattach_run((uint32_t)dead, false, NULL, &r);
	CHECK(r.status == JVMATTACH_GONE);

	/* -XX:+DisableAttachMechanism: on its command line, in JAVA_TOOL_OPTIONS; turned back off
	 * by _JAVA_OPTIONS (read last), it is asked */
	struct fake f;
	if (fake_start(&f, "nosocket", 0, NULL, "-XX:+DisableAttachMechanism")) {
		jvmattach_run((uint32_t)f.pid, false, NULL, &r);
		CHECK(r.status == JVMATTACH_REFUSED && !r.signalled && strstr(r.why, "DisableAttach"));
		fake_stop(&f);
	}
	char *env1[] = { "JAVA_TOOL_OPTIONS=-Xmx64m -XX:+DisableAttachMechanism", "FAKEJVM_IDLE=1",
			 NULL };
	if (fake_start(&f, "nosocket", 0, env1, NULL)) {
		jvmattach_run((uint32_t)f.pid, false, NULL, &r);
		CHECK(r.status == JVMATTACH_REFUSED && !r.signalled && strstr(r.why, "DisableAttach"));
		fake_stop(&f);
	}
	/* ... and a process that does not catch SIGQUIT is sent none (it would die): asked later
	 * (this one ignores it; SigCgt says so) */
	char *env2[] = { "JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism",
			 "_JAVA_OPTIONS=-XX:-DisableAttachMechanism", "FAKEJVM_IDLE=1", NULL };
	if (fake_start(&f, "noquit", 0, env2, NULL)) {
		jvmattach_run((uint32_t)f.pid, false, NULL, &r);
		CHECK(r.status == JVMATTACH_LATER && r.soon && !r.signalled);
		CHECK(strstr(r.why, "does not catch SIGQUIT") != NULL);
		fake_stop(&f);
	}
}

/* ---- the job thread ---- */

static void test_job(void)
{
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	struct jvmjob_item items[2] = { { .pid = (uint32_t)getpid() }, { .pid = (uint32_t)dead } };
	struct jvmjob *j = jvmjob_start(items, 2);
	CHECK(j != NULL);
	uint64_t t0 = ms();
	while (j && !jvmjob_done(j) && ms() - t0 < 5000) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	const struct jvmjob_item *got;
	CHECK(j && jvmjob_results(j, &got) == 2);
	if (j) {
		CHECK(got[0].res.status == JVMATTACH_REFUSED);
		CHECK(got[1].res.status == JVMATTACH_GONE);
	}
	jvmjob_free(j);

	/* freed while it waits for a socket that never comes: it stops at its next step */
	struct fake f;
	if (fake_start(&f, "nosocket", 0, NULL, NULL)) {
		struct jvmjob_item it = { .pid = (uint32_t)f.pid };
		j = jvmjob_start(&it, 1);
		struct timespec ts = { 0, 100000000 };
		nanosleep(&ts, NULL);
		t0 = ms();
		jvmjob_free(j);
		CHECK(ms() - t0 < 200);
		CHECK(no_trigger_left(&f));
		fake_stop(&f);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_jvmattach FAKEJVM\n");
		return 2;
	}
	static char fake_path[4096];
	if (!realpath(argv[1], fake_path)) {
		perror(argv[1]);
		return 1;
	}
	fakejvm = fake_path;  /* it runs in a directory of its own */
	signal(SIGPIPE, SIG_IGN);
	snprintf(base, sizeof(base), "/tmp/perftop-jvmattach-XXXXXX");
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	chmod(base, 0755);  /* a fake JVM of another user looks in its directories */
	setenv("FAKEJVM_IDLE", "1", 1);  /* its code not run: nothing here samples it */
	test_protocol();
	test_socket_checks();
	test_trigger();
	test_flags();
	test_fakes();
	test_run();
	test_job();
	rm_tree(base);
	return CHECK_DONE();
}
