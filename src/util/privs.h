/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * privs: perftop run as root gives up, once it has started, every capability the rest of its
 * session does not need, empties the bounding set (a program it runs later, as root, gains none
 * back at its exec) and sets no_new_privs. What is kept depends on the session (struct
 * privs_need); privs_kept says what. docs/security.md lists the same, and its test (tests/privs)
 * holds a running perftop to that list.
 *
 * Capabilities are a thread's own: the drop is made on the main thread before any other thread
 * exists (the sampler's, the push's, the Python watcher's and a JVM attach's are all started
 * after it, and take its reduced set with them). When perftop is not root nothing is done.
 */
#ifndef PERFTOP_UTIL_PRIVS_H
#define PERFTOP_UTIL_PRIVS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct privs_need {
	bool live;         /* this machine's processes: their memory, maps, files; kernel symbols */
	bool jit_attach;   /* a HotSpot JVM of another user may be asked for its perf map */
	bool later_writes; /* files may be written after start (the view's w and settings, --export) */
	bool sudo;         /* run under sudo (SUDO_UID): what perftop writes is handed to that user */
};

/* The capabilities kept, as a mask of 1 << CAP_x. */
uint64_t privs_kept(const struct privs_need *n);
/* Whether perftop runs under sudo (SUDO_UID set). */
bool privs_under_sudo(void);
/* Drops to privs_kept(n). 1: not root, nothing done; 0: done; -1: err says what failed (the
 * caller goes on, warned: perftop is then as privileged as before). */
int privs_drop(const struct privs_need *n, char *err, size_t errlen);

#endif
