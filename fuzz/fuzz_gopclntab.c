/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_gopclntab: the Go function table parser (src/symbolize/gopclntab.c) on a binary image in
 * memory. The input's first 24 bytes place things in the rest, the image's file: the .gopclntab
 * section's offset and size, the data searched for moduledata, and a relocation (a PIE's pointer).
 * The whole file is loaded at one address. Everything a session asks of a table is asked: every
 * function, and the frames and stack deltas of addresses in and around each. Answers must be in
 * range; reads are ASan's to judge.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/gopclntab.h"

#define VBASE 0x400000u

static void must(int cond)
{
	if (!cond)
		abort();
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void lookups(const struct gopcln *t, uint64_t pc)
{
	struct gopcln_frame f[GOPCLN_MAX_DEPTH];
	int n = gopcln_frames(t, pc, f, GOPCLN_MAX_DEPTH);
	must(n >= 0 && n <= GOPCLN_MAX_DEPTH);
	for (int i = 0; i < n; i++)
		must(f[i].name && strlen(f[i].name) < 4096 && (!f[i].file || strlen(f[i].file) < 4096) &&
		     f[i].inlined == (i < n - 1));
	int32_t delta;
	unsigned flags;
	if (gopcln_spdelta(t, pc, &delta, &flags))
		must(delta >= 0);
	must(gopcln_frames(t, pc, f, 1) <= 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 24)
		return 0;
	uint64_t rel_off = VBASE + le32(data + 16), rel_val = le32(data + 20);
	struct gopcln_seg seg = { VBASE, 0, size - 24 };
	struct gopcln_image img = {
		.file = data + 24, .size = size - 24, .segs = &seg, .nsegs = 1,
		.rel_off = &rel_off, .rel_val = &rel_val, .nrels = rel_val ? 1 : 0,
		.pcln_vaddr = VBASE + le32(data), .pcln_off = le32(data), .pcln_size = le32(data + 4),
		.data_vaddr = VBASE + le32(data + 8), .data_size = le32(data + 12), .text_vaddr = 0x401000,
	};
	char why[128];
	struct gopcln *t = gopcln_open(&img, why, sizeof(why));
	if (!t) {
		must(why[0] != '\0');
		return 0;
	}
	size_t n = gopcln_count(t);
	for (size_t i = 0; i < n && i < 64; i++) {
		uint64_t entry, end;
		const char *name;
		if (!gopcln_func(t, i, &entry, &end, &name))
			continue;
		must(end > entry && strlen(name) < 4096);
		for (uint64_t pc = entry; pc < end && pc - entry < 96; pc++)
			lookups(t, pc);
		lookups(t, end);
	}
	lookups(t, 0);
	lookups(t, UINT64_MAX);
	gopcln_free(t);
	return 0;
}
