/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * surface: the frame the views draw into, a W x H grid of cells, each one UTF-8 character and a
 * role (what the cell is, not how it looks). The renderer fills it without knowing about the
 * terminal; term.c maps roles to colours or attributes and blits it; tests dump it as text and
 * compare it with an expected screen. Every column is one character: names are mostly ASCII, and a
 * wide character would only misalign a row, never write outside the grid.
 */
#ifndef PERFTOP_SURFACE_H
#define PERFTOP_SURFACE_H

#include <stdbool.h>
#include <stddef.h>

enum surface_role {
	ROLE_NORMAL,
	ROLE_HEADER,        /* the summary lines at the top */
	ROLE_COLHDR,        /* the table's column titles */
	ROLE_COLHDR_SORTED, /* the title of the column the table is ordered by */
	ROLE_SELECTED,      /* the cursor row */
	ROLE_HOT_HIGH,      /* a percentage >= 5% */
	ROLE_HOT_MID,       /* a percentage >= 0.5% */
	ROLE_KERNEL,        /* a kernel symbol / [kernel.kallsyms] */
	ROLE_STATUS,        /* the footer with key hints */
	ROLE_NOTICE,        /* target exited, warnings, PAUSED */
	ROLE_DIM,           /* secondary text: "no samples yet", help borders */
	ROLE_SPARK,         /* the replay's samples-per-second sparkline */
	ROLE_SPARK_RANGE,   /* sparkline cells inside the time range */
	ROLE_SPARK_POS,     /* the sparkline cell of the current position */
	ROLE_FLAME_1,       /* flame graph frames of user code, four colours picked by dso */
	ROLE_FLAME_2,
	ROLE_FLAME_3,
	ROLE_FLAME_4,
	ROLE_FLAME_KERNEL,  /* flame graph frames of the kernel */
	ROLE_COUNT
};

struct surface_cell {
	char ch[5];         /* one UTF-8 character, NUL-terminated; " " when blank */
	unsigned char role; /* enum surface_role */
};

struct surface {
	int w, h;
	struct surface_cell *cells; /* h rows of w cells */
};

/* A blank surface; w and h below 0 are taken as 0. */
struct surface *surface_new(int w, int h);
void surface_free(struct surface *s);
/* Changes the size and blanks every cell. */
void surface_resize(struct surface *s, int w, int h);
void surface_clear(struct surface *s);

/* The cell at (x, y), or NULL outside the grid. */
struct surface_cell *surface_cell(struct surface *s, int x, int y);
const struct surface_cell *surface_cell_const(const struct surface *s, int x, int y);

/* Writes text at (x, y) with role, at most maxw columns (maxw < 0: to the right edge) and never
 * outside the grid. Invalid UTF-8 bytes become '?', control characters ' '. Returns the columns
 * the whole text takes (written or not), so a caller can tell it was cut. */
int surface_put_text(struct surface *s, int x, int y, int maxw, const char *text,
		     enum surface_role role);
/* Like surface_put_text, but when text is longer than maxw it ends with "…" so the cut shows. */
int surface_put_text_cut(struct surface *s, int x, int y, int maxw, const char *text,
			 enum surface_role role);
/* Sets the role of n cells from (x, y), keeping their characters (clipped). */
void surface_set_role(struct surface *s, int x, int y, int n, enum surface_role role);
/* Fills n cells from (x, y) with one character and role (clipped). */
void surface_fill(struct surface *s, int x, int y, int n, const char *ch, enum surface_role role);

/* Columns text takes (code points; invalid bytes count one each). */
int surface_text_width(const char *text);

/* The grid as text: one line per row, trailing spaces trimmed, each line ending in '\n'. The caller
 * frees it. */
char *surface_to_text(const struct surface *s);
/* True when both have the same size and the same cells (so the terminal need not be redrawn). */
bool surface_equal(const struct surface *a, const struct surface *b);
/* Copies src into dst (resizing dst). */
void surface_copy(struct surface *dst, const struct surface *src);

#endif
