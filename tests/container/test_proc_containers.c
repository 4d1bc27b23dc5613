// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_proc_containers: the /proc reader and its bounded cache against this machine's /proc. The
 * references are the kernel's: this process's own /proc/self/cgroup read here, getpid(), gettid();
 * a child made pid 1 of a new pid namespace (unshare(CLONE_NEWPID), then fork), moved into a cgroup
 * this test makes (when the kernel lets it) and saying its own /proc/self/cgroup; children beyond
 * the table's bound, then reaped.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "container/container.h"

/* The path of /proc/self/cgroup's line for controller (NULL: the v2 line "0::"); "" if none. */
static void own_cgroup(const char *controller, char *out, size_t cap)
{
	out[0] = '\0';
	FILE *f = fopen("/proc/self/cgroup", "r");
	if (!f)
		return;
	char line[4096], v2[4096] = "";
	bool found = false;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		if (!strcmp(line, "0:") && !v2[0])
			snprintf(v2, sizeof(v2), "%s", c2 + 1);
		if (controller && !found) {
			for (char *tok = strtok(c1 + 1, ","); tok; tok = strtok(NULL, ","))
				if (!strcmp(tok, controller)) {
					snprintf(out, cap, "%s", c2 + 1);
					found = true;
				}
		}
	}
	fclose(f);
	if (!found)
		snprintf(out, cap, "%s", v2);
}

static void test_self(void)
{
	struct proc_containers *pc = proc_containers_new(16, "/proc");
	struct proc_container_info info;
	char want[512];
	own_cgroup(NULL, want, sizeof(want));
	CHECK(proc_containers_get(pc, (uint32_t)getpid(), &info));
	CHECK_STR(info.cgroup, want);
	CHECK_EQ_U64(info.nspid, getpid());
	CHECK(!info.own_pidns);
	proc_containers_set_hierarchy(pc, "perf_event");
	own_cgroup("perf_event", want, sizeof(want));
	CHECK(proc_containers_get(pc, (uint32_t)getpid(), &info));
	CHECK_STR(info.cgroup, want);
	/* each v1 hierarchy this process is in, by its first controller (its own path in each) */
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[1024];
	while (f && fgets(line, sizeof(line), f)) {
		char ctl[128];
		if (sscanf(line, "%*[^:]:%127[^:,]", ctl) != 1)
			continue;
		proc_containers_set_hierarchy(pc, ctl);
		own_cgroup(ctl, want, sizeof(want));
		CHECK(proc_containers_get(pc, (uint32_t)getpid(), &info));
		CHECK_STR(info.cgroup, want);
	}
	if (f)
		fclose(f);
	proc_containers_set_hierarchy(pc, NULL);
	proc_containers_free(pc);
}

static void *thread_main(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	return NULL;
}

/* A thread's nstid, cached after it is gone, forgotten with its process. */
static void test_threads(void)
{
	struct proc_containers *pc = proc_containers_new(16, "/proc");
	pid_t tid = 0;
	pthread_t t;
	pthread_create(&t, NULL, thread_main, &tid);
	/* its tid while it runs: wait for it to say it, then read before the join */
	while (!__atomic_load_n(&tid, __ATOMIC_SEQ_CST))
		sched_yield();
	uint32_t nstid = 0;
	bool ok = proc_containers_nstid(pc, (uint32_t)getpid(), (uint32_t)tid, &nstid);
	pthread_join(t, NULL);
	/* the thread may have ended before the read: then it is gone and uncached */
	if (ok) {
		CHECK_EQ_U64(nstid, tid);
		CHECK(proc_containers_nstid(pc, (uint32_t)getpid(), (uint32_t)tid, &nstid));
		CHECK_EQ_U64(nstid, tid);
	} else {
		CHECK(!proc_containers_nstid(pc, (uint32_t)getpid(), (uint32_t)tid, &nstid));
	}
	CHECK(proc_containers_nstid(pc, (uint32_t)getpid(), (uint32_t)getpid(), &nstid));
	CHECK_EQ_U64(nstid, getpid());
	proc_containers_forget(pc, (uint32_t)getpid());
	CHECK_EQ_U64(proc_containers_count(pc), 0);
	CHECK(!proc_containers_nstid(pc, (uint32_t)getpid(), (uint32_t)tid, &nstid));
	proc_containers_free(pc);
}

/* More children than the bound: the table stays at it, and after the children are reaped exactly
 * the cached ones still answer; a forgotten one and one never asked do not. */
static void test_bound(void)
{
	enum { MAX = 4, KIDS = 9 };
	struct proc_containers *pc = proc_containers_new(MAX, "/proc");
	pid_t kid[KIDS];
	struct proc_container_info info;
	for (int i = 0; i < KIDS; i++) {
		kid[i] = fork();
		if (kid[i] == 0) {
			pause();
			_exit(0);
		}
	}
	for (int i = 0; i < KIDS - 1; i++) {
		CHECK(proc_containers_get(pc, (uint32_t)kid[i], &info));
		CHECK(proc_containers_count(pc) <= MAX);
	}
	CHECK_EQ_U64(proc_containers_count(pc), MAX);
	for (int i = 0; i < KIDS; i++) {
		kill(kid[i], SIGKILL);
		waitpid(kid[i], NULL, 0);
	}
	int answered = 0;
	for (int i = 0; i < KIDS - 1; i++)
		answered += proc_containers_get(pc, (uint32_t)kid[i], &info);
	CHECK_EQ_U64(answered, MAX);
	CHECK(!proc_containers_get(pc, (uint32_t)kid[KIDS - 1], &info)); /* gone, never asked */
	for (int i = 0; i < KIDS - 1; i++)
		proc_containers_forget(pc, (uint32_t)kid[i]);
	CHECK_EQ_U64(proc_containers_count(pc), 0);
	CHECK(!proc_containers_get(pc, (uint32_t)kid[0], &info));
	proc_containers_free(pc);
}

/* A cgroup hierarchy to move the child in: cgroup2's mount, else the first v1 hierarchy's (its
 * controller list, "memory" or "name=systemd", in *controller), from /proc/self/mountinfo; then a
 * cgroup of our own under ours there. dir "" when there is none or the kernel refuses one. */
static void make_cgroup(char *dir, size_t cap, char *controller, size_t ccap)
{
	dir[0] = controller[0] = '\0';
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096], mnt[1024] = "", root[1024] = "", v1mnt[1024] = "", v1root[1024] = "", v1c[128] = "";
	while (f && fgets(line, sizeof(line), f)) {
		char r[1024], m[1024], type[64], opts[1024];
		char *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %1023s %1023s", r, m) != 2 ||
		    sscanf(dash + 3, "%63s %*s %1023s", type, opts) != 2)
			continue;
		if (!strcmp(type, "cgroup2") && !mnt[0]) {
			snprintf(mnt, sizeof(mnt), "%s", m);
			snprintf(root, sizeof(root), "%s", r);
		} else if (!strcmp(type, "cgroup") && !v1mnt[0]) {
			snprintf(v1mnt, sizeof(v1mnt), "%s", m);
			snprintf(v1root, sizeof(v1root), "%s", r);
			/* the super options less rw/ro: the hierarchy's controllers */
			const char *o = strncmp(opts, "rw,", 3) && strncmp(opts, "ro,", 3) ? opts : opts + 3;
			snprintf(v1c, sizeof(v1c), "%.120s", o);
			char *comma = strchr(v1c, ',');
			if (comma)
				*comma = '\0';
		}
	}
	if (f)
		fclose(f);
	if (!mnt[0]) {
		snprintf(mnt, sizeof(mnt), "%s", v1mnt);
		snprintf(root, sizeof(root), "%s", v1root);
		snprintf(controller, ccap, "%s", v1c);
	}
	char own[512];
	own_cgroup(controller[0] ? controller : NULL, own, sizeof(own));
	size_t rl = strcmp(root, "/") ? strlen(root) : 0;
	if (!mnt[0] || !own[0] || strncmp(own, root, rl) != 0) {
		printf("no cgroup hierarchy to move the child in: it stays in ours\n");
		return;
	}
	snprintf(dir, cap, "%s%s/perftop-test-%d", mnt, strcmp(own + rl, "/") ? own + rl : "",
		 (int)getpid());
	if (mkdir(dir, 0755) != 0) {
		printf("cannot make %s (%s): the child stays in our cgroup\n", dir, strerror(errno));
		dir[0] = '\0';
	}
}

static bool move_to(const char *dir, pid_t pid)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return false;
	bool ok = fprintf(f, "%d\n", (int)pid) > 0;
	return fclose(f) == 0 && ok;
}

/* The grandchild: pid 1 of its namespace; says its cgroup (after the test moved it) and waits. */
static void grandchild(int go, int say)
{
	char c[128] = "";
	if (read(go, c, sizeof(c) - 1) < 1)
		_exit(1);
	char cg[512];
	own_cgroup(c[0] != '-' ? c : NULL, cg, sizeof(cg));
	dprintf(say, "%d %s\n", (int)getpid(), cg);
	pause();
	_exit(0);
}

static void test_pidns(void)
{
	int up[2], go[2];
	if (pipe(up) || pipe(go))
		return;
	pid_t helper = fork();
	if (helper == 0) {
		/* the helper: a new pid namespace for its next child; says its pid or the errno */
		if (unshare(CLONE_NEWPID) != 0) {
			dprintf(up[1], "E %d\n", errno);
			_exit(0);
		}
		pid_t g = fork();
		if (g == 0)
			grandchild(go[0], up[1]);
		dprintf(up[1], "P %d\n", (int)g);
		waitpid(g, NULL, 0);
		_exit(0);
	}
	FILE *in = fdopen(up[0], "r");
	char kind;
	int val;
	if (fscanf(in, " %c %d", &kind, &val) != 2 || kind == 'E') {
		if (kind == 'E' && (val == EPERM || val == EINVAL))
			printf("SKIP part: unshare(CLONE_NEWPID) refused (%s)\n", strerror(val));
		else
			CHECK(!"the pid namespace's helper said nothing");
		waitpid(helper, NULL, 0);
		return;
	}
	pid_t g = val;
	char dir[600], controller[128];
	make_cgroup(dir, sizeof(dir), controller, sizeof(controller));
	if (dir[0])
		CHECK(move_to(dir, g));
	/* the hierarchy the child reads its cgroup in ("-": cgroup2's) */
	const char *say = controller[0] ? controller : "-";
	CHECK(write(go[1], say, strlen(say)) == (ssize_t)strlen(say));
	int nspid = 0;
	char cg[512] = "";
	CHECK(fscanf(in, " %d %511s", &nspid, cg) == 2);
	CHECK_EQ_U64(nspid, 1); /* the kernel's word: its own getpid() */

	struct proc_containers *pc = proc_containers_new(8, "/proc");
	if (controller[0])
		proc_containers_set_hierarchy(pc, controller);
	struct proc_container_info info;
	CHECK(proc_containers_get(pc, (uint32_t)g, &info));
	CHECK_EQ_U64(info.nspid, 1);
	CHECK(info.own_pidns);
	CHECK_STR(info.cgroup, cg);
	if (dir[0])
		CHECK(strstr(info.cgroup, "/perftop-test-") != NULL);
	uint32_t nstid = 0;
	CHECK(proc_containers_nstid(pc, (uint32_t)g, (uint32_t)g, &nstid));
	CHECK_EQ_U64(nstid, 1);
	proc_containers_free(pc);

	kill(g, SIGKILL);
	waitpid(helper, NULL, 0);
	fclose(in);
	close(go[0]);
	close(go[1]);
	close(up[1]);
	/* the cgroup empties once the kernel has finished with the dead child */
	for (int i = 0; dir[0] && rmdir(dir) != 0 && errno == EBUSY && i < 200; i++)
		usleep(10000);
}

int main(void)
{
	test_self();
	test_threads();
	test_bound();
	test_pidns();
	return CHECK_DONE();
}
