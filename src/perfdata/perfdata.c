/*
 * perfdata: the perf.data reader.
 *
 * Layers, bottom up:
 *   input    the data section as one run of bytes: a regular file is mapped (read() copied every
 *            byte once more, and moved each partial record back to the start of its buffer), a
 *            memory buffer is used as it is; stdin and anything that cannot be mapped go through a
 *            buffered stream over the FILE. Limited to the data section when the header says where
 *            it ends. The mapped pages behind the reading point are given back as it moves on, so
 *            that a file counts in the resident set only by a window, not by its size;
 *   raw      one perf record at a time, from the file or from the zstd stream of COMPRESSED records
 *            (a record may straddle two COMPRESSED records, so decompressed bytes are kept until a
 *            whole record is there); perf's own user records (attrs and features in pipe mode, rounds,
 *            payload-carrying AUXTRACE and TRACING_DATA) are handled here;
 *   order    kernel records are parsed (parse_record, with the attr their sample id points to) into an
 *            arena and released in time order: at each FINISHED_ROUND everything up to the largest
 *            time seen before the previous round, as perf does; when the arena reaches its cap, the
 *            older half; at the end, the rest.
 *
 * Everything is bounded: the input buffer holds one record at most 64 KiB plus slack, the
 * decompression buffer is fixed, the reorder arena is capped, feature sections and id lists are
 * capped. A size field never drives an allocation beyond those caps.
 *
 * Byte order: a file written on a machine of the other byte order has a byte-swapped magic; every
 * field read here is swapped, and parse_cfg.swapped makes parse_record do the same for records.
 */
#include "perfdata/perfdata.h"
#include "perfdata/perfdata_dir.h"
#include "perfdata/perfdata_tracing.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "perfdata/format.h"
#include "record/parse.h"
#include "util/radix.h"
#include "util/util.h"

#define PD_MAX_EVENTS 256
#define PD_MAX_IDS (1u << 20)        /* all events together */
#define PD_MAX_ATTR_SIZE 4096
#define PD_MAX_FEATURE (16u << 20)   /* one feature section */
#define PD_MAX_LINES 4096
#define PD_BUF_SIZE (1u << 20)       /* input buffer: a record is at most 64 KiB */
#define PD_TRACING_PREFIX (512u << 10) /* of a stream's tracing data: where its formats are */
#define PD_ZOUT_SIZE (1u << 20)      /* decompressed bytes not yet consumed */
#define PD_REORDER_CAP (64u << 20)   /* parsed records waiting for their round */
#define PD_REC_MAX (sizeof(struct rec) + 65536 + 64) /* largest parsed form of one record */
#define PD_RELEASE_STEP (256u << 10) /* mapped bytes read between two releases of the pages behind */
#define PD_MAX_BUILD_IDS 4096        /* (path, build-id) pairs kept for the symbolizer */

struct pd_event {
	struct perfdata_event pub;
	struct parse_cfg cfg;
	uint64_t *ids;
	bool named;                /* name came from the file (EVENT_DESC) */
};

/* A record waiting for its turn: parsed in the arena, or (in_file) still raw where it lies in the
 * mapped file, to be parsed when it is handed out. */
struct pd_ent {
	uint64_t time;
	uint64_t off;              /* in the arena, or in the file */
	uint32_t evi;              /* the event it belongs to (in_file) */
	uint32_t in_file;
};

struct perfdata_reader {
	FILE *f;
	bool own_f;
	bool pipe_format;          /* the 16-byte pipe header: attrs and features come inline */
	bool seekable;
	/* A pipe or FIFO (-i -): read(2) takes what has arrived, so a live stream is followed as it
	 * comes instead of in buffers' worth (stdio's fread waits for a whole one). */
	bool follow;
	atomic_bool interrupted;   /* perfdata_interrupt: a followed stream reads no more */
	bool swapped;
	char path[256];

	struct pd_event ev[PD_MAX_EVENTS];
	size_t nev;
	size_t total_ids;
	/* id -> event index, open addressing; 0 is the empty key (perf never hands out id 0) */
	uint64_t *hkeys;
	uint32_t *hvals;
	size_t hcap, hcount;

	struct perfdata_info info;
	size_t lines_cap;

	/* input: buf is own_buf (a stream) or the bytes of the whole file (mem; mapped: ours) */
	const unsigned char *buf;
	unsigned char *own_buf;
	size_t bpos, blen;
	uint64_t file_pos;         /* file offset of buf[blen] */
	const unsigned char *mem;
	size_t mem_len;
	bool mapped;
	size_t released;           /* mapped pages below this offset were given back */
	size_t release_at;         /* the reading point where in_release looks next */
	uint64_t data_start;       /* offset of the first data record (after pipe-mode preamble) */
	uint64_t data_end;         /* UINT64_MAX when unknown (pipe, or data size 0 in the header) */
	bool header_unfinished;    /* data size 0 or no feature bits: the writer never finished it */
	bool eof;

	/* zstd */
	ZSTD_DStream *zd;
	unsigned char *zin;
	size_t zin_len, zin_pos;
	unsigned char *zout;
	size_t zout_pos, zout_len;

	/* reorder */
	unsigned char *arena, *arena2;
	size_t arena_len, arena_cap, arena2_cap;
	struct radix_kv *sort_kv;  /* order_flush's scratch */
	size_t sort_kv_cap;
	struct pd_ent *sort_ents;
	size_t sort_ents_cap;
	size_t live_bytes;         /* of the arena: records not handed out yet */
	size_t file_live;          /* bytes of the records waiting raw in the mapped file */
	struct rec *scratch;       /* a record from the file, parsed when handed out */
	size_t sorted_end;         /* ents[next_ent, sorted_end) are in order (left from a flush) */
	struct pd_ent *ents;
	size_t nents, ents_cap, ready, next_ent;
	uint64_t max_time, next_flush;

	/* The recording's (path, build-id) pairs: the BUILD_ID feature, a stream's HEADER_BUILD_ID
	 * records. Appended by whichever thread reads (perfdata_ahead's), read by the consumer: an
	 * entry is complete before nbids counts it (release), and never changes after. */
	struct perfdata_build_id **bids;
	atomic_size_t nbids;
	uint64_t bids_dropped;

	bool done;
	bool in_preamble;          /* open_pipe_preamble is reading */
	bool attrs_frozen;         /* after a rewind, pipe-mode attrs are not added again */
	struct perfdata_stats stats;
	uint64_t raw_records;      /* complete records read from the data, for the cut-short message */
};

/* ---- small helpers ---- */

static uint64_t sw64(const struct perfdata_reader *r, uint64_t v)
{
	return r->swapped ? __builtin_bswap64(v) : v;
}

static uint32_t sw32(const struct perfdata_reader *r, uint32_t v)
{
	return r->swapped ? __builtin_bswap32(v) : v;
}

static uint16_t sw16(const struct perfdata_reader *r, uint16_t v)
{
	return r->swapped ? __builtin_bswap16(v) : v;
}

static uint64_t ld64(const struct perfdata_reader *r, const void *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return sw64(r, v);
}

static uint32_t ld32(const struct perfdata_reader *r, const void *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return sw32(r, v);
}

static void set_warning(struct perfdata_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_warning(struct perfdata_reader *r, const char *fmt, ...)
{
	va_list ap;
	if (r->stats.warning[0])
		return; /* the first reason reading stopped is the one to tell */
	va_start(ap, fmt);
	vsnprintf(r->stats.warning, sizeof(r->stats.warning), fmt, ap);
	va_end(ap);
}

const char *perfdata_record_name(uint32_t type)
{
	static const char *const kernel[] = { NULL, "MMAP", "LOST", "COMM", "EXIT", "THROTTLE",
		"UNTHROTTLE", "FORK", "READ", "SAMPLE", "MMAP2", "AUX", "ITRACE_START", "LOST_SAMPLES",
		"SWITCH", "SWITCH_CPU_WIDE", "NAMESPACES", "KSYMBOL", "BPF_EVENT", "CGROUP",
		"TEXT_POKE", "AUX_OUTPUT_HW_ID" };
	static const char *const user[] = { "HEADER_ATTR", "HEADER_EVENT_TYPE",
		"HEADER_TRACING_DATA", "HEADER_BUILD_ID", "FINISHED_ROUND", "ID_INDEX",
		"AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR", "THREAD_MAP", "CPU_MAP", "STAT_CONFIG",
		"STAT", "STAT_ROUND", "EVENT_UPDATE", "TIME_CONV", "HEADER_FEATURE", "COMPRESSED",
		"FINISHED_INIT", "COMPRESSED2" };
	if (type < ARRAY_SIZE(kernel))
		return kernel[type];
	if (type >= PD_HEADER_ATTR && type - PD_HEADER_ATTR < ARRAY_SIZE(user))
		return user[type - PD_HEADER_ATTR];
	return NULL;
}

/* One record of this type did not parse and is skipped: counted, by kind for the warning. */
static void count_bad(struct perfdata_reader *r, uint32_t type)
{
	r->stats.bad_records++;
	for (size_t i = 0; i < ARRAY_SIZE(r->stats.bad_kinds); i++) {
		if (!r->stats.bad_kinds[i].n)
			r->stats.bad_kinds[i].type = type;
		if (r->stats.bad_kinds[i].type == type) {
			r->stats.bad_kinds[i].n++;
			return;
		}
	}
}

static void add_line(struct perfdata_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_line(struct perfdata_reader *r, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	if (r->info.nextra >= PD_MAX_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	/* header lines are one line each: a newline in a command line would break "name: value" */
	for (char *p = tmp; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	xgrow((void **)&r->info.extra_lines, &r->lines_cap, r->info.nextra + 1, sizeof(char *));
	r->info.extra_lines[r->info.nextra++] = xstrdup(tmp);
}

/* The name perf gives an event of this type and config when the file does not name it. */
static void canonical_name(const struct perf_event_attr *a, char *out, size_t len)
{
	static const char *const hw[] = {"cycles", "instructions", "cache-references",
		"cache-misses", "branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
		"stalled-cycles-backend", "ref-cycles"};
	static const char *const sw[] = {"cpu-clock", "task-clock", "page-faults",
		"context-switches", "cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
		"emulation-faults", "dummy", "bpf-output", "cgroup-switches"};
	if (a->type == PERF_TYPE_HARDWARE && a->config < ARRAY_SIZE(hw))
		snprintf(out, len, "%s", hw[a->config]);
	else if (a->type == PERF_TYPE_SOFTWARE && a->config < ARRAY_SIZE(sw))
		snprintf(out, len, "%s", sw[a->config]);
	else
		snprintf(out, len, "event type %u config 0x%" PRIx64, a->type, (uint64_t)a->config);
	/* perf's modifiers, from the attr: k, u, h for the contexts counted when some are excluded;
	 * p for each level of precise_ip; H and G for host and guest counted when exclude_guest is
	 * not what those imply (excluded with any of the above, counted without). */
	char mod[16];
	size_t n = 0;
	bool guest_off_default = false;
	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		if (!a->exclude_kernel)
			mod[n++] = 'k';
		if (!a->exclude_user)
			mod[n++] = 'u';
		if (!a->exclude_hv)
			mod[n++] = 'h';
		guest_off_default = true;
	}
	for (unsigned i = 0; i < a->precise_ip && i < 3; i++)
		mod[n++] = 'p';
	if (a->precise_ip)
		guest_off_default = true;
	if (a->exclude_host || (bool)a->exclude_guest == guest_off_default) {
		if (!a->exclude_host)
			mod[n++] = 'H';
		if (!a->exclude_guest)
			mod[n++] = 'G';
	}
	size_t used = strnlen(out, len);
	if (n && used + n + 2 <= len)
		snprintf(out + used, len - used, ":%.*s", (int)n, mod);
}

/* ---- attrs and ids ---- */

/* Reverses the bits of a 64-bit word (with a byte swap: the bits of each byte reversed). */
static uint64_t bit_reverse64(uint64_t v)
{
	uint64_t out = 0;
	for (int i = 0; i < 64; i++, v >>= 1)
		out = (out << 1) | (v & 1);
	return out;
}

/* Swaps an attr read from a file of the other byte order, field by field (its layout has u16,
 * u32 and u64 fields and one u64 of bitfields). */
static void attr_swap(struct perf_event_attr *a)
{
	uint64_t flags;
	a->type = __builtin_bswap32(a->type);
	a->size = __builtin_bswap32(a->size);
	a->config = __builtin_bswap64(a->config);
	a->sample_period = __builtin_bswap64(a->sample_period);
	a->sample_type = __builtin_bswap64(a->sample_type);
	a->read_format = __builtin_bswap64(a->read_format);
	/*
	 * The word of bitfields: a big-endian compiler allocates them from the most significant bit,
	 * so field bit n is bit 7 - n % 8 of byte n / 8 there: reversing the bits of each byte puts
	 * every one-bit field in its place (what perf's reader does, util/session.c swap_bitfield).
	 * A wider field also keeps its most significant bit first there: precise_ip (bits 15-16),
	 * the only one, has its two bits exchanged back (perf leaves 1 and 2 the other way round).
	 */
	memcpy(&flags, (char *)a + 40, 8);
	flags = bit_reverse64(__builtin_bswap64(flags));
	uint64_t pip = flags >> 15 & 3;
	flags = (flags & ~(3ull << 15)) | ((pip >> 1 | (pip & 1) << 1) << 15);
	memcpy((char *)a + 40, &flags, 8);
	a->wakeup_events = __builtin_bswap32(a->wakeup_events);
	a->bp_type = __builtin_bswap32(a->bp_type);
	a->config1 = __builtin_bswap64(a->config1);
	a->config2 = __builtin_bswap64(a->config2);
	a->branch_sample_type = __builtin_bswap64(a->branch_sample_type);
	a->sample_regs_user = __builtin_bswap64(a->sample_regs_user);
	a->sample_stack_user = __builtin_bswap32(a->sample_stack_user);
	a->clockid = (int32_t)__builtin_bswap32((uint32_t)a->clockid);
	a->sample_regs_intr = __builtin_bswap64(a->sample_regs_intr);
	a->aux_watermark = __builtin_bswap32(a->aux_watermark);
	a->sample_max_stack = __builtin_bswap16(a->sample_max_stack);
	a->aux_sample_size = __builtin_bswap32(a->aux_sample_size);
	a->sig_data = __builtin_bswap64(a->sig_data);
}

/* Copies an attr of attr_size bytes from the file into a, zero-filling what an older writer did
 * not have and ignoring what a newer one added. */
static void attr_load(struct perfdata_reader *r, const unsigned char *p, size_t attr_size,
		      struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	memcpy(a, p, attr_size < sizeof(*a) ? attr_size : sizeof(*a));
	if (r->swapped)
		attr_swap(a);
}

static void id_insert(struct perfdata_reader *r, uint64_t id, uint32_t evidx)
{
	if (id == 0)
		return;
	if ((r->hcount + 1) * 2 > r->hcap) {
		size_t ncap = r->hcap ? r->hcap * 2 : 64;
		uint64_t *nk = xcalloc(ncap, sizeof(*nk));
		uint32_t *nv = xcalloc(ncap, sizeof(*nv));
		for (size_t i = 0; i < r->hcap; i++) {
			if (!r->hkeys[i])
				continue;
			size_t j = (size_t)(r->hkeys[i] * 0x9E3779B97F4A7C15ULL) & (ncap - 1);
			while (nk[j])
				j = (j + 1) & (ncap - 1);
			nk[j] = r->hkeys[i];
			nv[j] = r->hvals[i];
		}
		free(r->hkeys);
		free(r->hvals);
		r->hkeys = nk;
		r->hvals = nv;
		r->hcap = ncap;
	}
	size_t j = (size_t)(id * 0x9E3779B97F4A7C15ULL) & (r->hcap - 1);
	while (r->hkeys[j] && r->hkeys[j] != id)
		j = (j + 1) & (r->hcap - 1);
	if (!r->hkeys[j])
		r->hcount++;
	r->hkeys[j] = id;
	r->hvals[j] = evidx;
}

static int id_lookup(const struct perfdata_reader *r, uint64_t id)
{
	if (!r->hcap || !id)
		return -1;
	size_t j = (size_t)(id * 0x9E3779B97F4A7C15ULL) & (r->hcap - 1);
	while (r->hkeys[j]) {
		if (r->hkeys[j] == id)
			return (int)r->hvals[j];
		j = (j + 1) & (r->hcap - 1);
	}
	return -1;
}

/* Adds an event with its ids (nids words at ids, in file byte order). */
static int event_add(struct perfdata_reader *r, const struct perf_event_attr *a,
		     const unsigned char *ids, size_t nids)
{
	struct pd_event *e;
	if (r->nev >= PD_MAX_EVENTS)
		return -E2BIG;
	if (nids > PD_MAX_IDS - r->total_ids)
		return -E2BIG;
	e = &r->ev[r->nev];
	memset(e, 0, sizeof(*e));
	e->pub.attr = *a;
	canonical_name(a, e->pub.name, sizeof(e->pub.name));
	parse_cfg_init(&e->cfg, a, (uint32_t)r->nev);
	e->cfg.swapped = r->swapped;
	if (nids) {
		e->ids = xmalloc(nids * sizeof(uint64_t));
		for (size_t i = 0; i < nids; i++) {
			e->ids[i] = ld64(r, ids + i * 8);
			id_insert(r, e->ids[i], (uint32_t)r->nev);
		}
	}
	e->pub.ids = e->ids;
	e->pub.nids = nids;
	r->total_ids += nids;
	r->nev++;
	return 0;
}

/* ---- input ---- */

/* Makes at least need bytes available at buf + bpos unless the data ends first; returns what is
 * available (may be less than need at the end). */
static size_t in_fill(struct perfdata_reader *r, size_t need)
{
	if (r->blen - r->bpos >= need || r->eof)
		return r->blen - r->bpos;
	if (!r->own_buf)
		r->buf = r->own_buf = xmalloc(PD_BUF_SIZE);
	if (r->bpos) {
		memmove(r->own_buf, r->buf + r->bpos, r->blen - r->bpos);
		r->blen -= r->bpos;
		r->bpos = 0;
	}
	while (r->blen < need && !r->eof) {
		size_t want = PD_BUF_SIZE - r->blen;
		if (r->data_end != UINT64_MAX) {
			uint64_t left = r->data_end > r->file_pos ? r->data_end - r->file_pos : 0;
			if (left < want)
				want = (size_t)left;
		}
		if (want == 0) {
			r->eof = true;
			break;
		}
		size_t got;
		if (r->follow) {
			/* waits in slices, so that perfdata_interrupt (another thread) ends the wait */
			struct pollfd pf = { .fd = fileno(r->f), .events = POLLIN };
			if (atomic_load(&r->interrupted)) {
				r->eof = true;
				break;
			}
			if (poll(&pf, 1, 100) == 0 || (pf.revents == 0))
				continue;
			ssize_t k = read(fileno(r->f), r->own_buf + r->blen, want);
			if (k < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			got = k > 0 ? (size_t)k : 0;
		} else {
			got = fread(r->own_buf + r->blen, 1, want, r->f);
		}
		r->blen += got;
		r->file_pos += got;
		if (got == 0)
			r->eof = true;
	}
	return r->blen - r->bpos;
}

/* Reads from the bytes in memory from file offset off on: all of them are there at once, up to the
 * end of the data (or of the bytes, when the data is said to go further). */
static void in_mem_at(struct perfdata_reader *r, uint64_t off)
{
	uint64_t end = r->data_end < r->mem_len ? r->data_end : r->mem_len;
	r->buf = r->mem;
	r->blen = (size_t)end;
	r->bpos = off < end ? (size_t)off : (size_t)end;
	r->file_pos = off < end ? end : off; /* past the end: in_offset() still says where */
	r->eof = true;
	r->released = 0;
	r->release_at = r->bpos + PD_RELEASE_STEP;
}

/* Gives back the mapped pages wholly behind both the reading point and the records that wait in the
 * file: they stay in the page cache, out of our resident set. */
static void in_release(struct perfdata_reader *r)
{
	if (!r->mapped || r->bpos < r->release_at)
		return;
	r->release_at = r->bpos + PD_RELEASE_STEP;
	size_t off = r->bpos;
	for (size_t i = r->next_ent; i < r->nents; i++)
		if (r->ents[i].in_file && r->ents[i].off < off)
			off = (size_t)r->ents[i].off;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t from = r->released / page * page, to = off / page * page;
	if (to > from) {
		madvise((void *)(r->mem + from), to - from, MADV_DONTNEED);
		r->released = to;
	}
}

/* File offset of the next unread byte. */
static uint64_t in_offset(const struct perfdata_reader *r)
{
	return r->file_pos - (r->blen - r->bpos);
}

/* Skips n bytes of payload that follow some user records (AUXTRACE data, tracing data). */
static bool in_skip(struct perfdata_reader *r, uint64_t n)
{
	while (n) {
		size_t have = in_fill(r, 1);
		if (!have)
			return false;
		size_t k = have < n ? have : (size_t)n;
		r->bpos += k;
		n -= k;
	}
	return true;
}

/* ---- feature sections ---- */

/* A bounded cursor over one feature section. */
struct fcur {
	const struct perfdata_reader *r;
	const unsigned char *p, *end;
	bool bad;
};

static uint32_t f32(struct fcur *c)
{
	if (c->bad || c->end - c->p < 4) {
		c->bad = true;
		return 0;
	}
	uint32_t v = ld32(c->r, c->p);
	c->p += 4;
	return v;
}

static uint64_t f64(struct fcur *c)
{
	if (c->bad || c->end - c->p < 8) {
		c->bad = true;
		return 0;
	}
	uint64_t v = ld64(c->r, c->p);
	c->p += 8;
	return v;
}

/* perf's header string: u32 len (with padding), then len bytes holding a NUL-terminated string. */
static const char *fstr(struct fcur *c, char *out, size_t outlen)
{
	uint32_t len = f32(c);
	out[0] = '\0';
	if (c->bad || len > (size_t)(c->end - c->p)) {
		c->bad = true;
		return out;
	}
	size_t n = strnlen((const char *)c->p, len);
	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, c->p, n);
	out[n] = '\0';
	c->p += len;
	return out;
}

/* A list of nr strings joined with sep into out. */
static void fstr_list(struct fcur *c, uint32_t nr, const char *sep, char *out, size_t outlen)
{
	char s[1024];
	size_t used = 0;
	out[0] = '\0';
	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		fstr(c, s, sizeof(s));
		int n = snprintf(out + used, outlen - used, "%s%s", i ? sep : "", s);
		if (n < 0 || (size_t)n >= outlen - used) {
			/* keep reading to validate, but stop appending */
			used = outlen - 1;
			continue;
		}
		used += (size_t)n;
	}
}

static void feature_event_desc(struct perfdata_reader *r, struct fcur *c)
{
	uint32_t nre = f32(c), asz = f32(c);
	char name[256];
	if (c->bad || asz < PERF_ATTR_SIZE_VER0 || asz > PD_MAX_ATTR_SIZE)
		return;
	for (uint32_t i = 0; i < nre && !c->bad; i++) {
		struct perf_event_attr a;
		uint64_t first_id = 0;
		if ((size_t)(c->end - c->p) < asz) {
			c->bad = true;
			break;
		}
		attr_load(r, c->p, asz, &a);
		c->p += asz;
		uint32_t nids = f32(c);
		fstr(c, name, sizeof(name));
		if (c->bad || nids > (size_t)(c->end - c->p) / 8) {
			c->bad = true;
			break;
		}
		if (nids)
			first_id = ld64(r, c->p);
		c->p += (size_t)nids * 8;
		/* match by id, else by position */
		int idx = first_id ? id_lookup(r, first_id) : -1;
		if (idx < 0 && i < r->nev)
			idx = (int)i;
		if (idx >= 0 && name[0]) {
			snprintf(r->ev[idx].pub.name, sizeof(r->ev[idx].pub.name), "%.127s", name);
			r->ev[idx].named = true;
		}
		add_line(r, "event: %s (type %u, config 0x%" PRIx64 ", %s %" PRIu64
			 ", sample_type 0x%" PRIx64 ", %u ids)", name, a.type, (uint64_t)a.config,
			 a.freq ? "freq" : "period", (uint64_t)a.sample_period,
			 (uint64_t)a.sample_type, nids);
	}
}

/* Keeps one (path, build-id) pair for perfdata_build_ids, once: a rewound stream or file gives its
 * records again. Files (a path from /) and the recording's kernel ("[kernel.kallsyms]": whether
 * this machine's kallsyms may name its addresses). */
static void build_id_keep(struct perfdata_reader *r, const char *path, const unsigned char *bid,
			  unsigned blen)
{
	if ((path[0] != '/' && strcmp(path, "[kernel.kallsyms]") != 0) || blen == 0)
		return;
	size_t n = atomic_load_explicit(&r->nbids, memory_order_relaxed);
	for (size_t i = 0; i < n; i++)
		if (r->bids[i]->size == blen && memcmp(r->bids[i]->bid, bid, blen) == 0 &&
		    strcmp(r->bids[i]->path, path) == 0)
			return;
	if (n >= PD_MAX_BUILD_IDS) {
		r->bids_dropped++;
		return;
	}
	if (!r->bids)
		r->bids = xcalloc(PD_MAX_BUILD_IDS, sizeof(*r->bids));
	size_t pl = strlen(path);
	struct perfdata_build_id *e = xcalloc(1, sizeof(*e) + pl + 1);
	memcpy(e->bid, bid, blen);
	e->size = (uint8_t)blen;
	memcpy(e->path, path, pl + 1);
	r->bids[n] = e;
	atomic_store_explicit(&r->nbids, n + 1, memory_order_release);
}

/* One build-id entry (a feature section's, or a HEADER_BUILD_ID record: the same layout): header,
 * pid, build_id[24] (20 bytes + a size byte), file name. Returns its size, 0 when it is bad. */
static size_t build_id_entry(struct perfdata_reader *r, const unsigned char *p, size_t avail,
			     bool list)
{
	if (avail < PD_BUILD_ID_HEAD)
		return 0;
	uint16_t misc, size;
	memcpy(&misc, p + 4, 2);
	memcpy(&size, p + 6, 2);
	misc = sw16(r, misc);
	size = sw16(r, size);
	if (size < PD_BUILD_ID_HEAD || size > avail)
		return 0;
	const unsigned char *bid = p + 12;
	unsigned blen = PD_BUILD_ID_MAX;
	if (misc & PD_MISC_BUILD_ID_SIZE)
		blen = bid[PD_BUILD_ID_MAX] < PD_BUILD_ID_MAX ? bid[PD_BUILD_ID_MAX] : PD_BUILD_ID_MAX;
	char hex[41], fname[512];
	hex_encode(hex, bid, blen);
	size_t fl = strnlen((const char *)p + PD_BUILD_ID_HEAD, size - (size_t)PD_BUILD_ID_HEAD);
	if (fl >= sizeof(fname))
		fl = sizeof(fname) - 1;
	memcpy(fname, p + PD_BUILD_ID_HEAD, fl);
	fname[fl] = '\0';
	if (list)
		add_line(r, "build-id: %s %s", hex, fname);
	build_id_keep(r, fname, bid, blen);
	return size;
}

static void feature_build_ids(struct perfdata_reader *r, struct fcur *c)
{
	size_t n = 0;
	while (!c->bad && c->p < c->end) {
		size_t size = build_id_entry(r, c->p, (size_t)(c->end - c->p), n < 1000);
		if (!size)
			break;
		n++;
		c->p += size;
	}
}

const struct perfdata_build_id *const *perfdata_build_ids(const struct perfdata_reader *r, size_t *n)
{
	*n = atomic_load_explicit(&((struct perfdata_reader *)r)->nbids, memory_order_acquire);
	/* the table's pointer is read only once an entry is published (it is set before the first) */
	return *n ? (const struct perfdata_build_id *const *)r->bids : NULL;
}

/* One feature section's bytes, by feature bit. Bad content is ignored (it is only metadata). */
static void feature_parse(struct perfdata_reader *r, unsigned feat, const unsigned char *p, size_t len)
{
	struct fcur c = {r, p, p + len, false};
	struct perfdata_info *in = &r->info;
	char s[4096];

	switch (feat) {
	case FEAT_TRACING_DATA: {
		const unsigned char *text;
		size_t tlen;
		if (perfdata_tracing_format(p, len, "sched", "sched_switch", &text, &tlen)) {
			if (tlen >= sizeof(in->switch_format))
				tlen = sizeof(in->switch_format) - 1;
			memcpy(in->switch_format, text, tlen);
			in->switch_format[tlen] = 0;
		}
		break;
	}
	case FEAT_HOSTNAME:
		fstr(&c, in->hostname, sizeof(in->hostname));
		break;
	case FEAT_OSRELEASE:
		fstr(&c, in->osrelease, sizeof(in->osrelease));
		break;
	case FEAT_VERSION:
		fstr(&c, in->version, sizeof(in->version));
		break;
	case FEAT_ARCH:
		fstr(&c, in->arch, sizeof(in->arch));
		break;
	case FEAT_NRCPUS:
		in->nr_cpus_avail = f32(&c);
		in->nr_cpus_online = f32(&c);
		break;
	case FEAT_CPUDESC:
		fstr(&c, in->cpudesc, sizeof(in->cpudesc));
		break;
	case FEAT_CPUID:
		fstr(&c, in->cpuid, sizeof(in->cpuid));
		break;
	case FEAT_TOTAL_MEM:
		in->total_mem_kib = f64(&c);
		break;
	case FEAT_CMDLINE: {
		uint32_t nr = f32(&c);
		fstr_list(&c, nr, " ", in->cmdline, sizeof(in->cmdline));
		break;
	}
	case FEAT_EVENT_DESC:
		feature_event_desc(r, &c);
		break;
	case FEAT_CPU_TOPOLOGY: {
		uint32_t nr = f32(&c);
		fstr_list(&c, nr, ", ", s, sizeof(s));
		if (!c.bad)
			add_line(r, "sibling sockets: %s", s);
		nr = f32(&c);
		fstr_list(&c, nr, ", ", s, sizeof(s));
		if (!c.bad)
			add_line(r, "sibling threads: %s", s);
		break;
	}
	case FEAT_NUMA_TOPOLOGY: {
		uint32_t nr = f32(&c);
		for (uint32_t i = 0; i < nr && !c.bad && i < 1024; i++) {
			uint32_t node = f32(&c);
			uint64_t total = f64(&c), free_kib = f64(&c);
			fstr(&c, s, sizeof(s));
			if (!c.bad)
				add_line(r, "numa node %u: memory %" PRIu64 " kB (free %" PRIu64
					 " kB), cpus %s", node, total, free_kib, s);
		}
		break;
	}
	case FEAT_PMU_MAPPINGS: {
		uint32_t nr = f32(&c);
		size_t used = 0;
		s[0] = '\0';
		for (uint32_t i = 0; i < nr && !c.bad && i < 1024; i++) {
			char name[256];
			uint32_t type = f32(&c);
			fstr(&c, name, sizeof(name));
			if (c.bad)
				break;
			int n = snprintf(s + used, sizeof(s) - used, "%s%s = %u", i ? ", " : "", name, type);
			if (n > 0 && (size_t)n < sizeof(s) - used)
				used += (size_t)n;
		}
		if (s[0])
			add_line(r, "pmu mappings: %s", s);
		break;
	}
	case FEAT_GROUP_DESC: {
		uint32_t nr = f32(&c);
		for (uint32_t i = 0; i < nr && !c.bad && i < 1024; i++) {
			fstr(&c, s, sizeof(s));
			uint32_t leader = f32(&c), members = f32(&c);
			if (!c.bad)
				add_line(r, "group: %s (leader %u, %u members)", s[0] ? s : "(unnamed)",
					 leader, members);
		}
		break;
	}
	case FEAT_BUILD_ID:
		feature_build_ids(r, &c);
		break;
	case FEAT_SAMPLE_TIME:
		in->first_time = f64(&c);
		in->last_time = f64(&c);
		if (c.bad)
			in->first_time = in->last_time = 0;
		break;
	case FEAT_CLOCKID: {
		uint64_t res = f64(&c);
		if (!c.bad)
			add_line(r, "clockid frequency: %" PRIu64 " MHz", res / 1000000);
		break;
	}
	case FEAT_COMPRESSED: {
		uint32_t ver = f32(&c), type = f32(&c), level = f32(&c), ratio = f32(&c);
		(void)ver;
		if (!c.bad)
			add_line(r, "compressed: %s, level %u, ratio %u", type == 1 ? "zstd" : "unknown",
				 level, ratio);
		break;
	}
	default:
		if (feat < FEAT_COUNT)
			add_line(r, "feature %s: %zu bytes", pd_feature_name(feat), len);
		else
			add_line(r, "feature %u: %zu bytes", feat, len);
		break;
	}
}

/* The feature sections of a file: an array of {offset, size} after the data, one per bit set. */
static void features_read(struct perfdata_reader *r, const uint64_t bits[4])
{
	unsigned nfeat = 0;
	for (int i = 0; i < 4; i++)
		nfeat += (unsigned)__builtin_popcountll(bits[i]);
	if (!nfeat || r->data_end == UINT64_MAX)
		return;
	uint64_t *secs = xmalloc((size_t)nfeat * 16);
	if (fseeko(r->f, (off_t)r->data_end, SEEK_SET) != 0 ||
	    fread(secs, 16, nfeat, r->f) != nfeat) {
		free(secs);
		add_line(r, "features: missing (the file ends before its feature sections)");
		return;
	}
	unsigned k = 0;
	for (unsigned bit = 0; bit < PD_FEATURE_BITS; bit++) {
		if (!(bits[bit / 64] >> (bit % 64) & 1))
			continue;
		uint64_t off = sw64(r, secs[2 * k]), size = sw64(r, secs[2 * k + 1]);
		k++;
		if (bit == FEAT_BRANCH_STACK)
			continue;
		/* The tracing data's event formats come before its (big) kallsyms: a prefix will do. */
		if (bit == FEAT_TRACING_DATA && size > PD_MAX_FEATURE)
			size = PD_MAX_FEATURE;
		if (size > PD_MAX_FEATURE || fseeko(r->f, (off_t)off, SEEK_SET) != 0)
			continue;
		unsigned char *p = xmalloc(size ? (size_t)size : 1);
		if (fread(p, 1, (size_t)size, r->f) == size)
			feature_parse(r, bit, p, (size_t)size);
		free(p);
	}
	free(secs);
}

/* ---- opening ---- */

static int open_file_header(struct perfdata_reader *r, char *err, size_t errlen)
{
	unsigned char h[PD_FILE_HEADER_SIZE];
	if (fread(h, 1, sizeof(h), r->f) != sizeof(h)) {
		snprintf(err, errlen, "%s: not a perf.data file (too short for its header)", r->path);
		return -EINVAL;
	}
	uint64_t hsize = ld64(r, h + 8), attr_size = ld64(r, h + 16);
	uint64_t attrs_off = ld64(r, h + 24), attrs_size = ld64(r, h + 32);
	uint64_t data_off = ld64(r, h + 40), data_size = ld64(r, h + 48);
	uint64_t bits[4];
	for (int i = 0; i < 4; i++)
		bits[i] = ld64(r, h + PD_HEADER_FEATURES_AT + 8 * i);
	if (r->swapped && bits[0] && !(bits[0] >> FEAT_HOSTNAME & 1)) {
		/* The bitmap is of unsigned longs: a 32-bit big-endian machine wrote u32 words (perf
		 * tells them apart by the HOSTNAME bit, which every perf since 2012 sets). */
		uint64_t alt[4];
		for (int i = 0; i < 4; i++) {
			uint32_t lo, hi;
			memcpy(&lo, h + PD_HEADER_FEATURES_AT + 8 * i, 4);
			memcpy(&hi, h + PD_HEADER_FEATURES_AT + 8 * i + 4, 4);
			alt[i] = (uint64_t)__builtin_bswap32(hi) << 32 | __builtin_bswap32(lo);
		}
		if (alt[0] >> FEAT_HOSTNAME & 1)
			memcpy(bits, alt, sizeof(bits));
	}
	if (hsize < PD_FILE_HEADER_SIZE || hsize > 4096) {
		snprintf(err, errlen, "%s: not a perf.data file (header size %" PRIu64 ")", r->path, hsize);
		return -EINVAL;
	}
	/* No feature bits in a header of the size we know: the writer never got to the end. */
	bool no_features = hsize == PD_FILE_HEADER_SIZE && !(bits[0] | bits[1] | bits[2] | bits[3]);
	if (hsize > PD_FILE_HEADER_SIZE)
		memset(bits, 0, sizeof(bits)); /* a header we do not know: no features rather than wrong ones */
	/* attr_size is that of one entry of the attrs section: the attr, then its ids' section */
	if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > PD_MAX_ATTR_SIZE) {
		snprintf(err, errlen, "%s: bad perf.data header (attr size %" PRIu64 ")", r->path, attr_size);
		return -EINVAL;
	}
	uint64_t entry = attr_size, nattr = attrs_size / entry;
	attr_size -= 16;
	if (attrs_size % entry || nattr == 0 || nattr > PD_MAX_EVENTS) {
		snprintf(err, errlen, "%s: bad perf.data header (%" PRIu64 " bytes of attrs)", r->path,
			 attrs_size);
		return -EINVAL;
	}
	unsigned char *attrs = xmalloc((size_t)attrs_size);
	if (fseeko(r->f, (off_t)attrs_off, SEEK_SET) != 0 ||
	    fread(attrs, 1, (size_t)attrs_size, r->f) != attrs_size) {
		free(attrs);
		snprintf(err, errlen, "%s: the file ends before its event attributes (cut short?)", r->path);
		return -EINVAL;
	}
	for (uint64_t i = 0; i < nattr; i++) {
		const unsigned char *e = attrs + i * entry;
		struct perf_event_attr a;
		attr_load(r, e, (size_t)attr_size, &a);
		uint64_t ids_off = ld64(r, e + attr_size), ids_size = ld64(r, e + attr_size + 8);
		uint64_t nids = ids_size / 8;
		unsigned char *ids = NULL;
		if (nids > PD_MAX_IDS)
			nids = 0;
		if (nids) {
			ids = xmalloc((size_t)nids * 8);
			if (fseeko(r->f, (off_t)ids_off, SEEK_SET) != 0 ||
			    fread(ids, 8, (size_t)nids, r->f) != nids)
				nids = 0; /* without ids the event still reads; only matching suffers */
		}
		int rc = event_add(r, &a, ids, (size_t)nids);
		free(ids);
		if (rc < 0) {
			free(attrs);
			snprintf(err, errlen, "%s: too many events or ids in the file", r->path);
			return rc;
		}
	}
	free(attrs);

	r->info.data_offset = data_off;
	r->info.data_size = data_size;
	if (data_off < PD_FILE_HEADER_SIZE) {
		snprintf(err, errlen, "%s: bad perf.data header (data at %" PRIu64 ")", r->path, data_off);
		return -EINVAL;
	}
	if (data_size == 0 || no_features) {
		/*
		 * The writer never finished the file: it never came back to fill in the data size, or it
		 * never wrote the feature sections (perf record always writes some; perftop's writer sets
		 * the bitmap only at close, see perfdata_write.h). The data size is then at best the last
		 * sync, a lower bound: read on to the last complete record before the end of the file.
		 */
		r->data_end = UINT64_MAX;
		r->header_unfinished = true;
	} else {
		if (data_size > UINT64_MAX - data_off) {
			snprintf(err, errlen, "%s: bad perf.data header (data size)", r->path);
			return -EINVAL;
		}
		r->data_end = data_off + data_size;
		features_read(r, bits);
	}
	if (fseeko(r->f, (off_t)data_off, SEEK_SET) != 0) {
		snprintf(err, errlen, "%s: cannot seek to the data: %s", r->path, strerror(errno));
		return -EIO;
	}
	r->file_pos = r->data_start = data_off;
	if (r->mem)
		in_mem_at(r, data_off);
	return 0;
}

static struct perfdata_reader *reader_new(FILE *f, bool own, const char *path)
{
	struct perfdata_reader *r = xcalloc(1, sizeof(*r));
	r->f = f;
	r->own_f = own;
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->data_end = UINT64_MAX;
	return r;
}

static int raw_pump(struct perfdata_reader *r);

/* Pipe format: attrs and features arrive as records before the data; read them now so that the
 * events are known at open. Stops, without consuming it, at the first record of another kind. */
static int open_pipe_preamble(struct perfdata_reader *r, char *err, size_t errlen)
{
	r->file_pos = r->data_start = PD_PIPE_HEADER_SIZE;
	if (r->mem)
		in_mem_at(r, PD_PIPE_HEADER_SIZE);
	r->in_preamble = true;
	for (int guard = 0; guard < 100000; guard++) {
		if (in_fill(r, 8) < 8)
			break;
		uint32_t type = ld32(r, r->buf + r->bpos);
		if (type < PD_HEADER_ATTR || type == PD_FINISHED_ROUND || type == PD_COMPRESSED ||
		    type == PD_COMPRESSED2 || type == PD_FINISHED_INIT)
			break;
		if (raw_pump(r) <= 0)
			break;
	}
	r->in_preamble = false;
	if (r->nev == 0) {
		snprintf(err, errlen, "%s: no event attributes in the stream (not a perf.data stream?)",
			 r->path);
		return -EINVAL;
	}
	r->data_start = in_offset(r);
	return 0;
}

/* mem, when not NULL, holds the same bytes as f (mapped says whether it is ours to unmap): the
 * header is read through f, the records from mem. */
static struct perfdata_reader *open_stream(FILE *f, bool own, const char *path, bool is_stdin,
					   const void *mem, size_t mem_len, bool mapped, char *err,
					   size_t errlen)
{
	struct perfdata_reader *r = reader_new(f, own, path);
	struct stat st;
	/* Unbuffered before its first read, so that stdio holds nothing back from read(2). */
	if (!mem && fstat(fileno(f), &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) &&
	    setvbuf(f, NULL, _IONBF, 0) == 0)
		r->follow = true;
	r->mem = mem;
	r->mem_len = mem_len;
	r->mapped = mapped;
	unsigned char h[16];
	size_t got = fread(h, 1, sizeof(h), f);
	uint64_t magic = 0, size = 0;
	if (got >= 8)
		memcpy(&magic, h, 8);
	if (got == 16)
		memcpy(&size, h + 8, 8);
	if (magic == __builtin_bswap64(PD_MAGIC2)) {
		r->swapped = true;
	} else if (magic == PD_MAGIC1 || magic == __builtin_bswap64(PD_MAGIC1)) {
		snprintf(err, errlen, "%s: a version 1 perf.data file (PERFFILE), which is not supported",
			 path);
		perfdata_close(r);
		return NULL;
	} else if (magic != PD_MAGIC2) {
		snprintf(err, errlen, "%s: not a perf.data file", path);
		perfdata_close(r);
		return NULL;
	}
	r->info.swapped = r->swapped;
	size = sw64(r, size);
	r->seekable = !is_stdin || fseeko(f, 0, SEEK_CUR) == 0;
	if (got == 16 && size == PD_PIPE_HEADER_SIZE) {
		r->pipe_format = true;
		r->info.pipe_mode = true;
		if (open_pipe_preamble(r, err, errlen) < 0) {
			perfdata_close(r);
			return NULL;
		}
	} else {
		if (is_stdin || fseeko(f, 0, SEEK_SET) != 0) {
			snprintf(err, errlen, "%s: a perf.data file in file format cannot be read from a pipe "
				 "(record with -o - for pipe mode)", path);
			perfdata_close(r);
			return NULL;
		}
		if (open_file_header(r, err, errlen) < 0) {
			perfdata_close(r);
			return NULL;
		}
	}
	return r;
}

/* A file (or memory file) opened as f: a regular one is mapped, its size the one at open (a file
 * still being written is read up to there, as far as a read would have got at that moment). */
static struct perfdata_reader *open_file(FILE *f, const char *path, bool is_stdin, char *err,
					 size_t errlen)
{
	struct stat stt;
	void *mem = NULL;
	size_t mem_len = 0;
	if (!is_stdin && fstat(fileno(f), &stt) == 0 && S_ISREG(stt.st_mode) && stt.st_size > 0 &&
	    (uint64_t)stt.st_size <= SIZE_MAX) {
		mem_len = (size_t)stt.st_size;
		mem = mmap(NULL, mem_len, PROT_READ, MAP_PRIVATE, fileno(f), 0);
		if (mem == MAP_FAILED) {
			mem = NULL;
			mem_len = 0;
		}
	}
	return open_stream(f, !is_stdin, is_stdin ? "stdin" : path, is_stdin, mem, mem_len, mem != NULL,
			   err, errlen);
}

/* A memory file put together by perfdata_dir.c (fd, or -1 with err set). */
static struct perfdata_reader *open_pieces(int fd, const char *path, char *err, size_t errlen)
{
	FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
	if (fd >= 0 && !f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
	}
	return f ? open_file(f, path, false, err, errlen) : NULL;
}

struct perfdata_reader *perfdata_open(const char *path, char *err, size_t errlen)
{
	bool is_stdin = strcmp(path, "-") == 0;
	struct stat dst;
	/* perf record --threads: the directory's pieces as one file (perfdata_dir.h) */
	if (!is_stdin && stat(path, &dst) == 0 && S_ISDIR(dst.st_mode))
		return open_pieces(perfdata_dir_open(path, err, errlen), path, err, errlen);
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	return open_file(f, path, is_stdin, err, errlen);
}

struct perfdata_reader *perfdata_open_files(const char *const *paths, size_t n, char *err,
					    size_t errlen)
{
	if (n == 1)
		return perfdata_open(paths[0], err, errlen);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(paths[i], "-")) {
			snprintf(err, errlen, "-i -: a stream is read alone, not with other files");
			return NULL;
		}
	}
	return open_pieces(perfdata_files_open(paths, n, err, errlen), paths[0], err, errlen);
}

struct perfdata_reader *perfdata_open_mem(const void *buf, size_t len, char *err, size_t errlen)
{
	if (len == 0) {
		snprintf(err, errlen, "memory: not a perf.data file (empty)");
		return NULL;
	}
	FILE *f = fmemopen((void *)buf, len, "rb");
	if (!f) {
		snprintf(err, errlen, "memory: %s", strerror(errno));
		return NULL;
	}
	return open_stream(f, true, "memory", false, buf, len, false, err, errlen);
}

void perfdata_close(struct perfdata_reader *r)
{
	if (!r)
		return;
	if (r->own_f && r->f)
		fclose(r->f);
	for (size_t i = 0; i < r->nev; i++)
		free(r->ev[i].ids);
	for (size_t i = 0; i < r->info.nextra; i++)
		free(r->info.extra_lines[i]);
	free(r->info.extra_lines);
	for (size_t i = 0; i < atomic_load(&r->nbids); i++)
		free(r->bids[i]);
	free(r->bids);
	free(r->hkeys);
	free(r->hvals);
	free(r->own_buf);
	if (r->mapped)
		munmap((void *)r->mem, r->mem_len);
	if (r->zd)
		ZSTD_freeDStream(r->zd);
	free(r->zin);
	free(r->zout);
	free(r->arena);
	free(r->arena2);
	free(r->sort_kv);
	free(r->sort_ents);
	free(r->ents);
	free(r->scratch);
	free(r);
}

size_t perfdata_nevents(const struct perfdata_reader *r)
{
	return r->nev;
}

const struct perfdata_event *perfdata_event(const struct perfdata_reader *r, size_t i)
{
	return i < r->nev ? &r->ev[i].pub : NULL;
}

const struct perfdata_info *perfdata_info(const struct perfdata_reader *r)
{
	return &r->info;
}

bool perfdata_event_is_dummy(const struct perfdata_reader *r, size_t i)
{
	return i < r->nev && r->ev[i].pub.attr.type == PERF_TYPE_SOFTWARE &&
	       r->ev[i].pub.attr.config == PERF_COUNT_SW_DUMMY;
}

/* ---- the reorder arena ---- */

/* Marks the pending records with time <= limit as ready, in time order. */
static void order_flush(struct perfdata_reader *r, uint64_t limit)
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
static void order_compact(struct perfdata_reader *r)
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
	int idx = id_lookup(r, id);
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
		count_bad(r, ld32(r, p));
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
static void order_add(struct perfdata_reader *r, const unsigned char *p, size_t size, uint32_t type,
		      bool in_file)
{
	size_t evi = record_event(r, p, type, size);
	struct pd_ent e = { .evi = (uint32_t)evi, .in_file = in_file };
	if (in_file) {
		if (parse_record_time(&r->ev[evi].cfg, p, size, &e.time) < 0) {
			count_bad(r, type);
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
		order_flush(r, UINT64_MAX);
		r->ready = r->next_ent + (r->nents - r->next_ent) / 2;
	}
}

/* ---- raw records ---- */

/* The reason reading stops at the current offset, as the one-line warning. */
static void stop_cut_short(struct perfdata_reader *r)
{
	uint64_t at = in_offset(r);
	r->stats.truncated = true;
	r->stats.bytes_recovered = at > r->data_start ? at - r->data_start : 0;
	set_warning(r, "the recording was cut short at byte %" PRIu64 "; read %" PRIu64 " records (%"
		    PRIu64 " bytes of data)", at, r->raw_records, r->stats.bytes_recovered);
}

static void stop_bad(struct perfdata_reader *r, const char *what, uint64_t size)
{
	uint64_t at = in_offset(r);
	r->stats.bytes_recovered = at > r->data_start ? at - r->data_start : 0;
	set_warning(r, "%s at byte %" PRIu64 " (size %" PRIu64 "): reading stopped there; read %" PRIu64
		    " records", what, at, size, r->raw_records);
}

/* Decompresses more of the current COMPRESSED payload after the bytes still unconsumed. */
static bool z_more(struct perfdata_reader *r)
{
	if (r->zout_pos) {
		memmove(r->zout, r->zout + r->zout_pos, r->zout_len - r->zout_pos);
		r->zout_len -= r->zout_pos;
		r->zout_pos = 0;
	}
	ZSTD_inBuffer in = {r->zin, r->zin_len, r->zin_pos};
	ZSTD_outBuffer out = {r->zout, PD_ZOUT_SIZE, r->zout_len};
	size_t rc = ZSTD_decompressStream(r->zd, &out, &in);
	bool progress = in.pos != r->zin_pos || out.pos != r->zout_len;
	r->stats.compressed_bytes += out.pos - r->zout_len;
	r->zin_pos = in.pos;
	r->zout_len = out.pos;
	if (ZSTD_isError(rc) || !progress) {
		count_bad(r, PD_COMPRESSED);
		r->zin_pos = r->zin_len; /* give up on this payload */
		ZSTD_initDStream(r->zd);
		return false;
	}
	return true;
}

/* Takes a COMPRESSED record's payload in. */
static void z_load(struct perfdata_reader *r, const unsigned char *p, size_t len)
{
	if (!r->zd) {
		r->zd = ZSTD_createDStream();
		if (!r->zd)
			die("out of memory (zstd)");
		ZSTD_initDStream(r->zd);
		r->zin = xmalloc(65536);
		r->zout = xmalloc(PD_ZOUT_SIZE);
	}
	if (len > 65536)
		len = 65536;
	memcpy(r->zin, p, len);
	r->zin_len = len;
	r->zin_pos = 0;
}

/*
 * Handles one record from the data (a user record here, a kernel record into the arena). Returns 1
 * when a record was handled, 0 at the end of the data, -errno on a read error.
 */
static void handle_record(struct perfdata_reader *r, const unsigned char *p, size_t size, bool from_z);

/* One record from the decompressed stream, if a whole one is there. */
static bool z_next(struct perfdata_reader *r)
{
	for (;;) {
		size_t avail = r->zout_len - r->zout_pos;
		if (avail >= 8) {
			const unsigned char *p = r->zout + r->zout_pos;
			uint16_t size;
			memcpy(&size, p + 6, 2);
			size = sw16(r, size);
			if (size < 8) {
				/* nothing after a broken record in this stream can be trusted */
				count_bad(r, PD_COMPRESSED);
				r->zout_pos = r->zout_len;
				r->zin_pos = r->zin_len;
				return false;
			}
			if (size <= avail) {
				r->zout_pos += size;
				handle_record(r, p, size, true);
				return true;
			}
		}
		if (r->zin_pos >= r->zin_len || !z_more(r))
			return false; /* a partial record waits for the next COMPRESSED record */
	}
}

static int raw_pump(struct perfdata_reader *r)
{
	if (r->zd && z_next(r))
		return 1;
	in_release(r);
	size_t have = in_fill(r, 8);
	if (have < 8) {
		if (have > 0 || r->header_unfinished ||
		    (r->data_end != UINT64_MAX && in_offset(r) < r->data_end))
			stop_cut_short(r);
		else
			r->stats.bytes_recovered = in_offset(r) - r->data_start;
		return 0;
	}
	const unsigned char *p = r->buf + r->bpos;
	uint16_t size;
	memcpy(&size, p + 6, 2);
	size = sw16(r, size);
	if (size < 8) {
		stop_bad(r, "a record of impossible size", size);
		return 0;
	}
	if (r->data_end != UINT64_MAX && size > r->data_end - in_offset(r)) {
		stop_bad(r, "a record that goes past the end of the data", size);
		return 0;
	}
	have = in_fill(r, size);
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

static void handle_record(struct perfdata_reader *r, const unsigned char *p, size_t size, bool from_z)
{
	uint32_t type = ld32(r, p);

	if (type < PD_HEADER_ATTR) {
		if (r->nev)
			order_add(r, p, size, type, r->mem && !from_z);
		return;
	}
	switch (type) {
	case PD_HEADER_ATTR: {
		/* attr (its own size field says how long), then ids to the end of the record */
		if (r->attrs_frozen || size < 8 + 8)
			break;
		uint32_t asz = ld32(r, p + 8 + 4);
		if (asz == 0)
			asz = PERF_ATTR_SIZE_VER0;
		if (asz < PERF_ATTR_SIZE_VER0 || asz > size - 8) {
			count_bad(r, type);
			break;
		}
		struct perf_event_attr a;
		attr_load(r, p + 8, asz, &a);
		if (event_add(r, &a, p + 8 + asz, (size - 8 - asz) / 8) < 0)
			count_bad(r, type);
		break;
	}
	case PD_HEADER_FEATURE:
		if (size >= 16 && !r->attrs_frozen) {
			uint64_t feat = ld64(r, p + 8);
			feature_parse(r, feat < PD_FEATURE_BITS ? (unsigned)feat : PD_FEATURE_BITS, p + 16,
				      size - 16);
		}
		break;
	case PD_FINISHED_ROUND:
		order_flush(r, r->next_flush);
		r->next_flush = r->max_time;
		break;
	case PD_COMPRESSED:
	case PD_COMPRESSED2:
		if (from_z) {
			count_bad(r, type); /* compressed inside compressed: not something perf writes */
			break;
		}
		if (type == PD_COMPRESSED2) {
			if (size < 16)
				break;
			uint64_t dsz = ld64(r, p + 8);
			z_load(r, p + 16, dsz < size - 16 ? (size_t)dsz : size - 16);
		} else {
			z_load(r, p + 8, size - 8);
		}
		break;
	case PD_HEADER_BUILD_ID:
		/* a binary hit for the first time (perftop -o -, perf inject -b): listed in the header
		 * lines only while the preamble is read at open (after, the reading may be another
		 * thread's than the lines' reader) */
		if (!build_id_entry(r, p, size, r->in_preamble && r->info.nextra < 1000))
			count_bad(r, type);
		break;
	case PD_HEADER_TRACING_DATA:
		/* u32 size; the tracing data itself follows the record, padded to 8. As in a file's
		 * TRACING_DATA feature, its event formats come before its (big) kallsyms: a prefix of
		 * it gives sched_switch's. */
		if (size >= 12 && !from_z) {
			uint64_t n = ((uint64_t)ld32(r, p + 8) + 7) & ~(uint64_t)7;
			size_t prefix = n < PD_TRACING_PREFIX ? (size_t)n : PD_TRACING_PREFIX;
			if (!r->attrs_frozen && in_fill(r, prefix) >= prefix)
				feature_parse(r, FEAT_TRACING_DATA, r->buf + r->bpos, prefix);
			if (!in_skip(r, n))
				stop_cut_short(r);
		}
		break;
	case PD_AUXTRACE_INFO:
		/* u32 type, u32 reserved, then the PMU's own fields */
		if (!r->stats.aux_records++ && size >= 12)
			r->stats.aux_type = ld32(r, p + 8);
		break;
	case PD_AUXTRACE:
		/* u64 size, offset, reference; u32 idx, tid, cpu, reserved; the trace data follows */
		r->stats.aux_records++;
		if (size >= 48 && !from_z) {
			uint64_t n = ld64(r, p + 8);
			if (r->data_end != UINT64_MAX && n > r->data_end - in_offset(r)) {
				stop_bad(r, "AUXTRACE data that goes past the end of the data", n);
				r->eof = true;
				r->bpos = r->blen;
			} else if (!in_skip(r, n)) {
				stop_cut_short(r);
			}
		}
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

/*
 * Hands out the next ready record: parsed into dst (cap bytes) when it waits raw in the file, else
 * where it is in the arena (copied to dst when copy). 1 and *out; 0 when none is ready; -ENOSPC
 * when it needs more than a cap below PD_REC_MAX (it stays next).
 */
static int order_take(struct perfdata_reader *r, struct rec *dst, size_t cap, bool copy,
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

/* Reads on until a flush makes records ready; false at the end of the data. */
static bool order_fill(struct perfdata_reader *r)
{
	order_compact(r);
	if (r->done)
		return false;
	while (r->next_ent >= r->ready) {
		if (raw_pump(r) <= 0) {
			order_flush(r, UINT64_MAX);
			r->done = true;
			if (ferror(r->f)) {
				set_warning(r, "read error at byte %" PRIu64 ": %s", in_offset(r),
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
		if (order_take(r, r->scratch, PD_REC_MAX, false, out) > 0)
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
		int rc = order_take(r, buf, cap, true, &rec);
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
		count_bad(r, rec->perf_type); /* the caller's buffer is too small for this one: skipped */
	}
}

int perfdata_rewind(struct perfdata_reader *r)
{
	if (!r->seekable)
		return -ESPIPE;
	if (r->mem) {
		in_mem_at(r, r->data_start);
	} else {
		if (fseeko(r->f, (off_t)r->data_start, SEEK_SET) != 0)
			return -errno;
		clearerr(r->f);
		r->bpos = r->blen = 0;
		r->file_pos = r->data_start;
		r->eof = false;
	}
	r->zin_pos = r->zin_len = 0;
	r->zout_pos = r->zout_len = 0;
	if (r->zd)
		ZSTD_initDStream(r->zd);
	r->arena_len = r->live_bytes = r->file_live = 0;
	r->nents = r->ready = r->next_ent = r->sorted_end = 0;
	r->max_time = r->next_flush = 0;
	r->done = false;
	r->attrs_frozen = true;
	r->raw_records = 0;
	memset(&r->stats, 0, sizeof(r->stats));
	return 0;
}

bool perfdata_in_memory(const struct perfdata_reader *r)
{
	return r->mem != NULL;
}

bool perfdata_is_stream(const struct perfdata_reader *r)
{
	return r->follow;
}

void perfdata_interrupt(struct perfdata_reader *r)
{
	atomic_store(&r->interrupted, true);
}

bool perfdata_would_block(const struct perfdata_reader *r)
{
	if (!r->follow || r->eof || r->next_ent < r->ready || (r->zd && r->zout_pos < r->zout_len))
		return false;
	size_t have = r->blen - r->bpos;
	if (have >= 8) {
		uint16_t size;
		memcpy(&size, r->buf + r->bpos + 6, 2);
		size = sw16(r, size);
		if (have >= size)
			return false;
	}
	struct pollfd p = { .fd = fileno(r->f), .events = POLLIN };
	return poll(&p, 1, 0) == 0;
}

void perfdata_get_stats(const struct perfdata_reader *r, struct perfdata_stats *st)
{
	*st = r->stats;
}

/* ---- header text ---- */

static void line_out(char ***lines, size_t *n, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void line_out(char ***lines, size_t *n, size_t *cap, const char *fmt, ...)
{
	char tmp[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	for (char *p = tmp; *p; p++) /* a command line may hold newlines; a line is one line */
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	xgrow((void **)lines, cap, *n + 1, sizeof(char *));
	(*lines)[(*n)++] = xstrdup(tmp);
}

char **perfdata_header_lines(const struct perfdata_reader *r, size_t *nlines)
{
	const struct perfdata_info *in = &r->info;
	char **l = NULL;
	size_t n = 0, cap = 0;
#define S(name, v) if ((v)[0]) line_out(&l, &n, &cap, "%s: %s", name, v)
	S("hostname", in->hostname);
	S("os release", in->osrelease);
	S("perf version", in->version);
	S("arch", in->arch);
	if (in->nr_cpus_online || in->nr_cpus_avail) {
		line_out(&l, &n, &cap, "nrcpus online: %u", in->nr_cpus_online);
		line_out(&l, &n, &cap, "nrcpus avail: %u", in->nr_cpus_avail);
	}
	S("cpudesc", in->cpudesc);
	S("cpuid", in->cpuid);
	if (in->total_mem_kib)
		line_out(&l, &n, &cap, "total memory: %" PRIu64 " kB", in->total_mem_kib);
	S("cmdline", in->cmdline);
#undef S
	for (size_t i = 0; i < r->nev; i++) {
		const struct perf_event_attr *a = &r->ev[i].pub.attr;
		line_out(&l, &n, &cap, "event %zu: %s (type %u, config 0x%" PRIx64 ", %s %" PRIu64
			 ", sample_type 0x%" PRIx64 ", %zu ids)", i, r->ev[i].pub.name, a->type,
			 (uint64_t)a->config, a->freq ? "freq" : "period", (uint64_t)a->sample_period,
			 (uint64_t)a->sample_type, r->ev[i].pub.nids);
	}
	for (size_t i = 0; i < in->nextra; i++)
		if (strncmp(in->extra_lines[i], "event: ", 7) != 0) /* the event lines above say it */
			line_out(&l, &n, &cap, "%s", in->extra_lines[i]);
	if (in->first_time || in->last_time)
		line_out(&l, &n, &cap, "sample time: %.6f to %.6f s (%.3f s)", in->first_time / 1e9,
			 in->last_time / 1e9, (double)(in->last_time - in->first_time) / 1e9);
	line_out(&l, &n, &cap, "format: %s%s", in->pipe_mode ? "pipe" : "file",
		 in->swapped ? ", other byte order" : "");
	if (!in->pipe_mode) {
		line_out(&l, &n, &cap, "data offset: %" PRIu64, in->data_offset);
		line_out(&l, &n, &cap, "data size: %" PRIu64 "%s", in->data_size,
			 !r->header_unfinished ? ""
			 : in->data_size ? " (a lower bound: the recording was never finished)"
					 : " (never filled in: the recording was cut short)");
	}
	*nlines = n;
	return l;
}

void perfdata_free_lines(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}
