/*
 * push_int: what push.c and ingest.c share and nobody else needs: the URL split into the base the
 * requests go to and the credentials that go in an Authorization header instead of the URL.
 */
#ifndef PERFTOP_PUSH_INT_H
#define PERFTOP_PUSH_INT_H

#include <stdbool.h>

struct push_target {
	char base[1024];             /* scheme://host[:port][/prefix], no user:password@, no '/' at the end */
	bool auth;
	char user[256], password[256]; /* percent-decoded */
};

/* Splits a URL push_check_url accepts; 0, or -1. */
int push_split_url(const char *url, struct push_target *t);

#endif
