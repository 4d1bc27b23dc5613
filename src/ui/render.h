/* SPDX-License-Identifier: GPL-2.0-or-later */
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
#include "ui/render_table.h"
#include "ui/source.h"
#include "ui/state.h"
#include "ui/surface.h"

/* Draws the whole frame into s (which it clears first). snap and h may be NULL (nothing yet). */
void render_frame(struct surface *s, const struct snapshot *snap, const struct view_header *h,
		  const struct view_state *v);

/* How many table rows fit in a frame of this height with this header (for paging and scroll). */
int render_table_rows(int height, const struct view_header *h);

/* How many rows the body of the current view has (table rows, or lines of the i view): what
 * keys_handle pages by. */
int render_body_rows(int height, const struct view_header *h, const struct view_state *v);

/* The line of the table's column titles in a frame with this header (rows follow it). */
int render_table_y(const struct view_header *h);

#endif
