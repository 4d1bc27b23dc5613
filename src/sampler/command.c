/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * command: the program a session starts, held between fork and exec, then reaped (command.h).
 */
#include "sampler/command.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The sampler's error text convention: one line into err. */
#define seterr(err, errlen, ...) snprintf((err), (errlen), __VA_ARGS__)

void command_init(struct command *c)
{
	*c = (struct command){ .pid = 0, .go_fd = -1, .status_fd = -1 };
}

int command_find(const char *argv0)
{
	const char *path, *p;
	char buf[PATH_MAX];
	struct stat st;
	int err = ENOENT;

	if (!*argv0)
		return ENOENT;
	if (strchr(argv0, '/')) {
		if (stat(argv0, &st) != 0)
			return errno;
		if (S_ISDIR(st.st_mode))
			return EACCES;
		return access(argv0, X_OK) == 0 ? 0 : errno;
	}
	path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";
	for (p = path;; p++) {
		const char *e = strchr(p, ':');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		int n = len ? snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, p, argv0)
			    : snprintf(buf, sizeof(buf), "%s", argv0);
		if (n > 0 && (size_t)n < sizeof(buf) && stat(buf, &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (access(buf, X_OK) == 0)
				return 0;
			err = EACCES;
		}
		if (!e)
			break;
		p = e;
	}
	return err;
}

/* Child side of fork: wait to be released, then become the command. Only async-signal-safe. */
static _Noreturn void child_run(int go_rd, int status_wr, char *const *argv)
{
	char c;
	int e;
	ssize_t n;
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	do
		n = read(go_rd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);   /* the sampler gave up before starting */
	close(go_rd);
	execvp(argv[0], argv);
	e = errno;
	if (write(status_wr, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int command_fork(struct command *c, char *const *argv, char *err, size_t errlen)
{
	int go[2], status[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) != 0) {
		int e = errno;
		seterr(err, errlen, "cannot run '%s': pipe: %s", argv[0], strerror(e));
		return -e;
	}
	if (pipe2(status, O_CLOEXEC) != 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		seterr(err, errlen, "cannot run '%s': pipe: %s", argv[0], strerror(e));
		return -e;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;
		seterr(err, errlen, "cannot run '%s': fork: %s", argv[0], strerror(e));
		close(go[0]);
		close(go[1]);
		close(status[0]);
		close(status[1]);
		return -e;
	}
	if (pid == 0) {
		close(go[1]);
		close(status[0]);
		child_run(go[0], status[1], argv);
	}
	close(go[0]);
	close(status[1]);
	c->pid = pid;
	c->go_fd = go[1];
	c->status_fd = status[0];
	return 0;
}

void command_reap(struct command *c)
{
	int status;

	if (c->pid <= 0 || c->reaped)
		return;
	if (c->go_fd >= 0) {
		/* Still held before exec: closing the pipe makes it exit by itself. */
		close(c->go_fd);
		c->go_fd = -1;
	} else {
		kill(c->pid, SIGTERM);
	}
	for (int i = 0; i < 100; i++) {
		pid_t p = waitpid(c->pid, &status, WNOHANG);
		if (p == c->pid || (p < 0 && errno != EINTR))
			goto reaped;
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
	kill(c->pid, SIGKILL);
	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
		;
reaped:
	c->reaped = true;
}

int command_release(struct command *c)
{
	char one = 1;
	int child_errno = 0;
	ssize_t n;

	if (write(c->go_fd, &one, 1) != 1)
		return errno;
	close(c->go_fd);
	c->go_fd = -1;
	/* EOF: the exec succeeded and closed the CLOEXEC pipe. */
	do
		n = read(c->status_fd, &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(c->status_fd);
	c->status_fd = -1;
	if (n == (ssize_t)sizeof(child_errno)) {
		int status;
		while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
			;
		c->reaped = true;
		return child_errno ? child_errno : ENOEXEC;
	}
	return 0;
}

bool command_exited(struct command *c, int *status)
{
	int st = 0;
	pid_t p = waitpid(c->pid, &st, WNOHANG);
	if (p == c->pid || (p < 0 && errno == ECHILD)) {
		c->reaped = true;
		*status = p == c->pid ? st : 0;
		return true;
	}
	return false;
}

void command_close(struct command *c)
{
	if (c->go_fd >= 0)
		close(c->go_fd);
	c->go_fd = -1;
	if (c->status_fd >= 0)
		close(c->status_fd);
	c->status_fd = -1;
}
