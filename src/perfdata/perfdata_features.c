/*
 * perfdata_features: the feature sections of perf.data's header as the reader takes them in: a
 * file's (perfdata.c reads their table after the data), a stream's HEADER_FEATURE records
 * (perfdata_records.c); and the header's text lines made of them (perfdata_header_lines). Reading
 * never trusts a section: a bounded cursor reads it, and what does not fit is dropped (the sections
 * are only metadata).
 */
#include "perfdata/perfdata_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "perfdata/format.h"
#include "perfdata/perfdata_tracing.h"
#include "util/util.h"

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
		pd_attr_load(r, c->p, asz, &a);
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
		int idx = first_id ? pd_id_lookup(r, first_id) : -1;
		if (idx < 0 && i < r->nev)
			idx = (int)i;
		if (idx >= 0 && name[0]) {
			snprintf(r->ev[idx].pub.name, sizeof(r->ev[idx].pub.name), "%.127s", name);
			r->ev[idx].named = true;
		}
		pd_add_line(r, "event: %s (type %u, config 0x%" PRIx64 ", %s %" PRIu64
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
size_t pd_build_id_entry(struct perfdata_reader *r, const unsigned char *p, size_t avail,
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
		pd_add_line(r, "build-id: %s %s", hex, fname);
	build_id_keep(r, fname, bid, blen);
	return size;
}

static void feature_build_ids(struct perfdata_reader *r, struct fcur *c)
{
	size_t n = 0;
	while (!c->bad && c->p < c->end) {
		size_t size = pd_build_id_entry(r, c->p, (size_t)(c->end - c->p), n < 1000);
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
void pd_feature_read(struct perfdata_reader *r, unsigned feat, const unsigned char *p, size_t len)
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
			pd_add_line(r, "sibling sockets: %s", s);
		nr = f32(&c);
		fstr_list(&c, nr, ", ", s, sizeof(s));
		if (!c.bad)
			pd_add_line(r, "sibling threads: %s", s);
		break;
	}
	case FEAT_NUMA_TOPOLOGY: {
		uint32_t nr = f32(&c);
		for (uint32_t i = 0; i < nr && !c.bad && i < 1024; i++) {
			uint32_t node = f32(&c);
			uint64_t total = f64(&c), free_kib = f64(&c);
			fstr(&c, s, sizeof(s));
			if (!c.bad)
				pd_add_line(r, "numa node %u: memory %" PRIu64 " kB (free %" PRIu64
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
			pd_add_line(r, "pmu mappings: %s", s);
		break;
	}
	case FEAT_GROUP_DESC: {
		uint32_t nr = f32(&c);
		for (uint32_t i = 0; i < nr && !c.bad && i < 1024; i++) {
			fstr(&c, s, sizeof(s));
			uint32_t leader = f32(&c), members = f32(&c);
			if (!c.bad)
				pd_add_line(r, "group: %s (leader %u, %u members)", s[0] ? s : "(unnamed)",
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
			pd_add_line(r, "clockid frequency: %" PRIu64 " MHz", res / 1000000);
		break;
	}
	case FEAT_COMPRESSED: {
		uint32_t ver = f32(&c), type = f32(&c), level = f32(&c), ratio = f32(&c);
		(void)ver;
		if (!c.bad)
			pd_add_line(r, "compressed: %s, level %u, ratio %u", type == 1 ? "zstd" : "unknown",
				 level, ratio);
		break;
	}
	default:
		if (feat < FEAT_COUNT)
			pd_add_line(r, "feature %s: %zu bytes", pd_feature_name(feat), len);
		else
			pd_add_line(r, "feature %u: %zu bytes", feat, len);
		break;
	}
}

/* The feature sections of a file: an array of {offset, size} after the data, one per bit set. */
void pd_features_read(struct perfdata_reader *r, const uint64_t bits[4])
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
		pd_add_line(r, "features: missing (the file ends before its feature sections)");
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
			pd_feature_read(r, bit, p, (size_t)size);
		free(p);
	}
	free(secs);
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

