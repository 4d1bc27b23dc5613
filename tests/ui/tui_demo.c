/*
 * tui_demo: the live view with a fake source, for terminal tests (tmux) and for looking at it.
 * About 30 made-up functions whose weights drift at every refresh; header figures that move.
 *
 *   tui_demo [-d SECS] [-s KEYS] [--exit-after SECS] [--die-after SECS] [--warn]
 *
 * --exit-after marks the target as exited (the notice line), --die-after calls die() from inside
 * the loop (the terminal must still be restored), --warn sends a warning through warn_msg.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/profile.h"
#include "model/snapshot.h"
#include "ui/tui.h"
#include "util/util.h"

#define NFUNCS 30

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

static void demo_poll(void *ctx)
{
	struct demo *d = ctx;
	if (d->warn && !d->warned) {
		d->warned = true;
		warn_msg("this is a warning from the demo source");
	}
	if (d->die_after > 0 && elapsed(d) >= d->die_after)
		die("demo: dying on purpose after %.1fs", d->die_after);
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

int main(int argc, char **argv)
{
	struct demo d = { .start_ns = now_ns(), .rng = 88172645463325252ull };
	struct tui_source src = { .ctx = &d, .poll = demo_poll, .refresh = demo_refresh,
				  .header = demo_header, .refresh_secs = 1.0 };
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
		else {
			fprintf(stderr, "usage: %s [-d SECS] [-s KEYS] [-z] [--exit-after SECS] "
					"[--die-after SECS] [--warn]\n", argv[0]);
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
	return tui_run(&src);
}
