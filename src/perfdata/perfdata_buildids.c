/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_buildids: the build-ids of the binaries the samples hit, as perf record gives them. The
 * writer follows the mappings itself (MMAP/MMAP2, FORK, exec COMM, fed in time order through
 * perfdata_writer_note) and marks the file each sample's IP falls in; a file's build-id comes from
 * the kernel's MMAP2 record when it carried one, else from the file's ELF notes, read once. A
 * stream gets each one as a HEADER_BUILD_ID record when its binary is first hit, a file in its
 * BUILD_ID feature at close. This keeps the sampler free of the symbolizer.
 */
#include "perfdata/perfdata_write_state.h"
#include "perfdata/perfdata_write.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/hash.h"

#define PW_NOTE_MAX (64u << 10)

static size_t hash_u32(uint32_t v)
{
	return (size_t)(v * 2654435761u);
}

/* The process slot for pid; created when create, else NULL when unknown. */
static struct pw_proc *proc_get(struct perfdata_writer *w, uint32_t pid, bool create)
{
	size_t i;
	if (w->procs_cap == 0) {
		if (!create)
			return NULL;
		w->procs_cap = 256;
		w->procs = xcalloc(w->procs_cap, sizeof(*w->procs));
	}
	for (i = hash_u32(pid) & (w->procs_cap - 1); w->procs[i].used;
	     i = (i + 1) & (w->procs_cap - 1))
		if (w->procs[i].pid == pid)
			return &w->procs[i];
	if (!create)
		return NULL;
	if ((w->nprocs_used + 1) * 2 > w->procs_cap) {
		/* Grow and rehash; slots are never deleted (an exited process keeps an empty one).
		 */
		struct pw_proc *old = w->procs;
		size_t oldcap = w->procs_cap;
		w->procs_cap *= 2;
		w->procs = xcalloc(w->procs_cap, sizeof(*w->procs));
		for (size_t k = 0; k < oldcap; k++) {
			if (!old[k].used)
				continue;
			size_t j = hash_u32(old[k].pid) & (w->procs_cap - 1);
			while (w->procs[j].used)
				j = (j + 1) & (w->procs_cap - 1);
			w->procs[j] = old[k];
		}
		free(old);
		return proc_get(w, pid, true);
	}
	w->procs[i].used = true;
	w->procs[i].pid = pid;
	w->nprocs_used++;
	return &w->procs[i];
}

static uint32_t file_get(struct perfdata_writer *w, const char *name)
{
	size_t i;
	if ((w->nfiles + 1) * 2 > w->file_hash_cap) {
		free(w->file_hash);
		w->file_hash_cap = w->file_hash_cap ? w->file_hash_cap * 2 : 256;
		w->file_hash = xcalloc(w->file_hash_cap, sizeof(*w->file_hash));
		for (size_t k = 0; k < w->nfiles; k++) {
			i = hash_fnv1a(w->files[k].name, strlen(w->files[k].name)) & (w->file_hash_cap - 1);
			while (w->file_hash[i])
				i = (i + 1) & (w->file_hash_cap - 1);
			w->file_hash[i] = (uint32_t)k + 1;
		}
	}
	for (i = hash_fnv1a(name, strlen(name)) & (w->file_hash_cap - 1); w->file_hash[i];
	     i = (i + 1) & (w->file_hash_cap - 1))
		if (strcmp(w->files[w->file_hash[i] - 1].name, name) == 0)
			return w->file_hash[i] - 1;
	xgrow((void **)&w->files, &w->files_cap, w->nfiles + 1, sizeof(*w->files));
	memset(&w->files[w->nfiles], 0, sizeof(w->files[0]));
	w->files[w->nfiles].name = xstrdup(name);
	w->file_hash[i] = (uint32_t)w->nfiles + 1;
	return (uint32_t)w->nfiles++;
}

static void proc_clear(struct pw_proc *p)
{
	free(p->maps);
	p->maps = NULL;
	p->n = p->cap = 0;
}

static void note_mmap(struct perfdata_writer *w, const struct rec *r)
{
	const struct rec_mmap *m = &r->u.mmap;
	const char *name;
	struct pw_proc *p;
	uint32_t f;

	if (!m->executable || m->len == 0 || m->filename_off < sizeof(*r) ||
	    m->filename_off >= r->size || m->pid == UINT32_MAX)
		return;
	name = rec_filename(r);
	if (strnlen(name, r->size - m->filename_off) == r->size - m->filename_off)
		return;
	/* [vdso], [stack], //anon, memfd:...: nothing on disk to take a build-id from. */
	if (name[0] != '/')
		return;
	f = file_get(w, name);
	if (m->has_build_id && m->build_id_size > 0 && m->build_id_size <= REC_BUILD_ID_MAX) {
		memcpy(w->files[f].bid, m->build_id, m->build_id_size);
		w->files[f].bid_size = m->build_id_size;
	}
	p = proc_get(w, m->pid, true);
	xgrow((void **)&p->maps, &p->cap, p->n + 1, sizeof(*p->maps));
	p->maps[p->n].start = m->start;
	p->maps[p->n].end = m->start + m->len;
	p->maps[p->n].file = f;
	p->n++;
}

static void note_sample(struct perfdata_writer *w, const struct rec *r)
{
	struct pw_proc *p;
	uint64_t ip = r->u.sample.ip;

	switch (rec_cpumode(r)) {
	case PERF_RECORD_MISC_KERNEL:
		if (!w->kernel_hit && w->pipe)
			pw_put_build_id(w, &w->pass, PD_HEADER_BUILD_ID, -1);
		w->kernel_hit = true;
		return;
	case PERF_RECORD_MISC_USER:
		break;
	default:
		return;
	}
	p = proc_get(w, r->pid, false);
	if (!p)
		return;
	/* Newest first: a later mapping of the same range replaces an older one. */
	for (size_t i = p->n; i-- > 0;) {
		if (ip >= p->maps[i].start && ip < p->maps[i].end) {
			if (!w->files[p->maps[i].file].hit && w->pipe)
				pw_put_build_id(w, &w->pass, PD_HEADER_BUILD_ID, (long)p->maps[i].file);
			w->files[p->maps[i].file].hit = true;
			return;
		}
	}
}

void perfdata_writer_note(struct perfdata_writer *w, const struct rec *r)
{
	struct pw_proc *p, *parent;

	switch (r->type) {
	case REC_SAMPLE:
		note_sample(w, r);
		break;
	case REC_MMAP:
		note_mmap(w, r);
		break;
	case REC_COMM:
		if (r->u.comm.exec && (p = proc_get(w, r->u.comm.pid, false)) != NULL)
			proc_clear(p);
		break;
	case REC_FORK:
		/* A new process starts with its parent's mappings; a new thread shares them. */
		if (r->u.task.pid == r->u.task.ppid)
			break;
		parent = proc_get(w, r->u.task.ppid, false);
		if (!parent || parent->n == 0)
			break;
		p = proc_get(w, r->u.task.pid, true);
		parent = proc_get(w, r->u.task.ppid, false); /* p may have moved the table */
		proc_clear(p);
		p->maps = xmalloc(parent->n * sizeof(*p->maps));
		memcpy(p->maps, parent->maps, parent->n * sizeof(*p->maps));
		p->n = p->cap = parent->n;
		break;
	case REC_EXIT:
		if (r->u.task.pid == r->u.task.tid &&
		    (p = proc_get(w, r->u.task.pid, false)) != NULL)
			proc_clear(p);
		break;
	default:
		break;
	}
}


static size_t read_note_segment(int fd, uint64_t off, uint64_t size, uint64_t align, uint8_t *out)
{
	unsigned char *buf;
	size_t k = 0;
	if (size == 0 || size > PW_NOTE_MAX)
		return 0;
	buf = xmalloc((size_t)size);
	if (pread(fd, buf, (size_t)size, (off_t)off) == (ssize_t)size)
		k = elf_notes_build_id(buf, (size_t)size, align == 8 ? 8 : 4, out, REC_BUILD_ID_MAX);
	free(buf);
	return k;
}

/* The build-id of an ELF file from its PT_NOTE segments; 0 when it has none or is not ELF. */
size_t pw_file_build_id(const char *path, uint8_t *out)
{
	unsigned char ident[EI_NIDENT];
	size_t k = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (pread(fd, ident, sizeof(ident), 0) != (ssize_t)sizeof(ident) ||
	    memcmp(ident, ELFMAG, SELFMAG) != 0) {
		close(fd);
		return 0;
	}
	if (ident[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr eh;
		if (pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
		    eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum < 4096) {
			for (unsigned i = 0; i < eh.e_phnum && !k; i++) {
				Elf64_Phdr ph;
				if (pread(fd, &ph, sizeof(ph),
				          (off_t)(eh.e_phoff + i * sizeof(ph))) !=
				    (ssize_t)sizeof(ph))
					break;
				if (ph.p_type == PT_NOTE)
					k = read_note_segment(fd, ph.p_offset, ph.p_filesz,
					                      ph.p_align, out);
			}
		}
	} else if (ident[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr eh;
		if (pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
		    eh.e_phentsize == sizeof(Elf32_Phdr) && eh.e_phnum < 4096) {
			for (unsigned i = 0; i < eh.e_phnum && !k; i++) {
				Elf32_Phdr ph;
				if (pread(fd, &ph, sizeof(ph),
				          (off_t)(eh.e_phoff + i * sizeof(ph))) !=
				    (ssize_t)sizeof(ph))
					break;
				if (ph.p_type == PT_NOTE)
					k = read_note_segment(fd, ph.p_offset, ph.p_filesz, 4, out);
			}
		}
	}
	close(fd);
	return k;
}

/* One entry of the BUILD_ID feature: header, pid, 20-byte id + its size, name padded to 64. */
static void build_id_entry(struct pw_buf *b, uint32_t type, uint16_t misc, const uint8_t *bid,
                           size_t bid_size, const char *name)
{
	size_t n = strlen(name) + 1,
	       padded = (n + PD_NAME_ALIGN - 1) & ~(size_t)(PD_NAME_ALIGN - 1);
	struct perf_event_header h = {.type = type,
	                              .misc = (uint16_t)(misc | PD_MISC_BUILD_ID_SIZE),
	                              .size = (uint16_t)(PD_BUILD_ID_HEAD + padded)};
	unsigned char id[24] = {0};
	if (PD_BUILD_ID_HEAD + padded > UINT16_MAX)
		return;
	memcpy(id, bid, bid_size);
	id[20] = (uint8_t)bid_size;
	buf_put(b, &h, sizeof(h));
	buf_u32(b, UINT32_MAX); /* pid -1: the host */
	buf_put(b, id, sizeof(id));
	buf_put(b, name, n - 1);
	buf_zero(b, padded - (n - 1));
}

/* The build-id entry of file f (-1: the kernel) into b, as a record of type type: 0 in the BUILD_ID
 * feature, HEADER_BUILD_ID in a stream's pass when a sample first hits f. A binary without a
 * build-id goes without. A file's is read once and kept. */
void pw_put_build_id(struct perfdata_writer *w, struct pw_buf *b, uint32_t type, long f)
{
	if (f < 0) {
		uint8_t bid[REC_BUILD_ID_MAX];
		size_t k = kernel_build_id(bid, sizeof(bid));
		if (k > 0)
			build_id_entry(b, type, PERF_RECORD_MISC_KERNEL, bid, k, "[kernel.kallsyms]");
		return;
	}
	struct pw_file *pf = &w->files[f];
	if (pf->bid_size == 0)
		pf->bid_size = (uint8_t)pw_file_build_id(pf->name, pf->bid);
	if (pf->bid_size)
		build_id_entry(b, type, PERF_RECORD_MISC_USER, pf->bid, pf->bid_size, pf->name);
}
