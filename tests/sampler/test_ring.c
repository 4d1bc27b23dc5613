/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_ring: the ring reader on a fake ring, a metadata page and a power-of-two data area that the
 * test writes like the kernel would (records at data_head, then data_head advanced).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sampler/ring.h"

#define DATA_SIZE 256

static struct perf_event_mmap_page meta;
static unsigned char data[DATA_SIZE];

/* Writes a record of size bytes (type, and a fill byte for the payload) at position pos. */
static uint64_t put_record(uint64_t pos, uint32_t type, uint16_t size, unsigned char fill)
{
	unsigned char rec[1024];
	struct perf_event_header h = { .type = type, .misc = 0, .size = size };

	memset(rec, fill, size);
	memcpy(rec, &h, sizeof(h));
	for (uint16_t i = 0; i < size; i++)
		data[(pos + i) % DATA_SIZE] = rec[i];
	return pos + size;
}

static int payload_is(const struct perf_event_header *h, unsigned char fill)
{
	const unsigned char *p = (const unsigned char *)h;
	for (size_t i = sizeof(*h); i < h->size; i++)
		if (p[i] != fill)
			return 0;
	return 1;
}

static void reset(uint64_t start)
{
	memset(&meta, 0, sizeof(meta));
	memset(data, 0, sizeof(data));
	meta.data_head = start;
	meta.data_tail = start;
}

static void test_sequential(void)
{
	struct ring r;
	const struct perf_event_header *h;
	uint64_t pos;

	reset(0);
	CHECK(ring_init(&r, &meta, data, DATA_SIZE) == 0);
	CHECK_EQ_U64(ring_read_begin(&r), 0);
	CHECK(ring_next(&r) == NULL);
	ring_read_end(&r);

	pos = put_record(0, 9, 16, 0x11);
	pos = put_record(pos, 3, 32, 0x22);
	pos = put_record(pos, 9, 24, 0x33);
	meta.data_head = pos;
	CHECK_EQ_U64(ring_read_begin(&r), 72);
	h = ring_next(&r);
	CHECK(h && h->type == 9 && h->size == 16 && payload_is(h, 0x11));
	CHECK(h && (const unsigned char *)h == data);   /* not wrapped: no copy */
	h = ring_next(&r);
	CHECK(h && h->type == 3 && h->size == 32 && payload_is(h, 0x22));
	h = ring_next(&r);
	CHECK(h && h->size == 24 && payload_is(h, 0x33));
	CHECK(ring_next(&r) == NULL);
	CHECK_EQ_U64(meta.data_tail, 0);   /* not consumed until read_end */
	ring_read_end(&r);
	CHECK_EQ_U64(meta.data_tail, 72);
	CHECK_EQ_U64(r.overruns, 0);
	CHECK_EQ_U64(r.bad_records, 0);
	ring_done(&r);
}

static void test_wrap(void)
{
	struct ring r;
	const struct perf_event_header *h;
	unsigned char expect[48];
	uint64_t start = 4 * DATA_SIZE - 16, pos;   /* positions run free: 3 laps done already */

	reset(start);
	CHECK(ring_init(&r, &meta, data, DATA_SIZE) == 0);
	pos = put_record(start, 9, 48, 0x44);   /* 16 bytes before the end, 32 after */
	pos = put_record(pos, 9, 16, 0x55);
	meta.data_head = pos;
	CHECK_EQ_U64(ring_read_begin(&r), 64);
	h = ring_next(&r);
	CHECK(h != NULL);
	if (h) {
		struct perf_event_header eh = { .type = 9, .misc = 0, .size = 48 };
		memset(expect, 0x44, sizeof(expect));
		memcpy(expect, &eh, sizeof(eh));
		CHECK(memcmp(h, expect, 48) == 0);   /* copied out contiguous and equal */
		CHECK((const unsigned char *)h < data || (const unsigned char *)h >= data + DATA_SIZE);
	}
	h = ring_next(&r);
	CHECK(h && h->size == 16 && payload_is(h, 0x55));
	CHECK((const unsigned char *)h == data + 32);
	CHECK(ring_next(&r) == NULL);
	ring_read_end(&r);
	CHECK_EQ_U64(meta.data_tail, pos);

	/* The u64 positions themselves wrapping around 2^64 are just as fine. */
	reset(UINT64_MAX - 7);
	ring_done(&r);
	CHECK(ring_init(&r, &meta, data, DATA_SIZE) == 0);
	pos = put_record(UINT64_MAX - 7, 9, 24, 0x66);
	meta.data_head = pos;   /* 16 after wrapping past zero */
	CHECK_EQ_U64(ring_read_begin(&r), 24);
	h = ring_next(&r);
	CHECK(h && h->size == 24 && payload_is(h, 0x66));
	CHECK(ring_next(&r) == NULL);
	ring_read_end(&r);
	CHECK_EQ_U64(meta.data_tail, 16);
	ring_done(&r);
}

static void test_overrun(void)
{
	struct ring r;

	reset(0);
	CHECK(ring_init(&r, &meta, data, DATA_SIZE) == 0);
	/* The writer went more than a whole ring ahead of us. */
	meta.data_head = DATA_SIZE + 64;
	CHECK_EQ_U64(ring_read_begin(&r), 0);
	CHECK(ring_next(&r) == NULL);
	ring_read_end(&r);
	CHECK_EQ_U64(r.overruns, 1);
	CHECK_EQ_U64(meta.data_tail, DATA_SIZE + 64);   /* skipped to head */

	/* And reading goes on normally afterwards. */
	meta.data_head = put_record(DATA_SIZE + 64, 9, 16, 0x77);
	CHECK_EQ_U64(ring_read_begin(&r), 16);
	CHECK(ring_next(&r) != NULL);
	ring_read_end(&r);
	CHECK_EQ_U64(r.overruns, 1);
	ring_done(&r);
}

static void test_bad_size(void)
{
	struct ring r;
	uint64_t pos;

	reset(0);
	CHECK(ring_init(&r, &meta, data, DATA_SIZE) == 0);
	pos = put_record(0, 9, 16, 0x11);
	pos = put_record(pos, 9, 4, 0x22);   /* size below a header */
	pos += 12;
	pos = put_record(pos, 9, 16, 0x33);
	meta.data_head = pos;
	ring_read_begin(&r);
	CHECK(ring_next(&r) != NULL);
	CHECK(ring_next(&r) == NULL);
	CHECK_EQ_U64(r.bad_records, 1);
	ring_read_end(&r);
	CHECK_EQ_U64(meta.data_tail, pos);   /* the rest of the batch was skipped */

	/* A size larger than what the head covers. */
	pos = put_record(pos, 9, 200, 0x44);
	meta.data_head = pos - 100;
	ring_read_begin(&r);
	CHECK(ring_next(&r) == NULL);
	CHECK_EQ_U64(r.bad_records, 2);
	ring_read_end(&r);

	/* Fewer bytes than a header between tail and head. */
	meta.data_head += 4;
	ring_read_begin(&r);
	CHECK(ring_next(&r) == NULL);
	CHECK_EQ_U64(r.bad_records, 3);
	ring_read_end(&r);
	ring_done(&r);

	/* Not a power of two. */
	CHECK(ring_init(&r, &meta, data, 100) == -EINVAL);
}

int main(void)
{
	test_sequential();
	test_wrap();
	test_overrun();
	test_bad_size();
	return CHECK_DONE();
}
