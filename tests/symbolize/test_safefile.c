/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util/safefile on real files: each reason a file a process controls is refused for, a name inside
 * a chrooted child's root resolved there and not on the host (an absolute symlink in the root
 * names the root's file of that path), and a symlink planted at a write target replaced, not
 * written through, one planted on the way to it refused. As root (the chroot); skips otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "util/safefile.h"

static char dir[] = "/tmp/perftop-safefile-XXXXXX";

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The reason safefile_open gives for path ("" when it opened it). */
static const char *reason(const char *path, const struct safefile_want *w)
{
	static char why[160];
	struct stat st;
	int fd = safefile_open(path, w, &st, why, sizeof(why));
	if (fd >= 0)
		close(fd);
	return why;
}

static void test_refusals(void)
{
	char p[512], q[512];
	const struct safefile_want w = { .uid = 7, .max_size = 100 };
	snprintf(p, sizeof(p), "%s/ok", dir);
	put(p, "fine\n");
	CHECK(reason(p, &w)[0] == '\0'); /* root's: accepted */
	snprintf(q, sizeof(q), "%s/link", dir);
	CHECK(symlink(p, q) == 0);
	CHECK(strcmp(reason(q, &w), "a symlink") == 0);
	snprintf(q, sizeof(q), "%s/other", dir);
	put(q, "x\n");
	CHECK(chown(q, 12345, 12345) == 0);
	CHECK(strcmp(reason(q, &w), "owned by uid 12345, not the process's user (uid 7) or root") == 0);
	snprintf(q, sizeof(q), "%s/fifo", dir);
	CHECK(mkfifo(q, 0600) == 0);
	CHECK(strcmp(reason(q, &w), "a FIFO, not a regular file") == 0);
	snprintf(q, sizeof(q), "%s/sub", dir);
	CHECK(mkdir(q, 0700) == 0);
	CHECK(strcmp(reason(q, &w), "a directory") == 0);
	snprintf(q, sizeof(q), "%s/big", dir);
	put(q, "");
	CHECK(truncate(q, 101) == 0);
	CHECK(strcmp(reason(q, &w), "too big (101 bytes, the bound is 100)") == 0);
	snprintf(q, sizeof(q), "%s/missing", dir);
	CHECK(reason(q, &w)[0] == '\0');
	/* a symlink on the way, not only at the end */
	snprintf(q, sizeof(q), "%s/dirlink", dir);
	CHECK(symlink(dir, q) == 0);
	snprintf(q, sizeof(q), "%s/dirlink/ok", dir);
	CHECK(strcmp(reason(q, &w), "a symlink") == 0);
}

/* A child chrooted into dir/jail, whose /link is an absolute symlink to the host's path of
 * dir/host: in its root that path is the jail's own copy. */
static void test_in_root(void)
{
	char jail[256], host[256], copy[600], link[600], copydir[600];
	snprintf(jail, sizeof(jail), "%s/jail", dir);
	snprintf(host, sizeof(host), "%s/host", dir);
	snprintf(copydir, sizeof(copydir), "%s%s", jail, dir);
	snprintf(copy, sizeof(copy), "%s%s", jail, host);
	snprintf(link, sizeof(link), "%s/link", jail);
	char cmd[1400];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", copydir);
	CHECK(system(cmd) == 0);
	put(host, "the host's\n");
	put(copy, "the jail's\n");
	CHECK(symlink(host, link) == 0);
	int pfd[2];
	CHECK(pipe(pfd) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		char c = chroot(jail) == 0 && chdir("/") == 0 ? 'y' : 'n';
		if (write(pfd[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	char c = 0;
	CHECK(read(pfd[0], &c, 1) == 1);
	if (c != 'y') {
		printf("SKIP: cannot chroot: %s\n", strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		exit(77);
	}
	struct stat hs, cs, st, naive;
	char procpath[64];
	CHECK(stat(host, &hs) == 0 && stat(copy, &cs) == 0);
	snprintf(procpath, sizeof(procpath), "/proc/%d/root/link", (int)pid);
	/* the naive path leads out of the root: what the test guards against */
	CHECK(stat(procpath, &naive) == 0 && naive.st_ino == hs.st_ino);
	char *name = safefile_in_root_path((uint32_t)pid, "/link", &st);
	CHECK(name != NULL && st.st_ino == cs.st_ino);
	struct stat again;
	CHECK(name && stat(name, &again) == 0 && again.st_ino == cs.st_ino);
	free(name);
	/* without links_in_root no symlink is followed at all */
	const struct safefile_want w = { .root_pid = (uint32_t)pid };
	CHECK(strcmp(reason("/link", &w), "a symlink") == 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void test_write(void)
{
	char sticky[512], victim[512], target[600], text[64] = "";
	snprintf(sticky, sizeof(sticky), "%s/sticky", dir);
	CHECK(mkdir(sticky, 0700) == 0 && chmod(sticky, 01777) == 0);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	put(victim, "victim\n");
	snprintf(target, sizeof(target), "%s/out", sticky);
	CHECK(symlink(victim, target) == 0);
	char err[256];
	CHECK(safefile_write(target, "new\n", 4, 0, err, sizeof(err)) == 0);
	FILE *f = fopen(victim, "r");
	CHECK(f && fgets(text, sizeof(text), f) && strcmp(text, "victim\n") == 0);
	if (f)
		fclose(f);
	struct stat st;
	CHECK(lstat(target, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600 &&
	      st.st_size == 4);
	/* a directory on the way that is a symlink planted in the sticky one: refused, nothing made */
	char link[600], through[700], made[700];
	snprintf(link, sizeof(link), "%s/elsewhere", sticky);
	CHECK(symlink(dir, link) == 0);
	snprintf(through, sizeof(through), "%s/new", link);
	CHECK(safefile_write(through, "x\n", 2, 0, err, sizeof(err)) == -1);
	CHECK(strstr(err, "is a symlink in a directory others can write") != NULL);
	snprintf(made, sizeof(made), "%s/new", dir);
	CHECK(lstat(made, &st) != 0);
	/* one in a directory only root can write is followed */
	snprintf(link, sizeof(link), "%s/ours", dir);
	CHECK(symlink(sticky, link) == 0);
	snprintf(through, sizeof(through), "%s/new", link);
	CHECK(safefile_write(through, "x\n", 2, 0, err, sizeof(err)) == 0);
	snprintf(made, sizeof(made), "%s/new", sticky);
	CHECK(lstat(made, &st) == 0 && S_ISREG(st.st_mode));
	/* an abandoned one leaves the target as it was */
	struct safefile_out o;
	CHECK(safefile_create(&o, target, 0, err, sizeof(err)) >= 0);
	CHECK(write(o.fd, "half", 4) == 4);
	safefile_abort(&o);
	CHECK(lstat(target, &st) == 0 && st.st_size == 4);
}

int main(void)
{
	if (geteuid() != 0) {
		printf("SKIP: needs root (chown, chroot)\n");
		return 77;
	}
	CHECK(mkdtemp(dir) != NULL);
	test_refusals();
	test_write();
	test_in_root();
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	return CHECK_DONE();
}
