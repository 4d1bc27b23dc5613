/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_sizes: the rings and the queue follow the sampling rate and the size of a sample, not the
 * CPU count alone (sampler_sizes): twice the rate gives (at least) twice the ring, and two events
 * the ring of their summed rate; user stacks give much bigger rings than frame-pointer chains, the queue grows with the CPUs until one consumer's
 * rate, rings stay within their total bound on hundreds of CPUs, and a ring is always a power of two
 * pages. The figures the memory model (docs/performance.md) prints come from here too.
 */
#include <stdio.h>

#include "check.h"
#include "sampler/sampler.h"

static struct sampler_sizes sizes(uint64_t freq, uint64_t period, const char *ev, unsigned dwarf,
				  int ncpus)
{
	struct sampler_opts o = { .freq = freq, .period = period, .event = ev, .callchain = true,
				  .dwarf_stack = dwarf };
	struct sampler_sizes s;
	sampler_sizes(&o, ncpus, 4096, &s);
	return s;
}

static bool pow2(unsigned x)
{
	return x && !(x & (x - 1));
}

int main(void)
{
	struct sampler_sizes fp1k = sizes(999, 0, NULL, 0, 2), fp4k = sizes(4000, 0, NULL, 0, 2);
	struct sampler_sizes fp16k = sizes(16000, 0, NULL, 0, 2), dw1k = sizes(999, 0, NULL, 8192, 2);
	CHECK(pow2(fp1k.ring_pages) && pow2(fp4k.ring_pages) && pow2(dw1k.ring_pages));
	CHECK(fp1k.ring_pages <= 32);                 /* perf's 129 pages per CPU is not needed */
	CHECK(fp4k.ring_pages >= 2 * fp1k.ring_pages);
	CHECK(fp16k.ring_pages >= 2 * fp4k.ring_pages);
	CHECK(dw1k.ring_pages >= 8 * fp1k.ring_pages); /* 8 KiB stack copies */
	CHECK(dw1k.queue_bytes > 4 * fp1k.queue_bytes);
	/* A ring holds about 200 ms of samples at the rate: 999 x 8 KiB x 0.2 s is 1.6 MiB. */
	CHECK((uint64_t)dw1k.ring_pages * 4096 >= 1600000);
	/* -c on a clock is a known rate; on anything else an assumed one. */
	struct sampler_sizes c1ms = sizes(0, 1000000, "cpu-clock", 0, 2);
	struct sampler_sizes c250us = sizes(0, 250000, "cpu-clock", 0, 2);
	CHECK(c250us.ring_pages >= 2 * c1ms.ring_pages);
	/* Several events share the rings: two at -F 4000 take as much as one at 8000. */
	struct sampler_event two[2] = { { .leader = -1 }, { .leader = -1 } };
	two[1].attr.type = two[0].attr.type = PERF_TYPE_SOFTWARE;
	struct sampler_opts o2 = { .freq = 4000, .callchain = true, .events = two, .nevents = 2 };
	struct sampler_sizes both, fp8k = sizes(8000, 0, NULL, 0, 2);
	sampler_sizes(&o2, 2, 4096, &both);
	CHECK(both.ring_pages == fp8k.ring_pages && both.queue_bytes == fp8k.queue_bytes);
	/* Off-CPU: the sched_switch event's ring holds 200 ms of a busy CPU's switches (each a sample
	 * and two context-switch records: 30k/s), not of a tracepoint's assumed 4000 a second. */
	struct sampler_event sw = { .leader = -1 };
	sw.attr.type = PERF_TYPE_TRACEPOINT;
	sw.attr.sample_period = 1;
	struct offcpu_opts oc = { .switch_evidx = 0 };
	struct sampler_opts osw = { .callchain = true, .events = &sw, .nevents = 1 };
	struct sampler_sizes tp, offcpu;
	sampler_sizes(&osw, 2, 4096, &tp);
	osw.offcpu = &oc;
	sampler_sizes(&osw, 2, 4096, &offcpu);
	CHECK(offcpu.ring_pages >= 4 * tp.ring_pages);
	CHECK((uint64_t)offcpu.ring_pages * 4096 >= 30000ull * 320 / 5);
	printf("sched_switch rings: %u KiB as a tracepoint, %u KiB for --off-cpu\n", tp.ring_pages * 4,
	       offcpu.ring_pages * 4);
	/* The queue follows the CPUs (each one's samples) ... */
	struct sampler_sizes fp64 = sizes(999, 0, NULL, 0, 64), fp128 = sizes(999, 0, NULL, 0, 128);
	CHECK(fp64.ring_pages == fp1k.ring_pages);     /* a ring is per CPU: same rate, same ring */
	CHECK(fp128.queue_bytes > fp64.queue_bytes * 3 / 2);
	/* ... up to what one consumer takes: 256 CPUs at 16 kHz is no bigger than at 4 kHz. */
	struct sampler_sizes big4k = sizes(4000, 0, NULL, 0, 256), big16k = sizes(16000, 0, NULL, 0, 256);
	CHECK(big16k.queue_bytes < big4k.queue_bytes * 3 / 2);
	/* All rings of 256 CPUs with user stacks at 4 kHz stay within their bound (256 MiB). */
	struct sampler_sizes dw256 = sizes(4000, 0, NULL, 8192, 256);
	CHECK((uint64_t)dw256.ring_pages * 4096 * 256 <= 256ull << 20);
	/* The default call graph's stack per sample (256 bytes; 512 asked): between the two. */
	struct sampler_opts oh = { .freq = 999, .callchain = true, .head_stack = SAMPLER_HEAD_STACK_DEFAULT };
	struct sampler_sizes cfi1k, cfi1k512;
	sampler_sizes(&oh, 2, 4096, &cfi1k);
	oh.head_stack = 512;
	sampler_sizes(&oh, 2, 4096, &cfi1k512);
	CHECK(cfi1k.ring_pages >= fp1k.ring_pages && cfi1k.ring_pages < dw1k.ring_pages);
	CHECK(cfi1k512.ring_pages > fp1k.ring_pages && cfi1k512.ring_pages < dw1k.ring_pages);
	CHECK(cfi1k.queue_bytes > fp1k.queue_bytes && cfi1k.queue_bytes < dw1k.queue_bytes);
	printf("  2 CPUs at -F 999: fp+cfi rings %u KiB each + queue %zu KiB; fp+cfi,512 rings %u KiB "
	       "each + queue %zu KiB\n", cfi1k.ring_pages * 4, cfi1k.queue_bytes >> 10,
	       cfi1k512.ring_pages * 4, cfi1k512.queue_bytes >> 10);
	int cpus[] = { 2, 64, 128, 256 };
	for (int i = 0; i < 4; i++) {
		struct sampler_sizes f = sizes(999, 0, NULL, 0, cpus[i]), d = sizes(999, 0, NULL, 8192, cpus[i]);
		printf("%3d CPUs at -F 999: fp rings %4u KiB each + queue %6zu KiB; dwarf rings %5u KiB each + "
		       "queue %6zu KiB\n", cpus[i], f.ring_pages * 4, f.queue_bytes >> 10, d.ring_pages * 4,
		       d.queue_bytes >> 10);
	}
	return CHECK_DONE();
}
