// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_container_names: container_from_path on the cgroup paths each runtime and the kubelet write
 * (the layouts container.h cites), on systemd's units and slices, and on hostile paths (long, deep,
 * "..", ids of the wrong length or alphabet, control bytes); then container_resolve against state
 * files this test plants under a temporary directory standing for "/": Docker's config.v2.json,
 * containerd's and CRI-O's OCI config.json, containers/storage's containers.json, and the ones it
 * must refuse (a symlink, a symlinked directory, another user's file, an oversized file).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "container/container.h"

#define ID "3f4b1c2d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b"
#define ID12 "3f4b1c2d5e6f"
#define ID2 "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
#define UID "0b4f5a1e-1c2d-4e3f-8a9b-0c1d2e3f4a5b"
#define UIDU "0b4f5a1e_1c2d_4e3f_8a9b_0c1d2e3f4a5b"
#define POD "pod" UID
#define PODS "pod0b4f5a1e" /* the name's: the uid cut to 8 digits */
#define KPB "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UIDU ".slice"
#define KPG "/kubepods.slice/kubepods-pod" UIDU ".slice"
#define KPE "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UIDU ".slice"
#define USER "/user.slice/user-1000.slice/user@1000.service"

struct want {
	const char *path;
	enum container_kind kind;
	const char *name, *id, *pod;
};

static const struct want table[] = {
	{ "/", CONTAINER_HOST, "host", "", "" },
	{ "", CONTAINER_HOST, "host", "", "" },
	{ "//", CONTAINER_HOST, "host", "", "" },
	/* Docker: the systemd driver, the cgroupfs driver, under another slice, systemd inside it */
	{ "/system.slice/docker-" ID ".scope", CONTAINER_DOCKER, ID12, ID, "" },
	{ "/docker/" ID, CONTAINER_DOCKER, ID12, ID, "" },
	{ "/machine.slice/custom.slice/docker-" ID ".scope", CONTAINER_DOCKER, ID12, ID, "" },
	{ "/system.slice/docker-" ID ".scope/init.scope", CONTAINER_DOCKER, ID12, ID, "" },
	{ "/system.slice/docker-" ID ".scope/system.slice/nginx.service", CONTAINER_DOCKER, ID12, ID, "" },
	/* Kubernetes: each QoS class, systemd and cgroupfs, containerd, CRI-O and docker */
	{ KPB "/cri-containerd-" ID ".scope", CONTAINER_KUBERNETES, PODS "/" ID12, ID, POD },
	{ KPG "/crio-" ID ".scope", CONTAINER_KUBERNETES, PODS "/" ID12, ID, POD },
	{ KPE "/docker-" ID ".scope", CONTAINER_KUBERNETES, PODS "/" ID12, ID, POD },
	{ KPE "/crio-" ID ".scope/container", CONTAINER_KUBERNETES, PODS "/" ID12, ID, POD },
	{ KPB "/crio-conmon-" ID ".scope", CONTAINER_KUBERNETES, PODS "/conmon " ID12, ID, POD },
	{ "/kubepods/burstable/pod" UID "/" ID, CONTAINER_KUBERNETES, PODS "/" ID12, ID, POD },
	{ "/kubepods/pod" UID "/" ID, CONTAINER_KUBERNETES, PODS "/" ID12, ID, POD },
	{ "/kubepods/besteffort/pod" UID "/" ID, CONTAINER_KUBERNETES, PODS "/" ID12, ID, POD },
	/* a pod's own cgroup */
	{ KPB, CONTAINER_KUBERNETES, PODS, "", POD },
	{ "/kubepods/burstable/pod" UID, CONTAINER_KUBERNETES, PODS, "", POD },
	/* kind: a node in a Docker container, its pods inside */
	{ "/system.slice/docker-" ID2 ".scope/kubelet.slice/kubelet-kubepods.slice/"
	  "kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod" UIDU ".slice/"
	  "cri-containerd-" ID ".scope", CONTAINER_KUBERNETES, PODS "/" ID12, ID, POD },
	{ "/system.slice/docker-" ID2 ".scope/kubelet.slice/kubelet-kubepods.slice/"
	  "kubelet-kubepods-pod" UIDU ".slice", CONTAINER_KUBERNETES, PODS, "", POD },
	{ "/system.slice/docker-" ID2 ".scope/kubelet.slice/kubelet.service", CONTAINER_DOCKER, "a1b2c3d4e5f6",
	  ID2, "" },
	/* the kubelet's QoS level alone is a slice */
	{ "/kubepods.slice/kubepods-burstable.slice", CONTAINER_SYSTEMD, "kubepods-burstable.slice", "", "" },
	/* containerd without the kubelet (rootless CRI, nerdctl), CRI-O alone */
	{ USER "/user.slice/cri-containerd-" ID ".scope", CONTAINER_CONTAINERD, ID12, ID, "" },
	{ "/system.slice/nerdctl-" ID ".scope", CONTAINER_CONTAINERD, ID12, ID, "" },
	{ "/system.slice/crio-" ID ".scope", CONTAINER_CRIO, ID12, ID, "" },
	{ "/system.slice/crio-conmon-" ID ".scope", CONTAINER_CRIO, "conmon " ID12, ID, "" },
	/* podman: rootful, its monitor, rootless, cgroupfs, split into a "container" child */
	{ "/machine.slice/libpod-" ID ".scope", CONTAINER_PODMAN, ID12, ID, "" },
	{ "/machine.slice/libpod-conmon-" ID ".scope", CONTAINER_PODMAN, "conmon " ID12, ID, "" },
	{ USER "/user.slice/libpod-" ID ".scope", CONTAINER_PODMAN, ID12, ID, "" },
	{ "/libpod_parent/libpod-" ID, CONTAINER_PODMAN, ID12, ID, "" },
	{ "/machine.slice/libpod-" ID ".scope/container", CONTAINER_PODMAN, ID12, ID, "" },
	/* systemd units and slices */
	{ "/system.slice/nginx.service", CONTAINER_SYSTEMD, "nginx.service", "", "" },
	{ "/system.slice/docker.service", CONTAINER_SYSTEMD, "docker.service", "", "" },
	{ "/user.slice/user-1000.slice/session-3.scope", CONTAINER_SYSTEMD, "session-3.scope", "", "" },
	{ USER "/app.slice/foo.service", CONTAINER_SYSTEMD, "foo.service", "", "" },
	{ "/system.slice", CONTAINER_SYSTEMD, "system.slice", "", "" },
	{ "/user.slice/user-1000.slice", CONTAINER_SYSTEMD, "user-1000.slice", "", "" },
	{ "/system.slice/", CONTAINER_SYSTEMD, "system.slice", "", "" },
	{ "/init.scope", CONTAINER_SYSTEMD, "init.scope", "", "" },
	/* anything else, as given */
	{ "/ptA", CONTAINER_OTHER, "/ptA", "", "" },
	{ "/a/b/c", CONTAINER_OTHER, "/a/b/c", "", "" },
	{ "/..", CONTAINER_OTHER, "/..", "", "" },
	/* ids of the wrong length or alphabet are no container's */
	{ "/system.slice/docker-" ID "0.scope", CONTAINER_SYSTEMD, "docker-" ID "0.scope", "", "" },
	{ "/system.slice/docker-3f4b1c2d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2.scope",
	  CONTAINER_SYSTEMD, "docker-3f4b1c2d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2.scope",
	  "", "" },
	{ "/system.slice/docker-3F4B1C2D5E6F7A8B9C0D1E2F3A4B5C6D7E8F9A0B1C2D3E4F5A6B7C8D9E0F1A2B.scope",
	  CONTAINER_SYSTEMD, "docker-3F4B1C2D5E6F7A8B9C0D1E2F3A4B5C6D7E8F9A0B1C2D3E4F5A6B7C8D9E0F1A2B.scope",
	  "", "" },
	{ "/system.slice/docker-zz4b1c2d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b.scope",
	  CONTAINER_SYSTEMD, "docker-zz4b1c2d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b.scope",
	  "", "" },
	{ "/docker/3f4b1c2d5e6f", CONTAINER_OTHER, "/docker/3f4b1c2d5e6f", "", "" },
	{ "/docker-" ID, CONTAINER_OTHER, "/docker-" ID, "", "" },
	{ "/" ID, CONTAINER_OTHER, "/" ID, "", "" },
	{ "/system.slice/docker-.scope", CONTAINER_SYSTEMD, "docker-.scope", "", "" },
	/* a name is a name: ".." is no way out of anything here */
	{ "/system.slice/../docker-" ID ".scope", CONTAINER_DOCKER, ID12, ID, "" },
	{ "/kubepods/burstable/pod../" ID, CONTAINER_OTHER, "/kubepods/burstable/pod../" ID, "", "" },
	{ "/kubepods/burstable/pod" UID "x/" ID, CONTAINER_OTHER, "/kubepods/burstable/pod" UID "x/" ID, "",
	  "" },
	/* control bytes reach no terminal */
	{ "/a\033[31mred", CONTAINER_OTHER, "/a?[31mred", "", "" },
	{ "/system.slice/x\ty.service", CONTAINER_SYSTEMD, "x?y.service", "", "" },
};

static void check_bounded(const struct container_name *c)
{
	CHECK(memchr(c->name, 0, sizeof(c->name)) && memchr(c->id, 0, sizeof(c->id)) &&
	      memchr(c->pod, 0, sizeof(c->pod)) && memchr(c->kns, 0, sizeof(c->kns)) &&
	      memchr(c->cname, 0, sizeof(c->cname)));
}

static void test_table(void)
{
	CHECK_EQ_U64(strlen(ID), 64);
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct want *w = &table[i];
		struct container_name c;
		memset(&c, 0x55, sizeof(c));
		container_from_path(w->path, &c);
		check_bounded(&c);
		if (c.kind != w->kind || strcmp(c.name, w->name) || strcmp(c.id, w->id) ||
		    strcmp(c.pod, w->pod))
			fprintf(stderr, "path %s: kind %s name \"%s\" id \"%s\" pod \"%s\"\n", w->path,
				container_kind_str(c.kind), c.name, c.id, c.pod);
		CHECK_EQ_U64(c.kind, w->kind);
		CHECK_STR(c.name, w->name);
		CHECK_STR(c.id, w->id);
		CHECK_STR(c.pod, w->pod);
		CHECK_STR(c.kns, "");
		CHECK_STR(c.cname, "");
	}
	struct container_name c;
	container_from_path(NULL, &c);
	CHECK_EQ_U64(c.kind, CONTAINER_HOST);
}

/* Long and deep: a path of 200,000 components ending in a container, one 300 KB component, a
 * pod uid and a name longer than their fields. */
static void test_huge(void)
{
	size_t n = 200000;
	const char *tail = "/system.slice/docker-" ID ".scope";
	char *p = malloc(2 * n + strlen(tail) + 1);
	for (size_t i = 0; i < n; i++)
		memcpy(p + 2 * i, "/a", 2);
	strcpy(p + 2 * n, tail);
	struct container_name c;
	container_from_path(p, &c);
	CHECK_EQ_U64(c.kind, CONTAINER_DOCKER);
	CHECK_STR(c.name, ID12);
	p[2 * n] = '\0';
	container_from_path(p, &c);
	check_bounded(&c);
	CHECK_EQ_U64(c.kind, CONTAINER_OTHER);
	CHECK_EQ_U64(strlen(c.name), sizeof(c.name) - 1);
	CHECK(strncmp(c.name, p, sizeof(c.name) - 1) == 0);
	memset(p, 'x', 2 * n);
	p[0] = '/';
	memcpy(p + 2 * n - 8, ".service", 8);
	container_from_path(p, &c);
	check_bounded(&c);
	CHECK_EQ_U64(c.kind, CONTAINER_SYSTEMD);
	CHECK_EQ_U64(strlen(c.name), sizeof(c.name) - 1);
	free(p);
	char big[512];
	snprintf(big, sizeof(big), "/kubepods.slice/kubepods-pod%0200d.slice", 7);
	container_from_path(big, &c);
	check_bounded(&c);
	CHECK_EQ_U64(c.kind, CONTAINER_SYSTEMD); /* a 200-digit uid is no pod's */
}

static char root[64];

static void plant(const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s%s", root, rel);
	for (char *s = path + strlen(root) + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(path, 0755);
			*s = '/';
		}
	}
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void resolve(const char *path, struct container_name *c)
{
	memset(c, 0x55, sizeof(*c));
	container_resolve(path, root, c);
	check_bounded(c);
}

/* The refusal container_resolve_why tells: it holds want ("" for none). */
static void refused(const char *path, const char *want)
{
	struct container_name c;
	char why[512];
	bool told = container_resolve_why(path, root, &c, why, sizeof(why));
	CHECK(told == (want[0] != '\0'));
	if (want[0] && !strstr(why, want)) {
		fprintf(stderr, "%s: refusal \"%s\" lacks \"%s\"\n", path, why, want);
		CHECK(!"the refusal's reason");
	}
	CHECK(!strchr(why, '\n'));
}

#define DOCKER_DIR "/var/lib/docker/containers/"
#define TASK_DIR "/run/containerd/io.containerd.runtime.v2.task/"
#define CRIO_DIR "/run/containers/storage/overlay-containers/"
#define ID3 "0000000000000000000000000000000000000000000000000000000000000003"
#define ID4 "0000000000000000000000000000000000000000000000000000000000000004"
#define ID5 "0000000000000000000000000000000000000000000000000000000000000005"
#define ID6 "6666666666660000000000000000000000000000000000000000000000000006"
#define ID7 "7777777777770000000000000000000000000000000000000000000000000007"
#define ID8 "8888888888880000000000000000000000000000000000000000000000000008"
#define ID9 "9999999999990000000000000000000000000000000000000000000000000009"
#define IDA "aaaaaaaaaaaa000000000000000000000000000000000000000000000000000a"

/* The files each runtime keeps, as they write them (trimmed), and what is made of them. */
static void test_resolve_found(void)
{
	struct container_name c;
	/* Docker: "Name" at the top level, not a volume's, not one written inside a label's value */
	plant(DOCKER_DIR ID "/config.v2.json",
	      "{\"StreamConfig\":{},\"MountPoints\":{\"/data\":{\"Name\":\"vol1\",\"Type\":\"volume\"}},"
	      "\"Config\":{\"Labels\":{\"note\":\"\\\"Name\\\":\\\"/evil\\\"\"}},\"ID\":\"" ID "\","
	      "\"Name\":\"/web\",\"Driver\":\"overlay2\"}");
	resolve("/system.slice/docker-" ID ".scope", &c);
	CHECK_EQ_U64(c.kind, CONTAINER_DOCKER);
	CHECK_STR(c.name, "web");
	CHECK_STR(c.cname, "web");
	CHECK_STR(c.id, ID);
	resolve("/docker/" ID, &c);
	CHECK_STR(c.name, "web");
	/* containerd under the kubelet: the CRI's annotations */
	plant(TASK_DIR "k8s.io/" ID2 "/config.json",
	      "{\"ociVersion\":\"1.1.0\",\"process\":{\"args\":[\"/pause\"]},\"annotations\":{"
	      "\"io.kubernetes.cri.container-type\":\"container\","
	      "\"io.kubernetes.cri.container-name\":\"nginx\","
	      "\"io.kubernetes.cri.sandbox-name\":\"web-5d9f7c\","
	      "\"io.kubernetes.cri.sandbox-namespace\":\"default\"}}");
	resolve(KPB "/cri-containerd-" ID2 ".scope", &c);
	CHECK_EQ_U64(c.kind, CONTAINER_KUBERNETES);
	CHECK_STR(c.name, "default/web-5d9f7c/nginx");
	CHECK_STR(c.pod, "web-5d9f7c");
	CHECK_STR(c.kns, "default");
	CHECK_STR(c.cname, "nginx");
	/* the same container seen through the kubelet's cgroupfs layout (no runtime in the path) */
	resolve("/kubepods/burstable/pod" UID "/" ID2, &c);
	CHECK_STR(c.name, "default/web-5d9f7c/nginx");
	/* a CRI container outside kubepods (a rootless kubelet) is still a Kubernetes one */
	resolve(USER "/user.slice/cri-containerd-" ID2 ".scope", &c);
	CHECK_EQ_U64(c.kind, CONTAINER_KUBERNETES);
	CHECK_STR(c.name, "default/web-5d9f7c/nginx");
	/* CRI-O's annotations */
	plant(CRIO_DIR ID3 "/userdata/config.json",
	      "{\"annotations\":{\"io.kubernetes.pod.name\":\"db-0\",\"io.kubernetes.pod.namespace\":"
	      "\"prod\",\"io.kubernetes.container.name\":\"postgres\",\"io.kubernetes.cri-o.Labels\":"
	      "\"{\\\"io.kubernetes.pod.name\\\":\\\"evil\\\"}\"}}");
	resolve(KPG "/crio-" ID3 ".scope", &c);
	CHECK_STR(c.name, "prod/db-0/postgres");
	CHECK_STR(c.pod, "db-0");
	/* podman: containers/storage's list */
	plant("/var/lib/containers/storage/overlay-containers/containers.json",
	      "[{\"id\":\"" ID3 "\",\"names\":[\"other\"],\"image\":\"x\"},"
	      "{\"names\":[\"db\",\"alias\"],\"id\":\"" ID4 "\",\"metadata\":\"{\\\"id\\\":\\\"" ID5 "\\\"}\"}]");
	resolve("/machine.slice/libpod-" ID4 ".scope", &c);
	CHECK_EQ_U64(c.kind, CONTAINER_PODMAN);
	CHECK_STR(c.name, "db");
	resolve("/machine.slice/libpod-" ID5 ".scope", &c); /* named only inside a string */
	CHECK_STR(c.name, "000000000000");
	resolve("/machine.slice/libpod-conmon-" ID4 ".scope", &c);
	CHECK_STR(c.name, "conmon 000000000000");
	/* dockershim's names carry the pod's */
	plant(DOCKER_DIR IDA "/config.v2.json", "{\"Name\":\"/k8s_app_mypod-1_kube-system_" UID "_0\"}");
	resolve("/kubepods/besteffort/pod" UID "/" IDA, &c);
	CHECK_STR(c.name, "kube-system/mypod-1/app");
}

/* What must be refused: each falls back to the path's names. */
static void test_resolve_refused(void)
{
	struct container_name c;
	char path[512], target[512];
	/* a symlinked file (to a valid one) */
	plant("/elsewhere/config.v2.json", "{\"Name\":\"/planted\"}");
	plant(DOCKER_DIR ID6 "/keep", "");
	snprintf(path, sizeof(path), "%s" DOCKER_DIR ID6 "/config.v2.json", root);
	snprintf(target, sizeof(target), "%s/elsewhere/config.v2.json", root);
	CHECK(symlink(target, path) == 0);
	resolve("/system.slice/docker-" ID6 ".scope", &c);
	CHECK_STR(c.name, "666666666666");
	refused("/system.slice/docker-" ID6 ".scope", "config.v2.json: not read: a symlink");
	/* a symlinked directory on the way */
	snprintf(path, sizeof(path), "%s" DOCKER_DIR ID7, root);
	snprintf(target, sizeof(target), "%s/elsewhere", root);
	CHECK(symlink(target, path) == 0);
	resolve("/system.slice/docker-" ID7 ".scope", &c);
	CHECK_STR(c.name, "777777777777");
	refused("/system.slice/docker-" ID7 ".scope", "not read: a symlink");
	/* another user's file */
	plant(DOCKER_DIR ID8 "/config.v2.json", "{\"Name\":\"/theirs\"}");
	snprintf(path, sizeof(path), "%s" DOCKER_DIR ID8 "/config.v2.json", root);
	CHECK(chown(path, 65534, 65534) == 0);
	resolve("/system.slice/docker-" ID8 ".scope", &c);
	CHECK_STR(c.name, "888888888888");
	refused("/system.slice/docker-" ID8 ".scope", "not read: owned by uid 65534");
	/* a file of 64 MiB (sparse: its name after the hole) */
	plant(DOCKER_DIR ID9 "/config.v2.json", "{\"Name\":\"/huge\"}");
	snprintf(path, sizeof(path), "%s" DOCKER_DIR ID9 "/config.v2.json", root);
	CHECK(truncate(path, 64 << 20) == 0);
	resolve("/system.slice/docker-" ID9 ".scope", &c);
	CHECK_STR(c.name, "999999999999");
	refused("/system.slice/docker-" ID9 ".scope", "not read: too big (67108864 bytes");
	/* nothing there, and a state root that does not exist */
	resolve("/system.slice/docker-" ID2 ".scope", &c);
	CHECK_STR(c.name, "a1b2c3d4e5f6");
	refused("/system.slice/docker-" ID2 ".scope", ""); /* absent: nothing to tell */
	refused("/system.slice/docker-" ID ".scope", ""); /* read */
	container_resolve("/system.slice/docker-" ID ".scope", "/nonexistent-perftop-root", &c);
	CHECK_STR(c.name, ID12);
	container_resolve("/system.slice/nginx.service", NULL, &c);
	CHECK_STR(c.name, "nginx.service");
}

/* The scan alone: escapes, control bytes, a cut name, broken text. */
static void test_scan(void)
{
	struct container_name c;
	container_from_path("/system.slice/docker-" ID ".scope", &c);
	const char *t1 = "{\"Name\":\"/w\\u0065b\\n\\u00e9\"}";
	CHECK(container_state_scan(CONTAINER_STATE_DOCKER, t1, strlen(t1), &c));
	CHECK_STR(c.name, "web?\xc3\xa9");
	container_from_path("/system.slice/docker-" ID ".scope", &c);
	char longname[1024];
	snprintf(longname, sizeof(longname), "{\"Name\":\"/%0500d\"}", 1);
	CHECK(container_state_scan(CONTAINER_STATE_DOCKER, longname, strlen(longname), &c));
	CHECK_EQ_U64(strlen(c.name), sizeof(c.name) - 1);
	container_from_path("/system.slice/docker-" ID ".scope", &c);
	const char *broken = "{\"Name\":\"/cut";
	container_state_scan(CONTAINER_STATE_DOCKER, broken, strlen(broken), &c);
	check_bounded(&c);
	const char *none = "[[[[[[[[[[{\"Name\":\"/deep\"}]]]]]]]]]]";
	container_from_path("/system.slice/docker-" ID ".scope", &c);
	CHECK(!container_state_scan(CONTAINER_STATE_DOCKER, none, strlen(none), &c));
	CHECK_STR(c.name, ID12);
}

int main(void)
{
	test_table();
	test_huge();
	test_scan();
	snprintf(root, sizeof(root), "/tmp/perftop-ctr-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	if (geteuid() != 0) {
		printf("not root: the state files' tests (root-owned files) skipped\n");
	} else {
		test_resolve_found();
		test_resolve_refused();
	}
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
	return CHECK_DONE();
}
