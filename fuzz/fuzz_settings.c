/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_settings: the settings file's parser (src/settings/settings.c, settings_parse) on any text,
 * then what it accepted written back (settings_format) and parsed again: the second reading must
 * accept it and give the same settings, and a refusal must say why on one line. A settings file is
 * the user's, but perftop runs as root with HOME or XDG_CONFIG_HOME pointing anywhere.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "settings/settings.h"

static void must(int cond)
{
	if (!cond)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a heap copy of exactly the text, without a NUL: the parser takes a length */
	char *text = malloc(size ? size : 1);
	memcpy(text, data, size);
	struct settings s;
	char err[256];
	err[0] = 0;
	int rc = settings_parse(text, size, &s, err, sizeof(err));
	free(text);
	if (rc < 0) {
		must(err[0] != 0 && strchr(err, '\n') == NULL);
		return 0;
	}
	must(rc == 0);
	char buf[4096];
	size_t n = settings_format(&s, buf, sizeof(buf));
	must(n < sizeof(buf) && strlen(buf) == n);
	char small[16];
	must(settings_format(&s, small, sizeof(small)) == n);
	struct settings t;
	must(settings_parse(buf, n, &t, err, sizeof(err)) == 0);
	must(t.have == s.have);
	if (SETTINGS_HAS(&s, SETTINGS_ORDER))
		must(t.order == s.order);
	if (SETTINGS_HAS(&s, SETTINGS_HIDDEN))
		must(t.hidden_cols == s.hidden_cols);
	if (SETTINGS_HAS(&s, SETTINGS_INVERT))
		must(t.invert == s.invert);
	if (SETTINGS_HAS(&s, SETTINGS_MOUSE))
		must(t.mouse == s.mouse);
	return 0;
}
