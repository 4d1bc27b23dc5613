/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * batch_print: the snapshots of batch mode as text: the plain table (perf report's columns) and the
 * JSON line, one per snapshot (batch.c runs the loop that prints them).
 *
 * The JSON contract tests rely on (fields may be added, never changed):
 *   {"time": 3.0, "event": "cpu-clock", "samples": 2987, "lost": 0,
 *    "rows": [{"sym": "...", "dso": "...", "self": 23.5, "total": 81.2}]}
 * time is seconds since the session started; samples and lost count this snapshot's window; rows are
 * in the view's order; comm/pid/tid appear in rows when they are sort keys.
 *
 * With --diff BASE.data rows also have "delta" (Self% now minus Self% in BASE; Total% in the time
 * modes) and "base_self" (BASE's figure), and
 * "diff": "new" (not in BASE) or "gone" (only in BASE, listed with self 0); rows are then ordered
 * by the size of delta.
 *
 * Several events (-e a,b, or a recording of several): one object (one table) per event per refresh,
 * in the events' order, each with its "event"; samples, rows and total_period are that event's,
 * the rest the session's.
 *
 * Time modes (--off-cpu, --wall; model/profile.h): the object also has "mode" ("off-cpu" or
 * "wall"; absent in samples mode, whose output is as it always was) and "seconds", the time the
 * rows' nanoseconds cover (the windows' lengths decayed like the rows: the window's own under -z
 * and in a replay), and each row "self_ns" and "total_ns" (nanoseconds held: blocked, or blocked
 * and running), "blocks" and "total_blocks" (blocks begun with the row as Self, and with the row
 * anywhere in the stack; decayed alike) and "longest_ns" (the longest with the row anywhere on
 * the stack in the window); total_ns / seconds / 1e9 is the table's Time. "state" (its name: S, D,
 * R+ ..., on-CPU) is in the rows when state is a sort key, and "runq": "hidden" or "only" in the
 * object when run-queue waits are left out or shown alone (the percentages are then shares of
 * what is shown). Live, "pairing" has the switch pairing's session totals (sampler/offcpu.h):
 * blocks ended, blocks dropped as unpaired (a second switch-out before the switch-in), across a
 * lost-records gap or over the pending bound, and the records the sampler emitted out of time
 * order.
 *
 * "counters" (after "rows"): samples_per_sec, lost and throttled (session totals), and live only:
 * window (seconds), perftop's cpu (%), and each counter this machine counts with its count in the
 * window (context_switches, cpu_migrations, page_faults; cycles, instructions, ipc, cache_misses,
 * branch_misses where there is a PMU).
 *
 * "push" (last, with --push only): {"sent": N, "failed": N, "dropped": N, "last_error": "..."}, the
 * session's totals so far (push.h: sent and dropped count profiles, failed counts requests;
 * last_error is "" until one fails). The plain table's title line ends with the same figures.
 */
#include "batch/batch.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		default:
			if (*p < 0x20)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

/* The containers the header line names with their shares (-s container). */
#define BATCH_SHARES 5

static bool snap_has_key(const struct snapshot *snap, enum sort_key k)
{
	for (int i = 0; i < snap->nkeys; i++)
		if (snap->keys[i] == k)
			return true;
	return false;
}

/* The "counters" object: the JSON names of counters.h's kinds. */
static void batch_print_counters(FILE *out, const struct session_counters *c)
{
	static const char *const names[COUNTER_NR] = {
		[COUNTER_CYCLES] = "cycles",
		[COUNTER_INSTRUCTIONS] = "instructions",
		[COUNTER_CACHE_MISSES] = "cache_misses",
		[COUNTER_BRANCH_MISSES] = "branch_misses",
		[COUNTER_CTX_SWITCHES] = "context_switches",
		[COUNTER_MIGRATIONS] = "cpu_migrations",
		[COUNTER_PAGE_FAULTS] = "page_faults",
	};
	fprintf(out, ", \"counters\": {\"samples_per_sec\": %.1f, \"lost\": %llu, \"throttled\": %llu",
		c->samples_per_sec, (unsigned long long)c->lost, (unsigned long long)c->throttled);
	if (c->live) {
		fprintf(out, ", \"window\": %.3f", c->window_secs);
		if (c->cpu_pct >= 0)
			fprintf(out, ", \"cpu\": %.1f", c->cpu_pct);
		for (int k = 0; k < COUNTER_NR; k++)
			if (c->have[k])
				fprintf(out, ", \"%s\": %llu", names[k], (unsigned long long)c->window[k]);
		if (c->ipc >= 0)
			fprintf(out, ", \"ipc\": %.3f", c->ipc);
	}
	fputc('}', out);
}

/* The sort keys a row object carries (the others are not in the snapshot's rows). */
struct json_keys {
	bool comm, pid, tid, src, state, cgroup, container;
};

/* A row's object: names, percentages, samples, then what the mode and the keys add. */
static void json_row(FILE *out, const struct snapshot *snap, const struct snap_row *r,
		     const struct json_keys *k)
{
	fputs("{\"sym\": ", out);
	json_string(out, r->sym ? r->sym : "");
	fputs(", \"dso\": ", out);
	json_string(out, r->dso ? r->dso : "");
	fprintf(out, ", \"self\": %.4f, \"total\": %.4f, \"samples\": %llu", r->self_pct,
		r->total_pct, (unsigned long long)r->samples);
	if (snapshot_is_time(snap))
		fprintf(out, ", \"self_ns\": %llu, \"total_ns\": %llu, \"blocks\": %llu, "
			"\"total_blocks\": %llu, \"longest_ns\": %llu",
			(unsigned long long)r->self_period, (unsigned long long)r->total_period,
			(unsigned long long)snap_row_blocks(r),
			(unsigned long long)snap_row_total_blocks(r),
			(unsigned long long)snap_row_longest_ns(r));
	if (snap->diff) {
		fprintf(out, ", \"delta\": %.4f, \"base_self\": %.4f", r->delta, r->base_self);
		if (r->diff != SNAP_DIFF_BOTH)
			fprintf(out, ", \"diff\": \"%s\"",
				r->diff == SNAP_DIFF_NEW ? "new" : "gone");
	}
	if (k->comm) {
		fputs(", \"comm\": ", out);
		json_string(out, r->comm);
	}
	if (k->pid)
		fprintf(out, ", \"pid\": %u", r->pid);
	if (k->pid && r->nspid && r->nspid != r->pid)
		fprintf(out, ", \"nspid\": %u", r->nspid);
	if (k->tid)
		fprintf(out, ", \"tid\": %u", r->tid);
	if (k->tid && r->nstid && r->nstid != r->tid)
		fprintf(out, ", \"nstid\": %u", r->nstid);
	if (k->container) {
		fputs(", \"container\": ", out);
		json_string(out, r->container ? r->container : "");
	}
	if (k->cgroup) {
		fputs(", \"cgroup\": ", out);
		json_string(out, r->cgroup ? r->cgroup : "");
	}
	if (k->src) {
		fputs(", \"srcline\": ", out);
		json_string(out, r->srcline ? r->srcline : "");
	}
	if (k->state) {
		fputs(", \"state\": ", out);
		json_string(out, profile_state_name(r->state));
	}
	fputc('}', out);
}

static const char *const runq_names[] = { [RUNQ_ALL] = "all", [RUNQ_HIDE] = "hidden",
					  [RUNQ_ONLY] = "only" };

void batch_print_json(FILE *out, const struct snapshot *snap, const struct session_status *st,
		      double time)
{
	fprintf(out, "{\"time\": %.3f, \"event\": ", time);
	json_string(out, st->event);
	fprintf(out, ", \"samples\": %llu, \"lost\": %llu, \"dropped\": %llu, \"total_period\": %llu",
		(unsigned long long)snap->window_samples, (unsigned long long)snap->window_lost,
		(unsigned long long)st->window_dropped, (unsigned long long)snap->total_period);
	/* Samples mode prints what it always did: the time modes' fields come only with them. */
	if (snapshot_is_time(snap))
		fprintf(out, ", \"mode\": \"%s\", \"seconds\": %.3f", profile_mode_name(snap->mode),
			snap->held_secs);
	if (snap->runq != RUNQ_ALL)
		fprintf(out, ", \"runq\": \"%s\"", runq_names[snap->runq]);
	if (snapshot_is_time(snap) && st->has_pairing)
		fprintf(out, ", \"pairing\": {\"blocks\": %llu, \"dropped_unpaired\": %llu, "
			"\"dropped_lost\": %llu, \"dropped_full\": %llu, \"out_of_order\": %llu}",
			(unsigned long long)st->pairing.blocks,
			(unsigned long long)st->pairing.dropped_unpaired,
			(unsigned long long)st->pairing.dropped_lost,
			(unsigned long long)st->pairing.dropped_full, (unsigned long long)st->out_of_order);
	if (st->target_exited)
		fputs(", \"exited\": true", out);
	if (st->unwound >= 0)
		fprintf(out, ", \"unwound\": %.1f", st->unwound);
	struct snap_share shares[BATCH_SHARES];
	size_t nshares = snapshot_container_shares(snap, shares, BATCH_SHARES);
	if (nshares) {
		fputs(", \"containers\": [", out);
		for (size_t i = 0; i < nshares; i++) {
			fputs(i ? ", {\"container\": " : "{\"container\": ", out);
			json_string(out, shares[i].container);
			fprintf(out, ", \"self\": %.4f}", shares[i].pct);
		}
		fputc(']', out);
	}
	fputs(", \"rows\": [", out);
	struct json_keys k = { snap_has_key(snap, SORT_COMM), snap_has_key(snap, SORT_PID),
			       snap_has_key(snap, SORT_TID), snap_has_key(snap, SORT_SRCLINE),
			       snap_has_key(snap, SORT_STATE), snap_has_key(snap, SORT_CGROUP),
			       snap_has_key(snap, SORT_CONTAINER) };
	for (size_t i = 0; i < snap->nrows; i++) {
		if (i)
			fputs(", ", out);
		json_row(out, snap, &snap->rows[i], &k);
	}
	fputc(']', out);
	batch_print_counters(out, &st->counters);
	if (st->pushing) {
		fprintf(out, ", \"push\": {\"sent\": %llu, \"failed\": %llu, \"dropped\": %llu, "
			"\"last_error\": ", (unsigned long long)st->push.sent,
			(unsigned long long)st->push.failed, (unsigned long long)st->push.dropped);
		json_string(out, st->push.last_error);
		fputc('}', out);
	}
	fputc('}', out);
}

/* One row of the table, built whole before one write (stdio's per-call locking was a large part
 * of printing many short fields). */
struct line {
	char *p;
	size_t len, cap;
};

static char *line_room(struct line *l, size_t n)
{
	if (l->len + n > l->cap)
		xgrow((void **)&l->p, &l->cap, l->len + n, 1);
	return l->p + l->len;
}

static void line_put(struct line *l, const char *s, size_t n)
{
	memcpy(line_room(l, n), s, n);
	l->len += n;
}

/* printf's "%-*s". */
static void line_left(struct line *l, const char *s, size_t width)
{
	size_t n = strlen(s);
	char *o = line_room(l, n > width ? n : width);
	memcpy(o, s, n);
	if (n < width)
		memset(o + n, ' ', width - n);
	l->len += n > width ? n : width;
}

/* printf's "%*llu". */
static void line_u64(struct line *l, uint64_t v, int width)
{
	char s[24];
	int o = (int)sizeof(s);
	do {
		s[--o] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while ((int)sizeof(s) - o < width)
		s[--o] = ' ';
	line_put(l, s + o, sizeof(s) - (size_t)o);
}

/*
 * printf's "%7.2f", by hand: printf's float formatting was most of printing a table of many rows.
 * v * 100 is exact in a long double of a 64-bit mantissa (53 bits times 100's 7), so rounding it to
 * an integer, half to even as printf does in the default rounding mode, gives printf's digits.
 */
static void line_pct(struct line *l, double v)
{
#if LDBL_MANT_DIG >= 64
	if (v >= 0 && !signbit(v) && v < 1e7) {
		long double x = (long double)v * 100, fl = floorl(x), d = x - fl;
		uint64_t n = (uint64_t)fl;
		if (d > 0.5L || (d == 0.5L && (n & 1)))
			n++;
		char s[24];
		int o = (int)sizeof(s);
		for (int i = 0; i < 2; i++, n /= 10)
			s[--o] = (char)('0' + n % 10);
		s[--o] = '.';
		do {
			s[--o] = (char)('0' + n % 10);
			n /= 10;
		} while (n);
		while ((int)sizeof(s) - o < 7)
			s[--o] = ' ';
		line_put(l, s + o, sizeof(s) - (size_t)o);
		return;
	}
#endif
	char s[64];
	int n = snprintf(s, sizeof(s), "%7.2f", v);
	line_put(l, s, n > 0 ? (size_t)n : 0);
}

/* The time modes' columns of a row: Time (Total seconds per second: the threads there, the
 * function or anything it called), Blocks/s (with the row on the stack), Longest (ms). */
static void line_time(struct line *l, const struct snapshot *snap, const struct snap_row *r)
{
	char f[96];
	int n = snprintf(f, sizeof(f), " %8.2f %8.1f %8.1fms",
			 snapshot_per_sec(snap, r->total_period) / 1e9,
			 snapshot_per_sec(snap, snap_row_total_blocks(r)),
			 (double)snap_row_longest_ns(r) / 1e6);
	line_put(l, f, n > 0 ? (size_t)n : 0);
}

/* A pid or tid right-aligned in 7, with its namespace's number beside it when it has one. */
static void line_id(struct line *l, uint32_t id, uint32_t nsid)
{
	if (!nsid || nsid == id) {
		line_u64(l, id, 7);
		return;
	}
	char buf[32];
	snap_pid_text(id, nsid, buf, sizeof(buf));
	int n = (int)strlen(buf);
	for (; n < 7; n++)
		line_put(l, " ", 1);
	line_put(l, buf, strlen(buf));
}

/* The plain table: perf report's column order (Self, Total, Samples, then the sort keys in order);
 * in the time modes Time, Blocks/s and Longest instead of Samples. */
void batch_print_text(FILE *out, const struct snapshot *snap, const struct session_status *st,
		      double time)
{
	bool tm = snapshot_is_time(snap);
	fprintf(out, "perftop  %.1fs  %s  event %s%s%s  samples %llu  lost %llu  dropped %llu%s",
		time, st->target_text, st->event, tm ? "  " : "",
		tm ? profile_mode_title(snap->mode) : "", (unsigned long long)snap->window_samples,
		(unsigned long long)snap->window_lost, (unsigned long long)st->window_dropped,
		st->target_exited ? "  (target exited)" : "");
	if (st->pushing)
		fprintf(out, "  push: sent %llu failed %llu dropped %llu", (unsigned long long)st->push.sent,
			(unsigned long long)st->push.failed, (unsigned long long)st->push.dropped);
	fputc('\n', out);
	struct snap_share shares[BATCH_SHARES];
	size_t nshares = snapshot_container_shares(snap, shares, BATCH_SHARES);
	for (size_t i = 0; i < nshares; i++)
		fprintf(out, "%s%s %.1f%%%s", i ? "  " : "containers: ", shares[i].container,
			shares[i].pct, i + 1 == nshares ? "\n" : "");
	if (tm)
		fprintf(out, "%8s %8s %8s %8s %10s", "Self%", "Total%", "Time", "Blocks/s",
			"Longest");
	else
		fprintf(out, "%8s %8s %8s", "Self%", "Total%", "Samples");
	if (snap->diff)
		fprintf(out, " %12s", "Delta");
	for (int k = 0; k < snap->nkeys; k++) {
		switch (snap->keys[k]) {
		case SORT_COMM: fprintf(out, "  %-16s", "Command"); break;
		case SORT_PID: fprintf(out, "  %7s", "PID"); break;
		case SORT_TID: fprintf(out, "  %7s", "TID"); break;
		case SORT_CONTAINER: fprintf(out, "  %-24s", "Container"); break;
		case SORT_CGROUP: fprintf(out, "  %-32s", "Cgroup"); break;
		case SORT_DSO: fprintf(out, "  %-24s", "Shared Object"); break;
		case SORT_SRCLINE: fprintf(out, "  %-24s", "Source:Line"); break;
		case SORT_SYM: fprintf(out, "  %s", "Symbol"); break;
		case SORT_STATE: fprintf(out, "  %-6s", "State"); break;
		default: break;
		}
	}
	fputc('\n', out);
	struct line l = { 0 };
	for (size_t i = 0; i < snap->nrows; i++) {
		const struct snap_row *r = &snap->rows[i];
		l.len = 0;
		line_pct(&l, r->self_pct);
		line_put(&l, "% ", 2);
		line_pct(&l, r->total_pct);
		if (tm) {
			line_put(&l, "%", 1);
			line_time(&l, snap, r);
		} else {
			line_put(&l, "% ", 2);
			line_u64(&l, r->samples, 8);
		}
		if (snap->diff) {
			char d[32];
			snprintf(d, sizeof(d), "%+.2f%s", r->delta,
				 r->diff == SNAP_DIFF_NEW ? " new" : r->diff == SNAP_DIFF_GONE ? " gone" : "");
			char f[48];
			int n = snprintf(f, sizeof(f), " %12s", d);
			line_put(&l, f, n > 0 ? (size_t)n : 0);
		}
		for (int k = 0; k < snap->nkeys; k++) {
			line_put(&l, "  ", 2);
			switch (snap->keys[k]) {
			case SORT_COMM: line_left(&l, r->comm ? r->comm : "", 16); break;
			case SORT_PID: line_id(&l, r->pid, r->nspid); break;
			case SORT_TID: line_id(&l, r->tid, r->nstid); break;
			case SORT_CONTAINER: line_left(&l, r->container ? r->container : "?", 24); break;
			case SORT_CGROUP: line_left(&l, r->cgroup ? r->cgroup : "?", 32); break;
			case SORT_DSO: line_left(&l, r->dso ? r->dso : "", 24); break;
			case SORT_SRCLINE: line_left(&l, r->srcline ? r->srcline : "?", 24); break;
			case SORT_SYM: line_left(&l, r->sym ? r->sym : "", 0); break;
			case SORT_STATE: line_left(&l, profile_state_name(r->state), 6); break;
			default: l.len -= 2; break; /* no such column */
			}
		}
		line_put(&l, "\n", 1);
		fwrite(l.p, 1, l.len, out);
	}
	free(l.p);
	fputc('\n', out);
}
