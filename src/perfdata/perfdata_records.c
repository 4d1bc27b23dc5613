/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_records: one perf record at a time, from the data or from the zstd stream of COMPRESSED
 * records: kernel records go to the time order (perfdata_order.c), perf's own user records (attrs
 * and features in pipe mode, rounds, payload-carrying AUXTRACE and TRACING_DATA) are handled here.
 * Reading stops at a record that cannot be right and says where; the records read up to there
 * still come out. Then the records out, in time order (perfdata_next and its kin).
 */
#include "perfdata/perfdata_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "perfdata/format.h"
#include "util/util.h"

/* The reason reading stops at the current offset, as the one-line warning. */
static void stop_cut_short(struct perfdata_reader *r)
{
	uint64_t at = pd_in_offset(r);
	r->stats.truncated = true;
	r->stats.bytes_recovered = at > r->data_start ? at - r->data_start : 0;
	pd_set_warning(r, "the recording was cut short at byte %" PRIu64 "; read %" PRIu64 " records (%"
		    PRIu64 " bytes of data)", at, r->raw_records, r->stats.bytes_recovered);
}

static void stop_bad(struct perfdata_reader *r, const char *what, uint64_t size)
{
	uint64_t at = pd_in_offset(r);
	r->stats.bytes_recovered = at > r->data_start ? at - r->data_start : 0;
	pd_set_warning(r, "%s at byte %" PRIu64 " (size %" PRIu64 "): reading stopped there; read %" PRIu64
		    " records", what, at, size, r->raw_records);
}

static void handle_record(struct perfdata_reader *r, const unsigned char *p, size_t size, bool from_z);

/*
 * Reads one record from the data (a user record is handled here, a kernel record goes to the time
 * order). Returns 1 when a record was handled, 0 at the end of the data (or where reading stops).
 */
int pd_raw_pump(struct perfdata_reader *r)
{
	const unsigned char *zp;
	size_t zsize;
	if (r->zd && pd_z_next(r, &zp, &zsize)) {
		handle_record(r, zp, zsize, true);
		return 1;
	}
	pd_in_release(r);
	size_t have = pd_in_fill(r, 8);
	if (have < 8) {
		if (have > 0 || r->header_unfinished ||
		    (r->data_end != UINT64_MAX && pd_in_offset(r) < r->data_end))
			stop_cut_short(r);
		else
			r->stats.bytes_recovered = pd_in_offset(r) - r->data_start;
		return 0;
	}
	const unsigned char *p = r->buf + r->bpos;
	uint16_t size = rec_size_at(r, p);
	if (size < 8) {
		stop_bad(r, "a record of impossible size", size);
		return 0;
	}
	if (r->data_end != UINT64_MAX && size > r->data_end - pd_in_offset(r)) {
		stop_bad(r, "a record that goes past the end of the data", size);
		return 0;
	}
	have = pd_in_fill(r, size);
	p = r->buf + r->bpos;
	if (have < size) {
		stop_cut_short(r);
		return 0;
	}
	r->bpos += size;
	r->raw_records++;
	handle_record(r, p, size, false);
	return 1;
}

/* HEADER_ATTR (pipe mode): the attr (its own size field says how long), then ids to the end. */
static void handle_attr(struct perfdata_reader *r, const unsigned char *p, size_t size)
{
	if (r->attrs_frozen || size < 8 + 8)
		return;
	uint32_t asz = ld32(r, p + 8 + 4);
	if (asz == 0)
		asz = PERF_ATTR_SIZE_VER0;
	if (asz < PERF_ATTR_SIZE_VER0 || asz > size - 8) {
		pd_count_bad(r, PD_HEADER_ATTR);
		return;
	}
	struct perf_event_attr a;
	pd_attr_load(r, p + 8, asz, &a);
	if (pd_event_add(r, &a, p + 8 + asz, (size - 8 - asz) / 8) < 0)
		pd_count_bad(r, PD_HEADER_ATTR);
}

static void handle_compressed(struct perfdata_reader *r, uint32_t type, const unsigned char *p,
			      size_t size, bool from_z)
{
	if (from_z) {
		pd_count_bad(r, type); /* compressed inside compressed: not something perf writes */
		return;
	}
	if (type == PD_COMPRESSED2) {
		if (size < 16)
			return;
		uint64_t dsz = ld64(r, p + 8);
		pd_z_load(r, p + 16, dsz < size - 16 ? (size_t)dsz : size - 16);
	} else {
		pd_z_load(r, p + 8, size - 8);
	}
}

/* HEADER_TRACING_DATA: u32 size; the tracing data itself follows the record, padded to 8. As in a
 * file's TRACING_DATA feature, its event formats come before its (big) kallsyms: a prefix of it
 * gives sched_switch's. */
static void handle_tracing_data(struct perfdata_reader *r, const unsigned char *p, size_t size,
				bool from_z)
{
	if (size < 12 || from_z)
		return;
	uint64_t n = ((uint64_t)ld32(r, p + 8) + 7) & ~(uint64_t)7;
	size_t prefix = n < PD_TRACING_PREFIX ? (size_t)n : PD_TRACING_PREFIX;
	if (!r->attrs_frozen && pd_in_fill(r, prefix) >= prefix)
		pd_feature_read(r, FEAT_TRACING_DATA, r->buf + r->bpos, prefix);
	if (!pd_in_skip(r, n))
		stop_cut_short(r);
}

/* AUXTRACE: u64 size, offset, reference; u32 idx, tid, cpu, reserved; the trace data follows. */
static void handle_auxtrace(struct perfdata_reader *r, const unsigned char *p, size_t size,
			    bool from_z)
{
	r->stats.aux_records++;
	if (size < 48 || from_z)
		return;
	uint64_t n = ld64(r, p + 8);
	if (r->data_end != UINT64_MAX && n > r->data_end - pd_in_offset(r)) {
		stop_bad(r, "AUXTRACE data that goes past the end of the data", n);
		r->eof = true;
		r->bpos = r->blen;
	} else if (!pd_in_skip(r, n)) {
		stop_cut_short(r);
	}
}

/* One record from the data or the zstd stream: a kernel record to the time order, a user record
 * handled now. */
static void handle_record(struct perfdata_reader *r, const unsigned char *p, size_t size, bool from_z)
{
	uint32_t type = ld32(r, p);

	if (type < PD_HEADER_ATTR) {
		if (r->nev)
			pd_order_add(r, p, size, type, r->mem && !from_z);
		return;
	}
	switch (type) {
	case PD_HEADER_ATTR:
		handle_attr(r, p, size);
		break;
	case PD_HEADER_FEATURE:
		if (size >= 16 && !r->attrs_frozen) {
			uint64_t feat = ld64(r, p + 8);
			unsigned bit = feat < PD_FEATURE_BITS ? (unsigned)feat : PD_FEATURE_BITS;
			pd_feature_read(r, bit, p + 16, size - 16);
		}
		break;
	case PD_FINISHED_ROUND:
		pd_order_flush(r, r->next_flush);
		r->next_flush = r->max_time;
		break;
	case PD_COMPRESSED:
	case PD_COMPRESSED2:
		handle_compressed(r, type, p, size, from_z);
		break;
	case PD_HEADER_BUILD_ID:
		/* a binary hit for the first time (perftop -o -, perf inject -b): listed in the header
		 * lines only while the preamble is read at open (after, the reading may be another
		 * thread's than the lines' reader) */
		if (!pd_build_id_entry(r, p, size, r->in_preamble && r->info.nextra < 1000))
			pd_count_bad(r, type);
		break;
	case PD_HEADER_TRACING_DATA:
		handle_tracing_data(r, p, size, from_z);
		break;
	case PD_AUXTRACE_INFO:
		/* u32 type, u32 reserved, then the PMU's own fields */
		if (!r->stats.aux_records++ && size >= 12)
			r->stats.aux_type = ld32(r, p + 8);
		break;
	case PD_AUXTRACE:
		handle_auxtrace(r, p, size, from_z);
		break;
	default:
		if (type > PD_USER_LAST)
			r->stats.skipped_unknown++;
		/* the rest (ID_INDEX, THREAD_MAP, CPU_MAP, TIME_CONV, FINISHED_INIT, ...) carry
		 * nothing the view needs */
		break;
	}
}

/* ---- records out ---- */

/* Reads on until a flush makes records ready; false at the end of the data. */
static bool order_fill(struct perfdata_reader *r)
{
	pd_order_compact(r);
	if (r->done)
		return false;
	while (r->next_ent >= r->ready) {
		if (pd_raw_pump(r) <= 0) {
			pd_order_flush(r, UINT64_MAX);
			r->done = true;
			if (ferror(r->f)) {
				pd_set_warning(r, "read error at byte %" PRIu64 ": %s", pd_in_offset(r),
					    strerror(EIO));
				r->stats.truncated = true;
			}
			break;
		}
	}
	return true;
}

/* The next record in time order, by reference: valid until the next call. */
int perfdata_next_ref(struct perfdata_reader *r, const struct rec **out)
{
	if (!r->scratch)
		r->scratch = xmalloc(PD_REC_MAX);
	for (;;) {
		if (pd_order_take(r, r->scratch, PD_REC_MAX, false, out) > 0)
			return 1;
		if (!order_fill(r))
			return 0;
	}
}

int perfdata_next_into(struct perfdata_reader *r, void *buf, size_t cap)
{
	const struct rec *rec;
	if (cap < sizeof(struct rec))
		return -ENOSPC;
	for (;;) {
		int rc = pd_order_take(r, buf, cap, true, &rec);
		if (rc != 0)
			return rc;
		if (!order_fill(r))
			return 0;
	}
}

int perfdata_next(struct perfdata_reader *r, struct rec *out, size_t cap)
{
	const struct rec *rec;
	for (;;) {
		int rc = perfdata_next_ref(r, &rec);
		if (rc <= 0)
			return rc;
		if (rec->size <= cap) {
			memcpy(out, rec, rec->size);
			return 1;
		}
		pd_count_bad(r, rec->perf_type); /* the caller's buffer is too small for this one: skipped */
	}
}

