/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_write: the perf.data (PERFILE2) writer behind -o FILE.
 *
 * File layout, all in host byte order as perf writes it:
 *   [file header, 104 bytes][ids of each event][each attr + its ids section][data ...][feature
 * table][features] The header names where the attrs and the data are, and a 256-bit map of the
 * feature sections that follow the data (one {offset, size} per set bit, in bit order, then their
 * contents). While the session runs the feature map is empty and data.size is rewritten about once
 * a second, so the file on disk is always a valid perf.data file up to that point;
 * perfdata_writer_close adds the features.
 *
 * Pipe mode (-o -, perfdata_writer_open_fd): perf's stream form, for a pipe or standard output,
 * which is never rewritten: a 16-byte header, then the attrs (HEADER_ATTR), the features known at
 * start (HEADER_FEATURE) and the tracepoints' formats (HEADER_TRACING_DATA) as records, then the
 * data; the build-id of a binary goes out as a HEADER_BUILD_ID record in the pass in which the
 * first sample in it is emitted (as perf inject -b puts them in a stream), before perf report's
 * round-ordering hands that sample out, so a reader on another machine can find its debug file.
 *
 * The feature sections are the feature table's (perfdata_features.c), the build-ids of the binaries
 * hit perfdata_buildids.c's; this file puts the file and the stream together.
 *
 * Only the sampler thread calls add/add_rec/note/end_pass; close runs after that thread is joined.
 * Memory is bounded by one pass of ring data plus the mapping table (the exec mappings of the
 * processes seen, dropped when a process exits or execs).
 */
#include "perfdata/perfdata_write.h"
#include "perfdata/perfdata_write_state.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdata/format.h"
#include "perfdata/perfdata_features.h"
#include "util/util.h"

#define PW_HEADER_SYNC_NS 1000000000ull

/* ---- encoding struct rec back into kernel record bytes ---- */

struct enc {
	unsigned char *p;
	size_t len, cap;
	bool overflow;
};

static void enc_put(struct enc *e, const void *v, size_t n)
{
	if (e->len + n > e->cap) {
		e->overflow = true;
		return;
	}
	memcpy(e->p + e->len, v, n);
	e->len += n;
}

static void enc_u32(struct enc *e, uint32_t v)
{
	enc_put(e, &v, 4);
}

static void enc_u64(struct enc *e, uint64_t v)
{
	enc_put(e, &v, 8);
}

/* A NUL-terminated string padded with zeros to a multiple of 8, as the kernel pads names. */
static void enc_name(struct enc *e, const char *s, size_t maxlen)
{
	static const unsigned char zeros[8];
	size_t n = strnlen(s, maxlen);
	enc_put(e, s, n);
	enc_put(e, zeros, 8 - (n & 7));
}

/* The sample_id trailer: the fields of sample_type that sample_id_all adds, in the kernel's order.
 */
static void enc_sample_id(struct enc *e, uint64_t st, uint32_t pid, uint32_t tid, uint64_t time,
                          uint32_t cpu, uint64_t id)
{
	if (st & PERF_SAMPLE_TID) {
		enc_u32(e, pid);
		enc_u32(e, tid);
	}
	if (st & PERF_SAMPLE_TIME)
		enc_u64(e, time);
	if (st & PERF_SAMPLE_ID)
		enc_u64(e, id);
	if (st & PERF_SAMPLE_STREAM_ID)
		enc_u64(e, id);
	if (st & PERF_SAMPLE_CPU) {
		enc_u32(e, cpu == REC_NO_CPU ? 0 : cpu);
		enc_u32(e, 0);
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		enc_u64(e, id);
}

static size_t enc_finish(struct enc *e, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = {.type = type, .misc = misc, .size = (uint16_t)e->len};
	if (e->overflow || e->len > UINT16_MAX)
		return 0;
	memcpy(e->p, &h, sizeof(h));
	return e->len;
}

size_t perfdata_encode_rec(const struct rec *r, uint64_t sample_type, bool sample_id_all,
                           uint64_t id, void *out, size_t cap)
{
	struct enc e = {.p = out, .cap = cap};
	uint64_t st = sample_id_all ? sample_type : 0;
	uint32_t type;
	uint16_t misc = r->misc;

	if (cap < sizeof(struct perf_event_header))
		return 0;
	e.len = sizeof(struct perf_event_header);
	switch (r->type) {
	case REC_COMM:
		type = PERF_RECORD_COMM;
		if (r->u.comm.exec)
			misc |= PERF_RECORD_MISC_COMM_EXEC;
		enc_u32(&e, r->u.comm.pid);
		enc_u32(&e, r->u.comm.tid);
		enc_name(&e, r->u.comm.comm, sizeof(r->u.comm.comm) - 1);
		break;
	case REC_MMAP: {
		const struct rec_mmap *m = &r->u.mmap;
		size_t maxname = r->size > m->filename_off ? r->size - m->filename_off : 0;
		if (m->filename_off < sizeof(*r) || maxname == 0)
			return 0;
		type = m->is_mmap2 ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP;
		enc_u32(&e, m->pid);
		enc_u32(&e, m->tid);
		enc_u64(&e, m->start);
		enc_u64(&e, m->len);
		enc_u64(&e, m->pgoff);
		if (m->is_mmap2) {
			if (m->has_build_id) {
				unsigned char bid[24] = {0};
				bid[0] = m->build_id_size;
				memcpy(bid + 4, m->build_id,
				       m->build_id_size < REC_BUILD_ID_MAX ? m->build_id_size
				                                           : REC_BUILD_ID_MAX);
				enc_put(&e, bid, sizeof(bid));
				misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
			} else {
				enc_u32(&e, m->maj);
				enc_u32(&e, m->min);
				enc_u64(&e, m->ino);
				enc_u64(&e, m->ino_generation);
			}
			enc_u32(&e, m->prot);
			enc_u32(&e, m->flags);
		}
		enc_name(&e, rec_filename(r), maxname - 1);
		break;
	}
	case REC_CGROUP: {
		/* perf report names a sample's cgroup (--sort cgroup) from these records: the
		 * kernel's for the cgroups made during the session, the sampler's for the others */
		size_t maxname = r->size > r->u.cgroup.path_off ? r->size - r->u.cgroup.path_off : 0;
		if (r->u.cgroup.path_off < sizeof(*r) || maxname == 0)
			return 0;
		type = PERF_RECORD_CGROUP;
		enc_u64(&e, r->u.cgroup.id);
		enc_name(&e, rec_cgroup_path(r), maxname - 1);
		break;
	}
	default:
		return 0;
	}
	enc_sample_id(&e, st, r->pid, r->tid, r->time, r->cpu, id);
	return enc_finish(&e, type, misc);
}

/* ---- the file ---- */

/* Writes all n bytes at offset off, or at the file position when off is WRITE_AT_END; the time
 * spent is added to *ns (the sampler reports it). 0 or -errno. */
#define WRITE_AT_END UINT64_MAX
static int write_all_at(int fd, const void *p, size_t n, uint64_t off, uint64_t *ns)
{
	const unsigned char *c = p;
	uint64_t t0 = now_ns();
	int ret = 0;
	while (n > 0) {
		ssize_t k = off == WRITE_AT_END ? write(fd, c, n) : pwrite(fd, c, n, (off_t)off);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (k == 0) {
			ret = -EIO;
			break;
		}
		c += k;
		n -= (size_t)k;
		if (off != WRITE_AT_END)
			off += (uint64_t)k;
	}
	*ns += now_ns() - t0;
	return ret;
}

/* The 104-byte file header for the current state; features is the bitmap's first word. */
static void make_header(const struct perfdata_writer *w, unsigned char out[PD_FILE_HEADER_SIZE],
                        uint64_t features)
{
	uint64_t v[13] = {0};
	memcpy(&v[0], PD_MAGIC_TEXT, 8);
	v[1] = PD_FILE_HEADER_SIZE;
	/* attr_size is one entry of the attrs section: the attr and the {offset, size} of its ids
	 */
	v[2] = sizeof(struct perf_event_attr) + 16;
	v[3] = PD_FILE_HEADER_SIZE + w->total_ids * 8;            /* attrs.offset */
	v[4] = (sizeof(struct perf_event_attr) + 16) * w->nev; /* attrs.size: an entry per event */
	v[5] = w->data_off;
	v[6] = w->data_size;
	v[7] = 0; /* event_types: unused */
	v[8] = 0;
	v[9] = features;
	memcpy(out, v, PD_FILE_HEADER_SIZE);
}

static int sync_header(struct perfdata_writer *w)
{
	unsigned char h[PD_FILE_HEADER_SIZE];
	int ret;
	make_header(w, h, 0);
	ret = write_all_at(w->fd, h, sizeof(h), 0, &w->write_ns);
	if (ret == 0) {
		w->synced_size = w->data_size;
		w->last_sync_ns = now_ns();
	}
	return ret;
}

/* The address of _text, which perf's kernel map is relative to; 0 when hidden or unreadable. */
static uint64_t kernel_text_addr(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	uint64_t addr = 0;
	if (!f)
		return 0;
	/* _text is among the first lines; stop early rather than read all of kallsyms. */
	for (int i = 0; i < 200000 && fgets(line, sizeof(line), f); i++) {
		unsigned long long a;
		char t, name[256];
		if (sscanf(line, "%llx %c %255s", &a, &t, name) == 3 &&
		    strcmp(name, "_text") == 0 && (t == 'T' || t == 't')) {
			addr = a;
			break;
		}
	}
	fclose(f);
	return addr;
}

/* The kernel's mapping as perf synthesizes it: pid -1, "[kernel.kallsyms]_text", from _text up. */
static void add_kernel_mmap(struct perfdata_writer *w)
{
	unsigned char raw[256];
	struct enc e = {.p = raw, .cap = sizeof(raw), .len = sizeof(struct perf_event_header)};
	uint64_t text = kernel_text_addr();
	uint64_t st = w->ev[0].attr.sample_id_all ? w->ev[0].attr.sample_type : 0;
	size_t n;

	enc_u32(&e, UINT32_MAX);
	enc_u32(&e, 0);
	enc_u64(&e, text);
	enc_u64(&e, ~0ull - text);
	enc_u64(&e, text);
	enc_name(&e, "[kernel.kallsyms]_text", 64);
	enc_sample_id(&e, st, UINT32_MAX, 0, 0, 0, w->id0);
	n = enc_finish(&e, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	if (n)
		buf_put(&w->pass, raw, n);
}

static void writer_free(struct perfdata_writer *w)
{
	for (size_t i = 0; i < w->procs_cap; i++)
		free(w->procs[i].maps);
	free(w->procs);
	for (size_t i = 0; i < w->nfiles; i++)
		free(w->files[i].name);
	free(w->files);
	free(w->file_hash);
	free(w->pass.p);
	for (size_t e = 0; e < w->nev; e++)
		free(w->ev[e].ids);
	free(w->path);
	free(w);
}

/* The events as they ran, not as we armed them; their ids in the order of the file. */
static void writer_events(struct perfdata_writer *w, const struct sampler_tee_event *ev, size_t nev)
{
	w->nev = nev;
	for (size_t e = 0; e < nev; e++) {
		struct pw_event *d = &w->ev[e];
		d->attr = *ev[e].attr;
		d->attr.size = sizeof(d->attr);
		d->attr.disabled = 0;
		d->attr.enable_on_exec = 0;
		d->nids = ev[e].nids;
		d->ids = xmalloc((d->nids ? d->nids : 1) * sizeof(*d->ids));
		if (d->nids)
			memcpy(d->ids, ev[e].ids, d->nids * sizeof(*d->ids));
		w->total_ids += d->nids;
		snprintf(d->name, sizeof(d->name), "%s", ev[e].name ? ev[e].name : "");
	}
	w->id0 = w->ev[0].nids ? w->ev[0].ids[0] : 0;
}

static struct perfdata_writer *writer_new(int fd, const char *path, bool pipe,
					  const struct sampler_tee_event *ev, size_t nev)
{
	struct perfdata_writer *w = xcalloc(1, sizeof(*w));
	w->fd = fd;
	w->path = xstrdup(path);
	w->pipe = pipe;
	writer_events(w, ev, nev < 1 ? 1 : nev > SAMPLER_MAX_EVENTS ? SAMPLER_MAX_EVENTS : nev);
	return w;
}

/* The file form's start: header, every event's ids, each attr + {its ids' offset, size}, then the
 * data, 8-aligned. */
static void file_preamble(struct perfdata_writer *w, struct pw_buf *head)
{
	buf_zero(head, PD_FILE_HEADER_SIZE);
	for (size_t e = 0; e < w->nev; e++)
		for (size_t i = 0; i < w->ev[e].nids; i++)
			buf_u64(head, w->ev[e].ids[i]);
	for (size_t e = 0, at = PD_FILE_HEADER_SIZE; e < w->nev; e++) {
		buf_put(head, &w->ev[e].attr, sizeof(w->ev[e].attr));
		buf_u64(head, at);
		buf_u64(head, w->ev[e].nids * 8);
		at += w->ev[e].nids * 8;
	}
	buf_zero(head, (8 - (head->len & 7)) & 7);
	w->data_off = head->len;
	make_header(w, head->p, 0);
}

/* A user record of the stream form: type, then body (n bytes), padded to 8. False when it would
 * not fit a record's 16-bit size. */
static bool stream_record(struct pw_buf *b, uint32_t type, const void *body, size_t n)
{
	size_t padded = (n + 7) & ~(size_t)7;
	if (8 + padded > UINT16_MAX)
		return false;
	struct perf_event_header h = {.type = type, .size = (uint16_t)(8 + padded)};
	buf_put(b, &h, sizeof(h));
	buf_put(b, body, n);
	buf_zero(b, padded - n);
	return true;
}

/* The stream form's start: the pipe header, the attrs with their ids, the features known now
 * (all but the build-ids, which come as binaries are hit) and the tracepoints' formats. */
static void stream_preamble(struct perfdata_writer *w, struct pw_buf *head)
{
	buf_put(head, PD_MAGIC_TEXT, 8);
	buf_u64(head, PD_PIPE_HEADER_SIZE);
	for (size_t e = 0; e < w->nev; e++) {
		struct pw_buf body = {0};
		buf_put(&body, &w->ev[e].attr, sizeof(w->ev[e].attr));
		buf_put(&body, w->ev[e].ids, w->ev[e].nids * 8);
		if (!stream_record(head, PD_HEADER_ATTR, body.p, body.len))
			warn_msg("recording to %s: event %zu has too many ids for a stream", w->path, e);
		free(body.p);
	}
	for (int id = 0; id < FEAT_COUNT; id++) {
		const struct pd_feature *f = pd_feature(id);
		/* the build-ids come as binaries are hit; the tracing data has a record of its own */
		if (!f->write || id == FEAT_BUILD_ID || id == FEAT_TRACING_DATA)
			continue;
		struct pw_buf body = {0};
		buf_u64(&body, (uint64_t)id);
		if (f->write(w, &body))
			stream_record(head, PD_HEADER_FEATURE, body.p, body.len); /* too big: left out */
		free(body.p);
	}
	struct pw_buf trace = {0};
	if (pd_feature(FEAT_TRACING_DATA)->write(w, &trace)) {
		/* the record says how long the formats are; they follow it, padded to 8 */
		uint32_t size[2] = { (uint32_t)((trace.len + 7) & ~(size_t)7), 0 };
		stream_record(head, PD_HEADER_TRACING_DATA, size, sizeof(size));
		buf_put(head, trace.p, trace.len);
		buf_zero(head, size[0] - trace.len);
	}
	free(trace.p);
	w->data_off = head->len;
}

/* Writes the preamble and queues the kernel's mapping; NULL (w freed, fd closed) on failure. */
static struct perfdata_writer *writer_start(struct perfdata_writer *w, char *err, size_t errlen)
{
	struct pw_buf head = {0};
	if (w->pipe)
		stream_preamble(w, &head);
	else
		file_preamble(w, &head);
	int ret = write_all_at(w->fd, head.p, head.len, WRITE_AT_END, &w->write_ns);
	free(head.p);
	if (ret) {
		snprintf(err, errlen, "cannot write %s: %s", w->path, strerror(-ret));
		if (w->out.path)
			safefile_abort(&w->out);
		else
			close(w->fd);
		writer_free(w);
		return NULL;
	}
	w->last_sync_ns = now_ns();
	add_kernel_mmap(w);
	return w;
}

struct perfdata_writer *perfdata_writer_open(const char *path, const struct sampler_tee_event *ev,
                                             size_t nev, char *err, size_t errlen)
{
	/* Written under a temporary name and renamed at close (safefile.h): a planted symlink at path
	 * is replaced, not written through, and a kill leaves path as it was; the previous recording
	 * becomes path.old, as perf's does. */
	struct safefile_out out;
	int fd = safefile_create(&out, path, SAFEFILE_FOR_USER | SAFEFILE_KEEP_OLD, err, errlen);
	if (fd < 0)
		return NULL;
	if (out.stream) {
		safefile_abort(&out);
		snprintf(err, errlen, "cannot record to %s: not a regular file (-o - writes a stream)", path);
		return NULL;
	}
	struct perfdata_writer *w = writer_new(fd, path, false, ev, nev);
	w->out = out;
	return writer_start(w, err, errlen);

}

struct perfdata_writer *perfdata_writer_open_fd(int fd, const char *name,
                                                const struct sampler_tee_event *ev, size_t nev,
                                                char *err, size_t errlen)
{
	return writer_start(writer_new(fd, name, true, ev, nev), err, errlen);
}

void perfdata_writer_add(struct perfdata_writer *w, const void *raw, size_t len)
{
	if (w->error || len < sizeof(struct perf_event_header))
		return;
	buf_put(&w->pass, raw, len);
}

int perfdata_writer_add_rec(struct perfdata_writer *w, const struct rec *r)
{
	size_t n;
	if (w->error)
		return w->error;
	/* A record's bytes never exceed its struct rec form plus the trailer. */
	xgrow((void **)&w->pass.p, &w->pass.cap, w->pass.len + r->size + 64, 1);
	n = perfdata_encode_rec(r, w->ev[0].attr.sample_type, w->ev[0].attr.sample_id_all, w->id0,
	                        w->pass.p + w->pass.len, w->pass.cap - w->pass.len);
	if (!n)
		return -EINVAL;
	w->pass.len += n;
	return 0;
}

int perfdata_writer_end_pass(struct perfdata_writer *w, bool round, bool sync)
{
	int ret;
	if (w->error)
		return w->error;
	if (w->pass.len > 0) {
		if (round) {
			struct perf_event_header h = {.type = PD_FINISHED_ROUND, .size = sizeof(h)};
			buf_put(&w->pass, &h, sizeof(h));
		}
		ret = write_all_at(w->fd, w->pass.p, w->pass.len, WRITE_AT_END, &w->write_ns);
		if (ret) {
			/* Keep the file valid up to the last complete pass: cut what was half
			 * written and point the header there (neither needs new space on a full
			 * disk). */
			w->error = ret;
			w->pass.len = 0;
			if (w->pipe)
				return ret; /* a stream is not rewritten: its reader sees it end */
			if (ftruncate(w->fd, (off_t)(w->data_off + w->data_size)) != 0) {
				/* the header still bounds the data; the tail is only wasted space
				 */
			}
			sync_header(w);
			return ret;
		}
		w->data_size += w->pass.len;
		w->pass.len = 0;
	}
	if (!w->pipe && w->data_size != w->synced_size &&
	    (sync || now_ns() - w->last_sync_ns >= PW_HEADER_SYNC_NS)) {
		ret = sync_header(w);
		if (ret) {
			w->error = ret;
			return ret;
		}
	}
	return 0;
}

int perfdata_writer_error(const struct perfdata_writer *w)
{
	return w->error;
}

uint64_t perfdata_writer_bytes(const struct perfdata_writer *w)
{
	return w->data_size;
}

uint64_t perfdata_writer_write_ns(const struct perfdata_writer *w)
{
	return w->write_ns;
}

/* The feature sections the table writes, in bit order, after the data: the {offset, size} of each
 * (one per bit set in *bits), then their contents. */
static int write_features(struct perfdata_writer *w, uint64_t *bits)
{
	struct pw_buf table = {0}, body = {0};
	size_t start[FEAT_COUNT], len[FEAT_COUNT];
	unsigned nfeat = 0;
	int ret;

	*bits = 0;
	for (int id = 0; id < FEAT_COUNT; id++) {
		const struct pd_feature *f = pd_feature(id);
		start[id] = body.len;
		len[id] = 0;
		if (!f->write)
			continue;
		if (!f->write(w, &body)) {
			body.len = start[id]; /* the recording goes without it */
			continue;
		}
		len[id] = body.len - start[id];
		*bits |= 1ull << id;
		nfeat++;
	}
	uint64_t at = w->data_off + w->data_size + (uint64_t)nfeat * 16;
	for (int id = 0; id < FEAT_COUNT; id++) {
		if (!(*bits >> id & 1))
			continue;
		buf_u64(&table, at + start[id]);
		buf_u64(&table, len[id]);
	}
	buf_put(&table, body.p, body.len);
	ret = write_all_at(w->fd, table.p, table.len, w->data_off + w->data_size, &w->write_ns);
	free(table.p);
	free(body.p);
	return ret;
}

int perfdata_writer_close(struct perfdata_writer *w, char *err, size_t errlen)
{
	int ret = 0;
	if (!w)
		return 0;
	if (err && errlen)
		err[0] = '\0';
	if (!w->error)
		perfdata_writer_end_pass(w, true, true);
	if (!w->error && !w->pipe) {
		uint64_t bits;
		unsigned char h[PD_FILE_HEADER_SIZE];
		ret = write_features(w, &bits);
		if (ret == 0) {
			make_header(w, h, bits);
			ret = write_all_at(w->fd, h, sizeof(h), 0, &w->write_ns);
		}
		if (ret) {
			snprintf(err, errlen, "recording to %s: cannot write its header: %s",
			         w->path, strerror(-ret));
			/* the data stays covered by the header synced last */
			if (ftruncate(w->fd, (off_t)(w->data_off + w->data_size)) != 0) {
			}
			sync_header(w);
		}
	} else if (w->error) {
		ret = w->error;
	}
	if (w->out.path) {
		/* complete, or valid up to its last pass after an error: either way it takes the name */
		char why[PATH_MAX + 64];
		if (safefile_commit(&w->out, why, sizeof(why)) != 0 && ret == 0) {
			ret = -EIO;
			snprintf(err, errlen, "recording: %s", why);
		}
	} else if (close(w->fd) != 0 && ret == 0) {
		ret = -errno;
		snprintf(err, errlen, "recording to %s: %s", w->path, strerror(errno));
	}
	writer_free(w);
	return ret;
}

/* ---- the sampler's tee ---- */

static void *tee_open(void *arg, const struct sampler_tee_event *ev, size_t nev, char *err,
		      size_t errlen)
{
	return perfdata_writer_open(arg, ev, nev, err, errlen);
}

static void tee_add_raw(void *w, const void *raw, size_t len)
{
	perfdata_writer_add(w, raw, len);
}

static void tee_add_rec(void *w, const struct rec *r)
{
	perfdata_writer_add_rec(w, r);
}

static void tee_note(void *w, const struct rec *r)
{
	perfdata_writer_note(w, r);
}

static int tee_end_pass(void *w, bool round, bool sync)
{
	return perfdata_writer_end_pass(w, round, sync);
}

static uint64_t tee_bytes(const void *w)
{
	return perfdata_writer_bytes(w);
}

static uint64_t tee_write_ns(const void *w)
{
	return perfdata_writer_write_ns(w);
}

static int tee_close(void *w, char *msg, size_t len)
{
	return perfdata_writer_close(w, msg, len);
}

static void *tee_open_fd(void *arg, const struct sampler_tee_event *ev, size_t nev, char *err,
			 size_t errlen)
{
	return perfdata_writer_open_fd((int)(intptr_t)arg, "standard output", ev, nev, err, errlen);
}

const struct sampler_tee_ops *perfdata_tee_fd(void)
{
	static const struct sampler_tee_ops ops = {
		.open = tee_open_fd, .add_raw = tee_add_raw, .add_rec = tee_add_rec, .note = tee_note,
		.end_pass = tee_end_pass, .bytes = tee_bytes, .write_ns = tee_write_ns, .close = tee_close,
	};
	return &ops;
}

const struct sampler_tee_ops *perfdata_tee(void)
{
	static const struct sampler_tee_ops ops = {
		.open = tee_open, .add_raw = tee_add_raw, .add_rec = tee_add_rec, .note = tee_note,
		.end_pass = tee_end_pass, .bytes = tee_bytes, .write_ns = tee_write_ns, .close = tee_close,
	};
	return &ops;
}
