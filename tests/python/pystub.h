/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pystub: what the pystacks unit tests hand pystacks_new in place of the symbolizer's names pool:
 * names kept as given, one generation for ever.
 */
#ifndef PERFTOP_TESTS_PYSTUB_H
#define PERFTOP_TESTS_PYSTUB_H

#include <stdint.h>

static inline const char *same_name(void *ctx, const char *name)
{
	(void)ctx;
	return name;
}

static inline uint64_t no_gen(void *ctx)
{
	(void)ctx;
	return 1;
}

#endif
