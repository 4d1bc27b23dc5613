/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * container: which container a cgroup path stands for, and a process's cgroup and pid namespace,
 * for the `cgroup` and `container` sort keys. Knows util and nothing else of ours.
 *
 * Names come first from the cgroup path alone (container_from_path: pure, fuzzed), in the layouts
 * the runtimes write: Docker's `docker-<id>.scope` (systemd driver) and `/docker/<id>` (cgroupfs);
 * the kubelet's `kubepods[-qos]-pod<uid>.slice` (systemd, the uid's '-' written '_') and
 * `/kubepods/<qos>/pod<uid>` (cgroupfs) around the runtime's own `cri-containerd-<id>.scope`,
 * `crio-<id>.scope`, `docker-<id>.scope` or bare `<id>`; nerdctl's `nerdctl-<id>.scope`; podman's
 * `libpod-<id>.scope` and its monitor's `libpod-conmon-<id>.scope` (cgroupfs: `libpod-<id>`);
 * CRI-O's `crio-<id>.scope` and `crio-conmon-<id>.scope`; then systemd units and slices. The
 * innermost container of a path names it (a Kubernetes node in a Docker container, kind's, holds
 * pods). Then container_resolve reads the runtimes' state files for the names people gave
 * (Docker's container name, a pod's name and namespace): files root writes, opened without
 * following a symlink, root-owned and size-bounded (safefile), scanned for the few strings needed.
 *
 * Not thread-safe: a struct proc_containers belongs to one thread (the session's).
 */
#ifndef PERFTOP_CONTAINER_H
#define PERFTOP_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum container_kind { CONTAINER_HOST, CONTAINER_DOCKER, CONTAINER_CONTAINERD, CONTAINER_CRIO,
		      CONTAINER_PODMAN, CONTAINER_KUBERNETES, CONTAINER_SYSTEMD, CONTAINER_OTHER };

struct container_name {
	enum container_kind kind;
	char name[128];   /* what the `container` sort key shows */
	char id[72];      /* the container id, full, when the path holds one; "" otherwise */
	char pod[128];    /* Kubernetes: the pod's name when known, else "pod" + its uid; "" otherwise */
	char kns[64];     /* Kubernetes namespace when known; "" otherwise */
	char cname[128];  /* the container's own name when known (runtime state, k8s container name) */
};

/* Pure: the names derivable from a cgroup path alone ("/", "/system.slice/docker-<64hex>.scope", ...).
 * name: "host" for "/" or ""; a Docker, containerd, CRI-O or podman container's first 12 hex
 * digits ("conmon <12 hex>" for a monitor's scope); a Kubernetes container's "<pod>/<12 hex>"
 * (a pod known by its uid alone: "pod" and 8 of its digits), a pod's own cgroup the pod; a systemd
 * unit or slice its name; anything else the path as given (cut at 127 bytes). */
void container_from_path(const char *cgroup_path, struct container_name *out);

/* The same, then the runtime's state files read for the names the path does not hold: Docker's
 * config.v2.json "Name" (name: it without its '/'), containerd's and CRI-O's OCI config.json
 * annotations (name: "<namespace>/<pod>/<container>", a pod's sandbox "<namespace>/<pod>"), podman's
 * containers.json "names". state_root:
 * "" or NULL for "/", or a directory that stands for "/". Never fails: what cannot be read (absent,
 * a symlink, not root's, too big) leaves container_from_path's names. Reads files: cache the result
 * per cgroup. */
void container_resolve(const char *cgroup_path, const char *state_root, struct container_name *out);
/* container_resolve, and the first state file it refused (not one simply absent) said in why as
 * "PATH: not read: REASON" (safefile's reason: "a symlink", "owned by uid 5, ...", "too big ..."),
 * for a warning once per container; true when there was one. */
bool container_resolve_why(const char *cgroup_path, const char *state_root, struct container_name *out,
			   char *why, size_t whylen);

/* The runtime state files container_resolve reads, for container_state_scan. */
enum container_state_file {
	CONTAINER_STATE_DOCKER,  /* /var/lib/docker/containers/<id>/config.v2.json */
	CONTAINER_STATE_OCI,     /* an OCI bundle's config.json (containerd's, CRI-O's) */
	CONTAINER_STATE_STORAGE, /* containers/storage's containers.json (podman's, CRI-O's) */
};
/* Pure: the names one state file's text (buf, len bytes, no NUL needed) gives the container out
 * names (out->id: the one containers.json is searched for), set in out (name recomposed; a
 * containerd container with the CRI's annotations becomes CONTAINER_KUBERNETES). False when the
 * text held none of them (out unchanged). */
bool container_state_scan(enum container_state_file f, const char *buf, size_t len,
			  struct container_name *out);

/* A short word for kind: "host", "docker", "containerd", "cri-o", "podman", "kubernetes",
 * "systemd", "other". */
const char *container_kind_str(enum container_kind kind);

/* A process's cgroup and pid-namespace ids, read from /proc and cached per pid (bounded: at most
 * `max` pids and tids together, the least recently used evicted (a clock); forget on exit). */
struct proc_containers;
struct proc_containers *proc_containers_new(size_t max, const char *proc_root /* "/proc" normally */);
void proc_containers_free(struct proc_containers *pc);
/* Which line of /proc/PID/cgroup to take: controller NULL: the v2 line ("0::/path"); else the v1
 * line whose controller list holds `controller` (e.g. "perf_event"); if that v1 line is absent, the
 * v2 line. Empties the cache (its paths were of the other hierarchy). */
void proc_containers_set_hierarchy(struct proc_containers *pc, const char *controller);
struct proc_container_info {
	char cgroup[512];      /* "/a/b"; "" when unreadable (process gone) */
	uint32_t nspid;        /* the pid in the process's own (innermost) pid namespace: NSpid's last
				  field of /proc/PID/status; 0 when unknown */
	bool own_pidns;        /* its pid namespace differs from perftop's (/proc/PID/ns/pid vs
				  /proc/self/ns/pid inode) */
};
/* Cached: the first call for a pid reads /proc; later calls answer from the cache. Returns false when
 * the process is gone and nothing was cached. */
bool proc_containers_get(struct proc_containers *pc, uint32_t pid, struct proc_container_info *out);
/* tid's number in its pid namespace: read from /proc/PID/task/TID/status when tid != pid (cached
 * too, in the same bounded table keyed by tid), the process's nspid when tid == pid. False when
 * the thread is gone and nothing was cached, or its NSpid is unknown. */
bool proc_containers_nstid(struct proc_containers *pc, uint32_t pid, uint32_t tid, uint32_t *nstid);
/* Forgets pid (a process's exit: its threads' entries too) or a thread's tid. */
void proc_containers_forget(struct proc_containers *pc, uint32_t pid);
/* How many pids and tids are cached (at most max). */
size_t proc_containers_count(const struct proc_containers *pc);

#endif
