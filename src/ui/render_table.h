/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * render_table: the table's columns, their layout and the rows on screen, and the drawing of them
 * (render.c draws the rest of the frame around it). The table's keys and the F2 setup read the
 * columns from here too, so that what the keys move among is what is drawn.
 */
#ifndef PERFTOP_RENDER_TABLE_H
#define PERFTOP_RENDER_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/snapshot.h"
#include "ui/state.h"
#include "ui/surface.h"

#define RENDER_LEFT_MARGIN 1 /* the blank column at the left of every line */

/* The table's columns for this snapshot, left to right: Self%, Total%, (Δ), Samples (in the time
 * modes Time, Blocks/s, Longest instead), then the sort keys' columns (Command, PID, TID, State,
 * Symbol, Shared Object, Source:Line) in that order. Returns the count (at most COL_COUNT). The
 * order keys (< and >) move among these. */
int render_columns(const struct snapshot *snap, enum snap_col *cols);

/* The columns render_columns gives minus those hidden (bits 1 << snap_col of hidden; the F2
 * setup), what the table draws and the order keys move among. Symbol is never hidden. */
int render_visible_columns(const struct snapshot *snap, unsigned hidden, enum snap_col *cols);

/* A column's title ("Self%", "Shared Object"). */
const char *render_col_title(enum snap_col c);

/* The column drawn at x on a frame width columns wide whose table shows `rows` lines (columns
 * are sized by the rows on screen), or COL_COUNT when none (for the mouse). */
enum snap_col render_column_at(const struct snapshot *snap, const struct view_state *v, int width,
			       int rows, int x);

/* The first row to show so that the cursor is visible and no rows are wasted at the bottom. */
size_t render_scroll_top(const struct view_state *v, size_t nrows, int visible_rows);

/* The colour role of a percentage (hot levels like perf's: >= 5% high, >= 0.5% mid). */
enum surface_role render_pct_role(double pct, bool color);

/* The column titles on line y, then `rows` rows of snap from the scroll position. */
void render_table(struct surface *s, int y, int rows, const struct snapshot *snap,
		  const struct view_state *v);

#endif
