/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * command: the program a session starts, held between fork and exec, then reaped (command.h).
 */
#include "sampler/command.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
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

int sampler_user_lookup(const char *name, struct sampler_user *u, char *err, size_t errlen)
{
	struct passwd pw, *res = NULL;
	char buf[16384];
	memset(u, 0, sizeof(*u));
	int e = getpwnam_r(name, &pw, buf, sizeof(buf), &res);
	if (e || !res) {
		seterr(err, errlen, "-u: no user '%s' on this machine%s%s", name, e ? ": " : "",
		       e ? strerror(e) : "");
		return -1;
	}
	u->uid = pw.pw_uid;
	u->gid = pw.pw_gid;
	snprintf(u->name, sizeof(u->name), "%s", pw.pw_name);
	snprintf(u->home, sizeof(u->home), "%s", pw.pw_dir ? pw.pw_dir : "/");
	int n = SAMPLER_MAX_GROUPS;
	if (getgrouplist(pw.pw_name, pw.pw_gid, u->groups, &n) < 0) {
		seterr(err, errlen, "-u: user '%s' is in more than %d groups", name, SAMPLER_MAX_GROUPS);
		return -1;
	}
	u->ngroups = n;
	return 0;
}

/* The command's environment under -u: perftop's, with HOME, USER and LOGNAME the user's. Made
 * before the fork (the child may not allocate); NULL-terminated, freed by env_free. */
static char **user_env(const struct sampler_user *u)
{
	extern char **environ;
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 4, sizeof(*env));
	if (!env)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "HOME=", 5) && strncmp(environ[i], "USER=", 5) &&
		    strncmp(environ[i], "LOGNAME=", 8))
			env[k++] = environ[i];
	const char *fmt[3] = { "HOME=%s", "USER=%s", "LOGNAME=%s" };
	const char *val[3] = { u->home, u->name, u->name };
	for (int i = 0; i < 3; i++) {
		size_t len = strlen(fmt[i]) + strlen(val[i]);
		if (!(env[k] = malloc(len))) {
			while (i-- > 0)
				free(env[--k]);
			free(env);
			return NULL;
		}
		snprintf(env[k++], len, fmt[i], val[i]);
	}
	return env;
}

/* Frees the three strings user_env made (the last three before NULL); the rest are environ's. */
static void env_free(char **env)
{
	if (!env)
		return;
	size_t n = 0;
	while (env[n])
		n++;
	for (size_t i = n >= 3 ? n - 3 : 0; i < n; i++)
		free(env[i]);
	free(env);
}

/* The child becomes user: groups first, then the gid, then the uid (after which it could change
 * neither). All three of each id, so that the exec is not one that changes privileges and the
 * command keeps the events opened on it. 0, or the errno. */
static int child_become(const struct sampler_user *u)
{
	if (setgroups((size_t)u->ngroups, u->groups) != 0 || setresgid(u->gid, u->gid, u->gid) != 0 ||
	    setresuid(u->uid, u->uid, u->uid) != 0)
		return errno;
	return 0;
}

/* Child side of fork: wait to be released, then become the command. Only async-signal-safe. */
static _Noreturn void child_run(int go_rd, int status_wr, char *const *argv,
				const struct sampler_user *user, char **env)
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
	e = user ? child_become(user) : 0;
	if (!e) {
		if (env)
			execvpe(argv[0], argv, env);
		else
			execvp(argv[0], argv);
		e = errno;
	}
	if (write(status_wr, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int command_fork(struct command *c, char *const *argv, const struct sampler_user *user, char *err,
		 size_t errlen)
{
	int go[2], status[2];
	pid_t pid;
	char **env = NULL;

	if (user && !(env = user_env(user))) {
		seterr(err, errlen, "cannot run '%s': out of memory", argv[0]);
		return -ENOMEM;
	}

	if (pipe2(go, O_CLOEXEC) != 0) {
		int e = errno;
		seterr(err, errlen, "cannot run '%s': pipe: %s", argv[0], strerror(e));
		env_free(env);
		return -e;
	}
	if (pipe2(status, O_CLOEXEC) != 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		seterr(err, errlen, "cannot run '%s': pipe: %s", argv[0], strerror(e));
		env_free(env);
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
		env_free(env);
		return -e;
	}
	if (pid == 0) {
		close(go[1]);
		close(status[0]);
		child_run(go[0], status[1], argv, user, env);
	}
	env_free(env);
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
