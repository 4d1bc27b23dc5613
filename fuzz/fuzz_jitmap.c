/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_jitmap: the perf map reader (src/symbolize/jitmap.c), /tmp/perf-PID.map as a JIT or anyone
 * who can write /tmp leaves it. Each line through jitmap_parse_line alone, then the file holding
 * the input read as a replay reads it (whole, once) and as a live one that grows (half, then all,
 * under a small byte cap half the time), with lookups at every address its lines name. A parsed
 * line's fields must lie in the line; a lookup's name must be a string no longer than
 * JITMAP_MAX_NAME and start at or below the address; the rest is ASan's and UBSan's.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_file.h"

#include "symbolize/intern.h"
#include "symbolize/jitmap.h"
#include "util/util.h"

static void quiet(const char *msg) { (void)msg; }

static void lookup(struct jitmap *j, uint64_t addr)
{
	const char *name;
	uint64_t start;
	if (jitmap_lookup(j, addr, &name, &start))
		must(name && strlen(name) <= JITMAP_MAX_NAME && start <= addr);
}

/* Every line parsed alone, and lookups at its start, end and just past it. */
static void lines(struct jitmap *j, const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	for (int k = 0; p < end && k < 512; k++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		uint64_t start, sz;
		const char *name;
		size_t nlen;
		if (jitmap_parse_line(p, len, &start, &sz, &name, &nlen)) {
			must(sz > 0 && start + sz > start && nlen > 0);
			must(name >= p && name + nlen <= p + len);
			if (j) {
				lookup(j, start);
				lookup(j, start + sz - 1);
				lookup(j, start + sz);
			}
		}
		p += len + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!fuzz_path[0])
		util_set_warn_hook(quiet);
	const char *path = fuzz_file("jitmap", "perf-1.map");
	struct intern *in = intern_new();
	lines(NULL, data, size);
	fuzz_file_write(data, size);
	struct jitmap *j = jitmap_new(path, in);
	jitmap_set_static(j);
	lookup(j, 0);
	lines(j, data, size);
	must(jitmap_found(j));
	jitmap_free(j);
	/* live: half of it, then all of it (a line cut in two waits for its end) */
	j = jitmap_new(path, in);
	if (size && data[0] & 1)
		jitmap_set_max_bytes(j, size / 3 + 1);
	/* on the clock the lookups read, so that they do not read the file again (a live map's
	 * lookups look again only after JITMAP_MISS_CHECK_NS) */
	fuzz_file_write(data, size / 2);
	jitmap_refresh(j, now_ns(), true);
	fuzz_file_write(data, size);
	jitmap_refresh(j, now_ns(), true);
	lines(j, data, size);
	jitmap_move_names(j);
	lines(j, data, size);
	jitmap_free(j);
	intern_free(in);
	return 0;
}
