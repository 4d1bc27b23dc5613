/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jscan: a bounded walk over JSON text that reports each string value with the keys leading to it
 * (the first JSCAN_KEEP levels), and each object's end, to a visitor that picks the few strings it
 * wants (a container's name in a runtime's state file).
 *
 * Why not a JSON library (json-c, jansson: both in Debian): they build the whole document as a tree
 * in memory, its size and depth the file's writer's choice, to let us read one or three strings
 * out of it; this walk keeps a fixed few hundred bytes whatever the input (deeper levels are only
 * counted), and its one subtle part, knowing what is inside a string, is what makes a key written
 * inside another string's value ("\"Name\":\"x\"" as a label) never match. It does not validate:
 * broken text gives what it held before the break, or nothing.
 */
#ifndef PERFTOP_CONTAINER_JSCAN_H
#define PERFTOP_CONTAINER_JSCAN_H

#include <stdbool.h>
#include <stddef.h>

#define JSCAN_KEEP 4   /* levels whose keys are kept */
#define JSCAN_KEY 96   /* a key's bytes kept; a longer key matches nothing */
#define JSCAN_VAL 256  /* a value's bytes kept (cut), control bytes written '?' */

enum jscan_event { JSCAN_STRING, JSCAN_OBJECT_END };

struct jscan {
	size_t depth;                  /* 1: a member of the top-level object or array */
	char key[JSCAN_KEEP][JSCAN_KEY]; /* key[d - 1]: level d's current member's key ("" in an array) */
	bool array[JSCAN_KEEP];        /* level d is an array */
	size_t index[JSCAN_KEEP];      /* and its current element */
	char val[JSCAN_VAL];           /* JSCAN_STRING: the value */
};

/* Returns true to stop the walk. For JSCAN_OBJECT_END, s->depth is the object's own level. */
typedef bool (*jscan_fn)(const struct jscan *s, enum jscan_event ev, void *arg);

/* Walks buf (len bytes, no NUL needed); true when the visitor stopped it. */
bool jscan_walk(const char *buf, size_t len, jscan_fn fn, void *arg);

/* s->key[d - 1] is key (and level d is an object), with d <= s->depth. */
bool jscan_key_is(const struct jscan *s, size_t d, const char *key);

#endif
