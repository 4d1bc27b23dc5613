/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * term: ncurses (wide-character build) behind a small interface. Roles become colour pairs, or
 * plain attributes when the terminal has no colours or NO_COLOR is set. Keys become keys_code
 * values so that keys.c never sees a curses constant.
 *
 * Restoring the terminal: term_done is idempotent and is reached from every exit path: the normal
 * return of tui_run, the util fatal hook (die, out of memory), atexit (an exit() elsewhere), and the
 * signal flag (SIGINT/SIGTERM/SIGHUP only set a flag; the loop sees it within a tick and returns
 * through the normal path, because endwin is not async-signal-safe). SIGWINCH is left to ncurses,
 * which turns it into KEY_RESIZE.
 *
 * Mouse: ncurses reports clicks, double-clicks and the wheel (buttons 4 and 5) as KEY_MOUSE; they
 * are turned into a struct keys_mouse kept here until the loop asks for it, so the key code stays
 * an int and keys.c stays free of MEVENT.
 */
#include "ui/term.h"

#include <curses.h>
#include <langinfo.h>
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "ui/keycode.h"
#include "util/crash.h"
#include "util/util.h"

static SCREEN *screen;
static bool active;
/* The terminal when it is not stdin/stdout (/dev/tty: stdin is a stream being replayed), and the
 * descriptor keys come from. */
static FILE *tty;
static int in_fd = STDIN_FILENO;
static bool colors;
static bool utf8;
static attr_t role_attr[ROLE_COUNT];
static volatile sig_atomic_t stop_signal;
static struct sigaction old_int, old_term, old_hup;
static struct keys_mouse last_mouse;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

int term_stop_signal(void)
{
	return stop_signal;
}

bool term_has_color(void)
{
	return colors;
}

static void setup_roles(void)
{
	const char *nc = getenv("NO_COLOR");
	colors = has_colors() && !(nc && *nc);
	/* Attributes alone must carry every distinction, since that is all NO_COLOR gets. */
	role_attr[ROLE_NORMAL] = A_NORMAL;
	role_attr[ROLE_HEADER] = A_BOLD;
	role_attr[ROLE_COLHDR] = A_REVERSE;
	role_attr[ROLE_COLHDR_SORTED] = A_REVERSE | A_BOLD | A_UNDERLINE;
	role_attr[ROLE_SELECTED] = A_REVERSE | A_BOLD;
	role_attr[ROLE_HOT_HIGH] = A_BOLD;
	role_attr[ROLE_HOT_MID] = A_NORMAL;
	role_attr[ROLE_KERNEL] = A_NORMAL;
	role_attr[ROLE_STATUS] = A_REVERSE;
	role_attr[ROLE_NOTICE] = A_BOLD;
	role_attr[ROLE_DIM] = A_DIM;
	/* Without colour the position is the one reversed cell (a playhead), the range is bold; the
	 * marks line under the sparkline says both in characters anyway. Reversing the whole range
	 * would turn its bars upside down. */
	role_attr[ROLE_SPARK] = A_NORMAL;
	role_attr[ROLE_SPARK_RANGE] = A_BOLD;
	role_attr[ROLE_SPARK_POS] = A_REVERSE;
	/* Flame frames are reversed blocks (a blank cell ends each); the kernel's are also dim (and
	 * padded with dots by the renderer), the selected frame is ROLE_SELECTED's bold. */
	role_attr[ROLE_FLAME_1] = role_attr[ROLE_FLAME_2] = A_REVERSE;
	role_attr[ROLE_FLAME_3] = role_attr[ROLE_FLAME_4] = A_REVERSE;
	role_attr[ROLE_FLAME_KERNEL] = A_REVERSE | A_DIM;
	if (!colors)
		return;
	start_color();
	use_default_colors();
	/* Pair numbers are role + 1; -1 is the terminal's own colour (use_default_colors). */
	static const struct {
		enum surface_role role;
		short fg, bg;
		attr_t extra;
	} pairs[] = {
		{ ROLE_COLHDR, COLOR_BLACK, COLOR_GREEN, A_NORMAL },
		{ ROLE_COLHDR_SORTED, COLOR_BLACK, COLOR_CYAN, A_BOLD },
		{ ROLE_SELECTED, COLOR_BLACK, COLOR_CYAN, A_NORMAL },
		{ ROLE_HOT_HIGH, COLOR_RED, -1, A_BOLD },
		{ ROLE_HOT_MID, COLOR_GREEN, -1, A_NORMAL },
		{ ROLE_KERNEL, COLOR_YELLOW, -1, A_NORMAL },
		{ ROLE_STATUS, COLOR_BLACK, COLOR_CYAN, A_NORMAL },
		{ ROLE_NOTICE, COLOR_YELLOW, -1, A_BOLD },
		/* The bars are the foreground, so marks go in the background: a black foreground would
		 * turn every tall bar into a black cell. The range is a blue band behind green bars, the
		 * position a red cell with a yellow bar. */
		{ ROLE_SPARK, COLOR_GREEN, -1, A_NORMAL },
		{ ROLE_SPARK_RANGE, COLOR_GREEN, COLOR_BLUE, A_BOLD },
		{ ROLE_SPARK_POS, COLOR_YELLOW, COLOR_RED, A_BOLD },
		/* Warm colours for user code as flame graphs have it, a cool one for the kernel. */
		{ ROLE_FLAME_1, COLOR_BLACK, COLOR_RED, A_NORMAL },
		{ ROLE_FLAME_2, COLOR_BLACK, COLOR_YELLOW, A_NORMAL },
		{ ROLE_FLAME_3, COLOR_BLACK, COLOR_MAGENTA, A_NORMAL },
		{ ROLE_FLAME_4, COLOR_BLACK, COLOR_GREEN, A_NORMAL },
		{ ROLE_FLAME_KERNEL, COLOR_BLACK, COLOR_BLUE, A_NORMAL },
	};
	/* A role on a coloured background is given as its two colours swapped and reversed, which
	 * looks the same. The reason is the blanks: ncurses erases a run of blanks in colours only
	 * (ECH, EL) where the terminal says it erases in the current background (bce), and what an
	 * erase leaves differs from terminal to terminal (tmux keeps no cells there: its captures,
	 * and the screenshots made from them, cut a flame bar or the selected row after its last
	 * character; a terminal that does not honour bce leaves the default colour). A reversed
	 * blank is never erased: every cell of a bar goes out as itself. */
	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++) {
		short pair = (short)(pairs[i].role + 1);
		short fg = pairs[i].fg, bg = pairs[i].bg;
		attr_t swapped = 0;
		if (fg >= 0 && bg >= 0) {
			fg = pairs[i].bg;
			bg = pairs[i].fg;
			swapped = A_REVERSE;
		}
		if (pair >= COLOR_PAIRS || init_pair(pair, fg, bg) == ERR)
			continue;
		role_attr[pairs[i].role] = COLOR_PAIR(pair) | pairs[i].extra | swapped;
	}
}

/* The screen's size at the last blit; -1 when what the screen shows is not known (term_init). */
static int blit_w = -1, blit_h = -1;

int term_init(char *err, size_t errlen)
{
	const char *t = getenv("TERM");
	if (active)
		return 0;
	blit_w = blit_h = -1;
	/* stdin may be a stream being replayed (perftop -i -): the terminal is then /dev/tty. */
	tty = NULL;
	in_fd = STDIN_FILENO;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		tty = fopen("/dev/tty", "r+e");
		if (!tty) {
			snprintf(err, errlen, "the live view needs a terminal (stdin and stdout are not "
				 "both a tty, and /dev/tty cannot be opened: %s)", strerror(errno));
			return -1;
		}
		in_fd = fileno(tty);
	}
	if (!t || !*t) {
		snprintf(err, errlen, "TERM is not set; cannot drive the terminal");
		return -1;
	}
	/* LC_CTYPE only: ncursesw needs the character set for UTF-8, but the rest of the program parses
	 * and prints numbers and must keep the "C" decimal point. */
	setlocale(LC_CTYPE, "");
	utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	/* The terminal as it was, for a crash to put back (term_done cannot run in a fault handler):
	 * cooked mode, the normal screen, the cursor shown, no mouse reports. */
	struct termios before;
	int out_fd = tty ? fileno(tty) : STDOUT_FILENO;
	if (tcgetattr(out_fd, &before) == 0)
		crash_set_terminal(out_fd, &before, "\033[?1000l\033[?1002l\033[?1006l\033[?25h\033[?1049l");
	/* newterm, unlike initscr, returns NULL for an unknown TERM instead of exiting. */
	screen = newterm(NULL, tty ? tty : stdout, tty ? tty : stdin);
	if (!screen) {
		crash_set_terminal(-1, NULL, NULL);
		snprintf(err, errlen, "cannot use terminal type '%s'", t);
		if (tty)
			fclose(tty);
		tty = NULL;
		return -1;
	}
	set_term(screen);
	/* No typeahead check: ncurses polls the keyboard and flushes what it has written before each
	 * check, a few times a line, so a frame went out as a hundred small writes with a poll between
	 * each. A frame is a few kilobytes written in one go; keys wait for the next loop turn. */
	typeahead(-1);
	active = true;

	static bool registered;
	if (!registered) {
		atexit(term_done);
		registered = true;
	}
	util_set_fatal_hook(term_done);

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a blocked getch returns at once and the loop sees the flag. */
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	stop_signal = 0;

	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	intrflush(stdscr, FALSE);
	set_escdelay(25); /* Esc closes help; the default second feels stuck */
	curs_set(0);
	setup_roles();
	erase();
	return 0;
}

void term_done(void)
{
	if (!active)
		return;
	active = false;
	crash_set_terminal(-1, NULL, NULL);
	curs_set(1);
	mousemask(0, NULL); /* the terminal's own selection back, even if endwin left it on */
	endwin();
	fflush(tty ? tty : stdout);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	util_set_fatal_hook(NULL);
	delscreen(screen);
	screen = NULL;
	if (tty)
		fclose(tty);
	tty = NULL;
	in_fd = STDIN_FILENO;
}

void term_size(int *w, int *h)
{
	if (!active) {
		*w = *h = 0;
		return;
	}
	getmaxyx(stdscr, *h, *w);
}

/* What a cell shows when the locale cannot print UTF-8 (a C locale in a bare container). */
static const char *ascii_fallback(const char *ch)
{
	static const struct {
		const char *utf8, *ascii;
	} map[] = { { "—", "-" }, { "▼", "v" }, { "▲", "^" }, { "…", "~" }, { "─", "-" },
		    { "│", "|" }, { "┌", "+" }, { "┐", "+" },  { "└", "+" }, { "┘", "+" },
		    /* The sparkline's eight heights, lowest first, as marks of rising ink. */
		    { "▁", "_" }, { "▂", "." }, { "▃", "-" }, { "▄", "~" }, { "▅", "=" },
		    { "▆", "+" }, { "▇", "*" }, { "█", "#" },
		    /* The drill-down views: tree marks, the breadcrumb, the selected flame frame. */
		    { "▸", "+" }, { "▾", "-" }, { "·", "." }, { "›", ">" }, { "▶", ">" } };
	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (strcmp(ch, map[i].utf8) == 0)
			return map[i].ascii;
	return "?";
}

/* Whether a row's cells each take one column on the terminal: one byte each (or anything in the
 * ASCII fallback, which is one byte). A cell of more bytes may take two columns or none there (a
 * wide or combining character the surface counts as one), which moves what follows it. */
static bool row_narrow(const struct surface *s, int y, int w)
{
	if (!utf8)
		return true;
	const struct surface_cell *c = &s->cells[(size_t)y * (size_t)s->w];
	for (int x = 0; x < w; x++)
		if ((unsigned char)c[x].ch[0] >= 0x80)
			return false;
	return true;
}

static bool cell_same(const struct surface_cell *a, const struct surface_cell *b)
{
	return a->role == b->role && a->ch[0] == b->ch[0] && strcmp(a->ch, b->ch) == 0;
}

/* Cells [x, end) of row y, a run of cells with one role in one call. */
static void blit_span(const struct surface *s, int y, int x, int end)
{
	char buf[4096];
	while (x < end) {
		unsigned char role = surface_cell_const(s, x, y)->role;
		int start = x;
		size_t len = 0;
		while (x < end) {
			const struct surface_cell *c = surface_cell_const(s, x, y);
			const char *ch = c->ch;
			if (c->role != role)
				break;
			if (!utf8 && (unsigned char)ch[0] >= 0x80)
				ch = ascii_fallback(ch);
			size_t n = strlen(ch);
			if (len + n >= sizeof(buf))
				break;
			memcpy(buf + len, ch, n);
			len += n;
			x++;
		}
		buf[len] = '\0';
		attrset(role < ROLE_COUNT ? role_attr[role] : A_NORMAL);
		/* Writing the bottom-right cell reports ERR (the cursor cannot move on); it is drawn. */
		mvaddstr(y, start, buf);
	}
}

void term_blit(const struct surface *s, const struct surface *prev, bool clear)
{
	if (!active)
		return;
	int w, h;
	getmaxyx(stdscr, h, w);
	/* Only what changed since prev (what the screen holds) goes out: ncurses' cost is per
	 * character written and per line touched, and from one refresh to the next a row's numbers
	 * change, its name rarely. Only in rows of one-column cells, whose row above is one too (a
	 * row of wider ones may spill into the next), and never after a size change or a clear. */
	bool diff = !clear && prev && prev->w == s->w && prev->h == s->h && w == blit_w && h == blit_h;
	int rw = w < s->w ? w : s->w;
	bool above_narrow = true;
	if (clear)
		clearok(curscr, TRUE);
	for (int y = 0; y < h && y < s->h; y++) {
		int x0 = 0, x1 = rw;
		bool narrow = row_narrow(s, y, rw);
		if (diff && above_narrow && narrow && row_narrow(prev, y, rw)) {
			const struct surface_cell *a = &s->cells[(size_t)y * (size_t)s->w];
			const struct surface_cell *b = &prev->cells[(size_t)y * (size_t)s->w];
			while (x0 < x1 && cell_same(&a[x0], &b[x0]))
				x0++;
			while (x1 > x0 && cell_same(&a[x1 - 1], &b[x1 - 1]))
				x1--;
		}
		above_narrow = narrow;
		blit_span(s, y, x0, x1);
	}
	blit_w = w;
	blit_h = h;
	attrset(A_NORMAL);
	refresh();
}

void term_set_mouse(bool on)
{
	if (!active)
		return;
	mmask_t want = on ? BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED : 0;
#ifdef BUTTON5_PRESSED
	if (on)
		want |= BUTTON5_PRESSED; /* the wheel down; ncurses 6 with the extended mouse API */
#endif
	mousemask(want, NULL);
	/* A press and its release closer than this make a click; ncurses' default (1/6 s) also
	 * delays every click by that much, which a fast double-click needs anyway. */
	mouseinterval(on ? 200 : 0);
}

void term_last_mouse(struct keys_mouse *m)
{
	*m = last_mouse;
}

/* KEY_MOUSE: the event into last_mouse; KEYS_NONE for those we do not use (a bare press, a
 * release, the middle button). */
static int read_mouse(void)
{
	MEVENT ev;
	if (getmouse(&ev) != OK)
		return KEYS_NONE;
	last_mouse.x = ev.x;
	last_mouse.y = ev.y;
	if (ev.bstate & BUTTON1_DOUBLE_CLICKED)
		last_mouse.kind = KEYS_MOUSE_DOUBLE;
	else if (ev.bstate & BUTTON1_CLICKED)
		last_mouse.kind = KEYS_MOUSE_CLICK;
	else if (ev.bstate & BUTTON4_PRESSED)
		last_mouse.kind = KEYS_MOUSE_WHEEL_UP;
#ifdef BUTTON5_PRESSED
	else if (ev.bstate & BUTTON5_PRESSED)
		last_mouse.kind = KEYS_MOUSE_WHEEL_DOWN;
#endif
	else
		return KEYS_NONE;
	return KEYS_MOUSE;
}

int term_wait(int fd, int timeout_ms)
{
	struct pollfd p[2] = { { .fd = in_fd, .events = POLLIN }, { .fd = fd, .events = POLLIN } };
	int n = poll(p, fd >= 0 ? 2 : 1, timeout_ms);
	if (n < 0)
		return errno == EINTR ? TERM_WAIT_SIGNAL : 0;
	if (n == 0)
		return 0;
	return (p[0].revents ? TERM_WAIT_INPUT : 0) | (fd >= 0 && p[1].revents ? TERM_WAIT_FD : 0);
}

int term_getkey(int timeout_ms)
{
	if (!active)
		return KEYS_NONE;
	timeout(timeout_ms);
	int c = getch();
	switch (c) {
	case ERR: return KEYS_NONE;
	case KEY_UP: return KEYS_UP;
	case KEY_DOWN: return KEYS_DOWN;
	case KEY_LEFT: return KEYS_LEFT;
	case KEY_RIGHT: return KEYS_RIGHT;
	case KEY_PPAGE: return KEYS_PGUP;
	case KEY_NPAGE: return KEYS_PGDN;
	case KEY_HOME:
	case KEY_FIND: return KEYS_HOME;   /* some terminfo entries call Home "find" */
	case KEY_END:
	case KEY_SELECT: return KEYS_END;
	case KEY_ENTER:
	case '\r':
	case '\n': return KEYS_ENTER;
	case KEY_F(1): return KEYS_F1;
	case KEY_F(2): return KEYS_F2;
	case KEY_F(3): return KEYS_F3;
	case KEY_F(4): return KEYS_F4;
	case KEY_F(5): return KEYS_F5;
	case KEY_F(6): return KEYS_F6;
	case KEY_F(10): return KEYS_F10;
	case KEY_MOUSE: return read_mouse();
	case KEY_RESIZE: return KEYS_RESIZE;
	case KEY_BTAB: return KEYS_BTAB;
	case KEY_BACKSPACE:
	case 127:
	case 8: return KEYS_BACKSPACE; /* terminals send DEL or ^H for it */
	default:
		return c >= 0 && c < 0x100 ? c : KEYS_NONE;
	}
}
