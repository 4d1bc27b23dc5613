/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * privs: the capabilities a started session keeps, and the drop to them (privs.h), through
 * libcap-ng.
 *
 * Why each is kept (docs/security.md "## Privileges" lists the same):
 *   CAP_SYS_PTRACE      another user's /proc/PID/maps, /proc/PID/root and its memory
 *                       (process_vm_readv: the Python frames);
 *   CAP_CHECKPOINT_RESTORE (live, where the kernel has it: 5.9 and later) the links of
 *                       /proc/PID/map_files, the only name of a deleted or replaced binary
 *                       still mapped (without it, or CAP_SYS_ADMIN, they cannot be followed);
 *   CAP_DAC_READ_SEARCH their binaries and debug files, which root's own rights may not read;
 *   CAP_SYSLOG          /proc/kallsyms's addresses (kptr_restrict);
 *   CAP_KILL, CAP_SETUID, CAP_SETGID, CAP_CHOWN
 *                       a JVM's attach: its SIGQUIT, the connect under its ids (one thread's
 *                       ids, and back), its trigger file given to it;
 *   CAP_DAC_OVERRIDE    a file written later (w, the settings, --export) into a directory root
 *                       does not own, as before the drop;
 *   CAP_CHOWN           (under sudo, with later writes) that file handed to the sudo user.
 * Events are all opened before the drop (per-task events follow new threads by inheritance; no
 * probe is made through tracefs), so CAP_PERFMON and CAP_SYS_ADMIN go.
 */
#include "util/privs.h"

#include <cap-ng.h>
#include <dirent.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define BIT(c) (1ull << (c))

#ifndef CAP_CHECKPOINT_RESTORE
#define CAP_CHECKPOINT_RESTORE 40
#endif

/* Whether the running kernel knows capability c (its cap_last_cap). */
static bool cap_known(int c)
{
	static int last = -2;
	if (last == -2) {
		last = -1;
		FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "r");
		if (f) {
			if (fscanf(f, "%d", &last) != 1)
				last = -1;
			fclose(f);
		}
	}
	return c <= last;
}

uint64_t privs_kept(const struct privs_need *n)
{
	uint64_t m = BIT(CAP_DAC_READ_SEARCH) | BIT(CAP_SYSLOG);
	if (n->live)
		m |= BIT(CAP_SYS_PTRACE);
	if (n->live && cap_known(CAP_CHECKPOINT_RESTORE))
		m |= BIT(CAP_CHECKPOINT_RESTORE);
	if (n->live && n->jit_attach)
		m |= BIT(CAP_KILL) | BIT(CAP_SETUID) | BIT(CAP_SETGID) | BIT(CAP_CHOWN);
	if (n->later_writes)
		m |= BIT(CAP_DAC_OVERRIDE);
	if (n->later_writes && n->sudo)
		m |= BIT(CAP_CHOWN);
	return m;
}

bool privs_under_sudo(void)
{
	const char *u = getenv("SUDO_UID");
	return u && *u;
}

/* Threads besides this one: they would keep what this thread gives up. */
static int other_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n > 1 ? n - 1 : 0;
}

int privs_drop(const struct privs_need *n, char *err, size_t errlen)
{
	if (geteuid() != 0)
		return 1;
	int others = other_threads();
	if (others) {
		snprintf(err, errlen, "privileges not dropped: %d thread%s started before the drop",
			 others, others > 1 ? "s" : "");
		return -1;
	}
	uint64_t keep = privs_kept(n);
	/* capng_clear of both: the effective, permitted and inheritable sets and the bounding set
	 * (and the ambient one) emptied, then the kept ones put back in the first two only. */
	capng_clear(CAPNG_SELECT_ALL);
	for (unsigned c = 0; c <= CAP_LAST_CAP; c++)
		if ((keep & BIT(c)) &&
		    capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, c) != 0) {
			snprintf(err, errlen, "privileges not dropped: capability %u unknown", c);
			return -1;
		}
	int rc = capng_apply(CAPNG_SELECT_ALL);
	if (rc != 0) {
		snprintf(err, errlen, "privileges not dropped: capng_apply failed (%d)", rc);
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		snprintf(err, errlen, "no_new_privs not set: %s", strerror(errno));
		return -1;
	}
	return 0;
}
