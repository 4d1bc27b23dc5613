/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tui_demo: the live view with a fake source, for terminal tests (tmux) and for looking at it.
 * About 30 made-up functions whose weights drift at every refresh; header figures that move.
 *
 *   tui_demo [-d SECS] [-s KEYS] [--exit-after SECS] [--die-after SECS] [--warn] [--replay]
 *
 * --exit-after marks the target as exited (the notice line), --die-after calls die() from inside
 * the loop (the terminal must still be restored), --warn sends a warning through warn_msg.
 * --replay plays a made-up recording instead: 60 s of recorded time whose samples per second rise,
 * burst and stop for a while (so the sparkline has a shape), a position that moves with the speed
 * and the pause the keys set, and a header for the i view.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/profile.h"
#include "model/snapshot.h"
#include "ui/tui.h"
#include "util/util.h"

#define NFUNCS 30
#define DEMO_SECS 60
#define DEMO_MAX_SPEED 50.0 /* what "as fast as it can go" is for the demo */

struct demo {
	uint64_t start_ns;
	uint64_t rng;
	double weight[NFUNCS];
	enum sort_key keys[PROFILE_MAX_KEYS];
	int nkeys;
	double exit_after, die_after;
	bool warn, warned;
	uint64_t refreshes;
	double rate;

	/* --replay */
	bool replay;
	double pos, speed, range_start, range_end;
	bool paused;
	uint64_t last_ns;
	uint64_t hist[DEMO_SECS];
};

static const char *const syms[NFUNCS] = {
	"compute_checksum", "main", "__memmove_avx_unaligned_erms", "do_syscall_64", "hash_lookup",
	"parse_record", "std::vector<int>::push_back", "_int_malloc", "cfree", "PyEval_EvalFrameDefault",
	"render_row", "inflate_fast", "deflate_slow", "__strlen_avx2", "copy_user_enhanced_fast_string",
	"tcp_sendmsg", "page_fault", "read_tsc", "json_escape", "sort_rows", "btree_insert",
	"lz4_decompress", "sha256_block", "crc32c_intel", "mutex_lock", "futex_wait", "poll_idle",
	"native_write_msr", "memcpy_erms", "finish_task_switch",
};
static const char *const dsos[] = { "demo", "libc.so.6", "libz.so.1", "[kernel.kallsyms]",
				     "libpython3.11.so" };
static const char *const comms[] = { "demo", "worker-1", "worker-2" };

static uint64_t next_rand(struct demo *d)
{
	d->rng ^= d->rng << 13;
	d->rng ^= d->rng >> 7;
	d->rng ^= d->rng << 17;
	return d->rng;
}

static double elapsed(const struct demo *d)
{
	return (double)(now_ns() - d->start_ns) / 1e9;
}

/* Recorded time moves with wall time times the speed, unless paused or at the end. */
static void replay_advance(struct demo *d)
{
	uint64_t t = now_ns();
	double dt = (double)(t - d->last_ns) / 1e9;
	d->last_ns = t;
	if (d->paused)
		return;
	d->pos += dt * (d->speed == TUI_SPEED_MAX ? DEMO_MAX_SPEED : d->speed);
	if (d->pos > DEMO_SECS)
		d->pos = DEMO_SECS;
}

static long demo_poll(void *ctx)
{
	struct demo *d = ctx;
	long flowing = !d->paused; /* the demo's data "flows" unless paused: the view ticks */
	if (d->replay)
		replay_advance(d);
	if (d->warn && !d->warned) {
		d->warned = true;
		warn_msg("this is a warning from the demo source");
	}
	if (d->die_after > 0 && elapsed(d) >= d->die_after)
		die("demo: dying on purpose after %.1fs", d->die_after);
	return flowing;
}

static struct snapshot *demo_refresh(void *ctx, enum snap_col order, bool zero)
{
	struct demo *d = ctx;
	(void)zero;
	d->refreshes++;
	struct snapshot *s = xcalloc(1, sizeof(*s));
	s->rows = xcalloc(NFUNCS, sizeof(*s->rows));
	s->nrows = NFUNCS;
	double sum = 0;
	for (int i = 0; i < NFUNCS; i++) {
		/* A drift of +-20% keeps the order mostly stable but moving. */
		d->weight[i] *= 0.8 + (double)(next_rand(d) % 400) / 1000.0;
		sum += d->weight[i];
	}
	uint64_t total = 1000000;
	for (int i = 0; i < NFUNCS; i++) {
		struct snap_row *r = &s->rows[i];
		r->id = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
		r->sym = syms[i];
		r->dso = i == 3 || i == 14 || i == 15 || i == 16 || i > 24 ? dsos[3] : dsos[i % 3];
		r->comm = comms[i % 3];
		r->pid = 4242;
		r->tid = 4242 + (uint32_t)(i % 3);
		r->srcline = "demo.c:42";
		r->self_period = (uint64_t)(d->weight[i] / sum * (double)total);
		r->total_period = r->self_period + (uint64_t)((NFUNCS - i) * 3000);
		if (i == 1)
			r->total_period = total; /* main is on every stack */
		r->self_pct = 100.0 * (double)r->self_period / (double)total;
		r->total_pct = 100.0 * (double)r->total_period / (double)total;
		r->samples = r->self_period / 250;
	}
	s->total_period = total;
	s->window_samples = 4000;
	s->held_samples = 4000;
	memcpy(s->keys, d->keys, sizeof(d->keys));
	s->nkeys = d->nkeys;
	snapshot_sort(s, order);
	d->rate = 3990 + (double)(next_rand(d) % 20);
	return s;
}

static void demo_header(void *ctx, struct view_header *h)
{
	struct demo *d = ctx;
	double t = elapsed(d);
	if (d->replay) {
		size_t sec = d->pos >= DEMO_SECS ? DEMO_SECS - 1 : (size_t)d->pos;
		h->target = "perf.data: demo.data (python3 -c busy())";
		h->event = "cpu-clock";
		h->freq = 4000;
		h->samples_per_sec = (double)d->hist[sec];
		h->elapsed = d->pos;
		return;
	}
	h->target = "command: python3 -c busy()";
	h->event = "cpu-clock";
	h->freq = 4000;
	h->samples_per_sec = d->rate;
	h->lost = 0;
	h->dropped = 0;
	h->elapsed = t;
	if (d->exit_after > 0 && t >= d->exit_after) {
		h->target_exited = true;
		h->exit_text = "python3 exited with status 0";
	}
}

/* --- the fake replay --- */

static double r_duration(void *ctx)
{
	(void)ctx;
	return DEMO_SECS;
}

static double r_position(void *ctx)
{
	return ((struct demo *)ctx)->pos;
}

static const uint64_t *r_histogram(void *ctx, size_t *n)
{
	*n = DEMO_SECS;
	return ((struct demo *)ctx)->hist;
}

static void r_set_paused(void *ctx, bool paused)
{
	struct demo *d = ctx;
	replay_advance(d); /* up to now at the old setting */
	d->paused = paused;
}

static void r_set_speed(void *ctx, double speed)
{
	struct demo *d = ctx;
	replay_advance(d);
	d->speed = speed;
}

static void r_seek(void *ctx, double secs)
{
	struct demo *d = ctx;
	replay_advance(d);
	d->pos = secs;
}

static void r_set_range(void *ctx, double start, double end)
{
	struct demo *d = ctx;
	d->range_start = start;
	d->range_end = end;
}

static const struct tui_replay demo_replay = {
	.duration = r_duration, .position = r_position, .histogram = r_histogram,
	.set_paused = r_set_paused, .set_speed = r_set_speed, .seek = r_seek,
	.set_range = r_set_range,
};

static const char *const replay_info[] = {
	"captured on: Tue Mar 12 10:41:07 2024",
	"header version: 1",
	"data offset: 1096",
	"data size: 8812544",
	"hostname: build-7",
	"os release: 6.1.0-18-amd64",
	"perf version: 6.1.76",
	"arch: x86_64",
	"nrcpus online: 8",
	"nrcpus avail: 8",
	"cpudesc: Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz",
	"cpuid: GenuineIntel,6,142,10",
	"total memory: 16166400 kB",
	"cmdline: /usr/bin/perf record -F 4000 -g -o demo.data -- python3 -c busy()",
	"event: cpu-clock, freq 4000, sample_type IP|TID|TIME|CALLCHAIN|PERIOD",
	"sibling sockets: 0-7",
	"sibling dies: 0-7",
	"sibling threads: 0,4",
	" 1,5",
	" 2,6",
	" 3,7",
	"CPU 0: Core ID 0, Die ID 0, Socket ID 0",
	"CPU 1: Core ID 1, Die ID 0, Socket ID 0",
	"CPU 2: Core ID 2, Die ID 0, Socket ID 0",
	"CPU 3: Core ID 3, Die ID 0, Socket ID 0",
	"node0 meminfo: total = 16166400 kB, free = 9318212 kB",
	"node0 cpu list: 0-7",
	"pmu mappings: cpu = 4, breakpoint = 5, tracepoint = 2, software = 1, msr = 9",
	"group: (none)",
	"build-id: 4f0b8b5f7c2e1a9d3b6c8e0f1a2b3c4d5e6f7a8b /usr/bin/python3.11",
	"build-id: 0c1d2e3f405162738495a6b7c8d9eaf0b1c2d3e4 /usr/lib/x86_64-linux-gnu/libc.so.6",
	"build-id: 9a8b7c6d5e4f30211203948576a5b4c3d2e1f0a9 [kernel.kallsyms]",
};

static const char *const live_info[] = {
	"session: live (no recording)",
	"target: command: python3 -c busy()",
	"event: cpu-clock @ 4000 Hz",
	"hostname: demo-host",
};

static const char *const *demo_info(void *ctx, size_t *n)
{
	struct demo *d = ctx;
	*n = d->replay ? ARRAY_SIZE(replay_info) : ARRAY_SIZE(live_info);
	return d->replay ? replay_info : live_info;
}

/* Samples per second with a shape one can recognise: a rise, a plateau, a burst, a stretch where
 * the program waited (nothing), and a wobbling tail. */
static void make_hist(struct demo *d)
{
	for (int i = 0; i < DEMO_SECS; i++) {
		uint64_t v;
		if (i < 15)
			v = 800 + 150 * (uint64_t)i;
		else if (i < 30)
			v = 3000 - 40 * (uint64_t)(i - 15);
		else if (i < 36)
			v = 4000;
		else if (i < 42)
			v = 0;
		else
			v = 1500 + 500 * (uint64_t)(i % 4);
		d->hist[i] = v;
	}
}

int main(int argc, char **argv)
{
	struct demo d = { .start_ns = now_ns(), .rng = 88172645463325252ull };
	struct tui_source src = { .ctx = &d, .poll = demo_poll, .wake_fd = -1, .refresh = demo_refresh,
				  .header = demo_header, .refresh_secs = 1.0, .info = demo_info };
	const char *keys = "dso,sym";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-d") && val)
			src.refresh_secs = atof(argv[++i]);
		else if (!strcmp(a, "-s") && val)
			keys = argv[++i];
		else if (!strcmp(a, "-z"))
			src.zero = true;
		else if (!strcmp(a, "--exit-after") && val)
			d.exit_after = atof(argv[++i]);
		else if (!strcmp(a, "--die-after") && val)
			d.die_after = atof(argv[++i]);
		else if (!strcmp(a, "--warn"))
			d.warn = true;
		else if (!strcmp(a, "--replay"))
			d.replay = true;
		else {
			fprintf(stderr, "usage: %s [-d SECS] [-s KEYS] [-z] [--exit-after SECS] "
					"[--die-after SECS] [--warn] [--replay]\n", argv[0]);
			return 2;
		}
	}
	char err[128];
	d.nkeys = sort_keys_parse(keys, d.keys, PROFILE_MAX_KEYS, err, sizeof(err));
	if (d.nkeys < 0) {
		fprintf(stderr, "tui_demo: %s\n", err);
		return 2;
	}
	for (int i = 0; i < NFUNCS; i++)
		d.weight[i] = 1000.0 / (double)(i + 1);
	if (d.replay) {
		make_hist(&d);
		d.speed = 1.0;
		d.range_start = d.range_end = TUI_RANGE_NONE;
		d.last_ns = now_ns();
		src.replay = &demo_replay;
	}
	return tui_run(&src);
}
