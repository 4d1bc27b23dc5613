/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse: turns the bytes of one perf record into a flat struct rec.
 *
 * The layout of a SAMPLE is the concatenation, in a fixed order, of the fields selected by
 * attr.sample_type (see the PERF_RECORD_SAMPLE comment in <linux/perf_event.h>); several fields
 * have a length that is itself in the record (callchain, raw, branch stack, user stack, aux), so
 * every step is checked against the bytes the record claims to have. Non-sample records carry
 * their own fixed fields, sometimes a NUL-terminated string, and, with sample_id_all, a trailer
 * whose size depends only on sample_type: we read that trailer from the end of the record, which
 * is the one place its position is certain.
 *
 * All loads go through memcpy: a record copied out of a file or a queue need not be 8-aligned.
 */
#include "record/parse.h"

#include <errno.h>
#include <string.h>

/* perf.data's own record types start here (tools/perf, not the uapi header); they carry no
 * sample_id trailer. */
#define PARSE_USER_TYPE_START 64

/* A bounded reader over [p, end). Every take fails instead of reading past end. */
struct cursor {
	const unsigned char *p;
	const unsigned char *end;
	bool swap; /* the record was written in the other byte order */
};

static size_t cursor_left(const struct cursor *c)
{
	return (size_t)(c->end - c->p);
}

static int cursor_skip(struct cursor *c, uint64_t n)
{
	if (n > cursor_left(c))
		return -EINVAL;
	c->p += n;
	return 0;
}

static int cursor_u64(struct cursor *c, uint64_t *v)
{
	if (cursor_left(c) < 8)
		return -EINVAL;
	memcpy(v, c->p, 8);
	if (c->swap)
		*v = __builtin_bswap64(*v);
	c->p += 8;
	return 0;
}

static int cursor_u32_pair(struct cursor *c, uint32_t *a, uint32_t *b)
{
	if (cursor_left(c) < 8)
		return -EINVAL;
	memcpy(a, c->p, 4);
	memcpy(b, c->p + 4, 4);
	if (c->swap) {
		*a = __builtin_bswap32(*a);
		*b = __builtin_bswap32(*b);
	}
	c->p += 8;
	return 0;
}

/* A u32 at the cursor without moving it (RAW's size, the first half of a u32 pair). */
static int cursor_peek_u32(const struct cursor *c, uint32_t *v)
{
	if (cursor_left(c) < 4)
		return -EINVAL;
	memcpy(v, c->p, 4);
	if (c->swap)
		*v = __builtin_bswap32(*v);
	return 0;
}

/* n u64 words starting at the cursor; their position is remembered as an input offset. */
static int cursor_array(struct cursor *c, uint64_t n, const unsigned char **at)
{
	if (n > cursor_left(c) / 8)
		return -EINVAL;
	*at = c->p;
	c->p += n * 8;
	return 0;
}

void parse_cfg_init(struct parse_cfg *cfg, const struct perf_event_attr *attr, uint32_t evidx)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->sample_type = attr->sample_type;
	cfg->read_format = attr->read_format;
	cfg->sample_regs_user = attr->sample_regs_user;
	cfg->sample_regs_intr = attr->sample_regs_intr;
	cfg->branch_sample_type = attr->branch_sample_type;
	cfg->sample_id_all = attr->sample_id_all;
	cfg->exclude_callchain_user = attr->exclude_callchain_user;
	cfg->evidx = evidx;
}

/* Swaps n u64 words in place (arrays copied out of a record of the other byte order). */
static void swap_words(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v;
		memcpy(&v, p + i * 8, 8);
		v = __builtin_bswap64(v);
		memcpy(p + i * 8, &v, 8);
	}
}

/* Bytes of the sample_id trailer for this sample_type (fields in the kernel's order). */
static size_t trailer_size(uint64_t st)
{
	size_t n = 0;
	if (st & PERF_SAMPLE_TID)
		n += 8;
	if (st & PERF_SAMPLE_TIME)
		n += 8;
	if (st & PERF_SAMPLE_ID)
		n += 8;
	if (st & PERF_SAMPLE_STREAM_ID)
		n += 8;
	if (st & PERF_SAMPLE_CPU)
		n += 8;
	if (st & PERF_SAMPLE_IDENTIFIER)
		n += 8;
	return n;
}

/*
 * Reads the sample_id trailer occupying the last trailer_size() bytes of [body, end) and shrinks
 * *end to exclude it, so the record's own fields are parsed within what is left. The record's own
 * pid/tid are kept for side-band records (set_pid false), which describe a task of their own.
 */
static int parse_trailer(const struct parse_cfg *cfg, const unsigned char *body,
			 const unsigned char **end, struct rec *out, bool set_pid)
{
	size_t n = trailer_size(cfg->sample_type);
	struct cursor c;
	uint64_t v;
	uint32_t a = 0, b = 0; /* stay 0 when the cursor runs out */

	if (!cfg->sample_id_all || n == 0)
		return 0;
	if ((size_t)(*end - body) < n)
		return -EINVAL;
	c.p = *end - n;
	c.end = *end;
	c.swap = cfg->swapped;
	*end = c.p;
	if (cfg->sample_type & PERF_SAMPLE_TID) {
		cursor_u32_pair(&c, &a, &b);
		if (set_pid) {
			out->pid = a;
			out->tid = b;
		}
	}
	if (cfg->sample_type & PERF_SAMPLE_TIME)
		cursor_u64(&c, &out->time);
	if (cfg->sample_type & PERF_SAMPLE_ID)
		cursor_u64(&c, &out->id);
	if (cfg->sample_type & PERF_SAMPLE_STREAM_ID)
		cursor_u64(&c, &v);
	if (cfg->sample_type & PERF_SAMPLE_CPU) {
		cursor_u32_pair(&c, &a, &b);
		out->cpu = a;
	}
	if (cfg->sample_type & PERF_SAMPLE_IDENTIFIER)
		cursor_u64(&c, &out->id);
	return 0;
}

/* struct read_format, whose shape read_format decides; nothing of it is kept. */
static int skip_read_format(struct cursor *c, uint64_t rf)
{
	uint64_t nr, per = 8;
	size_t head = 0;

	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		head += 8;
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		head += 8;
	if (rf & PERF_FORMAT_ID)
		per += 8;
	if (rf & PERF_FORMAT_LOST)
		per += 8;
	if (!(rf & PERF_FORMAT_GROUP))
		return cursor_skip(c, per + head);
	if (cursor_u64(c, &nr) || cursor_skip(c, head))
		return -EINVAL;
	/* nr comes from the record: divide rather than multiply so a huge nr cannot overflow. */
	if (nr > cursor_left(c) / per)
		return -EINVAL;
	return cursor_skip(c, nr * per);
}

/* { u64 abi; u64 regs[popcount(mask)] } where regs are present only when abi != NONE. */
static int parse_regs(struct cursor *c, uint64_t mask, uint64_t *abi, const unsigned char **at,
		      uint32_t *nr)
{
	if (cursor_u64(c, abi))
		return -EINVAL;
	*nr = 0;
	*at = NULL;
	if (*abi == PERF_SAMPLE_REGS_ABI_NONE)
		return 0;
	*nr = (uint32_t)__builtin_popcountll(mask);
	return cursor_array(c, *nr, at);
}

/* Where a sample's variable parts sit in the input, until they are copied out. */
struct sample_parts {
	const unsigned char *callchain;
	uint64_t callchain_nr;
	const unsigned char *regs;
	uint32_t regs_nr;
	const unsigned char *stack;
	uint64_t stack_size;
	const unsigned char *raw;  /* PERF_SAMPLE_RAW's data, without its u32 size */
	uint32_t raw_size;
	const unsigned char *branch; /* the branch stack's entries: from, to, flags (24 bytes each) */
	uint64_t branch_nr;
	/* The chain kept (lbr_chain_plan): the callchain's first chain_keep words, then, when
	 * lbr_words, PERF_CONTEXT_USER if lbr_marker, the first entry's to and each entry's from. */
	uint64_t chain_keep;
	bool lbr_marker;
	uint64_t lbr_words;
};

/* The fields of a sample up to PERIOD (IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD)
 * are 8 bytes each, those sample_type has, in this order. */
static size_t sample_fixed_len(uint64_t st)
{
	/* not __builtin_popcountll: without -mpopcnt it is a libgcc call */
	return 8 * (size_t)(!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
			    !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR) +
			    !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
			    !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_PERIOD));
}

/* Those fields when the record holds them all and needs no swapping: one bounds check for all. */
static void sample_fixed(uint64_t st, struct cursor *c, struct rec *out)
{
	const unsigned char *q = c->p;
	struct rec_sample *s = &out->u.sample;
	uint32_t a;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		memcpy(&out->id, q, 8);
		q += 8;
	}
	if (st & PERF_SAMPLE_IP) {
		memcpy(&s->ip, q, 8);
		q += 8;
	}
	if (st & PERF_SAMPLE_TID) {
		memcpy(&out->pid, q, 4);
		memcpy(&out->tid, q + 4, 4);
		q += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		memcpy(&out->time, q, 8);
		q += 8;
	}
	if (st & PERF_SAMPLE_ADDR) {
		memcpy(&s->addr, q, 8);
		q += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		memcpy(&out->id, q, 8);
		q += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID)
		q += 8;
	if (st & PERF_SAMPLE_CPU) {
		memcpy(&a, q, 4);
		out->cpu = a;
		q += 8;
	}
	if (st & PERF_SAMPLE_PERIOD) {
		memcpy(&s->period, q, 8);
		q += 8;
	}
	c->p = q;
}

/* The same fields one at a time, each checked (and swapped): -EINVAL where the record ends. */
static int parse_sample_head(uint64_t st, struct cursor *c, struct rec *out)
{
	struct rec_sample *s = &out->u.sample;
	uint64_t v;
	uint32_t a = 0, b = 0;
	if ((st & PERF_SAMPLE_IDENTIFIER) && cursor_u64(c, &out->id))
		return -EINVAL;
	if ((st & PERF_SAMPLE_IP) && cursor_u64(c, &s->ip))
		return -EINVAL;
	if (st & PERF_SAMPLE_TID) {
		if (cursor_u32_pair(c, &a, &b))
			return -EINVAL;
		out->pid = a;
		out->tid = b;
	}
	if ((st & PERF_SAMPLE_TIME) && cursor_u64(c, &out->time))
		return -EINVAL;
	if ((st & PERF_SAMPLE_ADDR) && cursor_u64(c, &s->addr))
		return -EINVAL;
	if ((st & PERF_SAMPLE_ID) && cursor_u64(c, &out->id))
		return -EINVAL;
	if ((st & PERF_SAMPLE_STREAM_ID) && cursor_u64(c, &v))
		return -EINVAL;
	if (st & PERF_SAMPLE_CPU) {
		if (cursor_u32_pair(c, &a, &b))
			return -EINVAL;
		out->cpu = a;
	}
	if ((st & PERF_SAMPLE_PERIOD) && cursor_u64(c, &s->period))
		return -EINVAL;
	return 0;
}

static int parse_sample(const struct parse_cfg *cfg, struct cursor *c, struct rec *out,
			struct sample_parts *sp)
{
	uint64_t st = cfg->sample_type, v, n;
	struct rec_sample *s = &out->u.sample;

	s->period = 1;
	if (!c->swap && cursor_left(c) >= sample_fixed_len(st))
		sample_fixed(st, c, out);
	else if (parse_sample_head(st, c, out))
		return -EINVAL;
	if ((st & PERF_SAMPLE_READ) && skip_read_format(c, cfg->read_format))
		return -EINVAL;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (cursor_u64(c, &sp->callchain_nr) ||
		    cursor_array(c, sp->callchain_nr, &sp->callchain))
			return -EINVAL;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t rawsz;
		if (cursor_peek_u32(c, &rawsz))
			return -EINVAL;
		/* The kernel pads u32 size + data to 8 bytes; round up so the next field is aligned. */
		n = ((uint64_t)rawsz + 4 + 7) & ~(uint64_t)7;
		sp->raw = c->p + 4;
		sp->raw_size = rawsz;
		if (cursor_skip(c, n))
			return -EINVAL;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		if (cursor_u64(c, &n))
			return -EINVAL;
		if ((cfg->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) && cursor_u64(c, &v))
			return -EINVAL;
		/* Each entry is from, to, flags: 24 bytes. */
		sp->branch = c->p;
		sp->branch_nr = n;
		if (n > cursor_left(c) / 24 || cursor_skip(c, n * 24))
			return -EINVAL;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		if (parse_regs(c, cfg->sample_regs_user, &s->regs_user_abi, &sp->regs, &sp->regs_nr))
			return -EINVAL;
		s->regs_user_mask = cfg->sample_regs_user;
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		if (cursor_u64(c, &n))
			return -EINVAL;
		sp->stack = c->p;
		if (cursor_skip(c, n))
			return -EINVAL;
		/* dyn_size follows only when something was copied. */
		if (n != 0 && cursor_u64(c, &s->stack_user_dyn_size))
			return -EINVAL;
		if (n > UINT32_MAX)
			return -EINVAL;
		/* Only the first dyn_size bytes were filled (the stack is shallower than the size asked
		 * for): the rest is not kept, which at 8 KiB a sample is much of what the queue carries. */
		sp->stack_size = s->stack_user_dyn_size && s->stack_user_dyn_size < n ?
			s->stack_user_dyn_size : n;
	}
	/* WEIGHT and WEIGHT_STRUCT share one u64 slot. */
	if ((st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) && cursor_u64(c, &v))
		return -EINVAL;
	if ((st & PERF_SAMPLE_DATA_SRC) && cursor_u64(c, &v))
		return -EINVAL;
	if ((st & PERF_SAMPLE_TRANSACTION) && cursor_u64(c, &v))
		return -EINVAL;
	if (st & PERF_SAMPLE_REGS_INTR) {
		const unsigned char *at;
		uint32_t nr;
		if (parse_regs(c, cfg->sample_regs_intr, &v, &at, &nr))
			return -EINVAL;
	}
	if ((st & PERF_SAMPLE_PHYS_ADDR) && cursor_u64(c, &v))
		return -EINVAL;
	if ((st & PERF_SAMPLE_CGROUP) && cursor_u64(c, &s->cgroup))
		return -EINVAL;
	if ((st & PERF_SAMPLE_DATA_PAGE_SIZE) && cursor_u64(c, &v))
		return -EINVAL;
	if ((st & PERF_SAMPLE_CODE_PAGE_SIZE) && cursor_u64(c, &v))
		return -EINVAL;
	if (st & PERF_SAMPLE_AUX) {
		if (cursor_u64(c, &n) || cursor_skip(c, n))
			return -EINVAL;
	}
	return 0;
}

/* Word i of an array of the record (in this machine's byte order). */
static uint64_t word_at(const struct parse_cfg *cfg, const unsigned char *p, uint64_t i)
{
	uint64_t v;
	memcpy(&v, p + i * 8, 8);
	return cfg->swapped ? __builtin_bswap64(v) : v;
}

/* Which chain a sample keeps: its callchain, or with an LBR call stack the callchain's kernel part
 * and the branch stack's user part (parse.h says when). The parts were bounds-checked, so the
 * chain is at most the record's size. */
static void lbr_chain_plan(const struct parse_cfg *cfg, struct sample_parts *sp)
{
	sp->chain_keep = sp->callchain_nr;
	if (!(cfg->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK) || !sp->branch_nr)
		return;
	for (uint64_t i = 0; i < sp->callchain_nr; i++) {
		if (word_at(cfg, sp->callchain, i) == PERF_CONTEXT_USER) {
			sp->chain_keep = i + 1;
			sp->lbr_words = 1 + sp->branch_nr;
			return;
		}
	}
	if (cfg->exclude_callchain_user || !(cfg->sample_type & PERF_SAMPLE_CALLCHAIN)) {
		sp->lbr_marker = true;
		sp->lbr_words = 1 + sp->branch_nr;
	}
}

/* Words of the chain a sample keeps. */
static uint64_t chain_words(const struct sample_parts *sp)
{
	return sp->chain_keep + sp->lbr_marker + sp->lbr_words;
}

/* A NUL-terminated string that must end within [p, end); returns its length with the NUL. */
static int string_len(const unsigned char *p, const unsigned char *end, size_t *len)
{
	const unsigned char *nul = memchr(p, '\0', (size_t)(end - p));
	if (!nul)
		return -EINVAL;
	*len = (size_t)(nul - p) + 1;
	return 0;
}

/*
 * The fixed part of a kernel record we do not keep, checked against its body (trailer excluded):
 * a reader must not trust a size it has not checked, even for a record it skips.
 */
static int other_body_check(const struct parse_cfg *cfg, uint32_t type, struct cursor *c)
{
	uint64_t n, v;
	uint32_t a, b;
	size_t slen;

	switch (type) {
	case PERF_RECORD_READ: /* pid, tid, struct read_format */
		return cursor_u32_pair(c, &a, &b) || skip_read_format(c, cfg->read_format) ? -EINVAL : 0;
	case PERF_RECORD_AUX: /* aux_offset, aux_size, flags */
		return cursor_skip(c, 24);
	case PERF_RECORD_ITRACE_START: /* pid, tid */
	case PERF_RECORD_SWITCH_CPU_WIDE: /* next_prev_pid, next_prev_tid */
	case PERF_RECORD_AUX_OUTPUT_HW_ID: /* hw_id */
		return cursor_skip(c, 8);
	case PERF_RECORD_SWITCH:
		return 0;
	case PERF_RECORD_NAMESPACES: /* pid, tid, nr, {dev, inode}[nr] */
		if (cursor_u32_pair(c, &a, &b) || cursor_u64(c, &n))
			return -EINVAL;
		return n > cursor_left(c) / 16 ? -EINVAL : 0;
	case PERF_RECORD_KSYMBOL: /* addr, len, ksym_type, flags, name */
		if (cursor_skip(c, 16))
			return -EINVAL;
		return string_len(c->p, c->end, &slen);
	case PERF_RECORD_BPF_EVENT: /* type, flags, id, tag[8] */
		return cursor_skip(c, 16);
	case PERF_RECORD_CGROUP: /* id, path */
		if (cursor_u64(c, &v))
			return -EINVAL;
		return string_len(c->p, c->end, &slen);
	case PERF_RECORD_TEXT_POKE: { /* addr, old_len, new_len, bytes[old_len + new_len] */
		uint16_t lens[2];
		if (cursor_u64(c, &v) || cursor_left(c) < 4)
			return -EINVAL;
		memcpy(lens, c->p, 4);
		if (cfg->swapped) {
			lens[0] = __builtin_bswap16(lens[0]);
			lens[1] = __builtin_bswap16(lens[1]);
		}
		return cursor_skip(c, 4 + (uint64_t)lens[0] + lens[1]);
	}
	default:
		return 0;
	}
}

static uint32_t align8(uint64_t n)
{
	return (uint32_t)((n + 7) & ~(uint64_t)7);
}

/* One record being parsed: its header, a cursor over its body, what it becomes, and what follows
 * the struct (the sample's parts, an mmap's file name; extra: their bytes). */
struct rec_parse {
	const struct parse_cfg *cfg;
	struct perf_event_header h;
	struct cursor c;
	const unsigned char *end;       /* the body's end (then the end before its trailer) */
	struct rec *out;
	struct sample_parts sp;
	const unsigned char *name;
	size_t name_len;
	uint64_t extra;
};

/* The sample_id trailer of a side-band record (parse_trailer), then the cursor up to it. */
static int body_after_trailer(struct rec_parse *p, bool has_no_pid)
{
	if (parse_trailer(p->cfg, p->c.p, &p->end, p->out, has_no_pid))
		return -EINVAL;
	p->c.end = p->end;
	return 0;
}

/* MMAP2's build-id form (u8 size, u8 + u16 reserved, u8 build_id[20] in place of maj..ino_gen)
 * or its inode form. Kernels up to at least 6.18 leak the misc bit: while any event on the machine
 * asks for build-ids (attr.build_id), other events' MMAP2 records carry
 * PERF_RECORD_MISC_MMAP_BUILD_ID over the inode form (e.g. size byte 0xfe: a major device number).
 * The kernel zero-fills the build-id array past its size, so a size of 0 or over 20, non-zero
 * reserved bytes or non-zero bytes past the id are that form. */
static int parse_mmap2_id(struct rec_parse *p, struct rec_mmap *m)
{
	struct cursor *c = &p->c;
	m->is_mmap2 = 1;
	if (cursor_left(c) < 32)
		return -EINVAL;
	bool bid_form = (p->h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && c->p[0] > 0 &&
			c->p[0] <= REC_BUILD_ID_MAX && !c->p[1] && !c->p[2] && !c->p[3];
	for (unsigned i = 4u + c->p[0]; bid_form && i < 24; i++)
		bid_form = c->p[i] == 0;
	if (bid_form) {
		m->build_id_size = c->p[0];
		m->has_build_id = 1;
		memcpy(m->build_id, c->p + 4, m->build_id_size);
		c->p += 24;
	} else {
		cursor_u32_pair(c, &m->maj, &m->min);
		cursor_u64(c, &m->ino);
		cursor_u64(c, &m->ino_generation);
	}
	cursor_u32_pair(c, &m->prot, &m->flags);
	return 0;
}

static int parse_mmap(struct rec_parse *p)
{
	struct rec_mmap *m = &p->out->u.mmap;
	p->out->type = REC_MMAP;
	if (body_after_trailer(p, false))
		return -EINVAL;
	if (cursor_u32_pair(&p->c, &m->pid, &m->tid) || cursor_u64(&p->c, &m->start) ||
	    cursor_u64(&p->c, &m->len) || cursor_u64(&p->c, &m->pgoff))
		return -EINVAL;
	if (p->h.type == PERF_RECORD_MMAP2 && parse_mmap2_id(p, m))
		return -EINVAL;
	m->executable = !(p->h.misc & PERF_RECORD_MISC_MMAP_DATA);
	p->name = p->c.p;
	if (string_len(p->c.p, p->end, &p->name_len))
		return -EINVAL;
	p->out->pid = m->pid;
	p->out->tid = m->tid;
	p->extra = align8(p->name_len);
	return 0;
}

/*
 * A kernel symbol registered while the recording ran (a BPF program, a BPF trampoline, code the
 * kernel wrote outside its image): a kernel map of its own, named after the symbol, as perf
 * report makes it. It becomes an MMAP of pid -1 marked ksymbol, whose name is the symbol's. An
 * unregistration is skipped (the address range is rarely reused within one recording).
 */
static int parse_ksymbol(struct rec_parse *p)
{
	struct rec_mmap *m = &p->out->u.mmap;
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	if (body_after_trailer(p, false))
		return -EINVAL;
	if (cursor_u64(&p->c, &addr) || cursor_left(&p->c) < 8)
		return -EINVAL;
	memcpy(&len, p->c.p, 4);
	memcpy(&flags, p->c.p + 6, 2);
	if (p->cfg->swapped) {
		len = __builtin_bswap32(len);
		flags = __builtin_bswap16(flags);
	}
	p->c.p += 8;
	if (string_len(p->c.p, p->end, &p->name_len))
		return -EINVAL;
	if (flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) {
		p->out->type = REC_OTHER;
		return 0;
	}
	p->out->type = REC_MMAP;
	m->pid = m->tid = UINT32_MAX;
	m->start = addr;
	m->len = len;
	m->executable = 1;
	m->ksymbol = 1;
	p->name = p->c.p;
	p->out->pid = m->pid;
	p->out->tid = m->tid;
	p->extra = align8(p->name_len);
	return 0;
}

static int parse_cgroup(struct rec_parse *p)
{
	p->out->type = REC_CGROUP;
	if (body_after_trailer(p, false))
		return -EINVAL;
	if (cursor_u64(&p->c, &p->out->u.cgroup.id) || string_len(p->c.p, p->end, &p->name_len))
		return -EINVAL;
	p->name = p->c.p;
	p->extra = align8(p->name_len);
	return 0;
}

static int parse_comm(struct rec_parse *p)
{
	struct rec_comm *cm = &p->out->u.comm;
	size_t n;
	p->out->type = REC_COMM;
	if (body_after_trailer(p, false))
		return -EINVAL;
	if (cursor_u32_pair(&p->c, &cm->pid, &cm->tid) || string_len(p->c.p, p->end, &n))
		return -EINVAL;
	/* The kernel's comm is 16 bytes; keep what fits and always terminate. */
	if (n > REC_COMM_MAX)
		n = REC_COMM_MAX;
	memcpy(cm->comm, p->c.p, n);
	cm->comm[REC_COMM_MAX - 1] = '\0';
	cm->exec = (p->h.misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
	p->out->pid = cm->pid;
	p->out->tid = cm->tid;
	return 0;
}

/* FORK and EXIT. */
static int parse_task(struct rec_parse *p)
{
	struct rec_task *t = &p->out->u.task;
	p->out->type = p->h.type == PERF_RECORD_FORK ? REC_FORK : REC_EXIT;
	if (body_after_trailer(p, false))
		return -EINVAL;
	if (cursor_u32_pair(&p->c, &t->pid, &t->ppid) || cursor_u32_pair(&p->c, &t->tid, &t->ptid) ||
	    cursor_u64(&p->c, &t->time))
		return -EINVAL;
	p->out->pid = t->pid;
	p->out->tid = t->tid;
	if (!p->out->time)
		p->out->time = t->time;
	return 0;
}

/* LOST (id, lost) and LOST_SAMPLES (lost). */
static int parse_lost(struct rec_parse *p)
{
	struct rec_lost *l = &p->out->u.lost;
	bool samples = p->h.type == PERF_RECORD_LOST_SAMPLES;
	p->out->type = samples ? REC_LOST_SAMPLES : REC_LOST;
	if (body_after_trailer(p, true))
		return -EINVAL;
	if ((!samples && cursor_u64(&p->c, &l->id)) || cursor_u64(&p->c, &l->lost))
		return -EINVAL;
	return 0;
}

static int parse_throttle(struct rec_parse *p)
{
	struct rec_throttle *t = &p->out->u.throttle;
	p->out->type = p->h.type == PERF_RECORD_THROTTLE ? REC_THROTTLE : REC_UNTHROTTLE;
	if (body_after_trailer(p, true))
		return -EINVAL;
	if (cursor_u64(&p->c, &t->time) || cursor_u64(&p->c, &t->id) || cursor_u64(&p->c, &t->stream_id))
		return -EINVAL;
	if (!p->out->time)
		p->out->time = t->time;
	return 0;
}

/* SWITCH (the task of the sample_id switched in or, with MISC_SWITCH_OUT, out) and SWITCH_CPU_WIDE
 * (the same, naming the task on the other side). */
static int parse_switch(struct rec_parse *p)
{
	struct rec_switch *w = &p->out->u.sw;
	p->out->type = REC_SWITCH;
	if (body_after_trailer(p, true))
		return -EINVAL;
	w->out = (p->h.misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
	w->preempt = (p->h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
	w->cpu_wide = p->h.type == PERF_RECORD_SWITCH_CPU_WIDE;
	if (w->cpu_wide && cursor_u32_pair(&p->c, &w->next_prev_pid, &w->next_prev_tid))
		return -EINVAL;
	return 0;
}

/* Any other type: kept as REC_OTHER. Kernel-generated types carry the trailer too (useful for
 * ordering) and their fixed part must fit in what is left; a type we do not know is not an error;
 * perf.data's own records have no trailer and their reader checks them. */
static int parse_other(struct rec_parse *p)
{
	p->out->type = REC_OTHER;
	if (p->h.type >= PARSE_USER_TYPE_START)
		return 0;
	if (body_after_trailer(p, true))
		return -EINVAL;
	return other_body_check(p->cfg, p->h.type, &p->c) ? -EINVAL : 0;
}

/* The trailing data after the struct, in a fixed order: callchain, user regs, user stack, raw, file
 * name (the room was checked). */
static void copy_trailing(const struct rec_parse *p)
{
	struct rec *out = p->out;
	const struct sample_parts *sp = &p->sp;
	unsigned char *dst = (unsigned char *)out + sizeof(*out);
	uint32_t off = sizeof(*out);
	if (out->type == REC_CGROUP) {
		out->u.cgroup.path_off = off;
		memcpy(dst, p->name, p->name_len);
		memset(dst + p->name_len, 0, align8(p->name_len) - p->name_len);
		return;
	}
	if (out->type == REC_MMAP) {
		out->u.mmap.filename_off = off;
		memcpy(dst, p->name, p->name_len);
		memset(dst + p->name_len, 0, align8(p->name_len) - p->name_len);
		return;
	}
	if (out->type != REC_SAMPLE)
		return;
	struct rec_sample *s = &out->u.sample;
	uint64_t nw = chain_words(sp);
	if (nw) {
		s->callchain_off = off;
		s->callchain_nr = (uint32_t)nw;
		if (sp->chain_keep) {
			memcpy(dst, sp->callchain, sp->chain_keep * 8);
			if (p->cfg->swapped)
				swap_words(dst, sp->chain_keep);
		}
		unsigned char *w = dst + sp->chain_keep * 8;
		uint64_t v = PERF_CONTEXT_USER;
		if (sp->lbr_marker) {
			memcpy(w, &v, 8);
			w += 8;
		}
		if (sp->lbr_words) {
			/* the function running (the last call's target), then the call sites */
			v = word_at(p->cfg, sp->branch, 1);
			memcpy(w, &v, 8);
			w += 8;
			for (uint64_t i = 0; i < sp->branch_nr; i++, w += 8) {
				v = word_at(p->cfg, sp->branch, i * 3);
				memcpy(w, &v, 8);
			}
			s->lbr_chain = 1;
		}
		dst += nw * 8;
		off += (uint32_t)nw * 8;
	}
	if (sp->regs_nr) {
		s->regs_user_off = off;
		s->regs_user_nr = sp->regs_nr;
		memcpy(dst, sp->regs, (size_t)sp->regs_nr * 8);
		if (p->cfg->swapped)
			swap_words(dst, sp->regs_nr);
		dst += (size_t)sp->regs_nr * 8;
		off += sp->regs_nr * 8;
	}
	if (sp->stack_size) {
		s->stack_user_off = off;
		s->stack_user_size = (uint32_t)sp->stack_size;
		memcpy(dst, sp->stack, sp->stack_size);
		memset(dst + sp->stack_size, 0, align8(sp->stack_size) - sp->stack_size);
		dst += align8(sp->stack_size);
		off += (uint32_t)align8(sp->stack_size);
	}
	if (sp->raw_size) {
		/* A tracepoint's fields, as the kernel wrote them (not swapped: their layout is the
		 * format file's, read by whoever knows the event). */
		s->raw_off = off;
		s->raw_size = sp->raw_size;
		memcpy(dst, sp->raw, sp->raw_size);
		memset(dst + sp->raw_size, 0, align8(sp->raw_size) - sp->raw_size);
	}
}

int parse_record(const struct parse_cfg *cfg, const void *bytes, size_t len, struct rec *out,
		 size_t cap)
{
	const unsigned char *base = bytes;
	struct rec_parse p;

	if (len < sizeof(p.h))
		return -EINVAL;
	memcpy(&p.h, base, sizeof(p.h));
	if (cfg->swapped) {
		p.h.type = __builtin_bswap32(p.h.type);
		p.h.misc = __builtin_bswap16(p.h.misc);
		p.h.size = __builtin_bswap16(p.h.size);
	}
	if (p.h.size < sizeof(p.h) || p.h.size > len)
		return -EINVAL;
	if (cap < sizeof(*out))
		return -ENOSPC;

	memset(out, 0, sizeof(*out));
	memset(&p.sp, 0, sizeof(p.sp));
	p.cfg = cfg;
	p.out = out;
	p.name = NULL;
	p.name_len = 0;
	p.extra = 0;
	out->misc = p.h.misc;
	out->perf_type = p.h.type;
	out->evidx = cfg->evidx;
	out->cpu = REC_NO_CPU;
	p.c.p = base + sizeof(p.h);
	p.c.swap = cfg->swapped;
	p.end = base + p.h.size;

	int err;
	switch (p.h.type) {
	case PERF_RECORD_SAMPLE:
		out->type = REC_SAMPLE;
		p.c.end = p.end;
		err = parse_sample(cfg, &p.c, out, &p.sp);
		if (!err)
			lbr_chain_plan(cfg, &p.sp);
		p.extra = chain_words(&p.sp) * 8 + (uint64_t)p.sp.regs_nr * 8 + align8(p.sp.stack_size) +
			  align8(p.sp.raw_size);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: err = parse_mmap(&p); break;
	case PERF_RECORD_COMM: err = parse_comm(&p); break;
	case PERF_RECORD_CGROUP: err = parse_cgroup(&p); break;
	case PERF_RECORD_KSYMBOL: err = parse_ksymbol(&p); break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: err = parse_task(&p); break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES: err = parse_lost(&p); break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE: err = parse_throttle(&p); break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE: err = parse_switch(&p); break;
	default: err = parse_other(&p); break;
	}
	if (err)
		return err;
	if (p.extra > (uint64_t)cap - sizeof(*out))
		return -ENOSPC;
	out->size = (uint32_t)(sizeof(*out) + p.extra);
	copy_trailing(&p);
	return 0;
}

/* A u64 at p + off when it lies within [p, p + len). */
static bool peek_u64(const struct parse_cfg *cfg, const unsigned char *p, size_t len, size_t off,
		     uint64_t *v)
{
	if (off > len || len - off < 8)
		return false;
	memcpy(v, p + off, 8);
	if (cfg->swapped)
		*v = __builtin_bswap64(*v);
	return true;
}

int parse_record_time(const struct parse_cfg *cfg, const void *bytes, size_t len, uint64_t *time)
{
	struct perf_event_header h;
	const unsigned char *p = bytes;
	uint64_t st = cfg->sample_type;

	*time = 0;
	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, p, sizeof(h));
	if (cfg->swapped) {
		h.type = __builtin_bswap32(h.type);
		h.size = __builtin_bswap16(h.size);
	}
	if (h.size < sizeof(h) || h.size > len)
		return -EINVAL;
	len = h.size;
	if (h.type == PERF_RECORD_SAMPLE) {
		/* IDENTIFIER, IP, TID come before TIME; the sample needs them all */
		size_t off = sizeof(h) + 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
					      !!(st & PERF_SAMPLE_TID));
		if ((st & PERF_SAMPLE_TIME) && !peek_u64(cfg, p, len, off, time))
			return -EINVAL;
		return 0;
	}
	if (h.type >= PARSE_USER_TYPE_START)
		return 0;
	size_t n = trailer_size(st);
	if (cfg->sample_id_all && n) {
		if (len - sizeof(h) < n)
			return -EINVAL;
		if (st & PERF_SAMPLE_TIME)
			peek_u64(cfg, p, len, len - n + 8 * !!(st & PERF_SAMPLE_TID), time);
	}
	/* FORK and EXIT (pid, ppid, tid, ptid, time) and THROTTLE (time, ...) carry one of their own,
	 * taken when the trailer has none */
	if (!*time && (h.type == PERF_RECORD_FORK || h.type == PERF_RECORD_EXIT))
		peek_u64(cfg, p, len - (cfg->sample_id_all ? n : 0), sizeof(h) + 16, time);
	else if (!*time && (h.type == PERF_RECORD_THROTTLE || h.type == PERF_RECORD_UNTHROTTLE))
		peek_u64(cfg, p, len - (cfg->sample_id_all ? n : 0), sizeof(h), time);
	return 0;
}
