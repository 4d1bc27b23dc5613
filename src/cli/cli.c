/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli: option parsing for perftop. Options follow perf top's where perf top has them (-p, -t, -a,
 * -C, -e, -F, -c, -s, -z, -d, --call-graph) and top's for batch mode (-b, -n, -d). A command to
 * profile comes after "--" (or as the first non-option word).
 *
 * Every option is one entry of the table below; what the entry's set function cannot see (the
 * sort keys, which targets were named) waits in struct cli_parsing until argv is read, and the
 * checks that span options (one target, --time only with -i) run once at the end. An option that
 * only stores its value or turns a flag on names the member (offsetof) instead of having a
 * function of its own.
 */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/events.h"
#include "export/export.h"
#include "push/push.h"
#include "util/util.h"
#include "version.h"

struct cli_parsing {
	struct cli *c;
	const char *sort_spec;
	bool have_pids, have_tids, have_all;
	bool freq_given;      /* -F: it wins over the every-hit default of tracepoints and probes */
	bool push_given;      /* one of the --push options */
	char *err;
	size_t errlen;
};

/* Parses "1,2,3" (and "0-3" ranges when ranges is set) into out; returns count or -1. */
static int parse_id_list(const char *s, int *out, int max, bool ranges)
{
	int n = 0;
	const char *p = s;
	while (*p) {
		char *end;
		errno = 0;
		long a = strtol(p, &end, 10);
		if (end == p || errno || a < 0 || a > INT_MAX)
			return -1;
		long b = a;
		p = end;
		if (ranges && *p == '-') {
			p++;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b > INT_MAX)
				return -1;
			p = end;
		}
		for (long v = a; v <= b; v++) {
			if (n >= max)
				return -1;
			out[n++] = (int)v;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return n;
}

static int parse_positive(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno || !(v > 0))
		return -1;
	*out = v;
	return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || *end || errno || v == 0 || s[0] == '-')
		return -1;
	*out = v;
	return 0;
}

static void describe_target(struct cli *c, int argc, char **argv, int first_arg)
{
	struct sampler_opts *o = &c->session.sampler;
	size_t cap = sizeof(c->session.target_text), len = 0;
	char *t = c->session.target_text;
	switch (o->target) {
	case TARGET_SYSTEM:
		snprintf(t, cap, "all CPUs");
		return;
	case TARGET_CPUS:
	case TARGET_PIDS:
	case TARGET_TIDS: {
		const char *what = o->target == TARGET_CPUS ? "CPU" : o->target == TARGET_PIDS ? "pid" : "tid";
		const int *v = o->target == TARGET_CPUS ? o->cpus : o->ids;
		int n = o->target == TARGET_CPUS ? o->ncpus : o->nids;
		len = (size_t)snprintf(t, cap, "%s%s ", what, n > 1 ? "s" : "");
		for (int i = 0; i < n && len < cap; i++)
			len += (size_t)snprintf(t + len, cap - len, "%s%d", i ? "," : "", v[i]);
		return;
	}
	case TARGET_COMMAND:
		len = (size_t)snprintf(t, cap, "command:");
		for (int i = first_arg; i < argc && len < cap; i++)
			len += (size_t)snprintf(t + len, cap - len, " %s", argv[i]);
		return;
	}
}


/* --- what each option does --- */

static enum cli_result set_flag(struct cli_parsing *p, const struct cli_option *o, const char *arg)
{
	(void)arg;
	*(bool *)((char *)p->c + o->field) = true;
	return CLI_OK;
}

static enum cli_result set_text(struct cli_parsing *p, const struct cli_option *o, const char *arg)
{
	*(const char **)((char *)p->c + o->field) = arg;
	return CLI_OK;
}

static enum cli_result fail(struct cli_parsing *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static enum cli_result fail(struct cli_parsing *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
	return CLI_ERROR;
}

/* --kallsyms FILE: read when the first kernel address is named; a file that cannot be read is said
 * now rather than as a warning after the replay. */
static enum cli_result set_kallsyms(struct cli_parsing *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	if (access(arg, R_OK) != 0)
		return fail(p, "--kallsyms %s: %s", arg, strerror(errno));
	p->c->session.kallsyms = arg;
	return CLI_OK;
}

/* The events' parsing context: what it learnt of sysfs and tracefs, and the strings the events'
 * attrs point to (a uprobe's path), which live as long as the program: the cli owns them. */
static struct events_ctx *cli_events;

static struct events_ctx *events_ctx(void)
{
	if (!cli_events)
		cli_events = events_ctx_new(NULL);
	return cli_events;
}

/* -e TEXT, repeatable: its events join those of the earlier ones. */
static enum cli_result set_event(struct cli_parsing *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	struct cli *c = p->c;
	int n = events_parse(events_ctx(), arg, c->events, c->nevents, SAMPLER_MAX_EVENTS, p->err,
			     p->errlen);
	if (n < 0)
		return CLI_ERROR;
	c->nevents = n;
	c->session.sampler.events = c->events;
	c->session.sampler.nevents = n;
	return CLI_OK;
}

/* --filter EXPR: the kernel filter of the tracepoint (or probe) just before it. */
static enum cli_result set_filter(struct cli_parsing *p, const struct cli_option *o,
				  const char *arg)
{
	(void)o;
	struct cli *c = p->c;
	return events_set_filter(events_ctx(), c->events, c->nevents, arg, p->err, p->errlen)
		       ? CLI_ERROR : CLI_OK;
}

static enum cli_result list_events(struct cli_parsing *p, const struct cli_option *o,
				   const char *arg)
{
	(void)o;
	(void)arg;
	if (events_list(events_ctx(), stdout) != 0 || fflush(stdout) != 0)
		return fail(p, "--list-events: cannot write the list");
	return CLI_EXIT_OK;
}

/* --off-cpu and --wall */
static enum cli_result set_mode(struct cli_parsing *p, const struct cli_option *o, const char *arg)
{
	(void)arg;
	enum profile_mode m = !strcmp(o->name, "wall") ? PROFILE_WALL : PROFILE_OFFCPU;
	if (p->c->session.mode != PROFILE_SAMPLES && p->c->session.mode != m)
		return fail(p, "--off-cpu and --wall: choose one (--wall has the off-CPU time too)");
	p->c->session.mode = m;
	return CLI_OK;
}

static enum cli_result set_min_block(struct cli_parsing *p, const struct cli_option *o,
				     const char *arg)
{
	(void)o;
	char *end;
	double ms = strtod(arg, &end);
	if (end == arg || *end || !(ms >= 0) || ms > 3.6e6)
		return fail(p, "--min-block: '%s' is not a number of milliseconds (0 to 3600000)", arg);
	p->c->session.min_block_ns = (uint64_t)(ms * 1e6);
	return CLI_OK;
}

/* -p and -t */
static enum cli_result set_ids(struct cli_parsing *p, const struct cli_option *o, const char *arg)
{
	int n = parse_id_list(arg, p->c->ids, CLI_MAX_IDS, false);
	if (n <= 0)
		return fail(p, "-%c wants a comma-separated list of %s, not '%s'", o->letter,
			    o->letter == 'p' ? "process ids" : "thread ids", arg);
	p->c->session.sampler.nids = n;
	if (o->letter == 'p')
		p->have_pids = true;
	else
		p->have_tids = true;
	return CLI_OK;
}

static enum cli_result set_all(struct cli_parsing *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	(void)arg;
	p->have_all = true;
	return CLI_OK;
}

static enum cli_result set_cpus(struct cli_parsing *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	int n = parse_id_list(arg, p->c->cpus, CLI_MAX_IDS, true);
	if (n <= 0)
		return fail(p, "-C wants a CPU list like 0-3,7, not '%s'", arg);
	p->c->session.sampler.ncpus = n;
	return CLI_OK;
}

/* -G PATH[,PATH...], repeatable: the paths are kept in a copy of the value the cli owns (for the
 * program's life, as the events' strings). */
static enum cli_result set_cgroups(struct cli_parsing *p, const struct cli_option *o,
				   const char *arg)
{
	(void)o;
	struct cli *c = p->c;
	if (!arg[0])
		return fail(p, "-G wants cgroup paths, e.g. -G /docker/abc,system.slice");
	char *copy = xstrdup(arg), *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (c->ncgroups == SAMPLER_MAX_CGROUPS)
			return fail(p, "-G: at most %d cgroups", SAMPLER_MAX_CGROUPS);
		c->cgroups[c->ncgroups++] = t;
	}
	c->session.sampler.cgroups = c->cgroups;
	c->session.sampler.ncgroups = c->ncgroups;
	return CLI_OK;
}

static enum cli_result set_freq(struct cli_parsing *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	if (parse_u64(arg, &p->c->session.sampler.freq))
		return fail(p, "-F wants a positive frequency in Hz, not '%s'", arg);
	p->c->session.sampler.period = 0;
	p->freq_given = true;
	return CLI_OK;
}

static enum cli_result set_python_rate(struct cli_parsing *p, const struct cli_option *o,
				       const char *arg)
{
	(void)o;
	if (parse_u64(arg, &p->c->session.python_rate) || p->c->session.python_rate > 1000)
		return fail(p, "--python-rate wants reads a second, 1 to 1000, not '%s'", arg);
	return CLI_OK;
}

static enum cli_result set_count(struct cli_parsing *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	if (parse_u64(arg, &p->c->session.sampler.period))
		return fail(p, "-c wants a positive sample period, not '%s'", arg);
	return CLI_OK;
}

static enum cli_result set_sort(struct cli_parsing *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	p->sort_spec = arg; /* parsed at the end, with the other checks */
	return CLI_OK;
}

static enum cli_result set_delay(struct cli_parsing *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	if (parse_positive(arg, &p->c->delay) || p->c->delay < 0.05)
		return fail(p, "-d wants seconds >= 0.05, not '%s'", arg);
	p->c->delay_given = true;
	return CLI_OK;
}

static enum cli_result set_iterations(struct cli_parsing *p, const struct cli_option *o,
				      const char *arg)
{
	(void)o;
	uint64_t n = 0;
	if (strcmp(arg, "0") && (parse_u64(arg, &n) || n > 1000000000))
		return fail(p, "-n wants a number of refreshes (0: until stopped), not '%s'", arg);
	p->c->iterations = (long)n;
	return CLI_OK;
}

static enum cli_result set_time(struct cli_parsing *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	struct cli *c = p->c;
	char *end;
	c->time_start = strtod(arg, &end);
	if (end == arg || *end != ',' || c->time_start < 0)
		return fail(p, "--time wants START,END in seconds from the start, not '%s'", arg);
	const char *e = end + 1;
	c->time_end = *e ? strtod(e, &end) : 1e18;
	if ((*e && (end == e || *end)) || c->time_end <= c->time_start)
		return fail(p, "--time wants START,END with END > START, not '%s'", arg);
	c->have_time = true;
	return CLI_OK;
}

static enum cli_result set_header(struct cli_parsing *p, const struct cli_option *o,
				  const char *arg)
{
	(void)o;
	(void)arg;
	p->c->header_only = true;
	p->c->batch = true;
	return CLI_OK;
}

/* -i FILE, repeatable: the files of one session, played in order (perfdata_open_files). */
static enum cli_result set_input(struct cli_parsing *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	struct cli *c = p->c;
	if (c->session.ninputs == CLI_MAX_INPUTS)
		return fail(p, "at most %d -i files", CLI_MAX_INPUTS);
	c->session.inputs[c->session.ninputs++] = arg;
	c->session.input = c->session.inputs[0];
	return CLI_OK;
}

static enum cli_result set_prefix(struct cli_parsing *p, const struct cli_option *o,
				  const char *arg)
{
	(void)o;
	if (!strchr(arg, '=') || arg[0] == '=')
		return fail(p, "--prefix wants OLD=NEW (a build path and where it is here), not '%s'", arg);
	if (p->c->nprefixes == CLI_MAX_PREFIXES)
		return fail(p, "at most %d --prefix options", CLI_MAX_PREFIXES);
	p->c->prefixes[p->c->nprefixes++] = arg;
	return CLI_OK;
}

static enum cli_result set_export(struct cli_parsing *p, const struct cli_option *o,
				  const char *arg)
{
	(void)o;
	if (export_format_of(arg) == EXPORT_NONE)
		return fail(p, "--export %s: the format goes by the name: %s", arg, export_formats_text());
	if (p->c->nexports == CLI_MAX_EXPORTS)
		return fail(p, "at most %d --export options", CLI_MAX_EXPORTS);
	p->c->exports[p->c->nexports++] = arg;
	return CLI_OK;
}

static enum cli_result set_fp(struct cli_parsing *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	(void)arg;
	p->c->session.sampler.callchain = true;
	p->c->session.sampler.dwarf_stack = 0;
	p->c->session.sampler.head_stack = SAMPLER_HEAD_STACK_DEFAULT;
	p->c->session.sampler.lbr = false;
	return CLI_OK;
}

static enum cli_result set_call_graph(struct cli_parsing *p, const struct cli_option *o,
				      const char *arg)
{
	(void)o;
	struct sampler_opts *so = &p->c->session.sampler;
	so->dwarf_stack = 0;
	so->head_stack = 0;
	so->lbr = false;
	if (!strcmp(arg, "lbr")) {
		so->callchain = true;
		so->lbr = true;
		return CLI_OK;
	}
	if (!strcmp(arg, "none") || !strcmp(arg, "no")) {
		so->callchain = false;
		return CLI_OK;
	}
	if (!strcmp(arg, "fp")) {
		so->callchain = true;
		return CLI_OK;
	}
	if (!strcmp(arg, "yes") || !strncmp(arg, "fp+cfi", 6)) {
		so->callchain = true;
		so->head_stack = SAMPLER_HEAD_STACK_DEFAULT;
		uint64_t size = so->head_stack;
		const char *tail = arg[0] == 'y' ? "" : arg + 6;
		if (*tail && (*tail != ',' || parse_u64(tail + 1, &size) || size == 0 ||
			      size > SAMPLER_DWARF_STACK_MAX || size % 8))
			return fail(p, "--call-graph fp+cfi,SIZE wants a multiple of 8 up to %u, not '%s'",
				    SAMPLER_DWARF_STACK_MAX, *tail == ',' ? tail + 1 : arg);
		so->head_stack = (unsigned)size;
		return CLI_OK;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ','))
		return fail(p, "--call-graph wants fp+cfi[,SIZE], fp, dwarf[,SIZE], lbr or none, not '%s'",
			    arg);
	uint64_t size = SAMPLER_DWARF_STACK_DEFAULT;
	if (arg[5] && (parse_u64(arg + 6, &size) || size == 0 || size > SAMPLER_DWARF_STACK_MAX ||
		       size % 8))
		return fail(p, "--call-graph dwarf,SIZE wants a multiple of 8 up to %u, not '%s'",
			    SAMPLER_DWARF_STACK_MAX, arg + 6);
	so->callchain = true;
	so->dwarf_stack = (unsigned)size;
	return CLI_OK;
}

/* -u USER: looked up now, so that an unknown user is one line before anything starts. */
static enum cli_result set_user(struct cli_parsing *p, const struct cli_option *o, const char *arg)
{
	(void)o;
	if (sampler_user_lookup(arg, &p->c->run_as, p->err, p->errlen))
		return CLI_ERROR;
	p->c->have_user = true;
	return CLI_OK;
}

/* --push URL and its companions: each value is checked here, so a mistake is one line at start. */
static enum cli_result set_push(struct cli_parsing *p, const struct cli_option *o, const char *arg)
{
	struct cli *c = p->c;
	const char *n = o->name;
	if (!strcmp(n, "push")) {
		if (push_check_url(arg, p->err, p->errlen))
			return CLI_ERROR;
		c->session.push_url = xstrdup(arg);
		push_mask_url_arg((char *)arg); /* argv itself: /proc/PID/cmdline, a recording's */
	} else if (!strcmp(n, "push-name")) {
		if (push_check_name(arg, p->err, p->errlen))
			return CLI_ERROR;
		c->session.push_name = arg;
	} else if (!strcmp(n, "push-label")) {
		if (push_check_label(arg, p->err, p->errlen))
			return CLI_ERROR;
		if (c->session.npush_labels == PUSH_MAX_LABELS - 1) /* one left for hostname= */
			return fail(p, "at most %d --push-label options", PUSH_MAX_LABELS - 1);
		c->session.push_labels[c->session.npush_labels++] = arg;
	} else if (!strcmp(n, "push-header")) {
		if (push_check_header(arg, p->err, p->errlen))
			return CLI_ERROR;
		if (c->session.npush_headers == PUSH_MAX_HEADERS)
			return fail(p, "at most %d --push-header options", PUSH_MAX_HEADERS);
		c->session.push_headers[c->session.npush_headers++] = xstrdup(arg);
		push_mask_header_arg((char *)arg);
	} else if (!strcmp(n, "push-header-file")) {
		char *text = push_read_header_file(arg, p->err, p->errlen);
		char from[300];
		snprintf(from, sizeof(from), "--push-header-file %s", arg);
		if (!text || push_parse_headers(text, from, c->session.push_headers, PUSH_MAX_HEADERS,
						&c->session.npush_headers, p->err, p->errlen))
			return CLI_ERROR; /* the text, kept on success, is the session's to its end */
	} else if (!strcmp(n, "push-cacert")) {
		int fd = open(arg, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			return fail(p, "--push-cacert %s: %s", arg, strerror(errno));
		close(fd);
		c->session.push_cacert = arg;
	} else if (!strcmp(n, "push-interval")) {
		if (parse_positive(arg, &c->session.push_interval) || c->session.push_interval < 1 ||
		    c->session.push_interval > 3600)
			return fail(p, "--push-interval wants seconds from 1 to 3600, not '%s'", arg);
	} else if (!strcmp(n, "push-per")) {
		if (strcmp(arg, "container"))
			return fail(p, "--push-per wants 'container', not '%s'", arg);
		c->session.push_per_container = true;
	} else {
		uint64_t q;
		if (parse_u64(arg, &q) || q > PUSH_QUEUE_MAX)
			return fail(p, "--push-queue wants a number of profiles from 1 to %d, not '%s'",
				    PUSH_QUEUE_MAX, arg);
		c->session.push_queue = (int)q;
	}
	p->push_given = true;
	return CLI_OK;
}

/* -h, -V and the hidden --markdown-options: print, and exit at once. */
static enum cli_result show(struct cli_parsing *p, const struct cli_option *o, const char *arg)
{
	(void)p;
	(void)arg;
	if (o->letter == 'V')
		printf("perftop %s (git %s)\n", perftop_version, perftop_git_rev);
	else if (o->letter == 'h')
		cli_usage(stdout);
	else
		cli_markdown(stdout);
	return CLI_EXIT_OK;
}

/* --- the table --- */

#define FIELD(m) offsetof(struct cli, m)
#define SESSION_FIELD(m) offsetof(struct cli, session.m)
#define OPT(long_name, short_name, value, sec) \
	.name = long_name, .letter = short_name, .arg = value, .section = sec

static const struct cli_option options[] = {
	{ OPT("pid", 'p', "PID[,PID...]", CLI_TARGETS), .set = set_ids,
	  .help = "processes: all their threads, and threads/children started later",
	  .doc = "running processes: all their threads, and threads and children they start "
		"later" },

	{ OPT("tid", 't', "TID[,TID...]", CLI_TARGETS), .set = set_ids,
	  .help = "just these threads" },

	{ OPT("all-cpus", 'a', NULL, CLI_TARGETS), .set = set_all,
	  .help = "the whole system (root or kernel.perf_event_paranoid <= 0)",
	  .doc = "the whole system (the default when there is no target and no command, like "
		"perf top)" },

	{ OPT("cpu", 'C', "LIST", CLI_TARGETS), .set = set_cpus,
	  .help = "only these CPUs, e.g. 0-3,7",
	  .doc = "only these CPUs, e.g. `0-3,7`" },

	{ OPT("cgroup", 'G', "PATH[,PATH...]", CLI_TARGETS), .set = set_cgroups,
	  .help = "with -a or -C: only the tasks of these cgroups (paths under the\n"
		"perf_event hierarchy's mount, as perf's -G), every event",
	  .doc = "with `-a` or `-C`: only the tasks of these cgroups and their descendants (paths "
		"relative to the mount of the cgroup hierarchy the perf_event controller is on, or "
		"absolute under it, as `perf record -G` takes them; at most 64; repeatable): every "
		"event is opened per CPU per cgroup, so the kernel drops the other tasks' samples" },

	{ OPT(NULL, 0, "COMMAND ARGS", CLI_TARGETS),
	  .help = "start COMMAND and profile it and its children",
	  .doc = "start COMMAND and profile it, its threads and children (enabled at exec)" },

	{ OPT("user", 'u', "USER", CLI_TARGETS), .set = set_user,
	  .help = "run COMMAND as USER (its uid, gid, groups, HOME; perftop stays\n"
		"root): sudo perftop -u $USER -- ./prog",
	  .doc = "start COMMAND as USER, as `strace -u` does: USER's uid, gid and groups, and "
		"`HOME`, `USER`, `LOGNAME` set to USER's; perftop itself runs as root (`sudo perftop "
		"-u $USER -- ./prog`: the program is not run as root)" },

	{ OPT("output", 'o', "FILE", CLI_RECORDING), .set = set_text, .field = SESSION_FIELD(output),
	  .help = "record the session as a perf.data file (perf report reads it;\n"
		"- = a stream on stdout: the view on /dev/tty, -b text on stderr)",
	  .doc = "also record the session to FILE as perf.data (see Recording); `-`: perf's stream "
		"form on standard output (`perftop -o - | perftop -i -`), the view then on the "
		"terminal (/dev/tty), `-b` text on standard error" },

	{ OPT("input", 'i', "FILE", CLI_RECORDING), .set = set_input,
	  .help = "replay a recording (perftop's or perf record's; - = stdin;\n"
		"a directory of --threads; repeated: one session's files in order)",
	  .doc = "replay a recording (perftop's or `perf record`'s; `-` = stdin; the directory of "
		"`perf record --threads`; repeated, the files of one `--switch-output` session, "
		"played in order) instead of sampling (see Replay)" },

	{ OPT("export", 0, "FILE", CLI_RECORDING), .set = set_export,
	  .help = "at the end of the session or replay, write its whole profile to\n"
		"FILE: pprof (*.pb.gz, *.pprof), speedscope (*.speedscope.json) or\n"
		"folded stacks (*.folded), by the name; repeatable",
	  .doc = "at the end of the session (`-b`, or when the view quits) or of a replay, write its whole profile to FILE, "
		"in the format its name says: pprof (`*.pb.gz`, `*.pprof`), speedscope "
		"(`*.speedscope.json`) or folded stacks (`*.folded`); repeatable (see Exports)" },

	{ OPT("time", 0, "START,END", CLI_RECORDING), .set = set_time,
	  .help = "replay: aggregate only this range (seconds from the start)" },

	{ OPT("select-event", 0, "NAME", CLI_RECORDING), .set = set_text,
	  .field = SESSION_FIELD(event_select),
	  .help = "replay: which event of a file with several" },

	{ OPT("header", 0, NULL, CLI_RECORDING), .set = set_header,
	  .help = "replay: print the recording's header info and exit" },

	{ OPT("diff", 0, "BASE", CLI_RECORDING), .set = set_text, .field = SESSION_FIELD(diff_base),
	  .help = "compare with the recording BASE: a Δ column (Self% now\n"
		"minus Self% in BASE), rows ordered by the change",
	  .doc = "compare with the recording BASE: a Δ column (Self% now minus Self% in BASE), "
		"rows ordered by the change (see Diff against a baseline)" },

	{ OPT("event", 'e', "EVENT", CLI_SAMPLING), .set = set_event,
	  .help = "what to sample, in perf's words: cpu-clock, cycles:u,\n"
		"L1-dcache-load-misses, r01c2, cpu/event=0x3c/, sched:sched_switch,\n"
		"uprobe:PATH:FUNC, kprobe:FUNC, mem:ADDR, {a,b}; repeatable\n"
		"(default: cycles, or cpu-clock without a hardware PMU)",
	  .doc = "what to sample, in perf's words (see Events): `cpu-clock`, `cycles:upp`, "
		"`L1-dcache-load-misses`, `r01c2`, `cpu/event=0x3c,umask=0/`, `sched:sched_switch`, "
		"`uprobe:PATH:FUNC[+OFF]`, `uretprobe:PATH:FUNC`, `kprobe:FUNC`, `mem:ADDR[/LEN][:rwx]`, "
		"`mem:SYMBOL`, `{a,b}:u`; `-e a,b` or `-e a -e b`. Default `cycles`, or `cpu-clock` "
		"(with a one-line notice) where the CPU has no hardware PMU" },

	{ OPT("filter", 0, "EXPR", CLI_SAMPLING), .set = set_filter,
	  .help = "the kernel filter of the tracepoint or probe just before it,\n"
		"e.g. -e sched:sched_switch --filter 'prev_pid != 0'",
	  .doc = "the kernel filter of the tracepoint or probe of the `-e` just before it, e.g. "
		"`-e sched:sched_switch --filter 'prev_pid != 0'`" },

	{ OPT("list-events", 0, NULL, CLI_SAMPLING), .set = list_events,
	  .help = "every event this machine offers, and whether it is usable here",
	  .doc = "list every event this machine offers, grouped like `perf list`, each marked "
		"usable here or not and why, and exit" },

	{ OPT("off-cpu", 0, NULL, CLI_SAMPLING), .set = set_mode,
	  .help = "off-CPU time: where threads wait (sleep, I/O, locks, the run\n"
		"queue), in nanoseconds, charged to the stack that blocked",
	  .doc = "off-CPU time: where threads wait (sleeping, on I/O, on a lock, on the run queue), "
		"charged in nanoseconds to the stack that left the CPU (see Off-CPU and wall-clock "
		"time); with `-i`, of a `perf record -e sched:sched_switch --switch-events -g` "
		"recording or of perftop's own" },

	{ OPT("wall", 0, NULL, CLI_SAMPLING), .set = set_mode,
	  .help = "wall-clock time: on-CPU (cpu-clock) and off-CPU time in one\n"
		"profile, every thread's whole time",
	  .doc = "wall-clock time: on-CPU samples of cpu-clock (their period in nanoseconds) and "
		"off-CPU time in one profile, so that Total% is a share of the threads' wall time" },

	{ OPT("min-block", 0, "MS", CLI_SAMPLING), .set = set_min_block,
	  .help = "--off-cpu, --wall: leave out blocks shorter than MS milliseconds",
	  .doc = "with `--off-cpu` or `--wall`: leave out blocks shorter than MS milliseconds" },

	{ OPT("freq", 'F', "HZ", CLI_SAMPLING), .set = set_freq,
	  .help = "samples per second (default 999; tracepoints, probes and\n"
		"breakpoints: every hit unless -F or -c)",
	  .doc = "samples per second (default 999; tracepoints, probes and breakpoints take a "
		"sample at every hit unless `-F` or `-c` is given)" },

	{ OPT("count", 'c', "PERIOD", CLI_SAMPLING), .set = set_count,
	  .help = "sample every PERIOD events instead of a frequency",
	  .doc = "a sample every PERIOD events instead; samples then carry no period field, as "
		"with `perf record -c` (with one, the kernel samples software events such as "
		"page-faults at every event)" },

	{ OPT(NULL, 'g', NULL, CLI_SAMPLING), .set = set_fp,
	  .help = "frame-pointer call graphs (the default: --call-graph fp+cfi)",
	  .doc = "frame-pointer call graphs, their first frames from CFI (on by default: "
		"`--call-graph fp+cfi`). `-g` takes no argument (`-g none` would run a command named "
		"`none`)" },

	{ OPT("call-graph", 0, "fp+cfi[,SIZE]|fp|dwarf[,SIZE]|lbr|none", CLI_SAMPLING),
	  .set = set_call_graph,
	  .help = "frame pointers whose first frames come from CFI over\n"
		"SIZE bytes of stack (the default, 256), frame pointers\n"
		"alone, DWARF unwinding of SIZE bytes of user stack per\n"
		"sample (default 8192, at most 65528), the LBR call stack\n"
		"(Intel hardware events), or none",
	  .doc = "frame pointers whose first frames come from CFI (`fp+cfi`, the default): each "
		"sample also carries the user registers and the top SIZE bytes of the user stack "
		"(default 256), and where the sampled code has no frame record of its own (a libc "
		"function built without frame pointers, a function's first or last instructions, a "
		"probe at its entry) the frames the kernel's frame-pointer walk skips are stepped "
		"from `.eh_frame`, then its chain goes on; frame pointers alone (`fp`, what `perf "
		"record -g` samples), DWARF unwinding of SIZE bytes of user stack "
		"copied with each sample (`dwarf`, default 8192, at most 65528), the CPU's last "
		"branch records in call-stack mode (`lbr`: Intel CPUs' hardware events only, as "
		"perf's; the user chain needs neither frame pointers nor stack copies, and is at "
		"most as deep as the CPU's LBR, 16 to 32 calls), or `none`. Replays of "
		"`perf record --call-graph lbr` files take their chains from the branch stacks "
		"whatever this says" },

	{ OPT("buildid-mmap", 0, NULL, CLI_NAMES), .set = set_flag,
	  .field = SESSION_FIELD(sampler.buildid_mmap),
	  .help = "ask the kernel for build-ids in mmap records (off, as in perf:\n"
		"kernels leak the flag into other tools' recordings meanwhile)",
	  .doc = "ask the kernel for build-ids in mmap records. Off by default, as in perf: "
		"while any event on the machine asks for them, kernels (6.18 here) mark every "
		"other tool's MMAP2 records as build-id ones over inode payloads, and `perf "
		"report` 6.1 aborts on such files (`assertion failed at util/build-id.c:1010`). "
		"perftop reads such files either way" },

	{ OPT("inline", 0, NULL, CLI_NAMES), .set = set_flag, .field = SESSION_FIELD(inline_frames),
	  .help = "expand DWARF inline frames everywhere (by default only in\n"
		"replays of --call-graph dwarf recordings, like perf report)",
	  .doc = "expand DWARF inline frames everywhere. By default they are expanded only in "
		"replays of `--call-graph dwarf` recordings, which is where `perf report` "
		"expands them (it shows none in frame-pointer chains, even with `--inline`, and "
		"perf top none at all): the first inline lookup in a binary reads its DWARF" },

	{ OPT("no-inline", 0, NULL, CLI_NAMES), .set = set_flag, .field = SESSION_FIELD(no_inline),
	  .help = "no inline frames at all" },

	{ OPT("no-python", 0, NULL, CLI_NAMES), .set = set_flag, .field = SESSION_FIELD(no_python),
	  .help = "no Python functions: CPython's interpreter frames as they are",
	  .doc = "no Python functions in CPython processes: the interpreter's own frames "
		"(`_PyEval_EvalFrameDefault` ...) as they are (see Python frames)" },

	{ OPT("python-rate", 0, "HZ", CLI_NAMES), .set = set_python_rate,
	  .help = "read Python stacks HZ times a second (default: by CPU budget)",
	  .doc = "read each sampled Python thread's stack HZ times a second on average (1 to 1000; "
		"not more often than samples come, or than 50 times a second below -F 50). By "
		"default as often as a quarter of the rest of perftop's CPU allows, from 100 Hz up to "
		"the sampling rate: fewer reads cost less, and a sample is further from the read "
		"that gives its Python stack (see Python frames)" },

	{ OPT("no-jit-attach", 0, NULL, CLI_NAMES), .set = set_flag,
	  .field = SESSION_FIELD(no_jit_attach),
	  .help = "do not ask HotSpot JVMs for their perf map (their JIT\n"
		"frames then stay addresses unless /tmp/perf-PID.map exists)",
	  .doc = "do not ask HotSpot JVMs for their perf map. By default a JVM (a process that maps "
		"`libjvm.so`) whose JIT code its `/tmp/perf-PID.map` does not name is asked to write "
		"it through HotSpot's attach protocol, as `jcmd PID Compiler.perfmap` does (a SIGQUIT "
		"if its attach listener is not running yet), from a thread of its own; again while its "
		"map keeps missing, every 5 s at most, or 2 s when a tenth of its JIT frames miss (see "
		"JVM frames)" },

	{ OPT("no-demangle", 0, NULL, CLI_NAMES), .set = set_flag, .field = SESSION_FIELD(no_demangle),
	  .help = "raw C++/Rust symbol names (the m key toggles them)",
	  .doc = "raw C++/Rust symbol names (the `m` key toggles them)" },

	{ OPT("symfs", 0, "DIR", CLI_NAMES), .set = set_text, .field = FIELD(symfs),
	  .help = "look binaries and debug files up under DIR first\n"
		"(debuginfod is asked in the background when DEBUGINFOD_URLS is set)",
	  .doc = "look binaries and debug files up under DIR first (a recording from another "
		"machine)" },

	{ OPT("kallsyms", 0, "FILE", CLI_NAMES), .set = set_kallsyms,
	  .help = "replay: name kernel addresses from FILE (a copy of the\n"
		"recording machine's /proc/kallsyms), whatever kernel runs here",
	  .doc = "name a replay's kernel addresses from FILE, a copy of the recording machine's "
		"`/proc/kallsyms` (as `perf report --kallsyms`). Without it they are named from this "
		"machine's kallsyms only when the recording's kernel is this one (its build-id, or "
		"its `_text` where this kernel has it), else shown as addresses" },

	{ OPT("prefix", 0, "OLD=NEW", CLI_NAMES), .set = set_prefix,
	  .help = "annotate: read a source file built under OLD from NEW (repeatable)" },

	{ OPT("sort", 's', "KEYS", CLI_VIEW), .set = set_sort,
	  .help = "comm,pid,tid,dso,sym,srcline,state,cgroup,container (default dso,sym)",
	  .doc = "rows by `comm`, `pid`, `tid`, `dso`, `sym`, `srcline`, `state` (how an off-CPU "
		 "block began: `S`, `D`, `R+` ...; `on-CPU`), `cgroup` (its path) or `container` "
		 "(a container's name or id, a pod, a systemd unit, `host`: [containers](docs/containers.md)) "
		 "(default `dso,sym`)" },

	{ OPT("delay", 'd', "SECS", CLI_VIEW), .set = set_delay,
	  .help = "refresh interval (default 1)" },

	{ OPT("zero", 'z', NULL, CLI_VIEW), .set = set_flag, .field = FIELD(zero),
	  .help = "zero the histogram on each refresh instead of decaying it",
	  .doc = "zero the histogram at each refresh instead of decaying it (×7/8, like perf "
		"top)" },

	{ OPT("no-mouse", 0, NULL, CLI_VIEW), .set = set_flag, .field = FIELD(no_mouse),
	  .help = "leave the mouse to the terminal (no clicks or wheel in the view)" },

	{ OPT("batch", 'b', NULL, CLI_VIEW), .set = set_flag, .field = FIELD(batch),
	  .help = "print a plain table each refresh instead of the full-screen view",
	  .doc = "plain text every refresh, like `top -b`" },

	{ OPT("iterations", 'n', "N", CLI_VIEW), .set = set_iterations,
	  .help = "stop after N refreshes (0: run until SIGINT or SIGTERM)" },

	{ OPT("json", 0, NULL, CLI_VIEW), .set = set_flag, .field = FIELD(json),
	  .help = "with -b: each refresh is one JSON object on its own line",
	  .doc = "with `-b`: one JSON object per refresh, on a line of its own" },

	{ OPT("quiet", 'q', NULL, CLI_VIEW), .set = set_flag, .field = FIELD(quiet),
	  .help = "batch mode without its tables: only errors are printed (an agent\n"
		"that pushes: -a --push URL -q -n 0)",
	  .doc = "batch mode (`-b`) that prints no tables, only errors: a headless agent with "
		"`--push` (see Continuous profiling)" },

	{ OPT("help", 'h', NULL, CLI_VIEW), .set = show,
	  .help = "this text",
	  .doc = "print the options and exit" },

	{ OPT("version", 'V', NULL, CLI_VIEW), .set = show,
	  .help = "",
	  .doc = "print the version and exit" },

	{ OPT("markdown-options", 0, NULL, CLI_VIEW), .set = show, .flags = CLI_HIDDEN,
	  .help = "the README's option table" },

	{ OPT("push", 0, "URL", CLI_PUSH), .set = set_push,
	  .help = "every --push-interval, send the window's profile (pprof) to the\n"
		"Pyroscope server at URL: http[s]://[USER:PASSWORD@]HOST[:PORT][/PREFIX],\n"
		"or to Parca: parca[s]://HOST:PORT",
	  .doc = "every `--push-interval`, send the window's profile (gzipped pprof) to the "
		"Pyroscope server at URL, `http[s]://[USER:PASSWORD@]HOST[:PORT][/PREFIX]` "
		"(`POST URL/ingest`; USER:PASSWORD gives basic auth), or to the Parca server at "
		"`parca[s]://HOST:PORT`, from a thread of its own (see Continuous profiling)" },

	{ OPT("push-interval", 0, "SECS", CLI_PUSH), .set = set_push,
	  .help = "seconds between pushes (default 10, jittered by up to 10%)" },

	{ OPT("push-name", 0, "APP", CLI_PUSH), .set = set_push,
	  .help = "the application's name (default: the command's, -p's process's,\n"
		"else the host name)",
	  .doc = "the application's name on the server (default: the command's name, the "
		"process's with `-p`, else the host name)" },

	{ OPT("push-label", 0, "KEY=VALUE", CLI_PUSH), .set = set_push,
	  .help = "a label of the pushed series (repeatable; hostname=HOST is added)",
	  .doc = "a label of the pushed series, e.g. `env=prod` (repeatable; `hostname=HOST` is "
		"added unless given)" },

	{ OPT("push-header", 0, "'NAME: VALUE'", CLI_PUSH), .set = set_push,
	  .help = "an HTTP header of every push (repeatable), e.g. X-Scope-OrgID;\n"
		"seen in ps until perftop masks it: credentials go in --push-header-file",
	  .doc = "an HTTP header of every push (repeatable), e.g. `'X-Scope-OrgID: TENANT'` for a "
		"multi-tenant server. Every user sees a command line (`ps`) until perftop masks the "
		"value: credentials (`'Authorization: Bearer TOKEN'`) belong in `--push-header-file` "
		"or `PERFTOP_PUSH_HEADERS`" },

	{ OPT("push-header-file", 0, "FILE", CLI_PUSH), .set = set_push,
	  .help = "the HTTP headers of every push from FILE, one 'NAME: VALUE' a line:\n"
		"credentials out of ps (FILE must be readable by its owner alone)",
	  .doc = "the HTTP headers of every push, one `NAME: VALUE` a line, from FILE, which must be "
		"a regular file only its owner may read or write (`chmod 600`): credentials kept off "
		"the command line, which every user sees in `ps`; `PERFTOP_PUSH_HEADERS` (lines of the "
		"same form) is the other way (see [docs/security.md](docs/security.md))" },

	{ OPT("push-cacert", 0, "FILE", CLI_PUSH), .set = set_push,
	  .help = "the CA certificates (PEM) a push server's certificate is checked\n"
		"against: a private CA's (default: CURL_CA_BUNDLE, else the system's)" },

	{ OPT("push-per", 0, "container", CLI_PUSH), .set = set_push,
	  .help = "one series per container (labels container=, pod=, namespace=)",
	  .doc = "each window pushed as one series per container, with the labels `container`, and "
		"`pod` and `namespace` for Kubernetes (see Continuous profiling)" },

	{ OPT("push-queue", 0, "N", CLI_PUSH), .set = set_push,
	  .help = "profiles kept while the server is slow or down (default 16;\n"
		"the oldest is dropped first)" },
};

const struct cli_option *cli_options(size_t *n)
{
	*n = ARRAY_SIZE(options);
	return options;
}

const char *cli_section_title(enum cli_section s, bool long_form)
{
	static const char *const titles[CLI_SECTIONS] = {
		[CLI_TARGETS] = "Targets", [CLI_RECORDING] = "Recording and replay",
		[CLI_SAMPLING] = "Sampling", [CLI_NAMES] = "Names", [CLI_VIEW] = "View",
		[CLI_PUSH] = "Continuous profiling",
	};
	if (long_form && s == CLI_TARGETS)
		return "Targets (no target and no command = the whole system, like -a)";
	return s < CLI_SECTIONS ? titles[s] : "?";
}

void cli_option_names(const struct cli_option *o, bool indent, char *buf, size_t len)
{
	int n;
	if (o->letter && o->name)
		n = snprintf(buf, len, "-%c, --%s", o->letter, o->name);
	else if (o->letter)
		n = snprintf(buf, len, "-%c", o->letter);
	else if (o->name)
		n = snprintf(buf, len, "%s--%s", indent ? "    " : "", o->name);
	else
		n = snprintf(buf, len, "--");
	if (o->arg && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " %s", o->arg);
}

/* --help's layout: names in a column 27 wide after two spaces, help from column 29 (on a line of
 * its own when the names fill the column), its further lines under it. */
#define USAGE_NAMES_W 27

void cli_usage(FILE *out)
{
	fputs("usage: perftop [options] [-- COMMAND [ARGS...]]\n", out);
	int section = -1;
	for (size_t i = 0; i < ARRAY_SIZE(options); i++) {
		const struct cli_option *o = &options[i];
		if (o->flags & CLI_HIDDEN)
			continue;
		if ((int)o->section != section) {
			section = (int)o->section;
			fprintf(out, "\n%s:\n", cli_section_title(o->section, true));
		}
		char names[96];
		cli_option_names(o, true, names, sizeof(names));
		fprintf(out, "  %s", names);
		const char *h = o->help;
		if (!*h) {
			fputc('\n', out);
			continue;
		}
		int pad = USAGE_NAMES_W - (int)strlen(names);
		if (pad < 2)
			fprintf(out, "\n%*s", USAGE_NAMES_W + 2, "");
		else
			fprintf(out, "%*s", pad, "");
		for (const char *nl; (nl = strchr(h, '\n')); h = nl + 1)
			fprintf(out, "%.*s\n%*s", (int)(nl - h), h, USAGE_NAMES_W + 2, "");
		fprintf(out, "%s\n", h);
	}
}

void cli_markdown(FILE *out)
{
	fputs("| option | meaning |\n|---|---|\n", out);
	for (size_t i = 0; i < ARRAY_SIZE(options); i++) {
		const struct cli_option *o = &options[i];
		if (o->flags & CLI_HIDDEN)
			continue;
		char names[96];
		cli_option_names(o, false, names, sizeof(names));
		fputs("| `", out);
		for (const char *s = names; *s; s++)
			fprintf(out, *s == '|' ? "\\|" : "%c", *s); /* a | would end the cell */
		fputs("` | ", out);
		if (o->doc) {
			fputs(o->doc, out);
		} else {
			for (const char *h = o->help; *h; h++)
				fputc(*h == '\n' ? ' ' : *h, out);
		}
		fputs(" |\n", out);
	}
}

/* --- parsing --- */

/* getopt_long's val of an option: its letter, or past the chars for one without. */
#define LONG_ONLY_VAL 256

static const struct cli_option *option_by_val(int val)
{
	if (val >= LONG_ONLY_VAL)
		return (size_t)(val - LONG_ONLY_VAL) < ARRAY_SIZE(options) ? &options[val - LONG_ONLY_VAL]
									 : NULL;
	for (size_t i = 0; i < ARRAY_SIZE(options); i++)
		if (val && options[i].letter == val)
			return &options[i];
	return NULL;
}

/* getopt_long's lists from the table; '+' stops at the first non-option so that
 * "perftop python3 -c ..." keeps python's options. */
static void getopt_lists(struct option *longopts, char *shortopts)
{
	size_t nl = 0, ns = 0;
	shortopts[ns++] = '+';
	for (size_t i = 0; i < ARRAY_SIZE(options); i++) {
		const struct cli_option *o = &options[i];
		if (!o->set)
			continue;
		int val = o->letter ? o->letter : LONG_ONLY_VAL + (int)i;
		if (o->name)
			longopts[nl++] = (struct option){ .name = o->name, .val = val,
							  .has_arg = o->arg ? required_argument
									    : no_argument };
		if (o->letter) {
			shortopts[ns++] = o->letter;
			if (o->arg)
				shortopts[ns++] = ':';
		}
	}
	longopts[nl] = (struct option){ 0 };
	shortopts[ns] = '\0';
}

/* getopt_long said '?': an option without its value, a value given to one that takes none, or an
 * option there is no such. */
static enum cli_result bad_option(struct cli_parsing *p, char **argv)
{
	const struct cli_option *o = optopt ? option_by_val(optopt) : NULL;
	char names[96];
	if (o) {
		if (o->letter)
			snprintf(names, sizeof(names), "-%c", o->letter);
		else
			snprintf(names, sizeof(names), "--%s", o->name);
		if (o->arg)
			return fail(p, "option %s needs a value (see perftop --help)", names);
		return fail(p, "option --%s takes no value (see perftop --help)", o->name);
	}
	if (optopt)
		return fail(p, "unknown option -%c (see perftop --help)", optopt);
	return fail(p, "unknown option '%s' (see perftop --help)", argv[optind - 1]);
}

/* --off-cpu and --wall, live: their events (cpu-clock for wall's on-CPU time, at -F; the switches
 * of sched:sched_switch, every one) and the pairing's options, with the layout of the
 * tracepoint's fields from tracefs. */
static enum cli_result mode_events(struct cli_parsing *p)
{
	struct cli *c = p->c;
	if (c->nevents)
		return fail(p, "%s takes its own events (sched:sched_switch%s): no -e with it",
			    c->session.mode == PROFILE_WALL ? "--wall" : "--off-cpu",
			    c->session.mode == PROFILE_WALL ? " and cpu-clock" : "");
	if (c->session.sampler.period)
		return fail(p, "%s counts every switch: -c is not for it (-F sets wall's on-CPU rate)",
			    c->session.mode == PROFILE_WALL ? "--wall" : "--off-cpu");
	const char *text = c->session.mode == PROFILE_WALL ? "cpu-clock,sched:sched_switch"
						    : "sched:sched_switch";
	int n = events_parse(events_ctx(), text, c->events, 0, SAMPLER_MAX_EVENTS, p->err, p->errlen);
	if (n < 0)
		return CLI_ERROR;
	const char *tracefs = events_tracefs(events_ctx(), p->err, p->errlen);
	if (!tracefs)
		return CLI_ERROR;
	c->nevents = n;
	c->session.sampler.events = c->events;
	c->session.sampler.nevents = n;
	memset(&c->session.offcpu, 0, sizeof(c->session.offcpu));
	c->session.offcpu.switch_evidx = (uint32_t)(n - 1);
	c->session.offcpu.min_block_ns = c->session.min_block_ns;
	/* A thread blocked across a refresh is handed on in pieces, a quarter of a refresh apart
	 * (at least 50 ms, at most 1 s): a window then misses at most that of a long block, and a
	 * machine of many sleeping threads is not flooded with pieces. */
	double piece = c->delay / 4;
	c->session.offcpu.piece_ns = (uint64_t)((piece < 0.05 ? 0.05 : piece > 1 ? 1 : piece) * 1e9);
	if (offcpu_read_format(tracefs, &c->session.offcpu) != 0)
		warn_msg("cannot read sched_switch's format under %s: every block counts as S", tracefs);
	c->session.sampler.offcpu = &c->session.offcpu;
	return CLI_OK;
}

/* --push's headers from PERFTOP_PUSH_HEADERS (taken out of the environment: the command started
 * does not inherit it), and the warning of a push that crosses the network in clear text. */
static enum cli_result push_secrets(struct cli_parsing *p)
{
	struct session_opts *so = &p->c->session;
	const char *env = getenv("PERFTOP_PUSH_HEADERS");
	if (env && *env) {
		char *text = xstrdup(env); /* the session's to its end */
		unsetenv("PERFTOP_PUSH_HEADERS");
		if (push_parse_headers(text, "PERFTOP_PUSH_HEADERS", so->push_headers, PUSH_MAX_HEADERS,
				       &so->npush_headers, p->err, p->errlen))
			return CLI_ERROR;
	}
	char host[300];
	if (push_plain_remote(so->push_url, host, sizeof(host)))
		warn_msg("--push to %s over plain http: the profiles%s cross the network unencrypted "
			 "(https:// or parcas:// would not)", host,
			 so->npush_headers || strchr(so->push_url, '@') ? " and the credentials" : "");
	return CLI_OK;
}

/* The checks that span options, then the target and the sort keys. */
static enum cli_result finish(struct cli_parsing *p, int argc, char **argv)
{
	struct cli *c = p->c;
	struct sampler_opts *o = &c->session.sampler;
	int targets = p->have_pids + p->have_tids + p->have_all + (optind < argc) + (c->session.input != NULL);
	if (targets > 1)
		return fail(p, "choose one target: -p, -t, -a, -i FILE or a command");
	if ((c->have_time || c->header_only) && !c->session.input)
		return fail(p, "--time and --header are for replays: add -i FILE");
	if (c->session.kallsyms && !c->session.input)
		return fail(p, "--kallsyms names a recording's kernel addresses: add -i FILE");
	if (c->session.input && c->session.output)
		return fail(p, "-i and -o together: replaying a recording does not record it again");
	if (c->session.input && c->ncgroups)
		return fail(p, "-G chooses which tasks are sampled live: a recording's samples are "
			    "already taken");
	if ((c->json || c->quiet) && !c->batch)
		c->batch = true; /* --json and -q only make sense as batch output */
	c->session.one_pass = c->batch;
	if (p->push_given && !c->session.push_url)
		return fail(p, "--push-interval, --push-name, --push-label, --push-header, "
			    "--push-header-file, --push-cacert and --push-queue go with --push URL");
	if (c->session.push_url && push_secrets(p) != CLI_OK)
		return CLI_ERROR;
	if (c->session.push_url && c->session.input)
		return fail(p, "--push is for live sessions: a replay has no window to push");
	if (p->have_pids)
		o->target = TARGET_PIDS;
	else if (p->have_tids)
		o->target = TARGET_TIDS;
	else if (optind < argc) {
		o->target = TARGET_COMMAND;
		o->argv = argv + optind;
	} else if (o->ncpus && !p->have_all)
		o->target = TARGET_CPUS;
	if (c->have_user && o->target != TARGET_COMMAND)
		return fail(p, "-u USER is the user a command runs as: add -- COMMAND");
	if (c->have_user && geteuid() != 0)
		return fail(p, "-u USER starts the command as another user, which needs root");
	if (c->have_user)
		o->run_as = &c->run_as;
	o->ids = c->ids;
	o->cpus = o->ncpus ? c->cpus : NULL;
	if (c->nevents) {
		if (p->freq_given && !o->period)
			events_use_freq(events_ctx(), c->events, c->nevents);
		struct events_target t = { 0 };
		if (o->target == TARGET_PIDS || o->target == TARGET_TIDS)
			t.pid = c->ids[0];
		else if (o->target == TARGET_COMMAND)
			t.command = o->argv[0];
		if (events_resolve(events_ctx(), c->events, c->nevents, &t, p->err, p->errlen))
			return CLI_ERROR;
	}

	if (c->session.mode != PROFILE_SAMPLES && !c->session.input && mode_events(p) != CLI_OK)
		return CLI_ERROR;
	if (c->session.mode != PROFILE_SAMPLES && c->session.input) {
		/* The recording's switches are paired with this machine's layout of the fields. */
		char why[256];
		const char *tracefs = events_tracefs(events_ctx(), why, sizeof(why));
		if (!tracefs || offcpu_read_format(tracefs, &c->session.offcpu) != 0)
			warn_msg("the layout of sched_switch's fields is unknown here (%s): blocks are "
				 "paired by the switch records alone, every one counted as S",
				 tracefs ? "no format file" : why);
	}

	c->session.nkeys = sort_keys_parse(p->sort_spec, c->session.keys, PROFILE_MAX_KEYS, p->err, p->errlen);
	if (c->session.nkeys < 0)
		return CLI_ERROR;
	describe_target(c, argc, argv, optind);
	return CLI_OK;
}

enum cli_result cli_parse(int argc, char **argv, struct cli *c, char *err, size_t errlen)
{
	struct option longopts[ARRAY_SIZE(options) + 1];
	char shortopts[2 * ARRAY_SIZE(options) + 2];
	getopt_lists(longopts, shortopts);

	memset(c, 0, sizeof(*c));
	c->session.sampler.target = TARGET_SYSTEM;
	c->session.sampler.freq = 999;
	c->session.sampler.callchain = true;
	c->session.sampler.head_stack = SAMPLER_HEAD_STACK_DEFAULT;
	c->session.sampler.synthesize = true;
	c->delay = 1.0;
	struct cli_parsing p = { .c = c, .sort_spec = "dso,sym", .err = err, .errlen = errlen };

	int opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct cli_option *o = opt == '?' ? NULL : option_by_val(opt);
		enum cli_result r = o ? o->set(&p, o, optarg) : bad_option(&p, argv);
		if (r != CLI_OK)
			return r;
	}
	return finish(&p, argc, argv);
}
