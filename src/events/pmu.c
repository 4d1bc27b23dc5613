/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmu: the PMUs of sysfs (/sys/bus/event_source/devices/PMU): type, format/ and events/.
 *
 * PMU/term=value,.../ sets attr.type to the PMU's type and each term into the attr: a format
 * term's file says which bits of config, config1 or config2 it fills ("config:0-7",
 * "config:0-7,32-35", "config1:0-63"; the value's low bits go to the listed bits from the lowest
 * up), config/config1/config2 set a whole word, period= a fixed period, name= the event's name.
 * A term without a value is an event of events/ (its file holds a term list, "event=0xcd,
 * umask=0x1") or a format term set to 1. Later terms override earlier ones, as in perf.
 *
 * A core PMU (one whose hardware counts cycles) is "cpu" or "cpum_cf", or one with a "cpus" file
 * (cpu_core, cpu_atom, arm's): where sysfs has none, the hardware events cannot be had.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "events/events_int.h"
#include "util/util.h"

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A sysfs file of pmu into buf with its end of line cut; bytes or -errno. */
static long pmu_read(struct events_ctx *c, const char *pmu, const char *file, char *buf,
		     size_t cap)
{
	char path[PATH_MAX + 256];
	snprintf(path, sizeof(path), "%s/%s/%s", c->sysfs, pmu, file);
	long n = read_small_file(path, buf, cap);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return n;
}

bool pmu_have_core(struct events_ctx *c)
{
	if (c->core_pmu >= 0)
		return c->core_pmu;
	c->core_pmu = 0;
	DIR *d = opendir(c->sysfs);
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL) {
		char path[PATH_MAX + 256];
		if (de->d_name[0] == '.')
			continue;
		bool have_cpus = (size_t)snprintf(path, sizeof(path), "%s/%s/cpus", c->sysfs,
						  de->d_name) < sizeof(path) && is_file(path);
		if (!strcmp(de->d_name, "cpu") || !strcmp(de->d_name, "cpum_cf") || have_cpus) {
			c->core_pmu = 1;
			break;
		}
	}
	if (d)
		closedir(d);
	return c->core_pmu;
}

int pmu_type(struct events_ctx *c, const char *pmu, uint32_t *type)
{
	char buf[32];
	uint64_t v;
	if (strchr(pmu, '/') || pmu[0] == '.' || pmu_read(c, pmu, "type", buf, sizeof(buf)) <= 0 ||
	    ev_number(buf, &v) || v > UINT32_MAX)
		return -1;
	*type = (uint32_t)v;
	return 0;
}

/* "config1:0-7,32-35" -> which word (0: config, 1: config1, 2: config2) and the bit mask. */
static int parse_format(const char *text, int *word, uint64_t *mask)
{
	const char *colon = strchr(text, ':');
	if (!colon)
		return -1;
	size_t wl = (size_t)(colon - text);
	if (wl == 6 && !strncmp(text, "config", 6))
		*word = 0;
	else if (wl == 7 && !strncmp(text, "config1", 7))
		*word = 1;
	else if (wl == 7 && !strncmp(text, "config2", 7))
		*word = 2;
	else
		return -1;
	*mask = 0;
	const char *p = colon + 1;
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;
		if (end == p)
			return -1;
		p = end;
		if (*p == '-') {
			hi = strtoul(p + 1, &end, 10);
			if (end == p + 1)
				return -1;
			p = end;
		}
		if (lo > hi || hi > 63)
			return -1;
		for (unsigned long b = lo; b <= hi; b++)
			*mask |= 1ull << b;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return *mask ? 0 : -1;
}

static __u64 *attr_word(struct perf_event_attr *a, int word)
{
	return word == 0 ? &a->config : word == 1 ? &a->config1 : &a->config2;
}

int pmu_set_format(struct events_ctx *c, const char *pmu, const char *term, uint64_t value,
		   struct perf_event_attr *attr, char *err, size_t errlen)
{
	char file[320], text[256];
	int word;
	uint64_t mask;
	if (strchr(term, '/') || term[0] == '.')
		return -ENOENT;
	snprintf(file, sizeof(file), "format/%s", term);
	if (pmu_read(c, pmu, file, text, sizeof(text)) <= 0)
		return -ENOENT;
	if (parse_format(text, &word, &mask)) {
		ev_err(err, errlen, "PMU '%s': cannot read its format of '%s' ('%s')", pmu, term, text);
		return -1;
	}
	uint64_t out = 0;
	unsigned used = 0;
	for (unsigned b = 0; b < 64; b++)
		if (mask & (1ull << b)) {
			if (used < 64 && (value >> used) & 1)
				out |= 1ull << b;
			used++;
		}
	if (used < 64 && value >> used) {
		ev_err(err, errlen, "PMU '%s': %s=0x%llx is too big for its %u bits (%s)", pmu, term,
		       (unsigned long long)value, used, text);
		return -1;
	}
	__u64 *w = attr_word(attr, word);
	*w = (*w & ~mask) | out;
	return 0;
}

/* An events/ name of pmu: its file (not the .scale/.unit/... companions), any case. */
static bool alias_file(struct events_ctx *c, const char *pmu, const char *alias, char *path,
		       size_t len)
{
	if (strchr(alias, '/') || alias[0] == '.' || strchr(alias, '.'))
		return false;
	char dir[PATH_MAX + 128];
	snprintf(dir, sizeof(dir), "%s/%s/events", c->sysfs, pmu);
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;
	while (d && !found && (de = readdir(d)) != NULL) {
		if (strcasecmp(de->d_name, alias) == 0) {
			found = (size_t)snprintf(path, len, "%s/%s", dir, de->d_name) < len &&
				is_file(path);
		}
	}
	if (d)
		closedir(d);
	return found;
}

static int apply_terms(struct events_ctx *c, const char *pmu, const char *terms,
		       struct sampler_event *ev, int depth, char *err, size_t errlen);

/* One term "name[=value]" of pmu into ev. */
static int apply_term(struct events_ctx *c, const char *pmu, const char *term,
		      struct sampler_event *ev, int depth, char *err, size_t errlen)
{
	char key[128];
	const char *eq = strchr(term, '=');
	size_t kl = eq ? (size_t)(eq - term) : strlen(term);
	if (kl == 0 || kl >= sizeof(key)) {
		ev_err(err, errlen, "event '%s': an empty or over-long term '%s'", ev->name, term);
		return -1;
	}
	memcpy(key, term, kl);
	key[kl] = '\0';
	const char *val = eq ? eq + 1 : NULL;
	if (!strcmp(key, "name") && val) {
		snprintf(ev->name, sizeof(ev->name), "%s", val);
		return 0;
	}
	uint64_t v = 1;
	if (val && (!strcmp(val, "?") || ev_number(val, &v))) {
		ev_err(err, errlen, "event '%s': %s wants a number%s, not '%s'", ev->name, key,
		       !strcmp(val, "?") ? " (the PMU's event leaves it to you)" : "", val);
		return -1;
	}
	if (!strcmp(key, "config") || !strcmp(key, "config1") || !strcmp(key, "config2")) {
		*attr_word(&ev->attr, key[6] ? key[6] - '0' : 0) = v;
		return 0;
	}
	if (!strcmp(key, "period")) {
		ev->attr.sample_period = v;
		ev->attr.freq = 0;
		return 0;
	}
	/* Without a value, an event of the PMU comes before a format term (as in perf). */
	char path[PATH_MAX + 256], text[1024];
	if (!val && depth == 0 && alias_file(c, pmu, key, path, sizeof(path))) {
		long n = read_small_file(path, text, sizeof(text));
		while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
			text[--n] = '\0';
		if (n <= 0) {
			ev_err(err, errlen, "event '%s': cannot read %s", ev->name, path);
			return -1;
		}
		return apply_terms(c, pmu, text, ev, depth + 1, err, errlen);
	}
	int r = pmu_set_format(c, pmu, key, v, &ev->attr, err, errlen);
	if (r != -ENOENT)
		return r;
	char formats[512];
	pmu_formats(c, pmu, formats, sizeof(formats));
	ev_err(err, errlen, "event '%s': PMU '%s' has no %s '%s' (its terms: %s%sconfig, config1, "
	       "config2, period, name; its events: perftop --list-events)", ev->name, pmu,
	       val ? "term" : "term or event", key, formats, formats[0] ? ", " : "");
	return -1;
}

static int apply_terms(struct events_ctx *c, const char *pmu, const char *terms,
		       struct sampler_event *ev, int depth, char *err, size_t errlen)
{
	char buf[1024];
	if (strlen(terms) >= sizeof(buf)) {
		ev_err(err, errlen, "event '%s': over-long terms", ev->name);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", terms);
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		while (*t == ' ')
			t++;
		if (*t && apply_term(c, pmu, t, ev, depth, err, errlen))
			return -1;
	}
	return 0;
}

static void list_pmu_name(void *arg, const char *pmu, const char *alias)
{
	char *buf = arg;
	size_t used = strlen(buf);
	if (!alias && used + strlen(pmu) + 3 < 512)
		snprintf(buf + used, 512 - used, "%s%s", used ? ", " : "", pmu);
}

int pmu_event(struct events_ctx *c, const char *pmu, const char *terms, struct sampler_event *ev,
	      char *err, size_t errlen)
{
	uint32_t type;
	if (pmu_type(c, pmu, &type)) {
		char names[512] = "";
		pmu_each(c, false, list_pmu_name, names);
		ev_err(err, errlen, "event '%s': no PMU '%s' in %s (PMUs here: %s)", ev->name, pmu,
		       c->sysfs, names[0] ? names : "none");
		return -1;
	}
	ev->attr.type = type;
	return apply_terms(c, pmu, terms, ev, 0, err, errlen);
}

int pmu_find_alias(struct events_ctx *c, const char *name, char *pmu, size_t len)
{
	DIR *d = opendir(c->sysfs);
	struct dirent *de;
	int found = 0;
	while (d && (de = readdir(d)) != NULL) {
		char path[PATH_MAX + 256];
		if (de->d_name[0] == '.' || !alias_file(c, de->d_name, name, path, sizeof(path)))
			continue;
		if (!found++)
			snprintf(pmu, len, "%s", de->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of a directory, sorted, without dot files and the .scale/.unit companions;
 * malloc'd (free each and the array). At most max. */
static size_t sorted_entries(const char *dir, char ***out, size_t max, bool skip_dotted)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0, cap = 0;
	char **v = NULL;
	while (d && n < max && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || (skip_dotted && strchr(de->d_name, '.')))
			continue;
		xgrow((void **)&v, &cap, n + 1, sizeof(*v));
		v[n++] = xstrdup(de->d_name);
	}
	if (d)
		closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_names);
	*out = v;
	return n;
}

static void free_entries(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* sysfs has tens of PMUs and at most a few thousand events each */
#define MAX_PMUS 512
#define MAX_ALIASES_PER_PMU 8192

void pmu_each(struct events_ctx *c, bool aliases,
	      void (*fn)(void *arg, const char *pmu, const char *alias), void *arg)
{
	char **pmus;
	size_t np = sorted_entries(c->sysfs, &pmus, MAX_PMUS, false);
	for (size_t i = 0; i < np; i++) {
		char dir[PATH_MAX + 256];
		snprintf(dir, sizeof(dir), "%s/%s", c->sysfs, pmus[i]);
		if (!is_dir(dir))
			continue;
		fn(arg, pmus[i], NULL);
		if (!aliases)
			continue;
		char **names;
		snprintf(dir, sizeof(dir), "%s/%s/events", c->sysfs, pmus[i]);
		size_t na = sorted_entries(dir, &names, MAX_ALIASES_PER_PMU, true);
		for (size_t j = 0; j < na; j++)
			fn(arg, pmus[i], names[j]);
		free_entries(names, na);
	}
	free_entries(pmus, np);
}

void pmu_formats(struct events_ctx *c, const char *pmu, char *buf, size_t len)
{
	char dir[PATH_MAX + 256], **names;
	size_t used = 0;
	snprintf(dir, sizeof(dir), "%s/%s/format", c->sysfs, pmu);
	size_t n = sorted_entries(dir, &names, 64, false);
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
		if (w > 0)
			used += (size_t)w;
	}
	free_entries(names, n);
}
