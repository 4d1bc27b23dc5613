/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse: perf record bytes + the event's attr configuration -> struct rec.
 *
 * A pure function of its inputs: no I/O, no allocation, no global state, so it can be unit-tested on
 * hand-made byte buffers and fuzzed. The layout of a SAMPLE and of the sample_id trailer of other
 * records depends on attr.sample_type, read_format, sample_regs_user/intr, branch_sample_type and
 * sample_id_all, which parse_cfg carries.
 */
#ifndef PERFTOP_PARSE_H
#define PERFTOP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "record/record.h"

struct parse_cfg {
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t sample_regs_user;
	uint64_t sample_regs_intr;
	uint64_t branch_sample_type;
	bool sample_id_all;
	/* attr.exclude_callchain_user: the callchain has no user part (nor its PERF_CONTEXT_USER) */
	bool exclude_callchain_user;
	bool swapped;  /* the bytes are of the other byte order (a perf.data file from such a machine) */
	uint32_t evidx;
};

void parse_cfg_init(struct parse_cfg *cfg, const struct perf_event_attr *attr, uint32_t evidx);

/*
 * LBR call stacks (branch_sample_type with PERF_SAMPLE_BRANCH_CALL_STACK): the branch stack holds
 * the user part of the chain, innermost call first, and the sample's callchain the kernel part.
 * parse_record gives such a sample the chain they make together, as perf report builds it: the
 * callchain up to and with its PERF_CONTEXT_USER, then the first entry's target (the function
 * running), then each entry's source (the call sites, innermost first); the callchain's own user
 * part (frame-pointer guesses) is dropped. A callchain without a user part takes the branch stack
 * only when the attr excluded it (exclude_callchain_user: then the marker is added) or there is no
 * callchain; otherwise (a kernel thread) it is kept as it is. rec_sample.lbr_chain says it was done.
 *
 * Parses the record at bytes (its perf_event_header included; len is what the caller has, which must
 * cover header.size) into out, which has cap bytes. Returns 0; -EINVAL when the record's sizes do not
 * add up (out is then unspecified); -ENOSPC when cap is too small. A type we do not keep becomes
 * REC_OTHER with the header fields set.
 */
int parse_record(const struct parse_cfg *cfg, const void *bytes, size_t len, struct rec *out,
		 size_t cap);

/*
 * The time parse_record would give the record at bytes (0 when it has none), found without
 * parsing the rest: what a reader needs to order records before it parses them. -EINVAL when the
 * record is too short to hold where its time is; a record that passes may still fail parse_record.
 */
int parse_record_time(const struct parse_cfg *cfg, const void *bytes, size_t len, uint64_t *time);

#endif
