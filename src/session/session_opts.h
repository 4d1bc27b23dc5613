/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session_opts: what a session is opened with. The session knows nothing of the command line: the
 * command line's parser (cli/) fills one of these inside its own struct, a test fills one by hand,
 * and both open the same session. Plain data; the pointers must outlive the session.
 */
#ifndef PERFTOP_SESSION_OPTS_H
#define PERFTOP_SESSION_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/profile.h"
#include "push/push.h"
#include "sampler/offcpu.h"
#include "sampler/sampler.h"

#define SESSION_MAX_INPUTS 1024

struct session_opts {
	/* Live: what to sample and how (events, target, rates, call graphs). */
	struct sampler_opts sampler;
	/* The profiles' sort keys. */
	enum sort_key keys[PROFILE_MAX_KEYS];
	int nkeys;
	char target_text[256];  /* live: what the header says is profiled */
	/* No view: a replay is read in one pass to its end (no scan, no histogram, no waiting on the
	 * front end's clock) and debuginfod fetches are waited for. */
	bool one_pass;
	/* Recording and replay. */
	const char *output;     /* record the session into this perf.data file; "-": the stream */
	int output_fd;          /* "-": the stream's descriptor (> 2), else standard output's copy */
	const char *input;      /* replay this perf.data file ("-": standard input) */
	const char *inputs[SESSION_MAX_INPUTS]; /* several: one session's files, played in order */
	int ninputs;
	const char *event_select; /* which event of a multi-event file; NULL: all */
	const char *diff_base;  /* a Δ against this recording (session_load_diff) */
	/* Names. */
	bool no_inline;         /* no inline frames from DWARF */
	bool inline_frames;     /* inline frames everywhere (default: replays of DWARF recordings) */
	bool no_demangle;       /* raw C++/Rust symbols */
	bool no_python;         /* no Python frames read from CPython processes */
	uint64_t python_rate;   /* Python stacks' reads a second (0: by CPU budget) */
	bool no_jit_attach;     /* HotSpot JVMs are not asked for their perf map */
	const char *kallsyms;   /* a replay's kernel addresses named from this file */
	/* Off-CPU and wall-clock time (sampler/offcpu.h). */
	enum profile_mode mode; /* PROFILE_OFFCPU, PROFILE_WALL, or PROFILE_SAMPLES */
	uint64_t min_block_ns;
	struct offcpu_opts offcpu; /* live in those modes: sampler.offcpu points here */
	/* A push of each window's profile to a Pyroscope server (session/pusher.h); NULL: none. */
	const char *push_url;
	const char *push_name;
	const char *push_labels[PUSH_MAX_LABELS]; /* "key=value" */
	int npush_labels;
	const char *push_headers[PUSH_MAX_HEADERS]; /* "Name: value" */
	int npush_headers;
	const char *push_cacert; /* --push-cacert FILE; NULL: the environment's, else the system's */
	double push_interval;   /* seconds; 10 by default */
	bool push_per_container; /* --push-per container: one series per container */
	int push_queue;         /* profiles waiting; 0: push.h's default */
};

#endif
