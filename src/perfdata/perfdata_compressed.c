/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_compressed: the records inside COMPRESSED (and COMPRESSED2) records, one zstd stream over
 * the recording. A record may straddle two COMPRESSED records, so decompressed bytes are kept until
 * a whole record is there; the buffers are fixed, whatever the payloads say.
 */
#include "perfdata/perfdata_int.h"

#include <stdlib.h>

#include "perfdata/format.h"
#include "util/util.h"

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
		pd_count_bad(r, PD_COMPRESSED);
		r->zin_pos = r->zin_len; /* give up on this payload */
		ZSTD_initDStream(r->zd);
		return false;
	}
	return true;
}

/* Takes a COMPRESSED record's payload in. */
void pd_z_load(struct perfdata_reader *r, const unsigned char *p, size_t len)
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

/* One record from the decompressed stream, if a whole one is there: *p (valid until the next call)
 * and its *size. */
bool pd_z_next(struct perfdata_reader *r, const unsigned char **rec, size_t *rec_size)
{
	for (;;) {
		size_t avail = r->zout_len - r->zout_pos;
		if (avail >= 8) {
			const unsigned char *p = r->zout + r->zout_pos;
			uint16_t size = rec_size_at(r, p);
			if (size < 8) {
				/* nothing after a broken record in this stream can be trusted */
				pd_count_bad(r, PD_COMPRESSED);
				r->zout_pos = r->zout_len;
				r->zin_pos = r->zin_len;
				return false;
			}
			if (size <= avail) {
				r->zout_pos += size;
				*rec = p;
				*rec_size = size;
				return true;
			}
		}
		if (r->zin_pos >= r->zin_len || !z_more(r))
			return false; /* a partial record waits for the next COMPRESSED record */
	}
}


/* Back to no payload, for reading the data again from its start. */
void pd_z_rewind(struct perfdata_reader *r)
{
	r->zin_pos = r->zin_len = 0;
	r->zout_pos = r->zout_len = 0;
	if (r->zd)
		ZSTD_initDStream(r->zd);
}

void pd_z_free(struct perfdata_reader *r)
{
	if (r->zd)
		ZSTD_freeDStream(r->zd);
	free(r->zin);
	free(r->zout);
}
