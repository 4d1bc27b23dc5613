/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * offcpu: pairs sched_switch switch-outs with the switch-ins that end them (offcpu.h has the rules).
 * A pending block is one malloc'd piece: its bookkeeping and a copy of its switch-out sample without
 * the raw fields (they are read once, on the way in, and no consumer wants them). Pending blocks are
 * found by tid in an open-addressing table, so that the switch-in a machine makes 100k times a
 * second costs one probe, and linked in switch-out order, so that the oldest is the one a full
 * table evicts, a lost-records gap drops a prefix of the list, and a flush walks them without a
 * sort. The table grows with the pending count, never past twice max_pending slots.
 */
#include "sampler/offcpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

#define OFFCPU_DEFAULT_PENDING 65536
#define OFFCPU_DEFAULT_BYTES ((size_t)64 << 20)
#define OFFCPU_MIN_SLOTS 64
/* A format file is a few KiB; what lies past this is the print fmt, which we do not read. */
#define OFFCPU_FORMAT_MAX 65536

/* sched_switch's prev_state: TASK_REPORT bits, and TASK_REPORT_MAX as the preemption mark. */
#define PREV_STATE_PREEMPTED 0x100u
#define PREV_STATE_REPORT 0xffu

struct pend {
	struct pend *prev, *next; /* switch-out order: head is the oldest */
	uint64_t out_time;        /* the switch-out sample (the tracepoint's time) */
	uint64_t rec_out;         /* the switch-out record's time, 0 before it comes */
	uint64_t start;           /* the block's start, once its first part is out (pend_begin) */
	uint64_t mark;            /* where the time not yet emitted starts: the start, or the last piece's end */
	size_t bytes;             /* what this allocation counts in oc->bytes */
	uint32_t tid;
	uint8_t state;            /* enum offcpu_state */
	uint8_t state_known;      /* from the raw prev_state; else a switch-out record may say R+ */
	uint8_t emitted;          /* a piece went out: block_begins is spent */
	uint64_t data[];          /* the struct rec copy (8-byte aligned, as records are) */
};

struct offcpu {
	struct offcpu_opts o;
	struct pend **slots;      /* linear probing on tid, no tombstones */
	size_t nslots;            /* a power of two, 0 before the first block */
	size_t count;
	struct pend *head, *tail;
	uint64_t bytes;
	struct offcpu_stats st;
};

static const char *const state_names[OFFCPU_NSTATES] = {
	[OFFCPU_NONE] = "",   [OFFCPU_S] = "S",      [OFFCPU_D] = "D", [OFFCPU_R] = "R",
	[OFFCPU_R_PREEMPTED] = "R+", [OFFCPU_T] = "T", [OFFCPU_TRACED] = "t", [OFFCPU_X] = "X",
	[OFFCPU_Z] = "Z",     [OFFCPU_P] = "P",      [OFFCPU_I] = "I", [OFFCPU_OTHER] = "?",
};

const char *offcpu_state_name(enum offcpu_state s)
{
	return (unsigned)s < OFFCPU_NSTATES ? state_names[s] : "?";
}

enum offcpu_state offcpu_state_of(uint64_t prev_state)
{
	/* The kernel reports one bit (task_state_index's), or the preemption mark alone. Bits above
	 * the mark are an older kernel's raw task state, which this table does not describe. */
	static const enum offcpu_state by_bit[8] = { OFFCPU_S, OFFCPU_D, OFFCPU_T, OFFCPU_TRACED,
						      OFFCPU_X, OFFCPU_Z, OFFCPU_P, OFFCPU_I };
	if (prev_state & PREV_STATE_PREEMPTED)
		return OFFCPU_R_PREEMPTED;
	if (prev_state == 0)
		return OFFCPU_R;
	if (prev_state & ~(uint64_t)PREV_STATE_REPORT)
		return OFFCPU_OTHER;
	for (unsigned b = 0; b < 8; b++)
		if (prev_state & (1u << b))
			return by_bit[b];
	return OFFCPU_OTHER;
}

static struct rec *pend_rec(struct pend *p)
{
	return (struct rec *)(void *)p->data;
}

/* --- the tid table --------------------------------------------------------------------------- */

static size_t slot_home(const struct offcpu *oc, uint32_t tid)
{
	return (size_t)hash_mix64(tid) & (oc->nslots - 1);
}

/* The slot holding tid, or the empty slot where it would go. */
static size_t slot_of(const struct offcpu *oc, uint32_t tid)
{
	size_t i = slot_home(oc, tid);
	while (oc->slots[i] && oc->slots[i]->tid != tid)
		i = (i + 1) & (oc->nslots - 1);
	return i;
}

static struct pend *table_find(const struct offcpu *oc, uint32_t tid)
{
	if (!oc->count)
		return NULL;
	return oc->slots[slot_of(oc, tid)];
}

/* Room for one more at a load of at most 1/2; false when the memory is refused. */
static bool table_reserve(struct offcpu *oc)
{
	if (oc->nslots && (oc->count + 1) * 2 <= oc->nslots)
		return true;
	size_t n = oc->nslots ? oc->nslots * 2 : OFFCPU_MIN_SLOTS;
	struct pend **old = oc->slots;
	size_t oldn = oc->nslots;
	oc->slots = calloc(n, sizeof(*oc->slots));
	if (!oc->slots) {
		oc->slots = old;
		return false;
	}
	oc->nslots = n;
	for (size_t i = 0; i < oldn; i++)
		if (old[i])
			oc->slots[slot_of(oc, old[i]->tid)] = old[i];
	free(old);
	return true;
}

static void table_del(struct offcpu *oc, uint32_t tid)
{
	size_t mask = oc->nslots - 1, hole = slot_of(oc, tid);
	if (!oc->slots[hole])
		return;
	oc->slots[hole] = NULL;
	/* Close the hole: later entries of the run whose home is not in (hole, j] move back. */
	for (size_t j = (hole + 1) & mask; oc->slots[j]; j = (j + 1) & mask) {
		if (probe_must_move(slot_home(oc, oc->slots[j]->tid), hole, j)) {
			oc->slots[hole] = oc->slots[j];
			oc->slots[j] = NULL;
			hole = j;
		}
	}
}

/* --- pending blocks -------------------------------------------------------------------------- */

static void pend_free(struct offcpu *oc, struct pend *p)
{
	table_del(oc, p->tid);
	if (p->prev)
		p->prev->next = p->next;
	else
		oc->head = p->next;
	if (p->next)
		p->next->prev = p->prev;
	else
		oc->tail = p->prev;
	oc->count--;
	oc->bytes -= p->bytes;
	free(p);
}

static void pend_drop(struct offcpu *oc, struct pend *p, uint64_t *counter)
{
	(*counter)++;
	pend_free(oc, p);
}

/* Fixes the block's start before its first part goes out. Its two ends are taken from marks of
 * the same kind, so that what each mark lags the switch by cancels out: the switch-out sample
 * (the tracepoint, before its call chain is taken) when the end is a sched_switch sample naming
 * the thread as next_pid, as perf sched timehist pairs them; else the switch-out record, written
 * once the sample is out and right before the switch, when the end is a switch-in record (written
 * after the switch, once the thread's events are scheduled in), an exit or a refresh. */
static void pend_begin(struct pend *p, bool sample_end, uint64_t end)
{
	if (p->emitted)
		return;
	p->start = p->out_time;
	if (!sample_end && p->rec_out && p->rec_out <= end)
		p->start = p->rec_out;
	p->mark = p->start;
}

/* Emits the time from p->mark to end as one record: a piece, or the block's last part. */
static void emit_part(struct offcpu *oc, struct pend *p, uint64_t end, offcpu_emit_fn emit, void *ctx)
{
	struct rec *r = pend_rec(p);
	(void)oc;
	r->time = end;
	r->u.sample.period = end - p->mark;
	r->u.sample.block_ns = end - p->start;
	r->u.sample.block_state = p->state;
	r->u.sample.block_begins = !p->emitted;
	p->emitted = 1;
	p->mark = end;
	emit(ctx, r);
}

/* The block ends at t (a switch-in, an exit): its last part out, or dropped when too short. A time
 * before the last piece's end (a flush ran ahead of records still to come) ends it there: what was
 * emitted cannot be taken back. */
static void pend_close(struct offcpu *oc, struct pend *p, uint64_t t, bool sample_end,
		       offcpu_emit_fn emit, void *ctx)
{
	pend_begin(p, sample_end, t);
	if (t < p->mark)
		t = p->mark;
	uint64_t total = t - p->start;
	if (!p->emitted && (total == 0 || total < oc->o.min_block_ns)) {
		pend_drop(oc, p, &oc->st.dropped_short);
		return;
	}
	if (t > p->mark)
		emit_part(oc, p, t, emit, ctx);
	oc->st.blocks++;
	pend_free(oc, p);
}

static void switch_in(struct offcpu *oc, uint32_t tid, uint64_t t, bool sample_end,
		      offcpu_emit_fn emit, void *ctx)
{
	struct pend *p = table_find(oc, tid);
	if (p)
		pend_close(oc, p, t, sample_end, emit, ctx);
}

/* Bytes of r worth keeping: all but its raw fields when they are the trailing data's last part. */
static uint32_t kept_size(const struct rec *r)
{
	const struct rec_sample *s = &r->u.sample;
	uint64_t raw_end = (uint64_t)s->raw_off + (((uint64_t)s->raw_size + 7) & ~(uint64_t)7);
	if (s->raw_size && s->raw_off >= sizeof(*r) && raw_end == r->size)
		return s->raw_off;
	return r->size;
}

/* Makes room for one more block of bytes (oldest out first); false when it cannot fit at all. */
static bool make_room(struct offcpu *oc, size_t bytes)
{
	if (bytes > oc->o.max_bytes)
		return false;
	while (oc->head && (oc->count >= oc->o.max_pending || oc->bytes + bytes > oc->o.max_bytes))
		pend_drop(oc, oc->head, &oc->st.dropped_full);
	return table_reserve(oc);
}

static void pend_add(struct offcpu *oc, const struct rec *r, enum offcpu_state state, bool known)
{
	uint32_t keep = kept_size(r);
	size_t bytes = sizeof(struct pend) + keep;
	struct pend *p = make_room(oc, bytes) ? malloc(bytes) : NULL;
	if (!p) {
		oc->st.dropped_full++;
		return;
	}
	memset(p, 0, sizeof(*p));
	memcpy(p->data, r, keep);
	struct rec *c = pend_rec(p);
	c->size = keep;
	/* Dropped, or (when not at the end) kept but no longer described: read once, on the way in. */
	c->u.sample.raw_off = 0;
	c->u.sample.raw_size = 0;
	p->out_time = p->mark = r->time;
	p->bytes = bytes;
	p->tid = r->tid;
	p->state = (uint8_t)state;
	p->state_known = known;
	p->prev = oc->tail;
	if (oc->tail)
		oc->tail->next = p;
	else
		oc->head = p;
	oc->tail = p;
	oc->slots[slot_of(oc, p->tid)] = p;
	oc->count++;
	oc->bytes += bytes;
}

/* --- records --------------------------------------------------------------------------------- */

/* One field of a sample's raw data (size 4, sign-extended, or 8); false when absent or outside. */
static bool raw_field(const struct rec *r, uint32_t off, uint32_t size, int64_t *v)
{
	const struct rec_sample *s = &r->u.sample;
	if ((size != 4 && size != 8) || !s->raw_size || (uint64_t)off + size > s->raw_size ||
	    (uint64_t)s->raw_off + s->raw_size > r->size)
		return false;
	const unsigned char *p = (const unsigned char *)rec_raw(r) + off;
	if (size == 4) {
		int32_t x;
		memcpy(&x, p, 4);
		*v = x;
	} else {
		memcpy(v, p, 8);
	}
	return true;
}

static void switch_out(struct offcpu *oc, const struct rec *r, offcpu_emit_fn emit, void *ctx)
{
	int64_t v;
	oc->st.switch_outs++;
	if (r->size < sizeof(*r))
		return;
	/* The same switch brings next_pid in: its block ends here. */
	if (raw_field(r, oc->o.next_pid_off, oc->o.next_pid_size, &v) && v > 0 && v <= UINT32_MAX)
		switch_in(oc, (uint32_t)v, r->time, true, emit, ctx);
	if (r->tid == 0)
		return;
	struct pend *old = table_find(oc, r->tid);
	if (old)
		pend_drop(oc, old, &oc->st.dropped_unpaired);
	bool known = raw_field(r, oc->o.prev_state_off, oc->o.prev_state_size, &v);
	enum offcpu_state state = known ? offcpu_state_of((uint64_t)v) : OFFCPU_S;
	if (state == OFFCPU_X || state == OFFCPU_Z)
		return;
	pend_add(oc, r, state, known);
}

static void switch_rec(struct offcpu *oc, const struct rec *r, offcpu_emit_fn emit, void *ctx)
{
	if (!r->u.sw.out) {
		switch_in(oc, r->tid, r->time, false, emit, ctx);
		return;
	}
	/* The switch-out record follows its sched_switch sample: where the raw state is unknown, it
	 * tells a preemption from a sleep; its time is the start of a block that a switch-in record
	 * ends (pend_begin). */
	struct pend *p = table_find(oc, r->tid);
	if (p && !p->state_known && r->u.sw.preempt)
		p->state = OFFCPU_R_PREEMPTED;
	if (p && !p->emitted && !p->rec_out && r->time >= p->out_time)
		p->rec_out = r->time;
}

/* A lost-records gap may have hidden the switch-ins of every block pending since before it. */
static void lost(struct offcpu *oc, uint64_t t)
{
	while (oc->head && oc->head->out_time < t)
		pend_drop(oc, oc->head, &oc->st.dropped_lost);
}

/* --- the interface --------------------------------------------------------------------------- */

struct offcpu *offcpu_new(const struct offcpu_opts *o)
{
	struct offcpu *oc = calloc(1, sizeof(*oc));
	if (!oc)
		return NULL;
	oc->o = *o;
	if (!oc->o.max_pending)
		oc->o.max_pending = OFFCPU_DEFAULT_PENDING;
	if (!oc->o.max_bytes)
		oc->o.max_bytes = OFFCPU_DEFAULT_BYTES;
	return oc;
}

void offcpu_reset(struct offcpu *oc)
{
	while (oc->head)
		pend_free(oc, oc->head);
}

void offcpu_free(struct offcpu *oc)
{
	if (!oc)
		return;
	offcpu_reset(oc);
	free(oc->slots);
	free(oc);
}

void offcpu_feed(struct offcpu *oc, const struct rec *r, offcpu_emit_fn emit, void *ctx)
{
	if (!r->time) {
		emit(ctx, r);
		return;
	}
	switch (r->type) {
	case REC_SAMPLE:
		if (r->evidx == oc->o.switch_evidx) {
			switch_out(oc, r, emit, ctx);
			return;
		}
		break;
	case REC_SWITCH:
		switch_rec(oc, r, emit, ctx);
		return;
	case REC_EXIT:
		switch_in(oc, r->tid, r->time, false, emit, ctx);
		break;
	case REC_LOST:
	case REC_LOST_SAMPLES:
		lost(oc, r->time);
		break;
	default:
		break;
	}
	emit(ctx, r);
}

void offcpu_flush(struct offcpu *oc, uint64_t now, offcpu_emit_fn emit, void *ctx)
{
	for (struct pend *p = oc->head; p; p = p->next) {
		pend_begin(p, false, now);
		if (now <= p->mark || now - p->start < oc->o.min_block_ns ||
		    now - p->mark < oc->o.piece_ns)
			continue;
		emit_part(oc, p, now, emit, ctx);
		oc->st.pieces++;
	}
}

void offcpu_get_stats(const struct offcpu *oc, struct offcpu_stats *st)
{
	*st = oc->st;
	st->pending = oc->count;
	st->pending_bytes = oc->bytes;
}

/* --- the format file ------------------------------------------------------------------------- */

static bool is_ident(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The name a field line declares ("field:long prev_state;" -> prev_state; "char prev_comm[16]"
 * -> prev_comm), copied into name (size n); false when the line is not a field. */
static bool field_name(const char *line, char *name, size_t n)
{
	const char *f = strstr(line, "field:");
	const char *e = f ? strchr(f, ';') : NULL;
	if (!e)
		return false;
	while (e > f && e[-1] == ' ')
		e--;
	if (e > f && e[-1] == ']') {
		while (e > f && e[-1] != '[')
			e--;
		if (e > f)
			e--;
		while (e > f && e[-1] == ' ')
			e--;
	}
	const char *b = e;
	while (b > f && is_ident(b[-1]))
		b--;
	if (b == e || (size_t)(e - b) >= n)
		return false;
	memcpy(name, b, (size_t)(e - b));
	name[e - b] = 0;
	return true;
}

/* The number after key in line ("offset:32;"); false when absent. */
static bool field_num(const char *line, const char *key, uint32_t *v)
{
	const char *k = strstr(line, key);
	if (!k)
		return false;
	char *end;
	unsigned long x = strtoul(k + strlen(key), &end, 10);
	if (end == k + strlen(key) || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

/* One line of a format file: prev_state's or next_pid's layout when it declares them. */
static void format_line(const char *line, struct offcpu_opts *o, unsigned *found)
{
	char name[64];
	uint32_t off, size;
	if (!field_name(line, name, sizeof(name)) || !field_num(line, "offset:", &off) ||
	    !field_num(line, "size:", &size) || (size != 4 && size != 8))
		return;
	if (!strcmp(name, "prev_state")) {
		o->prev_state_off = off;
		o->prev_state_size = size;
		*found |= 1;
	} else if (!strcmp(name, "next_pid")) {
		o->next_pid_off = off;
		o->next_pid_size = size;
		*found |= 2;
	}
}

int offcpu_parse_format(const char *text, size_t len, struct offcpu_opts *o)
{
	char line[512];
	unsigned found = 0;
	size_t i = 0;
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		/* Field lines are short; a longer one (the print fmt) is not one we read. */
		if (n < sizeof(line)) {
			memcpy(line, text + i, n);
			line[n] = 0;
			format_line(line, o, &found);
		}
		i += n + 1;
	}
	return found ? 0 : -1;
}

int offcpu_read_format(const char *tracefs, struct offcpu_opts *o)
{
	char path[4096];
	int n = snprintf(path, sizeof(path), "%s/events/sched/sched_switch/format", tracefs);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -1;
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char *buf = malloc(OFFCPU_FORMAT_MAX);
	size_t len = buf ? fread(buf, 1, OFFCPU_FORMAT_MAX, f) : 0;
	fclose(f);
	int rc = buf ? offcpu_parse_format(buf, len, o) : -1;
	free(buf);
	return rc;
}
