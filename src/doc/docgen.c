/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * docgen: the build's writer of perftop.1 and the completions (doc.h).
 *   perftop_docgen man|bash|zsh|keys OUT
 * (keys: every key of the key tables, for the test of docs/test-coverage.md.)
 * Writes OUT whole or not at all (a temporary file renamed over it), so a failed run leaves no
 * half page for the install rules to pick up.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "doc/doc.h"
#include "version.h"

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "man") && strcmp(argv[1], "bash") && strcmp(argv[1], "zsh") &&
			   strcmp(argv[1], "keys"))) {
		fprintf(stderr, "usage: perftop_docgen man|bash|zsh|keys OUT\n");
		return 2;
	}
	char tmp[4096];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]) >= (int)sizeof(tmp)) {
		fprintf(stderr, "perftop_docgen: path too long\n");
		return 2;
	}
	FILE *f = fopen(tmp, "w");
	if (!f) {
		perror(tmp);
		return 1;
	}
	if (!strcmp(argv[1], "man"))
		doc_man(f, perftop_version);
	else if (!strcmp(argv[1], "keys"))
		doc_keys(f);
	else if (!strcmp(argv[1], "bash"))
		doc_bash(f);
	else
		doc_zsh(f);
	if (ferror(f) | fclose(f) || rename(tmp, argv[2])) {
		perror(argv[2]);
		unlink(tmp);
		return 1;
	}
	return 0;
}
