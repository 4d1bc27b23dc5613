/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli: perftop's command line -> a plain options struct. Parsing only; nothing is opened here, so
 * every user mistake in the arguments is reported before any terminal or perf state exists.
 *
 * The options are one table (cli_options): each entry has its names, its value, its section, its
 * help line and its README text, and how it changes struct cli. getopt_long's lists, --help and
 * the README's option table (the hidden --markdown-options prints it) are all made from that
 * table, and so can a man page or a shell completion be.
 */
#ifndef PERFTOP_CLI_H
#define PERFTOP_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/profile.h"
#include "push/push.h"
#include "sampler/sampler.h"
#include "session/session_opts.h"

#define CLI_MAX_IDS 1024
#define CLI_MAX_PREFIXES 16
#define CLI_MAX_EXPORTS 8
#define CLI_MAX_INPUTS SESSION_MAX_INPUTS

struct cli {
	/* What the session is opened with (session_opts.h): filled here, read by session/. */
	struct session_opts session;
	struct sampler_event events[SAMPLER_MAX_EVENTS]; /* -e, parsed (events/events.h) */
	int nevents;
	int ids[CLI_MAX_IDS];
	int cpus[CLI_MAX_IDS];
	bool batch;           /* -b */
	bool json;            /* --json */
	long iterations;      /* -n; 0 = until stopped */
	double delay;         /* -d seconds between refreshes */
	bool zero;            /* -z */
	bool have_time;       /* --time START,END (seconds from the start of the recording) */
	double time_start, time_end;
	bool header_only;     /* --header: print the recording's header info and exit */
	const char *exports[CLI_MAX_EXPORTS]; /* --export FILE: written at the end */
	int nexports;
	bool delay_given;     /* -d was on the command line (replay: one snapshot per -d of recorded time) */
	const char *symfs;    /* --symfs DIR: binaries and debug files looked up under DIR first */
	/* --prefix OLD=NEW (annotate): source files built under OLD are read from NEW. */
	const char *prefixes[CLI_MAX_PREFIXES];
	int nprefixes;
	bool no_mouse;        /* --no-mouse: the view does not take the mouse */
	bool quiet;           /* -q: batch prints no snapshots, only errors */
	bool have_user;       /* -u USER: the command started as USER */
	const char *cgroups[SAMPLER_MAX_CGROUPS]; /* -G, split at commas */
	int ncgroups;
	struct sampler_user run_as;
};

enum cli_result { CLI_OK, CLI_EXIT_OK, CLI_ERROR };

/* The groups of --help, in its order. */
enum cli_section { CLI_TARGETS, CLI_RECORDING, CLI_SAMPLING, CLI_NAMES, CLI_VIEW, CLI_PUSH,
		   CLI_SECTIONS };

/* What the parser keeps while it reads argv (cli.c); an option's set function changes it. */
struct cli_parsing;

#define CLI_HIDDEN 1u /* not in --help nor in the README (--markdown-options itself) */

struct cli_option {
	const char *name;        /* the long name, without "--"; NULL: none */
	char letter;             /* the short name; 0: none. Neither: the "-- COMMAND" row */
	const char *arg;         /* the value's name ("PID[,PID...]"); NULL: it takes none */
	enum cli_section section;
	const char *help;        /* --help: one line or a few, split by '\n' */
	const char *doc;         /* the README's text (Markdown, one line); NULL: help's lines */
	/* Applies the option (arg: its value); CLI_OK to go on. NULL: not an option (the
	 * command). */
	enum cli_result (*set)(struct cli_parsing *p, const struct cli_option *o, const char *arg);
	size_t field;            /* for the set functions that store into one struct cli member */
	unsigned flags;          /* CLI_HIDDEN */
};

/* The option table, in --help's order. */
const struct cli_option *cli_options(size_t *n);
/* "Recording and replay"; the Targets line says more ("Targets (no target and no ...)"). */
const char *cli_section_title(enum cli_section s, bool long_form);
/* The names column of an option: "-p, --pid PID[,PID...]", "--time START,END", "-- COMMAND ARGS";
 * with indent, long-only names are shifted under the others' long names (as --help has them). */
void cli_option_names(const struct cli_option *o, bool indent, char *buf, size_t len);

/* Parses argv into c. On CLI_ERROR err holds a one-line message; CLI_EXIT_OK means --help,
 * --markdown-options or --version was printed. */
enum cli_result cli_parse(int argc, char **argv, struct cli *c, char *err, size_t errlen);

void cli_usage(FILE *out);
/* The README's option table (| option | meaning |), from the same table. */
void cli_markdown(FILE *out);

#endif
