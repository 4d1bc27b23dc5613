/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * push_int: what push.c and ingest.c share and nobody else needs: the URL split into the server's
 * kind, the base the requests go to and the credentials that go in an Authorization header
 * instead of the URL.
 */
#ifndef PERFTOP_PUSH_INT_H
#define PERFTOP_PUSH_INT_H

#include <stdbool.h>

#include "push/push.h"

struct push_target {
	enum push_kind kind;
	char base[1024];             /* scheme://host[:port][/prefix], no user:password@, no '/' at the end */
	bool auth;
	char user[256], password[256]; /* percent-decoded */
};

/* The values a message must not show (secrets.c): the headers' values (and a "Bearer TOKEN"'s
 * token alone), the URL's password and its basic auth header's base64. */
#define PUSH_MAX_SECRETS (2 * PUSH_MAX_HEADERS + 2)
struct push_secrets {
	char *v[PUSH_MAX_SECRETS];
	int n;
};
void push_secrets_add(struct push_secrets *s, const char *secret, size_t len);
void push_secrets_add_header(struct push_secrets *s, const char *header);
/* Every secret in text (NUL-terminated, in place) replaced by "***". */
void push_secrets_mask(const struct push_secrets *s, char *text);
void push_secrets_free(struct push_secrets *s);

/* RFC 4648 base64 of the len bytes at p into out (room for 4 * ((len + 2) / 3) + 1). */
size_t push_base64(char *out, const unsigned char *p, size_t len);

/* Splits a URL push_check_url accepts; 0, or -1. */
int push_split_url(const char *url, struct push_target *t);

#endif
