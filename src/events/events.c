/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * events: the -e text split into events, each recognised by its form and described for the
 * sampler (the forms' details are in names.c, pmu.c, tracefs.c and probes.c; what they share, and
 * the context's lifetime, in ctx.c).
 *
 * Commas separate events; a comma inside {} or between two slashes belongs to the event, as in
 * perf's grammar. An event is recognised by its prefix (uprobe:, uretprobe:, kprobe:, kretprobe:,
 * mem:), by a slash (a PMU's), else by its first word: a known name (generic, cache, raw, a PMU
 * event of sysfs) followed by modifiers, or a tracepoint's subsystem.
 *
 * Modifiers follow perf: the first of u, k, h excludes the other two rings (and u the guest), each
 * then includes its own; G and H likewise for guest and host; each p adds one to precise_ip (and
 * excludes the guest); P asks for the highest precision the hardware has; D pins. A group's
 * modifiers apply on top of each member's own.
 */
#include "events/events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "events/events_int.h"
#include "sampler/event.h"
#include "util/util.h"

#define MODIFIER_CHARS "ukhGHpPD"
/* perf's modifiers: those we take, and I, S, e, W, b, which we recognise to refuse */
#define PERF_MODIFIER_CHARS "ukhGHpPDISeWb"

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

static bool all_modifiers(const char *s)
{
	return *s && strspn(s, PERF_MODIFIER_CHARS) == strlen(s);
}

/* The highest precise_ip (3..0) the kernel takes for a's event on this process, user-only. */
static int kernel_max_precise(const struct perf_event_attr *w)
{
	for (int p = 3; p > 0; p--) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = w->type;
		a.config = w->config;
		a.config1 = w->config1;
		a.config2 = w->config2;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		a.disabled = 1;
		a.precise_ip = (unsigned)p;
		long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0) {
			close((int)fd);
			return p;
		}
	}
	return 0;
}

#define NO_PMU_WHY "no hardware PMU (no cpu PMU in %s: a VM without one?)"

/* The modifiers mods on top of what ev has (perf's reading, in the header). leader: D applies. */
static int apply_mods(struct events_ctx *c, const char *mods, struct sampler_event *ev,
		      struct ev_meta *meta, bool leader, char *err, size_t errlen)
{
	struct perf_event_attr *a = &ev->attr;
	bool eu = a->exclude_user, ek = a->exclude_kernel, eh = a->exclude_hv;
	bool eH = a->exclude_host, eG = a->exclude_guest, pinned = a->pinned, pmax = false;
	bool exclude = eu || ek || eh, exclude_gh = meta->exclude_gh;
	unsigned precise = a->precise_ip;
	for (const char *m = mods; *m; m++) {
		if (*m != 'p' && strchr(m + 1, *m)) {
			ev_err(err, errlen, "event '%s': modifier '%c' twice", ev->name, *m);
			return -1;
		}
		switch (*m) {
		case 'u': case 'k': case 'h':
			if (!exclude)
				exclude = eu = ek = eh = true;
			if (*m == 'u') {
				eu = false;
				if (!exclude_gh)
					eG = true;
			}
			if (*m == 'k')
				ek = false;
			if (*m == 'h')
				eh = false;
			break;
		case 'G': case 'H':
			if (!exclude_gh)
				exclude_gh = eG = eH = true;
			if (*m == 'G')
				eG = false;
			else
				eH = false;
			break;
		case 'p':
			precise++;
			if (!exclude_gh)
				eG = true;
			break;
		case 'P':
			pmax = true;
			break;
		case 'D':
			pinned = true;
			break;
		default:
			ev_err(err, errlen, "event '%s': modifier '%c' is %s (perftop takes %s)", ev->name,
			       *m, strchr(PERF_MODIFIER_CHARS, *m) ? "not supported by perftop" : "unknown",
			       MODIFIER_CHARS);
			return -1;
		}
	}
	if (precise > 3) {
		ev_err(err, errlen, "event '%s': at most three p (precise_ip 0-3)", ev->name);
		return -1;
	}
	if ((precise || pmax) && !pmu_have_core(c)) {
		ev_err(err, errlen, "event '%s': precise sampling (:p, :P) needs a hardware PMU, and "
		       "this machine has " NO_PMU_WHY, ev->name, c->sysfs);
		return -1;
	}
	a->exclude_user = eu;
	a->exclude_kernel = ek;
	a->exclude_hv = eh;
	a->exclude_host = eH;
	a->exclude_guest = eG;
	a->pinned = leader && pinned;
	meta->exclude_gh = exclude_gh;
	a->precise_ip = precise;
	if (pmax)
		a->precise_ip = (unsigned)(c->env.max_precise ? c->env.max_precise(a)
					   : kernel_max_precise(a));
	return 0;
}

/* rNNNN: a raw hardware event. */
static bool raw_config(const char *s, uint64_t *config)
{
	if (s[0] != 'r' || !s[1] || strspn(s + 1, "0123456789abcdefABCDEF") != strlen(s + 1) ||
	    strlen(s + 1) > 16)
		return false;
	*config = strtoull(s + 1, NULL, 16);
	return true;
}

/* A plain name: generic, cache, raw, or a PMU event of sysfs by its name alone. 1 when it is
 * one (ev filled), 0 when not, -1 on an error (in err). */
static int plain_event(struct events_ctx *c, const char *name, struct sampler_event *ev,
		       struct ev_meta *meta, char *err, size_t errlen)
{
	uint32_t type;
	uint64_t config;
	char pmu[256];
	if (event_lookup(name, &type, &config) == 0) {
		meta->kind = EV_GENERIC;
	} else if (cache_decode(name, &config) == 0) {
		type = PERF_TYPE_HW_CACHE;
		meta->kind = EV_CACHE;
	} else if (raw_config(name, &config)) {
		type = PERF_TYPE_RAW;
		meta->kind = EV_RAW;
	} else if (pmu_find_alias(c, name, pmu, sizeof(pmu)) > 0) {
		meta->kind = EV_PMU;
		return pmu_event(c, pmu, name, ev, err, errlen) ? -1 : 1;
	} else {
		return 0;
	}
	if (type != PERF_TYPE_SOFTWARE && !pmu_have_core(c)) {
		ev_err(err, errlen, "event '%s' is not supported on this machine: " NO_PMU_WHY "; try -e "
		       "cpu-clock", ev->name, c->sysfs);
		return -1;
	}
	ev->attr.type = type;
	ev->attr.config = config;
	return 1;
}

static void unknown_event(struct events_ctx *c, const char *name, char *err, size_t errlen)
{
	struct suggest s;
	char hint[400];
	suggest_init(&s, name);
	suggest_known(c, &s);
	suggest_text(&s, hint, sizeof(hint));
	ev_err(err, errlen, "unknown event '%s'%s%s", name, hint,
	       s.n ? "" : "; perftop --list-events lists every event of this machine");
}

/* pmu/terms/[:mods] */
static int pmu_form(struct events_ctx *c, char *buf, struct sampler_event *ev, struct ev_meta *meta,
		    char **mods, char *err, size_t errlen)
{
	char *first = strchr(buf, '/'), *last = strrchr(buf, '/');
	if (first == last || first == buf || (last[1] && (last[1] != ':' || !last[2]))) {
		ev_err(err, errlen, "event '%s': write PMU/TERM=VALUE,.../ or PMU/EVENT/", ev->name);
		return -1;
	}
	*first = *last = '\0';
	if (last[1])
		*mods = last + 2;
	meta->kind = EV_PMU;
	return pmu_event(c, buf, first + 1, ev, err, errlen);
}

/* The event at buf (its own copy of the text); its modifiers are left in *mods. */
static int recognise(struct events_ctx *c, char *buf, struct sampler_event *ev,
		     struct ev_meta *meta, char **mods, char *err, size_t errlen)
{
	static const struct { const char *prefix; enum ev_kind kind; bool ret; } probes[] = {
		{ "uprobe:", EV_UPROBE, false }, { "uretprobe:", EV_UPROBE, true },
		{ "kprobe:", EV_KPROBE, false }, { "kretprobe:", EV_KPROBE, true },
	};
	for (size_t i = 0; i < ARRAY_SIZE(probes); i++) {
		size_t pl = strlen(probes[i].prefix);
		if (strncmp(buf, probes[i].prefix, pl))
			continue;
		meta->kind = probes[i].kind;
		return meta->kind == EV_UPROBE
		       ? probe_uprobe(c, ev->name, buf + pl, probes[i].ret, ev, err, errlen)
		       : probe_kprobe(c, ev->name, buf + pl, probes[i].ret, ev, err, errlen);
	}
	char *colon = strrchr(buf, ':');
	if (!strncmp(buf, "mem:", 4)) {
		if (colon > buf + 3 && all_modifiers(colon + 1)) {
			*mods = colon + 1;
			*colon = '\0';
		}
		meta->kind = EV_BREAKPOINT;
		return probe_breakpoint(c, ev->name, buf + 4, ev, meta, err, errlen);
	}
	if (strchr(buf, '/'))
		return pmu_form(c, buf, ev, meta, mods, err, errlen);
	colon = strchr(buf, ':');
	if (colon) {
		*colon = '\0';
		int r = all_modifiers(colon + 1) ? plain_event(c, buf, ev, meta, err, errlen) : 0;
		if (r) {
			*mods = colon + 1;
			return r < 0 ? -1 : 0;
		}
		/* subsys:name[:mods] */
		char *name = colon + 1, *more = strchr(name, ':');
		if (more && all_modifiers(more + 1)) {
			*more = '\0';
			*mods = more + 1;
		}
		uint64_t id;
		if (!*buf || !*name || strchr(name, ':')) {
			ev_err(err, errlen, "event '%s': write SUBSYSTEM:NAME[:MODIFIERS]", ev->name);
			return -1;
		}
		if (tracepoint_id(c, ev->name, buf, name, &id, err, errlen))
			return -1;
		ev->attr.type = PERF_TYPE_TRACEPOINT;
		ev->attr.config = id;
		meta->kind = EV_TRACEPOINT;
		return 0;
	}
	int r = plain_event(c, buf, ev, meta, err, errlen);
	if (r == 0)
		unknown_event(c, ev->name, err, errlen);
	return r > 0 ? 0 : -1;
}

/* One event (not a group) of len bytes at text into out[i]. */
static int parse_one(struct events_ctx *c, const char *text, size_t len, struct sampler_event *ev,
		     struct ev_meta *meta, char *err, size_t errlen)
{
	char buf[PATH_MAX + 512];
	if (len == 0 || len >= sizeof(buf)) {
		ev_err(err, errlen, "%s event in -e", len ? "an over-long" : "an empty");
		return -1;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	memset(ev, 0, sizeof(*ev));
	memset(meta, 0, sizeof(*meta));
	ev->attr.size = sizeof(ev->attr);
	ev->leader = -1;
	snprintf(ev->name, sizeof(ev->name), "%.*s", (int)sizeof(ev->name) - 1, buf);
	char *mods = NULL;
	if (recognise(c, buf, ev, meta, &mods, err, errlen))
		return -1;
	if (mods && apply_mods(c, mods, ev, meta, true, err, errlen))
		return -1;
	/* Counting-style forms: a sample at every hit, unless period= (or -F/-c) says otherwise. */
	bool probe = meta->kind == EV_UPROBE || meta->kind == EV_KPROBE ||
		     meta->kind == EV_BREAKPOINT;
	if ((probe || meta->kind == EV_TRACEPOINT) && !ev->attr.sample_period) {
		ev->attr.sample_period = 1;
		meta->hit_default = true;
	}
	ev->may_never_fire = probe;
	return 0;
}

/* {a,b,...}[:mods] of len bytes at text, from out[n]. The new count, or -1. */
static int parse_group(struct events_ctx *c, const char *text, size_t len,
		       struct sampler_event *out, int n, int max, char *err, size_t errlen)
{
	const char *close = memchr(text, '}', len);
	const char *after = close ? close + 1 : NULL, *end = text + len;
	char mods[32] = "";
	if (memchr(text + 1, '{', len - 1)) {
		ev_err(err, errlen, "group '%.*s': groups do not nest", (int)len, text);
		return -1;
	}
	if (!close || (after < end && (*after != ':' || (size_t)(end - after) - 1 >= sizeof(mods)))) {
		ev_err(err, errlen, "group '%.*s': write {EVENT,EVENT...}[:MODIFIERS]", (int)len, text);
		return -1;
	}
	if (after < end)
		snprintf(mods, sizeof(mods), "%.*s", (int)(end - after - 1), after + 1);
	int first = n;
	for (const char *p = text + 1; p < close;) {
		const char *e = event_end(p);
		if (e > close)
			e = close;
		if (n >= max) {
			ev_err(err, errlen, "too many events (at most %d)", max);
			return -1;
		}
		if (parse_one(c, p, (size_t)(e - p), &out[n], &c->meta[n], err, errlen))
			return -1;
		out[n].leader = first;
		if (mods[0]) {
			if (apply_mods(c, mods, &out[n], &c->meta[n], n == first, err, errlen))
				return -1;
			size_t nl = strlen(out[n].name);
			snprintf(out[n].name + nl, sizeof(out[n].name) - nl, ":%s", mods);
		}
		n++;
		p = e + (e < close);
	}
	if (n == first) {
		ev_err(err, errlen, "an empty group '%.*s'", (int)len, text);
		return -1;
	}
	return n;
}

int events_parse(struct events_ctx *c, const char *text, struct sampler_event *out, int n, int max,
		 char *err, size_t errlen)
{
	const char *p = text ? text : "";
	if (max > SAMPLER_MAX_EVENTS)
		max = SAMPLER_MAX_EVENTS;
	for (;;) {
		const char *end = event_end(p);
		if (n >= max) {
			ev_err(err, errlen, "too many events (at most %d)", max);
			return -1;
		}
		if (*p == '{') {
			n = parse_group(c, p, (size_t)(end - p), out, n, max, err, errlen);
			if (n < 0)
				return -1;
		} else {
			if (parse_one(c, p, (size_t)(end - p), &out[n], &c->meta[n], err, errlen))
				return -1;
			n++;
		}
		if (!*end)
			return n;
		p = end + 1;
	}
}

int events_set_filter(struct events_ctx *c, struct sampler_event *out, int n, const char *expr,
		      char *err, size_t errlen)
{
	if (n <= 0 || n > SAMPLER_MAX_EVENTS) {
		ev_err(err, errlen, "--filter must follow the tracepoint it filters (-e SUBSYS:NAME "
		       "--filter EXPR)");
		return -1;
	}
	enum ev_kind k = c->meta[n - 1].kind;
	if (k != EV_TRACEPOINT && k != EV_UPROBE && k != EV_KPROBE) {
		ev_err(err, errlen, "--filter applies to a tracepoint or a probe, and '%s' (just before "
		       "it) is neither", out[n - 1].name);
		return -1;
	}
	if (!expr || !*expr) {
		ev_err(err, errlen, "--filter wants an expression, e.g. 'prev_pid != 0'");
		return -1;
	}
	out[n - 1].filter = expr;
	return 0;
}

int events_resolve(struct events_ctx *c, struct sampler_event *out, int n,
		   const struct events_target *t, char *err, size_t errlen)
{
	for (int i = 0; i < n && i < SAMPLER_MAX_EVENTS; i++)
		if (c->meta[i].symbol[0] &&
		    probe_resolve_symbol(c, &out[i], c->meta[i].symbol, t, err, errlen))
			return -1;
	return 0;
}

void events_use_freq(struct events_ctx *c, struct sampler_event *out, int n)
{
	for (int i = 0; i < n && i < SAMPLER_MAX_EVENTS; i++)
		if (c->meta[i].hit_default)
			out[i].attr.sample_period = 0;
}
