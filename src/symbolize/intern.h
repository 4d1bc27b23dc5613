/*
 * intern: the session's string pool. Every name a frame carries goes through here, so that equal
 * strings are the same pointer (the model compares and hashes rows by pointer) and a pointer stays
 * valid until intern_free (strings live in an arena that only grows; chunks never move).
 */
#ifndef PERFTOP_SYMBOLIZE_INTERN_H
#define PERFTOP_SYMBOLIZE_INTERN_H

#include <stddef.h>

struct intern;

struct intern *intern_new(void);
void intern_free(struct intern *in);

/* The pooled copy of s (NUL-terminated) or of its first n bytes. */
const char *intern_str(struct intern *in, const char *s);
const char *intern_strn(struct intern *in, const char *s, size_t n);

/* Bytes held by the arena (strings and their terminators). */
size_t intern_bytes(const struct intern *in);

#endif
