/*
 * view_setup: F2, the table's columns, each shown or hidden with Space (htop's setup screen, cut
 * down to what a profile table has). What it changes is view_state.hidden_cols, which the table's
 * layout and the order keys read, so the choice holds across refreshes and replays.
 *
 * A column that the table cannot have in this session (Command without -s comm, Δ without --diff)
 * is listed as such rather than left out, so the user learns how to get it. Symbol is not listed:
 * it is what the table is about. The order column can be hidden; the order stays, as htop keeps
 * sorting by a column it does not show.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ui/keys.h"
#include "ui/render.h"
#include "ui/view.h"
#include "util/util.h"

/* The columns offered, in the table's order (Δ, with --diff, between Total and Samples). */
static const struct {
	enum snap_col col;   /* COL_COUNT: not in this build of the table yet */
	const char *name, *needs;
} setup_cols[] = {
	{ COL_SELF, "Self%", NULL },
	{ COL_TOTAL, "Total%", NULL },
	{ COL_DELTA, "Δ (change against the base)", "--diff BASE.data" },
	{ COL_SAMPLES, "Samples", NULL },
	{ COL_COMM, "Command", "-s comm,..." },
	{ COL_PID, "PID", "-s pid,..." },
	{ COL_TID, "TID", "-s tid,..." },
	{ COL_DSO, "Shared Object (DSO)", "-s dso,..." },
	{ COL_SRCLINE, "Source:Line (srcline)", "-s srcline,..." },
};
#define SETUP_N ARRAY_SIZE(setup_cols)
#define SETUP_HEAD 2 /* title, blank */

struct view_setup {
	struct view base;
	size_t cursor;
	bool have[SETUP_N]; /* the snapshot's table has this column */
};

static const struct keys_help setup_help[] = {
	{ "Up/Down k/j", "move", KEYS_HELP_ALL },
	{ "Space Enter", "show / hide the column", KEYS_HELP_ALL },
	{ "Esc F2", "close the setup", KEYS_HELP_ALL },
};

static void setup_update(struct view *vw, const struct snapshot *snap)
{
	struct view_setup *vs = (struct view_setup *)vw;
	enum snap_col cols[COL_COUNT];
	int n = render_columns(snap, cols);
	for (size_t i = 0; i < SETUP_N; i++) {
		vs->have[i] = false;
		for (int k = 0; k < n; k++)
			vs->have[i] |= cols[k] == setup_cols[i].col;
	}
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
	for (size_t i = 0; i < SETUP_N && (int)i + SETUP_HEAD < rows; i++) {
		int ly = y + SETUP_HEAD + (int)i;
		char line[160];
		bool shown = vs->have[i] && !(v->hidden_cols & (1u << setup_cols[i].col));
		if (vs->have[i])
			snprintf(line, sizeof(line), "[%c] %s", shown ? 'x' : ' ', setup_cols[i].name);
		else
			snprintf(line, sizeof(line), "[-] %-24s needs %s", setup_cols[i].name,
				 setup_cols[i].needs);
		bool sel = i == vs->cursor;
		if (sel)
			surface_fill(s, 0, ly, s->w, " ", ROLE_SELECTED);
		surface_put_text_cut(s, 2, ly, s->w - 2, line,
				     sel ? ROLE_SELECTED : vs->have[i] ? ROLE_NORMAL : ROLE_DIM);
	}
}

static unsigned setup_key(struct view *vw, struct view_state *v, int key,
			  const struct snapshot *snap, int rows, bool *handled)
{
	(void)snap;
	(void)rows;
	struct view_setup *vs = (struct view_setup *)vw;
	*handled = true;
	switch (key) {
	case KEYS_UP:
	case 'k':
		if (vs->cursor == 0)
			return 0;
		vs->cursor--;
		return KEYS_ACT_REDRAW;
	case KEYS_DOWN:
	case 'j':
		if (vs->cursor + 1 >= SETUP_N)
			return 0;
		vs->cursor++;
		return KEYS_ACT_REDRAW;
	case ' ':
	case KEYS_ENTER:
		if (!vs->have[vs->cursor])
			return 0;
		v->hidden_cols ^= 1u << setup_cols[vs->cursor].col;
		return KEYS_ACT_REDRAW;
	case KEYS_F2:
		view_pop(v, snap);
		return KEYS_ACT_REDRAW;
	default:
		*handled = false;
		return 0;
	}
}

static void setup_free(struct view *vw)
{
	free(vw);
}

static const struct view_ops setup_ops = {
	.name = "setup",
	.update = setup_update,
	.render = setup_render,
	.key = setup_key,
	.free = setup_free,
	.help = setup_help,
	.nhelp = ARRAY_SIZE(setup_help),
	.hints = "Esc close  Up/Down move  Space show/hide  ? help",
};

struct view *view_setup_new(void)
{
	struct view_setup *vs = xcalloc(1, sizeof(*vs));
	vs->base.ops = &setup_ops;
	snprintf(vs->base.label, sizeof(vs->base.label), "setup");
	return &vs->base;
}
