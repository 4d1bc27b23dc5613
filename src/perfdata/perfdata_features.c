/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_features: the feature sections of perf.data's header, read (perfdata.c for a file's,
 * perfdata_records.c for a stream's HEADER_FEATURE records), written (perfdata_write.c at close, or
 * at the start of a stream) and printed (perfdata_header_lines), one feature after the other, with
 * the table that says which of these perftop does for each (perfdata_features.h).
 *
 * Reading never trusts a section: a bounded cursor reads it, and what does not fit is dropped (the
 * sections are only metadata). The features whose content perftop keeps only to show it (topology,
 * PMU mappings, groups...) become header text lines as they are read; the others fill
 * perfdata_info, and their print functions make the lines from there.
 */
#include "perfdata/perfdata_features.h"
#include "perfdata/perfdata_int.h"
#include "perfdata/perfdata_write_state.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "perfdata/perfdata_tracing.h"
#include "util/util.h"

/* ---- reading a section ---- */

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

/* ---- header text lines (the printer) ---- */

struct pd_lines {
	char **v;
	size_t n, cap;
};

static void line_out(struct pd_lines *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void line_out(struct pd_lines *l, const char *fmt, ...)
{
	char tmp[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	for (char *p = tmp; *p; p++) /* a command line may hold newlines; a line is one line */
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	xgrow((void **)&l->v, &l->cap, l->n + 1, sizeof(char *));
	l->v[l->n++] = xstrdup(tmp);
}

/* A string feature's line, when the file has it. */
static void print_string(struct pd_lines *l, const char *name, const char *v)
{
	if (v[0])
		line_out(l, "%s: %s", name, v);
}

/* ---- TRACING_DATA: the tracepoints' formats ---- */

/* sched:sched_switch's format, by which an off-CPU replay decodes the recording's switches. */
static void read_tracing_data(struct perfdata_reader *r, struct fcur *c)
{
	struct perfdata_info *in = &r->info;
	const unsigned char *text;
	size_t tlen;
	if (perfdata_tracing_format(c->p, (size_t)(c->end - c->p), "sched", "sched_switch", &text,
				    &tlen)) {
		if (tlen >= sizeof(in->switch_format))
			tlen = sizeof(in->switch_format) - 1;
		memcpy(in->switch_format, text, tlen);
		in->switch_format[tlen] = 0;
	}
}

/* When the recording has tracepoint events (perf report refuses such a file without it); false,
 * and the recording goes without it, when tracefs cannot be read. */
static bool write_tracing_data(struct perfdata_writer *w, struct pw_buf *b)
{
	struct perfdata_tp tp[SAMPLER_MAX_EVENTS];
	size_t n = 0;
	for (size_t e = 0; e < w->nev; e++)
		if (w->ev[e].attr.type == PERF_TYPE_TRACEPOINT)
			tp[n++] = (struct perfdata_tp){ .name = w->ev[e].name,
							 .id = w->ev[e].attr.config };
	if (!n)
		return false;
	unsigned char *data;
	size_t len;
	if (!perfdata_tracing_data(NULL, tp, n, &data, &len)) {
		warn_msg("recording to %s: tracefs unreadable, no tracing data (perf report will "
		         "refuse its tracepoints)", w->path);
		return false;
	}
	buf_put(b, data, len);
	free(data);
	return true;
}

/* ---- BUILD_ID: the binaries the samples hit ---- */

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

/* Entries to the end of the section; the first 1000 are listed in the header's lines. */
static void read_build_id(struct perfdata_reader *r, struct fcur *c)
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

/* The kernel's and each hit file's, when it has one. */
static bool write_build_id(struct perfdata_writer *w, struct pw_buf *b)
{
	if (w->kernel_hit)
		pw_put_build_id(w, b, 0, -1);
	for (size_t i = 0; i < w->nfiles; i++)
		if (w->files[i].hit)
			pw_put_build_id(w, b, 0, (long)i);
	return true;
}

/* ---- the machine: HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, CPUDESC, CPUID, TOTAL_MEM ---- */

static void read_hostname(struct perfdata_reader *r, struct fcur *c)
{
	fstr(c, r->info.hostname, sizeof(r->info.hostname));
}

static bool write_hostname(struct perfdata_writer *w, struct pw_buf *b)
{
	struct utsname u;
	(void)w;
	buf_string(b, uname(&u) == 0 ? u.nodename : "");
	return true;
}

static void print_hostname(const struct perfdata_reader *r, struct pd_lines *l)
{
	print_string(l, "hostname", r->info.hostname);
}

static void read_osrelease(struct perfdata_reader *r, struct fcur *c)
{
	fstr(c, r->info.osrelease, sizeof(r->info.osrelease));
}

static bool write_osrelease(struct perfdata_writer *w, struct pw_buf *b)
{
	struct utsname u;
	(void)w;
	buf_string(b, uname(&u) == 0 ? u.release : "");
	return true;
}

static void print_osrelease(const struct perfdata_reader *r, struct pd_lines *l)
{
	print_string(l, "os release", r->info.osrelease);
}

static void read_version(struct perfdata_reader *r, struct fcur *c)
{
	fstr(c, r->info.version, sizeof(r->info.version));
}

static bool write_version(struct perfdata_writer *w, struct pw_buf *b)
{
	(void)w;
	buf_string(b, "perftop 0.1");
	return true;
}

static void print_version(const struct perfdata_reader *r, struct pd_lines *l)
{
	print_string(l, "perf version", r->info.version);
}

static void read_arch(struct perfdata_reader *r, struct fcur *c)
{
	fstr(c, r->info.arch, sizeof(r->info.arch));
}

static bool write_arch(struct perfdata_writer *w, struct pw_buf *b)
{
	struct utsname u;
	(void)w;
	buf_string(b, uname(&u) == 0 ? u.machine : "");
	return true;
}

static void print_arch(const struct perfdata_reader *r, struct pd_lines *l)
{
	print_string(l, "arch", r->info.arch);
}

/* u32 available, then u32 online. */
static void read_nrcpus(struct perfdata_reader *r, struct fcur *c)
{
	r->info.nr_cpus_avail = f32(c);
	r->info.nr_cpus_online = f32(c);
}

static bool write_nrcpus(struct perfdata_writer *w, struct pw_buf *b)
{
	long avail = sysconf(_SC_NPROCESSORS_CONF), online = sysconf(_SC_NPROCESSORS_ONLN);
	(void)w;
	buf_u32(b, (uint32_t)(avail > 0 ? avail : 1));
	buf_u32(b, (uint32_t)(online > 0 ? online : 1));
	return true;
}

static void print_nrcpus(const struct perfdata_reader *r, struct pd_lines *l)
{
	if (r->info.nr_cpus_online || r->info.nr_cpus_avail) {
		line_out(l, "nrcpus online: %u", r->info.nr_cpus_online);
		line_out(l, "nrcpus avail: %u", r->info.nr_cpus_avail);
	}
}

/* The value of "key : value" in /proc/cpuinfo (first processor), into out; false when absent. */
static bool cpuinfo_field(const char *key, char *out, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[1024];
	size_t klen = strlen(key);
	bool found = false;
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *colon;
		if (strncmp(line, key, klen) != 0 || !(colon = strchr(line + klen, ':')))
			continue;
		bool only_space = true;
		for (char *c = line + klen; c < colon; c++)
			only_space &= (*c == ' ' || *c == '\t');
		if (!only_space)
			continue;
		colon++;
		while (*colon == ' ')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(out, len, "%s", colon);
		found = true;
		break;
	}
	fclose(f);
	return found;
}

static void read_cpudesc(struct perfdata_reader *r, struct fcur *c)
{
	fstr(c, r->info.cpudesc, sizeof(r->info.cpudesc));
}

static bool write_cpudesc(struct perfdata_writer *w, struct pw_buf *b)
{
	struct utsname u;
	char s[512];
	(void)w;
	if (!cpuinfo_field("model name", s, sizeof(s)) && !cpuinfo_field("cpu model", s, sizeof(s)))
		snprintf(s, sizeof(s), "%s", uname(&u) == 0 ? u.machine : "unknown");
	buf_string(b, s);
	return true;
}

static void print_cpudesc(const struct perfdata_reader *r, struct pd_lines *l)
{
	print_string(l, "cpudesc", r->info.cpudesc);
}

static void read_cpuid(struct perfdata_reader *r, struct fcur *c)
{
	fstr(c, r->info.cpuid, sizeof(r->info.cpuid));
}

/* perf's x86 form: vendor,family,model,stepping; else the implementer, else the machine. */
static bool write_cpuid(struct perfdata_writer *w, struct pw_buf *b)
{
	struct utsname u;
	char s[512], vendor[128], fam[32], model[32], step[32];
	(void)w;
	if (cpuinfo_field("vendor_id", vendor, sizeof(vendor)) &&
	    cpuinfo_field("cpu family", fam, sizeof(fam)) &&
	    cpuinfo_field("model", model, sizeof(model)) &&
	    cpuinfo_field("stepping", step, sizeof(step)))
		snprintf(s, sizeof(s), "%s,%s,%s,%s", vendor, fam, model, step);
	else if (!cpuinfo_field("CPU implementer", s, sizeof(s)))
		snprintf(s, sizeof(s), "%s", uname(&u) == 0 ? u.machine : "unknown");
	buf_string(b, s);
	return true;
}

static void print_cpuid(const struct perfdata_reader *r, struct pd_lines *l)
{
	print_string(l, "cpuid", r->info.cpuid);
}

/* u64 kB. */
static void read_total_mem(struct perfdata_reader *r, struct fcur *c)
{
	r->info.total_mem_kib = f64(c);
}

static bool write_total_mem(struct perfdata_writer *w, struct pw_buf *b)
{
	char mi[256];
	uint64_t kb = 0;
	(void)w;
	if (read_small_file("/proc/meminfo", mi, sizeof(mi)) > 0) {
		char *p = strstr(mi, "MemTotal:");
		if (p)
			kb = strtoull(p + 9, NULL, 10);
	}
	buf_u64(b, kb);
	return true;
}

static void print_total_mem(const struct perfdata_reader *r, struct pd_lines *l)
{
	if (r->info.total_mem_kib)
		line_out(l, "total memory: %" PRIu64 " kB", r->info.total_mem_kib);
}

/* ---- CMDLINE: the recording's command line ---- */

/* u32 nr, then nr strings. */
static void read_cmdline(struct perfdata_reader *r, struct fcur *c)
{
	uint32_t nr = f32(c);
	fstr_list(c, nr, " ", r->info.cmdline, sizeof(r->info.cmdline));
}

static bool write_cmdline(struct perfdata_writer *w, struct pw_buf *b)
{
	(void)w;
	char buf[8192];
	long n = read_small_file("/proc/self/cmdline", buf, sizeof(buf));
	uint32_t nr = 0;
	struct pw_buf strs = {0};
	if (n < 0)
		n = 0;
	/* read_small_file NUL-terminates; the arguments are NUL-separated */
	for (long i = 0; i < n;) {
		const char *s = buf + i;
		size_t l = strnlen(s, (size_t)(n - i));
		if (i + (long)l >= n && l == 0)
			break;
		buf_string(&strs, s);
		nr++;
		i += (long)l + 1;
	}
	buf_u32(b, nr);
	if (strs.len)
		buf_put(b, strs.p, strs.len);
	free(strs.p);
	return true;
}

static void print_cmdline(const struct perfdata_reader *r, struct pd_lines *l)
{
	print_string(l, "cmdline", r->info.cmdline);
}

/* ---- EVENT_DESC: the events' names (their lines are the events', perfdata_header_lines) ---- */

/* u32 nr, u32 attr size, then per event: the attr, u32 nids, its name, its ids. */
static void read_event_desc(struct perfdata_reader *r, struct fcur *c)
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

static bool write_event_desc(struct perfdata_writer *w, struct pw_buf *b)
{
	buf_u32(b, (uint32_t)w->nev);
	buf_u32(b, sizeof(struct perf_event_attr));
	for (size_t e = 0; e < w->nev; e++) {
		const struct pw_event *d = &w->ev[e];
		buf_put(b, &d->attr, sizeof(d->attr));
		buf_u32(b, (uint32_t)d->nids);
		buf_string(b, d->name);
		for (size_t i = 0; i < d->nids; i++)
			buf_u64(b, d->ids[i]);
	}
	return true;
}

/* ---- the features perftop only reads (most of them into the header's text lines) ---- */

/* Two lists of strings: the sibling sockets, the sibling threads. */
static void read_cpu_topology(struct perfdata_reader *r, struct fcur *c)
{
	char s[4096];
	uint32_t nr = f32(c);
	fstr_list(c, nr, ", ", s, sizeof(s));
	if (!c->bad)
		pd_add_line(r, "sibling sockets: %s", s);
	nr = f32(c);
	fstr_list(c, nr, ", ", s, sizeof(s));
	if (!c->bad)
		pd_add_line(r, "sibling threads: %s", s);
}

/* u32 nr, then per node: u32 node, u64 total and free kB, its cpus' list. */
static void read_numa_topology(struct perfdata_reader *r, struct fcur *c)
{
	char s[4096];
	uint32_t nr = f32(c);
	for (uint32_t i = 0; i < nr && !c->bad && i < 1024; i++) {
		uint32_t node = f32(c);
		uint64_t total = f64(c), free_kib = f64(c);
		fstr(c, s, sizeof(s));
		if (!c->bad)
			pd_add_line(r, "numa node %u: memory %" PRIu64 " kB (free %" PRIu64
				    " kB), cpus %s", node, total, free_kib, s);
	}
}

/* u32 nr, then per PMU: u32 type, its name. */
static void read_pmu_mappings(struct perfdata_reader *r, struct fcur *c)
{
	char s[4096];
	uint32_t nr = f32(c);
	size_t used = 0;
	s[0] = '\0';
	for (uint32_t i = 0; i < nr && !c->bad && i < 1024; i++) {
		char name[256];
		uint32_t type = f32(c);
		fstr(c, name, sizeof(name));
		if (c->bad)
			break;
		int n = snprintf(s + used, sizeof(s) - used, "%s%s = %u", i ? ", " : "", name, type);
		if (n > 0 && (size_t)n < sizeof(s) - used)
			used += (size_t)n;
	}
	if (s[0])
		pd_add_line(r, "pmu mappings: %s", s);
}

/* u32 nr, then per group: its name, u32 leader index, u32 members. */
static void read_group_desc(struct perfdata_reader *r, struct fcur *c)
{
	char s[4096];
	uint32_t nr = f32(c);
	for (uint32_t i = 0; i < nr && !c->bad && i < 1024; i++) {
		fstr(c, s, sizeof(s));
		uint32_t leader = f32(c), members = f32(c);
		if (!c->bad)
			pd_add_line(r, "group: %s (leader %u, %u members)", s[0] ? s : "(unnamed)",
				    leader, members);
	}
}

/* u64 first, u64 last sample time (ns). */
static void read_sample_time(struct perfdata_reader *r, struct fcur *c)
{
	r->info.first_time = f64(c);
	r->info.last_time = f64(c);
	if (c->bad)
		r->info.first_time = r->info.last_time = 0;
}

static void print_sample_time(const struct perfdata_reader *r, struct pd_lines *l)
{
	const struct perfdata_info *in = &r->info;
	if (in->first_time || in->last_time)
		line_out(l, "sample time: %.6f to %.6f s (%.3f s)", in->first_time / 1e9,
			 in->last_time / 1e9, (double)(in->last_time - in->first_time) / 1e9);
}

/* u64 the clock's resolution (Hz). */
static void read_clockid(struct perfdata_reader *r, struct fcur *c)
{
	uint64_t res = f64(c);
	if (!c->bad)
		pd_add_line(r, "clockid frequency: %" PRIu64 " MHz", res / 1000000);
}

/* u32 version, type (1: zstd), level, ratio, then the mmap length. */
static void read_compressed(struct perfdata_reader *r, struct fcur *c)
{
	uint32_t ver = f32(c), type = f32(c), level = f32(c), ratio = f32(c);
	(void)ver;
	if (!c->bad)
		pd_add_line(r, "compressed: %s, level %u, ratio %u", type == 1 ? "zstd" : "unknown",
			    level, ratio);
}

/* ---- the table ---- */

#define FEATURE(id, read, write, print) [FEAT_##id] = { FEAT_##id, #id, read, write, print }
static const struct pd_feature features[FEAT_COUNT] = {
	FEATURE(RESERVED, NULL, NULL, NULL),
	FEATURE(TRACING_DATA, read_tracing_data, write_tracing_data, NULL),
	FEATURE(BUILD_ID, read_build_id, write_build_id, NULL),
	FEATURE(HOSTNAME, read_hostname, write_hostname, print_hostname),
	FEATURE(OSRELEASE, read_osrelease, write_osrelease, print_osrelease),
	FEATURE(VERSION, read_version, write_version, print_version),
	FEATURE(ARCH, read_arch, write_arch, print_arch),
	FEATURE(NRCPUS, read_nrcpus, write_nrcpus, print_nrcpus),
	FEATURE(CPUDESC, read_cpudesc, write_cpudesc, print_cpudesc),
	FEATURE(CPUID, read_cpuid, write_cpuid, print_cpuid),
	FEATURE(TOTAL_MEM, read_total_mem, write_total_mem, print_total_mem),
	FEATURE(CMDLINE, read_cmdline, write_cmdline, print_cmdline),
	FEATURE(EVENT_DESC, read_event_desc, write_event_desc, NULL),
	FEATURE(CPU_TOPOLOGY, read_cpu_topology, NULL, NULL),
	FEATURE(NUMA_TOPOLOGY, read_numa_topology, NULL, NULL),
	FEATURE(BRANCH_STACK, NULL, NULL, NULL),
	FEATURE(PMU_MAPPINGS, read_pmu_mappings, NULL, NULL),
	FEATURE(GROUP_DESC, read_group_desc, NULL, NULL),
	FEATURE(AUXTRACE, NULL, NULL, NULL),
	FEATURE(STAT, NULL, NULL, NULL),
	FEATURE(CACHE, NULL, NULL, NULL),
	FEATURE(SAMPLE_TIME, read_sample_time, NULL, print_sample_time),
	FEATURE(MEM_TOPOLOGY, NULL, NULL, NULL),
	FEATURE(CLOCKID, read_clockid, NULL, NULL),
	FEATURE(DIR_FORMAT, NULL, NULL, NULL),
	FEATURE(BPF_PROG_INFO, NULL, NULL, NULL),
	FEATURE(BPF_BTF, NULL, NULL, NULL),
	FEATURE(COMPRESSED, read_compressed, NULL, NULL),
	FEATURE(CPU_PMU_CAPS, NULL, NULL, NULL),
	FEATURE(CLOCK_DATA, NULL, NULL, NULL),
	FEATURE(HYBRID_TOPOLOGY, NULL, NULL, NULL),
	FEATURE(PMU_CAPS, NULL, NULL, NULL),
};
#undef FEATURE

const struct pd_feature *pd_feature(int id)
{
	return id >= 0 && id < FEAT_COUNT ? &features[id] : NULL;
}

const char *pd_feature_name(int id)
{
	return id >= 0 && id < FEAT_COUNT ? features[id].name : "?";
}

/* One feature section's bytes, by feature bit (a stream's HEADER_FEATURE record, or a file's
 * section); one perftop does not read is listed by its name and size. */
void pd_feature_read(struct perfdata_reader *r, unsigned feat, const unsigned char *p, size_t len)
{
	struct fcur c = {r, p, p + len, false};
	const struct pd_feature *f = pd_feature(feat < FEAT_COUNT ? (int)feat : -1);
	if (f && f->read)
		f->read(r, &c);
	else if (f)
		pd_add_line(r, "feature %s: %zu bytes", f->name, len);
	else
		pd_add_line(r, "feature %u: %zu bytes", feat, len);
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
			continue; /* a flag: its section holds nothing */
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

/* The features' lines of ids [from, to), in bit order. */
static void print_features(const struct perfdata_reader *r, struct pd_lines *l, int from, int to)
{
	for (int id = from; id < to; id++)
		if (features[id].print)
			features[id].print(r, l);
}

/* The machine first (the features up to EVENT_DESC), then the events, the lines the other features
 * made as they were read, the sample time, and where the data is. */
char **perfdata_header_lines(const struct perfdata_reader *r, size_t *nlines)
{
	const struct perfdata_info *in = &r->info;
	struct pd_lines l = {0};
	print_features(r, &l, 0, FEAT_EVENT_DESC);
	for (size_t i = 0; i < r->nev; i++) {
		const struct perf_event_attr *a = &r->ev[i].pub.attr;
		line_out(&l, "event %zu: %s (type %u, config 0x%" PRIx64 ", %s %" PRIu64
			 ", sample_type 0x%" PRIx64 ", %zu ids)", i, r->ev[i].pub.name, a->type,
			 (uint64_t)a->config, a->freq ? "freq" : "period", (uint64_t)a->sample_period,
			 (uint64_t)a->sample_type, r->ev[i].pub.nids);
	}
	for (size_t i = 0; i < in->nextra; i++)
		if (strncmp(in->extra_lines[i], "event: ", 7) != 0) /* the event lines above say it */
			line_out(&l, "%s", in->extra_lines[i]);
	print_features(r, &l, FEAT_EVENT_DESC, FEAT_COUNT);
	line_out(&l, "format: %s%s", in->pipe_mode ? "pipe" : "file",
		 in->swapped ? ", other byte order" : "");
	if (!in->pipe_mode) {
		line_out(&l, "data offset: %" PRIu64, in->data_offset);
		line_out(&l, "data size: %" PRIu64 "%s", in->data_size,
			 !r->header_unfinished ? ""
			 : in->data_size ? " (a lower bound: the recording was never finished)"
					 : " (never filled in: the recording was cut short)");
	}
	*nlines = l.n;
	return l.v;
}

void perfdata_free_lines(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}
