/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroupfs: the perf_event controller's cgroup hierarchy read as the kernel names it to perf
 * (cgroupfs.h). The id of a cgroup is its kernfs node's id, which kernfs hands out as the whole
 * payload of a directory's file handle (8 bytes) and the kernel writes in PERF_SAMPLE_CGROUP and
 * PERF_RECORD_CGROUP; on a 64-bit kernel it is also the directory's inode number, which is what
 * we fall back to where a hierarchy gives no file handles. The directories below the mount are
 * made by whoever may make cgroups (a container's runtime, a delegated user): every step is an
 * openat without following symlinks, on the mount's device, and bounded in depth and number.
 */
#include "util/cgroupfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mountinfo: lines past this length are not mounts we could use (a cgroup mount's line is short),
 * and more lines than this are not read. */
#define MOUNTINFO_LINE 8192
#define MOUNTINFO_MAX_LINES 100000

/* Undoes mountinfo's octal escapes (\040 for a space...) in place. */
static void unescape_octal(char *s)
{
	char *d = s;
	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

/* Whether the comma-separated list opts has the word w. */
static bool has_option(const char *opts, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, w, n) && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* One mountinfo line: its mount point, file system type and super options (pointers into line,
 * which is cut up). -1 when it is not a well-formed line. */
static int mountinfo_fields(char *line, char **point, char **fstype, char **superopts)
{
	char *save = NULL, *f[6], *t;
	/* id, parent, major:minor, root, mount point, mount options */
	for (int i = 0; i < 6; i++)
		if (!(f[i] = strtok_r(i ? NULL : line, " \n", &save)))
			return -1;
	*point = f[4];
	/* optional fields until "-", then the type, the source and the super options */
	while ((t = strtok_r(NULL, " \n", &save)) && strcmp(t, "-"))
		;
	if (!t || !(*fstype = strtok_r(NULL, " \n", &save)) || !strtok_r(NULL, " \n", &save) ||
	    !(*superopts = strtok_r(NULL, " \n", &save)))
		return -1;
	return 0;
}

int cgroupfs_perf_event_mount(struct cgroupfs_mount *m)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[MOUNTINFO_LINE], v2[sizeof(m->path)] = "";
	bool found = false, longline = false;

	if (!f)
		return -1;
	for (int n = 0; n < MOUNTINFO_MAX_LINES && fgets(line, sizeof(line), f); n++) {
		char *point, *fstype, *opts;
		bool cut = !strchr(line, '\n') && !feof(f);
		bool skip = longline;
		longline = cut;
		if (skip || cut || mountinfo_fields(line, &point, &fstype, &opts))
			continue;
		unescape_octal(point);
		if (strlen(point) >= sizeof(m->path) || point[0] != '/')
			continue;
		if (!strcmp(fstype, "cgroup") && has_option(opts, "perf_event")) {
			snprintf(m->path, sizeof(m->path), "%s", point);
			m->v2 = false;
			found = true;
			break;
		}
		if (!strcmp(fstype, "cgroup2") && !v2[0])
			snprintf(v2, sizeof(v2), "%s", point);
	}
	fclose(f);
	if (!found && v2[0]) {
		snprintf(m->path, sizeof(m->path), "%s", v2);
		m->v2 = true;
		found = true;
	}
	return found ? 0 : -1;
}

uint64_t cgroupfs_fd_id(int fd)
{
	struct {
		struct file_handle fh;
		unsigned char payload[64];
	} h;
	int mount_id;
	uint64_t id = 0;

	h.fh.handle_bytes = sizeof(h.payload);
	if (name_to_handle_at(fd, "", &h.fh, &mount_id, AT_EMPTY_PATH) == 0 &&
	    h.fh.handle_bytes >= sizeof(id)) {
		memcpy(&id, h.fh.f_handle, sizeof(id));
		return id;
	}
	/* No file handles here (a v1 hierarchy of an older kernel): on a 64-bit kernel the kernfs
	 * id is the inode number. */
	struct stat st;
	if (sizeof(long) == 8 && fstat(fd, &st) == 0)
		id = (uint64_t)st.st_ino;
	return id;
}

/* The directory name below dirfd, opened without following a symlink and only on dev. */
static int open_below(int dirfd, const char *name, dev_t dev)
{
	struct stat st;
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_dev != dev) {
		close(fd);
		errno = EXDEV;
		return -1;
	}
	return fd;
}

struct walk {
	cgroupfs_walk_fn fn;
	void *arg;
	size_t max, done;
	bool truncated;
	dev_t dev;
	char path[4096];
};

/* Visits the cgroup open at fd (its path in w->path, len bytes), then its children; takes fd. */
static void walk_dir(struct walk *w, int fd, size_t len, int depth)
{
	if (w->done >= w->max) {
		w->truncated = true;
		close(fd);
		return;
	}
	w->fn(w->arg, cgroupfs_fd_id(fd), len ? w->path : "/");
	w->done++;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		const char *name = de->d_name;
		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;   /* the controllers' files, and symlinks (which are not cgroups) */
		size_t n = strlen(name);
		if (depth + 1 > CGROUPFS_MAX_DEPTH || len + 1 + n >= sizeof(w->path) ||
		    w->done >= w->max) {
			w->truncated = true;
			if (w->done >= w->max)
				break;
			continue;
		}
		int c = open_below(dirfd(d), name, w->dev);
		if (c < 0)
			continue;   /* removed meanwhile, a symlink, not a directory, another mount */
		w->path[len] = '/';
		memcpy(w->path + len + 1, name, n + 1);
		walk_dir(w, c, len + 1 + n, depth + 1);
		w->path[len] = '\0';
	}
	closedir(d);
}

size_t cgroupfs_walk(const struct cgroupfs_mount *m, size_t max, cgroupfs_walk_fn fn, void *arg,
		     bool *truncated)
{
	struct walk w = { .fn = fn, .arg = arg, .max = max };
	struct stat st;
	int fd = open(m->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (truncated)
		*truncated = false;
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return 0;
	}
	w.dev = st.st_dev;
	walk_dir(&w, fd, 0, 0);
	if (truncated)
		*truncated = w.truncated;
	return w.done;
}

/* path relative to the mount: an absolute path under m->path loses that prefix. */
static const char *relative_path(const struct cgroupfs_mount *m, const char *path)
{
	size_t n = strlen(m->path);
	while (n > 1 && m->path[n - 1] == '/')
		n--;
	if (n > 1 && !strncmp(path, m->path, n) && (path[n] == '/' || path[n] == '\0'))
		return path + n;
	return path;
}

int cgroupfs_open(const struct cgroupfs_mount *m, const char *path, char *err, size_t errlen)
{
	struct stat st;
	const char *p = relative_path(m, path);
	int fd = open(m->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), depth = 0;

	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(err, errlen, "cgroup %s: cannot open the cgroup mount %s: %s", path, m->path,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (*p) {
		char name[256];
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.')) {
			p += n + (p[n] == '/');
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			snprintf(err, errlen, "cgroup %s: '..' is refused (a cgroup path stays under %s)",
				 path, m->path);
			close(fd);
			return -1;
		}
		if (n >= sizeof(name) || ++depth > CGROUPFS_MAX_DEPTH) {
			snprintf(err, errlen, "cgroup %s: path too long", path);
			close(fd);
			return -1;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		int c = open_below(fd, name, st.st_dev);
		int e = errno;
		close(fd);
		if (c < 0) {
			snprintf(err, errlen, "cgroup %s: %s under %s", path,
				 e == ENOENT ? "no such cgroup"
				 : e == ELOOP || e == ENOTDIR ? "not a cgroup directory (symlinks are "
								"not followed)"
				 : e == EXDEV ? "another file system" : strerror(e), m->path);
			return -1;
		}
		fd = c;
		p += n + (p[n] == '/');
	}
	return fd;
}

uint64_t cgroupfs_id(const struct cgroupfs_mount *m, const char *path)
{
	char err[64];
	int fd = cgroupfs_open(m, path, err, sizeof(err));
	if (fd < 0)
		return 0;
	uint64_t id = cgroupfs_fd_id(fd);
	close(fd);
	return id;
}
