/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_events: the events of a recording: their attrs (from the file header's attrs section or
 * a stream's HEADER_ATTR records, in either byte order, of any attr size an older or newer perf
 * wrote), their ids and the id -> event map that tells which event a record belongs to, and the
 * name perf gives an event that the file does not name.
 */
#include "perfdata/perfdata_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "util/util.h"

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
void pd_attr_load(struct perfdata_reader *r, const unsigned char *p, size_t attr_size,
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

int pd_id_lookup(const struct perfdata_reader *r, uint64_t id)
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
int pd_event_add(struct perfdata_reader *r, const struct perf_event_attr *a,
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

/* The file header's attrs section: attrs_size bytes at attrs_off, an entry of attr_size bytes per
 * event (the attr, then the {offset, size} of its ids), each event added with its ids. 0, or
 * -errno with a message in err. */
int pd_read_attrs(struct perfdata_reader *r, uint64_t attr_size, uint64_t attrs_off,
		  uint64_t attrs_size, char *err, size_t errlen)
{
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
		pd_attr_load(r, e, (size_t)attr_size, &a);
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
		int rc = pd_event_add(r, &a, ids, (size_t)nids);
		free(ids);
		if (rc < 0) {
			free(attrs);
			snprintf(err, errlen, "%s: too many events or ids in the file", r->path);
			return rc;
		}
	}
	free(attrs);
	return 0;
}
