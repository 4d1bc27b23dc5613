/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_setup: F2, the table's columns, each shown or hidden with Space (htop's setup screen, cut
 * down to what a profile table has). What it changes is view_state.hidden_cols, which the table's
 * layout and the order keys read, so the choice holds across refreshes and replays.
 *
 * A column that the table cannot have in this session (Command without -s comm, Δ without --diff)
 * is listed as such rather than left out, so the user learns how to get it; but the columns of the
 * other kind of session (Samples in the time modes, Time, Blocks/s and Longest when sampling) are
 * left out, as the list must fit a small terminal. Symbol is not listed:
 * it is what the table is about. The order column can be hidden; the order stays, as htop keeps
 * sorting by a column it does not show.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ui/render_table.h"
#include "ui/view.h"
#include "util/util.h"

/* The columns offered, in the table's order (Δ, with --diff, between Total and Samples; the time
 * modes' three where Samples is). time: offered in samples mode only (-1), in the time modes only
 * (1), in both (0). */
static const struct {
	enum snap_col col;   /* COL_COUNT: not in this build of the table yet */
	const char *name, *needs;
	signed char time;
} setup_cols[] = {
	{ COL_SELF, "Self%", NULL, 0 },
	{ COL_TOTAL, "Total%", NULL, 0 },
	{ COL_DELTA, "Δ (change against the base)", "--diff BASE.data", 0 },
	{ COL_SAMPLES, "Samples", NULL, -1 },
	{ COL_TIME, "Time (threads there)", NULL, 1 },
	{ COL_BLOCKS, "Blocks/s", NULL, 1 },
	{ COL_LONGEST, "Longest block", NULL, 1 },
	{ COL_CONTAINER, "Container", "-s container,...", 0 },
	{ COL_CGROUP, "Cgroup", "-s cgroup,...", 0 },
	{ COL_COMM, "Command", "-s comm,...", 0 },
	{ COL_PID, "PID", "-s pid,...", 0 },
	{ COL_TID, "TID", "-s tid,...", 0 },
	{ COL_STATE, "State (S, D, R+ ...)", "-s state,...", 0 },
	{ COL_DSO, "Shared Object (DSO)", "-s dso,...", 0 },
	{ COL_SRCLINE, "Source:Line (srcline)", "-s srcline,...", 0 },
};
#define SETUP_N ARRAY_SIZE(setup_cols)
#define SETUP_HEAD 2 /* title, blank */

struct view_setup {
	struct view base;
	size_t cursor;            /* in list */
	size_t list[SETUP_N];     /* the entries of setup_cols offered in this kind of session */
	size_t n;
	bool have[SETUP_N];       /* the snapshot's table has this entry's column */
};

static void setup_update(struct view *vw, const struct snapshot *snap)
{
	struct view_setup *vs = (struct view_setup *)vw;
	enum snap_col cols[COL_COUNT];
	int n = render_columns(snap, cols);
	int kind = snapshot_is_time(snap) ? 1 : -1;
	vs->n = 0;
	for (size_t i = 0; i < SETUP_N; i++) {
		if (setup_cols[i].time && setup_cols[i].time != kind)
			continue;
		size_t at = vs->n++;
		vs->list[at] = i;
		vs->have[at] = false;
		for (int k = 0; k < n; k++)
			vs->have[at] |= cols[k] == setup_cols[i].col;
	}
	if (vs->cursor >= vs->n)
		vs->cursor = vs->n ? vs->n - 1 : 0;
}

static void setup_render(struct view *vw, struct surface *s, int y, int rows,
			 const struct snapshot *snap, const struct view_state *v)
{
	(void)snap;
	struct view_setup *vs = (struct view_setup *)vw;
	if (rows <= 0)
		return;
	surface_fill(s, 0, y, s->w, " ", ROLE_COLHDR);
	surface_put_text_cut(s, 1, y, s->w - 1, "Setup: columns of the table (Space shows / hides)",
			     ROLE_COLHDR);
	for (size_t i = 0; i < vs->n && (int)i + SETUP_HEAD < rows; i++) {
		int ly = y + SETUP_HEAD + (int)i;
		char line[160];
		size_t e = vs->list[i];
		bool shown = vs->have[i] && !(v->hidden_cols & (1u << setup_cols[e].col));
		if (vs->have[i])
			snprintf(line, sizeof(line), "[%c] %s", shown ? 'x' : ' ',
				 setup_cols[e].name);
		else
			snprintf(line, sizeof(line), "[-] %-24s needs %s", setup_cols[e].name,
				 setup_cols[e].needs ? setup_cols[e].needs : "?");
		bool sel = i == vs->cursor;
		if (sel)
			surface_fill(s, 0, ly, s->w, " ", ROLE_SELECTED);
		surface_put_text_cut(s, 2, ly, s->w - 2, line,
				     sel ? ROLE_SELECTED : vs->have[i] ? ROLE_NORMAL : ROLE_DIM);
	}
}

/* Up and Down (arg: the direction), stopping at the ends. */
static unsigned setup_move(const struct keys_call *c)
{
	struct view_setup *vs = c->self;
	if (c->arg < 0 ? vs->cursor == 0 : vs->cursor + 1 >= vs->n)
		return 0;
	vs->cursor = c->arg < 0 ? vs->cursor - 1 : vs->cursor + 1;
	return KEYS_ACT_REDRAW;
}

static unsigned setup_toggle(const struct keys_call *c)
{
	struct view_setup *vs = c->self;
	if (vs->cursor >= vs->n || !vs->have[vs->cursor])
		return 0;
	c->v->hidden_cols ^= 1u << setup_cols[vs->list[vs->cursor]].col;
	return KEYS_ACT_REDRAW;
}

/* F2 again closes it, as it opened it. */
static unsigned setup_close(const struct keys_call *c)
{
	view_pop(c->v, c->snap);
	return KEYS_ACT_REDRAW;
}

static const struct keys_binding setup_bindings[] = {
	{ .key = { KEYS_UP, 'k' }, .run = setup_move, .arg = -1, .keys = "Up/Down k/j",
	  .help = "move" },
	{ .key = { KEYS_DOWN, 'j' }, .run = setup_move, .arg = 1 },
	{ .key = { ' ', KEYS_ENTER }, .run = setup_toggle, .keys = "Space Enter",
	  .help = "show / hide the column" },
	{ .key = { KEYS_F2 }, .run = setup_close, .keys = "Esc F2", .help = "close the setup" },
};
static const struct keys_table setup_keys = KEYS_TABLE(setup_bindings);

static void setup_free(struct view *vw)
{
	free(vw);
}

static const struct view_ops setup_ops = {
	.name = "setup",
	.update = setup_update,
	.render = setup_render,
	.keys = &setup_keys,
	.free = setup_free,
	.hints = "Esc close  Up/Down move  Space show/hide  ? help",
};

struct view *view_setup_new(void)
{
	struct view_setup *vs = xcalloc(1, sizeof(*vs));
	vs->base.ops = &setup_ops;
	snprintf(vs->base.label, sizeof(vs->base.label), "setup");
	return &vs->base;
}
