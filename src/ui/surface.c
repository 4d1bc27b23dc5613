/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * surface: a grid of UTF-8 cells with roles. Everything is clipped here, once, so the renderer can
 * place text by arithmetic without checking each write against the size (tiny terminals included).
 */
#include "ui/surface.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

struct surface *surface_new(int w, int h)
{
	struct surface *s = xcalloc(1, sizeof(*s));
	surface_resize(s, w, h);
	return s;
}

void surface_free(struct surface *s)
{
	if (!s)
		return;
	free(s->cells);
	free(s);
}

void surface_resize(struct surface *s, int w, int h)
{
	if (w < 0)
		w = 0;
	if (h < 0)
		h = 0;
	free(s->cells);
	s->w = w;
	s->h = h;
	s->cells = xcalloc((size_t)w * (size_t)h + 1, sizeof(*s->cells));
	surface_clear(s);
}

void surface_clear(struct surface *s)
{
	size_t n = (size_t)s->w * (size_t)s->h;
	for (size_t i = 0; i < n; i++) {
		memcpy(s->cells[i].ch, " ", 2);
		s->cells[i].role = ROLE_NORMAL;
	}
}

struct surface_cell *surface_cell(struct surface *s, int x, int y)
{
	if (x < 0 || y < 0 || x >= s->w || y >= s->h)
		return NULL;
	return &s->cells[(size_t)y * (size_t)s->w + (size_t)x];
}

const struct surface_cell *surface_cell_const(const struct surface *s, int x, int y)
{
	return surface_cell((struct surface *)s, x, y);
}

/* Length of the valid UTF-8 sequence at p (1-4), or 0 when the byte does not start one. Overlong
 * forms and surrogates are rejected so that what reaches the terminal is always well formed. */
static int utf8_len(const unsigned char *p)
{
	unsigned c = p[0];
	int n;
	unsigned min;
	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0)
		n = 2, min = 0x80, c &= 0x1f;
	else if ((c & 0xf0) == 0xe0)
		n = 3, min = 0x800, c &= 0x0f;
	else if ((c & 0xf8) == 0xf0)
		n = 4, min = 0x10000, c &= 0x07;
	else
		return 0;
	for (int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

int surface_text_width(const char *text)
{
	const unsigned char *p = (const unsigned char *)text;
	int w = 0;
	while (*p) {
		int n = utf8_len(p);
		p += n ? n : 1;
		w++;
	}
	return w;
}

static void cell_set(struct surface_cell *c, const unsigned char *p, int n, enum surface_role role)
{
	if (n == 0) {
		memcpy(c->ch, "?", 2);
	} else if (n == 1 && (p[0] < 0x20 || p[0] == 0x7f)) {
		memcpy(c->ch, " ", 2);
	} else {
		memcpy(c->ch, p, (size_t)n);
		c->ch[n] = '\0';
	}
	c->role = (unsigned char)role;
}

int surface_put_text(struct surface *s, int x, int y, int maxw, const char *text,
		     enum surface_role role)
{
	const unsigned char *p = (const unsigned char *)text;
	int col = 0;
	if (maxw < 0)
		maxw = s->w - x;
	while (*p) {
		int n = utf8_len(p);
		if (col < maxw) {
			struct surface_cell *c = surface_cell(s, x + col, y);
			if (c)
				cell_set(c, p, n, role);
		}
		p += n ? n : 1;
		col++;
	}
	return col;
}

int surface_put_text_cut(struct surface *s, int x, int y, int maxw, const char *text,
			 enum surface_role role)
{
	if (maxw < 0)
		maxw = s->w - x;
	int w = surface_put_text(s, x, y, maxw, text, role);
	if (w > maxw && maxw > 0)
		surface_put_text(s, x + maxw - 1, y, 1, "…", role);
	return w;
}

void surface_set_role(struct surface *s, int x, int y, int n, enum surface_role role)
{
	for (int i = 0; i < n; i++) {
		struct surface_cell *c = surface_cell(s, x + i, y);
		if (c)
			c->role = (unsigned char)role;
	}
}

void surface_fill(struct surface *s, int x, int y, int n, const char *ch, enum surface_role role)
{
	const unsigned char *p = (const unsigned char *)ch;
	int len = utf8_len(p);
	for (int i = 0; i < n; i++) {
		struct surface_cell *c = surface_cell(s, x + i, y);
		if (c)
			cell_set(c, p, len, role);
	}
}

char *surface_to_text(const struct surface *s)
{
	size_t cap = (size_t)s->h * ((size_t)s->w * 4 + 1) + 1, len = 0;
	char *out = xmalloc(cap);
	for (int y = 0; y < s->h; y++) {
		size_t line_end = len;
		for (int x = 0; x < s->w; x++) {
			const char *ch = s->cells[(size_t)y * (size_t)s->w + (size_t)x].ch;
			size_t n = strlen(ch);
			memcpy(out + len, ch, n);
			len += n;
			if (strcmp(ch, " ") != 0)
				line_end = len;
		}
		len = line_end;
		out[len++] = '\n';
	}
	out[len] = '\0';
	return out;
}

bool surface_equal(const struct surface *a, const struct surface *b)
{
	if (a->w != b->w || a->h != b->h)
		return false;
	size_t n = (size_t)a->w * (size_t)a->h;
	for (size_t i = 0; i < n; i++)
		if (a->cells[i].role != b->cells[i].role || strcmp(a->cells[i].ch, b->cells[i].ch) != 0)
			return false;
	return true;
}

void surface_copy(struct surface *dst, const struct surface *src)
{
	if (dst->w != src->w || dst->h != src->h)
		surface_resize(dst, src->w, src->h);
	memcpy(dst->cells, src->cells, (size_t)src->w * (size_t)src->h * sizeof(*src->cells));
}
