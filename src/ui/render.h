/*
 * render: a frame is a function of the snapshot, the header figures, the view state and the size,
 * drawn into a surface. Nothing here touches the terminal or changes the state, so frames are
 * tested as text (golden screens).
 *
 * Layout, top to bottom: the summary line, the mode line (in a replay: position, speed, range
 * first), in a replay the sparkline and its marks, notice lines (target exited, a warning), the
 * view's body (for VIEW_TOP: column titles and rows), and the footer with key hints. The help
 * overlay is drawn last, over the middle. The i view (VIEW_INFO) is a full-screen list instead:
 * a title, the header lines, a footer.
 */
#ifndef PERFTOP_RENDER_H
#define PERFTOP_RENDER_H

#include "model/snapshot.h"
#include "ui/keys.h"
#include "ui/surface.h"
#include "ui/tui.h"

/* Draws the whole frame into s (which it clears first). snap and h may be NULL (nothing yet). */
void render_frame(struct surface *s, const struct snapshot *snap, const struct view_header *h,
		  const struct view_state *v);

/* How many table rows fit in a frame of this height with this header (for paging and scroll). */
int render_table_rows(int height, const struct view_header *h);

/* How many rows the body of the current view has (table rows, or lines of the i view): what
 * keys_handle pages by. */
int render_body_rows(int height, const struct view_header *h, const struct view_state *v);

/* The table's columns for this snapshot, left to right: Self%, Total%, Samples, then the sort keys'
 * columns (Command, PID, TID, Symbol, Shared Object, Source:Line) in that order. Returns the count
 * (at most COL_COUNT). The order keys (< and >) move among these. */
int render_columns(const struct snapshot *snap, enum snap_col *cols);

/* The columns render_columns gives minus those hidden (bits 1 << snap_col of hidden; the F2
 * setup), what the table draws and the order keys move among. Symbol is never hidden. */
int render_visible_columns(const struct snapshot *snap, unsigned hidden, enum snap_col *cols);

/* The line of the table's column titles in a frame with this header (rows follow it). */
int render_table_y(const struct view_header *h);

/* The column drawn at x on a frame width columns wide whose table shows `rows` lines (columns
 * are sized by the rows on screen), or COL_COUNT when none (for the mouse). */
enum snap_col render_column_at(const struct snapshot *snap, const struct view_state *v, int width,
			       int rows, int x);

/* The colour role of a percentage (hot levels like perf's: >= 5% high, >= 0.5% mid). */
enum surface_role render_pct_role(double pct, bool color);

#endif
