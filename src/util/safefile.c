/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * safefile: opening what a profiled process controls without being turned by it, and writing
 * perftop's own files so that no planted name receives them and no crash leaves half of one. The
 * rules and their reasons are in safefile.h and docs/security.md.
 */
#include "util/safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/util.h"

/* ---- reading ---- */

static int sf_openat2(int dirfd, const char *path, int flags, uint64_t resolve)
{
	struct open_how how = { .flags = (uint64_t)flags, .resolve = resolve };
	int fd;
	/* EAGAIN: a rename raced the resolution (RESOLVE_IN_ROOT checks for it); a few more tries */
	for (int tries = 0; tries < 4; tries++) {
		fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	return fd;
}

static int sf_resolve(const char *path, const struct safefile_want *w)
{
	int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	int dirfd = AT_FDCWD;
	if (w->root_pid) {
		char root[40];
		snprintf(root, sizeof(root), "/proc/%" PRIu32 "/root", w->root_pid);
		dirfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dirfd < 0)
			return -1;
	}
	uint64_t resolve = RESOLVE_NO_MAGICLINKS;
	if (w->root_pid)
		resolve |= RESOLVE_IN_ROOT;
	if (!w->root_pid || !w->links_in_root)
		resolve |= RESOLVE_NO_SYMLINKS;
	int fd = sf_openat2(dirfd, path, flags | (resolve & RESOLVE_NO_SYMLINKS ? O_NOFOLLOW : 0),
			    resolve);
	if (fd < 0 && errno == ENOSYS) {
		/* a kernel before openat2 (5.6): at least the last component is no symlink */
		const char *rel = path;
		while (w->root_pid && *rel == '/')
			rel++;
		fd = openat(dirfd, rel, flags | O_NOFOLLOW);
	}
	int e = errno;
	if (dirfd >= 0)
		close(dirfd);
	errno = e;
	return fd;
}

static const char *sf_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO, not a regular file";
	if (S_ISSOCK(m))
		return "a socket, not a regular file";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device, not a regular file";
	return "not a regular file";
}

int safefile_open(const char *path, const struct safefile_want *w, struct stat *st, char *why,
		  size_t whylen)
{
	why[0] = '\0';
	int fd = sf_resolve(path, w);
	if (fd < 0) {
		int e = errno;
		if (e == ELOOP)
			snprintf(why, whylen, "a symlink");
		else if (e == ENXIO)
			snprintf(why, whylen, "a socket or device, not a regular file");
		else if (e == EXDEV)
			snprintf(why, whylen, "it resolves outside the process's root");
		else if (e != ENOENT && e != ENOTDIR && e != ESRCH)
			snprintf(why, whylen, "%s", strerror(e));
		return -1;
	}
	uint32_t uid = w->uid == UINT32_MAX ? (uint32_t)geteuid() : w->uid;
	if (fstat(fd, st) != 0)
		snprintf(why, whylen, "%s", strerror(errno));
	else if (!S_ISREG(st->st_mode))
		snprintf(why, whylen, "%s", sf_kind(st->st_mode));
	else if (!w->any_owner && st->st_uid != 0 && st->st_uid != uid)
		snprintf(why, whylen, "owned by uid %" PRIu32 ", not the process's user (uid %" PRIu32
			 ") or root", (uint32_t)st->st_uid, uid);
	else if (w->max_size && (uint64_t)st->st_size > w->max_size)
		snprintf(why, whylen, "too big (%" PRIu64 " bytes, the bound is %" PRIu64 ")",
			 (uint64_t)st->st_size, w->max_size);
	if (why[0]) {
		close(fd);
		return -1;
	}
	return fd;
}

char *safefile_in_root_path(uint32_t root_pid, const char *path, struct stat *st)
{
	const struct safefile_want w = { .root_pid = root_pid, .links_in_root = true,
					 .any_owner = true };
	char why[128];
	int fd = safefile_open(path, &w, st, why, sizeof(why));
	if (fd < 0)
		return NULL;
	/* /proc/PID/root/PATH, when it reaches the same file (no symlink on the way leads out) */
	struct stat again;
	char name[PATH_MAX];
	snprintf(name, sizeof(name), "/proc/%" PRIu32 "/root%s%s", root_pid, path[0] == '/' ? "" : "/",
		 path);
	bool same = stat(name, &again) == 0 && again.st_dev == st->st_dev &&
		    again.st_ino == st->st_ino;
	if (!same) {
		/* else the kernel's name for it from our root, if it still names it (not for a mount
		 * we cannot see, or after a rename) */
		char link[40];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(link, name, sizeof(name) - 1);
		if (n > 0 && name[0] == '/') {
			name[n] = '\0';
			same = stat(name, &again) == 0 && again.st_dev == st->st_dev &&
			       again.st_ino == st->st_ino;
		}
	}
	close(fd);
	return same ? xstrdup(name) : NULL;
}

/* ---- writing ---- */

/* A directory only we (or root) can write to: a symlink there is someone's choice we share. */
static bool sf_dir_trusted(const char *path)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	struct stat st;
	bool ok = stat(dir, &st) == 0 && !(st.st_mode & (S_IWGRP | S_IWOTH)) &&
		  (st.st_uid == 0 || st.st_uid == geteuid());
	free(dir);
	return ok;
}

/* SUDO_UID/SUDO_GID as ids, when root was reached through sudo. */
static bool sf_sudo_ids(uid_t *uid, gid_t *gid)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	if (geteuid() != 0 || !u || !*u)
		return false;
	char *end;
	errno = 0;
	unsigned long lu = strtoul(u, &end, 10);
	if (errno || *end || lu >= UINT32_MAX)
		return false;
	unsigned long lg = (unsigned long)-1;
	if (g && *g) {
		lg = strtoul(g, &end, 10);
		if (errno || *end || lg >= UINT32_MAX)
			lg = (unsigned long)-1;
	}
	*uid = (uid_t)lu;
	*gid = (gid_t)lg;
	return true;
}

/* Where path leads and whether it is a stream, deciding on what is planted there. 0, or -1. */
static int sf_target(struct safefile_out *o, const char *path, char *err, size_t errlen)
{
	struct stat lst, st;
	o->path = xstrdup(path);
	if (lstat(path, &lst) != 0)
		return 0; /* nothing there: create it */
	bool trusted = sf_dir_trusted(path);
	if (S_ISLNK(lst.st_mode)) {
		if (!trusted || stat(path, &st) != 0)
			return 0; /* replaced by the rename, never followed */
		if (!S_ISREG(st.st_mode)) {
			o->stream = !S_ISDIR(st.st_mode); /* /dev/stdout and the like */
		} else {
			char *real = realpath(path, NULL);
			if (real) {
				free(o->path);
				o->path = real;
			}
			return 0;
		}
	} else {
		st = lst;
		o->stream = !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) &&
			    (trusted || st.st_uid == 0 || st.st_uid == geteuid());
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot write %s: a directory, not a regular file", path);
		return -1;
	}
	return 0;
}

int safefile_create(struct safefile_out *o, const char *path, unsigned flags, char *err,
		    size_t errlen)
{
	*o = (struct safefile_out){ .fd = -1, .flags = flags };
	if (sf_target(o, path, err, errlen) != 0) {
		free(o->path);
		o->path = NULL;
		return -1;
	}
	if (o->stream) {
		o->fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (o->fd < 0) {
			snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
			free(o->path);
			o->path = NULL;
		}
		return o->fd;
	}
	size_t n = strlen(o->path) + 16;
	o->tmp = xmalloc(n);
	const char *slash = strrchr(o->path, '/');
	int dirlen = slash ? (int)(slash - o->path + 1) : 0;
	snprintf(o->tmp, n, "%.*s.%s.XXXXXX", dirlen, o->path, o->path + dirlen);
	/* mkostemp: O_CREAT|O_EXCL (so never through a symlink), mode 0600 */
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
		free(o->tmp);
		free(o->path);
		o->tmp = o->path = NULL;
		return -1;
	}
	uid_t uid;
	gid_t gid;
	if ((flags & SAFEFILE_FOR_USER) && sf_sudo_ids(&uid, &gid) && fchown(o->fd, uid, gid) != 0)
		warn_msg("%s: cannot give it to uid %u: %s", path, (unsigned)uid, strerror(errno));
	return o->fd;
}

static void sf_free(struct safefile_out *o)
{
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	o->fd = -1;
}

void safefile_abort(struct safefile_out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->tmp)
		unlink(o->tmp);
	sf_free(o);
}

int safefile_commit(struct safefile_out *o, char *err, size_t errlen)
{
	if (o->stream) {
		int rc = o->fd >= 0 ? close(o->fd) : 0;
		if (rc != 0)
			snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(errno));
		sf_free(o);
		return rc ? -1 : 0;
	}
	int e = 0;
	if (o->fd >= 0 && fsync(o->fd) != 0 && errno != EINVAL)
		e = errno;
	if (o->fd >= 0 && close(o->fd) != 0 && !e)
		e = errno;
	o->fd = -1;
	struct stat st;
	if (!e && (o->flags & SAFEFILE_KEEP_OLD) && lstat(o->path, &st) == 0 && S_ISREG(st.st_mode)) {
		size_t n = strlen(o->path) + 5;
		char *old = xmalloc(n);
		snprintf(old, n, "%s.old", o->path);
		if (rename(o->path, old) != 0) {
			/* the new one replaces it all the same */
		}
		free(old);
	}
	if (!e && rename(o->tmp, o->path) != 0)
		e = errno;
	if (e) {
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(e));
		unlink(o->tmp);
	}
	sf_free(o);
	return e ? -1 : 0;
}

int safefile_write(const char *path, const void *buf, size_t len, unsigned flags, char *err,
		   size_t errlen)
{
	struct safefile_out o;
	if (safefile_create(&o, path, flags, err, errlen) < 0)
		return -1;
	if (!write_full(o.fd, buf, len)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		safefile_abort(&o);
		return -1;
	}
	return safefile_commit(&o, err, errlen);
}
