/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_settings: perftoprc's text (settings/settings.h): every key read and written back the same,
 * a missing key left unset, comments and spaces, and each kind of bad file rejected whole with the
 * line it fails on; the file: absent, read, a huge or non-regular one refused, written whole into
 * a directory made for it.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "settings/settings.h"

static void test_round_trip(void)
{
	struct settings s = { .have = (1u << SETTINGS_KEYS) - 1, .order = COL_DSO, .invert = true,
			      .zero = true, .refresh_secs = 0.5, .icicle = true, .mouse = false,
			      .raw_names = true,
			      .hidden_cols = (1u << COL_PID) | (1u << COL_SRCLINE) };
	char buf[1024], err[200];
	size_t n = settings_format(&s, buf, sizeof(buf));
	CHECK(n < sizeof(buf));
	CHECK(strstr(buf, "order=shared-object\n"));
	CHECK(strstr(buf, "hidden=pid,source:line\n"));
	CHECK(strstr(buf, "mode=zero\n"));
	struct settings t;
	CHECK(settings_parse(buf, n, &t, err, sizeof(err)) == 0);
	CHECK_EQ_U64(t.have, s.have);
	CHECK_EQ_U64(t.order, COL_DSO);
	CHECK(t.invert && t.zero && t.icicle && !t.mouse && t.raw_names);
	CHECK(t.refresh_secs == 0.5);
	CHECK_EQ_U64(t.hidden_cols, s.hidden_cols);
	/* a short buffer: the length it needs, as snprintf */
	char small[8];
	CHECK_EQ_U64(settings_format(&s, small, sizeof(small)), n);
}

static void test_partial_and_spelling(void)
{
	const char *text = "# a comment\n\n  order = Total  \r\nmode=decay\nmouse=off\nhidden=\n";
	struct settings s;
	char err[200] = "";
	/* \r is space at the end of a value: a file edited on another system still reads */
	CHECK(settings_parse(text, strlen(text), &s, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	CHECK(SETTINGS_HAS(&s, SETTINGS_ORDER) && s.order == COL_TOTAL);
	CHECK(SETTINGS_HAS(&s, SETTINGS_ZERO) && !s.zero);
	CHECK(SETTINGS_HAS(&s, SETTINGS_MOUSE) && !s.mouse);
	CHECK(SETTINGS_HAS(&s, SETTINGS_HIDDEN) && s.hidden_cols == 0);
	CHECK(!SETTINGS_HAS(&s, SETTINGS_INVERT) && !SETTINGS_HAS(&s, SETTINGS_REFRESH));
	/* no newline at the end, the last key wins */
	CHECK(settings_parse("order=self\norder=samples", 24, &s, err, sizeof(err)) == 0);
	CHECK(s.order == COL_SAMPLES);
	/* only the keys set are written */
	struct settings one = { .have = 1u << SETTINGS_ZERO, .zero = true };
	char buf[256];
	settings_format(&one, buf, sizeof(buf));
	CHECK(strstr(buf, "mode=zero\n") && !strstr(buf, "order="));
}

static void bad(const char *text, const char *why)
{
	struct settings s;
	char err[200] = "";
	CHECK(settings_parse(text, strlen(text), &s, err, sizeof(err)) == -1);
	CHECK(s.have == 0);
	if (!strstr(err, why)) {
		check_failures++;
		fprintf(stderr, "'%s': error '%s' does not say '%s'\n", text, err, why);
	}
}

static void test_bad(void)
{
	bad("order=total\nsort-by=cpu\n", "line 2: unknown key 'sort-by'");
	bad("order=nonsense\n", "line 1: order: 'nonsense'");
	bad("mode=fast\n", "mode:");
	bad("refresh=0\n", "refresh:");
	bad("refresh=1x\n", "refresh:");
	bad("hidden=pid,nope\n", "hidden:");
	bad("\n\njust words\n", "line 3: not key=value");
	char long_line[1200];
	memset(long_line, 'a', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = 0;
	long_line[0] = '#';
	bad(long_line, "too long");
	struct settings s;
	char err[200];
	CHECK(settings_parse("order=se\0lf\n", 12, &s, err, sizeof(err)) == -1);
	CHECK(strstr(err, "not text") != NULL);
}

static void test_files(void)
{
	char dir[] = "/tmp/test_settings.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char path[256], err[300];
	struct settings s;
	snprintf(path, sizeof(path), "%s/cfg/perftop/perftoprc", dir);
	CHECK(settings_load(path, &s, err, sizeof(err)) == 0);
	CHECK(s.have == 0);
	struct settings w = { .have = (1u << SETTINGS_ORDER) | (1u << SETTINGS_ZERO), .order = COL_TOTAL,
			      .zero = true };
	CHECK(settings_save(path, &w, err, sizeof(err)) == 0); /* makes cfg/ and cfg/perftop/ */
	CHECK(settings_load(path, &s, err, sizeof(err)) == 1);
	CHECK(s.have == w.have && s.order == COL_TOTAL && s.zero);

	/* corrupt: -1, "PATH:LINE: why", nothing applied */
	FILE *f = fopen(path, "w");
	fputs("order=total\n\x01\x02garbage\n", f);
	fclose(f);
	CHECK(settings_load(path, &s, err, sizeof(err)) == -1);
	CHECK(s.have == 0);
	char want[300];
	snprintf(want, sizeof(want), "%s:2: not key=value", path);
	CHECK_STR(err, want);

	/* huge: refused without being read */
	f = fopen(path, "w");
	for (int i = 0; i < SETTINGS_MAX_BYTES / 10 + 10; i++)
		fputs("# padding\n", f);
	fclose(f);
	CHECK(settings_load(path, &s, err, sizeof(err)) == -1);
	CHECK(strstr(err, "over 64 KiB") != NULL);

	/* a directory, a FIFO: not settings files (and a FIFO must not block the start) */
	unlink(path);
	CHECK(mkfifo(path, 0600) == 0);
	CHECK(settings_load(path, &s, err, sizeof(err)) == -1);
	CHECK(strstr(err, "not a regular file") != NULL);
	unlink(path);

	/* the XDG path */
	setenv("XDG_CONFIG_HOME", "/x/cfg", 1);
	char *p = settings_path();
	CHECK_STR(p, "/x/cfg/perftop/perftoprc");
	free(p);
	setenv("XDG_CONFIG_HOME", "relative", 1); /* invalid per the spec: HOME's */
	setenv("HOME", "/home/u", 1);
	p = settings_path();
	CHECK_STR(p, "/home/u/.config/perftop/perftoprc");
	free(p);

	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

int main(void)
{
	test_round_trip();
	test_partial_and_spelling();
	test_bad();
	test_files();
	return CHECK_DONE();
}
