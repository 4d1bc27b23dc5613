/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sampler_thread: the sampler's own thread. Each pass reads every CPU's ring, stages the parsed
 * records per ring, and emits those old enough to be in order (sampler.c's opening comment says
 * why one pass of latency makes the merge right) to the SPSC queue, through the off-CPU pairing
 * in the time modes and into the recording's tee with -o; it also synthesizes the target's
 * processes, reaps the command and notices the target's end. This file is the producer side of
 * the thread boundary: the main thread sees only the queue, the wake descriptor and the atomic
 * counters, and starts and stops the thread here.
 */
#include "sampler/sampler_int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sampler/synth.h"
#include "util/util.h"

/* The event a ring record is of: its sample id is the first word of a sample and the last of any
 * other record (PERF_SAMPLE_IDENTIFIER, sample_id_all). 0 for an id we do not know. */
static uint32_t sampler_record_event(const struct sampler *s, const struct perf_event_header *h)
{
	const struct sampler_idmap *m = &s->idmap;
	uint64_t id;
	if (h->size < sizeof(*h) + 8)
		return 0;
	memcpy(&id, (const unsigned char *)h + (h->type == PERF_RECORD_SAMPLE ? sizeof(*h)
									     : h->size - 8u), 8);
	size_t j = (size_t)(id * 0x9E3779B97F4A7C15ull) & (m->cap - 1);
	while (m->keys[j]) {
		if (m->keys[j] == id)
			return m->vals[j];
		j = (j + 1) & (m->cap - 1);
	}
	return 0;
}

/* A record to the queue: one the thread read, or a block the pairing made of them. */
static void emit_out(void *ctx, const struct rec *r)
{
	struct sampler *s = ctx;
	if (r->time) {
		if (r->time < s->last_time)
			stat_add(&s->st_out_of_order, 1);
		else
			s->last_time = r->time;
	}
	if (queue_push(s->q, r, r->size) != 0)
		return;   /* counted by the queue */
	s->pushed++;
	stat_add(&s->st_records, 1);
	if (r->type == REC_SAMPLE) {
		stat_add(&s->st_samples, 1);
		if (s->nev > 1 && r->evidx < (uint32_t)s->nev)
			stat_add(&s->ev[r->evidx].samples, 1);
	}
}

static void emit(struct sampler *s, const struct rec *r)
{
	if (s->pw)
		s->tee->note(s->pw, r);
	if (s->offcpu)
		offcpu_feed(s->offcpu, r, emit_out, s);
	else
		emit_out(s, r);
}

/* The end of a pass: blocks still open count up to limit (the time up to which records were
 * emitted), and the pairing's counts are published. */
static void offcpu_pass(struct sampler *s, uint64_t limit)
{
	if (!s->offcpu)
		return;
	if (limit != UINT64_MAX)
		offcpu_flush(s->offcpu, limit, emit_out, s);
	pthread_mutex_lock(&s->offcpu_lock);
	offcpu_get_stats(s->offcpu, &s->offcpu_stats);
	pthread_mutex_unlock(&s->offcpu_lock);
}

static int emit_synth(void *ctx, const struct rec *r)
{
	struct sampler *s = ctx;
	if (s->pw)
		s->tee->add_rec(s->pw, r);
	emit(s, r);
	return atomic_load_explicit(&s->stop, memory_order_relaxed);
}

/* Moves the live records of r's arena down to its start. */
static void arena_compact(struct sampler_ring *r)
{
	size_t head = r->arena_head;
	memmove(r->arena, r->arena + head, r->arena_len - head);
	r->arena_len -= head;
	r->arena_head = 0;
	for (size_t j = r->idx_pos; j < r->nidx; j++)
		r->idx[j].off -= (uint32_t)head;
}

/* Parses one ring record into the ring's staging area, its index kept in time order. */
static void stage(struct sampler *s, struct sampler_ring *r, const struct perf_event_header *h)
{
	size_t cap = sizeof(struct rec) + h->size + 16;
	struct rec *rec;
	size_t i;

	/* Room made by dropping the dead bytes before the arena grows. */
	if (r->arena_len + cap > r->arena_cap && r->arena_head)
		arena_compact(r);
	xgrow((void **)&r->arena, &r->arena_cap, r->arena_len + cap, 1);
	rec = (struct rec *)(r->arena + r->arena_len);
	const struct sampler_ev *ev = &s->ev[s->nev > 1 ? sampler_record_event(s, h) : 0];
	if (parse_record(&ev->cfg, h, h->size, rec, cap) != 0) {
		stat_add(&s->st_bad, 1);
		return;
	}
	if (rec->type == REC_SAMPLE && !(ev->attr.sample_type & PERF_SAMPLE_PERIOD))
		rec->u.sample.period = ev->attr.sample_period;
	if (s->pw)
		s->tee->add_raw(s->pw, h, h->size);
	switch (rec->type) {
	case REC_LOST:
	case REC_LOST_SAMPLES:
		stat_add(&s->st_lost, rec->u.lost.lost);
		break;
	case REC_THROTTLE:
		stat_add(&s->st_throttled, 1);
		break;
	default:
		break;
	}
	xgrow((void **)&r->idx, &r->idx_cap, r->nidx + 1, sizeof(*r->idx));
	/* A ring is nearly always in order already, so this insertion is usually a no-op. */
	for (i = r->nidx; i > r->idx_pos && r->idx[i - 1].time > rec->time; i--)
		r->idx[i] = r->idx[i - 1];
	r->idx[i].time = rec->time;
	r->idx[i].off = (uint32_t)r->arena_len;
	r->idx[i].size = rec->size;
	r->nidx++;
	r->arena_len += rec->size;
}

static void read_rings(struct sampler *s)
{
	for (int i = 0; i < s->nrings; i++) {
		struct sampler_ring *r = &s->rings[i];
		const struct perf_event_header *h;
		uint64_t ov, bad;

		if (!r->ring_ok)
			continue;
		ov = r->ring.overruns;
		bad = r->ring.bad_records;
		if (ring_read_begin(&r->ring) == 0) {
			ring_read_end(&r->ring);
		} else {
			while ((h = ring_next(&r->ring)) != NULL)
				stage(s, r, h);
			ring_read_end(&r->ring);
		}
		stat_add(&s->st_overruns, r->ring.overruns - ov);
		stat_add(&s->st_bad, r->ring.bad_records - bad);
	}
}

/* Emits every staged record with time <= limit, merged across rings, then compacts the rings. */
static void emit_upto(struct sampler *s, uint64_t limit)
{
	for (;;) {
		struct sampler_ring *best = NULL;
		for (int i = 0; i < s->nrings; i++) {
			struct sampler_ring *r = &s->rings[i];
			if (r->idx_pos < r->nidx &&
			    (!best || r->idx[r->idx_pos].time < best->idx[best->idx_pos].time))
				best = r;
		}
		if (!best || best->idx[best->idx_pos].time > limit)
			break;
		emit(s, (const struct rec *)(best->arena + best->idx[best->idx_pos].off));
		best->idx_pos++;
	}
	for (int i = 0; i < s->nrings; i++) {
		struct sampler_ring *r = &s->rings[i];
		size_t keep = r->nidx - r->idx_pos, first;
		if (r->idx_pos == 0)
			continue;
		if (keep == 0) {
			r->nidx = r->idx_pos = 0;
			r->arena_len = r->arena_head = 0;
			continue;
		}
		/* Records are in the arena in arrival order, which may differ from the index order:
		 * keep everything from the lowest offset still referenced. */
		first = r->idx[r->idx_pos].off;
		for (size_t j = r->idx_pos; j < r->nidx; j++)
			if (r->idx[j].off < first)
				first = r->idx[j].off;
		memmove(r->idx, r->idx + r->idx_pos, keep * sizeof(*r->idx));
		r->nidx = keep;
		r->idx_pos = 0;
		r->arena_head = first;
		if ((r->arena_len - first) * SAMPLER_ARENA_DEAD <= first)
			arena_compact(r);
	}
}

static bool staged_too_much(const struct sampler *s)
{
	for (int i = 0; i < s->nrings; i++)
		if (s->rings[i].arena_len - s->rings[i].arena_head > SAMPLER_STAGE_MAX)
			return true;
	return false;
}

static void synthesize(struct sampler *s)
{
	int truncated = 0;

	/* The cgroups first: a process's samples name them. */
	synth_cgroups_emit(s->synth_cgroups, emit_synth, s);
	if (!s->synthesize)
		return;
	switch (s->target) {
	case TARGET_SYSTEM:
	case TARGET_CPUS:
		synth_all(now_ns() + SAMPLER_SYNTH_NS, &truncated, emit_synth, s);
		atomic_store(&s->st_synth_truncated, truncated != 0);
		break;
	case TARGET_PIDS:
		for (int i = 0; i < s->nids; i++)
			synth_process((uint32_t)s->ids[i], emit_synth, s);
		break;
	case TARGET_TIDS:
		for (int i = 0; i < s->nids; i++) {
			char path[64], buf[2048], *p;
			long tgid = s->ids[i];
			snprintf(path, sizeof(path), "/proc/%d/status", s->ids[i]);
			if (read_small_file(path, buf, sizeof(buf)) > 0 && (p = strstr(buf, "\nTgid:")))
				tgid = strtol(p + 6, NULL, 10);
			synth_process((uint32_t)tgid, emit_synth, s);
		}
		break;
	case TARGET_COMMAND:
		break;   /* it has not exec'd yet: the kernel reports all of it */
	}
}

/* Writes what this pass read to the recording; on error the writer stops itself for good. */
static void record_pass(struct sampler *s, bool round, bool sync)
{
	if (!s->pw)
		return;
	int e = s->tee->end_pass(s->pw, round, sync);
	atomic_store_explicit(&s->st_rec_bytes, s->tee->bytes(s->pw), memory_order_relaxed);
	atomic_store_explicit(&s->st_rec_write_ns, s->tee->write_ns(s->pw), memory_order_relaxed);
	if (e)
		atomic_store(&s->st_rec_err, e);
}

/* Whether the target is gone; polled once per pass. */
static bool target_gone(struct sampler *s)
{
	switch (s->target) {
	case TARGET_COMMAND: {
		int status;
		if (command_exited(&s->cmd, &status)) {
			atomic_store(&s->st_exit_status, status);
			return true;
		}
		return false;
	}
	case TARGET_PIDS:
	case TARGET_TIDS: {
		bool all_hup = true, all_gone = true;
		for (size_t i = 0; i < s->nfds && all_hup; i++)
			all_hup = s->fds[i].hup;
		if (all_hup)
			return true;
		for (int i = 0; i < s->nids && all_gone; i++)
			all_gone = kill(s->ids[i], 0) != 0 && errno == ESRCH;
		return all_gone;
	}
	default:
		return false;
	}
}

/* Tells the consumer there is something to take (or that the thread is done). */
static void wake_consumer(struct sampler *s)
{
	uint64_t one = 1;
	if (s->wake_fd < 0 || atomic_exchange(&s->wake_pending, true))
		return;  /* the consumer has not cleared the last one: it will drain anyway */
	if (write(s->wake_fd, &one, sizeof(one)) < 0)
		return;  /* EAGAIN: the counter is saturated, the consumer is awake anyway */
}

static void *sampler_thread(void *arg)
{
	struct sampler *s = arg;
	uint64_t prev;
	int poll_ms = SAMPLER_FIRST_POLL_MS;

	synthesize(s);
	/* The kernel map and the processes at start: on disk with a valid header before any sample. */
	record_pass(s, false, true);
	wake_consumer(s);
	prev = now_ns();
	const uint64_t first_until = prev + SAMPLER_FIRST_NS;
	while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		nfds_t n = 0;
		uint64_t start;

		for (size_t i = 0; i < s->nfds; i++) {
			if (s->fds[i].hup)
				continue;
			s->pfds[n].fd = s->fds[i].fd;
			s->pfds[n].events = POLLIN;
			s->pfds[n].revents = 0;
			n++;
		}
		if (n > 0) {
			if (poll(s->pfds, n, poll_ms) > 0) {
				/* pfds are in fds order, minus the fds already hung up. */
				nfds_t k = 0;
				for (size_t i = 0; i < s->nfds && k < n; i++) {
					if (s->fds[i].hup)
						continue;
					if (s->pfds[k].revents & (POLLHUP | POLLERR))
						s->fds[i].hup = true;
					k++;
				}
			}
		} else {
			struct timespec ts = { 0, poll_ms * 1000000L };
			nanosleep(&ts, NULL);
		}
		start = now_ns();
		s->pushed = 0;
		read_rings(s);
		emit_upto(s, staged_too_much(s) ? UINT64_MAX : prev);
		offcpu_pass(s, prev);
		record_pass(s, true, false);
		prev = start;
		/* Idle: wait longer each time (staged records still wait for the next pass to order
		 * them, so a pass that staged some keeps the short wait). */
		bool staged = false;
		for (int i = 0; i < s->nrings && !staged; i++)
			staged = s->rings[i].idx_pos < s->rings[i].nidx;
		if (s->pushed || staged) {
			poll_ms = start < first_until ? SAMPLER_FIRST_POLL_MS : SAMPLER_POLL_MS;
			if (s->pushed)
				wake_consumer(s);
		} else if (poll_ms < SAMPLER_IDLE_POLL_MS) {
			poll_ms = poll_ms * 2 < SAMPLER_IDLE_POLL_MS ? poll_ms * 2 : SAMPLER_IDLE_POLL_MS;
		}
		if (target_gone(s)) {
			read_rings(s);
			emit_upto(s, UINT64_MAX);
			offcpu_pass(s, UINT64_MAX);
			record_pass(s, true, true);
			atomic_store(&s->st_exited, true);
			wake_consumer(s);
			return NULL;
		}
	}
	read_rings(s);
	emit_upto(s, UINT64_MAX);
	offcpu_pass(s, UINT64_MAX);
	record_pass(s, true, true);
	return NULL;
}

int sampler_start(struct sampler *s, char *err, size_t errlen)
{
	int e;

	seterr(err, errlen, "%s", "");
	if (s->thread_started || s->stopped)
		return -EINVAL;
	if (s->target == TARGET_COMMAND) {
		e = command_release(&s->cmd);
		if (e) {
			seterr(err, errlen, "cannot run '%s': %s", s->cmd_name, strerror(e));
			return -e;
		}
	} else {
		for (size_t i = 0; i < s->nfds; i++) {
			if (s->ev[s->fds[i].ev].leader < 0 &&
			    ioctl(s->fds[i].fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
				e = errno;
				seterr(err, errlen, "cannot enable event '%s': %s",
				       s->ev[s->fds[i].ev].name, strerror(e));
				return -e;
			}
		}
		counters_enable(s->counters);
	}
	e = pthread_create(&s->thread, NULL, sampler_thread, s);
	if (e) {
		seterr(err, errlen, "cannot start the sampler thread: %s", strerror(e));
		return -e;
	}
	s->thread_started = true;
	return 0;
}

void sampler_stop(struct sampler *s)
{
	if (!s || s->stopped)
		return;
	s->stopped = true;
	atomic_store(&s->stop, true);
	if (s->thread_started)
		pthread_join(s->thread, NULL);
	s->thread_started = false;
	command_reap(&s->cmd);
	for (size_t i = 0; i < s->nfds; i++)
		close(s->fds[i].fd);
	s->nfds = 0;
	for (int i = 0; i < s->nrings; i++) {
		struct sampler_ring *r = &s->rings[i];
		if (r->ring_ok)
			ring_done(&r->ring);
		if (r->map)
			munmap(r->map, r->map_len);
		r->map = NULL;
		r->ring_ok = false;
	}
	command_close(&s->cmd);
	if (s->pw) {
		/* The thread is gone: the writer is ours now. Features and the final header. */
		char msg[512];
		int e = s->tee->close(s->pw, msg, sizeof(msg));
		s->pw = NULL;
		if (e && !atomic_load(&s->st_rec_err)) {
			atomic_store(&s->st_rec_err, e);
			if (msg[0])
				warn_msg("%s", msg);
		}
	}
}
