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

/* Splits a URL push_check_url accepts; 0, or -1. */
int push_split_url(const char *url, struct push_target *t);

#endif
