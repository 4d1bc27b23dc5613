/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroupfs: the cgroup hierarchy the perf_event controller is on, as the kernel names its cgroups
 * to perf: where it is mounted, each cgroup's id (the kernfs node id the kernel writes in
 * PERF_SAMPLE_CGROUP and PERF_RECORD_CGROUP, read as the 8-byte file handle of name_to_handle_at)
 * and its path relative to the mount, and a cgroup directory opened for PERF_FLAG_PID_CGROUP.
 * Nothing here follows a symlink or leaves the mount: a container's runtime makes the directories
 * below the root, and perftop often runs as root.
 */
#ifndef PERFTOP_CGROUPFS_H
#define PERFTOP_CGROUPFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* At most this deep below the mount (systemd's slices and a container runtime's nesting stay far
 * below it); deeper directories are left out of a walk, and refused by cgroupfs_open. */
#define CGROUPFS_MAX_DEPTH 64

struct cgroupfs_mount {
	char path[256];
	bool v2;
};

/* Where the perf_event controller's hierarchy is mounted: the v1 mount whose options hold
 * "perf_event", else the cgroup2 mount (perf_event is implicit on v2: /proc/cgroups shows its
 * hierarchy 0 when it is not bound to v1). From /proc/self/mountinfo (bounded read). -1 when none. */
int cgroupfs_perf_event_mount(struct cgroupfs_mount *m);

/* Each cgroup directory under m (the root "/" included), depth-first, at most max of them (returns
 * how many; sets *truncated when cut), with its id and its path relative to the mount ("/",
 * "/a/b"). No symlink followed, at most CGROUPFS_MAX_DEPTH deep (deeper ones also set *truncated). */
typedef void (*cgroupfs_walk_fn)(void *arg, uint64_t id, const char *path);
size_t cgroupfs_walk(const struct cgroupfs_mount *m, size_t max, cgroupfs_walk_fn fn, void *arg,
		     bool *truncated);

/* One cgroup's id by its path relative to the mount; 0 when none. */
uint64_t cgroupfs_id(const struct cgroupfs_mount *m, const char *path);

/* A cgroup directory opened for PERF_FLAG_PID_CGROUP: path relative to m ("ptA", "/docker/abc") or
 * absolute under m->path; O_RDONLY|O_DIRECTORY|O_CLOEXEC, no symlink followed, never outside the
 * mount ("..": refused). -1 with a one-line reason in err. */
int cgroupfs_open(const struct cgroupfs_mount *m, const char *path, char *err, size_t errlen);

/* The id of the cgroup directory open at fd (cgroupfs_open's); 0 when the kernel gives none. */
uint64_t cgroupfs_fd_id(int fd);

#endif
