/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata: the perf.data reader's front: opening a file (mapped when it can be), a stream, several
 * files of one session, a directory of perf record --threads, or memory; its magic and file header;
 * rewinding and closing. The layers under it are listed in perfdata_int.h.
 */
#include "perfdata/perfdata_int.h"
#include "perfdata/perfdata_dir.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdata/format.h"
#include "util/util.h"

/* The file form's header: its attrs with their ids, where the data is, and the feature sections
 * (when the writer finished the file). */
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
	int rc = pd_read_attrs(r, attr_size, attrs_off, attrs_size, err, errlen);
	if (rc < 0)
		return rc;

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
		pd_features_read(r, bits);
	}
	if (fseeko(r->f, (off_t)data_off, SEEK_SET) != 0) {
		snprintf(err, errlen, "%s: cannot seek to the data: %s", r->path, strerror(errno));
		return -EIO;
	}
	r->file_pos = r->data_start = data_off;
	if (r->mem)
		pd_in_mem_at(r, data_off);
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

/* Pipe format: attrs and features arrive as records before the data; read them now so that the
 * events are known at open. Stops, without consuming it, at the first record of another kind. */
static int open_pipe_preamble(struct perfdata_reader *r, char *err, size_t errlen)
{
	r->file_pos = r->data_start = PD_PIPE_HEADER_SIZE;
	if (r->mem)
		pd_in_mem_at(r, PD_PIPE_HEADER_SIZE);
	r->in_preamble = true;
	for (int guard = 0; guard < 100000; guard++) {
		if (pd_in_fill(r, 8) < 8)
			break;
		uint32_t type = ld32(r, r->buf + r->bpos);
		if (type < PD_HEADER_ATTR || type == PD_FINISHED_ROUND || type == PD_COMPRESSED ||
		    type == PD_COMPRESSED2 || type == PD_FINISHED_INIT)
			break;
		if (pd_raw_pump(r) <= 0)
			break;
	}
	r->in_preamble = false;
	if (r->nev == 0) {
		snprintf(err, errlen, "%s: no event attributes in the stream (not a perf.data stream?)",
			 r->path);
		return -EINVAL;
	}
	r->data_start = pd_in_offset(r);
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
	pd_z_free(r);
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

int perfdata_rewind(struct perfdata_reader *r)
{
	if (!r->seekable)
		return -ESPIPE;
	if (r->mem) {
		pd_in_mem_at(r, r->data_start);
	} else {
		if (fseeko(r->f, (off_t)r->data_start, SEEK_SET) != 0)
			return -errno;
		clearerr(r->f);
		r->bpos = r->blen = 0;
		r->file_pos = r->data_start;
		r->eof = false;
	}
	pd_z_rewind(r);
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
		if (have >= rec_size_at(r, r->buf + r->bpos))
			return false;
	}
	struct pollfd p = { .fd = fileno(r->f), .events = POLLIN };
	return poll(&p, 1, 0) == 0;
}

void perfdata_get_stats(const struct perfdata_reader *r, struct perfdata_stats *st)
{
	*st = r->stats;
}

