/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_pushurl: --push's URL and its companions (src/push/ingest.c): the input's lines are a URL, an
 * application name, labels and a header. What push_check_url accepts push_split_url must split
 * (unless the base is over its 1,024 bytes) into a base that keeps the credentials out (no '@'
 * before its path, no '/' at its end), and the request built from it (Pyroscope's ingest URL,
 * Parca's body) must be what its length says. A refusal says why on one line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "push/push.h"
#include "push/push_int.h"

static void must(int cond)
{
	if (!cond)
		abort();
}

static void refusal(int rc, const char *err)
{
	if (rc < 0)
		must(err[0] != 0 && strchr(err, '\n') == NULL);
	else
		must(rc == 0);
}

/* The input's lines (at most max), each a string of its own on the heap. */
static int split_lines(const uint8_t *data, size_t size, char **out, int max)
{
	int n = 0;
	size_t off = 0;
	while (n < max && off <= size) {
		const uint8_t *nl = memchr(data + off, '\n', size - off);
		size_t len = nl ? (size_t)(nl - (data + off)) : size - off;
		out[n] = malloc(len + 1);
		memcpy(out[n], data + off, len);
		out[n][len] = 0;
		n++;
		if (!nl)
			break;
		off += len + 1;
	}
	return n;
}

static void request(const char *base, char *name, char **labels, int nlabels)
{
	char err[512] = "";
	const char *ok[8];
	int nok = 0;
	for (int i = 0; i < nlabels; i++) {
		err[0] = 0;
		int rc = push_check_label(labels[i], err, sizeof(err));
		refusal(rc, err);
		if (rc == 0)
			ok[nok++] = labels[i];
	}
	push_sanitize_name(name);
	if (!name[0] || strlen(name) > 200)
		return;
	must(push_check_name(name, err, sizeof(err)) == 0);
	char url[8192];
	int n = push_ingest_url(url, sizeof(url), base, name, ok, nok, 1, 2, 99);
	must(n < 0 || ((size_t)n < sizeof(url) && strlen(url) == (size_t)n));
	char small[64];
	must(push_ingest_url(small, sizeof(small), base, name, ok, nok, 1, 2, 99) < 0 || n < 64);
	size_t blen;
	char *body = push_parca_body(base, strlen(base), name, ok, nok, &blen);
	must(body != NULL && memchr(body, 0, blen) == NULL);
	free(body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *l[8];
	int n = split_lines(data, size, l, 8);
	char err[512] = "";
	int rc = push_check_url(l[0], err, sizeof(err));
	refusal(rc, err);
	struct push_target t;
	int split = push_split_url(l[0], &t);
	must(rc == 0 || split < 0);
	if (split == 0) {
		must(!strncmp(t.base, "http://", 7) || !strncmp(t.base, "https://", 8));
		const char *host = strstr(t.base, "://") + 3;
		size_t alen = strcspn(host, "/");
		must(memchr(host, '@', alen) == NULL);
		size_t bl = strlen(t.base);
		must(bl > 0 && t.base[bl - 1] != '/');
		must(strlen(t.user) < sizeof(t.user) && strlen(t.password) < sizeof(t.password));
		if (n > 1)
			request(t.base, l[1], l + 2, n - 2 > 4 ? 4 : n - 2);
	} else {
		must(rc < 0 || strlen(l[0]) > 1000);
	}
	for (int i = 1; i < n; i++) {
		err[0] = 0;
		refusal(push_check_header(l[i], err, sizeof(err)), err);
	}
	char enc[1024];
	int e = push_urlencode(enc, sizeof(enc), l[0]);
	must(e < 0 || ((size_t)e < sizeof(enc) && strlen(enc) == (size_t)e));
	for (int i = 0; i < n; i++)
		free(l[i]);
	return 0;
}
