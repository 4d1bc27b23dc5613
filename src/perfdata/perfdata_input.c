/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_input: the data section as one run of bytes. A regular file is mapped (read() copied
 * every byte once more, and moved each partial record back to the start of its buffer), a memory
 * buffer is used as it is; stdin and anything that cannot be mapped go through a buffered stream
 * over the FILE, and a pipe or FIFO is followed as it arrives. Limited to the data section when the
 * header says where it ends. The mapped pages behind the reading point are given back as it moves
 * on, so that a file counts in the resident set only by a window, not by its size.
 */
#include "perfdata/perfdata_int.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/util.h"

/* Makes at least need bytes available at buf + bpos unless the data ends first; returns what is
 * available (may be less than need at the end). */
size_t pd_in_fill(struct perfdata_reader *r, size_t need)
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
void pd_in_mem_at(struct perfdata_reader *r, uint64_t off)
{
	uint64_t end = r->data_end < r->mem_len ? r->data_end : r->mem_len;
	r->buf = r->mem;
	r->blen = (size_t)end;
	r->bpos = off < end ? (size_t)off : (size_t)end;
	r->file_pos = off < end ? end : off; /* past the end: pd_in_offset() still says where */
	r->eof = true;
	r->released = 0;
	r->release_at = r->bpos + PD_RELEASE_STEP;
}

/* Gives back the mapped pages wholly behind both the reading point and the records that wait in the
 * file: they stay in the page cache, out of our resident set. */
void pd_in_release(struct perfdata_reader *r)
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
uint64_t pd_in_offset(const struct perfdata_reader *r)
{
	return r->file_pos - (r->blen - r->bpos);
}

/* Skips n bytes of payload that follow some user records (AUXTRACE data, tracing data). */
bool pd_in_skip(struct perfdata_reader *r, uint64_t n)
{
	while (n) {
		size_t have = pd_in_fill(r, 1);
		if (!have)
			return false;
		size_t k = have < n ? have : (size_t)n;
		r->bpos += k;
		n -= k;
	}
	return true;
}

