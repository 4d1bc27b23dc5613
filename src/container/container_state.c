// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * container_state: the names a container's runtime keeps in its state files, read for
 * container_resolve. Where each runtime keeps them (their public layouts):
 *   - Docker: /var/lib/docker/containers/<id>/config.v2.json, top-level "Name": "/web". A
 *     Kubernetes container run by dockershim is named "/k8s_<container>_<pod>_<namespace>_<uid>_<n>".
 *   - containerd: its runc shim's bundle, /run/containerd/io.containerd.runtime.v2.task/<namespace>/
 *     <id>/config.json (the OCI spec), whose "annotations" the CRI fills with
 *     io.kubernetes.cri.container-name, .sandbox-name and .sandbox-namespace (namespace "k8s.io");
 *     nerdctl's containers (namespace "default") carry "nerdctl/name".
 *   - CRI-O: /run/containers/storage/overlay-containers/<id>/userdata/config.json, annotations
 *     io.kubernetes.container.name, io.kubernetes.pod.name, io.kubernetes.pod.namespace.
 *   - podman: containers/storage's list, /var/lib/containers/storage/overlay-containers/
 *     containers.json (volatile-containers.json for --rm ones): [{"id": ..., "names": [...]}, ...].
 * Files root writes, so only root's are read (a container's own files are never these); through
 * safefile: no symlink anywhere on the path, a regular file, bounded in size.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/container_int.h"
#include "container/jscan.h"
#include "util/safefile.h"

/* Bounds: a config.v2.json or an OCI config.json is a few to some tens of KiB; containers.json
 * about 1 KiB per container. */
#define CONFIG_MAX (1u << 20)
#define STORAGE_MAX (8u << 20)

struct found {
	char cname[128], pod[128], kns[64];
	bool cri;                   /* containerd's CRI annotations: a Kubernetes container */
	const char *id;             /* containers.json: the entry looked for */
	bool id_here, names_here;   /* containers.json: the current entry's */
	char names0[128];
};

static void set(char *dst, size_t cap, const char *v)
{
	container_copy(dst, cap, v, strlen(v));
}

/* Docker's name of a dockershim container: k8s_<container>_<pod>_<namespace>_<uid>_<attempt>. */
static void docker_k8s_name(struct found *f, const char *v)
{
	const char *part[4];
	size_t len[4];
	const char *s = v + 4;
	for (int i = 0; i < 4; i++) {
		const char *u = strchr(s, '_');
		if (!u)
			return;
		part[i] = s;
		len[i] = (size_t)(u - s);
		s = u + 1;
	}
	container_copy(f->cname, sizeof(f->cname), part[0], len[0]);
	container_copy(f->pod, sizeof(f->pod), part[1], len[1]);
	container_copy(f->kns, sizeof(f->kns), part[2], len[2]);
}

static bool visit_docker(const struct jscan *s, enum jscan_event ev, void *arg)
{
	struct found *f = arg;
	if (ev != JSCAN_STRING || s->depth != 1 || !jscan_key_is(s, 1, "Name"))
		return false;
	const char *v = s->val[0] == '/' ? s->val + 1 : s->val;
	if (strncmp(v, "k8s_", 4) == 0)
		docker_k8s_name(f, v);
	if (!f->cname[0])
		set(f->cname, sizeof(f->cname), v);
	return true;
}

static bool visit_oci(const struct jscan *s, enum jscan_event ev, void *arg)
{
	struct found *f = arg;
	if (ev != JSCAN_STRING || s->depth != 2 || !jscan_key_is(s, 1, "annotations") || s->array[1])
		return false;
	const char *k = s->key[1];
	if (!strcmp(k, "io.kubernetes.cri.container-name") || !strcmp(k, "io.kubernetes.container.name")) {
		set(f->cname, sizeof(f->cname), s->val);
	} else if (!strcmp(k, "io.kubernetes.cri.sandbox-name") || !strcmp(k, "io.kubernetes.pod.name")) {
		set(f->pod, sizeof(f->pod), s->val);
		f->cri = true;
	} else if (!strcmp(k, "io.kubernetes.cri.sandbox-namespace") ||
		   !strcmp(k, "io.kubernetes.pod.namespace")) {
		set(f->kns, sizeof(f->kns), s->val);
		f->cri = true;
	} else if (!strcmp(k, "nerdctl/name") && !f->cname[0]) {
		set(f->cname, sizeof(f->cname), s->val);
	}
	return false;
}

static bool visit_storage(const struct jscan *s, enum jscan_event ev, void *arg)
{
	struct found *f = arg;
	if (ev == JSCAN_OBJECT_END && s->depth == 2) {
		if (f->id_here && f->names_here) {
			set(f->cname, sizeof(f->cname), f->names0);
			return true;
		}
		f->id_here = f->names_here = false;
		return false;
	}
	if (ev != JSCAN_STRING || !s->array[0])
		return false;
	if (s->depth == 2 && jscan_key_is(s, 2, "id") && !strcmp(s->val, f->id))
		f->id_here = true;
	if (s->depth == 3 && jscan_key_is(s, 2, "names") && s->array[2] && s->index[2] == 0 &&
	    !f->names_here) {
		set(f->names0, sizeof(f->names0), s->val);
		f->names_here = true;
	}
	return false;
}

bool container_state_scan(enum container_state_file file, const char *buf, size_t len,
			  struct container_name *out)
{
	struct found f;
	memset(&f, 0, sizeof(f));
	f.id = out->id;
	switch (file) {
	case CONTAINER_STATE_DOCKER:
		jscan_walk(buf, len, visit_docker, &f);
		break;
	case CONTAINER_STATE_OCI:
		jscan_walk(buf, len, visit_oci, &f);
		break;
	case CONTAINER_STATE_STORAGE:
		if (!out->id[0])
			return false;
		jscan_walk(buf, len, visit_storage, &f);
		break;
	default:
		return false;
	}
	if (!f.cname[0] && !f.pod[0] && !f.kns[0])
		return false;
	if (f.cri && out->kind != CONTAINER_KUBERNETES && out->id[0])
		out->kind = CONTAINER_KUBERNETES; /* containerd's or CRI-O's, under the kubelet */
	if (f.cname[0])
		strcpy(out->cname, f.cname);
	if (out->kind == CONTAINER_KUBERNETES) {
		if (f.pod[0])
			strcpy(out->pod, f.pod);
		if (f.kns[0])
			strcpy(out->kns, f.kns);
	}
	container_compose(out, false);
	return true;
}

/* Where a refusal is told: the first one of a resolve. */
struct why {
	char *buf;
	size_t cap;
};

/* root + rel's text when it is a regular root-owned file, no symlink on the way, at most max bytes:
 * malloc'd, *len its bytes; NULL otherwise (a refusal, not an absence, said in w). */
static char *state_read(const char *root, const char *rel, size_t max, size_t *len, struct why *w)
{
	char path[4096];
	int n = snprintf(path, sizeof(path), "%s%s", root, rel);
	if (n < 0 || (size_t)n >= sizeof(path))
		return NULL;
	const struct safefile_want want = { .uid = 0, .max_size = max };
	struct stat st;
	char why[160];
	int fd = safefile_open(path, &want, &st, why, sizeof(why));
	if (fd < 0) {
		if (why[0] && w->cap && !w->buf[0])
			snprintf(w->buf, w->cap, "%s: not read: %s", path, why);
		return NULL;
	}
	size_t size = (size_t)st.st_size, got = 0;
	char *buf = malloc(size ? size : 1);
	while (buf && got < size) {
		ssize_t r = read(fd, buf + got, size - got);
		if (r <= 0)
			break; /* shrunk meanwhile: what was read */
		got += (size_t)r;
	}
	close(fd);
	*len = got;
	return buf;
}

static bool scan_file(const char *root, const char *rel, size_t max, enum container_state_file f,
		      struct container_name *out, struct why *w)
{
	size_t len = 0;
	char *buf = state_read(root, rel, max, &len, w);
	if (!buf)
		return false;
	bool ok = container_state_scan(f, buf, len, out);
	free(buf);
	return ok;
}

static bool resolve_docker(const char *root, struct container_name *out, struct why *w)
{
	char rel[160];
	snprintf(rel, sizeof(rel), "/var/lib/docker/containers/%s/config.v2.json", out->id);
	return scan_file(root, rel, CONFIG_MAX, CONTAINER_STATE_DOCKER, out, w);
}

static bool resolve_containerd(const char *root, struct container_name *out, struct why *w)
{
	static const char *const namespaces[] = { "k8s.io", "default", "moby" };
	char rel[200];
	for (size_t i = 0; i < sizeof(namespaces) / sizeof(namespaces[0]); i++) {
		snprintf(rel, sizeof(rel), "/run/containerd/io.containerd.runtime.v2.task/%s/%s/config.json",
			 namespaces[i], out->id);
		if (scan_file(root, rel, CONFIG_MAX, CONTAINER_STATE_OCI, out, w))
			return true;
	}
	return false;
}

static bool resolve_crio(const char *root, struct container_name *out, struct why *w)
{
	char rel[200];
	snprintf(rel, sizeof(rel), "/run/containers/storage/overlay-containers/%s/userdata/config.json",
		 out->id);
	return scan_file(root, rel, CONFIG_MAX, CONTAINER_STATE_OCI, out, w);
}

static bool resolve_podman(const char *root, struct container_name *out, struct why *w)
{
	return scan_file(root, "/var/lib/containers/storage/overlay-containers/containers.json",
			 STORAGE_MAX, CONTAINER_STATE_STORAGE, out, w) ||
	       scan_file(root, "/var/lib/containers/storage/overlay-containers/volatile-containers.json",
			 STORAGE_MAX, CONTAINER_STATE_STORAGE, out, w);
}

bool container_resolve_why(const char *cgroup_path, const char *state_root, struct container_name *out,
			   char *why, size_t whylen)
{
	struct why w = { why, whylen };
	if (whylen)
		why[0] = '\0';
	struct container_path_info info;
	container_parse(cgroup_path, out, &info);
	if (!out->id[0] || info.conmon)
		return false;
	const char *root = state_root && strcmp(state_root, "/") != 0 ? state_root : "";
	switch (info.rt) {
	case CRT_DOCKER:
		resolve_docker(root, out, &w);
		break;
	case CRT_CONTAINERD:
		resolve_containerd(root, out, &w);
		break;
	case CRT_CRIO:
		resolve_crio(root, out, &w);
		break;
	case CRT_PODMAN:
		resolve_podman(root, out, &w);
		break;
	case CRT_BARE: /* the kubelet's cgroupfs layout names no runtime: each in turn */
		if (!resolve_containerd(root, out, &w) && !resolve_crio(root, out, &w))
			resolve_docker(root, out, &w);
		break;
	default:
		break;
	}
	return whylen && why[0];
}

void container_resolve(const char *cgroup_path, const char *state_root, struct container_name *out)
{
	char why[8];
	container_resolve_why(cgroup_path, state_root, out, why, 0);
}
