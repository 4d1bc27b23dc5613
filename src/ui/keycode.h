/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * keycode: the keys and mouse events of the view, as term.c reports them. Printable ASCII and
 * control characters are themselves; the rest are above 0xff. The key tables, the views and the
 * tests speak these, so none of them sees ncurses (only term.c does).
 */
#ifndef PERFTOP_KEYCODE_H
#define PERFTOP_KEYCODE_H

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
	KEYS_BTAB,     /* Shift-Tab (Tab itself is '\t') */
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

#endif
