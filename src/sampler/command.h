/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * command: the program a session starts (perftop -- PROG ARGS), held between its fork and its exec
 * so that the events are on before its first instruction (enable_on_exec), then reaped.
 *
 * The child waits on a pipe (go) and execs when the sampler releases it; a second, close-on-exec
 * pipe (status) brings back exec's errno, or EOF when the exec succeeded. Used by the sampler's
 * caller's thread only (sampler_open, sampler_start, sampler_stop) and by the sampler thread's
 * check that the command is gone (command_exited), never by both at once.
 */
#ifndef PERFTOP_SAMPLER_COMMAND_H
#define PERFTOP_SAMPLER_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* -u USER: the command started as USER, as strace's -u starts it: USER's uid, gid and
 * supplementary groups, and HOME, USER and LOGNAME set to USER's (the rest of the environment as
 * it is). Found by sampler_user_lookup, before anything is opened. */
#define SAMPLER_MAX_GROUPS 256
struct sampler_user {
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t groups[SAMPLER_MAX_GROUPS];
	char name[256];
	char home[1024];
};
/* 0, or -1 with a one-line message in err (no such user, too many groups). */
int sampler_user_lookup(const char *name, struct sampler_user *u, char *err, size_t errlen);

struct command {
	pid_t pid;              /* 0: none */
	int go_fd;              /* write end: releases the held child */
	int status_fd;          /* read end: errno of a failed exec, EOF on success */
	bool reaped;
};

void command_init(struct command *c);
/* Whether argv0 would be found by execvp (0, or the errno it would fail with): so "cannot run" is
 * said before anything starts. */
int command_find(const char *argv0);
/* Forks the child, held before its exec. 0, or -errno with err set ("cannot run 'x': ..."). */
/* With user, the child takes user's ids and groups (and HOME, USER, LOGNAME) before its exec. */
int command_fork(struct command *c, char *const *argv, const struct sampler_user *user, char *err,
		 size_t errlen);
/* Lets the child exec: 0 when it did, else the errno of the exec (the child is reaped then). */
int command_release(struct command *c);
/* Whether the command has exited (reaped now, *status its wait status; 0 when it was not ours). */
bool command_exited(struct command *c, int *status);
/* SIGTERM (or, still held, the pipe closed), a second to go, then SIGKILL: never waits on a child
 * that ignores us. */
void command_reap(struct command *c);
/* The pipes' ends still open. */
void command_close(struct command *c);

#endif
