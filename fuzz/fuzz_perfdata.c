/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_perfdata: the perf.data reader on a file in memory: open (file or pipe format, either byte
 * order), the header lines, every record to the end, a rewind and a second pass. Records handed out
 * must be well-formed; the rest is ASan's and UBSan's to judge.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata/perfdata.h"

static void must(int cond)
{
	if (!cond)
		abort();
}

static void drain(struct perfdata_reader *r)
{
	const struct rec *rec;
	while (perfdata_next_ref(r, &rec) > 0) {
		must(rec->size >= sizeof(*rec) && rec->size % 8 == 0);
		if (rec->type == REC_SAMPLE && rec->u.sample.callchain_nr)
			must((uint64_t)rec->u.sample.callchain_off + rec->u.sample.callchain_nr * 8ull <=
			     rec->size);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	struct perfdata_reader *r = perfdata_open_mem(data, size, err, sizeof(err));
	if (!r) {
		must(err[0] != '\0' && strchr(err, '\n') == NULL);
		return 0;
	}
	size_t n;
	char **lines = perfdata_header_lines(r, &n);
	perfdata_free_lines(lines, n);
	for (size_t i = 0; i < perfdata_nevents(r); i++)
		must(perfdata_event(r, i) != NULL);
	drain(r);
	struct perfdata_stats st;
	perfdata_get_stats(r, &st);
	if (perfdata_rewind(r) == 0)
		drain(r);
	perfdata_close(r);
	return 0;
}
