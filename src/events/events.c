/*
 * events: the -e text split into events and each described for the sampler. Commas separate events
 * (a comma inside {} or between two slashes belongs to the event, as perf's grammar has it).
 */
#include "events/events.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sampler/event.h"

/* The end of the event that starts at p: the next comma outside braces and slashes, or the end. */
static const char *event_end(const char *p)
{
	int braces = 0;
	bool slash = false;
	for (; *p; p++) {
		if (*p == '{')
			braces++;
		else if (*p == '}' && braces)
			braces--;
		else if (*p == '/')
			slash = !slash;
		else if (*p == ',' && !braces && !slash)
			break;
	}
	return p;
}

static int parse_one(const char *name, size_t len, struct sampler_event *ev, char *err, size_t errlen)
{
	char buf[sizeof(ev->name)];
	if (len == 0 || len >= sizeof(buf)) {
		snprintf(err, errlen, "%s event name in -e", len ? "an over-long" : "an empty");
		return -1;
	}
	memcpy(buf, name, len);
	buf[len] = '\0';
	uint32_t type;
	uint64_t config;
	if (event_lookup(buf, &type, &config) != 0) {
		char list[1024];
		size_t used = 0;
		const char *k;
		list[0] = '\0';
		for (size_t i = 0; (k = event_known_name(i)) != NULL && used + 1 < sizeof(list); i++) {
			int n = snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "", k);
			if (n < 0)
				break;
			used += (size_t)n;
		}
		snprintf(err, errlen, "unknown event '%s'; known events: %s", buf, list);
		return -1;
	}
	memset(ev, 0, sizeof(*ev));
	ev->attr.size = sizeof(ev->attr);
	ev->attr.type = type;
	ev->attr.config = config;
	ev->leader = -1;
	snprintf(ev->name, sizeof(ev->name), "%s", buf);
	return 0;
}

int events_parse(const char *text, struct sampler_event *out, int n, int max, char *err,
		 size_t errlen)
{
	const char *p = text ? text : "";
	for (;;) {
		const char *end = event_end(p);
		if (n >= max) {
			snprintf(err, errlen, "too many events (at most %d)", max);
			return -1;
		}
		if (parse_one(p, (size_t)(end - p), &out[n], err, errlen) != 0)
			return -1;
		n++;
		if (!*end)
			return n;
		p = end + 1;
	}
}
