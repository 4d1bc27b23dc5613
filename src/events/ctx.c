/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctx: the events context's lifetime and the helpers every form's file shares (errors, strings
 * kept for the sampler, numbers as perf writes them, the capability test). Below events.c, names.c,
 * pmu.c, tracefs.c and probes.c, it calls none of them: they all call it, events.c calls them.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "events/events.h"
#include "events/events_int.h"
#include "util/util.h"

#define SYSFS_PMUS "/sys/bus/event_source/devices"

void ev_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

char *ev_keep(struct events_ctx *c, const char *s, size_t len)
{
	if (c->nstrings >= EVENTS_MAX_STRINGS)
		return NULL;
	char *k = xmalloc(len + 1);
	memcpy(k, s, len);
	k[len] = '\0';
	c->strings[c->nstrings++] = k;
	return k;
}

static bool kernel_capable(int cap)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) != 0)
		return geteuid() == 0;
	return cap < 64 && (d[cap / 32].effective & (1u << (cap % 32)));
}

bool ev_capable(struct events_ctx *c, int cap)
{
	return c->env.capable ? c->env.capable(cap) : kernel_capable(cap);
}

int ev_number(const char *s, uint64_t *out)
{
	char *end;
	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	unsigned long long v = strtoull(hex ? s + 2 : s, &end, hex ? 16 : 10);
	if (errno || *end || end == (hex ? s + 2 : s))
		return -1;
	*out = v;
	return 0;
}

struct events_ctx *events_ctx_new(const struct events_env *env)
{
	struct events_ctx *c = xcalloc(1, sizeof(*c));
	if (env)
		c->env = *env;
	snprintf(c->sysfs, sizeof(c->sysfs), "%s", c->env.sysfs ? c->env.sysfs : SYSFS_PMUS);
	c->core_pmu = -1;
	return c;
}

void events_ctx_free(struct events_ctx *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nstrings; i++)
		free(c->strings[i]);
	free(c);
}
