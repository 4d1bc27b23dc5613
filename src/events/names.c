/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * names: the hardware cache event names and the nearest-name suggestions of "unknown event".
 *
 * A cache event is CACHE[-OP][-RESULT]: PERF_TYPE_HW_CACHE with config = cache | op << 8 |
 * result << 16, perf's names and aliases, any case (the op defaults to load, the result to
 * access). Not every cache has every op (perf's table: the instruction cache is read and
 * prefetched only, the iTLB and the branch unit only read). The aliases themselves hold hyphens
 * ("L1-dcache", "speculative-read"), so each part is the longest alias matching there.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "events/events_int.h"
#include "sampler/event.h"
#include "util/util.h"

#define MAX_ALIASES 5

struct cache_def {
	const char *names[MAX_ALIASES]; /* the first is the canonical one */
	unsigned ops;                   /* 1 << PERF_COUNT_HW_CACHE_OP_x it has */
};

#define OPS_RWP ((1u << PERF_COUNT_HW_CACHE_OP_READ) | (1u << PERF_COUNT_HW_CACHE_OP_WRITE) | \
		 (1u << PERF_COUNT_HW_CACHE_OP_PREFETCH))
#define OPS_RP ((1u << PERF_COUNT_HW_CACHE_OP_READ) | (1u << PERF_COUNT_HW_CACHE_OP_PREFETCH))
#define OPS_R (1u << PERF_COUNT_HW_CACHE_OP_READ)

static const struct cache_def caches[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = { { "L1-dcache", "l1-d", "l1d", "L1-data" }, OPS_RWP },
	[PERF_COUNT_HW_CACHE_L1I] = { { "L1-icache", "l1-i", "l1i", "L1-instruction" }, OPS_RP },
	[PERF_COUNT_HW_CACHE_LL] = { { "LLC", "L2" }, OPS_RWP },
	[PERF_COUNT_HW_CACHE_DTLB] = { { "dTLB", "d-tlb", "Data-TLB" }, OPS_RWP },
	[PERF_COUNT_HW_CACHE_ITLB] = { { "iTLB", "i-tlb", "Instruction-TLB" }, OPS_R },
	[PERF_COUNT_HW_CACHE_BPU] = { { "branch", "branches", "bpu", "btb", "bpc" }, OPS_R },
	[PERF_COUNT_HW_CACHE_NODE] = { { "node" }, OPS_RWP },
};

/* names[1] of an op is the plural the access-result names use ("L1-dcache-loads"). */
static const char *const ops[PERF_COUNT_HW_CACHE_OP_MAX][MAX_ALIASES] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = { "load", "loads", "read" },
	[PERF_COUNT_HW_CACHE_OP_WRITE] = { "store", "stores", "write" },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetch", "prefetches", "speculative-read",
					      "speculative-load" },
};

static const char *const results[PERF_COUNT_HW_CACHE_RESULT_MAX][MAX_ALIASES] = {
	[PERF_COUNT_HW_CACHE_RESULT_ACCESS] = { "refs", "Reference", "ops", "access" },
	[PERF_COUNT_HW_CACHE_RESULT_MISS] = { "misses", "miss" },
};

/* The entry of table whose alias is the longest one starting s and ending at a '-' or the end;
 * *len its length. -1 when none. */
static int match_part(const char *s, const char *const (*table)[MAX_ALIASES], int n, size_t *len)
{
	int best = -1;
	size_t best_len = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < MAX_ALIASES && table[i][j]; j++) {
			size_t l = strlen(table[i][j]);
			if (l > best_len && strncasecmp(s, table[i][j], l) == 0 &&
			    (s[l] == '\0' || s[l] == '-')) {
				best = i;
				best_len = l;
			}
		}
	*len = best_len;
	return best;
}

int cache_decode(const char *name, uint64_t *config)
{
	const char *names[PERF_COUNT_HW_CACHE_MAX][MAX_ALIASES];
	for (int i = 0; i < PERF_COUNT_HW_CACHE_MAX; i++)
		memcpy(names[i], caches[i].names, sizeof(names[i]));
	size_t len;
	int cache = match_part(name, (const char *const(*)[MAX_ALIASES])names,
			       PERF_COUNT_HW_CACHE_MAX, &len);
	if (cache < 0)
		return -1;
	const char *p = name + len;
	int op = -1, result = -1;
	while (*p == '-') {
		p++;
		int r = -1, o = op < 0 && result < 0 ? match_part(p, ops, PERF_COUNT_HW_CACHE_OP_MAX,
								   &len) : -1;
		if (o >= 0) {
			op = o;
		} else if (result < 0 &&
			   (r = match_part(p, results, PERF_COUNT_HW_CACHE_RESULT_MAX, &len)) >= 0) {
			result = r;
		} else {
			return -1;
		}
		p += len;
	}
	if (*p)
		return -1;
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (result < 0)
		result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (!(caches[cache].ops & (1u << op)))
		return -1;
	*config = (uint64_t)cache | (uint64_t)op << 8 | (uint64_t)result << 16;
	return 0;
}

bool cache_name(size_t i, char *buf, size_t len, uint64_t *config)
{
	size_t k = 0;
	for (int c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++)
		for (int o = 0; o < PERF_COUNT_HW_CACHE_OP_MAX; o++) {
			if (!(caches[c].ops & (1u << o)))
				continue;
			for (int r = 0; r < PERF_COUNT_HW_CACHE_RESULT_MAX; r++, k++) {
				if (k != i)
					continue;
				if (r == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
					snprintf(buf, len, "%s-%s", caches[c].names[0], ops[o][1]);
				else
					snprintf(buf, len, "%s-%s-%s", caches[c].names[0], ops[o][0],
						 results[r][0]);
				*config = (uint64_t)c | (uint64_t)o << 8 | (uint64_t)r << 16;
				return true;
			}
		}
	return false;
}

/* Levenshtein distance, ignoring case; strings longer than the row are cut (names are short). */
static int edit_distance(const char *a, const char *b)
{
	enum { MAXL = 128 };
	int row[MAXL + 1];
	size_t la = strnlen(a, MAXL), lb = strnlen(b, MAXL);
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			int best = diag + cost;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

void suggest_init(struct suggest *s, const char *want)
{
	memset(s, 0, sizeof(*s));
	s->want = want;
}

void suggest_add(struct suggest *s, const char *candidate)
{
	size_t wl = strlen(s->want);
	/* Within reach: a third of the name, at least two edits (a typo and a half). */
	int reach = (int)(wl / 3) > 2 ? (int)(wl / 3) : 2;
	int d = edit_distance(s->want, candidate);
	if (d > reach || strlen(candidate) >= sizeof(s->names[0]))
		return;
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->names[i], candidate) == 0)
			return;
	if (s->n == SUGGEST_MAX && s->dist[SUGGEST_MAX - 1] <= d)
		return; /* no nearer than the farthest kept */
	int at = s->n < SUGGEST_MAX ? s->n++ : SUGGEST_MAX - 1;
	/* Insert in order of distance (stable: the first candidate of a distance stays first). */
	while (at > 0 && s->dist[at - 1] > d) {
		s->dist[at] = s->dist[at - 1];
		memcpy(s->names[at], s->names[at - 1], sizeof(s->names[at]));
		at--;
	}
	s->dist[at] = d;
	snprintf(s->names[at], sizeof(s->names[at]), "%s", candidate);
}

void suggest_text(const struct suggest *s, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < s->n && used < len; i++) {
		const char *sep = i == 0 ? "; did you mean " : i == s->n - 1 ? " or " : ", ";
		int w = snprintf(buf + used, len - used, "%s%s", sep, s->names[i]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
	if (s->n && used < len)
		snprintf(buf + used, len - used, "?");
}

static void suggest_pmu_alias(void *arg, const char *pmu, const char *alias)
{
	char name[192];
	if (!alias)
		return;
	suggest_add(arg, alias);
	snprintf(name, sizeof(name), "%s/%s/", pmu, alias);
	suggest_add(arg, name);
}

void suggest_known(struct events_ctx *c, struct suggest *s)
{
	const char *k;
	char buf[64];
	uint64_t config;
	for (size_t i = 0; (k = event_known_name(i)) != NULL; i++)
		suggest_add(s, k);
	for (size_t i = 0; cache_name(i, buf, sizeof(buf), &config); i++)
		suggest_add(s, buf);
	pmu_each(c, true, suggest_pmu_alias, s);
}
