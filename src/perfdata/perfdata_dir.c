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
 * Bounded: at most PD_DIR_MAX_FILES pieces and PD_DIR_MAX_BYTES in all (the memory file is RAM).
 */
#include "perfdata/perfdata_dir.h"

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
#define PD_DIR_HEADER 104

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n > 0) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		c += w;
		n -= (size_t)w;
	}
	return 0;
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

/* DIR/data's header and feature table, checked, and the sizes of the data.N pieces. */
struct dir_plan {
	char main[4096];
	uint64_t main_size;
	uint64_t hdr[13];          /* the 104-byte header as u64s */
	uint64_t data_end;         /* of the main file's data: where its feature table starts */
	uint64_t *feat;            /* the table: {offset, size} per feature bit set */
	size_t nfeat;
	size_t npieces;
	uint64_t extra;            /* the pieces' bytes */
};

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

static int plan(const char *dir, struct dir_plan *p, char *err, size_t errlen)
{
	struct stat st;
	snprintf(p->main, sizeof(p->main), "%s/data", dir);
	if (stat(p->main, &st) != 0 || !S_ISREG(st.st_mode) ||
	    read_at(p->main, p->hdr, sizeof(p->hdr), 0) != 0) {
		snprintf(err, errlen, "%s: a directory, but no perf.data file %s/data in it", dir, dir);
		return -1;
	}
	p->main_size = (uint64_t)st.st_size;
	if (memcmp(&p->hdr[0], "PERFILE2", 8) || p->hdr[1] != PD_DIR_HEADER) {
		snprintf(err, errlen, "%s/data: not a perf.data file of this machine's byte order", dir);
		return -1;
	}
	p->data_end = p->hdr[5] + p->hdr[6];
	for (int w = 9; w < 13; w++)
		p->nfeat += (size_t)__builtin_popcountll(p->hdr[w]);
	if (p->data_end > p->main_size || p->nfeat * 16 > p->main_size - p->data_end) {
		snprintf(err, errlen, "%s/data: its header points past its end", dir);
		return -1;
	}
	p->feat = xmalloc((p->nfeat ? p->nfeat : 1) * 16);
	if (p->nfeat && read_at(p->main, p->feat, p->nfeat * 16, p->data_end) != 0) {
		snprintf(err, errlen, "%s/data: cannot read its feature table", dir);
		return -1;
	}
	char piece[4200];
	for (p->npieces = 0;; p->npieces++) {
		snprintf(piece, sizeof(piece), "%s/data.%zu", dir, p->npieces);
		if (stat(piece, &st) != 0)
			break;
		if (!S_ISREG(st.st_mode) || p->npieces == PD_DIR_MAX_FILES) {
			snprintf(err, errlen, "%s: %s", piece, S_ISREG(st.st_mode) ?
				 "more pieces than perftop reads (4096)" : "not a regular file");
			return -1;
		}
		p->extra += (uint64_t)st.st_size;
	}
	if (p->main_size + p->extra > PD_DIR_MAX_BYTES) {
		snprintf(err, errlen, "%s: %llu MiB in all, over the %llu MiB perftop puts together in "
			 "memory", dir, (unsigned long long)((p->main_size + p->extra) >> 20),
			 (unsigned long long)(PD_DIR_MAX_BYTES >> 20));
		return -1;
	}
	return 0;
}

/* The memory file: main's header (data size grown) and data, the pieces, main's feature table
 * (offsets moved) and sections. */
static int assemble(const char *dir, struct dir_plan *p, int fd)
{
	uint64_t hdr[13];
	memcpy(hdr, p->hdr, sizeof(hdr));
	hdr[6] += p->extra;
	for (size_t i = 0; i < p->nfeat; i++)
		if (p->feat[2 * i] >= p->data_end)
			p->feat[2 * i] += p->extra;
	int ret = write_all(fd, hdr, sizeof(hdr));
	if (!ret)
		ret = copy_range(fd, p->main, sizeof(hdr), p->data_end - sizeof(hdr));
	char piece[4200];
	for (size_t i = 0; i < p->npieces && !ret; i++) {
		snprintf(piece, sizeof(piece), "%s/data.%zu", dir, i);
		struct stat st;
		ret = stat(piece, &st) != 0 ? -errno : copy_range(fd, piece, 0, (uint64_t)st.st_size);
	}
	if (!ret && p->nfeat)
		ret = write_all(fd, p->feat, p->nfeat * 16);
	uint64_t after = p->data_end + p->nfeat * 16;
	if (!ret)
		ret = copy_range(fd, p->main, after, p->main_size - after);
	return ret;
}

int perfdata_dir_open(const char *dir, char *err, size_t errlen)
{
	struct dir_plan p = { 0 };
	int fd = -1;
	if (plan(dir, &p, err, errlen) == 0) {
		fd = memfd_create("perftop-threads-dir", MFD_CLOEXEC);
		int ret = fd < 0 ? -errno : assemble(dir, &p, fd);
		if (ret) {
			snprintf(err, errlen, "%s: cannot put its pieces together: %s", dir, strerror(-ret));
			if (fd >= 0)
				close(fd);
			fd = -1;
		} else {
			lseek(fd, 0, SEEK_SET);
		}
	}
	free(p.feat);
	return fd;
}
