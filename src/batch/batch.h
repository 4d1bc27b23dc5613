/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * batch: perftop -b, like top -b: a plain table (or, with --json, one JSON object per line) every
 * refresh interval, for scripts and tests.
 */
#ifndef PERFTOP_BATCH_H
#define PERFTOP_BATCH_H

#include <stdio.h>

#include "cli/cli.h"
#include "session/session.h"

/* Runs until -n refreshes, the target's exit (a final snapshot is printed), or SIGINT/SIGTERM.
 * Returns the process exit code. */
int batch_run(struct session *s, const struct cli *c);

/* One snapshot as the JSON contract line (no newline), or as the plain table (batch_print.c).
 * Exposed for tests. */
void batch_print_json(FILE *out, const struct snapshot *snap, const struct session_status *st,
		      double time);
void batch_print_text(FILE *out, const struct snapshot *snap, const struct session_status *st,
		      double time);

#endif
