/*
 * events: perf's event language (-e) to the sampler's event descriptions (sampler.h: struct
 * sampler_event). A pure function of the text (and, for the forms that need them, of the machine's
 * sysfs and tracefs): nothing is opened here; the sampler opens what it is given.
 *
 * Today's forms: the generic hardware and software names (cpu-clock, cycles, page-faults...), one or
 * several separated by commas (-e a,b), and -e given several times.
 */
#ifndef PERFTOP_EVENTS_H
#define PERFTOP_EVENTS_H

#include <stddef.h>

#include "sampler/sampler.h"

/* Parses text into out (room for max events), after the n already there. Returns the new count, or
 * -1 with a one-line message naming the event and what is wrong in err. */
int events_parse(const char *text, struct sampler_event *out, int n, int max, char *err,
		 size_t errlen);

#endif
