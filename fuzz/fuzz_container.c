/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_container: what a container's side controls of the container names: a cgroup path (a
 * delegated subtree names its own cgroups) through container_from_path, and the runtimes' state
 * files (a container's name, a pod's annotations, what the pod's author wrote) through
 * container_state_scan as each of the three files, and the JSON walk under them. Every field must
 * come back NUL-terminated within its size, an id empty or 64 hex digits, a name never empty and
 * free of control bytes, a walk's depth and values within their bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "container/container.h"
#include "container/jscan.h"

static void must(int cond)
{
	if (!cond)
		abort();
}

static void clean(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);
	must(n < cap);
	for (size_t i = 0; i < n; i++)
		must((unsigned char)s[i] >= 0x20 && s[i] != 0x7f);
}

static void check(const struct container_name *c)
{
	must(c->kind >= CONTAINER_HOST && c->kind <= CONTAINER_OTHER);
	clean(c->name, sizeof(c->name));
	clean(c->id, sizeof(c->id));
	clean(c->pod, sizeof(c->pod));
	clean(c->kns, sizeof(c->kns));
	clean(c->cname, sizeof(c->cname));
	must(c->name[0] != '\0');
	size_t idn = strlen(c->id);
	must(idn == 0 || idn == 64);
	for (size_t i = 0; i < idn; i++)
		must((c->id[i] >= '0' && c->id[i] <= '9') || (c->id[i] >= 'a' && c->id[i] <= 'f'));
	must(container_kind_str(c->kind)[0] != '\0');
}

static bool visit(const struct jscan *s, enum jscan_event ev, void *arg)
{
	(void)arg;
	must(s->depth >= 1);
	if (ev == JSCAN_STRING) {
		must(strnlen(s->val, JSCAN_VAL) < JSCAN_VAL);
		for (size_t d = 0; d < s->depth && d < JSCAN_KEEP; d++)
			must(strnlen(s->key[d], JSCAN_KEY) < JSCAN_KEY);
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a path is a C string: the input up to its first NUL */
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	struct container_name c;
	container_from_path(text, &c);
	check(&c);
	free(text);

	/* the state files: exactly the input's bytes, no NUL after them */
	char *buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	jscan_walk(buf, size, visit, NULL);
	static const char *const paths[] = {
		"/system.slice/docker-3f4b1c2d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b.scope",
		"/kubepods/burstable/pod0b4f5a1e-1c2d-4e3f-8a9b-0c1d2e3f4a5b/"
		"3f4b1c2d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b",
		"/machine.slice/libpod-3f4b1c2d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b.scope",
	};
	for (int f = CONTAINER_STATE_DOCKER; f <= CONTAINER_STATE_STORAGE; f++) {
		for (size_t p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
			container_from_path(paths[p], &c);
			container_state_scan((enum container_state_file)f, buf, size, &c);
			check(&c);
		}
	}
	free(buf);
	return 0;
}
