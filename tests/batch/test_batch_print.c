/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_batch_print: batch mode's printers (src/batch_print.c) on hand-made snapshots, without a
 * session. Samples mode must print, byte for byte, the contract it always printed (the expected
 * lines are written out here in full); off-CPU and wall snapshots add "mode", "seconds", the rows'
 * nanoseconds, blocks and longest block, "state" when it is a sort key and "runq" when run-queue
 * waits are hidden or alone; the plain table has Time, Blocks/s and Longest instead of Samples.
 */
#include <stdlib.h>

#include "batch/batch.h"
#include "check.h"
#include "model/profile.h"
#include "model/snapshot.h"

static char s_main[] = "main", s_bar[] = "bar", s_sleep[] = "nanosleep", s_sync[] = "fdatasync";
static char s_app[] = "app", s_libc[] = "libc.so.6";
static char s_comm[] = "fixture";

static struct frame fr(const char *sym, const char *dso)
{
	return (struct frame){ .sym = sym, .dso = dso };
}

/* What the printer writes for snap, as a string (the caller frees it). */
static char *print(const struct snapshot *snap, bool json)
{
	struct session_status st = { .event = "cpu-clock", .unwound = -1, .target_text = "pid 7" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (json)
		batch_print_json(f, snap, &st, 1.5);
	else
		batch_print_text(f, snap, &st, 1.5);
	fclose(f);
	return buf;
}

static void add(struct profile *p, uint8_t state, uint64_t ns, bool begins, uint64_t block_ns,
		const struct frame *f, int n)
{
	struct sample_ctx s = { .comm = s_comm, .pid = 7, .tid = 8, .period = ns, .state = state,
				.block_begins = begins, .block_ns = block_ns, .frames = f,
				.nframes = n };
	profile_add(p, &s);
}

static void test_samples_mode_unchanged(void)
{
	struct profile *p = profile_new(NULL, 0);
	struct frame a[] = { fr(s_bar, s_app), fr(s_main, s_app) };
	add(p, 0, 100, false, 0, a, 2);
	add(p, 0, 50, false, 0, a + 1, 1);
	profile_add_window_secs(p, 1.0); /* a session always does; samples mode never shows it */
	struct snapshot *s = profile_snapshot(p, COL_SELF);
	char *got = print(s, true);
	CHECK_STR(got, "{\"time\": 1.500, \"event\": \"cpu-clock\", \"samples\": 2, \"lost\": 0, "
		       "\"dropped\": 0, \"total_period\": 150, \"rows\": ["
		       "{\"sym\": \"bar\", \"dso\": \"app\", \"self\": 66.6667, \"total\": 66.6667, "
		       "\"samples\": 1}, "
		       "{\"sym\": \"main\", \"dso\": \"app\", \"self\": 33.3333, \"total\": 100.0000, "
		       "\"samples\": 1}], "
		       "\"counters\": {\"samples_per_sec\": 0.0, \"lost\": 0, \"throttled\": 0}}");
	free(got);
	got = print(s, false);
	CHECK_STR(got, "perftop  1.5s  pid 7  event cpu-clock  samples 2  lost 0  dropped 0\n"
		       "   Self%   Total%  Samples  Shared Object             Symbol\n"
		       "  66.67%   66.67%        1  app                       bar\n"
		       "  33.33%  100.00%        1  app                       main\n"
		       "\n");
	free(got);
	snapshot_free(s);
	profile_free(p);
}

/* -s state,sym in --off-cpu: 2 s of window; a sleeper 0.5 threads (S), an fdatasync (D) with one
 * 250 ms block. */
static struct snapshot *offcpu_snapshot(struct profile **pp)
{
	enum sort_key keys[] = { SORT_STATE, SORT_SYM };
	struct profile *p = profile_new(keys, 2);
	profile_set_mode(p, PROFILE_OFFCPU);
	struct frame sl[] = { fr(s_sleep, s_libc), fr(s_main, s_app) };
	struct frame sy[] = { fr(s_sync, s_libc), fr(s_main, s_app) };
	for (int i = 0; i < 10; i++)
		add(p, 1, 100000000, true, 100000000, sl, 2);
	add(p, 2, 250000000, true, 250000000, sy, 2);
	add(p, 4, 5000000, true, 5000000, sy, 2); /* R+: preempted in it */
	profile_add_window_secs(p, 2.0);
	*pp = p;
	return profile_snapshot(p, COL_SELF);
}

static void test_offcpu_json(void)
{
	struct profile *p;
	struct snapshot *s = offcpu_snapshot(&p);
	char *got = print(s, true);
	CHECK(strstr(got, "\"total_period\": 1255000000, \"mode\": \"off-cpu\", \"seconds\": 2.000, "
			  "\"rows\": [") != NULL);
	CHECK(strstr(got, "{\"sym\": \"nanosleep\", \"dso\": \"\", \"self\": 79.6813, "
			  "\"total\": 79.6813, \"samples\": 10, \"self_ns\": 1000000000, "
			  "\"total_ns\": 1000000000, \"blocks\": 10, \"total_blocks\": 10, "
			  "\"longest_ns\": 100000000, \"state\": \"S\"}") != NULL);
	CHECK(strstr(got, "{\"sym\": \"fdatasync\", \"dso\": \"\", \"self\": 19.9203, "
			  "\"total\": 19.9203, \"samples\": 1, \"self_ns\": 250000000, "
			  "\"total_ns\": 250000000, \"blocks\": 1, \"total_blocks\": 1, "
			  "\"longest_ns\": 250000000, \"state\": \"D\"}") != NULL);
	CHECK(strstr(got, "\"sym\": \"main\", \"dso\": \"\", \"self\": 0.0000, \"total\": 79.6813, "
			  "\"samples\": 0, \"self_ns\": 0, \"total_ns\": 1000000000, \"blocks\": 0, "
			  "\"total_blocks\": 10, \"longest_ns\": 100000000, \"state\": \"S\"}") != NULL);
	CHECK(strstr(got, "\"state\": \"R+\"") != NULL);
	CHECK(strstr(got, "\"runq\"") == NULL);
	free(got);

	/* Run-queue waits hidden: no R+ row, percentages of the rest, said in the object. */
	struct snapshot *h = snapshot_runq(s, RUNQ_HIDE);
	got = print(h, true);
	CHECK(strstr(got, "\"total_period\": 1250000000, \"mode\": \"off-cpu\", \"seconds\": 2.000, "
			  "\"runq\": \"hidden\", \"rows\": [") != NULL);
	CHECK(strstr(got, "\"R+\"") == NULL);
	CHECK(strstr(got, "\"sym\": \"nanosleep\", \"dso\": \"\", \"self\": 80.0000") != NULL);
	free(got);
	snapshot_free(h);
	h = snapshot_runq(s, RUNQ_ONLY);
	got = print(h, true);
	CHECK(strstr(got, "\"runq\": \"only\"") != NULL);
	CHECK(strstr(got, "\"state\": \"S\"") == NULL && strstr(got, "\"state\": \"R+\"") != NULL);
	free(got);
	snapshot_free(h);

	/* --wall says so. */
	profile_set_mode(p, PROFILE_WALL);
	snapshot_free(s);
	s = profile_snapshot(p, COL_SELF);
	got = print(s, true);
	CHECK(strstr(got, "\"mode\": \"wall\"") != NULL);
	free(got);
	snapshot_free(s);
	profile_free(p);
}

static void test_offcpu_text(void)
{
	struct profile *p;
	struct snapshot *s = offcpu_snapshot(&p);
	char *got = print(s, false);
	/* Time: 1 s blocked over 2 s = 0.50; blocks 10 / 2 s; main's as Total (it called them). */
	CHECK(strstr(got, "perftop  1.5s  pid 7  event cpu-clock  off-CPU  samples 12  lost 0  "
			  "dropped 0\n") == got);
	CHECK(strstr(got, "\n   Self%   Total%     Time Blocks/s    Longest  State   Symbol\n") !=
	      NULL);
	CHECK(strstr(got, "\n  79.68%   79.68%     0.50      5.0    100.0ms  S       nanosleep\n") !=
	      NULL);
	CHECK(strstr(got, "\n  19.92%   19.92%     0.12      0.5    250.0ms  D       fdatasync\n") !=
	      NULL);
	CHECK(strstr(got, "\n   0.00%   79.68%     0.50      5.0    100.0ms  S       main\n") != NULL);
	free(got);
	snapshot_free(s);
	profile_free(p);
}

int main(void)
{
	test_samples_mode_unchanged();
	test_offcpu_json();
	test_offcpu_text();
	return CHECK_DONE();
}
