/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * container_int: what container_path.c and container_state.c share: the parse of a path that says
 * more than struct container_name keeps (a monitor's scope, a runtime), and the one composition of
 * the shown name from the fields, so that a name read from a state file is shown the same way as
 * one derived from the path.
 */
#ifndef PERFTOP_CONTAINER_INT_H
#define PERFTOP_CONTAINER_INT_H

#include "container/container.h"

/* Which runtime's naming a container component had (KUBERNETES' containers keep theirs here). */
enum container_rt { CRT_NONE, CRT_DOCKER, CRT_CONTAINERD, CRT_CRIO, CRT_PODMAN, CRT_BARE };

struct container_path_info {
	enum container_rt rt; /* the innermost container component's runtime; CRT_NONE: none */
	bool conmon;          /* that component is a monitor's scope (podman's or CRI-O's conmon) */
};

/* container_from_path, with what else the path said. */
void container_parse(const char *cgroup_path, struct container_name *out,
		     struct container_path_info *info);

/* out->name from kind, id, pod, kns and cname (not for HOST, SYSTEMD and OTHER, whose name is the
 * path's). */
void container_compose(struct container_name *out, bool conmon);

/* s copied to dst (size cap), cut at cap - 1 bytes, control bytes written '?': names reach the
 * terminal. n: s's length (the copy stops at a NUL before it). */
void container_copy(char *dst, size_t cap, const char *s, size_t n);

#endif
