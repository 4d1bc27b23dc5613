/*
 * push_standin: a stand-in body for --push until the pprof encoder (src/export, issue 15 part 1) is
 * wired in: a gzipped perftools.profiles.Profile that holds only the window's sample count, as one
 * sample without a location, with its sample type, time and duration. Enough for a server (and
 * the tests) to take it as a profile; it says nothing of where the time went.
 */
#include "push_standin.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/util.h"

struct pb {
	uint8_t buf[256];
	size_t n;
};

static void pb_varint(struct pb *b, uint64_t v)
{
	while (v >= 0x80 && b->n < sizeof(b->buf)) {
		b->buf[b->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	if (b->n < sizeof(b->buf))
		b->buf[b->n++] = (uint8_t)v;
}

/* field (wire type 0) = v */
static void pb_uint(struct pb *b, unsigned field, uint64_t v)
{
	pb_varint(b, (uint64_t)field << 3);
	pb_varint(b, v);
}

/* field (wire type 2) = the len bytes at p */
static void pb_bytes(struct pb *b, unsigned field, const void *p, size_t len)
{
	pb_varint(b, (uint64_t)field << 3 | 2);
	pb_varint(b, len);
	if (b->n + len <= sizeof(b->buf)) {
		memcpy(b->buf + b->n, p, len);
		b->n += len;
	}
}

void *push_standin_body(uint64_t samples, int64_t from_ns, int64_t until_ns, uint64_t period,
			size_t *len)
{
	/* strings: 0 "", 1 samples, 2 count, 3 cpu, 4 nanoseconds */
	static const char *const strings[] = { "", "samples", "count", "cpu", "nanoseconds" };
	struct pb vt = { .n = 0 }, smp = { .n = 0 }, vals = { .n = 0 }, pr = { .n = 0 };
	pb_uint(&vt, 1, 1); /* ValueType{type: "samples", unit: "count"} */
	pb_uint(&vt, 2, 2);
	pb_bytes(&pr, 1, vt.buf, vt.n);                         /* sample_type */
	pb_varint(&vals, samples);
	pb_bytes(&smp, 2, vals.buf, vals.n);                    /* Sample.value, packed */
	pb_bytes(&pr, 2, smp.buf, smp.n);                       /* sample */
	for (size_t i = 0; i < ARRAY_SIZE(strings); i++)
		pb_bytes(&pr, 6, strings[i], strlen(strings[i])); /* string_table */
	pb_uint(&pr, 9, (uint64_t)from_ns);                     /* time_nanos */
	pb_uint(&pr, 10, (uint64_t)(until_ns - from_ns));       /* duration_nanos */
	struct pb pt = { .n = 0 };
	pb_uint(&pt, 1, 3);
	pb_uint(&pt, 2, 4);
	pb_bytes(&pr, 11, pt.buf, pt.n);                        /* period_type: cpu/nanoseconds */
	pb_uint(&pr, 12, period);                               /* period */

	z_stream z = { 0 };
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	size_t cap = deflateBound(&z, pr.n) + 32;
	uint8_t *out = xmalloc(cap);
	z.next_in = pr.buf;
	z.avail_in = (uInt)pr.n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	int rc = deflate(&z, Z_FINISH);
	*len = cap - z.avail_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(out);
		return NULL;
	}
	return out;
}
