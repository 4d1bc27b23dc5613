/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * man: perftop(1) in man(7) roff. The OPTIONS come from cli.c's table (an option's README text when
 * it has one, else its --help lines), the KEYS from the key tables of the table and of each view
 * (what their ? help lists, live and in a replay); ENVIRONMENT, FILES and EXIT STATUS are written
 * here, from what src/ reads (getenv, util.c's cache_dir, ui/settings.h) and main.c returns.
 *
 * The text is escaped for groff so that `man --warnings -l` says nothing: backslashes, dashes of
 * options (\-, which a reader can copy), a dot or quote at the start of a line, and every non-ASCII
 * character as a \[uXXXX] glyph (so the page does not depend on preconv guessing its encoding).
 */
#include "doc/doc.h"

#include <stdbool.h>
#include <string.h>

#include "cli/cli.h"
#include "ui/keys.h"
#include "ui/view.h"
#include "util/util.h"

/* One UTF-8 sequence at s (n bytes left) as a code point; *len its length (1 for a bad byte). */
static unsigned utf8_code(const unsigned char *s, size_t n, size_t *len)
{
	int extra = s[0] >= 0xf0 ? 3 : s[0] >= 0xe0 ? 2 : s[0] >= 0xc0 ? 1 : 0;
	unsigned c = extra == 3 ? s[0] & 0x07u : extra == 2 ? s[0] & 0x0fu : s[0] & 0x1fu;
	if (!extra || (size_t)extra >= n) {
		*len = 1;
		return 0xfffd;
	}
	for (int i = 1; i <= extra; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*len = 1;
			return 0xfffd;
		}
		c = c << 6 | (s[i] & 0x3fu);
	}
	*len = (size_t)extra + 1;
	return c;
}

/* Text in a line of its own (not at a request's place): dashes become \- where dash is set. */
static void roff_span(FILE *out, const char *s, size_t n, bool dash)
{
	for (size_t i = 0; i < n;) {
		unsigned char ch = (unsigned char)s[i];
		if (ch >= 0x80) {
			size_t len;
			unsigned c = utf8_code((const unsigned char *)s + i, n - i, &len);
			fprintf(out, "\\[u%04X]", c);
			i += len;
			continue;
		}
		if (ch == '\\')
			fputs("\\e", out);
		else if (ch == '-' && dash)
			fputs("\\-", out);
		else if (ch == '\n')
			fputc(' ', out);
		else
			fputc(ch, out);
		i++;
	}
}

/* A text line: Markdown's `code` in bold (its dashes \-), the rest roman. */
static void roff_line(FILE *out, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	bool code = false;
	for (const char *tick; (tick = strchr(s, '`')); s = tick + 1) {
		roff_span(out, s, (size_t)(tick - s), code);
		fputs(code ? "\\fR" : "\\fB", out);
		code = !code;
	}
	roff_span(out, s, strlen(s), code);
	fputs(code ? "\\fR\n" : "\n", out);
}

/* An option's names: "-p, --pid PID[,PID...]" as bold names and an italic value. */
static void man_option_names(FILE *out, const struct cli_option *o)
{
	if (o->letter)
		fprintf(out, "\\fB\\-%c\\fR%s", o->letter, o->name ? ", " : "");
	if (o->name) {
		fputs("\\fB\\-\\-", out);
		roff_span(out, o->name, strlen(o->name), true);
		fputs("\\fR", out);
	}
	if (!o->letter && !o->name)
		fputs("\\fB\\-\\-\\fR", out);
	if (o->arg) {
		fputs(" \\fI", out);
		roff_span(out, o->arg, strlen(o->arg), true);
		fputs("\\fR", out);
	}
	fputc('\n', out);
}

static void man_options(FILE *out)
{
	size_t n;
	const struct cli_option *opts = cli_options(&n);
	int section = -1;
	fputs(".SH OPTIONS\n", out);
	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = &opts[i];
		if (o->flags & CLI_HIDDEN)
			continue;
		if ((int)o->section != section) {
			section = (int)o->section;
			fputs(".SS ", out);
			roff_line(out, cli_section_title(o->section, true));
		}
		fputs(".TP\n", out);
		man_option_names(out, o);
		roff_line(out, o->doc ? o->doc : o->help);
	}
}

/* --- keys --- */

#define MAN_KEYS_MAX 128

/* Every kind of session at once: several events, a time mode. */
#define MAN_KEYS_KIND (KEYS_SEVERAL | KEYS_TIME)

static bool listed(const struct keys_binding *const *list, size_t n, const struct keys_binding *b)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == b || (list[i]->keys && b->keys && !strcmp(list[i]->keys, b->keys) &&
				     !strcmp(list[i]->help, b->help)))
			return true;
	return false;
}

static void man_key(FILE *out, const struct keys_binding *b, const char *note)
{
	fputs(".TP\n\\fB", out);
	roff_span(out, b->keys, strlen(b->keys), true);
	fputs("\\fR\n", out);
	roff_line(out, b->help);
	if (note)
		fprintf(out, ".br\n%s\n", note);
}

/* The lines of a, then those of b that a has not (marked "in a replay"), leaving out those in skip. */
static void man_key_lists(FILE *out, const struct keys_binding **a, size_t na,
			  const struct keys_binding **b, size_t nb,
			  const struct keys_binding *const *skip, size_t nskip)
{
	for (size_t i = 0; i < na; i++)
		if (!listed(skip, nskip, a[i]))
			man_key(out, a[i], NULL);
	for (size_t i = 0; i < nb; i++)
		if (!listed(a, na, b[i]) && !listed(skip, nskip, b[i]))
			man_key(out, b[i], "(in a replay)");
}

static void man_view_keys(FILE *out, struct view *vw, const char *title, const char *how)
{
	const struct keys_binding *live[MAN_KEYS_MAX], *replay[MAN_KEYS_MAX];
	size_t nl = keys_table_help(vw->ops->keys, false, KEYS_IN_VIEW | MAN_KEYS_KIND, live, 0,
				    MAN_KEYS_MAX);
	size_t nr = keys_table_help(vw->ops->keys, true, KEYS_IN_VIEW | MAN_KEYS_KIND, replay, 0,
				    MAN_KEYS_MAX);
	fprintf(out, ".SS %s\n", title);
	roff_line(out, how);
	man_key_lists(out, live, nl, replay, nr, NULL, 0);
}

static void man_keys(FILE *out)
{
	const struct keys_binding *live[MAN_KEYS_MAX], *replay[MAN_KEYS_MAX];
	fputs(".SH KEYS\n", out);
	roff_line(out, "The full-screen view lists these keys itself: `?` or F1 shows the keys of the "
		       "view on top. Keys marked (in a replay) act when the view plays a recording "
		       "(`-i`).");
	fputs(".SS The table\n", out);
	size_t nl = keys_help_for(NULL, false, MAN_KEYS_KIND, live, MAN_KEYS_MAX);
	size_t nr = keys_help_for(NULL, true, MAN_KEYS_KIND, replay, MAN_KEYS_MAX);
	man_key_lists(out, live, nl, replay, nr, NULL, 0);

	struct view *views[] = {
		view_func_new("f", "d", "f"), view_flame_new(NULL, NULL, NULL),
		view_annotate_new("f", "d", "f", NULL, NULL), view_setup_new(),
	};
	static const char *const titles[][2] = {
		{ "The function view", "`Enter` on a row of the table: the function's callers and callees." },
		{ "The flame graph", "`f` on the table (the whole window) or in the function view." },
		{ "Annotate", "`a` on a row: the function's instructions and source lines, with their "
			      "samples." },
		{ "Setup", "`F2` on the table: the columns shown." },
	};
	/* The keys every view shares: a view's help without its own lines. */
	const struct keys_binding *own[MAN_KEYS_MAX];
	size_t no = keys_table_help(views[0]->ops->keys, false, KEYS_IN_VIEW | MAN_KEYS_KIND, own, 0,
				    MAN_KEYS_MAX);
	no = keys_table_help(views[0]->ops->keys, true, KEYS_IN_VIEW | MAN_KEYS_KIND, own, no,
			     MAN_KEYS_MAX);
	nl = keys_help_for(views[0], false, MAN_KEYS_KIND, live, MAN_KEYS_MAX);
	nr = keys_help_for(views[0], true, MAN_KEYS_KIND, replay, MAN_KEYS_MAX);
	fputs(".SS Every view opened from the table\n", out);
	man_key_lists(out, live, nl, replay, nr, own, no);
	for (size_t i = 0; i < ARRAY_SIZE(views); i++) {
		man_view_keys(out, views[i], titles[i][0], titles[i][1]);
		views[i]->ops->free(views[i]);
	}
}

/* --- the rest --- */

static void man_item(FILE *out, const char *term, const char *text)
{
	fputs(".TP\n", out);
	roff_line(out, term);
	roff_line(out, text);
}

static void man_environment(FILE *out)
{
	fputs(".SH ENVIRONMENT\n", out);
	man_item(out, "`DEBUGINFOD_URLS`", "debuginfod servers asked for debug files that are not on "
		 "this machine, in the background (libdebuginfod, loaded when first needed)");
	man_item(out, "`NO_COLOR`", "when set and not empty, the view uses no colour");
	man_item(out, "`TERM`", "the terminal the view draws on (ncurses)");
	man_item(out, "`XDG_CONFIG_HOME`", "where the settings file is (default `~/.config`)");
	man_item(out, "`XDG_CACHE_HOME`", "where the cache directory is (default `~/.cache`)");
	man_item(out, "`PERFTOP_CACHE_DIR`", "the cache directory itself, instead of "
		 "`$XDG_CACHE_HOME/perftop`");
	man_item(out, "`PERFTOP_DEBUG_CACHE`", "`0`: no uncompressed copies of debug files and no "
		 "stored source-line answers are made or used");
	man_item(out, "`PERFTOP_DEBUG_ROOT`", "the global debug directory (default `/usr/lib/debug`)");
	man_item(out, "`PERFTOP_UNWIND`", "`libunwind`: DWARF unwinding by libunwind alone; `check`: "
		 "both unwinders, compared (for tests)");
	man_item(out, "`PERFTOP_NAMES_FLOOR`, `PERFTOP_DSO_MAX_OPEN`, `PERFTOP_DSO_MAX_KEPT`",
		 "smaller bounds of the name and binary caches (for tests)");
	man_item(out, "`CURL_CA_BUNDLE`, `SSL_CERT_FILE`, `SSL_CERT_DIR`",
		 "`--push` to https: the CA certificates to trust instead of the system's (a file: "
		 "CURL_CA_BUNDLE, else SSL_CERT_FILE; a directory: SSL_CERT_DIR), as curl(1) reads them");
	man_item(out, "`PATH`", "where the command to profile, and a probe's binary, are looked up");
}

static void man_files(FILE *out)
{
	fputs(".SH FILES\n", out);
	man_item(out, "`$XDG_CONFIG_HOME/perftop/perftoprc` (else `~/.config/perftop/perftoprc`)",
		 "the view's settings, written at quit and read at start (see SETTINGS)");
	man_item(out, "`$XDG_CACHE_HOME/perftop/` (else `~/.cache/perftop/`)",
		 "the cache: `kallsyms` (the kernel's symbols of the last session), `srcinfo/` (source "
		 "lines found in earlier sessions, by build-id), `debug/` (uncompressed copies of "
		 "compressed debug files, by build-id, bounded in size). Any of it may be removed");
	man_item(out, "`/usr/lib/debug/.build-id/`, `~/.debug/.build-id/`",
		 "debug files and binaries by build-id (read): the distribution's -dbg packages and "
		 "perf's build-id cache");
	man_item(out, "`perf.data`", "a recording: written by `-o`, read by `-i` and `--diff`");
}

void doc_man(FILE *out, const char *version)
{
	fputs(".\\\" perftop(1), written by perftop_docgen from the option and key tables: do not edit.\n",
	      out);
	fprintf(out, ".TH PERFTOP 1 \"\" \"perftop %s\" \"User Commands\"\n", version);
	fputs(".SH NAME\nperftop \\- a top\\-like profiler on perf_event_open\n", out);
	fputs(".SH SYNOPSIS\n.B perftop\n[\\fIoptions\\fR] [\\fB\\-\\-\\fR] [\\fICOMMAND\\fR "
	      "[\\fIARGS\\fR...]]\n", out);
	fputs(".SH DESCRIPTION\n", out);
	roff_line(out, "perftop samples a command, running processes or the whole machine with "
		       "perf_event_open(2) and shows, live, the functions where the time goes (Self, and "
		       "Total with callees) in a full-screen view sorted and scrolled like top(1) or "
		       "htop(1), or as plain text or JSON lines (`-b`). It records sessions as perf.data "
		       "files (`-o`) and replays them, its own or perf record's (`-i`).");
	fputs(".PP\n", out);
	roff_line(out, "Sampling other users' processes or the whole system needs root, or "
		       "kernel.perf_event_paranoid set low enough. A \"see\" names a section of the "
		       "documentation: the README and its pages (share/doc/perftop/README.md and docs/ "
		       "where perftop is installed).");
	man_options(out);
	man_keys(out);
	fputs(".SH SETTINGS\n", out);
	roff_line(out, "The full-screen view keeps its settings in the settings file (see FILES), "
		       "as htop keeps htoprc: read at start, and at quit the settings changed with keys "
		       "are written back. It is a small text file of key=value lines, which may be "
		       "edited: `order=` a column title in lower case (`self`, `total`, `samples`, "
		       "`shared-object` ...), `invert=yes|no`, `mode=decay|zero`, `refresh=`SECONDS, "
		       "`hidden=`columns, `flame=flame|icicle`, `mouse=yes|no`, "
		       "`names=demangled|raw`; `#` starts a comment.");
	fputs(".PP\n", out);
	roff_line(out, "An option on the command line (`-z`, `-d`, `--no-mouse`, `--no-demangle`, "
		       "`--diff`) wins for that run and is not saved; a setting changed in the view is. "
		       "A file that does not parse (an unknown key, a bad value, over 64 KiB) gives a "
		       "one-line warning and the defaults, and is left as it is until a setting is "
		       "changed in the view. Batch mode (`-b`) neither reads nor writes it.");
	man_environment(out);
	man_files(out);
	fputs(".SH EXIT STATUS\n", out);
	man_item(out, "0", "success (the view was quit, batch mode ended, `--help` and the like)");
	man_item(out, "1", "perftop could not run: events it cannot open, a recording it cannot read, "
		 "no terminal");
	man_item(out, "2", "a mistake on the command line (one line on standard error says which)");
	fputs(".SH SEE ALSO\n.BR perf\\-top (1),\n.BR perf\\-record (1),\n.BR perf\\-report (1),\n"
	      ".BR top (1),\n.BR htop (1)\n", out);
}
