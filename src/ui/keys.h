/*
 * keys: what a key does to the view, without a terminal. term.c turns the terminal's key codes
 * into the keys_code values below; keys_handle changes the view state and says what the loop must
 * do about it (redraw, re-sort the snapshot it holds, switch decay/zero, quit), like htop's actions.
 * The view state is everything the frame depends on besides the snapshot, the header figures and
 * the size, so a test can drive keys and render frames with no terminal at all.
 *
 * Views: VIEW_TOP is the table, VIEW_INFO the recording's header (key i). The drill-down views
 * (Enter: callers/callees, f: flame graph, and those to come) are a stack of struct view above the
 * table (ui/view.h): the top one gets the keys first, each in its own file with its own key
 * function, render function and help list.
 *
 * Replay keys call the source's tui_replay setters directly (v->replay, NULL when live), so a test
 * drives them with a fake replay that records the calls.
 */
#ifndef PERFTOP_KEYS_H
#define PERFTOP_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snapshot.h"
#include "model/zoom.h"
#include "ui/tui.h"
#include "ui/view.h"

/* Key codes: printable ASCII and control characters are themselves; the rest are above 0xff. */
enum keys_code {
	KEYS_NONE = -1,
	KEYS_CTRL_L = 12,
	KEYS_ESC = 27,
	KEYS_UP = 0x110,
	KEYS_DOWN,
	KEYS_LEFT,
	KEYS_RIGHT,
	KEYS_PGUP,
	KEYS_PGDN,
	KEYS_HOME,
	KEYS_END,
	KEYS_ENTER,
	KEYS_F1,
	KEYS_F6,
	KEYS_RESIZE,   /* the terminal changed size */
	KEYS_BACKSPACE,
	KEYS_F2,
	KEYS_F3,
	KEYS_F4,
	KEYS_F5,
	KEYS_F10,
	KEYS_MOUSE,    /* term_getkey: a mouse event, read it with term_mouse */
};

/* A mouse event as term.c reports it (cells from the top-left, 0-based), so that keys.c never sees
 * ncurses' MEVENT. */
enum keys_mouse_kind { KEYS_MOUSE_CLICK, KEYS_MOUSE_DOUBLE, KEYS_MOUSE_WHEEL_UP,
		       KEYS_MOUSE_WHEEL_DOWN };
struct keys_mouse {
	enum keys_mouse_kind kind;
	int x, y;
};

/* Where the table is on screen, for the mouse: the line of its column titles, how many rows fit
 * under it, the width, and the line of the function-key bar (render_table_y, render_table_rows). */
struct keys_geom {
	int title_y, rows, width, bar_y;
};

/* The typing modes of the table's bottom line: / searches, \ filters. */
enum keys_input { KEYS_INPUT_NONE, KEYS_INPUT_SEARCH, KEYS_INPUT_FILTER };
#define KEYS_TEXT_MAX 128

/* The function-key bar along the bottom (htop's): key name, label, the key it sends when clicked. */
struct keys_bar_item {
	const char *key, *label;
	int code;
};
#define KEYS_BAR_LABEL_WIDTH 6 /* labels are padded to this, as htop does, so the keys line up */
const struct keys_bar_item *keys_bar(size_t *n);
/* The key of the bar item at column x, or KEYS_NONE. */
int keys_bar_at(int x);

enum view_kind { VIEW_TOP, VIEW_INFO };

/* The replay speeds + and - step through; the last is TUI_SPEED_MAX. */
#define KEYS_SPEED_STEPS 8
#define KEYS_SPEED_DEFAULT 2 /* 1x */
#define KEYS_SEEK_SECS 10.0

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
	bool search_miss;       /* the text typed matches no row */

	bool invert;            /* I: the order reversed (ascending numbers, descending names) */
	unsigned hidden_cols;   /* bit 1 << snap_col per column hidden in the F2 setup */

	/* Zoom (t d K U): the levels the source applies to its samples; can_zoom when it does
	 * (tui_source.set_zoom), else the keys do nothing. */
	struct sample_zoom zoom;
	bool can_zoom;
};

/* What the loop must do after a key (bit flags). */
enum keys_action {
	KEYS_ACT_REDRAW = 1 << 0, /* the frame changed */
	KEYS_ACT_RESORT = 1 << 1, /* order changed: re-sort the held snapshot, later refreshes use it */
	KEYS_ACT_ZERO = 1 << 2,   /* zero changed: pass it to the next refresh */
	KEYS_ACT_PAUSE = 1 << 3,  /* paused changed; on resume, refresh at once */
	KEYS_ACT_QUIT = 1 << 4,
	KEYS_ACT_CLEAR = 1 << 5,  /* repaint the whole terminal (Ctrl-L, resize) */
	KEYS_ACT_REFRESH = 1 << 6, /* replay seek or range: ask for a snapshot now, even paused */
	KEYS_ACT_NAMES = 1 << 7,   /* raw_names changed: rename the held snapshot's symbols */
	KEYS_ACT_FILTER = 1 << 8,  /* filter changed: filter the held snapshot again */
	KEYS_ACT_ZOOM = 1 << 9,    /* zoom changed: hand it to the source, then a snapshot now */
};

/* Defaults: top view, ordered by Self, decay, colour unless NO_COLOR is set and not empty. */
void keys_state_init(struct view_state *v);
/* Frees the views on the stack. */
void keys_state_done(struct view_state *v);

/* Applies one key. s is the displayed snapshot (may be NULL), visible_rows the rows of the current
 * view that fit (render_body_rows). The top drill-down view gets the key first.
 * Returns keys_action flags (0: nothing to do). */
unsigned keys_handle(struct view_state *v, int key, const struct snapshot *s, int visible_rows);

/* A mouse event on a frame with this geometry (keys_geom): click selects a row, double-click opens
 * its function view, the wheel moves the cursor, a click on a column title orders by it (again:
 * inverts), a click on the key bar presses that key. Returns keys_action flags. */
unsigned keys_mouse(struct view_state *v, const struct keys_mouse *m, const struct snapshot *s,
		    const struct keys_geom *g);

/* After a new or re-sorted snapshot: puts the cursor back on the row with the same id, or keeps
 * its index (clamped) when that row is gone, and keeps it within the scrolled window; the top
 * drill-down view rebuilds from s. */
void keys_follow(struct view_state *v, const struct snapshot *s, int visible_rows);

/* The first row to show so that the cursor is visible and no rows are wasted at the bottom. */
size_t keys_scroll_top(const struct view_state *v, size_t nrows, int visible_rows);

/* The speed of a step (TUI_SPEED_MAX for the last) and its label ("0.25x", "1x", "max"). */
double keys_speed(int step);
const char *keys_speed_label(int step);

/* The key list for the help overlay, in the order shown. */
struct keys_help {
	const char *keys;
	const char *what;
	enum { KEYS_HELP_ALL, KEYS_HELP_LIVE, KEYS_HELP_REPLAY } when; /* the sessions it applies to */
};
const struct keys_help *keys_help_list(size_t *n);
/* The keys every drill-down view shares (listed under the view's own in its help). */
const struct keys_help *keys_help_common(size_t *n);

#endif
