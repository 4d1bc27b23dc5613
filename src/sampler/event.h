/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * event: event names -> perf_event_attr, opening the events for a target, and the one-line errors a
 * user can cause (no such process, permission, unsupported event).
 */
#ifndef PERFTOP_EVENT_H
#define PERFTOP_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* Fills type/config for a named event (cpu-clock, task-clock, cycles, instructions, cache-misses,
 * branch-misses, page-faults, context-switches, and the other generic hardware/software names).
 * Returns 0 or -ENOENT for an unknown name. */
int event_lookup(const char *name, uint32_t *type, uint64_t *config);

/* The canonical name of type/config ("cpu-clock"), or NULL. */
const char *event_name(uint32_t type, uint64_t config);

/* The i-th name event_lookup accepts (aliases included), NULL past the end: for "known events". */
const char *event_known_name(size_t i);

/* True when this machine can count the hardware cycles event (has a PMU). */
bool event_have_hw_pmu(void);

#endif
