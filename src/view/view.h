/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view: runs the full-screen view (ui/) on an opened, started session until the user quits;
 * notice is the line shown first (the event's fallback), or "". Returns the exit code.
 */
#ifndef PERFTOP_VIEW_H
#define PERFTOP_VIEW_H

#include "cli/cli.h"
#include "session/session.h"

int view_run(struct session *s, const struct cli *cli, const char *notice);

#endif
