// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_dso_idle: a binary stays open while a live process maps it or a lookup uses it, is closed
 * (its files with it) once neither has for DSO_IDLE_NS, and is opened again by the next lookup; one
 * that comes back soon after its close stays open longer the next time, up to DSO_IDLE_MAX_NS.
 * The sweeps' times are made up, so the test never waits.
 */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "check.h"
#include "mkrec.h"
#include "symbolize/dso.h"
#include "symbolize/intern.h"
#include "symbolize/maps.h"

#define PID_A 0x7ffff000u
#define PID_B 0x7ffff001u

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

static void sweep(struct maps *m, struct dso_set *ds, uint64_t now)
{
	maps_mark_live(m, now);
	dso_set_close_idle(ds, now);
}

static void task(struct maps *m, enum rec_type type, uint32_t pid)
{
	struct rec r = { .type = type, .pid = pid, .tid = pid, .u.task = { pid, 1, pid, 1, 0 } };
	maps_feed(m, &r);
}

int main(void)
{
	struct stat st;
	CHECK(stat(SYMFIXTURE_PATH, &st) == 0);
	struct intern *in = intern_new();
	struct dso_set *ds = dso_set_new(in);
	struct maps *m = maps_new(ds, in);
	maps_set_offline(m, true);  /* the records alone say who lives */
	int fds0 = open_fds();
	for (uint32_t pid = PID_A; pid <= PID_B; pid++) {
		task(m, REC_FORK, pid);
		struct rec *mm = mk_mmap(pid, 0x400000, 0x10000, 0, major(st.st_dev), minor(st.st_dev),
					 st.st_ino, SYMFIXTURE_PATH);
		maps_feed(m, mm);
		free(mm);
	}
	const struct map *mp = maps_find(m, PID_A, 0x400100);
	CHECK(mp != NULL);
	if (!mp)
		return CHECK_DONE();
	struct dso *d = mp->dso;
	long nsyms = dso_symbol_count(d);
	CHECK(nsyms > 0);
	CHECK_EQ_U64(dso_set_opened(ds), 1);
	CHECK(open_fds() > fds0);

	uint64_t t = 100 * DSO_IDLE_NS;
	sweep(m, ds, t);
	task(m, REC_EXIT, PID_A);
	sweep(m, ds, t += 2 * DSO_IDLE_NS);  /* B maps it still */
	CHECK_EQ_U64(dso_set_opened(ds), 1);
	task(m, REC_EXIT, PID_B);
	sweep(m, ds, t + DSO_IDLE_NS / 2);   /* gone for less than DSO_IDLE_NS */
	CHECK_EQ_U64(dso_set_opened(ds), 1);
	CHECK(dso_symbol_count(d) == nsyms); /* a late sample of B: a use */
	sweep(m, ds, t += DSO_IDLE_NS);
	CHECK_EQ_U64(dso_set_opened(ds), 1);
	CHECK(!dso_idle(d));
	sweep(m, ds, t += DSO_IDLE_NS);      /* nothing for DSO_IDLE_NS: closed, its files too */
	CHECK_EQ_U64(dso_set_opened(ds), 0);
	CHECK(dso_idle(d));
	CHECK_EQ_U64(dso_set_idle_closed(ds), 1);
	CHECK(open_fds() == fds0);
	CHECK(dso_symbol_count(d) == nsyms); /* needed again: reopened */
	CHECK_EQ_U64(dso_set_opened(ds), 1);

	/* Back within DSO_IDLE_RECUR_NS of its close: it waits four times as long before the next. */
	sweep(m, ds, t += DSO_IDLE_NS);      /* the lookup above: a use */
	sweep(m, ds, t += 2 * DSO_IDLE_NS);
	CHECK_EQ_U64(dso_set_opened(ds), 1);
	sweep(m, ds, t += 2 * DSO_IDLE_NS);  /* 4 x DSO_IDLE_NS unused */
	CHECK_EQ_U64(dso_set_opened(ds), 0);
	CHECK_EQ_U64(dso_set_idle_closed(ds), 2);
	/* Gone for longer than that: the next time it closes after DSO_IDLE_NS again. */
	sweep(m, ds, t += DSO_IDLE_RECUR_NS + DSO_IDLE_NS);
	CHECK(dso_symbol_count(d) == nsyms);
	sweep(m, ds, t += DSO_IDLE_NS);
	sweep(m, ds, t += DSO_IDLE_NS);
	CHECK_EQ_U64(dso_set_opened(ds), 0);
	CHECK_EQ_U64(dso_set_idle_closed(ds), 3);
	/* Back each time at once: the wait grows to DSO_IDLE_MAX_NS, no further. */
	for (int i = 0; i < 6; i++) {
		CHECK(dso_symbol_count(d) == nsyms);
		sweep(m, ds, t += DSO_IDLE_NS);
		sweep(m, ds, t += DSO_IDLE_MAX_NS - DSO_IDLE_NS / 2);
		sweep(m, ds, t += DSO_IDLE_NS);
	}
	CHECK_EQ_U64(dso_set_idle_closed(ds), 9);
	CHECK(dso_symbol_count(d) == nsyms);
	sweep(m, ds, t += DSO_IDLE_NS);
	sweep(m, ds, t += DSO_IDLE_MAX_NS - DSO_IDLE_NS / 2);
	CHECK_EQ_U64(dso_set_opened(ds), 1);  /* not yet DSO_IDLE_MAX_NS unused */

	maps_free(m);
	dso_set_free(ds);
	intern_free(in);
	return CHECK_DONE();
}
