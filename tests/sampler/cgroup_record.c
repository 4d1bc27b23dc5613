/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroup_record: the sampler system-wide with opts.sample_cgroup (which the command line does not
 * set: the session does), recorded to a file through perfdata's tee, for test_sampler_cgroup.sh,
 * which holds the file to perf report --sort cgroup and what this prints to the machine.
 *
 *   cgroup_record OUT MS [CGROUP[,CGROUP...]]
 *
 * Prints what the queue (the session's side) got: "has_cgroup 0|1", one line "cgroup ID PATH" per
 * PERF_RECORD_CGROUP record, and one "sample PID CGROUP_ID COUNT" per pid and cgroup id. Exits 2
 * with the sampler's one-line error when it does not open.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perfdata/perfdata_write.h"
#include "record/record.h"
#include "sampler/sampler.h"
#include "util/util.h"

#define MAX_PAIRS 4096

struct pair {
	uint32_t pid;
	uint64_t cgroup, n;
};

static struct pair pairs[MAX_PAIRS];
static size_t npairs;

static void take(const struct rec *r)
{
	if (r->type == REC_CGROUP) {
		printf("cgroup %" PRIu64 " %s\n", r->u.cgroup.id, rec_cgroup_path(r));
		return;
	}
	if (r->type != REC_SAMPLE)
		return;
	for (size_t i = 0; i < npairs; i++) {
		if (pairs[i].pid == r->pid && pairs[i].cgroup == r->u.sample.cgroup) {
			pairs[i].n++;
			return;
		}
	}
	if (npairs < MAX_PAIRS)
		pairs[npairs++] = (struct pair){ r->pid, r->u.sample.cgroup, 1 };
}

static void drain(struct queue *q)
{
	const void *m;
	size_t len;
	while ((m = queue_peek(q, &len)) != NULL) {
		take(m);
		queue_pop(q);
	}
}

int main(int argc, char **argv)
{
	char err[512];
	const char *cgroups[SAMPLER_MAX_CGROUPS];
	int ncg = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: cgroup_record OUT MS [CGROUP[,CGROUP...]]\n");
		return 2;
	}
	if (argc > 3)
		for (char *save = NULL, *t = strtok_r(argv[3], ",", &save);
		     t && ncg < SAMPLER_MAX_CGROUPS; t = strtok_r(NULL, ",", &save))
			cgroups[ncg++] = t;
	struct sampler_opts o = {
		.target = TARGET_SYSTEM, .event = "cpu-clock", .freq = 499, .callchain = true,
		.synthesize = true, .sample_cgroup = true, .cgroups = cgroups, .ncgroups = ncg,
		.tee = perfdata_tee(), .tee_arg = argv[1],
	};
	struct sampler *s = sampler_open(&o, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "cgroup_record: %s\n", err);
		return 2;
	}
	if (sampler_start(s, err, sizeof(err)) != 0) {
		fprintf(stderr, "cgroup_record: %s\n", err);
		sampler_free(s);
		return 2;
	}
	uint64_t end = now_ns() + strtoull(argv[2], NULL, 10) * 1000000ull;
	while (now_ns() < end) {
		drain(sampler_queue(s));
		nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
	}
	sampler_stop(s);
	drain(sampler_queue(s));
	printf("has_cgroup %d\n", sampler_has_cgroup(s));
	for (size_t i = 0; i < npairs; i++)
		printf("sample %" PRIu32 " %" PRIu64 " %" PRIu64 "\n", pairs[i].pid, pairs[i].cgroup,
		       pairs[i].n);
	struct sampler_stats st;
	sampler_get_stats(s, &st);
	sampler_free(s);
	if (st.record_error) {
		fprintf(stderr, "cgroup_record: the recording failed: %s\n", strerror(-st.record_error));
		return 1;
	}
	return 0;
}
