/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * safefile: the files perftop touches that someone else may have planted, opened so that a planted
 * name cannot turn root's reads or writes against the machine.
 *
 * Reading on a profiled process's behalf (its perf map, its jitdump, its container's binaries):
 * safefile_open follows no symlink (openat2 RESOLVE_NO_SYMLINKS; O_NOFOLLOW on the last component
 * where the kernel has no openat2), resolves under /proc/PID/root without escaping it when the
 * process has its own root (RESOLVE_IN_ROOT), and accepts only a regular file of the process's user
 * or root, under a size bound. A refusal comes back as a short reason for a one-line warning.
 *
 * Writing (recordings, exports, settings, caches): safefile_create makes a new file under a
 * temporary name beside the target (O_CREAT|O_EXCL, never through a symlink, 0600; a path through a
 * symlink lying in a directory others can write is refused) and
 * safefile_commit renames it over the target once complete: a planted symlink at the target is
 * replaced, never written through, and a crash leaves the target as it was. A target that is a
 * stream (a FIFO, a terminal, /dev/stdout) is written directly.
 */
#ifndef PERFTOP_UTIL_SAFEFILE_H
#define PERFTOP_UTIL_SAFEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* What a file read on a process's behalf must be. */
struct safefile_want {
	uint32_t root_pid;   /* 0: the path is ours; else it resolves under /proc/ROOT_PID/root */
	uint32_t uid;        /* the process's user, accepted besides root (UINT32_MAX: our euid) */
	uint64_t max_size;   /* bytes; 0: no bound */
	bool links_in_root;  /* with root_pid: symlinks inside the root are followed (libraries are
			      * symlinked), never out of it; without it no symlink anywhere */
	bool any_owner;      /* whoever owns it (what the process runs, not what it wrote) */
};

/*
 * Opens path read-only (O_CLOEXEC|O_NONBLOCK|O_NOCTTY) as w says; *st is its fstat. Returns the fd,
 * or -1 with the reason in why ("a symlink", "a FIFO, not a regular file", "owned by uid 5, not the
 * process's user (uid 7) or root", "too big (N bytes, the bound is M)", ...); why is "" when the
 * file or the process is simply not there, which is no cause for a warning.
 */
int safefile_open(const char *path, const struct safefile_want *w, struct stat *st, char *why,
		  size_t whylen);

/* The name, from our root, of the file path names inside /proc/ROOT_PID/root, resolved there without
 * escaping it (an absolute symlink inside a container's root is the container's file, never the
 * host's): malloc'd, *st its stat; NULL when there is none or we cannot name it. For files that are
 * opened by name later (a binary libdwfl opens). */
char *safefile_in_root_path(uint32_t root_pid, const char *path, struct stat *st);

/* A file being written: the descriptor to write to, and what safefile_commit needs. */
struct safefile_out {
	int fd;
	bool stream;   /* a FIFO, terminal or socket: written directly, nothing to rename */
	unsigned flags;
	char *path;    /* the target, as messages name it */
	int dirfd;     /* its directory (opened without following a symlink): the renames' */
	char *base;    /* the target's name in it */
	char *tmp;     /* the temporary's name in it (NULL for a stream) */
};

enum {
	SAFEFILE_FOR_USER = 1, /* the user's output (-o, --export): owned by SUDO_UID/SUDO_GID when
				* root was reached through sudo, as perf chowns its output */
	SAFEFILE_KEEP_OLD = 2, /* a regular file at the target becomes TARGET.old (perf's) */
	SAFEFILE_SYNC = 4,     /* on disk before the rename, so that even a machine's crash leaves the
				* old file or the new (small files: a large recording is not waited for,
				* nor is a cache, which is checked when read and rebuilt) */
};

/* Starts writing path; returns o->fd, or -1 with a one-line message in err. */
int safefile_create(struct safefile_out *o, const char *path, unsigned flags, char *err,
		    size_t errlen);
/* Ends it: renamed over the target (on disk first with SAFEFILE_SYNC), the fd closed (the caller
 * may have closed it already, a FILE's, and set o->fd to -1). 0, or -1 with a message in err (the
 * temporary is removed). */
int safefile_commit(struct safefile_out *o, char *err, size_t errlen);
/* Gives up: the fd closed, the temporary removed, the target untouched. */
void safefile_abort(struct safefile_out *o);

/* The whole of buf written to path that way. 0, or -1 with a message in err. */
int safefile_write(const char *path, const void *buf, size_t len, unsigned flags, char *err,
		   size_t errlen);

#endif
