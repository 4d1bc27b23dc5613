/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * keylist: every key of every key table, one line each, for tests that must know the keys perftop
 * has (docs/test-coverage.md's check): "TABLE<TAB>KEY<TAB>HELP". The tables are the ones keys_handle
 * dispatches through and the man page lists: the table's (view_table.c), the framework's (keys.c:
 * every view's common keys, the keys that go back, the i page's) and each drill-down view's. A key
 * bound twice in one table (Space live and in a replay) is one line. The table's help-only "mouse"
 * binding stands for the mouse events keys_mouse handles, one line each.
 */
#include "doc/doc.h"

#include <stdio.h>
#include <string.h>

#include "ui/keys.h"
#include "ui/view.h"
#include "util/util.h"

/* A key's name as the tables' help lines spell it ("Up", "F5", "Shift-Tab"); printable keys are
 * themselves. */
static const char *key_name(int key, char *buf, size_t len)
{
	static const struct {
		int key;
		const char *name;
	} names[] = {
		{ KEYS_CTRL_L, "Ctrl-L" }, { KEYS_ESC, "Esc" }, { KEYS_UP, "Up" }, { KEYS_DOWN, "Down" },
		{ KEYS_LEFT, "Left" }, { KEYS_RIGHT, "Right" }, { KEYS_PGUP, "PgUp" },
		{ KEYS_PGDN, "PgDn" }, { KEYS_HOME, "Home" }, { KEYS_END, "End" },
		{ KEYS_ENTER, "Enter" }, { KEYS_F1, "F1" }, { KEYS_F2, "F2" }, { KEYS_F3, "F3" },
		{ KEYS_F4, "F4" }, { KEYS_F5, "F5" }, { KEYS_F6, "F6" }, { KEYS_F10, "F10" },
		{ KEYS_RESIZE, "Resize" }, { KEYS_BACKSPACE, "Backspace" }, { KEYS_BTAB, "Shift-Tab" },
		{ '\t', "Tab" }, { ' ', "Space" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].key == key)
			return names[i].name;
	if (key > ' ' && key < 0x7f)
		snprintf(buf, len, "%c", key);
	else
		snprintf(buf, len, "0x%x", (unsigned)key);
	return buf;
}

/* The mouse events of the table's help-only "mouse" binding (keys_mouse in ui/keys.h). */
static const char *const mouse_events[] = {
	"click", "double-click", "wheel-up", "wheel-down", "click-title", "click-bar",
};

static void list_table(FILE *out, const char *name, const struct keys_table *t)
{
	const char *help = "";
	for (size_t i = 0; i < t->n; i++) {
		const struct keys_binding *b = &t->b[i];
		/* A binding without a help line is listed under the one above's (Down with Up). */
		if (b->help)
			help = b->help;
		if (!b->key[0] && !b->run) {
			for (size_t m = 0; m < ARRAY_SIZE(mouse_events); m++)
				fprintf(out, "%s\tmouse-%s\t%s\n", name, mouse_events[m], help);
			continue;
		}
		for (int k = 0; k < KEYS_BIND_MAX && b->key[k]; k++) {
			bool seen = false;
			for (size_t j = 0; j <= i && !seen; j++)
				for (int l = 0; l < KEYS_BIND_MAX && t->b[j].key[l]; l++)
					if ((j < i || l < k) && t->b[j].key[l] == b->key[k])
						seen = true;
			if (seen)
				continue;
			char buf[16];
			fprintf(out, "%s\t%s\t%s\n", name, key_name(b->key[k], buf, sizeof(buf)), help);
		}
	}
}

void doc_keys(FILE *out)
{
	list_table(out, "table", view_table_keys());
	list_table(out, "common", keys_common_table());
	list_table(out, "back", keys_back_table());
	list_table(out, "info", keys_info_table());
	struct view *views[] = {
		view_func_new("f", "d", "f"), view_flame_new(NULL, NULL, NULL),
		view_annotate_new("f", "d", "f", NULL, NULL), view_setup_new(),
	};
	for (size_t i = 0; i < ARRAY_SIZE(views); i++) {
		list_table(out, views[i]->ops->name, views[i]->ops->keys);
		views[i]->ops->free(views[i]);
	}
}
