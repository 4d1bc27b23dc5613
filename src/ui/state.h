/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * state: the view state, everything a frame depends on besides the snapshot, the header figures
 * and the size: which view is up (the table, its i page, the stack of drill-down views above it),
 * the cursor, the order, what is typed, the filter, the zoom, the replay's settings. Keys change it
 * (keys.c and the views' key tables), render.c draws from it, so a test drives keys and renders
 * frames with no terminal at all.
 */
#ifndef PERFTOP_STATE_H
#define PERFTOP_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snapshot.h"
#include "model/zoom.h"
#include "ui/source.h"

struct view;

#define VIEW_STACK_MAX 32

/* The annotate view (a): the document of a function comes from fetch (tui_source.annotate, the
 * session's), asked again on every snapshot; fetch NULL: the view says annotate is unavailable. */
struct an_doc;
typedef struct an_doc *(*view_annotate_fn)(void *ctx, const char *raw_sym, const char *dso);

/* The typing modes of the table's bottom line: / searches, \ filters, w names the export's file. */
enum keys_input { KEYS_INPUT_NONE, KEYS_INPUT_SEARCH, KEYS_INPUT_FILTER, KEYS_INPUT_EXPORT };
#define KEYS_TEXT_MAX 128

/* VIEW_TOP: the table and the views stacked on it; VIEW_INFO: the i page (the session's or the
 * recording's header lines), over them. */
enum view_kind { VIEW_TOP, VIEW_INFO };

struct view_state {
	enum view_kind view;
	size_t cursor;          /* index of the selected row in the displayed snapshot */
	uint64_t cursor_id;     /* its stable id, to find it again in the next snapshot */
	bool have_cursor_id;
	bool cursor_chosen;     /* the user moved the cursor: follow its row; until then stay on top */
	size_t top;             /* index of the first row shown */
	enum snap_col order;    /* the column the table is ordered by */
	bool paused;            /* keep collecting, stop replacing the displayed snapshot */
	bool zero;              /* zero the histogram at each refresh instead of decaying it */
	bool raw_names;         /* C++/Rust symbols shown raw (the m key; --no-demangle at start) */
	bool help;              /* the help overlay is shown */
	bool quit;
	bool color;             /* hot percentages in colour; false under NO_COLOR */
	double refresh_secs;    /* shown in the mode line */

	/* Replay: the source's controls and their ctx (NULL when live), and what the user chose.
	 * paused above is the replay's pause. */
	const struct tui_replay *replay;
	void *replay_ctx;
	int speed_step;         /* index into the speed steps, KEYS_SPEED_DEFAULT at start */
	double range_start;     /* seconds, TUI_RANGE_NONE when not set */
	double range_end;

	/* The i view: first line shown, and how many there are (set by the loop from the source). */
	size_t info_top;
	size_t info_count;

	/* The drill-down views above the table (ui/view.h); depth 0: the table is on top. */
	struct view *stack[VIEW_STACK_MAX];
	int depth;
	/* The source's annotate callback and its ctx (tui_source.annotate), NULL when it has none. */
	view_annotate_fn annotate;
	void *annotate_ctx;

	/* Find and filter: what is being typed, the last search (n / N), the filter in force. The
	 * filter is applied by the loop to the snapshot it holds (model/filter.h); the table's keys
	 * get the filtered one. */
	enum keys_input input;
	char input_text[KEYS_TEXT_MAX];
	char search[KEYS_TEXT_MAX];
	char filter[KEYS_TEXT_MAX];
	size_t search_from;     /* the cursor when / was pressed: Esc puts it back */
	/* w: the file the window is to be written to (KEYS_ACT_EXPORT), and what the writing said,
	 * shown on the bottom line until the next key. */
	char export_path[KEYS_TEXT_MAX];
	char message[KEYS_TEXT_MAX + 160];
	bool search_miss;       /* the text typed matches no row */

	bool invert;            /* I: the order reversed (ascending numbers, descending names) */
	/* r (time modes): the run-queue waits shown, hidden or alone. Applied by the loop to the
	 * snapshot it holds, before the filter (model/snapshot.h snapshot_runq). */
	enum runq_view runq;
	unsigned hidden_cols;   /* bit 1 << snap_col per column hidden in the F2 setup */
	bool icicle;            /* flame graphs drawn root on top (the v key), in every flame view */

	/* Zoom (t d K U): the levels the source applies to its samples; can_zoom when it does
	 * (tui_source.set_zoom), else the keys do nothing. */
	struct sample_zoom zoom;
	bool can_zoom;

	/* Several events (-e a,b; a recording of several): the one shown, of nevents; Tab and
	 * Shift-Tab cycle (tui_source.switch_event). nevents <= 1: the keys do nothing. */
	int event;
	int nevents;
};

#endif
