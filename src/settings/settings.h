/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * settings: the view's settings kept across runs, as htop keeps htoprc: a small key=value text file,
 * $XDG_CONFIG_HOME/perftop/perftoprc (else ~/.config/perftop/perftoprc), that a person can edit.
 *
 *   # comments and blank lines are kept out
 *   order=total          the column the table is ordered by (a column title, lower case: self,
 *                        total, samples, command, pid, tid, symbol, shared-object, ...)
 *   invert=no            the order reversed (the I key)
 *   mode=decay           decay or zero at each refresh (the z key)
 *   refresh=1            the refresh interval in seconds (as -d)
 *   hidden=pid,tid       the columns hidden in the F2 setup
 *   flame=flame          the flame graph's way up: flame (root at the bottom) or icicle (the v key)
 *   mouse=yes            the view takes the mouse (no: as --no-mouse)
 *   names=demangled      C++/Rust names demangled or raw (the m key; raw: as --no-demangle)
 *
 * A key may be missing (its default then); a line that is not one of these, an unknown key or a
 * value that does not parse makes the whole file rejected, with a message naming its line, so that
 * a half-understood file never half-applies. Reads are bounded (SETTINGS_MAX_BYTES): a bigger file
 * is refused as not a settings file. Writes replace the file whole (a temporary file renamed).
 *
 * Its own module rather than part of src/ui: it is file I/O and text, which the view (curses, the
 * loop) has none of, and the command line's precedence over it is main.c's business; it knows the
 * model's column names only.
 */
#ifndef PERFTOP_SETTINGS_H
#define PERFTOP_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "model/snapshot.h"

#define SETTINGS_MAX_BYTES 65536

/* One bit per key in settings.have: which the file sets. */
enum settings_key {
	SETTINGS_ORDER, SETTINGS_INVERT, SETTINGS_ZERO, SETTINGS_REFRESH, SETTINGS_HIDDEN,
	SETTINGS_ICICLE, SETTINGS_MOUSE, SETTINGS_RAW_NAMES, SETTINGS_KEYS
};
#define SETTINGS_HAS(s, k) (((s)->have >> (k)) & 1u)

struct settings {
	unsigned have;
	enum snap_col order;
	bool invert;
	bool zero;
	double refresh_secs;
	unsigned hidden_cols;   /* bit 1 << snap_col per hidden column (ui/state.h's) */
	bool icicle;
	bool mouse;
	bool raw_names;
};

/* Parses text (len bytes, not necessarily NUL-terminated) into s. -1: err has "line N: why". */
int settings_parse(const char *text, size_t len, struct settings *s, char *err, size_t errlen);
/* The file's text for s (its keys in have only, with a comment line first) in buf; returns the
 * length, or the length it would need when that is len or more (as snprintf). */
size_t settings_format(const struct settings *s, char *buf, size_t len);

/* The file's path (malloc'ed), or NULL when neither XDG_CONFIG_HOME nor HOME is set. */
char *settings_path(void);
/* Reads path into s. 1: read; 0: there is none (s empty); -1: it cannot be read or does not
 * parse (s empty, err has "PATH:N: why"). */
int settings_load(const char *path, struct settings *s, char *err, size_t errlen);
/* Writes s to path, making its directory. -1: err says why. */
int settings_save(const char *path, const struct settings *s, char *err, size_t errlen);

#endif
