/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decay: the refresh-window arithmetic the profile, the call tree and the annotate histogram share.
 *
 * Between refreshes everything held decays x7/8, as perf top's histograms do. A row, node or address
 * whose share of what is held has fallen below what any view can print (0.005%: it shows as 0.00%)
 * goes at once rather than after the ~100 more windows its period would take to reach 0: under a
 * churn of short processes most rows are seen once (an unnamed address of one process), and keeping
 * each for 100 refreshes is what made a long session's rows, memory and frame time grow.
 */
#ifndef PERFTOP_DECAY_H
#define PERFTOP_DECAY_H

#include <stdbool.h>
#include <stdint.h>

/* 1 / DECAY_VISIBLE_DIV of what is held is the smallest share kept (0.005%). */
#define DECAY_VISIBLE_DIV 20000u

/* x * 7 / 8 without the overflow of x * 7 for huge x: with x = 8q + r it is 7q + 7r/8. */
static inline uint64_t decay_x78(uint64_t x)
{
	return x / 8 * 7 + x % 8 * 7 / 8;
}

/* True when part (already decayed) is too small a share of whole for any view to show. */
static inline bool decay_faded(uint64_t part, uint64_t whole)
{
	if (part == 0)
		return true;
	/* part * DIV < whole, without the overflow of the product */
	return part < whole / DECAY_VISIBLE_DIV;
}

#endif
