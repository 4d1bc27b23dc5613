/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * term: the terminal, and the only place that knows ncurses. It sets the terminal up, restores it
 * on every way out (normal return, q, SIGINT/SIGTERM through a flag the loop checks, die() and
 * failed allocations through the util fatal hook, exit() through atexit), draws a surface and reads
 * keys as keys_code values.
 */
#ifndef PERFTOP_TERM_H
#define PERFTOP_TERM_H

#include <stdbool.h>

#include "ui/keycode.h"
#include "ui/surface.h"

/* Sets the terminal up. Returns 0, or -1 with a one-line reason in err (not a tty, TERM unset or
 * unknown). Does nothing to the terminal when it fails. */
int term_init(char *err, size_t errlen);
/* Restores the terminal; safe to call any number of times, and from the fatal hook. */
void term_done(void);

/* The current size in cells. */
void term_size(int *w, int *h);
/* Whether colours are in use (the terminal has them and NO_COLOR is not set). */
bool term_has_color(void);

/* Draws the surface; prev (NULL: unknown) is the one drawn last, what the screen shows, so that
 * only what changed is written; with clear, repaints the whole screen instead of what changed. */
void term_blit(const struct surface *s, const struct surface *prev, bool clear);

/* Sleeps until a key is typed, fd (>= 0) is readable, a signal (a resize) comes, or timeout_ms
 * (-1: none) passes. Call it only after term_getkey returned KEYS_NONE (curses may hold keys it has
 * read already). Returns TERM_WAIT_INPUT, TERM_WAIT_FD and TERM_WAIT_SIGNAL or'ed, 0 for none. */
#define TERM_WAIT_INPUT 1
#define TERM_WAIT_FD 2
#define TERM_WAIT_SIGNAL 4
int term_wait(int fd, int timeout_ms);
/* Waits up to timeout_ms (0: just looks) for a key; returns a keys_code value or KEYS_NONE. */
int term_getkey(int timeout_ms);

/* Mouse reporting on or off (--no-mouse leaves it off, and the terminal's own selection works).
 * Off until asked for. */
void term_set_mouse(bool on);
/* After term_getkey returned KEYS_MOUSE: the event, as keys.c reads it. */
void term_last_mouse(struct keys_mouse *m);

/* The signal (SIGINT, SIGTERM, SIGHUP) that asked us to stop, or 0. */
int term_stop_signal(void);

#endif
