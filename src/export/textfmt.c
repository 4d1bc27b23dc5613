/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * textfmt: the text exports, speedscope JSON and folded stacks, and the file writer that picks the
 * format by the file's name.
 *
 * Folded: one line per distinct "comm;root;...;leaf" text (threads of one command merged, as
 * stackcollapse-perf does; inline frames are frames of their own, as its --inline), its count the
 * samples, or in the time modes (--off-cpu, --wall) the nanoseconds, so that the flame graph's
 * widths are the profile's. Names have ';' and line breaks replaced (they would split the line).
 *
 * Speedscope: frames shared by (name, file), one "sampled" profile per (thread, event) with its
 * samples in time order from the collector's log and their weights (nanoseconds for cpu-clock and
 * the time modes, else "none": the event's periods). When the log ran out (stackcol.h's bound) the
 * profiles are made of the aggregated stacks instead, one sample per distinct stack and thread
 * with its summed weight, and a warning says the time order is lost.
 */
#include "export/export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/export_int.h"
#include "util/safefile.h"
#include "util/util.h"

static void buf_str(struct export_buf *b, const char *s)
{
	export_buf_put(b, s, strlen(s));
}

static void buf_fmt(struct export_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_fmt(struct export_buf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		export_buf_put(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* A number, with a separator before it when sep: the speedscope arrays' many numbers, without
 * vsnprintf's cost per number. */
static void buf_u64(struct export_buf *b, uint64_t v, char sep)
{
	char tmp[24];
	int i = sizeof(tmp);
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (sep)
		tmp[--i] = sep;
	export_buf_put(b, tmp + i, sizeof(tmp) - (size_t)i);
}

/* A JSON string literal. */
static void buf_json(struct export_buf *b, const char *s)
{
	export_buf_put(b, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			char esc[2] = { '\\', (char)*p };
			export_buf_put(b, esc, 2);
		} else if (*p < 0x20) {
			buf_fmt(b, "\\u%04x", *p);
		} else {
			export_buf_put(b, (const char *)p, 1);
		}
	}
	export_buf_put(b, "\"", 1);
}

/* A name in a folded line: ';' and line breaks would cut it, spaces are kept (flamegraph.pl splits
 * the count off at the last space). */
static void buf_folded_name(struct export_buf *b, const char *s)
{
	for (const char *p = s; *p; p++) {
		char ch = *p == ';' ? ':' : (*p == '\n' || *p == '\r') ? ' ' : *p;
		export_buf_put(b, &ch, 1);
	}
}

/* --- folded --- */

struct fold_line {
	char *text;
	uint64_t count;
};

static int fold_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fold_line *)a)->text, ((const struct fold_line *)b)->text);
}

/* The first event with samples: folded has one count per line. */
static int folded_event(const struct export_profile *p)
{
	const struct stackcol_key *k = stackcol_keys(p->col);
	int best = -1;
	for (size_t i = 0; i < stackcol_nkeys(p->col); i++)
		if (k[i].samples && k[i].event < p->nevents && (best < 0 || k[i].event < best))
			best = k[i].event;
	return best < 0 ? 0 : best;
}

/* The text of key k's line, without its count: comm, then the frames root first. */
static char *folded_text(const struct export_profile *p, const struct stackcol_key *k)
{
	struct export_buf b = { 0 };
	/* the sort's container or cgroup first: flamegraph.pl then draws one tower per container */
	uint32_t roots[2] = { p->folded_container ? k->container : UINT32_MAX,
			      p->folded_cgroup ? k->cgroup : UINT32_MAX };
	for (int r = 0; r < 2; r++) {
		if (roots[r] == UINT32_MAX)
			continue;
		const char *name = stackcol_string(p->col, roots[r]);
		buf_folded_name(&b, *name ? name : "[unknown]");
		export_buf_put(&b, ";", 1);
	}
	const char *comm = stackcol_string(p->col, k->comm);
	buf_folded_name(&b, *comm ? comm : "[unknown]");
	size_t n;
	const uint32_t *ids = stackcol_stack(p->col, k->stack, &n);
	const struct stackcol_frame *fr = stackcol_frames(p->col);
	for (size_t i = n; i-- > 0;) {
		export_buf_put(&b, ";", 1);
		buf_folded_name(&b, stackcol_string(p->col, fr[ids[i]].display));
	}
	export_buf_put(&b, "", 1); /* the terminating NUL */
	if (b.failed) {
		free(b.data);
		return NULL;
	}
	return (char *)b.data;
}

int folded_encode(const struct export_profile *p, struct export_buf *out, char *err, size_t errlen)
{
	size_t nk = stackcol_nkeys(p->col);
	const struct stackcol_key *keys = stackcol_keys(p->col);
	int ev = folded_event(p);
	struct fold_line *lines = calloc(nk ? nk : 1, sizeof(*lines));
	size_t nl = 0;
	int rc = lines ? 0 : -1;
	for (size_t i = 0; !rc && i < nk; i++) {
		if (!keys[i].samples || keys[i].event != ev)
			continue;
		if (p->keep && !p->keep(p->keep_ctx, p->col, &keys[i]))
			continue;
		lines[nl].text = folded_text(p, &keys[i]);
		lines[nl].count = export_time_mode(p) ? keys[i].weight : keys[i].samples;
		rc = lines[nl++].text ? 0 : -1;
	}
	if (!rc) {
		qsort(lines, nl, sizeof(*lines), fold_cmp);
		for (size_t i = 0; i < nl;) {
			uint64_t count = 0;
			size_t j = i;
			for (; j < nl && strcmp(lines[j].text, lines[i].text) == 0; j++)
				count += lines[j].count;
			buf_str(out, lines[i].text);
			buf_fmt(out, " %" PRIu64 "\n", count);
			i = j;
		}
		rc = out->failed ? -1 : 0;
	}
	for (size_t i = 0; i < nl; i++)
		free(lines[i].text);
	free(lines);
	if (rc)
		snprintf(err, errlen, "folded: out of memory");
	else if (p->nevents > 1)
		warn_msg("folded stacks hold one event: %s only", p->events[ev].name ? p->events[ev].name : "?");
	return rc;
}

/* --- speedscope --- */

/* The speedscope frame of each collector frame (deduplicated by name and file), written as the
 * shared frames. NULL out of memory. */
static uint32_t *ss_frames(const struct export_profile *p, struct export_buf *out)
{
	size_t nf = stackcol_nframes(p->col);
	const struct stackcol_frame *fr = stackcol_frames(p->col);
	uint32_t *map = calloc(nf ? nf : 1, sizeof(*map));
	struct pp_map m = { 0 };
	uint32_t n = 0;
	buf_str(out, "\"shared\":{\"frames\":[");
	for (size_t i = 0; map && i < nf; i++) {
		bool added;
		uint32_t id = pp_map_get(&m, fr[i].display, fr[i].file, n + 1, &added);
		if (!id) {
			free(map);
			map = NULL;
			break;
		}
		map[i] = id - 1;
		if (!added)
			continue;
		buf_str(out, n++ ? ",{\"name\":" : "{\"name\":");
		buf_json(out, stackcol_string(p->col, fr[i].display));
		if (fr[i].file) {
			buf_str(out, ",\"file\":");
			buf_json(out, stackcol_string(p->col, fr[i].file));
		}
		export_buf_put(out, "}", 1);
	}
	buf_str(out, "]},");
	pp_map_free(&m);
	return map;
}

/* The order of the profiles' samples: by event, thread, then time (the log's order). */
struct ss_ref {
	uint32_t tid, pos;
	uint8_t event;
};

static int ss_cmp(const void *a, const void *b)
{
	const struct ss_ref *x = a, *y = b;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static const char *ss_unit(const struct export_profile *p, int e)
{
	if (export_time_mode(p) || export_event_is_cpu_time(p->events[e].name))
		return "nanoseconds";
	return "none";
}

/* One profile: refs[from, to) are one (event, thread)'s, from the log (logged) or the keys. */
static void ss_profile(const struct export_profile *p, struct export_buf *out, const uint32_t *fmap,
		       const struct ss_ref *refs, size_t from, size_t to, bool logged, bool first)
{
	const struct stackcol_key *keys = stackcol_keys(p->col);
	const struct stackcol_sample *log = stackcol_log(p->col);
	/* named by its last sample's command: a thread that exec'd is named by the program it became */
	const struct stackcol_key *k0 = &keys[logged ? log[refs[to - 1].pos].key : refs[to - 1].pos];
	char name[256];
	snprintf(name, sizeof(name), "%s (pid %u, tid %u)%s%s", stackcol_string(p->col, k0->comm),
		 k0->pid, k0->tid, p->nevents > 1 ? " " : "",
		 p->nevents > 1 && p->events[k0->event].name ? p->events[k0->event].name : "");
	buf_str(out, first ? "{\"type\":\"sampled\",\"name\":" : ",{\"type\":\"sampled\",\"name\":");
	buf_json(out, name);
	buf_fmt(out, ",\"unit\":\"%s\",\"startValue\":0,\"samples\":[", ss_unit(p, k0->event));
	uint64_t total = 0;
	for (size_t i = from; i < to; i++) {
		const struct stackcol_key *k = &keys[logged ? log[refs[i].pos].key : refs[i].pos];
		size_t n;
		const uint32_t *ids = stackcol_stack(p->col, k->stack, &n);
		buf_str(out, i > from ? ",[" : "[");
		for (size_t f = n; f-- > 0;) /* root first */
			buf_u64(out, fmap[ids[f]], f + 1 < n ? ',' : 0);
		export_buf_put(out, "]", 1);
	}
	buf_str(out, "],\"weights\":[");
	for (size_t i = from; i < to; i++) {
		uint64_t w = logged ? log[refs[i].pos].weight : keys[refs[i].pos].weight;
		total += w;
		buf_u64(out, w, i > from ? ',' : 0);
	}
	buf_fmt(out, "],\"endValue\":%" PRIu64 "}", total);
}

/* The samples to write, by (event, thread, time): the log's, or the keys' when the log ran out.
 * Whether a key is written is asked once per key, not once per logged sample of it: the view's
 * filter (keep) walks the stack's names. */
static struct ss_ref *ss_refs(const struct export_profile *p, bool logged, size_t *n)
{
	const struct stackcol_key *keys = stackcol_keys(p->col);
	const struct stackcol_sample *log = stackcol_log(p->col);
	size_t nk = stackcol_nkeys(p->col);
	size_t max = logged ? stackcol_nlog(p->col) : nk;
	struct ss_ref *refs = calloc(max ? max : 1, sizeof(*refs));
	bool *kept = calloc(nk ? nk : 1, sizeof(*kept));
	*n = 0;
	if (!refs || !kept) {
		free(refs);
		free(kept);
		return NULL;
	}
	for (size_t i = 0; i < nk; i++)
		kept[i] = keys[i].samples && keys[i].event < p->nevents &&
			  (!p->keep || p->keep(p->keep_ctx, p->col, &keys[i]));
	for (size_t i = 0; i < max; i++) {
		uint32_t key = logged ? log[i].key : (uint32_t)i;
		if (kept[key])
			refs[(*n)++] = (struct ss_ref){ keys[key].tid, (uint32_t)i, keys[key].event };
	}
	free(kept);
	qsort(refs, *n, sizeof(*refs), ss_cmp);
	return refs;
}

int speedscope_encode(const struct export_profile *p, struct export_buf *out, char *err,
		      size_t errlen)
{
	struct stackcol_stats st;
	stackcol_get_stats(p->col, &st);
	bool logged = st.log_dropped == 0;
	if (!logged)
		warn_msg("speedscope: the sample log was full (%" PRIu64 " samples past it): the profiles "
			 "hold the aggregated stacks, not the time order", st.log_dropped);
	buf_str(out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
		"\"exporter\":\"perftop\",\"name\":\"perftop\",\"activeProfileIndex\":0,");
	uint32_t *fmap = ss_frames(p, out);
	size_t n = 0;
	struct ss_ref *refs = fmap ? ss_refs(p, logged, &n) : NULL;
	buf_str(out, "\"profiles\":[");
	for (size_t i = 0; refs && i < n;) {
		size_t j = i;
		while (j < n && refs[j].event == refs[i].event && refs[j].tid == refs[i].tid)
			j++;
		ss_profile(p, out, fmap, refs, i, j, logged, i == 0);
		i = j;
	}
	buf_str(out, "]}\n");
	int rc = fmap && refs && !out->failed ? 0 : -1;
	if (rc)
		snprintf(err, errlen, "speedscope: out of memory");
	free(fmap);
	free(refs);
	return rc;
}

/* --- files --- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && strcmp(s + n - m, suffix) == 0;
}

enum export_format export_format_of(const char *path)
{
	if (ends_with(path, ".pb.gz") || ends_with(path, ".pprof"))
		return EXPORT_PPROF;
	if (ends_with(path, ".speedscope.json"))
		return EXPORT_SPEEDSCOPE;
	if (ends_with(path, ".folded"))
		return EXPORT_FOLDED;
	return EXPORT_NONE;
}

const char *export_formats_text(void)
{
	return "pprof (*.pb.gz, *.pprof), speedscope (*.speedscope.json) or folded (*.folded)";
}

int export_write_file(const struct export_profile *p, const char *path, char *err, size_t errlen)
{
	struct export_buf b = { 0 };
	char why[256] = "";
	int rc;
	switch (export_format_of(path)) {
	case EXPORT_PPROF:
		rc = pprof_encode_gz(p, &b, why, sizeof(why));
		break;
	case EXPORT_SPEEDSCOPE:
		rc = speedscope_encode(p, &b, why, sizeof(why));
		break;
	case EXPORT_FOLDED:
		rc = folded_encode(p, &b, why, sizeof(why));
		break;
	default:
		snprintf(err, errlen, "--export %s: the format is not known by the name: %s", path,
			 export_formats_text());
		return -1;
	}
	if (rc) {
		snprintf(err, errlen, "--export %s: %s", path, why);
		export_buf_free(&b);
		return -1;
	}
	/* a temporary beside it, renamed: a reader never sees half a file, a planted symlink is
	 * replaced rather than written through (safefile.h) */
	char msg[4200];
	bool ok = safefile_write(path, b.data, b.len, SAFEFILE_FOR_USER | SAFEFILE_SYNC, msg,
				 sizeof(msg)) == 0;
	if (!ok)
		snprintf(err, errlen, "--export %s", msg);
	export_buf_free(&b);
	return ok ? 0 : -1;
}
