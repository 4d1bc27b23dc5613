/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * keytab: finding a key's binding in a table, a table's help lines and its function-key bar.
 * Tables are a few dozen entries and a key is looked up once per key press, so a linear scan in
 * the table's order is all it takes (and that order is the help's).
 */
#include "ui/keytab.h"

#include <stdio.h>
#include <string.h>

long keys_step(long arg, long page, long all)
{
	long n = arg < 0 ? -arg : arg, sign = arg < 0 ? -1 : 1;
	if (n == KEYS_PAGE)
		return sign * page;
	if (n == KEYS_ALL)
		return sign * all;
	return arg;
}

static bool for_session(const struct keys_binding *b, bool replay)
{
	return b->when == KEYS_ANY || (b->when == KEYS_REPLAY) == replay;
}

static bool has_key(const struct keys_binding *b, int key)
{
	for (int i = 0; i < KEYS_BIND_MAX && b->key[i]; i++)
		if (b->key[i] == key)
			return true;
	return false;
}

unsigned keys_table_run(const struct keys_table *t, struct keys_call *c, bool replay,
			unsigned need, bool *handled)
{
	*handled = false;
	for (size_t i = 0; t && i < t->n; i++) {
		const struct keys_binding *b = &t->b[i];
		if (!b->run || (b->flags & need) != need || !for_session(b, replay) ||
		    !has_key(b, c->key))
			continue;
		c->arg = b->arg;
		unsigned act = b->run(c);
		if (act & KEYS_ACT_PASS)
			return 0;
		*handled = true;
		return act;
	}
	return 0;
}

size_t keys_table_help(const struct keys_table *t, bool replay, unsigned where,
		       const struct keys_binding **out, size_t n, size_t max)
{
	for (size_t i = 0; t && i < t->n && n < max; i++) {
		const struct keys_binding *b = &t->b[i];
		unsigned places = b->flags & (KEYS_IN_TABLE | KEYS_IN_VIEW);
		if ((b->flags & KEYS_SEVERAL) && !(where & KEYS_SEVERAL))
			continue;
		if ((b->flags & KEYS_TIME) && !(where & KEYS_TIME))
			continue;
		if (b->help && for_session(b, replay) && (!places || (places & where)))
			out[n++] = b;
	}
	return n;
}

/* The number of the F key among a binding's keys, 0 for none. */
static int fkey(const struct keys_binding *b, int *code)
{
	static const int codes[] = { 0, KEYS_F1, KEYS_F2, KEYS_F3, KEYS_F4, KEYS_F5, KEYS_F6,
				     0, 0, 0, KEYS_F10 };
	for (int i = 0; i < KEYS_BIND_MAX && b->key[i]; i++)
		for (int f = 1; f < (int)(sizeof(codes) / sizeof(codes[0])); f++)
			if (codes[f] && b->key[i] == codes[f]) {
				*code = codes[f];
				return f;
			}
	return 0;
}

size_t keys_table_bar(const struct keys_table *const *t, size_t nt, struct keys_bar_item *out,
		      size_t max)
{
	size_t n = 0;
	int num[KEYS_BAR_MAX];
	for (size_t k = 0; k < nt; k++)
		for (size_t i = 0; t[k] && i < t[k]->n && n < max && n < KEYS_BAR_MAX; i++) {
			const struct keys_binding *b = &t[k]->b[i];
			int code, f = b->bar ? fkey(b, &code) : 0;
			if (!f)
				continue;
			/* In F key order, as on a keyboard: insertion into the few there are. */
			size_t at = n;
			while (at > 0 && num[at - 1] > f) {
				num[at] = num[at - 1];
				out[at] = out[at - 1];
				at--;
			}
			num[at] = f;
			out[at] = (struct keys_bar_item){ .label = b->bar, .code = code };
			snprintf(out[at].key, sizeof(out[at].key), "F%d", f);
			n++;
		}
	return n;
}

int keys_bar_item_at(const struct keys_bar_item *items, size_t n, int x)
{
	int at = 0;
	for (size_t i = 0; i < n; i++) {
		int w = (int)strlen(items[i].key) + KEYS_BAR_LABEL_WIDTH;
		if (x >= at && x < at + w)
			return items[i].code;
		at += w;
	}
	return KEYS_NONE;
}
