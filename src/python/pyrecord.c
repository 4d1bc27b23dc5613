/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pyrecord: writes and reads FILE.python, the Python frames of a recording (pyrecord.h says what
 * and its format).
 *
 * Bounds: the writer names at most REC_FUNCS functions (a table of their texts; a sample with a
 * function past it is not written, and counted) and REC_DSOS interpreters; the reader takes at
 * most REP_SAMPLES samples and REP_FRAMES frames (the rest is left out with a warning), which is
 * more than an hour at 1 kHz of stacks 30 deep.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "python/pyrecord.h"
#include "python/pystacks.h"
#include "util/safefile.h"
#include "util/util.h"

#define REC_FUNCS (1u << 20)
#define REC_DSOS 16
#define REP_SAMPLES (8u << 20)
#define REP_FRAMES (128u << 20)
#define REP_MAX_STACK 256

struct pyrecord {
	FILE *f;
	struct safefile_out out;
	int err;
	char *dsos[REC_DSOS];
	int ndsos;
	/* function texts ("SYM\tSRCLINE") -> id: open addressing, twice REC_FUNCS slots */
	char **keys;
	uint32_t *ids;
	uint32_t nfuncs;
	uint64_t dropped;
};

struct pyrecord *pyrecord_create(const char *path, char *err, size_t errlen)
{
	/* private like the recording itself, and like it renamed into place at the end (safefile.h) */
	struct safefile_out out;
	int fd = safefile_create(&out, path, SAFEFILE_FOR_USER, err, errlen);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		safefile_abort(&out);
		return NULL;
	}
	struct pyrecord *w = xcalloc(1, sizeof(*w));
	w->f = f;
	w->out = out;
	w->keys = xcalloc(2 * (size_t)REC_FUNCS, sizeof(*w->keys));
	w->ids = xcalloc(2 * (size_t)REC_FUNCS, sizeof(*w->ids));
	if (fprintf(f, "perftop-python 1\n") < 0 || fflush(f) != 0)
		w->err = errno;
	return w;
}

static uint64_t text_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

/* The id of a function, written on first use; -1 past the bound. */
static int64_t rec_func(struct pyrecord *w, const struct frame *f)
{
	char key[600];
	snprintf(key, sizeof(key), "%s\t%s", f->sym, f->srcline ? f->srcline : "-");
	size_t cap = 2 * (size_t)REC_FUNCS;
	size_t i = (size_t)(text_hash(key) % cap);
	while (w->keys[i]) {
		if (!strcmp(w->keys[i], key))
			return w->ids[i];
		i = (i + 1) % cap;
	}
	if (w->nfuncs >= REC_FUNCS)
		return -1;
	w->keys[i] = xstrdup(key);
	w->ids[i] = w->nfuncs++;
	/* a name holds no newline (qualnames and file names could: they are cut there) */
	int sym_len = (int)strcspn(f->sym, "\n"), src_len = f->srcline ? (int)strcspn(f->srcline, " \n") : 1;
	if (fprintf(w->f, "f %u %.*s %.*s\n", w->ids[i], src_len, f->srcline ? f->srcline : "-",
		    sym_len, f->sym) < 0 && !w->err)
		w->err = errno;
	return w->ids[i];
}

static int rec_dso(struct pyrecord *w, const char *dso)
{
	for (int i = 0; i < w->ndsos; i++)
		if (!strcmp(w->dsos[i], dso))
			return i;
	if (w->ndsos == REC_DSOS)
		return -1;
	w->dsos[w->ndsos] = xstrdup(dso);
	if (fprintf(w->f, "d %d %.*s\n", w->ndsos, (int)strcspn(dso, " \n"), dso) < 0 && !w->err)
		w->err = errno;
	return w->ndsos++;
}

void pyrecord_add(struct pyrecord *w, uint64_t time, uint32_t pid, uint32_t tid,
		  const char *interp_dso, const struct frame *py, const int *group, int n)
{
	int64_t ids[REP_MAX_STACK];
	int d = rec_dso(w, interp_dso);
	if (n > REP_MAX_STACK)
		n = REP_MAX_STACK;
	for (int i = 0; i < n && d >= 0; i++)
		if ((ids[i] = rec_func(w, &py[i])) < 0)
			d = -1;
	if (d < 0) {
		w->dropped++;
		return;
	}
	fprintf(w->f, "s %" PRIu64 " %u %u %d", time, pid, tid, d);
	for (int i = 0; i < n; i++)
		fprintf(w->f, " %" PRId64 ".%d", ids[i], group[i]);
	if (fputc('\n', w->f) == EOF && !w->err)
		w->err = errno;
}

void pyrecord_flush(struct pyrecord *w)
{
	if (w && fflush(w->f) != 0 && !w->err)
		w->err = errno;
}

int pyrecord_close(struct pyrecord *w)
{
	if (!w)
		return 0;
	int rc = w->err ? -w->err : 0;
	if (fflush(w->f) != 0 && !rc)
		rc = -errno;
	if (fclose(w->f) != 0 && !rc)
		rc = -errno;
	w->out.fd = -1; /* closed with its FILE */
	/* cut short by an error, it is still read up to its last whole line: it takes its name too */
	char why[256];
	if (safefile_commit(&w->out, why, sizeof(why)) != 0 && !rc)
		rc = -EIO;
	for (size_t i = 0; i < 2 * (size_t)REC_FUNCS; i++)
		free(w->keys[i]);
	for (int i = 0; i < w->ndsos; i++)
		free(w->dsos[i]);
	free(w->keys);
	free(w->ids);
	free(w);
	return rc;
}

struct rep_sample {
	uint64_t time;
	uint32_t tid;
	uint32_t dso;
	uint32_t first, n;  /* frames[first .. first + n) */
};

struct rep_frame {
	uint32_t func;
	int32_t group;
};

struct rep_func {
	char *sym, *srcline;  /* srcline NULL when none */
};

struct pyreplay {
	uint32_t func_base, dso_base; /* ids of the file being read start there (several files) */
	char **dsos;
	size_t ndsos;
	struct rep_func *funcs;
	size_t nfuncs, funcs_cap;
	struct rep_sample *samples;
	size_t nsamples, samples_cap;
	struct rep_frame *frames;
	size_t nframes, frames_cap;
	struct frame py[REP_MAX_STACK];
	int group[REP_MAX_STACK];
	struct frame *out;
	int out_cap;
};

void pyreplay_free(struct pyreplay *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->ndsos; i++)
		free(r->dsos[i]);
	for (size_t i = 0; i < r->nfuncs; i++) {
		free(r->funcs[i].sym);
		free(r->funcs[i].srcline);
	}
	free(r->dsos);
	free(r->funcs);
	free(r->samples);
	free(r->frames);
	free(r->out);
	free(r);
}

/* An f line: "ID SRCLINE SYM". Ids come in order. */
static int rep_func(struct pyreplay *r, char *rest)
{
	char *end;
	unsigned long id = strtoul(rest, &end, 10);
	if (end == rest || *end != ' ' || id + r->func_base != r->nfuncs)
		return -1;
	char *src = end + 1, *sym = strchr(src, ' ');
	if (!sym)
		return -1;
	*sym++ = 0;
	xgrow((void **)&r->funcs, &r->funcs_cap, r->nfuncs + 1, sizeof(*r->funcs));
	r->funcs[r->nfuncs++] = (struct rep_func){ xstrdup(sym), strcmp(src, "-") ? xstrdup(src) : NULL };
	return 0;
}

/* An s line: "TIME PID TID DSO F.G ...". */
static int rep_sample(struct pyreplay *r, char *rest)
{
	char *p = rest, *end;
	uint64_t time = strtoull(p, &end, 10);
	if (end == p)
		return -1;
	strtoul(end, &p, 10);  /* the pid: the tid alone finds the sample */
	unsigned long tid = strtoul(p, &end, 10), dso = strtoul(end, &p, 10) + r->dso_base;
	if (p == end || dso >= r->ndsos)
		return -1;
	struct rep_sample s = { .time = time, .tid = (uint32_t)tid, .dso = (uint32_t)dso,
				.first = (uint32_t)r->nframes };
	while (*p == ' ' && s.n < REP_MAX_STACK) {
		unsigned long f = strtoul(p + 1, &end, 10) + r->func_base;
		if (*end != '.' || f >= r->nfuncs)
			return -1;
		long g = strtol(end + 1, &p, 10);
		xgrow((void **)&r->frames, &r->frames_cap, r->nframes + 1, sizeof(*r->frames));
		r->frames[r->nframes++] = (struct rep_frame){ (uint32_t)f, (int32_t)g };
		s.n++;
	}
	xgrow((void **)&r->samples, &r->samples_cap, r->nsamples + 1, sizeof(*r->samples));
	r->samples[r->nsamples++] = s;
	return 0;
}

static int rep_line(struct pyreplay *r, char *line)
{
	line[strcspn(line, "\n")] = 0;
	if (line[0] == 'f' && line[1] == ' ')
		return rep_func(r, line + 2);
	if (line[0] == 's' && line[1] == ' ')
		return r->nsamples < REP_SAMPLES && r->nframes < REP_FRAMES ? rep_sample(r, line + 2) : 1;
	if (line[0] == 'd' && line[1] == ' ') {
		char *name = strchr(line + 2, ' ');
		if (!name || strtoul(line + 2, NULL, 10) + r->dso_base != r->ndsos)
			return -1;
		r->dsos = xrealloc(r->dsos, (r->ndsos + 1) * sizeof(*r->dsos));
		r->dsos[r->ndsos++] = xstrdup(name + 1);
		return 0;
	}
	return -1;
}

static int rep_cmp(const void *a, const void *b)
{
	const struct rep_sample *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

struct pyreplay *pyreplay_open(struct pyreplay *r, const char *path, char *err, size_t errlen)
{
	err[0] = 0;
	FILE *f = fopen(path, "re");
	if (!f)
		return r;
	char *line = NULL;
	size_t cap = 0;
	ssize_t got = getline(&line, &cap, f);
	if (got <= 0 || line[got - 1] != '\n') {
		/* empty or cut in its first line: a recording killed at once (perf.data says it) */
		free(line);
		fclose(f);
		return r;
	}
	if (strncmp(line, "perftop-python 1", 16) != 0) {
		snprintf(err, errlen, "%s: not perftop's Python frames (no 'perftop-python 1' line)", path);
		free(line);
		fclose(f);
		return r;
	}
	if (!r)
		r = xcalloc(1, sizeof(*r));
	r->func_base = (uint32_t)r->nfuncs;
	r->dso_base = (uint32_t)r->ndsos;
	long lineno = 1;
	bool full = false;
	while ((got = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[got - 1] != '\n')
			break;  /* the last line of a recording cut short (perf.data's reader says so) */
		int rc = rep_line(r, line);
		if (rc < 0) {
			snprintf(err, errlen, "%s:%ld: not understood; its Python frames read up to there",
				 path, lineno);
			break;
		}
		full = full || rc > 0;
	}
	if (full && !err[0])
		snprintf(err, errlen, "%s: more samples than perftop keeps; the rest without Python frames",
			 path);
	free(line);
	fclose(f);
	if (r->nsamples) /* samples is NULL when there are none: qsort must not see it */
		qsort(r->samples, r->nsamples, sizeof(*r->samples), rep_cmp);
	return r;
}

static const struct rep_sample *rep_find(const struct pyreplay *r, uint32_t tid, uint64_t time)
{
	struct rep_sample key = { .time = time, .tid = tid };
	if (!r->nsamples)
		return NULL;
	return bsearch(&key, r->samples, r->nsamples, sizeof(*r->samples), rep_cmp);
}

bool pyreplay_has(const struct pyreplay *r, uint32_t tid, uint64_t time)
{
	return rep_find(r, tid, time) != NULL;
}

int pyreplay_sample(struct pyreplay *r, frame_rename_fn intern, void *ctx, uint32_t tid,
		    uint64_t time, struct frame *frames, int n, int max)
{
	const struct rep_sample *s = rep_find(r, tid, time);
	if (!s)
		return n;
	const char *dso = intern(ctx, PYSTACKS_DSO);
	for (uint32_t i = 0; i < s->n; i++) {
		const struct rep_frame *f = &r->frames[s->first + i];
		const struct rep_func *fn = &r->funcs[f->func];
		r->py[i] = (struct frame){
			.sym = intern(ctx, fn->sym),
			.dso = dso,
			.srcline = fn->srcline ? intern(ctx, fn->srcline) : NULL,
		};
		r->group[i] = f->group;
	}
	if (r->out_cap < max) {
		free(r->out);
		r->out = xmalloc((size_t)max * sizeof(*r->out));
		r->out_cap = max;
	}
	int k = pystacks_splice(frames, n, r->py, r->group, (int)s->n, r->dsos[s->dso], r->out, max);
	memcpy(frames, r->out, (size_t)k * sizeof(*frames));
	return k;
}
