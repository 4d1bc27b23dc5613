// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jscan: the bounded JSON walk of jscan.h: one pass, no recursion, no allocation; what it keeps of
 * a string is cut at its buffer, the rest of it read past.
 */
#include "container/jscan.h"

#include <string.h>

struct walk {
	const char *b;
	size_t n, pos;
	bool want_key; /* the next string at this level is a member's key */
};

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static void put(char *dst, size_t cap, size_t *o, bool *cut, unsigned c)
{
	if (*o + 1 >= cap) {
		*cut = true;
		return;
	}
	dst[(*o)++] = (char)(c < 0x20 || c == 0x7f ? '?' : c);
}

/* \uXXXX at w->pos (after the 'u'), as UTF-8 (a surrogate half as '?'). */
static void unicode(struct walk *w, char *dst, size_t cap, size_t *o, bool *cut)
{
	unsigned cp = 0;
	for (int i = 0; i < 4; i++) {
		int v = w->pos < w->n ? hexval(w->b[w->pos]) : -1;
		if (v < 0) {
			put(dst, cap, o, cut, '?');
			return;
		}
		cp = cp << 4 | (unsigned)v;
		w->pos++;
	}
	if (cp < 0x80) {
		put(dst, cap, o, cut, cp);
	} else if (cp >= 0xd800 && cp < 0xe000) {
		put(dst, cap, o, cut, '?');
	} else if (*o + (cp < 0x800 ? 2 : 3) + 1 > cap) {
		*cut = true; /* never half a character */
	} else if (cp < 0x800) {
		put(dst, cap, o, cut, 0xc0 | cp >> 6);
		put(dst, cap, o, cut, 0x80 | (cp & 0x3f));
	} else {
		put(dst, cap, o, cut, 0xe0 | cp >> 12);
		put(dst, cap, o, cut, 0x80 | (cp >> 6 & 0x3f));
		put(dst, cap, o, cut, 0x80 | (cp & 0x3f));
	}
}

/* The string whose opening quote was just read, into dst (cut at cap - 1); true when it was cut. */
static bool string(struct walk *w, char *dst, size_t cap)
{
	size_t o = 0;
	bool cut = false;
	while (w->pos < w->n) {
		char c = w->b[w->pos++];
		if (c == '"')
			break;
		if (c != '\\') {
			put(dst, cap, &o, &cut, (unsigned char)c);
			continue;
		}
		if (w->pos >= w->n)
			break;
		char e = w->b[w->pos++];
		switch (e) {
		case 'u':
			unicode(w, dst, cap, &o, &cut);
			break;
		case 'n': case 't': case 'r': case 'b': case 'f':
			put(dst, cap, &o, &cut, '?');
			break;
		default: /* '"', '\\', '/' and what no writer should write */
			put(dst, cap, &o, &cut, (unsigned char)e);
		}
	}
	dst[o] = '\0';
	return cut;
}

static bool level_kept(const struct jscan *s)
{
	return s->depth >= 1 && s->depth <= JSCAN_KEEP;
}

/* A string at the walk's position: a key, or a value reported to fn. True: stop. */
static bool on_string(struct walk *w, struct jscan *s, jscan_fn fn, void *arg)
{
	char skip[8];
	if (!level_kept(s)) {
		string(w, skip, sizeof(skip));
		w->want_key = false;
		return false;
	}
	size_t d = s->depth - 1;
	if (w->want_key && !s->array[d]) {
		if (string(w, s->key[d], JSCAN_KEY))
			strcpy(s->key[d], "\x01"); /* cut: it is no key we look for */
		w->want_key = false;
		return false;
	}
	string(w, s->val, JSCAN_VAL);
	return fn(s, JSCAN_STRING, arg);
}

bool jscan_walk(const char *buf, size_t len, jscan_fn fn, void *arg)
{
	struct walk w = { .b = buf, .n = len };
	struct jscan s;
	memset(&s, 0, sizeof(s));
	while (w.pos < w.n) {
		char c = w.b[w.pos++];
		switch (c) {
		case '{': case '[':
			s.depth++;
			if (level_kept(&s)) {
				s.array[s.depth - 1] = c == '[';
				s.index[s.depth - 1] = 0;
				s.key[s.depth - 1][0] = '\0';
			}
			w.want_key = c == '{';
			break;
		case '}': case ']':
			if (s.depth == 0)
				break;
			if (c == '}' && level_kept(&s) && !s.array[s.depth - 1] &&
			    fn(&s, JSCAN_OBJECT_END, arg))
				return true;
			s.depth--;
			w.want_key = false;
			break;
		case ',':
			if (level_kept(&s) && s.array[s.depth - 1]) {
				s.index[s.depth - 1]++;
			} else if (level_kept(&s)) {
				s.key[s.depth - 1][0] = '\0';
				w.want_key = true;
			} else {
				w.want_key = true; /* a level not kept: its strings are not looked at */
			}
			break;
		case '"':
			if (on_string(&w, &s, fn, arg))
				return true;
			break;
		default: /* ':', blanks, numbers, true, false, null: nothing to keep */
			break;
		}
	}
	return false;
}

bool jscan_key_is(const struct jscan *s, size_t d, const char *key)
{
	return d >= 1 && d <= s->depth && d <= JSCAN_KEEP && !s->array[d - 1] &&
	       strcmp(s->key[d - 1], key) == 0;
}
