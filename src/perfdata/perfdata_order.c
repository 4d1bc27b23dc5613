/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_order: kernel records handed out in time order across CPUs. Each is parsed (parse_record,
 * with the attr its sample id points to) into an arena, or left where it lies in a mapped file with
 * its time, and released in time order: at each FINISHED_ROUND everything up to the largest time
 * seen before the previous round, as perf does; when the arena reaches its cap, the older half; at
 * the end, the rest.
 */
#include "perfdata/perfdata_int.h"

#include <errno.h>
#include <stdlib.h>

#include "util/radix.h"
#include "util/util.h"

/* Marks the pending records with time <= limit as ready, in time order. */
void pd_order_flush(struct perfdata_reader *r, uint64_t limit)
{
	size_t n = r->nents - r->next_ent;
	if (n == 0) {
		r->ready = r->next_ent;
		return;
	}
	/* By time, stable: equal times keep arrival order. What the last flush left is in (time, arrival)
	 * order already; only the records read since are sorted (a radix sort by time, stable, so
	 * arrival order within one time), then the two runs are merged, the older run first on ties
	 * (it arrived first): (time, arrival) order without sorting the leftovers again each round. */
	struct pd_ent *e = r->ents + r->next_ent;
	size_t old = r->sorted_end > r->next_ent ? r->sorted_end - r->next_ent : 0;
	if (old > n)
		old = n;
	size_t fresh = n - old;
	xgrow((void **)&r->sort_kv, &r->sort_kv_cap, 2 * fresh + 1, sizeof(*r->sort_kv));
	xgrow((void **)&r->sort_ents, &r->sort_ents_cap, n, sizeof(*r->sort_ents));
	for (size_t i = 0; i < fresh; i++)
		r->sort_kv[i] = (struct radix_kv){ .key = e[old + i].time, .val = old + i };
	const struct radix_kv *sorted = radix_sort_kv(r->sort_kv, r->sort_kv + fresh, fresh);
	size_t a = 0, b = 0, o = 0;
	while (a < old && b < fresh)
		r->sort_ents[o++] = e[sorted[b].val].time < e[a].time ? e[sorted[b++].val] : e[a++];
	while (a < old)
		r->sort_ents[o++] = e[a++];
	while (b < fresh)
		r->sort_ents[o++] = e[sorted[b++].val];
	/* The merged run becomes the entries, in place of copying it back: those before next_ent were
	 * all handed out (a flush comes only once every ready record was). */
	struct pd_ent *t = r->ents;
	size_t tc = r->ents_cap;
	r->ents = r->sort_ents;
	r->ents_cap = r->sort_ents_cap;
	r->sort_ents = t;
	r->sort_ents_cap = tc;
	r->nents = r->sorted_end = n;
	r->next_ent = 0;
	size_t k = 0;
	while (k < n && r->ents[k].time <= limit)
		k++;
	r->ready = k;
}

/* Drops the records already handed out: the rest move to the other arena, in order. Pending records
 * are copied only once the handed-out ones take four times their room (a DWARF recording's 8 KiB
 * stacks made the copy after every round a fifth of a replay); until then the arena grows. Records
 * waiting in the file only have their entries moved down. */
void pd_order_compact(struct perfdata_reader *r)
{
	if (r->next_ent == 0)
		return;
	if (r->next_ent == r->nents) {
		r->arena_len = r->live_bytes = 0;
		r->nents = r->ready = r->next_ent = r->sorted_end = 0;
		return;
	}
	/* Nothing in the arena: the next flush drops the handed-out entries anyway. */
	if (!r->live_bytes)
		return;
	if (r->arena_len - r->live_bytes < 4 * r->live_bytes && r->arena_len < PD_REORDER_CAP / 2)
		return;
	size_t used = 0;
	for (size_t i = r->next_ent; i < r->nents; i++) {
		struct pd_ent e = r->ents[i];
		if (!e.in_file) {
			const struct rec *rec = (const struct rec *)(r->arena + e.off);
			xgrow((void **)&r->arena2, &r->arena2_cap, used + rec->size, 1);
			memcpy(r->arena2 + used, rec, rec->size);
			e.off = used;
			used += rec->size;
		}
		r->ents[i - r->next_ent] = e;
	}
	unsigned char *t = r->arena;
	size_t tc = r->arena_cap;
	r->arena = r->arena2;
	r->arena_cap = r->arena2_cap;
	r->arena2 = t;
	r->arena2_cap = tc;
	r->arena_len = used;
	r->nents -= r->next_ent;
	r->ready -= r->next_ent;
	r->sorted_end = r->sorted_end > r->next_ent ? r->sorted_end - r->next_ent : 0;
	r->next_ent = 0;
}

/* The event a kernel record belongs to, from its sample id (several events) or the only one. */
static size_t record_event(struct perfdata_reader *r, const unsigned char *p, uint32_t type, size_t size)
{
	if (r->nev <= 1)
		return 0;
	uint64_t st = r->ev[0].cfg.sample_type, id;
	if (type == PERF_RECORD_SAMPLE) {
		size_t pos = 8;
		if (!(st & PERF_SAMPLE_IDENTIFIER)) {
			if (!(st & PERF_SAMPLE_ID))
				return 0;
			pos += 8 * (!!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
				    !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR));
		}
		if (pos + 8 > size)
			return 0;
		id = ld64(r, p + pos);
	} else {
		size_t back;
		if (!r->ev[0].cfg.sample_id_all)
			return 0;
		if (st & PERF_SAMPLE_IDENTIFIER)
			back = 8;
		else if (st & PERF_SAMPLE_ID)
			back = 8 * (1 + !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU));
		else
			return 0;
		if (back + 8 > size)
			return 0;
		id = ld64(r, p + size - back);
	}
	int idx = pd_id_lookup(r, id);
	return idx < 0 ? 0 : (size_t)idx;
}

/* Parses a kernel record of event evi into out (cap bytes); counts one that does not parse, and one
 * of a type we do not know. -ENOSPC (not counted) when a cap below PD_REC_MAX is too small. */
static int pd_parse(struct perfdata_reader *r, size_t evi, const unsigned char *p, size_t size,
		    struct rec *out, size_t cap)
{
	int rc = parse_record(&r->ev[evi].cfg, p, size, out, cap);
	if (rc == -ENOSPC && cap < PD_REC_MAX)
		return rc; /* the caller finds more room: not a bad record */
	if (rc < 0) {
		pd_count_bad(r, ld32(r, p));
		return -EINVAL;
	}
	/* A sample without PERF_SAMPLE_PERIOD (perf record -c N on a software event) stands for the
	 * event's fixed period, as perf report counts it, not for parse_record's default of 1. */
	const struct perf_event_attr *a = &r->ev[evi].pub.attr;
	if (out->type == REC_SAMPLE && !(a->sample_type & PERF_SAMPLE_PERIOD) && !a->freq &&
	    a->sample_period)
		out->u.sample.period = a->sample_period;
	if (out->type == REC_OTHER && out->perf_type >= PERF_RECORD_MAX)
		r->stats.skipped_unknown++;
	return 0;
}

/*
 * A kernel record, to wait for its turn: parsed into the arena, or, when it lies in the mapped file
 * (in_file), left there with its time and parsed when handed out. Parsing at the turn writes each
 * record once, into a buffer that stays in cache, instead of into an arena as large as the window.
 */
void pd_order_add(struct perfdata_reader *r, const unsigned char *p, size_t size, uint32_t type,
		      bool in_file)
{
	size_t evi = record_event(r, p, type, size);
	struct pd_ent e = { .evi = (uint32_t)evi, .in_file = in_file };
	if (in_file) {
		if (parse_record_time(&r->ev[evi].cfg, p, size, &e.time) < 0) {
			pd_count_bad(r, type);
			return;
		}
		e.off = (uint64_t)(p - r->mem);
		r->file_live += size;
	} else {
		xgrow((void **)&r->arena, &r->arena_cap, r->arena_len + PD_REC_MAX, 1);
		struct rec *out = (struct rec *)(r->arena + r->arena_len);
		if (pd_parse(r, evi, p, size, out, PD_REC_MAX) < 0)
			return;
		e.time = out->time;
		e.off = r->arena_len;
		r->arena_len += (out->size + 7) & ~(size_t)7;
		r->live_bytes += (out->size + 7) & ~(size_t)7;
	}
	/* Without sample_id_all (perf before 2.6.38, a kernel without it) no record but a sample has a
	 * time (FORK and EXIT carry one in their body, the others none), so nothing places an exec's
	 * COMM and MMAPs among the FORKs and samples of other CPUs' buffers: perf report then reads
	 * the file unordered, each record as it comes, and so does this, all records at time 0 (the
	 * sort is stable: file order). By time, a FORK written after the child's exec (another CPU's
	 * buffer) gave the child its parent's maps back before its samples came. */
	if (!r->ev[evi].cfg.sample_id_all)
		e.time = 0;
	if (r->nents == r->ents_cap)
		xgrow((void **)&r->ents, &r->ents_cap, r->nents + 1, sizeof(*r->ents));
	r->ents[r->nents++] = e;
	if (e.time > r->max_time)
		r->max_time = e.time;
	if (r->live_bytes + r->file_live >= PD_REORDER_CAP) {
		/* No round in sight: release the older half so memory stays bounded. */
		pd_order_flush(r, UINT64_MAX);
		r->ready = r->next_ent + (r->nents - r->next_ent) / 2;
	}
}

/*
 * Hands out the next ready record: parsed into dst (cap bytes) when it waits raw in the file, else
 * where it is in the arena (copied to dst when copy). 1 and *out; 0 when none is ready; -ENOSPC
 * when it needs more than a cap below PD_REC_MAX (it stays next).
 */
int pd_order_take(struct perfdata_reader *r, struct rec *dst, size_t cap, bool copy,
		      const struct rec **out)
{
	while (r->next_ent < r->ready) {
		const struct pd_ent *e = &r->ents[r->next_ent];
		const struct rec *rec;
		if (e->in_file) {
			const unsigned char *p = r->mem + e->off;
			uint16_t size;
			memcpy(&size, p + 6, 2);
			size = sw16(r, size);
			int rc = pd_parse(r, e->evi, p, size, dst, cap < PD_REC_MAX ? cap : PD_REC_MAX);
			if (rc == -ENOSPC && cap < PD_REC_MAX)
				return -ENOSPC;
			r->next_ent++;
			r->file_live -= size;
			if (rc < 0)
				continue;
			rec = dst;
		} else {
			rec = (const struct rec *)(r->arena + e->off);
			if (copy && rec->size > cap)
				return -ENOSPC;
			r->next_ent++;
			r->live_bytes -= (rec->size + 7) & ~(size_t)7;
			if (copy) {
				memcpy(dst, rec, rec->size);
				rec = dst;
			}
		}
		r->stats.records++;
		if (rec->type == REC_SAMPLE)
			r->stats.samples++;
		*out = rec;
		return 1;
	}
	return 0;
}

