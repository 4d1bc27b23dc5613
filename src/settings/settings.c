/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * settings: parsing and writing perftoprc (settings.h). A column is named by its title in lower
 * case with spaces as dashes (model/snapshot.h's snap_col_name: "Shared Object" is shared-object),
 * so a new column needs no change here.
 */
#include "settings/settings.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/safefile.h"
#include "util/util.h"

#define SETTINGS_LINE_MAX 512

static const char *const key_names[SETTINGS_KEYS] = {
	[SETTINGS_ORDER] = "order", [SETTINGS_INVERT] = "invert", [SETTINGS_ZERO] = "mode",
	[SETTINGS_REFRESH] = "refresh", [SETTINGS_HIDDEN] = "hidden", [SETTINGS_ICICLE] = "flame",
	[SETTINGS_MOUSE] = "mouse", [SETTINGS_RAW_NAMES] = "names",
};

/* A column's name in the file: its title, lower case, spaces as dashes. */
static void col_token(enum snap_col c, char *buf, size_t len)
{
	const char *t = snap_col_name(c);
	size_t i = 0;
	for (; t[i] && i + 1 < len; i++)
		buf[i] = t[i] == ' ' ? '-' : (char)tolower((unsigned char)t[i]);
	buf[i] = 0;
}

static int col_parse(const char *s, size_t n)
{
	char tok[64];
	for (int c = 0; c < COL_COUNT; c++) {
		col_token((enum snap_col)c, tok, sizeof(tok));
		if (strlen(tok) == n && !strncasecmp(tok, s, n))
			return c;
	}
	return -1;
}

/* "yes"/"no" and the usual spellings; the keys with two words of their own give them as t and f. */
static int bool_parse(const char *v, const char *t, const char *f)
{
	static const char *const yes[] = { "yes", "on", "true", "1" }, *const no[] = { "no", "off",
										"false", "0" };
	if (t && !strcasecmp(v, t))
		return 1;
	if (f && !strcasecmp(v, f))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(v, yes[i]))
			return 1;
		if (!strcasecmp(v, no[i]))
			return 0;
	}
	return -1;
}

static int hidden_parse(const char *v, unsigned *out)
{
	unsigned mask = 0;
	for (const char *p = v; *p;) {
		size_t n = strcspn(p, ",");
		while (n && isspace((unsigned char)*p)) {
			p++;
			n--;
		}
		size_t m = n;
		while (m && isspace((unsigned char)p[m - 1]))
			m--;
		if (m) {
			int c = col_parse(p, m);
			if (c < 0)
				return -1;
			mask |= 1u << c;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	*out = mask;
	return 0;
}

/* One key=value into s; -1 with err set. */
static int set_value(struct settings *s, int key, const char *v, char *err, size_t errlen)
{
	int b = 0;
	char *end;
	switch (key) {
	case SETTINGS_ORDER:
		b = col_parse(v, strlen(v));
		if (b >= 0)
			s->order = (enum snap_col)b;
		break;
	case SETTINGS_INVERT:
		b = bool_parse(v, NULL, NULL);
		s->invert = b == 1;
		break;
	case SETTINGS_ZERO:
		b = bool_parse(v, "zero", "decay");
		s->zero = b == 1;
		break;
	case SETTINGS_REFRESH:
		errno = 0;
		s->refresh_secs = strtod(v, &end);
		b = end == v || *end || errno || !(s->refresh_secs >= 0.05 && s->refresh_secs <= 3600) ? -1 : 0;
		break;
	case SETTINGS_HIDDEN:
		b = hidden_parse(v, &s->hidden_cols);
		break;
	case SETTINGS_ICICLE:
		b = bool_parse(v, "icicle", "flame");
		s->icicle = b == 1;
		break;
	case SETTINGS_MOUSE:
		b = bool_parse(v, NULL, NULL);
		s->mouse = b == 1;
		break;
	case SETTINGS_RAW_NAMES:
		b = bool_parse(v, "raw", "demangled");
		s->raw_names = b == 1;
		break;
	}
	if (b < 0) {
		snprintf(err, errlen, "%s: '%.40s' is not a value it takes", key_names[key], v);
		return -1;
	}
	s->have |= 1u << key;
	return 0;
}

/* One line (without its newline); -1 with err set. */
static int parse_line(struct settings *s, char *line, char *err, size_t errlen)
{
	char *p = line;
	while (isspace((unsigned char)*p))
		p++;
	if (!*p || *p == '#')
		return 0;
	char *eq = strchr(p, '=');
	if (!eq) {
		snprintf(err, errlen, "not key=value");
		return -1;
	}
	char *k_end = eq;
	while (k_end > p && isspace((unsigned char)k_end[-1]))
		k_end--;
	*k_end = 0;
	char *v = eq + 1;
	while (isspace((unsigned char)*v))
		v++;
	size_t vl = strlen(v);
	while (vl && isspace((unsigned char)v[vl - 1]))
		v[--vl] = 0;
	for (int k = 0; k < SETTINGS_KEYS; k++)
		if (!strcmp(p, key_names[k]))
			return set_value(s, k, v, err, errlen);
	snprintf(err, errlen, "unknown key '%.40s'", p);
	return -1;
}

int settings_parse(const char *text, size_t len, struct settings *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	char line[SETTINGS_LINE_MAX], why[160];
	int no = 0;
	for (size_t off = 0; off < len;) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (text + off)) : len - off;
		no++;
		if (n >= sizeof(line) || memchr(text + off, 0, n)) {
			snprintf(err, errlen, "line %d: %s", no, n >= sizeof(line) ? "too long" : "not text");
			memset(s, 0, sizeof(*s));
			return -1;
		}
		memcpy(line, text + off, n);
		line[n] = 0;
		if (parse_line(s, line, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "line %d: %s", no, why);
			memset(s, 0, sizeof(*s));
			return -1;
		}
		off += n + (nl != NULL);
	}
	return 0;
}

static size_t add(char *buf, size_t len, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t add(char *buf, size_t len, size_t at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(at < len ? buf + at : NULL, at < len ? len - at : 0, fmt, ap);
	va_end(ap);
	return at + (n > 0 ? (size_t)n : 0);
}

size_t settings_format(const struct settings *s, char *buf, size_t len)
{
	char tok[64];
	size_t at = add(buf, len, 0, "# perftop's settings, written at quit and read at start; see "
				     "perftop(1), SETTINGS.\n");
	if (SETTINGS_HAS(s, SETTINGS_ORDER)) {
		col_token(s->order, tok, sizeof(tok));
		at = add(buf, len, at, "order=%s\n", tok);
	}
	if (SETTINGS_HAS(s, SETTINGS_INVERT))
		at = add(buf, len, at, "invert=%s\n", s->invert ? "yes" : "no");
	if (SETTINGS_HAS(s, SETTINGS_ZERO))
		at = add(buf, len, at, "mode=%s\n", s->zero ? "zero" : "decay");
	if (SETTINGS_HAS(s, SETTINGS_REFRESH))
		at = add(buf, len, at, "refresh=%g\n", s->refresh_secs);
	if (SETTINGS_HAS(s, SETTINGS_HIDDEN)) {
		at = add(buf, len, at, "hidden=");
		const char *sep = "";
		for (int c = 0; c < COL_COUNT; c++) {
			if (!(s->hidden_cols & (1u << c)))
				continue;
			col_token((enum snap_col)c, tok, sizeof(tok));
			at = add(buf, len, at, "%s%s", sep, tok);
			sep = ",";
		}
		at = add(buf, len, at, "\n");
	}
	if (SETTINGS_HAS(s, SETTINGS_ICICLE))
		at = add(buf, len, at, "flame=%s\n", s->icicle ? "icicle" : "flame");
	if (SETTINGS_HAS(s, SETTINGS_MOUSE))
		at = add(buf, len, at, "mouse=%s\n", s->mouse ? "yes" : "no");
	if (SETTINGS_HAS(s, SETTINGS_RAW_NAMES))
		at = add(buf, len, at, "names=%s\n", s->raw_names ? "raw" : "demangled");
	return at;
}

/* --- the file --- */

char *settings_path(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char buf[4096];
	/* The XDG spec: a relative XDG_CONFIG_HOME is invalid and is to be ignored. */
	if (xdg && xdg[0] == '/')
		snprintf(buf, sizeof(buf), "%s/perftop/perftoprc", xdg);
	else if (home && *home)
		snprintf(buf, sizeof(buf), "%s/.config/perftop/perftoprc", home);
	else
		return NULL;
	return xstrdup(buf);
}

int settings_load(const char *path, struct settings *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	const char *why_not = fstat(fd, &st) < 0 ? strerror(errno)
			      : !S_ISREG(st.st_mode) ? "not a regular file"
			      : st.st_size > SETTINGS_MAX_BYTES ? "over 64 KiB" : NULL;
	if (why_not) {
		snprintf(err, errlen, "%s: not a settings file (%s)", path, why_not);
		close(fd);
		return -1;
	}
	char *text = xmalloc(SETTINGS_MAX_BYTES + 1);
	size_t len = 0;
	ssize_t n = 0;
	/* The size may have grown since fstat: read at most the bound, and one more byte to tell. */
	while (len <= SETTINGS_MAX_BYTES &&
	       (n = read(fd, text + len, SETTINGS_MAX_BYTES + 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		len += (size_t)n;
	}
	int saved = errno;
	close(fd);
	char why[200];
	int rc = 0;
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(saved));
		rc = -1;
	} else if (len > SETTINGS_MAX_BYTES) {
		snprintf(err, errlen, "%s: not a settings file (over 64 KiB)", path);
		rc = -1;
	} else if (settings_parse(text, len, s, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s:%s", path, why + 5); /* "line N: ..." -> "PATH:N: ..." */
		rc = -1;
	}
	free(text);
	return rc < 0 ? -1 : 1;
}

/* Makes path's directory and its parent (~/.config/perftop) when missing. */
static void make_dir_of(const char *path)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = 0;
	char *up = strrchr(dir, '/');
	if (up && up != dir) {
		*up = 0;
		mkdir(dir, 0700);
		*up = '/';
	}
	mkdir(dir, 0700);
}

int settings_save(const char *path, const struct settings *s, char *err, size_t errlen)
{
	char text[4096];
	size_t len = settings_format(s, text, sizeof(text));
	if (len >= sizeof(text)) {
		snprintf(err, errlen, "%s: settings too long", path);
		return -1;
	}
	make_dir_of(path);
	/* a temporary renamed over it (safefile.h): never through a symlink, never half written */
	return safefile_write(path, text, len, SAFEFILE_SYNC, err, errlen);
}
