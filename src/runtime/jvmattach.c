/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jvmattach: HotSpot's dynamic attach, spoken without jcmd (jvmattach.h says what and how safely).
 *
 * The order of jvmattach_run: /proc/PID opened once; its status (ids, NSpid, SigCgt), maps
 * (libjvm.so: HotSpot; libj9vm: OpenJ9, whose attach is another), cmdline and the options'
 * environment variables (-XX:+DisableAttachMechanism) read through it; its /tmp and working
 * directory opened; then jvmattach_target_run: the socket if it is there already (no SIGQUIT: the
 * JVM would print a thread dump), else the trigger file (its /tmp; its working directory only if
 * its user could make the file there), a SIGQUIT, a wait for the socket and the file removed; then
 * one connection per request.
 */
#include "runtime/jvmattach.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

static uint64_t ms_now(void)
{
	return now_ns() / 1000000ull;
}

static bool stopped(const atomic_bool *stop)
{
	return stop && atomic_load_explicit(stop, memory_order_relaxed);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { 0, (long)ms * 1000000L };
	nanosleep(&ts, NULL);
}

static void say(struct jvmattach_result *res, enum jvmattach_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(struct jvmattach_result *res, enum jvmattach_status st, const char *fmt, ...)
{
	res->status = st;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->why, sizeof(res->why), fmt, ap);
	va_end(ap);
}

/* At most n bytes of a reply's text as one printable line (a hostile reply is shown, never
 * trusted: control bytes and non-ASCII become '?', the first newline ends it). */
static void printable(char *out, size_t cap, const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n && s[i] && s[i] != '\n' && k + 1 < cap; i++)
		out[k++] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	out[k] = 0;
}

/* ---- the protocol ---- */

size_t jvmattach_format(char *buf, size_t cap, const char *command)
{
	/* "1" NUL "jcmd" NUL, then the three arguments: the command line, "" and "" */
	static const char head[] = "1\0jcmd";
	size_t cl = strlen(command);
	size_t n = sizeof(head) + cl + 3;
	if (!cl || cl > 1024 || n > cap)
		return 0;
	memcpy(buf, head, sizeof(head));
	memcpy(buf + sizeof(head), command, cl);
	memset(buf + sizeof(head) + cl, 0, 3);
	return n;
}

/* Waits until fd is ready for events: 0, or JVMATTACH_ETIME at deadline (ms), JVMATTACH_ESTOP. */
static int wait_fd(int fd, short events, uint64_t deadline, const atomic_bool *stop)
{
	for (;;) {
		if (stopped(stop))
			return JVMATTACH_ESTOP;
		uint64_t now = ms_now();
		if (now >= deadline)
			return JVMATTACH_ETIME;
		uint64_t left = deadline - now;
		struct pollfd p = { .fd = fd, .events = events };
		int r = poll(&p, 1, (int)(left < JVMATTACH_STEP_MS ? left : JVMATTACH_STEP_MS));
		if (r > 0)
			return 0;  /* ready, or hung up / in error: the next call says which */
		if (r < 0 && errno != EINTR)
			return JVMATTACH_EIO;
	}
}

static int send_all(int fd, const char *buf, size_t n, uint64_t deadline, const atomic_bool *stop)
{
	size_t sent = 0;
	while (sent < n) {
		ssize_t w = send(fd, buf + sent, n - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			sent += (size_t)w;
		} else if (w < 0 && errno == EINTR) {
			continue;
		} else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			int rc = wait_fd(fd, POLLOUT, deadline, stop);
			if (rc)
				return rc;
		} else {
			return JVMATTACH_EIO;
		}
	}
	return 0;
}

/* Reads into reply[0, max - 1) until EOF, the buffer is full or deadline; *cut when more was there. */
static int read_reply(int fd, char *reply, size_t max, size_t *len, bool *cut, uint64_t deadline,
		      const atomic_bool *stop)
{
	size_t got = 0;
	int rc = 0;
	for (;;) {
		if (got >= max - 1) {
			char c;
			*cut = recv(fd, &c, 1, MSG_DONTWAIT | MSG_PEEK) > 0;
			break;
		}
		ssize_t r = recv(fd, reply + got, max - 1 - got, MSG_DONTWAIT);
		if (r > 0) {
			got += (size_t)r;
			continue;
		}
		if (r == 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			break;  /* reset: what came is the reply */
		rc = wait_fd(fd, POLLIN, deadline, stop);
		if (rc) {
			*cut = true;
			break;
		}
	}
	reply[got] = 0;
	*len = got;
	return rc;
}

int jvmattach_request(int fd, const char *command, char *reply, size_t max, size_t *len, bool *cut,
		      int timeout_ms, const atomic_bool *stop)
{
	char req[1100];
	size_t n = jvmattach_format(req, sizeof(req), command);
	*len = 0;
	*cut = false;
	if (max)
		reply[0] = 0;
	if (!n || max < 2)
		return JVMATTACH_EIO;
	uint64_t deadline = ms_now() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	int rc = send_all(fd, req, n, deadline, stop);
	if (rc && rc != JVMATTACH_EIO)
		return rc;
	/* A send that failed (the peer closed) may still have been answered: HotSpot writes its
	 * "101" after the version alone and closes; what came is read either way. */
	rc = read_reply(fd, reply, max, len, cut, deadline, stop);
	/* The first line: the result code, in decimal ("%d\n"). */
	const char *p = reply, *nl = memchr(reply, '\n', *len);
	if (p < reply + *len && *p == '-')
		p++;
	const char *digits = p;
	while (p < reply + *len && *p >= '0' && *p <= '9' && p - digits < 10)
		p++;
	if (nl && p == nl && p > digits)
		return (int)strtol(reply, NULL, 10);
	if (p < reply + *len && p != nl)
		return JVMATTACH_EGARBAGE;  /* a byte HotSpot would not write there */
	if (rc == JVMATTACH_ESTOP || rc == JVMATTACH_ETIME)
		return rc;
	return *len ? JVMATTACH_EGARBAGE : JVMATTACH_EIO;
}

/* ---- the socket, the connection ---- */

int jvmattach_socket_at(int dirfd, const char *name, uid_t uid)
{
	int fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	int e = 0;
	if (fstat(fd, &st) != 0)
		e = errno;
	else if (!S_ISSOCK(st.st_mode))
		e = ENOTSOCK;  /* a symlink too: O_NOFOLLOW opened the link itself */
	else if (st.st_uid != uid)
		e = EPERM;
	if (!e)
		return fd;
	close(fd);
	errno = e;
	return -1;
}

/* The calling thread's effective ids, and the process's dumpable flag (a change of the effective
 * ids clears it: set back with them). */
struct ids {
	uid_t euid;
	gid_t egid;
	int dumpable;
};

/* The raw system calls change this thread's ids alone (glibc's setresuid would change every
 * thread's); the real and saved ids stay root's, so the thread can come back. */
static bool ids_take(uid_t uid, gid_t gid, struct ids *old)
{
	old->euid = geteuid();
	old->egid = getegid();
	old->dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	if (syscall(SYS_setresgid, (gid_t)-1, gid, (gid_t)-1) != 0)
		return false;
	if (syscall(SYS_setresuid, (uid_t)-1, uid, (uid_t)-1) != 0) {
		(void)syscall(SYS_setresgid, (gid_t)-1, old->egid, (gid_t)-1);
		return false;
	}
	return true;
}

static void ids_restore(const struct ids *old)
{
	/* Cannot fail (the saved uid is root's); if it did, this thread (jvmjob's, ending with its
	 * job) would only be left with less. */
	(void)syscall(SYS_setresuid, (uid_t)-1, old->euid, (uid_t)-1);
	(void)syscall(SYS_setresgid, (gid_t)-1, old->egid, (gid_t)-1);
	if (old->dumpable >= 0)
		(void)prctl(PR_SET_DUMPABLE, old->dumpable, 0, 0, 0);
}

int jvmattach_connect(int pathfd, bool as_ids, uid_t uid, gid_t gid, int timeout_ms,
		      const atomic_bool *stop)
{
	/* Through our own descriptor of the socket: nothing in the JVM's tree is looked up again. */
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "/proc/self/fd/%d", pathfd);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		return -1;
	uint64_t deadline = ms_now() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	for (;;) {
		struct ids old;
		bool switched = as_ids && ids_take(uid, gid, &old);
		int rc = connect(s, (const struct sockaddr *)&a, sizeof(a));
		int e = errno;
		if (switched)
			ids_restore(&old);
		if (rc == 0)
			return s;
		if (e == EINTR)
			continue;
		/* EAGAIN: the listener's backlog is full (a UNIX socket never says EINPROGRESS) */
		if (e == EAGAIN && ms_now() < deadline && !stopped(stop)) {
			sleep_ms(JVMATTACH_STEP_MS);
			continue;
		}
		close(s);
		errno = e;
		return -1;
	}
}

/* ---- the trigger file ---- */

int jvmattach_trigger(int dirfd, const char *name, uid_t uid, gid_t gid, struct stat *made)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
			0600);
	if (fd < 0)
		return -errno;
	/* HotSpot 11+ takes root's file as well; HotSpot 8 wanted its own uid's. */
	if (geteuid() == 0 && (uid != 0 || gid != 0))
		(void)!fchown(fd, uid, gid);
	int rc = fstat(fd, made) == 0 ? 0 : -errno;
	close(fd);
	if (rc)
		(void)unlinkat(dirfd, name, 0);
	return rc;
}

void jvmattach_untrigger(int dirfd, const char *name, const struct stat *made)
{
	/* The inode number alone could be a new file's (a freed inode is soon given again): its
	 * change time too, which was read after the chown. */
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == made->st_dev &&
	    st.st_ino == made->st_ino && st.st_ctim.tv_sec == made->st_ctim.tv_sec &&
	    st.st_ctim.tv_nsec == made->st_ctim.tv_nsec)
		(void)unlinkat(dirfd, name, 0);
}

/* A trigger file that is there already (someone else's attach): one the JVM takes (its uid's or
 * root's, not a symlink), or the SIGQUIT would only print a thread dump. */
static bool trigger_taken(int dirfd, const char *name, uid_t uid)
{
	struct stat st;
	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	       (st.st_uid == uid || st.st_uid == 0);
}

/* ---- flags ---- */

static int flag_token(const char *t, size_t n, const char *name)
{
	size_t nl = strlen(name);
	if (n != nl + 5 || memcmp(t, "-XX:", 4) != 0 || (t[4] != '+' && t[4] != '-') ||
	    memcmp(t + 5, name, nl) != 0)
		return -1;
	return t[4] == '+';
}

int jvmattach_flag_in(const char *args, size_t len, bool blanks, const char *name)
{
	int v = -1;
	size_t i = 0;
	while (i < len) {
		size_t j = i;
		while (j < len && args[j] && !(blanks && (args[j] == ' ' || args[j] == '\t' ||
							  args[j] == '\n' || args[j] == '\r')))
			j++;
		int f = flag_token(args + i, j - i, name);
		if (f >= 0)
			v = f;
		i = j + 1;
	}
	return v;
}

bool jvmattach_flags_preserve_fp(const char *flags)
{
	return jvmattach_flag_in(flags, strlen(flags), true, "PreserveFramePointer") == 1;
}

/* ---- the attach ---- */

static int send_quit(const struct jvmattach_target *t)
{
#ifdef SYS_pidfd_send_signal
	if (syscall(SYS_pidfd_send_signal, t->procfd, SIGQUIT, NULL, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
#endif
	/* a kernel before 5.1: the pid, while its /proc entry still answers */
	if (faccessat(t->procfd, "stat", R_OK, 0) != 0)
		return -1;
	return kill((pid_t)t->pid, SIGQUIT);
}

/* Whether the JVM's user could make a file in directory dirfd itself (its own, or writable by
 * all): root makes one for it nowhere else, or a JVM's user could have root make a file of theirs
 * in any directory they may chdir into (/etc, say) and fill it before it is removed. */
static bool dir_theirs(int dirfd, uid_t uid)
{
	struct stat st;
	return fstat(dirfd, &st) == 0 && S_ISDIR(st.st_mode) &&
	       (st.st_uid == uid || (st.st_mode & S_IWOTH));
}

/* Makes the trigger file: in its /tmp (anyone may make a file there), else in its working
 * directory when its user could (dir_theirs). The directory it is in (-1: one was there already,
 * which the JVM takes), or -2 with res said. A file of that name in its working directory comes
 * first for the JVM, which then looks no further: one it takes will do, another stops us. */
static int make_trigger(const struct jvmattach_target *t, const char *trig, struct stat *made,
			struct jvmattach_result *res)
{
	struct stat st;
	if (t->cwdfd >= 0 && fstatat(t->cwdfd, trig, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (trigger_taken(t->cwdfd, trig, t->uid))
			return -1;
		say(res, JVMATTACH_REFUSED, "%s in its working directory is another user's", trig);
		return -2;
	}
	int rc = jvmattach_trigger(t->tmpfd, trig, t->uid, t->gid, made);
	if (rc == 0)
		return t->tmpfd;
	if (rc == -EEXIST && trigger_taken(t->tmpfd, trig, t->uid))
		return -1;
	int rc2 = -EPERM;
	if (t->cwdfd >= 0 && dir_theirs(t->cwdfd, t->uid) &&
	    (rc2 = jvmattach_trigger(t->cwdfd, trig, t->uid, t->gid, made)) == 0)
		return t->cwdfd;
	say(res, JVMATTACH_REFUSED, "cannot make %s in its /tmp (%s) or working directory (%s)", trig,
	    strerror(rc == -EEXIST ? EPERM : -rc), strerror(-rc2));
	return -2;
}

/* No socket yet: the trigger file, a SIGQUIT and a bounded wait for the socket. Its O_PATH
 * descriptor, or -1 with res said. */
static int start_listener(const struct jvmattach_target *t, const char *sock, const char *trig,
			  const atomic_bool *stop, struct jvmattach_result *res)
{
	if (!t->catches_quit || !t->dispatching) {
		/* a JVM starting: no handler yet (SIGQUIT would kill it), or no thread to take the
		 * signal yet (our file would be gone by the time it looks, and it would print a
		 * thread dump) */
		say(res, JVMATTACH_LATER, "%s", !t->catches_quit ? "it does not catch SIGQUIT"
				: "no signal dispatcher thread yet");
		res->soon = true;
		return -1;
	}
	struct stat made;
	int dir = make_trigger(t, trig, &made, res);
	if (dir == -2)
		return -1;
	int path = -1, e = ENOENT;
	if (send_quit(t) != 0) {
		say(res, JVMATTACH_GONE, "cannot signal it: %s", strerror(errno));
	} else {
		res->signalled = true;
		uint64_t deadline = ms_now() + JVMATTACH_SOCKET_WAIT_MS;
		for (;;) {
			path = jvmattach_socket_at(t->tmpfd, sock, t->uid);
			e = errno;
			if (path >= 0 || e != ENOENT || stopped(stop) || ms_now() >= deadline)
				break;
			sleep_ms(JVMATTACH_STEP_MS);
		}
		if (path < 0 && e != ENOENT)
			say(res, JVMATTACH_REFUSED, "/tmp/%s is not its own socket", sock);
		else if (path < 0)
			say(res, JVMATTACH_LATER, "no attach socket within %d ms of a SIGQUIT",
			    JVMATTACH_SOCKET_WAIT_MS);
	}
	if (dir >= 0)
		jvmattach_untrigger(dir, trig, &made);
	return path;
}

/* One request on a connection of its own: the result code (jvmattach_request's). */
static int ask(const struct jvmattach_target *t, int path, const char *command, char *reply,
	       size_t *len, bool *cut, const atomic_bool *stop, struct jvmattach_result *res)
{
	bool as_ids = geteuid() == 0 && t->uid != 0;
	int fd = jvmattach_connect(path, as_ids, t->uid, t->gid, JVMATTACH_CONNECT_MS, stop);
	if (fd < 0) {
		if (errno == EAGAIN)
			say(res, JVMATTACH_LATER, "its attach socket is busy");
		else
			say(res, JVMATTACH_REFUSED, "its attach socket takes no connection: %s",
			    strerror(errno));
		return JVMATTACH_EBASE;
	}
	int rc = jvmattach_request(fd, command, reply, JVMATTACH_REPLY_MAX, len, cut,
				   JVMATTACH_REPLY_MS, stop);
	close(fd);
	char line[100];
	printable(line, sizeof(line), reply, *len);
	if (rc == JVMATTACH_ETIME || rc == JVMATTACH_ESTOP)
		say(res, JVMATTACH_LATER, "no reply to %s within %d ms", command, JVMATTACH_REPLY_MS);
	else if (rc == JVMATTACH_EGARBAGE)
		say(res, JVMATTACH_REFUSED, "a reply that is not HotSpot's (\"%s\")", line);
	else if (rc == JVMATTACH_EIO)
		say(res, JVMATTACH_REFUSED, "it closed the connection without a reply");
	else if (rc != 0) {
		const char *nl = memchr(reply, '\n', *len);
		printable(line, sizeof(line), nl ? nl + 1 : reply, nl ? *len - (size_t)(nl + 1 - reply) : 0);
		say(res, JVMATTACH_REFUSED, "%s failed (%d): %s", command, rc, line);
	}
	return rc;
}

void jvmattach_target_run(const struct jvmattach_target *t, bool ask_flags, const atomic_bool *stop,
			  struct jvmattach_result *res)
{
	memset(res, 0, sizeof(*res));
	char sock[32], trig[32];
	snprintf(sock, sizeof(sock), ".java_pid%" PRIu32, t->nspid);
	snprintf(trig, sizeof(trig), ".attach_pid%" PRIu32, t->nspid);
	int path = jvmattach_socket_at(t->tmpfd, sock, t->uid);
	if (path < 0 && errno != ENOENT) {
		say(res, JVMATTACH_REFUSED, "/tmp/%s is not its own socket", sock);
		return;
	}
	if (path < 0 && (path = start_listener(t, sock, trig, stop, res)) < 0)
		return;
	char *reply = xmalloc(JVMATTACH_REPLY_MAX);
	size_t len;
	bool cut;
	if (ask(t, path, "Compiler.perfmap", reply, &len, &cut, stop, res) == 0) {
		res->status = JVMATTACH_OK;
		res->why[0] = 0;
		struct jvmattach_result fr = { 0 };
		if (ask_flags && ask(t, path, "VM.flags", reply, &len, &cut, stop, &fr) == 0 && !cut) {
			res->flags_known = true;
			res->preserve_fp = jvmattach_flags_preserve_fp(reply);
		}
	}
	free(reply);
	close(path);
}

/* Up to max bytes of file name under dirfd, malloc'd and NUL-terminated; NULL when unreadable. */
static char *read_at(int dirfd, const char *name, size_t max, size_t *len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 16384, n = 0;
	char *buf = xmalloc(cap + 1);
	for (;;) {
		if (n == cap) {
			if (cap >= max)
				break;
			cap = cap * 2 < max ? cap * 2 : max;
			buf = xrealloc(buf, cap + 1);
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && !n) {
			free(buf);
			buf = NULL;
			break;
		}
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (buf)
		buf[n] = 0;
	*len = n;
	return buf;
}

/* Number field (0: the first; -1: the last) of status line "\nKEY:" into *out; false when none. */
static bool status_field(const char *status, const char *key, int field, int base,
			 unsigned long long *out)
{
	char k[16];
	snprintf(k, sizeof(k), "\n%s:", key);
	const char *p = strstr(status, k);
	if (!p)
		return false;
	p += strlen(k);
	bool found = false;
	for (int i = 0; field < 0 || i <= field; i++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!(*p >= '0' && *p <= '9') && !(base == 16 && ((*p >= 'a' && *p <= 'f') ||
								   (*p >= 'A' && *p <= 'F'))))
			break;
		char *end;
		errno = 0;
		unsigned long long x = strtoull(p, &end, base);
		if (end == p || errno)
			return false;
		*out = x;
		found = i == field || field < 0;
		p = end;
	}
	return found;
}

/* Whether one of its threads is HotSpot's signal dispatcher (named so since HotSpot 9), which
 * takes a SIGQUIT and looks for the trigger file. At most JVMATTACH_THREADS_MAX threads looked at. */
static bool target_dispatching(int procfd)
{
	int task = openat(procfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = task >= 0 ? fdopendir(task) : NULL;
	if (!d) {
		if (task >= 0)
			close(task);
		return false;
	}
	bool found = false;
	struct dirent *e;
	for (int k = 0; !found && k < JVMATTACH_THREADS_MAX && (e = readdir(d)) != NULL; k++) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || strlen(e->d_name) > 10)
			continue;
		char name[32], comm[32];
		snprintf(name, sizeof(name), "%s/comm", e->d_name);
		int fd = openat(dirfd(d), name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		found = n > 0 && !strncmp(comm, "Signal Dispatch", 15);
	}
	closedir(d);
	return found;
}

/* The process's status: ids, NSpid and SigCgt. False with res said. */
static bool target_status(struct jvmattach_target *t, struct jvmattach_result *res)
{
	size_t n;
	char *st = read_at(t->procfd, "status", 65536, &n);
	if (!st) {
		say(res, JVMATTACH_GONE, "its /proc entry cannot be read");
		return false;
	}
	unsigned long long tgid, uid, gid, nspid, cgt = 0;
	bool ok = status_field(st, "Tgid", 0, 10, &tgid) && status_field(st, "Uid", 1, 10, &uid) &&
		  status_field(st, "Gid", 1, 10, &gid) && status_field(st, "NSpid", -1, 10, &nspid);
	(void)status_field(st, "SigCgt", 0, 16, &cgt);
	free(st);
	if (!ok || tgid != t->pid || uid > UINT32_MAX || gid > UINT32_MAX || !nspid ||
	    nspid > UINT32_MAX) {
		say(res, JVMATTACH_GONE, "not a process");
		return false;
	}
	t->uid = (uid_t)uid;
	t->gid = (gid_t)gid;
	t->nspid = (uint32_t)nspid;
	t->catches_quit = (cgt >> (SIGQUIT - 1)) & 1;
	t->dispatching = t->catches_quit && target_dispatching(t->procfd);
	return true;
}

static bool line_ends_with(const char *maps, const char *what)
{
	size_t wl = strlen(what);
	for (const char *p = maps; (p = strstr(p, what)) != NULL; p += wl)
		if (p[wl] == '\n' || p[wl] == 0)
			return true;
	return false;
}

/* DisableAttachMechanism in environment variable var ("NAME=") of environ (n bytes), else was. */
static int env_flag(const char *env, size_t n, const char *var, int was)
{
	size_t vl = strlen(var);
	for (size_t i = 0; env && i < n; i += strlen(env + i) + 1) {
		if (!strncmp(env + i, var, vl)) {
			const char *val = env + i + vl;
			int v = jvmattach_flag_in(val, strlen(val), true, "DisableAttachMechanism");
			if (v >= 0)
				was = v;
		}
	}
	return was;
}

/* Whether it is a HotSpot JVM that takes an attach. False with res said. */
static bool target_hotspot(struct jvmattach_target *t, struct jvmattach_result *res)
{
	size_t n;
	char *maps = read_at(t->procfd, "maps", JVMATTACH_PROC_MAX, &n);
	if (!maps) {
		say(res, JVMATTACH_GONE, "its maps cannot be read");
		return false;
	}
	bool jvm = line_ends_with(maps, "/libjvm.so") || line_ends_with(maps, "/libjvm.so (deleted)");
	bool j9 = strstr(maps, "/libj9vm") != NULL;
	free(maps);
	if (!jvm || j9) {
		say(res, JVMATTACH_REFUSED, "%s", j9 ? "an OpenJ9 JVM, not HotSpot" : "no libjvm.so: not a JVM");
		return false;
	}
	/* -XX:[+-]DisableAttachMechanism: JAVA_TOOL_OPTIONS, then the command line, then
	 * _JAVA_OPTIONS (the order HotSpot reads them in; the last one given wins). */
	char *env = read_at(t->procfd, "environ", JVMATTACH_PROC_MAX, &n);
	size_t cn;
	char *cmd = read_at(t->procfd, "cmdline", JVMATTACH_PROC_MAX, &cn);
	int off = env_flag(env, n, "JAVA_TOOL_OPTIONS=", -1);
	int v = cmd ? jvmattach_flag_in(cmd, cn, false, "DisableAttachMechanism") : -1;
	off = env_flag(env, n, "_JAVA_OPTIONS=", v >= 0 ? v : off);
	free(cmd);
	free(env);
	if (off == 1) {
		say(res, JVMATTACH_REFUSED, "started with -XX:+DisableAttachMechanism");
		return false;
	}
	return true;
}

void jvmattach_run(uint32_t pid, bool ask_flags, const atomic_bool *stop, struct jvmattach_result *res)
{
	memset(res, 0, sizeof(*res));
	struct jvmattach_target t = { .procfd = -1, .tmpfd = -1, .cwdfd = -1, .pid = pid };
	char path[32];
	snprintf(path, sizeof(path), "/proc/%" PRIu32, pid);
	t.procfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t.procfd < 0) {
		say(res, JVMATTACH_GONE, "no such process");
		return;
	}
	if (target_status(&t, res) && target_hotspot(&t, res)) {
		/* its / (followed: that is the point), then "tmp" in it, not followed */
		int root = openat(t.procfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
		int root_err = errno;
		if (root >= 0) {
			t.tmpfd = openat(root, "tmp", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			close(root);
		}
		t.cwdfd = openat(t.procfd, "cwd", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (root < 0)
			say(res, JVMATTACH_GONE, "its root cannot be opened: %s", strerror(root_err));
		else if (t.tmpfd < 0)
			say(res, JVMATTACH_REFUSED, "its /tmp is not a directory (or is a symlink)");
		else
			jvmattach_target_run(&t, ask_flags, stop, res);
	}
	if (t.cwdfd >= 0)
		close(t.cwdfd);
	if (t.tmpfd >= 0)
		close(t.tmpfd);
	close(t.procfd);
}
