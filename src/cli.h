/*
 * cli: perftop's command line -> a plain options struct. Parsing only; nothing is opened here, so
 * every user mistake in the arguments is reported before any terminal or perf state exists.
 */
#ifndef PERFTOP_CLI_H
#define PERFTOP_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/profile.h"
#include "sampler/sampler.h"

#define CLI_MAX_IDS 1024
#define CLI_MAX_PREFIXES 16

struct cli {
	struct sampler_opts sampler;
	int ids[CLI_MAX_IDS];
	int cpus[CLI_MAX_IDS];
	enum sort_key keys[PROFILE_MAX_KEYS];
	int nkeys;
	bool batch;           /* -b */
	bool json;            /* --json */
	long iterations;      /* -n; 0 = until stopped */
	double delay;         /* -d seconds between refreshes */
	bool zero;            /* -z */
	char target_text[256];
	/* Recording and replay (perf.data in and out). */
	const char *output;   /* -o FILE: record the session */
	const char *input;    /* -i FILE ("-" = stdin): replay a recording instead of sampling */
	bool have_time;       /* --time START,END (seconds from the start of the recording) */
	double time_start, time_end;
	bool header_only;     /* --header: print the recording's header info and exit */
	const char *event_select; /* --event NAME: which event of a multi-event file */
	bool delay_given;     /* -d was on the command line (replay: one snapshot per -d of recorded time) */
	/* Names (issue 4). */
	bool no_inline;       /* --no-inline: no inline frames from DWARF */
	bool inline_frames;   /* --inline: inline frames everywhere (default: replays of DWARF recordings) */
	bool no_demangle;     /* --no-demangle: raw C++/Rust symbols */
	const char *symfs;    /* --symfs DIR: binaries and debug files looked up under DIR first */
	const char *diff_base; /* --diff BASE.data: a Δ column against that recording (issue 6) */
	/* --prefix OLD=NEW (annotate): source files built under OLD are read from NEW. */
	const char *prefixes[CLI_MAX_PREFIXES];
	int nprefixes;
	bool no_mouse;        /* --no-mouse: the view does not take the mouse (issue 6) */
};

enum cli_result { CLI_OK, CLI_EXIT_OK, CLI_ERROR };

/* Parses argv into c. On CLI_ERROR err holds a one-line message; CLI_EXIT_OK means --help or
 * --version was printed. */
enum cli_result cli_parse(int argc, char **argv, struct cli *c, char *err, size_t errlen);

void cli_usage(FILE *out);

#endif
