/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_jitdump: the jitdump reader (src/symbolize/jitdump.c) on a file holding the input: read as a
 * replay reads it (whole, once), then again as a live one that grows (the input in two steps), with
 * lookups, lines and code bytes at the addresses the input itself names. Whatever the input, a
 * lookup's name is a string, code never exceeds what was asked; the rest is ASan's and UBSan's.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_file.h"

#include "symbolize/intern.h"
#include "symbolize/jitdump.h"
#include "util/util.h"

/* Lookups at every 8-byte value of the input (the addresses a dump names are among them). */
static void probe(struct jitdump *j, const uint8_t *data, size_t size)
{
	for (size_t i = 0; i + 8 <= size && i < 4096; i += 8) {
		uint64_t a;
		memcpy(&a, data + i, 8);
		struct jitdump_hit h;
		if (!jitdump_lookup(j, a, true, &h))
			continue;
		must(h.name != NULL && a >= h.start);
		const char *file;
		unsigned line;
		if (jitdump_line(j, a, &file, &line))
			must(file != NULL && strlen(file) <= JITDUMP_MAX_NAME);
		uint8_t *code = NULL;
		char err[256];
		size_t n = jitdump_code(j, h.start, 64, &code, err, sizeof(err));
		must(n <= 64);
		free(code);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("jitdump", "jit-1.dump");
	struct intern *in = intern_new();
	fuzz_file_write(data, size);
	struct jitdump *j = jitdump_new(path, 0, UINT32_MAX, in);
	jitdump_set_static(j);
	probe(j, data, size);
	jitdump_free(j);
	/* live: half of it, then all of it */
	j = jitdump_new(path, 0, UINT32_MAX, in);
	jitdump_set_limits(j, 1u << 20, 64, 256);
	fuzz_file_write(data, size / 2);
	jitdump_refresh(j, now_ns(), true);
	fuzz_file_write(data, size);
	jitdump_refresh(j, now_ns(), true);
	probe(j, data, size);
	jitdump_free(j);
	intern_free(in);
	return 0;
}
