/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * export: a collected profile (stackcol.h) written in the formats other tools read:
 *  - pprof: a gzipped perftools.profiles.Profile (go tool pprof, Parca, Pyroscope, Grafana);
 *  - speedscope: speedscope's JSON file format, one sampled profile per thread and event;
 *  - folded: "comm;root;...;leaf COUNT" lines as stackcollapse-perf writes them (flamegraph.pl).
 * pprof_encode_gz is the one encoder of pprof: the file writer and the push both
 * take its bytes.
 *
 * Several events (-e a,b): pprof has two sample types per event (samples/count, then the event's
 * unit) in one profile, a sample carrying values only for its own event; speedscope one profile
 * per (thread, event); folded only the first event's samples (the first event with samples), with
 * a warning that the others are left out.
 */
#ifndef PERFTOP_EXPORT_H
#define PERFTOP_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/stackcol.h"
#include "model/profile.h"

/* A growing byte buffer; failed once an allocation failed (then the bytes are not to be used). */
struct export_buf {
	uint8_t *data;
	size_t len, cap;
	bool failed;
};
void export_buf_free(struct export_buf *b);

struct export_event {
	const char *name;     /* "cpu-clock", "cycles", "sched:sched_switch" */
	uint64_t period;      /* its sampling period; 0 when sampled by frequency */
	uint64_t freq;        /* Hz when sampled by frequency; 0 otherwise */
};

struct export_profile {
	const struct stackcol *col;
	enum profile_mode mode;            /* time modes: the weights are nanoseconds */
	struct export_event events[STACKCOL_MAX_EVENTS];
	int nevents;
	uint64_t time_ns;                  /* start, ns since the Unix epoch; 0 unknown */
	uint64_t duration_ns;
	/* The first sample's time on the collector's clock (stackcol_sample.time), speedscope's
	 * startValue; 0: the first logged sample's. */
	uint64_t start_clock_ns;
	/* Folded lines start with the key's container, then its cgroup path (the sort's keys): one
	 * tower per container in a flame graph. */
	bool folded_container, folded_cgroup;
	/* Only keys this accepts are written (NULL: all): the view's filter. */
	bool (*keep)(void *ctx, const struct stackcol *c, const struct stackcol_key *k);
	void *keep_ctx;
};

/* The gzipped pprof of p appended to out. 0, or -1 with a one-line message in err. */
int pprof_encode_gz(const struct export_profile *p, struct export_buf *out, char *err, size_t errlen);
/* The same, not compressed (the tests' decoder reads it raw). */
int pprof_encode(const struct export_profile *p, struct export_buf *out, char *err, size_t errlen);
int speedscope_encode(const struct export_profile *p, struct export_buf *out, char *err, size_t errlen);
int folded_encode(const struct export_profile *p, struct export_buf *out, char *err, size_t errlen);

enum export_format { EXPORT_NONE, EXPORT_PPROF, EXPORT_SPEEDSCOPE, EXPORT_FOLDED };
/* By the file name: *.pb.gz, *.pprof; *.speedscope.json; *.folded. EXPORT_NONE otherwise. */
enum export_format export_format_of(const char *path);
/* "pprof (*.pb.gz, *.pprof), speedscope (*.speedscope.json) or folded (*.folded)" */
const char *export_formats_text(void);
/* Encodes p in path's format and writes it (a temporary beside it, then renamed). 0, or -1 with a
 * one-line message naming the file. */
int export_write_file(const struct export_profile *p, const char *path, char *err, size_t errlen);

#endif
