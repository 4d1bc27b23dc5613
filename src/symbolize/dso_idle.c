// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dso_idle: live, the binaries no live process maps any more are closed. Under a churn of short
 * processes every binary they ran stayed open (its libdwfl handle, its file descriptors, its symbol
 * table on the heap, the pages of its file that were read) until DSO_MAX_OPEN pushed it out, so the
 * resident set held up to 128 binaries of processes long gone. Each sweep (once a window) the maps
 * mark what their live processes map and a lookup since the last sweep counts as a use too (a
 * late sample of a process just gone); a binary neither for DSO_IDLE_NS is closed, and reopened by
 * the next lookup that wants it (one that keeps coming back waits longer: dso_open in dso.c). A
 * replay never sweeps: its output does not depend on when.
 */
#include "symbolize/dso.h"
#include "symbolize/dso_int.h"

#include <string.h>

void dso_mark_live(struct dso *d, uint64_t now)
{
	if (d)
		d->live_ns = now;
}

/* A file read through /proc/PID/ (a deleted binary's map_files link, a container's root) may be
 * gone with its process: closed, it could not be reopened, so it stays until DSO_MAX_OPEN. */
static bool dso_reopenable(const struct dso *d)
{
	return !d->source || strncmp(d->source, "/proc/", 6) != 0;
}

bool dso_idle(const struct dso *d)
{
	return d->live_ns <= d->set->sweep_ns && d->set->sweep_ns - d->live_ns >= d->idle_ns &&
	       dso_reopenable(d);
}

size_t dso_set_close_idle(struct dso_set *set, uint64_t now)
{
	size_t n = 0;
	set->sweep_ns = now;
	for (struct dso *d = set->all; d; d = d->next_all) {
		if (d->used > set->sweep_clock)
			d->live_ns = now;
		if (d->state == DSO_OPEN && dso_idle(d)) {
			dso_close(d);
			d->idle_closed_ns = now ? now : 1;
			n++;
		}
	}
	set->sweep_clock = set->clock;
	set->idle_closed += n;
	return n;
}

uint64_t dso_set_idle_closed(const struct dso_set *set)
{
	return set->idle_closed;
}
