/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_notes: what the reader tells about a recording besides its records: the one warning that
 * says where reading stopped and why (the first reason is the one to tell), the records it skipped
 * by kind, the header's text lines the feature sections give, and perf's names of record types.
 * Every other file of the reader writes its notes through these, so that they stay bounded.
 */
#include "perfdata/perfdata_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "perfdata/format.h"
#include "util/util.h"

/* Why reading stopped early, and where (stats.warning). */
void pd_set_warning(struct perfdata_reader *r, const char *fmt, ...)
{
	va_list ap;
	if (r->stats.warning[0])
		return; /* the first reason reading stopped is the one to tell */
	va_start(ap, fmt);
	vsnprintf(r->stats.warning, sizeof(r->stats.warning), fmt, ap);
	va_end(ap);
}

const char *perfdata_record_name(uint32_t type)
{
	static const char *const kernel[] = { NULL, "MMAP", "LOST", "COMM", "EXIT", "THROTTLE",
		"UNTHROTTLE", "FORK", "READ", "SAMPLE", "MMAP2", "AUX", "ITRACE_START", "LOST_SAMPLES",
		"SWITCH", "SWITCH_CPU_WIDE", "NAMESPACES", "KSYMBOL", "BPF_EVENT", "CGROUP",
		"TEXT_POKE", "AUX_OUTPUT_HW_ID" };
	static const char *const user[] = { "HEADER_ATTR", "HEADER_EVENT_TYPE",
		"HEADER_TRACING_DATA", "HEADER_BUILD_ID", "FINISHED_ROUND", "ID_INDEX",
		"AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR", "THREAD_MAP", "CPU_MAP", "STAT_CONFIG",
		"STAT", "STAT_ROUND", "EVENT_UPDATE", "TIME_CONV", "HEADER_FEATURE", "COMPRESSED",
		"FINISHED_INIT", "COMPRESSED2" };
	if (type < ARRAY_SIZE(kernel))
		return kernel[type];
	if (type >= PD_HEADER_ATTR && type - PD_HEADER_ATTR < ARRAY_SIZE(user))
		return user[type - PD_HEADER_ATTR];
	return NULL;
}

/* One record of this type did not parse and is skipped: counted, by kind for the warning. */
void pd_count_bad(struct perfdata_reader *r, uint32_t type)
{
	r->stats.bad_records++;
	for (size_t i = 0; i < ARRAY_SIZE(r->stats.bad_kinds); i++) {
		if (!r->stats.bad_kinds[i].n)
			r->stats.bad_kinds[i].type = type;
		if (r->stats.bad_kinds[i].type == type) {
			r->stats.bad_kinds[i].n++;
			return;
		}
	}
}

/* One more header text line (info.extra_lines), up to PD_MAX_LINES. */
void pd_add_line(struct perfdata_reader *r, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	if (r->info.nextra >= PD_MAX_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	/* header lines are one line each: a newline in a command line would break "name: value" */
	for (char *p = tmp; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	xgrow((void **)&r->info.extra_lines, &r->lines_cap, r->info.nextra + 1, sizeof(char *));
	r->info.extra_lines[r->info.nextra++] = xstrdup(tmp);
}

