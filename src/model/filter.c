/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter: substring alternatives over a row's shown names. Queries are short and typed by a person,
 * so a plain case-insensitive scan per alternative is fast enough for a 10,000-row table at every
 * key press; no pattern compilation to keep in sync with the text being typed.
 */
#include "model/filter.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* Whether hay contains the n bytes of needle, ignoring ASCII case. */
static bool contains(const char *hay, const char *needle, size_t n)
{
	if (!hay)
		return false;
	if (n == 0)
		return true;
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < n && hay[i] &&
		       tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
			i++;
		if (i == n)
			return true;
	}
	return false;
}

bool filter_row_matches(const struct snap_row *r, const char *query)
{
	/* A row without the container key matches by the container of the process with most of its
	 * samples, as the t key zooms into that process: "\ web" keeps web's functions. */
	const char *names[5] = { r->sym, r->dso, r->comm, r->container ? r->container : r->main_container,
				 r->cgroup };
	return filter_names_match(query, names, 5);
}

bool filter_names_match(const char *query, const char *const *names, size_t nnames)
{
	if (!query || !*query)
		return true;
	const char *p = query;
	bool any = false;
	for (;;) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);
		/* An empty alternative ("leaf|" while typing) matches nothing rather than everything,
		 * so the table does not flash back to full between keys. */
		if (n) {
			any = true;
			for (size_t i = 0; i < nnames; i++)
				if (contains(names[i], p, n))
					return true;
		}
		if (!bar)
			return !any; /* only empty alternatives ("|"): as if no filter */
		p = bar + 1;
	}
}

struct snapshot *snapshot_filter(const struct snapshot *full, const char *query)
{
	struct snapshot *s = xcalloc(1, sizeof(*s));
	*s = *full;
	s->rows = xmalloc((full->nrows ? full->nrows : 1) * sizeof(*s->rows));
	s->nrows = 0;
	for (size_t i = 0; i < full->nrows; i++)
		if (filter_row_matches(&full->rows[i], query))
			s->rows[s->nrows++] = full->rows[i];
	s->tree_borrowed = true;
	s->times = NULL;            /* the rows' time figures stay the original's, like the tree */
	s->names_hold = NULL;       /* the original holds the names; it outlives its copies */
	s->names_release = NULL;
	return s;
}
