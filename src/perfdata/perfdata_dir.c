/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_dir: perf record --threads' directory format as one perf.data file, for the reader.
 *
 * Such a recording is a directory: DIR/data is a file-format perf.data file whose data holds what
 * perf synthesized at start (the processes, their mappings), and DIR/data.0, data.1 ... each hold
 * the raw records one of perf's writer threads took from its rings, with no header and no rounds.
 * Rather than teach the reader several inputs, the pieces are put together in a memory file
 * (memfd): data's header with its data size grown by the others, its attrs and data, then every
 * data.N, then data's feature sections, their offsets moved by as much. The reader then maps it as
 * any file; since no piece has a FINISHED_ROUND, its order queue sorts all the records by time (the
 * queue holds offsets into the mapping, not copies).
 *
 * The files of one session perf record --switch-output wrote (-i A -i B ...) are put together the
 * same way: the first whole, with the data of the others after its own (they are in time order,
 * and they hold the events of the first, with the same ids).
 *
 * Bounded: at most PD_DIR_MAX_FILES pieces and PD_DIR_MAX_BYTES in all (the memory file is RAM).
 */
#include "perfdata/perfdata_dir.h"
#include "perfdata/format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

#define PD_DIR_MAX_FILES 4096
#define PD_DIR_MAX_BYTES (2ull << 30)

/* util's write_full, as 0 or -errno (-EIO when write wrote nothing and said no error). */
static int write_all(int fd, const void *p, size_t n)
{
	errno = EIO;
	return write_full(fd, p, n) ? 0 : -errno;
}

/* Copies len bytes of path from offset off to out's end. 0 or -errno. */
static int copy_range(int out, const char *path, uint64_t off, uint64_t len)
{
	int in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	char buf[1 << 16];
	int ret = 0;
	while (len > 0 && !ret) {
		ssize_t n = pread(in, buf, len < sizeof(buf) ? (size_t)len : sizeof(buf), (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		ret = write_all(out, buf, (size_t)n);
		off += (uint64_t)n;
		len -= (uint64_t)n;
	}
	close(in);
	return ret;
}

/* Bytes [off, off + len) of a file, appended after the main file's data. */
struct piece {
	char path[4096];
	uint64_t off, len;
};

/* The main file's header and feature table, checked, and the pieces to append to its data. */
struct dir_plan {
	char main[4096];
	uint64_t main_size;
	uint64_t hdr[PD_FILE_HEADER_SIZE / 8]; /* the file header as u64s */
	uint64_t data_end;         /* of the main file's data: where its feature table starts */
	uint64_t *feat;            /* the table: {offset, size} per feature bit set */
	size_t nfeat;
	struct piece *pieces;
	size_t npieces;
	uint64_t extra;            /* the pieces' bytes */
};

static void add_piece(struct dir_plan *p, const char *path, uint64_t off, uint64_t len)
{
	p->pieces = xrealloc(p->pieces, (p->npieces + 1) * sizeof(*p->pieces));
	struct piece *pc = &p->pieces[p->npieces++];
	snprintf(pc->path, sizeof(pc->path), "%s", path);
	pc->off = off;
	pc->len = len;
	p->extra += len;
}

static int read_at(const char *path, void *buf, size_t n, uint64_t off)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t got = pread(fd, buf, n, (off_t)off);
	int e = errno;
	close(fd);
	return got == (ssize_t)n ? 0 : got < 0 ? -e : -EIO;
}

/* The main file (what the pieces are appended to): its header and feature table. */
static int plan_main(const char *path, struct dir_plan *p, char *err, size_t errlen)
{
	struct stat st;
	snprintf(p->main, sizeof(p->main), "%s", path);
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    read_at(path, p->hdr, sizeof(p->hdr), 0) != 0) {
		snprintf(err, errlen, "%s: no perf.data file there", path);
		return -1;
	}
	p->main_size = (uint64_t)st.st_size;
	if (memcmp(&p->hdr[0], PD_MAGIC_TEXT, 8) || p->hdr[1] != PD_FILE_HEADER_SIZE) {
		snprintf(err, errlen, "%s: not a perf.data file of this machine's byte order", path);
		return -1;
	}
	p->data_end = p->hdr[5] + p->hdr[6];
	for (int w = PD_HEADER_FEATURES_AT / 8; w < PD_FILE_HEADER_SIZE / 8; w++)
		p->nfeat += (size_t)__builtin_popcountll(p->hdr[w]);
	if (p->data_end > p->main_size || p->nfeat * 16 > p->main_size - p->data_end) {
		snprintf(err, errlen, "%s: its header points past its end", path);
		return -1;
	}
	p->feat = xmalloc((p->nfeat ? p->nfeat : 1) * 16);
	if (p->nfeat && read_at(path, p->feat, p->nfeat * 16, p->data_end) != 0) {
		snprintf(err, errlen, "%s: cannot read its feature table", path);
		return -1;
	}
	return 0;
}

static int plan_bound(const char *what, struct dir_plan *p, char *err, size_t errlen)
{
	if (p->main_size + p->extra <= PD_DIR_MAX_BYTES)
		return 0;
	snprintf(err, errlen, "%s: %llu MiB in all, over the %llu MiB perftop puts together in memory",
		 what, (unsigned long long)((p->main_size + p->extra) >> 20),
		 (unsigned long long)(PD_DIR_MAX_BYTES >> 20));
	return -1;
}

/* perf record --threads: DIR/data, then DIR/data.0, data.1 ... whole. */
static int plan_dir(const char *dir, struct dir_plan *p, char *err, size_t errlen)
{
	struct stat st;
	char piece[4200];
	snprintf(piece, sizeof(piece), "%s/data", dir);
	if (plan_main(piece, p, err, errlen) < 0)
		return -1;
	for (size_t n = 0;; n++) {
		snprintf(piece, sizeof(piece), "%s/data.%zu", dir, n);
		if (stat(piece, &st) != 0)
			break;
		if (!S_ISREG(st.st_mode) || n == PD_DIR_MAX_FILES) {
			snprintf(err, errlen, "%s: %s", piece, S_ISREG(st.st_mode) ?
				 "more pieces than perftop reads (4096)" : "not a regular file");
			return -1;
		}
		add_piece(p, piece, 0, (uint64_t)st.st_size);
	}
	return plan_bound(dir, p, err, errlen);
}

/* Several files of one session (perf record --switch-output): the first whole, then the data of
 * each of the others, which must have the first's events (the same attrs and ids). */
static int plan_files(const char *const *paths, size_t n, struct dir_plan *p, char *err,
		      size_t errlen)
{
	if (n > PD_DIR_MAX_FILES) {
		snprintf(err, errlen, "more files than perftop reads together (4096)");
		return -1;
	}
	if (plan_main(paths[0], p, err, errlen) < 0)
		return -1;
	size_t head = (size_t)p->hdr[5] - PD_FILE_HEADER_SIZE; /* ids and attrs, up to the data */
	unsigned char *first = xmalloc(head ? head : 1), *other = xmalloc(head ? head : 1);
	int ret = head && read_at(paths[0], first, head, PD_FILE_HEADER_SIZE) != 0 ? -1 : 0;
	for (size_t i = 1; i < n && !ret; i++) {
		struct dir_plan q = { 0 };
		if (plan_main(paths[i], &q, err, errlen) < 0) {
			ret = -1;
		} else if (q.hdr[5] != p->hdr[5] || q.hdr[2] != p->hdr[2] || q.hdr[3] != p->hdr[3] ||
			   q.hdr[4] != p->hdr[4] ||
			   (head && (read_at(paths[i], other, head, PD_FILE_HEADER_SIZE) != 0 ||
				     memcmp(first, other, head)))) {
			snprintf(err, errlen, "%s: not the events of %s (-i files must be one session's, "
				 "as perf record --switch-output writes them)", paths[i], paths[0]);
			ret = -1;
		} else {
			add_piece(p, paths[i], q.hdr[5], q.hdr[6]);
		}
		free(q.feat);
	}
	free(first);
	free(other);
	return ret ? -1 : plan_bound(paths[0], p, err, errlen);
}

/* The memory file: main's header (data size grown) and data, the pieces, main's feature table
 * (offsets moved) and sections. */
static int assemble(struct dir_plan *p, int fd)
{
	uint64_t hdr[PD_FILE_HEADER_SIZE / 8];
	memcpy(hdr, p->hdr, sizeof(hdr));
	hdr[6] += p->extra;
	for (size_t i = 0; i < p->nfeat; i++)
		if (p->feat[2 * i] >= p->data_end)
			p->feat[2 * i] += p->extra;
	int ret = write_all(fd, hdr, sizeof(hdr));
	if (!ret)
		ret = copy_range(fd, p->main, sizeof(hdr), p->data_end - sizeof(hdr));
	for (size_t i = 0; i < p->npieces && !ret; i++)
		ret = copy_range(fd, p->pieces[i].path, p->pieces[i].off, p->pieces[i].len);
	if (!ret && p->nfeat)
		ret = write_all(fd, p->feat, p->nfeat * 16);
	uint64_t after = p->data_end + p->nfeat * 16;
	if (!ret)
		ret = copy_range(fd, p->main, after, p->main_size - after);
	return ret;
}

/* The memory file of a plan made (planned 0), or -1. */
static int plan_open(const char *what, int planned, struct dir_plan *p, char *err, size_t errlen)
{
	int fd = -1;
	if (planned == 0) {
		fd = memfd_create("perftop-pieces", MFD_CLOEXEC);
		int ret = fd < 0 ? -errno : assemble(p, fd);
		if (ret) {
			snprintf(err, errlen, "%s: cannot put its pieces together: %s", what, strerror(-ret));
			if (fd >= 0)
				close(fd);
			fd = -1;
		} else {
			lseek(fd, 0, SEEK_SET);
		}
	}
	free(p->feat);
	free(p->pieces);
	return fd;
}

int perfdata_dir_open(const char *dir, char *err, size_t errlen)
{
	struct dir_plan p = { 0 };
	return plan_open(dir, plan_dir(dir, &p, err, errlen), &p, err, errlen);
}

int perfdata_files_open(const char *const *paths, size_t n, char *err, size_t errlen)
{
	struct dir_plan p = { 0 };
	return plan_open(paths[0], plan_files(paths, n, &p, err, errlen), &p, err, errlen);
}
