/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * secrets: the push's credentials kept out of sight. They come from a file only its owner may
 * read (--push-header-file) or from the environment (PERFTOP_PUSH_HEADERS), so that they need not
 * be on a command line every user can read in /proc/PID/cmdline; what does come on the command
 * line (--push-header, a URL's password) is masked in perftop's own argv once read. Whatever the
 * push says about a failure (a curl error, the server's answer) has every known secret replaced
 * by "***" before it is kept, printed or put in JSON. And a push over plain http to a host that
 * is not this machine is warned about (push_plain_remote).
 */
#include "push/push.h"
#include "push/push_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

#define HEADER_FILE_MAX (64 * 1024)

char *push_read_header_file(const char *path, char *err, size_t errlen)
{
	/* O_NOFOLLOW: a link is refused, not followed to a file whose mode we did not check;
	 * O_NONBLOCK: a FIFO put in its place does not hang the start. */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "--push-header-file %s: %s", path,
			 errno == ELOOP ? "a symbolic link (give the file itself)" : strerror(errno));
		return NULL;
	}
	struct stat st;
	const char *why = NULL;
	if (fstat(fd, &st) != 0)
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (st.st_mode & (S_IRWXG | S_IRWXO))
		why = "readable or writable by group or others (chmod 600 it)";
	else if (st.st_size > HEADER_FILE_MAX)
		why = "larger than 64 KiB";
	if (why) {
		snprintf(err, errlen, "--push-header-file %s: %s", path, why);
		close(fd);
		return NULL;
	}
	char *buf = xmalloc((size_t)st.st_size + 1);
	size_t n = 0;
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return buf;
}

int push_parse_headers(char *text, const char *from, const char **out, int max, int *n,
		       char *err, size_t errlen)
{
	int line = 0;
	for (char *s = text, *next; s && *s; s = next) {
		line++;
		next = strchr(s, '\n');
		if (next)
			*next++ = '\0';
		size_t len = strlen(s);
		if (len && s[len - 1] == '\r')
			s[--len] = '\0';
		if (!len || s[0] == '#')
			continue;
		char why[200];
		if (push_check_header(s, why, sizeof(why))) {
			snprintf(err, errlen, "%s, line %d: %s", from, line, why);
			return -1;
		}
		if (*n >= max) {
			snprintf(err, errlen, "%s: more than %d headers in all", from, max);
			return -1;
		}
		out[(*n)++] = s;
	}
	return 0;
}

/* A header's value without its blanks: what is secret in it. */
static void header_value(const char *h, const char **v, size_t *len)
{
	const char *c = strchr(h, ':');
	c = c ? c + 1 : h + strlen(h);
	while (*c == ' ' || *c == '\t')
		c++;
	size_t n = strlen(c);
	while (n && (c[n - 1] == ' ' || c[n - 1] == '\t'))
		n--;
	*v = c;
	*len = n;
}

void push_mask_header_arg(char *arg)
{
	const char *v;
	size_t n;
	header_value(arg, &v, &n);
	memset(arg + (v - arg), '*', n);
}

void push_secrets_add(struct push_secrets *s, const char *secret, size_t len)
{
	/* a value of a character or two would mask half of every message: nothing is that short */
	if (len < 3 || s->n >= PUSH_MAX_SECRETS)
		return;
	s->v[s->n] = xmalloc(len + 1);
	memcpy(s->v[s->n], secret, len);
	s->v[s->n++][len] = '\0';
}

void push_secrets_add_header(struct push_secrets *s, const char *header)
{
	const char *v;
	size_t n;
	header_value(header, &v, &n);
	push_secrets_add(s, v, n);
	/* "Bearer TOKEN", "Basic B64": the token alone, as a server may quote it back */
	const char *sp = memchr(v, ' ', n);
	if (sp)
		push_secrets_add(s, sp + 1, n - (size_t)(sp + 1 - v));
}

void push_secrets_mask(const struct push_secrets *s, char *text)
{
	for (int i = 0; i < s->n; i++) {
		size_t k = strlen(s->v[i]);
		for (char *hit = strstr(text, s->v[i]); hit; hit = strstr(hit, s->v[i])) {
			memmove(hit + 3, hit + k, strlen(hit + k) + 1);
			memcpy(hit, "***", 3);
			hit += 3;
		}
	}
}

void push_secrets_free(struct push_secrets *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i]);
	s->n = 0;
}

bool push_plain_remote(const char *url, char *host, size_t cap)
{
	bool plain = !strncasecmp(url, "http://", 7) || !strncasecmp(url, "parca://", 8);
	const char *auth = strstr(url, "://");
	if (!plain || !auth)
		return false;
	auth += 3;
	size_t alen = strcspn(auth, "/");
	const char *at = memrchr(auth, '@', alen);
	const char *h = at ? at + 1 : auth;
	size_t hlen = alen - (size_t)(h - auth);
	/* the host without its port: [v6]:port, or name:port */
	const char *close = h[0] == '[' ? memchr(h, ']', hlen) : NULL;
	size_t n = close ? (size_t)(close - h) + 1 : strcspn(h, ":");
	if (n > hlen)
		n = hlen;
	snprintf(host, cap, "%.*s", (int)n, h);
	if (!strcasecmp(host, "localhost") || !strcmp(host, "[::1]"))
		return false;
	/* 127.0.0.0/8: four dotted numbers, the first 127 */
	unsigned a, b, c, d;
	char end;
	if (sscanf(host, "%u.%u.%u.%u%c", &a, &b, &c, &d, &end) == 4 && a == 127 && b < 256 &&
	    c < 256 && d < 256)
		return false;
	return true;
}
