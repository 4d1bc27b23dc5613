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
#include <sys/random.h>
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

static void sf_free(struct safefile_out *o)
{
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->path);
	free(o->tmp);
	free(o->base);
	o->path = o->tmp = o->base = NULL;
	o->fd = o->dirfd = -1;
}

/* Whether a directory on the way to path is a symlink lying in a directory others can write (one
 * they may have planted: /tmp/x -> /etc); its name in bad. Lexical, before the opens that follow,
 * which then allow no symlink at all (the directory is reopened by its real path). */
static bool sf_dirs_planted(const char *path, char *bad, size_t badlen)
{
	char *p = xstrdup(path);
	char *last = strrchr(p, '/');
	bool planted = false;
	for (char *s = p + 1; last && s <= last && !planted; s++) {
		if (*s != '/' && s != last)
			continue;
		char c = *s;
		*s = '\0';
		struct stat st;
		if (p[0] && lstat(p, &st) == 0 && S_ISLNK(st.st_mode) && !sf_dir_trusted(p)) {
			snprintf(bad, badlen, "%s", p);
			planted = true;
		}
		*s = c;
	}
	free(p);
	return planted;
}

/* The target's directory, opened by its real path without following any symlink (so no swap after
 * the check leads elsewhere), and its base name; -1 with errno. */
static int sf_open_dir(struct safefile_out *o)
{
	char *dir = xstrdup(o->path);
	char *slash = strrchr(dir, '/');
	const char *base = slash ? slash + 1 : dir;
	o->base = xstrdup(base);
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	char *real = realpath(dir, NULL);
	free(dir);
	if (!real)
		return -1;
	int fd = sf_openat2(AT_FDCWD, real, O_PATH | O_DIRECTORY | O_CLOEXEC,
			    RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (fd < 0 && errno == ENOSYS)
		fd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int e = errno;
	free(real);
	errno = e;
	return fd;
}

/* A new file beside the target: .BASE.XXXXXX, O_CREAT|O_EXCL (never through a symlink), 0600. */
static int sf_create_tmp(struct safefile_out *o)
{
	size_t n = strlen(o->base) + 16;
	o->tmp = xmalloc(n);
	for (int tries = 0; tries < 16; tries++) {
		uint64_t r = now_ns() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)tries * 0x9e3779b97f4a7c15ull;
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
			/* the clock's bits then: O_EXCL keeps it safe, only a collision costs a try */
		}
		static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
		char suf[7];
		for (int i = 0; i < 6; i++, r /= 62)
			suf[i] = abc[r % 62];
		suf[6] = '\0';
		snprintf(o->tmp, n, ".%s.%s", o->base, suf);
		int fd = openat(o->dirfd, o->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

int safefile_create(struct safefile_out *o, const char *path, unsigned flags, char *err,
		    size_t errlen)
{
	*o = (struct safefile_out){ .fd = -1, .dirfd = -1, .flags = flags };
	char bad[PATH_MAX];
	if (sf_dirs_planted(path, bad, sizeof(bad))) {
		snprintf(err, errlen, "cannot write %s: %s is a symlink in a directory others can write",
			 path, bad);
		return -1;
	}
	if (sf_target(o, path, err, errlen) != 0) {
		sf_free(o);
		return -1;
	}
	if (o->stream) {
		o->fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (o->fd < 0) {
			snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
			sf_free(o);
		}
		return o->fd;
	}
	o->dirfd = sf_open_dir(o);
	o->fd = o->dirfd >= 0 ? sf_create_tmp(o) : -1;
	if (o->fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
		sf_free(o);
		return -1;
	}
	fchmod(o->fd, 0600); /* whatever the umask */
	uid_t uid;
	gid_t gid;
	if ((flags & SAFEFILE_FOR_USER) && sf_sudo_ids(&uid, &gid) && fchown(o->fd, uid, gid) != 0)
		warn_msg("%s: cannot give it to uid %u: %s", path, (unsigned)uid, strerror(errno));
	return o->fd;
}

void safefile_abort(struct safefile_out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->tmp && o->dirfd >= 0)
		unlinkat(o->dirfd, o->tmp, 0);
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
	if (o->fd >= 0 && (o->flags & SAFEFILE_SYNC) && fsync(o->fd) != 0 && errno != EINVAL)
		e = errno;
	if (o->fd >= 0 && close(o->fd) != 0 && !e)
		e = errno;
	o->fd = -1;
	struct stat st;
	if (!e && (o->flags & SAFEFILE_KEEP_OLD) && fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode)) {
		size_t n = strlen(o->base) + 5;
		char *old = xmalloc(n);
		snprintf(old, n, "%s.old", o->base);
		if (renameat(o->dirfd, o->base, o->dirfd, old) != 0) {
			/* the new one replaces it all the same */
		}
		free(old);
	}
	if (!e && renameat(o->dirfd, o->tmp, o->dirfd, o->base) != 0)
		e = errno;
	if (e) {
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(e));
		unlinkat(o->dirfd, o->tmp, 0);
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
