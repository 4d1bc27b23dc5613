/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile: the rows of the hot-function histogram and their decay.
 *
 * Rows live in one dense array (so a snapshot or a later call tree can walk them in a straight line)
 * and are found through an open-addressing table of row indices, hashed on the key pointers: the
 * strings are interned, so pointer identity is name identity and a lookup never touches string bytes.
 * String contents are hashed once, when a row is created, to give it an id that survives refreshes
 * and runs. Rows only disappear once per refresh (decay), all at once, so the decay compacts the
 * array and rebuilds the table instead of deleting from it row by row.
 *
 * Total counts a row once per sample even when it appears several times in the chain (recursion):
 * each sample gets a new epoch number, and a row whose stamp already equals it was counted.
 *
 * The time modes' figures of the rows (profile.h: blocks, longest, the run-queue part of each
 * count) live in an array of their own beside the rows, index for index, made when the first piece
 * of an off-CPU block comes: a sampling profile never has one, and its rows cost what they did.
 * The run-queue part decays apart from the rest, and the count is set to the sum of the two, so
 * that "without run-queue waits" (the count minus that part) is exactly the decay of what was added
 * outside the run queue, never off by the rounding of x7/8.
 */
#include "model/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/decay.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/util.h"

static const char *const key_names[SORT_KEY_COUNT] = {
	[SORT_COMM] = "comm", [SORT_PID] = "pid", [SORT_TID] = "tid",
	[SORT_DSO] = "dso",   [SORT_SYM] = "sym", [SORT_SRCLINE] = "srcline",
	[SORT_STATE] = "state", [SORT_CGROUP] = "cgroup", [SORT_CONTAINER] = "container",
};
#define KNOWN_KEYS "comm, pid, tid, dso, sym, srcline, state, cgroup, container"

/* sampler/offcpu.h's offcpu_state_name, by the same numbers; 0 is an on-CPU sample. */
static const char *const state_names[PROFILE_NSTATES] = {
	"on-CPU", "S", "D", "R", "R+", "T", "t", "X", "Z", "P", "I", "?",
};

static const char *const mode_names[] = {
	[PROFILE_SAMPLES] = "cpu", [PROFILE_OFFCPU] = "off-cpu", [PROFILE_WALL] = "wall",
};

/* Per-row bookkeeping kept beside the public rows so struct profile_row stays plain data. */
struct row_aux {
	uint64_t stamp; /* epoch of the last sample that counted this row's Total */
	uint64_t phash; /* pointer hash, kept so the table can be rebuilt without rehashing */
	uint64_t votes; /* the majority vote's count for the row's main_pid */
};

#define PROFILE_PATH_DEPTH 128
#define PROFILE_PATH_SLOTS 4  /* a power of two */

struct profile {
	enum sort_key keys[PROFILE_MAX_KEYS];
	int nkeys;
	bool use[SORT_KEY_COUNT];
	/* A key besides dso, sym and srcline is in use: the other fields of a row's key are all 0
	 * otherwise, in every row and lookup, and neither hashed nor compared. */
	bool other_keys;

	struct profile_row *rows;
	struct row_aux *aux;
	struct profile_time *time; /* beside the rows, NULL until an off-CPU piece came */
	size_t nrows, rows_cap, aux_cap, time_cap;

	struct hashtab table; /* row indices; bounded by the decay, which drops faded rows */

	uint64_t epoch;
	uint64_t layout; /* changes whenever a row may have moved (profile_add_again) */
	uint64_t total_period;
	uint64_t held_samples;
	/* Held without a row, but part of the total: frameless samples (see profile_add) and what
	 * faded rows still held of Self when they were dropped. */
	uint64_t orphan_period, orphan_samples;
	uint64_t window_samples, window_lost;
	/* The run-queue part of total_period, and of what is held without a row. */
	uint64_t runq_period, runq_orphan_period, runq_orphan_samples;
	enum profile_mode mode;
	double held_secs;  /* the windows' lengths, decayed like the rows */
	double window_secs; /* the current window's length (profile_add_window_secs) */
	/* The rows of each frame of the last sample of a few threads (by tid), by depth from the
	 * root: a thread's next sample mostly has the same callers, whose rows are then checked in
	 * place instead of looked up in the table (a hash, a slot and a row, cache misses all). A row
	 * index is only a guess, taken when the row there has the frame's key, which no other row
	 * has: rows dropped or moved since just fail the check. */
	struct profile_path {
		uint32_t row[PROFILE_PATH_DEPTH];
		int n;
	} paths[PROFILE_PATH_SLOTS];
};

const char *sort_key_name(enum sort_key k)
{
	return (unsigned)k < SORT_KEY_COUNT ? key_names[k] : "?";
}

const char *profile_state_name(unsigned state)
{
	return state < PROFILE_NSTATES ? state_names[state] : "?";
}

const char *profile_mode_name(enum profile_mode m)
{
	return (unsigned)m < ARRAY_SIZE(mode_names) ? mode_names[m] : "?";
}

const char *profile_mode_title(enum profile_mode m)
{
	static const char *const titles[] = {
		[PROFILE_SAMPLES] = "samples", [PROFILE_OFFCPU] = "off-CPU",
		[PROFILE_WALL] = "wall",
	};
	return (unsigned)m < ARRAY_SIZE(titles) ? titles[m] : "?";
}

int sort_keys_parse(const char *spec, enum sort_key *keys, int max, char *err, size_t errlen)
{
	int n = 0;
	const char *p = spec ? spec : "";

	if (errlen)
		err[0] = '\0';
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *tok = p;

		while (len && (*tok == ' ' || *tok == '\t'))
			tok++, len--;
		while (len && (tok[len - 1] == ' ' || tok[len - 1] == '\t'))
			len--;
		if (!len) {
			snprintf(err, errlen, "empty sort key in '%s' (known: " KNOWN_KEYS ")",
				 spec ? spec : "");
			return -1;
		}
		int k;
		for (k = 0; k < SORT_KEY_COUNT; k++)
			if (strlen(key_names[k]) == len && strncasecmp(tok, key_names[k], len) == 0)
				break;
		if (k == SORT_KEY_COUNT) {
			snprintf(err, errlen, "unknown sort key '%.*s' (known: " KNOWN_KEYS ")",
				 (int)len, tok);
			return -1;
		}
		bool dup = false;
		for (int i = 0; i < n; i++)
			dup |= keys[i] == (enum sort_key)k;
		if (!dup) {
			if (n >= max) {
				snprintf(err, errlen, "too many sort keys in '%s' (at most %d)", spec, max);
				return -1;
			}
			keys[n++] = (enum sort_key)k;
		}
		if (!end)
			return n;
		p = end + 1;
	}
}

/* --- hashing --------------------------------------------------------------------------------- */

/* The fields spread by odd multipliers and folded, then one finalizer: a table lookup per frame
 * of every sample, where four rounds of mixing were a third of profile_add. The state key is left
 * out: the few rows of one function in several states share a chain (same_key tells them apart),
 * and every other lookup does not pay for it. */
static inline uint64_t ptr_hash(const struct profile *p, const struct profile_row *k)
{
	uint64_t h = (uintptr_t)k->sym * 0x9e3779b97f4a7c15ULL;
	h ^= (uintptr_t)k->dso * 0xc2b2ae3d27d4eb4fULL;
	h ^= (uintptr_t)k->srcline * 0x27d4eb2f165667c5ULL;
	if (p->other_keys) {
		h ^= ((uintptr_t)k->comm ^ ((uint64_t)k->pid << 32 | k->tid)) * 0x165667b19e3779f9ULL;
		h ^= ((uintptr_t)k->cgroup ^ ((uintptr_t)k->container << 1)) * 0x9e3779b97f4a7c55ULL;
	}
	return hash_mix64(h);
}

/* The id hashes contents in the fixed enum order, so it does not depend on pointers nor on the
 * order the keys were given in. */
static uint64_t row_id(const struct profile *p, const struct profile_row *r)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (int k = 0; k < SORT_KEY_COUNT; k++) {
		if (!p->use[k])
			continue;
		h = hash_mix64(h ^ (uint64_t)(k + 1));
		switch ((enum sort_key)k) {
		case SORT_COMM: h = hash_str(h, r->comm); break;
		case SORT_PID: h = hash_mix64(h ^ r->pid); break;
		case SORT_TID: h = hash_mix64(h ^ r->tid); break;
		case SORT_DSO: h = hash_str(h, r->dso); break;
		case SORT_SYM: h = hash_str(h, r->sym); break;
		case SORT_SRCLINE: h = hash_str(h, r->srcline); break;
		case SORT_STATE: h = hash_mix64(h ^ r->state); break;
		case SORT_CGROUP: h = hash_str(h, r->cgroup); break;
		case SORT_CONTAINER: h = hash_str(h, r->container); break;
		case SORT_KEY_COUNT: break;
		}
	}
	return h ? h : 1;
}

/* Whether rows a and b have one key; the fields compared at once, without a branch each (the
 * candidates the table gives are nearly always the row looked for, so every field is read). */
static inline bool same_key(const struct profile *p, const struct profile_row *a,
			    const struct profile_row *b)
{
	uintptr_t d = ((uintptr_t)a->sym ^ (uintptr_t)b->sym) | ((uintptr_t)a->dso ^ (uintptr_t)b->dso) |
		      ((uintptr_t)a->srcline ^ (uintptr_t)b->srcline);
	if (d || !p->other_keys)
		return !d;
	return a->comm == b->comm && a->pid == b->pid && a->tid == b->tid && a->state == b->state &&
	       a->cgroup == b->cgroup && a->container == b->container;
}

/* --- the table ------------------------------------------------------------------------------- */

#define TABLE_MIN_SLOTS 1024

/* Empties the table into cap slots and puts the rows back (their indices moved, or their keys). */
static void table_rebuild(struct profile *p, size_t cap)
{
	if (!hashtab_reset(&p->table, cap, p->nrows))
		die("out of memory (the profile's table)");
	for (size_t i = 0; i < p->nrows; i++)
		hashtab_put(&p->table, p->aux[i].phash, (uint32_t)i);
}

/* Index of the row with key k, created (with zero counts) when new. */
static size_t row_get(struct profile *p, const struct profile_row *k)
{
	uint64_t h = ptr_hash(p, k);
	struct hashtab_iter it = hashtab_probe(&p->table, h);
	uint32_t v;
	while (hashtab_next(&p->table, &it, &v))
		if (same_key(p, &p->rows[v], k))
			return v;

	size_t idx = p->nrows;
	xgrow_huge((void **)&p->rows, &p->rows_cap, idx + 1, sizeof(*p->rows));
	xgrow_huge((void **)&p->aux, &p->aux_cap, idx + 1, sizeof(*p->aux));
	if (p->time) {
		xgrow_huge((void **)&p->time, &p->time_cap, idx + 1, sizeof(*p->time));
		p->time[idx] = (struct profile_time){ 0 };
	}
	p->rows[idx] = (struct profile_row){ .comm = k->comm, .pid = k->pid, .tid = k->tid,
					     .dso = k->dso, .sym = k->sym, .srcline = k->srcline,
					     .state = k->state, .cgroup = k->cgroup,
					     .container = k->container, .nspid = k->nspid,
					     .nstid = k->nstid };
	p->rows[idx].id = row_id(p, k);
	p->aux[idx].stamp = 0;
	p->aux[idx].votes = 0;
	p->rows[idx].main_pid = 0;
	p->rows[idx].main_comm = NULL;
	p->rows[idx].main_container = NULL;
	p->aux[idx].phash = h;
	p->nrows++;
	if (!hashtab_add(&p->table, &it, (uint32_t)idx))
		die("out of memory (the profile's table)");
	return idx;
}

/* A frame's row: the guess (a row index, maybe stale) when it holds the key, else the table's. */
static size_t row_guess_get(struct profile *p, const struct profile_row *k, uint32_t guess)
{
	if (guess < p->nrows && same_key(p, &p->rows[guess], k))
		return guess;
	return row_get(p, k);
}

/* --- the profile ----------------------------------------------------------------------------- */

struct profile *profile_new(const enum sort_key *keys, int nkeys)
{
	static const enum sort_key defaults[] = { SORT_DSO, SORT_SYM };
	struct profile *p = xcalloc(1, sizeof(*p));

	if (!keys || nkeys <= 0) {
		keys = defaults;
		nkeys = (int)ARRAY_SIZE(defaults);
	}
	for (int i = 0; i < nkeys; i++) {
		if ((unsigned)keys[i] >= SORT_KEY_COUNT || p->use[keys[i]])
			continue;
		p->use[keys[i]] = true;
		p->keys[p->nkeys++] = keys[i];
		p->other_keys |= keys[i] != SORT_DSO && keys[i] != SORT_SYM && keys[i] != SORT_SRCLINE;
	}
	hashtab_init(&p->table, TABLE_MIN_SLOTS, SIZE_MAX);
	p->layout = 1;
	return p;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	free(p->rows);
	free(p->aux);
	free(p->time);
	hashtab_free(&p->table);
	free(p);
}

/* One sample's vote for the row's main process (Boyer-Moore: a different pid cancels a vote, and
 * takes the seat when none are left). */
static void vote(struct profile_row *r, struct row_aux *a, const struct sample_ctx *s)
{
	if (a->votes && r->main_pid == s->pid) {
		a->votes++;
	} else if (a->votes) {
		a->votes--;
	} else {
		r->main_pid = s->pid;
		r->main_comm = s->comm;
		r->main_container = s->container;
		a->votes = 1;
	}
}

/* A sample's share of the totals; false when it has no frames (it makes no row: see profile_add). */
static bool count_sample(struct profile *p, const struct sample_ctx *s)
{
	bool runq = profile_state_is_runq(s->state);
	p->window_samples++;
	p->held_samples++;
	p->total_period += s->period;
	if (runq)
		p->runq_period += s->period;
	if (s->nframes <= 0 || !s->frames) {
		p->orphan_period += s->period;
		p->orphan_samples++;
		if (runq) {
			p->runq_orphan_period += s->period;
			p->runq_orphan_samples++;
		}
		return false;
	}
	return true;
}

/* The time figures, made for the rows there are at the first piece of an off-CPU block. */
static void time_start(struct profile *p)
{
	p->time_cap = p->rows_cap ? p->rows_cap : 1;
	p->time = xcalloc(p->time_cap, sizeof(*p->time));
}

/* The time figures of a piece of an off-CPU block as Self on row idx: the block's count, length,
 * and their run-queue part. */
static void count_self_time(struct profile *p, size_t idx, const struct sample_ctx *s)
{
	struct profile_time *t = &p->time[idx];
	t->blocks += s->block_begins;
	if (!profile_state_is_runq(s->state))
		return;
	t->runq.self_period += s->period;
	t->runq.samples++;
	t->runq.blocks += s->block_begins;
}

/* The same in Total, and the longest block with the row anywhere on the stack (what a function
 * that blocked has: an off-CPU stack's leaf is the scheduler). */
static void count_total_time(struct profile *p, size_t idx, const struct sample_ctx *s)
{
	struct profile_time *t = &p->time[idx];
	t->total_blocks += s->block_begins;
	if (s->block_ns > t->longest_ns)
		t->longest_ns = s->block_ns;
	if (!profile_state_is_runq(s->state)) {
		if (s->block_ns > t->runq.other_longest_ns)
			t->runq.other_longest_ns = s->block_ns;
		return;
	}
	t->runq.total_period += s->period;
	t->runq.total_blocks += s->block_begins;
	if (s->block_ns > t->runq.longest_ns)
		t->runq.longest_ns = s->block_ns;
}

/* The sample's Self on row idx: period, samples (and, timed, the time figures of an off-CPU
 * piece). timed is s->state != 0 read once by the caller: a uint8_t may alias the counts, so the
 * compiler would read it again after every store. */
static inline void count_self(struct profile *p, size_t idx, const struct sample_ctx *s, bool timed)
{
	p->rows[idx].self_period += s->period;
	p->rows[idx].samples++;
	if (timed)
		count_self_time(p, idx, s);
}

/* The sample's Total on row idx of its chain, once per sample (the epoch stamp). */
static inline void count_total(struct profile *p, size_t idx, const struct sample_ctx *s,
			       uint64_t epoch, bool timed)
{
	struct row_aux *a = &p->aux[idx];
	if (a->stamp == epoch)
		return;
	a->stamp = epoch;
	p->rows[idx].total_period += s->period;
	vote(&p->rows[idx], a, s);
	if (timed)
		count_total_time(p, idx, s);
}

/* profile_add; rows, when not NULL, gets the index of each row added to (nframes + 1 of them). */
static void add(struct profile *p, const struct sample_ctx *s, uint32_t *rows)
{
	bool timed = s->state != 0;
	if (!count_sample(p, s))
		return;
	if (timed && !p->time)
		time_start(p);

	uint64_t epoch = ++p->epoch;
	struct profile_row key = { 0 };
	if (p->use[SORT_COMM])
		key.comm = s->comm;
	if (p->use[SORT_PID])
		key.pid = s->pid;
	if (p->use[SORT_TID])
		key.tid = s->tid;
	if (p->use[SORT_STATE])
		key.state = s->state;
	if (p->use[SORT_CGROUP])
		key.cgroup = s->cgroup;
	if (p->use[SORT_CONTAINER])
		key.container = s->container;
	/* not identity: a pid has one number in its namespace, kept for the view */
	key.nspid = key.pid ? s->nspid : 0;
	key.nstid = key.tid ? s->nstid : 0;

	/* Self: the function that holds the sampled address (the leaf's first frame that is not an
	 * inline expansion), as perf's sym rows are, with the address's own source line (frame 0's). */
	int self = 0;
	while (self < s->nframes - 1 && s->frames[self].inlined)
		self++;
	struct profile_path *path = &p->paths[s->tid & (PROFILE_PATH_SLOTS - 1)];
	size_t self_idx = 0;  /* set at i -1, the first turn */
	for (int i = -1; i < s->nframes; i++) {
		const struct frame *f = &s->frames[i < 0 ? self : i];
		if (p->use[SORT_DSO])
			key.dso = f->dso;
		if (p->use[SORT_SYM])
			key.sym = f->sym;
		if (p->use[SORT_SRCLINE])
			key.srcline = i < 0 ? s->frames[0].srcline : f->srcline;

		int depth = s->nframes - 1 - i; /* from the root; the Self row (i -1) is not kept */
		bool kept = i >= 0 && depth < PROFILE_PATH_DEPTH;
		size_t idx;
		if (i == self && (!p->use[SORT_SRCLINE] || key.srcline == s->frames[0].srcline))
			idx = self_idx;  /* the Self row's key again: half the lookups of a flat profile */
		else if (kept && depth < path->n)
			idx = row_guess_get(p, &key, path->row[depth]);
		else
			idx = row_get(p, &key);
		if (i < 0)
			self_idx = idx;
		if (kept)
			path->row[depth] = (uint32_t)idx;
		if (rows)
			rows[i + 1] = (uint32_t)idx;
		if (i < 0)
			count_self(p, idx, s, timed);
		count_total(p, idx, s, epoch, timed);
	}
	if (s->nframes > 0)
		path->n = s->nframes < PROFILE_PATH_DEPTH ? s->nframes : PROFILE_PATH_DEPTH;
}

void profile_add(struct profile *p, const struct sample_ctx *s)
{
	add(p, s, NULL);
}

void profile_add_rows(struct profile *p, const struct sample_ctx *s, uint32_t *rows)
{
	add(p, s, rows);
}

/* Whether a sample belongs to other rows than the ones made for its chain (r: their Self row). */
static bool other_rows(const struct profile *p, const struct profile_row *r, const struct sample_ctx *s)
{
	return (p->use[SORT_STATE] && r->state != s->state) ||
	       (p->use[SORT_CGROUP] && r->cgroup != s->cgroup) ||
	       (p->use[SORT_CONTAINER] && r->container != s->container);
}

void profile_add_again(struct profile *p, const struct sample_ctx *s, const uint32_t *rows)
{
	/* A chain seen again in another state (S, then R: one stack, several ways to leave the CPU)
	 * or another cgroup belongs to other rows when those are keys: found the long way (the rows
	 * stay the caller's, right for what they were made with). */
	if (s->nframes > 0 && s->frames && other_rows(p, &p->rows[rows[0]], s)) {
		add(p, s, NULL);
		return;
	}
	bool timed = s->state != 0;
	if (!count_sample(p, s))
		return;
	if (timed && !p->time)
		time_start(p);
	uint64_t epoch = ++p->epoch;
	for (int i = 0; i <= s->nframes; i++) {
		if (i == 0)
			count_self(p, rows[i], s, timed);
		count_total(p, rows[i], s, epoch, timed);
	}
}

uint64_t profile_layout(const struct profile *p)
{
	return p->layout;
}

void profile_add_lost(struct profile *p, uint64_t lost)
{
	p->window_lost += lost;
}

/* Decays *all and its run-queue part *part apart (see the top): returns what *all lost. */
static uint64_t decay_split(uint64_t *all, uint64_t *part)
{
	uint64_t old = *all, p = decay_x78(*part);
	*all = decay_x78(old - *part) + p;
	*part = p;
	return old - *all;
}

/* Row i's decay; the totals lose what its Self loses. */
static void decay_row(struct profile *p, size_t i)
{
	struct profile_row *r = &p->rows[i];
	if (!p->time) {
		uint64_t self = decay_x78(r->self_period), samples = decay_x78(r->samples);
		p->total_period -= r->self_period - self;
		p->held_samples -= r->samples - samples;
		r->self_period = self;
		r->samples = samples;
		r->total_period = decay_x78(r->total_period);
		return;
	}
	struct profile_time *t = &p->time[i];
	uint64_t runq_self = t->runq.self_period;
	p->total_period -= decay_split(&r->self_period, &t->runq.self_period);
	p->runq_period -= runq_self - t->runq.self_period;
	p->held_samples -= decay_split(&r->samples, &t->runq.samples);
	decay_split(&r->total_period, &t->runq.total_period);
	decay_split(&t->blocks, &t->runq.blocks);
	decay_split(&t->total_blocks, &t->runq.total_blocks);
	t->longest_ns = t->runq.longest_ns = t->runq.other_longest_ns = 0;
}

void profile_end_window(struct profile *p, bool zero)
{
	p->layout++; /* rows go (zero, faded) and the kept ones move down */
	p->window_samples = 0;
	p->window_lost = 0;
	p->window_secs = 0;

	if (zero) {
		p->nrows = 0;
		p->total_period = p->held_samples = 0;
		p->orphan_period = p->orphan_samples = 0;
		p->runq_period = p->runq_orphan_period = p->runq_orphan_samples = 0;
		p->held_secs = 0;
		hashtab_clear(&p->table);
		return;
	}
	p->held_secs = p->held_secs * 7 / 8;

	/* The totals lose exactly what the rows lose, so they stay the sums of the rows and of the
	 * period held without a row. */
	for (size_t i = 0; i < p->nrows; i++)
		decay_row(p, i);
	uint64_t runq_op = p->runq_orphan_period;
	p->total_period -= decay_split(&p->orphan_period, &p->runq_orphan_period);
	p->runq_period -= runq_op - p->runq_orphan_period;
	p->held_samples -= decay_split(&p->orphan_samples, &p->runq_orphan_samples);
	uint64_t total = p->total_period;

	/* A faded row goes; what it still held of Self stays in the total, held without a row, so
	 * the others' shares do not jump up when it leaves. */
	size_t kept = 0;
	for (size_t i = 0; i < p->nrows; i++) {
		struct profile_row *r = &p->rows[i];
		if (decay_faded(r->total_period, total)) {
			p->orphan_period += r->self_period;
			p->orphan_samples += r->samples;
			if (p->time) {
				p->runq_orphan_period += p->time[i].runq.self_period;
				p->runq_orphan_samples += p->time[i].runq.samples;
			}
			continue;
		}
		if (kept != i) {
			p->rows[kept] = *r;
			p->aux[kept] = p->aux[i];
			if (p->time)
				p->time[kept] = p->time[i];
		}
		kept++;
	}

	if (kept != p->nrows) {
		p->nrows = kept;
		/* Shrink the table too after a burst of rows has decayed away, but never below the start. */
		size_t cap = hashtab_slots(&p->table);
		while (cap > TABLE_MIN_SLOTS && kept * 8 < cap)
			cap /= 2;
		table_rebuild(p, cap);
	}
}

void profile_move_names(struct profile *p, frame_rename_fn rename, void *ctx)
{
	p->layout++;
	for (size_t i = 0; i < p->nrows; i++) {
		struct profile_row *r = &p->rows[i];
		r->comm = rename(ctx, r->comm);
		r->dso = rename(ctx, r->dso);
		r->sym = rename(ctx, r->sym);
		r->srcline = rename(ctx, r->srcline);
		r->main_comm = rename(ctx, r->main_comm);
		r->cgroup = rename(ctx, r->cgroup);
		r->container = rename(ctx, r->container);
		r->main_container = rename(ctx, r->main_container);
		p->aux[i].phash = ptr_hash(p, r);  /* the table hashes pointers */
	}
	table_rebuild(p, hashtab_slots(&p->table));
}

int profile_nkeys(const struct profile *p)
{
	return p->nkeys;
}

const enum sort_key *profile_keys(const struct profile *p)
{
	return p->keys;
}

bool profile_has_key(const struct profile *p, enum sort_key k)
{
	return (unsigned)k < SORT_KEY_COUNT && p->use[k];
}

size_t profile_nrows(const struct profile *p)
{
	return p->nrows;
}

const struct profile_row *profile_rows(const struct profile *p)
{
	return p->rows;
}

const struct profile_time *profile_times(const struct profile *p)
{
	return p->time;
}

uint64_t profile_total_period(const struct profile *p)
{
	return p->total_period;
}

uint64_t profile_runq_period(const struct profile *p)
{
	return p->runq_period;
}

void profile_set_mode(struct profile *p, enum profile_mode mode)
{
	p->mode = mode;
}

enum profile_mode profile_mode(const struct profile *p)
{
	return p->mode;
}

void profile_add_window_secs(struct profile *p, double secs)
{
	if (secs > 0) {
		p->held_secs += secs;
		p->window_secs += secs;
	}
}

double profile_window_secs(const struct profile *p)
{
	return p->window_secs;
}

double profile_held_secs(const struct profile *p)
{
	return p->held_secs;
}

uint64_t profile_held_samples(const struct profile *p)
{
	return p->held_samples;
}

uint64_t profile_window_samples(const struct profile *p)
{
	return p->window_samples;
}

uint64_t profile_window_lost(const struct profile *p)
{
	return p->window_lost;
}
