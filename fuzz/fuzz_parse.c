/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_parse: parse_record on arbitrary bytes. The first 48 bytes of the input choose the parse_cfg
 * (sample_type, read_format, the register masks, branch_sample_type, and flags for sample_id_all
 * and the byte order); the rest is the record. Whatever parse_record accepts must describe itself
 * consistently: its size within the output buffer, its trailing data inside that size; and
 * parse_record_time must give its time (and fail only on records parse_record rejects).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/parse.h"

#define CAP (sizeof(struct rec) + 70000)

static void must(int cond)
{
	if (!cond)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static union {
		struct rec r;
		unsigned char b[CAP];
	} out;
	struct parse_cfg cfg;
	uint64_t w[6] = {0};

	if (size < sizeof(w))
		return 0;
	memcpy(w, data, sizeof(w));
	memset(&cfg, 0, sizeof(cfg));
	cfg.sample_type = w[0];
	cfg.read_format = w[1];
	cfg.sample_regs_user = w[2];
	cfg.sample_regs_intr = w[3];
	cfg.branch_sample_type = w[4];
	cfg.sample_id_all = w[5] & 1;
	cfg.swapped = (w[5] >> 1) & 1;
	data += sizeof(w);
	size -= sizeof(w);

	/* a heap copy of exactly the record's bytes, so that ASan sees any read past the end */
	unsigned char *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	uint64_t time;
	int trc = parse_record_time(&cfg, copy, size, &time);
	int rc = parse_record(&cfg, copy, size, &out.r, CAP);
	must(trc == 0 || rc < 0);
	if (rc == 0) {
		const struct rec *r = &out.r;
		must(time == r->time);
		must(r->size >= sizeof(*r) && r->size <= CAP && r->size % 8 == 0);
		if (r->type == REC_SAMPLE) {
			const struct rec_sample *s = &r->u.sample;
			must(!s->callchain_nr || (uint64_t)s->callchain_off + s->callchain_nr * 8ull <= r->size);
			must(!s->regs_user_nr || (uint64_t)s->regs_user_off + s->regs_user_nr * 8ull <= r->size);
			must(!s->stack_user_size ||
			     (uint64_t)s->stack_user_off + s->stack_user_size <= r->size);
		} else if (r->type == REC_MMAP) {
			must(r->u.mmap.filename_off < r->size);
			must(memchr(rec_filename(r), 0, r->size - r->u.mmap.filename_off) != NULL);
		} else if (r->type == REC_COMM) {
			must(memchr(r->u.comm.comm, 0, sizeof(r->u.comm.comm)) != NULL);
		}
	}
	free(copy);
	return 0;
}
