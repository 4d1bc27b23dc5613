// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * container_path: a cgroup path's container, pod or unit from the path alone (container.h lists the
 * layouts and where they come from). One pass over the components, left to right, keeping nothing
 * but the innermost match, so that a path of any length or depth costs one read of it and no
 * allocation.
 */
#include <string.h>

#include "container/container_int.h"

/* The bytes of a component we look at: a longer one is no runtime's name (an id is 64 hex digits). */
#define COMP_MAX 255
#define ID_LEN 64
#define SHORT_ID 12
/* A pod uid is a UUID (36) or a static pod's hash (32 hex digits). */
#define UID_MAX 48

struct parse {
	const char *id;          /* the innermost container's 64 hex digits in the path */
	enum container_rt rt;
	bool conmon;
	bool kube;               /* a kubepods component seen (and not undone by an inner container) */
	bool kube_at_id;         /* kube held when the id was found */
	char uid[UID_MAX + 1];   /* the pod's uid, with '-' (cgroupfs and systemd forms alike) */
	char uid_at_id[UID_MAX + 1];
	bool prev_docker;        /* the previous component was "docker" (the cgroupfs driver) */
	bool prev_pod;           /* the previous component was the pod's */
	const char *last;        /* the last component */
	size_t last_len;
};

void container_copy(char *dst, size_t cap, const char *s, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n && s[i] && o + 1 < cap; i++) {
		unsigned char c = (unsigned char)s[i];
		dst[o++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	if (cap)
		dst[o] = '\0';
}

static bool is_hex64(const char *s, size_t n)
{
	if (n != ID_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static bool has_prefix(const char *s, size_t n, const char *p, size_t *plen)
{
	size_t l = strlen(p);
	if (n < l || memcmp(s, p, l) != 0)
		return false;
	*plen = l;
	return true;
}

static bool has_suffix(const char *s, size_t n, const char *x)
{
	size_t l = strlen(x);
	return n >= l && memcmp(s + n - l, x, l) == 0;
}

/* A pod uid's text (systemd's '_' back to '-'), when it is one: hex digits and dashes. */
static bool take_uid(struct parse *p, const char *s, size_t n)
{
	if (n == 0 || n > UID_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
		if (!hex && c != '-' && c != '_')
			return false;
	}
	for (size_t i = 0; i < n; i++)
		p->uid[i] = s[i] == '_' ? '-' : s[i];
	p->uid[n] = '\0';
	return true;
}

/* The kubelet's components: "kubepods", "kubepods.slice", "kubepods-burstable.slice",
 * "kubepods-burstable-pod<uid>.slice" (kind's "kubelet-kubepods-..." too), cgroupfs "pod<uid>". */
static bool kube_component(struct parse *p, const char *s, size_t n)
{
	if (memmem(s, n, "kubepods", 8)) {
		p->kube = true;
		if (has_suffix(s, n, ".slice")) {
			const char *dash = NULL;
			for (size_t i = 0; i + 6 < n; i++)
				if (s[i] == '-')
					dash = s + i;
			size_t rest = dash ? (size_t)(s + n - 6 - (dash + 1)) : 0;
			if (dash && rest > 3 && memcmp(dash + 1, "pod", 3) == 0 &&
			    take_uid(p, dash + 4, rest - 3))
				p->prev_pod = true;
		}
		return true;
	}
	if (p->kube && n > 3 && memcmp(s, "pod", 3) == 0 && take_uid(p, s + 3, n - 3)) {
		p->prev_pod = true;
		return true;
	}
	return false;
}

static const struct scope_form {
	const char *prefix;
	enum container_rt rt;
	bool conmon;
} scope_forms[] = {
	/* the longer prefixes first: "crio-conmon-" is no "crio-" container */
	{ "cri-containerd-", CRT_CONTAINERD, false },
	{ "crio-conmon-", CRT_CRIO, true },
	{ "crio-", CRT_CRIO, false },
	{ "libpod-conmon-", CRT_PODMAN, true },
	{ "libpod-", CRT_PODMAN, false },
	{ "docker-", CRT_DOCKER, false },
	{ "nerdctl-", CRT_CONTAINERD, false },
};

static void take_id(struct parse *p, const char *id, enum container_rt rt, bool conmon)
{
	p->id = id;
	p->rt = rt;
	p->conmon = conmon;
	p->kube_at_id = p->kube;
	memcpy(p->uid_at_id, p->uid, sizeof(p->uid));
}

/* A runtime's container component: "<prefix><64 hex>.scope" (systemd), "libpod-<64 hex>" (podman's
 * cgroupfs), "<64 hex>" after "docker" (Docker's cgroupfs) or after a pod (the kubelet's cgroupfs). */
static bool container_component(struct parse *p, const char *s, size_t n)
{
	size_t base = has_suffix(s, n, ".scope") ? n - 6 : n;
	for (size_t i = 0; i < sizeof(scope_forms) / sizeof(scope_forms[0]); i++) {
		const struct scope_form *f = &scope_forms[i];
		size_t l;
		if (!has_prefix(s, base, f->prefix, &l) || !is_hex64(s + l, base - l))
			continue;
		if (base == n && f->rt != CRT_PODMAN)
			return false; /* only podman's cgroupfs form lacks ".scope" */
		take_id(p, s + l, f->rt, f->conmon);
		return true;
	}
	if (is_hex64(s, n) && (p->prev_docker || p->prev_pod)) {
		take_id(p, s, p->prev_docker ? CRT_DOCKER : CRT_BARE, false);
		return true;
	}
	return false;
}

static void parse_path(const char *path, struct parse *p)
{
	memset(p, 0, sizeof(*p));
	for (const char *s = path; *s;) {
		while (*s == '/')
			s++;
		const char *e = s;
		while (*e && *e != '/')
			e++;
		size_t n = (size_t)(e - s);
		if (n == 0)
			break;
		p->last = s;
		p->last_len = n;
		bool docker = n == 6 && memcmp(s, "docker", 6) == 0;
		bool pod_before = p->prev_pod;
		p->prev_pod = false;
		if (n <= COMP_MAX) {
			if (kube_component(p, s, n)) {
				/* an outer container (a Kubernetes node's) holds this pod */
				p->id = NULL;
			} else {
				p->prev_pod = pod_before;
				container_component(p, s, n);
				p->prev_pod = false;
			}
		}
		p->prev_docker = docker;
		s = e;
	}
}

/* dst = a + b + c (each may be ""), cut at cap - 1. */
static void join3(char *dst, size_t cap, const char *a, const char *b, const char *c)
{
	size_t o = 0;
	const char *parts[3] = { a, b, c };
	for (int i = 0; i < 3; i++)
		for (const char *s = parts[i]; *s && o + 1 < cap; s++)
			dst[o++] = *s;
	dst[o] = '\0';
}

/* A pod known by its uid alone, as the name shows it: "pod" and the uid's first 8 digits, as a
 * container's id is cut to 12 (the whole uid stays in out->pod, the pushes' label). */
#define SHORT_POD (3 + 8)

void container_compose(struct container_name *out, bool conmon)
{
	char shortid[SHORT_ID + 1], pod[sizeof(out->pod)];
	container_copy(shortid, sizeof(shortid), out->id, SHORT_ID);
	bool by_uid = !out->kns[0] && strncmp(out->pod, "pod", 3) == 0;
	container_copy(pod, sizeof(pod), out->pod, by_uid ? SHORT_POD : sizeof(pod) - 1);
	if (conmon) {
		char mon[SHORT_ID + 8];
		join3(mon, sizeof(mon), "conmon ", shortid, "");
		if (out->kind == CONTAINER_KUBERNETES && out->pod[0])
			join3(out->name, sizeof(out->name), pod, "/", mon);
		else
			join3(out->name, sizeof(out->name), mon, "", "");
		return;
	}
	if (out->kind != CONTAINER_KUBERNETES) {
		join3(out->name, sizeof(out->name), out->cname[0] ? out->cname : shortid, "", "");
		return;
	}
	if (!out->id[0]) { /* the pod's own cgroup */
		join3(out->name, sizeof(out->name), out->kns, out->kns[0] ? "/" : "", pod);
		return;
	}
	if (out->kns[0] && out->cname[0]) {
		char nspod[sizeof(out->kns) + sizeof(out->pod)];
		join3(nspod, sizeof(nspod), out->kns, "/", out->pod);
		join3(out->name, sizeof(out->name), nspod, "/", out->cname);
	} else if (out->kns[0]) { /* a sandbox (the pause container): the pod itself */
		join3(out->name, sizeof(out->name), out->kns, "/", out->pod);
	} else if (out->pod[0]) {
		join3(out->name, sizeof(out->name), pod, "/", out->cname[0] ? out->cname : shortid);
	} else {
		join3(out->name, sizeof(out->name), out->cname[0] ? out->cname : shortid, "", "");
	}
}

void container_parse(const char *cgroup_path, struct container_name *out,
		     struct container_path_info *info)
{
	memset(out, 0, sizeof(*out));
	memset(info, 0, sizeof(*info));
	const char *path = cgroup_path ? cgroup_path : "";
	struct parse p;
	parse_path(path, &p);
	if (!p.last) {
		out->kind = CONTAINER_HOST;
		strcpy(out->name, "host");
		return;
	}
	if (p.id) {
		static const enum container_kind kind_of[] = {
			[CRT_NONE] = CONTAINER_OTHER, [CRT_DOCKER] = CONTAINER_DOCKER,
			[CRT_CONTAINERD] = CONTAINER_CONTAINERD, [CRT_CRIO] = CONTAINER_CRIO,
			[CRT_PODMAN] = CONTAINER_PODMAN, [CRT_BARE] = CONTAINER_OTHER };
		out->kind = p.kube_at_id ? CONTAINER_KUBERNETES : kind_of[p.rt];
		memcpy(out->id, p.id, ID_LEN);
		out->id[ID_LEN] = '\0';
		if (out->kind == CONTAINER_KUBERNETES && p.uid_at_id[0])
			join3(out->pod, sizeof(out->pod), "pod", p.uid_at_id, "");
		info->rt = p.rt;
		info->conmon = p.conmon;
		container_compose(out, p.conmon);
		return;
	}
	if (p.kube && p.uid[0]) {
		out->kind = CONTAINER_KUBERNETES;
		join3(out->pod, sizeof(out->pod), "pod", p.uid, "");
		container_compose(out, false);
		return;
	}
	if (has_suffix(p.last, p.last_len, ".service") || has_suffix(p.last, p.last_len, ".scope") ||
	    has_suffix(p.last, p.last_len, ".slice")) {
		out->kind = CONTAINER_SYSTEMD;
		container_copy(out->name, sizeof(out->name), p.last, p.last_len);
		return;
	}
	out->kind = CONTAINER_OTHER;
	container_copy(out->name, sizeof(out->name), path, strlen(path));
}

void container_from_path(const char *cgroup_path, struct container_name *out)
{
	struct container_path_info info;
	container_parse(cgroup_path, out, &info);
}

const char *container_kind_str(enum container_kind kind)
{
	static const char *const words[] = {
		[CONTAINER_HOST] = "host", [CONTAINER_DOCKER] = "docker",
		[CONTAINER_CONTAINERD] = "containerd", [CONTAINER_CRIO] = "cri-o",
		[CONTAINER_PODMAN] = "podman", [CONTAINER_KUBERNETES] = "kubernetes",
		[CONTAINER_SYSTEMD] = "systemd", [CONTAINER_OTHER] = "other" };
	return (unsigned)kind < sizeof(words) / sizeof(words[0]) ? words[kind] : "other";
}
