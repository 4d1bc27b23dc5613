/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check: the few assertion macros the plain ctest programs share. A failed check prints where and
 * what, and the program exits 1 at the end (checks go on, so one run shows every failure).
 */
#ifndef PERFTOP_TEST_CHECK_H
#define PERFTOP_TEST_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                     \
	do {                                                                            \
		check_count++;                                                          \
		if (!(cond)) {                                                          \
			check_failures++;                                               \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
		}                                                                       \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                              \
	do {                                                                            \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                        \
		check_count++;                                                          \
		if (a_ != b_) {                                                         \
			check_failures++;                                               \
			fprintf(stderr, "%s:%d: %s == %s failed: %" PRIu64 " != %" PRIu64 "\n", \
				__FILE__, __LINE__, #a, #b, a_, b_);                    \
		}                                                                       \
	} while (0)

#define CHECK_STR(a, b)                                                                 \
	do {                                                                            \
		const char *a_ = (a), *b_ = (b);                                        \
		check_count++;                                                          \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                \
			check_failures++;                                               \
			fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, \
				__LINE__, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");  \
		}                                                                       \
	} while (0)

/* Ends main: prints the closing line ctest logs and returns the exit code. */
#define CHECK_DONE()                                                                    \
	(printf("%d checks, %d failed\n", check_count, check_failures), check_failures ? 1 : 0)

#endif
