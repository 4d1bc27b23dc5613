/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracefs: tracepoints (subsys:name) by their id in tracefs (events/SUBSYS/NAME/id).
 *
 * tracefs is where perf looks for it: /sys/kernel/tracing, else /sys/kernel/debug/tracing. A
 * fresh boot may have it at neither; then, as perf does, we mount it at /sys/kernel/tracing
 * (root only), or say what to run.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "events/events_int.h"
#include "util/util.h"

#define TRACEFS_MOUNT "mount -t tracefs nodev /sys/kernel/tracing"

/* 1: a tracefs with events/ at root; 0: none; -1: there, but we may not look (root's only). */
static int has_events(const char *root)
{
	char path[PATH_MAX + 16];
	struct stat st;
	snprintf(path, sizeof(path), "%s/events", root);
	if (stat(path, &st) == 0)
		return S_ISDIR(st.st_mode);
	return errno == EACCES || errno == EPERM ? -1 : 0;
}

static const char *found(struct events_ctx *c, const char *root)
{
	snprintf(c->tracefs, sizeof(c->tracefs), "%s", root);
	c->tracefs_state = 1;
	return c->tracefs;
}

static const char *look(struct events_ctx *c)
{
	static const char *const places[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	if (c->env.tracefs) {
		if (has_events(c->env.tracefs) > 0)
			return found(c, c->env.tracefs);
		snprintf(c->tracefs_err, sizeof(c->tracefs_err), "no tracefs at %s (no events/ there)",
			 c->env.tracefs);
		return NULL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(places); i++) {
		int h = has_events(places[i]);
		if (h > 0)
			return found(c, places[i]);
		if (h < 0) {
			snprintf(c->tracefs_err, sizeof(c->tracefs_err), "tracefs at %s is root's only "
				 "(permission denied): tracepoints need root", places[i]);
			return NULL;
		}
	}
	if (c->env.no_mount) {
		snprintf(c->tracefs_err, sizeof(c->tracefs_err),
			 "tracefs is not mounted; run '" TRACEFS_MOUNT "' as root");
		return NULL;
	}
	if (mount("nodev", places[0], "tracefs", 0, NULL) == 0 && has_events(places[0]) > 0)
		return found(c, places[0]);
	int e = errno;
	if (e == EPERM || e == EACCES)
		snprintf(c->tracefs_err, sizeof(c->tracefs_err),
			 "tracefs is not mounted and mounting it needs root; run '" TRACEFS_MOUNT
			 "' as root");
	else
		snprintf(c->tracefs_err, sizeof(c->tracefs_err),
			 "tracefs is not mounted and mounting it at %s failed (%s); run '"
			 TRACEFS_MOUNT "' as root", places[0], strerror(e));
	return NULL;
}

const char *tracefs_root(struct events_ctx *c, char *err, size_t errlen)
{
	if (c->tracefs_state == 0 && !look(c))
		c->tracefs_state = -1;
	if (c->tracefs_state > 0)
		return c->tracefs;
	if (err)
		snprintf(err, errlen, "%s", c->tracefs_err);
	return NULL;
}

const char *events_tracefs(struct events_ctx *c, char *err, size_t errlen)
{
	return tracefs_root(c, err, errlen);
}

static void suggest_tracepoint(void *arg, const char *sys, const char *name)
{
	char full[256];
	snprintf(full, sizeof(full), "%s:%s", sys, name);
	suggest_add(arg, full);
}

int tracepoint_id(struct events_ctx *c, const char *text, const char *sys, const char *name,
		  uint64_t *id, char *err, size_t errlen)
{
	char why[400];
	const char *root = tracefs_root(c, why, sizeof(why));
	if (!root) {
		ev_err(err, errlen, "event '%s': %s", text, why);
		return -1;
	}
	char path[PATH_MAX + 512], buf[32];
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, sys, name);
	long n = strchr(sys, '/') || strchr(name, '/') || sys[0] == '.' || name[0] == '.'
			 ? -ENOENT : read_small_file(path, buf, sizeof(buf));
	if (n == -EACCES || n == -EPERM) {
		ev_err(err, errlen, "event '%s': cannot read %s (permission denied: tracepoints need "
		       "root)", text, path);
		return -1;
	}
	if (n < 0) {
		struct suggest s;
		char hint[400];
		suggest_init(&s, text);
		tracefs_each(c, suggest_tracepoint, &s);
		suggest_known(c, &s);
		suggest_text(&s, hint, sizeof(hint));
		ev_err(err, errlen, "unknown event '%s' (no tracepoint %s:%s in %s/events)%s%s", text,
		       sys, name, root, hint, s.n ? "" : "; perftop --list-events lists them all");
		return -1;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	if (ev_number(buf, id)) {
		ev_err(err, errlen, "event '%s': %s holds no id", text, path);
		return -1;
	}
	return 0;
}

static int dir_filter(const struct dirent *de)
{
	return de->d_name[0] != '.' && (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN);
}

/* tracefs has a few thousand tracepoints; beyond this many something is wrong */
#define MAX_TRACEPOINTS 100000

long tracefs_each(struct events_ctx *c, void (*fn)(void *arg, const char *sys, const char *name),
		  void *arg)
{
	const char *root = tracefs_root(c, NULL, 0);
	if (!root)
		return -1;
	char dir[PATH_MAX + 512];
	struct dirent **systems;
	snprintf(dir, sizeof(dir), "%s/events", root);
	int ns = scandir(dir, &systems, dir_filter, alphasort);
	long count = 0;
	for (int i = 0; i < ns; i++) {
		struct dirent **events;
		snprintf(dir, sizeof(dir), "%s/events/%s", root, systems[i]->d_name);
		int ne = scandir(dir, &events, dir_filter, alphasort);
		for (int j = 0; j < ne; j++) {
			if (count < MAX_TRACEPOINTS) {
				fn(arg, systems[i]->d_name, events[j]->d_name);
				count++;
			}
			free(events[j]);
		}
		if (ne >= 0)
			free(events);
		free(systems[i]);
	}
	if (ns >= 0)
		free(systems);
	return count;
}
