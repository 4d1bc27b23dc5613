/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mkrec: side-band records made by hand for the tests that feed the symbolizer (test_symbolize,
 * test_procsyms, test_session): an MMAP2 record as the sampler's parser would hand it over, the
 * path in its trailing data.
 */
#ifndef PERFTOP_TESTS_MKREC_H
#define PERFTOP_TESTS_MKREC_H

#include <linux/perf_event.h>
#include <string.h>

#include "record/record.h"
#include "util/util.h"

/* An executable MMAP2 of path at [start, start + len) from file offset pgoff (free() it). */
static inline struct rec *mk_mmap(uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff, unsigned maj,
				  unsigned min, uint64_t ino, const char *path)
{
	size_t plen = strlen(path) + 1;
	size_t size = (sizeof(struct rec) + plen + 7) & ~(size_t)7;
	struct rec *r = xcalloc(1, size);
	r->size = (uint32_t)size;
	r->type = REC_MMAP;
	r->perf_type = PERF_RECORD_MMAP2;
	r->pid = r->tid = pid;
	r->cpu = REC_NO_CPU;
	r->u.mmap = (struct rec_mmap){ .pid = pid, .tid = pid, .start = start, .len = len, .pgoff = pgoff,
				       .maj = maj, .min = min, .ino = ino, .is_mmap2 = 1, .executable = 1,
				       .filename_off = sizeof(struct rec) };
	memcpy((char *)r + sizeof(struct rec), path, plen);
	return r;
}

#endif
