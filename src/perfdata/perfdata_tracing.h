/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_tracing: the HEADER_TRACING_DATA feature section of a perf.data file, built from tracefs.
 *
 * perf report and perf script refuse a file with tracepoint events unless it carries the format
 * files of those tracepoints (how to decode their raw data): this builds that section for the
 * recording's tracepoints, in the layout perf record writes (trace-cmd's "tracing data", version
 * 0.6). It reads an already mounted tracefs itself, so that the writer needs nothing of the event
 * parser: recording a tracepoint means the event's opener found (or mounted) tracefs already.
 *
 * It also finds one event's format in such a section, as perf record and perftop write it, so that
 * a replay decodes raw fields with the layout of the machine that recorded them.
 */
#ifndef PERFTOP_PERFDATA_TRACING_H
#define PERFTOP_PERFDATA_TRACING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One tracepoint event of a recording: its name as the file names it ("sys:name", modifiers may
 * follow) and its tracefs id (attr.config). */
struct perfdata_tp {
	const char *name;
	uint64_t id;
};

/*
 * Builds the section for the n tracepoints (duplicates allowed) into a malloc'ed buffer (*out,
 * *len). root: a tracefs root; NULL: /sys/kernel/tracing, else /sys/kernel/debug/tracing. An event
 * is found by its name and checked by its id; when the name does not lead to that id, by its id
 * among all of tracefs' events. False (nothing in *out) when tracefs, its header files or an
 * event's format cannot be read: the file is then written without the section.
 */
bool perfdata_tracing_data(const char *root, const struct perfdata_tp *tp, size_t n,
                           unsigned char **out, size_t *len);

/*
 * The format text of the event system:name in a section of len bytes at p (either byte order):
 * *text points into p, *tlen its length. False when the section is malformed or lacks the event.
 */
bool perfdata_tracing_format(const unsigned char *p, size_t len, const char *system,
                             const char *name, const unsigned char **text, size_t *tlen);

#endif
