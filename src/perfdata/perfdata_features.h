/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_features: the feature sections of perf.data's header, one table for the reader, the
 * writer and the header's printer: for each feature bit its name, and how perftop reads it (into
 * perfdata_info, or into the header's text lines), writes it (-o), and prints what it read
 * (--header, the replay's header view). A function is NULL where perftop does not do that for the
 * feature; a feature the reader has no function for is listed by name and size.
 */
#ifndef PERFTOP_PERFDATA_FEATURES_H
#define PERFTOP_PERFDATA_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

#include "perfdata/format.h"

struct perfdata_reader;
struct perfdata_writer;
struct fcur;     /* a bounded cursor over one section's bytes */
struct pw_buf;   /* the writer's growing buffer */
struct pd_lines; /* header text lines being made */

struct pd_feature {
	int id;                    /* its bit in the header's map (format.h) */
	const char *name;          /* as perf's header printer says it ("EVENT_DESC") */
	/* Takes the section's bytes in; bad content is ignored (it is only metadata). */
	void (*read)(struct perfdata_reader *r, struct fcur *c);
	/* Appends the section's contents; false when the recording goes without it. */
	bool (*write)(struct perfdata_writer *w, struct pw_buf *b);
	/* Appends the "name: value" lines of what read kept (features read only into text lines
	 * have made their lines as they were read, and print nothing more). */
	void (*print)(const struct perfdata_reader *r, struct pd_lines *out);
};

/* The feature of bit id (NULL past the known ones). */
const struct pd_feature *pd_feature(int id);
/* Its name, "?" past the known ones. */
const char *pd_feature_name(int id);

#endif
