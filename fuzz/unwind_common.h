/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind_common: the probe fuzz_unwind and fuzz_cfi run over an image (unwind_common.c).
 */
#ifndef PERFTOP_FUZZ_UNWIND_COMMON_H
#define PERFTOP_FUZZ_UNWIND_COMMON_H

#include "symbolize/unwind_int.h"

/* Everything a walk asks of img's tables: its FDE table, the FDE and CFI row at and around each
 * FDE's start, at each segment's start and at the extra addresses; aborts on an answer out of
 * form (reads out of bounds are ASan's). */
void probe_image(struct image *img, const uint64_t *extra, int nextra);

#endif
