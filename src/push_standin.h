/*
 * push_standin: the stand-in body of a push until the pprof encoder is wired in (push_standin.c).
 */
#ifndef PERFTOP_PUSH_STANDIN_H
#define PERFTOP_PUSH_STANDIN_H

#include <stddef.h>
#include <stdint.h>

/* A gzipped pprof of one sample of value samples over [from_ns, until_ns) (Unix ns); malloc'd,
 * *len bytes, or NULL. */
void *push_standin_body(uint64_t samples, int64_t from_ns, int64_t until_ns, uint64_t period,
			size_t *len);

#endif
