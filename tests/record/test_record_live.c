/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_record_live: the sampler thread recording a real session (also built with TSan: the writer
 * is the thread's alone until sampler_stop, and only atomics cross). Every sample the queue got is
 * in the file, the synthesized processes of a -p target are there before them, and the stats say
 * how much went to disk. Exits 77 where the kernel refuses perf_event_open of cpu-clock to this
 * unprivileged process (perfprobe.h; refused to a privileged one, it fails).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "check.h"
#include "perfprobe.h"
#include "perfdata/perfdata.h"
#include "perfdata/perfdata_write.h"
#include "sampler/sampler.h"
#include "util/util.h"

union recbuf {
	struct rec rec;
	unsigned char bytes[sizeof(struct rec) + 70000];
};

/* Drains the queue until the target exits or ms pass; returns the samples taken. */
static uint64_t drain(struct sampler *s, int ms)
{
	struct queue *q = sampler_queue(s);
	struct sampler_stats st;
	uint64_t samples = 0, end = now_ns() + (uint64_t)ms * 1000000ull;
	for (;;) {
		const void *m;
		size_t len;
		while ((m = queue_peek(q, &len)) != NULL) {
			if (((const struct rec *)m)->type == REC_SAMPLE)
				samples++;
			queue_pop(q);
		}
		sampler_get_stats(s, &st);
		if (st.target_exited || now_ns() >= end) {
			while ((m = queue_peek(q, &len)) != NULL) {
				if (((const struct rec *)m)->type == REC_SAMPLE)
					samples++;
				queue_pop(q);
			}
			return samples;
		}
		struct timespec ts = {0, 5000000};
		nanosleep(&ts, NULL);
	}
}

struct readback {
	uint64_t samples, comms_of, first_sample_idx, last_comm_idx;
	bool truncated;
};

static void read_back(const char *path, uint32_t pid, struct readback *rb)
{
	char err[256];
	union recbuf *b = malloc(sizeof(*b));
	struct perfdata_reader *r = perfdata_open(path, err, sizeof(err));
	uint64_t i = 0;
	memset(rb, 0, sizeof(*rb));
	rb->first_sample_idx = UINT64_MAX;
	CHECK(r != NULL);
	if (!r) {
		fprintf(stderr, "%s\n", err);
		free(b);
		return;
	}
	while (perfdata_next(r, &b->rec, sizeof(*b)) == 1) {
		if (b->rec.type == REC_SAMPLE) {
			rb->samples++;
			if (rb->first_sample_idx == UINT64_MAX)
				rb->first_sample_idx = i;
		} else if (b->rec.type == REC_COMM && b->rec.u.comm.pid == pid) {
			rb->comms_of++;
			rb->last_comm_idx = i;
		}
		i++;
	}
	struct perfdata_stats ps;
	perfdata_get_stats(r, &ps);
	rb->truncated = ps.truncated;
	perfdata_close(r);
	free(b);
}

static void run(struct sampler_opts *o, const char *path, uint32_t pid, int ms)
{
	char err[512];
	struct sampler_stats st;
	struct readback rb;
	struct sampler *s;
	uint64_t samples;

	o->event = "cpu-clock";
	o->freq = 999;
	o->callchain = true;
	o->synthesize = true;
	o->tee = perfdata_tee();
	o->tee_arg = (void *)path;
	s = sampler_open(o, err, sizeof(err));
	CHECK(s != NULL);
	if (!s) {
		fprintf(stderr, "sampler_open: %s\n", err);
		return;
	}
	CHECK(sampler_start(s, err, sizeof(err)) == 0);
	samples = drain(s, ms);
	sampler_stop(s);
	samples += drain(s, 0); /* what the thread's last pass queued as it stopped */
	sampler_get_stats(s, &st);
	sampler_free(s);

	CHECK(st.recording);
	CHECK_EQ_U64(st.record_error, 0);
	CHECK(st.record_bytes > 0);
	CHECK(samples > 50);
	CHECK_EQ_U64(st.dropped, 0);
	read_back(path, pid, &rb);
	CHECK_EQ_U64(rb.samples, samples); /* every sample the view got is in the file */
	CHECK(!rb.truncated);
	if (o->target == TARGET_PIDS) {
		/* the process existed before: its synthesized COMM comes before any sample */
		CHECK(rb.comms_of >= 1);
		CHECK(rb.last_comm_idx < rb.first_sample_idx);
	}
}

int main(void)
{
	char dir[] = "/tmp/perftop-rec-XXXXXX", path[PATH_MAX];
	char *argv[] = {"/bin/sh", "-c", "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done", NULL};
	struct sampler_opts o;
	pid_t busy;

	char why[256];
	int v = perfprobe_verdict("task", why, sizeof(why));
	if (v != 0) {
		printf("%s: %s\n", v == 77 ? "SKIP" : "FAIL", why);
		return v;
	}
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/live.data", dir);

	memset(&o, 0, sizeof(o));
	o.target = TARGET_COMMAND;
	o.argv = argv;
	run(&o, path, 0, 30000);

	busy = fork();
	if (busy == 0) {
		volatile unsigned long x = 0;
		for (;;)
			x++;
	}
	int ids[1] = {busy};
	memset(&o, 0, sizeof(o));
	o.target = TARGET_PIDS;
	o.ids = ids;
	o.nids = 1;
	run(&o, path, (uint32_t)busy, 700);
	kill(busy, SIGKILL);
	waitpid(busy, NULL, 0);

	unlink(path);
	snprintf(path + strlen(path), sizeof(path) - strlen(path), ".old");
	unlink(path);
	rmdir(dir);
	return CHECK_DONE();
}
