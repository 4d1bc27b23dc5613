/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_cgroupfs: util/cgroupfs.c against the machine. The mount it finds against this test's own
 * reading of /proc/self/mountinfo and /proc/cgroups; a cgroup's id against the id the kernel puts
 * in a PERF_SAMPLE_CGROUP sample of a task-clock event on a child running in that cgroup (opened
 * here with perf_event_open, read from its ring here), and against stat()'s inode number (the
 * kernfs id on a 64-bit kernel); the walk's ids and paths, its bound; the open's refusals ("..", a
 * missing path, a file). Makes its cgroups under the mount (pt_cgfs_PID) and removes them, even
 * after a failed check. Skips (77) when no hierarchy has the perf_event controller, or the kernel
 * refuses the event.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "util/cgroupfs.h"

/* The perf_event hierarchy as this test reads it: the v1 mount with the perf_event option when
 * /proc/cgroups gives perf_event a hierarchy, else the cgroup2 mount. */
static int own_mount(char *path, size_t len, bool *v2)
{
	char line[8192];
	int hier = -1;
	FILE *f = fopen("/proc/cgroups", "re");
	while (f && fgets(line, sizeof(line), f)) {
		char name[64];
		int h;
		if (sscanf(line, "%63s %d", name, &h) == 2 && !strcmp(name, "perf_event"))
			hier = h;
	}
	if (f)
		fclose(f);
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -1;
	path[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		char point[4096], fstype[64], opts[4096];
		const char *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1 ||
		    sscanf(dash + 3, "%63s %*s %4095s", fstype, opts) != 2)
			continue;
		bool v1pe = !strcmp(fstype, "cgroup") && (strstr(opts, ",perf_event") ||
							  !strncmp(opts, "perf_event", 10));
		if (hier > 0 && v1pe) {
			snprintf(path, len, "%s", point);
			*v2 = false;
			break;
		}
		if (hier <= 0 && !strcmp(fstype, "cgroup2") && !path[0]) {
			snprintf(path, len, "%s", point);
			*v2 = true;
		}
	}
	fclose(f);
	return path[0] ? 0 : -1;
}

static char dir_a[512], dir_b[600], dir_c[600];
static char rel_a[64];   /* this run's cgroup, relative to the mount: "/pt_cgfs_PID" */
static pid_t child;

static void cleanup(void)
{
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = 0;
	}
	rmdir(dir_b);
	rmdir(dir_c);
	rmdir(dir_a);
}

/* The id in the first sample of a task-clock event on pid (TID | CGROUP), or 0. */
static uint64_t kernel_cgroup_id(pid_t pid, int go_fd, int *skip)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_TASK_CLOCK, .sample_period = 1000000,
				     .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CGROUP,
				     .disabled = 1 };
	long ps = sysconf(_SC_PAGESIZE);
	int fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "skip: the kernel refuses a task-clock event with PERF_SAMPLE_CGROUP: %s\n",
			strerror(errno));
		*skip = 1;
		return 0;
	}
	void *m = mmap(NULL, (size_t)ps * 9, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED) {
		close(fd);
		return 0;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	if (write(go_fd, "g", 1) != 1)
		CHECK(!"the child's go pipe");
	struct perf_event_mmap_page *mp = m;
	const unsigned char *data = (const unsigned char *)m + ps;
	uint64_t id = 0;
	for (int i = 0; i < 200 && !id; i++) {
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
		uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
		for (uint64_t off = 0; off + sizeof(struct perf_event_header) <= head && !id;) {
			struct perf_event_header h;
			memcpy(&h, data + off % (uint64_t)(ps * 8), sizeof(h));
			if (h.size < sizeof(h) || off + h.size > (uint64_t)ps * 8)
				break;   /* only the first lap of the ring is read */
			if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 16) {
				uint32_t tid[2];
				memcpy(tid, data + off + sizeof(h), 8);
				if ((pid_t)tid[0] == pid)
					memcpy(&id, data + off + sizeof(h) + 8, 8);
			}
			off += h.size;
		}
	}
	munmap(m, (size_t)ps * 9);
	close(fd);
	return id;
}

struct seen {
	char paths[64][256];
	uint64_t ids[64];
	size_t n, calls;
	char first[256];
};

static void on_cgroup(void *arg, uint64_t id, const char *path)
{
	struct seen *s = arg;
	if (s->calls++ == 0)
		snprintf(s->first, sizeof(s->first), "%s", path);
	size_t n = strlen(rel_a);
	/* only this run's: another run (the ASan twin) may walk beside it */
	if (!strncmp(path, rel_a, n) && (path[n] == '/' || !path[n]) && s->n < 64) {
		snprintf(s->paths[s->n], sizeof(s->paths[0]), "%s", path);
		s->ids[s->n++] = id;
	}
}

static uint64_t ino_of(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

static void test_open(const struct cgroupfs_mount *m)
{
	char err[256], abs_a[600];
	const char *refused[] = { "..", "/..", "../unified", "x/../..", "pt_cgfs_x/../../etc" };
	char inside[128];
	/* ".." that would stay under the mount is refused too: a path names its cgroup plainly */
	snprintf(inside, sizeof(inside), "%s/b/..", rel_a);
	for (size_t i = 0; i <= sizeof(refused) / sizeof(refused[0]); i++) {
		const char *path = i < sizeof(refused) / sizeof(refused[0]) ? refused[i] : inside;
		err[0] = '\0';
		int fd = cgroupfs_open(m, path, err, sizeof(err));
		CHECK(fd < 0);
		if (fd >= 0)
			close(fd);
		CHECK(err[0] != '\0' && !strchr(err, '\n'));
	}
	char missing[600];
	snprintf(missing, sizeof(missing), "%s/no-such-cgroup", rel_a);
	CHECK(cgroupfs_open(m, missing, err, sizeof(err)) < 0);
	CHECK(strstr(err, "no-such-cgroup") != NULL);
	CHECK(cgroupfs_id(m, missing) == 0);
	/* a file of the cgroup, not a cgroup */
	snprintf(missing, sizeof(missing), "%s/cgroup.procs", rel_a);
	CHECK(cgroupfs_open(m, missing, err, sizeof(err)) < 0);
	/* relative with or without its slash, and absolute under the mount: the same directory */
	snprintf(abs_a, sizeof(abs_a), "%s%s", m->path, rel_a);
	uint64_t want = ino_of(abs_a);
	int fd = cgroupfs_open(m, rel_a + 1, err, sizeof(err));
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK_EQ_U64(cgroupfs_fd_id(fd), want);
		int fl = fcntl(fd, F_GETFD);
		CHECK(fl >= 0 && (fl & FD_CLOEXEC));
		close(fd);
	}
	CHECK_EQ_U64(cgroupfs_id(m, abs_a), want);
	CHECK_EQ_U64(cgroupfs_id(m, rel_a), want);
	CHECK_EQ_U64(cgroupfs_id(m, "/"), ino_of(m->path));
	/* cgroupfs refuses symlinks; if this one ever takes one, the open must not follow it */
	char link[700];
	snprintf(link, sizeof(link), "%s/lnk", abs_a);
	if (symlink("/", link) == 0) {
		char rel[700];
		snprintf(rel, sizeof(rel), "%s/lnk", rel_a);
		CHECK(cgroupfs_open(m, rel, err, sizeof(err)) < 0);
		unlink(link);
	} else {
		printf("symlink under the cgroup mount refused (%s): that case is not testable\n",
		       strerror(errno));
	}
}

int main(void)
{
	char want[4096];
	bool want_v2 = false;
	struct cgroupfs_mount m;
	int skip = 0;

	if (own_mount(want, sizeof(want), &want_v2) != 0) {
		printf("skip: no cgroup hierarchy with the perf_event controller is mounted\n");
		return 77;
	}
	CHECK(cgroupfs_perf_event_mount(&m) == 0);
	CHECK_STR(m.path, want);
	CHECK(m.v2 == want_v2);

	snprintf(rel_a, sizeof(rel_a), "/pt_cgfs_%d", (int)getpid());
	snprintf(dir_a, sizeof(dir_a), "%s%s", m.path, rel_a);
	snprintf(dir_b, sizeof(dir_b), "%s/b", dir_a);
	snprintf(dir_c, sizeof(dir_c), "%s/c", dir_a);
	atexit(cleanup);
	if (mkdir(dir_a, 0755) != 0 || mkdir(dir_b, 0755) != 0 || mkdir(dir_c, 0755) != 0) {
		fprintf(stderr, "cannot make cgroups under %s: %s\n", m.path, strerror(errno));
		return 1;
	}

	/* A child in cgroup b, held on a pipe until its event is enabled, then busy. */
	int go[2];
	CHECK(pipe(go) == 0);
	child = fork();
	if (child == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		for (volatile unsigned long i = 0;; i++)
			;
	}
	close(go[0]);
	char procs[700], pidtxt[32];
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir_b);
	int pf = open(procs, O_WRONLY | O_CLOEXEC);
	int n = snprintf(pidtxt, sizeof(pidtxt), "%d\n", (int)child);
	CHECK(pf >= 0 && write(pf, pidtxt, (size_t)n) == n);
	if (pf >= 0)
		close(pf);

	char rel_b[128];
	snprintf(rel_b, sizeof(rel_b), "%s/b", rel_a);
	uint64_t kid = kernel_cgroup_id(child, go[1], &skip);
	close(go[1]);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	child = 0;
	if (!skip) {
		printf("cgroup %s: kernel id %" PRIu64 ", cgroupfs_id %" PRIu64 ", inode %" PRIu64 "\n",
		       rel_b, kid, cgroupfs_id(&m, rel_b), ino_of(dir_b));
		CHECK(kid != 0);
		CHECK_EQ_U64(cgroupfs_id(&m, rel_b), kid);
	}
	CHECK_EQ_U64(cgroupfs_id(&m, rel_b), ino_of(dir_b));

	/* The walk: the root first, our three with the ids stat gives, then the bound. */
	struct seen *s = calloc(1, sizeof(*s));
	bool cut = true;
	size_t all = cgroupfs_walk(&m, 100000, on_cgroup, s, &cut);
	CHECK(!cut);
	CHECK(all == s->calls && all >= 4);
	CHECK_STR(s->first, "/");
	CHECK_EQ_U64(s->n, 3);
	for (size_t i = 0; i < s->n; i++) {
		char abs[700];
		snprintf(abs, sizeof(abs), "%s%s", m.path, s->paths[i]);
		CHECK_EQ_U64(s->ids[i], ino_of(abs));
		CHECK(!strcmp(s->paths[i], rel_a) || !strcmp(s->paths[i], rel_b) ||
		      !strncmp(s->paths[i] + strlen(rel_a), "/c", 3));
	}
	memset(s, 0, sizeof(*s));
	CHECK_EQ_U64(cgroupfs_walk(&m, 1, on_cgroup, s, &cut), 1);
	CHECK(cut);
	CHECK_STR(s->first, "/");
	free(s);

	test_open(&m);
	cleanup();
	return CHECK_DONE();
}
