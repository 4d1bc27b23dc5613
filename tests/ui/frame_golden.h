/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * frame_golden: a whole frame rendered headlessly and compared with its golden file (golden.h), under
 * the header the view tests share (a command target, cpu-clock at 999 Hz, 9.2 s in). Include after
 * check.h and golden.h.
 */
#ifndef PERFTOP_TEST_FRAME_GOLDEN_H
#define PERFTOP_TEST_FRAME_GOLDEN_H

#include <stdlib.h>

#include "model/snapshot.h"
#include "ui/render.h"
#include "ui/surface.h"
#include "ui/view.h"

static struct view_header header(void)
{
	return (struct view_header){ .target = "command: ./fixture", .event = "cpu-clock",
				     .freq = 999, .samples_per_sec = 998, .elapsed = 9.2 };
}

/* Renders snap in a w x h frame with view state v and compares with GOLDEN_DIR/name (or writes it). */
static void golden(const char *name, int w, int h, const struct snapshot *snap, const struct view_state *v)
{
	struct view_header hd = header();
	struct surface *s = surface_new(w, h);
	render_frame(s, snap, &hd, v);
	char *got = surface_to_text(s);
	golden_check(name, got);
	free(got);
	surface_free(s);
}

#endif
