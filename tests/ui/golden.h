/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * golden: comparing a rendered frame's text with a golden file under the golden directory, or, with
 * PERFTOP_UPDATE_GOLDEN=1 in the environment, writing the file instead. Include after check.h: a
 * mismatch counts as a failed check and prints both texts.
 */
#ifndef PERFTOP_TEST_GOLDEN_H
#define PERFTOP_TEST_GOLDEN_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static const char *golden_dir;
static bool golden_update;

static void golden_init(const char *dir)
{
	golden_dir = dir;
	const char *u = getenv("PERFTOP_UPDATE_GOLDEN");
	golden_update = u && *u && strcmp(u, "0") != 0;
}

/* The whole file, NUL-terminated, or NULL when it cannot be read. */
static char *golden_read(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0, got;
	char *buf = xmalloc(cap);
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 >= cap)
			buf = xrealloc(buf, cap *= 2);
	}
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* One check: got equals golden_dir/name (or, when updating, is written there). */
static void golden_check(const char *name, const char *got)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", golden_dir, name);
	check_count++;
	if (golden_update) {
		FILE *f = fopen(path, "w");
		if (!f || fputs(got, f) < 0) {
			check_failures++;
			fprintf(stderr, "cannot write %s\n", path);
		}
		if (f)
			fclose(f);
		return;
	}
	char *want = golden_read(path);
	if (!want || strcmp(want, got) != 0) {
		check_failures++;
		fprintf(stderr, "%s differs\n--- want\n%s--- got\n%s---\n", path,
			want ? want : "(missing)\n", got);
	}
	free(want);
}

#endif
