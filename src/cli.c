/*
 * cli: option parsing for perftop. Options follow perf top's where perf top has them (-p, -t, -a,
 * -C, -e, -F, -c, -s, -z, -d, --call-graph) and top's for batch mode (-b, -n, -d). A command to
 * profile comes after "--" (or as the first non-option word).
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define PERFTOP_VERSION "0.1"

void cli_usage(FILE *out)
{
	fputs("usage: perftop [options] [-- COMMAND [ARGS...]]\n"
	      "\n"
	      "Targets (no target and no command = the whole system, like -a):\n"
	      "  -p, --pid PID[,PID...]     processes: all their threads, and threads/children started later\n"
	      "  -t, --tid TID[,TID...]     just these threads\n"
	      "  -a, --all-cpus             the whole system (root or kernel.perf_event_paranoid <= 0)\n"
	      "  -C, --cpu LIST             only these CPUs, e.g. 0-3,7\n"
	      "  -- COMMAND ARGS            start COMMAND and profile it and its children\n"
	      "\n"
	      "Recording and replay:\n"
	      "  -o, --output FILE          record the session as a perf.data file (perf report reads it)\n"
	      "  -i, --input FILE           replay a recording (perftop's or perf record's; - = stdin)\n"
	      "      --time START,END       replay: aggregate only this range (seconds from the start)\n"
	      "      --select-event NAME    replay: which event of a file with several\n"
	      "      --header               replay: print the recording's header info and exit\n"
	      "      --diff BASE            compare with the recording BASE: a Δ column (Self% now\n"
	      "                             minus Self% in BASE), rows ordered by the change\n"
	      "\n"
	      "Sampling:\n"
	      "  -e, --event NAME           cpu-clock, task-clock, cycles, instructions, cache-misses,\n"
	      "                             branch-misses, page-faults, context-switches, ...\n"
	      "                             (default: cycles, or cpu-clock without a hardware PMU)\n"
	      "  -F, --freq HZ              samples per second (default 999)\n"
	      "  -c, --count PERIOD         sample every PERIOD events instead of a frequency\n"
	      "  -g                         frame-pointer call graphs (the default)\n"
	      "      --call-graph fp|dwarf[,SIZE]|none\n"
	      "                             frame pointers, DWARF unwinding of SIZE bytes of user\n"
	      "                             stack per sample (default 8192, at most 65528), or none\n"
	      "\n"
	      "Names:\n"
	      "      --buildid-mmap         ask the kernel for build-ids in mmap records (off, as in perf:\n"
	      "                             kernels leak the flag into other tools' recordings meanwhile)\n"
	      "      --inline               expand DWARF inline frames everywhere (by default only in\n"
	      "                             replays of --call-graph dwarf recordings, like perf report)\n"
	      "      --no-inline            no inline frames at all\n"
	      "      --no-demangle          raw C++/Rust symbol names (the m key toggles them)\n"
	      "      --symfs DIR            look binaries and debug files up under DIR first\n"
	      "                             (debuginfod is asked in the background when DEBUGINFOD_URLS is set)\n"
	      "      --prefix OLD=NEW       annotate: read a source file built under OLD from NEW (repeatable)\n"
	      "\n"
	      "View:\n"
	      "  -s, --sort KEYS            comm,pid,tid,dso,sym,srcline (default dso,sym)\n"
	      "  -d, --delay SECS           refresh interval (default 1)\n"
	      "  -z, --zero                 zero the histogram on each refresh instead of decaying it\n"
	      "      --no-mouse             leave the mouse to the terminal (no clicks or wheel in the view)\n"
	      "  -b, --batch                print a plain table each refresh instead of the full-screen view\n"
	      "  -n, --iterations N         stop after N refreshes\n"
	      "      --json                with -b: each refresh is one JSON object on its own line\n"
	      "  -h, --help                 this text\n"
	      "  -V, --version\n",
	      out);
}

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
	struct sampler_opts *o = &c->sampler;
	size_t cap = sizeof(c->target_text), len = 0;
	char *t = c->target_text;
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

enum cli_result cli_parse(int argc, char **argv, struct cli *c, char *err, size_t errlen)
{
	enum { OPT_JSON = 256, OPT_DIFF, OPT_CALL_GRAPH, OPT_TIME, OPT_HEADER, OPT_EVENT_SELECT, OPT_NO_INLINE, OPT_INLINE,
	       OPT_NO_DEMANGLE, OPT_SYMFS, OPT_PREFIX, OPT_NO_MOUSE, OPT_BUILDID_MMAP };
	static const struct option longopts[] = {
		{"pid", required_argument, 0, 'p'},     {"tid", required_argument, 0, 't'},
		{"all-cpus", no_argument, 0, 'a'},      {"cpu", required_argument, 0, 'C'},
		{"event", required_argument, 0, 'e'},   {"freq", required_argument, 0, 'F'},
		{"count", required_argument, 0, 'c'},   {"sort", required_argument, 0, 's'},
		{"delay", required_argument, 0, 'd'},   {"zero", no_argument, 0, 'z'},
		{"batch", no_argument, 0, 'b'},         {"iterations", required_argument, 0, 'n'},
		{"json", no_argument, 0, OPT_JSON},     {"call-graph", required_argument, 0, OPT_CALL_GRAPH},
		{"help", no_argument, 0, 'h'},          {"version", no_argument, 0, 'V'},
		{"output", required_argument, 0, 'o'},  {"input", required_argument, 0, 'i'},
		{"time", required_argument, 0, OPT_TIME}, {"header", no_argument, 0, OPT_HEADER},
		{"select-event", required_argument, 0, OPT_EVENT_SELECT},
		{"no-inline", no_argument, 0, OPT_NO_INLINE}, {"inline", no_argument, 0, OPT_INLINE},
		{"no-demangle", no_argument, 0, OPT_NO_DEMANGLE},
		{"buildid-mmap", no_argument, 0, OPT_BUILDID_MMAP},
		{"symfs", required_argument, 0, OPT_SYMFS},
		{"diff", required_argument, 0, OPT_DIFF},
		{"prefix", required_argument, 0, OPT_PREFIX},
		{"no-mouse", no_argument, 0, OPT_NO_MOUSE},
		{0, 0, 0, 0},
	};
	struct sampler_opts *o = &c->sampler;
	memset(c, 0, sizeof(*c));
	o->target = TARGET_SYSTEM;
	o->freq = 999;
	o->callchain = true;
	o->synthesize = true;
	c->delay = 1.0;
	const char *sort_spec = "dso,sym";
	bool have_pids = false, have_tids = false, have_all = false;
	int opt;

	opterr = 0;
	optind = 1;
	/* '+': stop at the first non-option so "perftop python3 -c ..." keeps python's options. */
	while ((opt = getopt_long(argc, argv, "+p:t:aC:e:F:c:s:d:zbn:ghVo:i:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
		case 't': {
			int n = parse_id_list(optarg, c->ids, CLI_MAX_IDS, false);
			if (n <= 0) {
				snprintf(err, errlen, "-%c wants a comma-separated list of %s, not '%s'", opt,
					 opt == 'p' ? "process ids" : "thread ids", optarg);
				return CLI_ERROR;
			}
			o->nids = n;
			if (opt == 'p')
				have_pids = true;
			else
				have_tids = true;
			break;
		}
		case 'a':
			have_all = true;
			break;
		case 'C': {
			int n = parse_id_list(optarg, c->cpus, CLI_MAX_IDS, true);
			if (n <= 0) {
				snprintf(err, errlen, "-C wants a CPU list like 0-3,7, not '%s'", optarg);
				return CLI_ERROR;
			}
			o->ncpus = n;
			break;
		}
		case 'e':
			o->event = optarg;
			break;
		case 'F':
			if (parse_u64(optarg, &o->freq)) {
				snprintf(err, errlen, "-F wants a positive frequency in Hz, not '%s'", optarg);
				return CLI_ERROR;
			}
			o->period = 0;
			break;
		case 'c':
			if (parse_u64(optarg, &o->period)) {
				snprintf(err, errlen, "-c wants a positive sample period, not '%s'", optarg);
				return CLI_ERROR;
			}
			break;
		case 's':
			sort_spec = optarg;
			break;
		case 'd':
			if (parse_positive(optarg, &c->delay) || c->delay < 0.05) {
				snprintf(err, errlen, "-d wants seconds >= 0.05, not '%s'", optarg);
				return CLI_ERROR;
			}
			c->delay_given = true;
			break;
		case 'o':
			c->output = optarg;
			break;
		case 'i':
			c->input = optarg;
			break;
		case OPT_TIME: {
			char *end;
			c->time_start = strtod(optarg, &end);
			if (end == optarg || *end != ',' || c->time_start < 0) {
				snprintf(err, errlen, "--time wants START,END in seconds from the start, not '%s'", optarg);
				return CLI_ERROR;
			}
			const char *e = end + 1;
			c->time_end = *e ? strtod(e, &end) : 1e18;
			if ((*e && (end == e || *end)) || c->time_end <= c->time_start) {
				snprintf(err, errlen, "--time wants START,END with END > START, not '%s'", optarg);
				return CLI_ERROR;
			}
			c->have_time = true;
			break;
		}
		case OPT_HEADER:
			c->header_only = true;
			c->batch = true;
			break;
		case OPT_EVENT_SELECT:
			c->event_select = optarg;
			break;
		case OPT_NO_INLINE:
			c->no_inline = true;
			break;
		case OPT_INLINE:
			c->inline_frames = true;
			break;
		case OPT_NO_DEMANGLE:
			c->no_demangle = true;
			break;
		case OPT_BUILDID_MMAP:
			c->sampler.buildid_mmap = true;
			break;
		case OPT_SYMFS:
			c->symfs = optarg;
			break;
		case OPT_DIFF:
			c->diff_base = optarg;
			break;
		case OPT_PREFIX:
			if (!strchr(optarg, '=') || optarg[0] == '=') {
				snprintf(err, errlen, "--prefix wants OLD=NEW (a build path and where it is here), not '%s'", optarg);
				return CLI_ERROR;
			}
			if (c->nprefixes == CLI_MAX_PREFIXES) {
				snprintf(err, errlen, "at most %d --prefix options", CLI_MAX_PREFIXES);
				return CLI_ERROR;
			}
			c->prefixes[c->nprefixes++] = optarg;
			break;
		case OPT_NO_MOUSE:
			c->no_mouse = true;
			break;
		case 'z':
			c->zero = true;
			break;
		case 'b':
			c->batch = true;
			break;
		case 'n': {
			uint64_t n;
			if (parse_u64(optarg, &n) || n > 1000000000) {
				snprintf(err, errlen, "-n wants a positive number of refreshes, not '%s'", optarg);
				return CLI_ERROR;
			}
			c->iterations = (long)n;
			break;
		}
		case 'g':
			o->callchain = true;
			o->dwarf_stack = 0;
			break;
		case OPT_CALL_GRAPH:
			o->dwarf_stack = 0;
			if (!strcmp(optarg, "none") || !strcmp(optarg, "no"))
				o->callchain = false;
			else if (!strcmp(optarg, "fp") || !strcmp(optarg, "yes"))
				o->callchain = true;
			else if (!strncmp(optarg, "dwarf", 5) && (!optarg[5] || optarg[5] == ',')) {
				uint64_t size = SAMPLER_DWARF_STACK_DEFAULT;
				if (optarg[5] && (parse_u64(optarg + 6, &size) || size == 0 ||
						  size > SAMPLER_DWARF_STACK_MAX || size % 8)) {
					snprintf(err, errlen,
						 "--call-graph dwarf,SIZE wants a multiple of 8 up to %u, not '%s'",
						 SAMPLER_DWARF_STACK_MAX, optarg + 6);
					return CLI_ERROR;
				}
				o->callchain = true;
				o->dwarf_stack = (unsigned)size;
			} else {
				snprintf(err, errlen, "--call-graph wants fp, dwarf[,SIZE] or none, not '%s'", optarg);
				return CLI_ERROR;
			}
			break;
		case OPT_JSON:
			c->json = true;
			break;
		case 'h':
			cli_usage(stdout);
			return CLI_EXIT_OK;
		case 'V':
			printf("perftop %s\n", PERFTOP_VERSION);
			return CLI_EXIT_OK;
		default:
			if (optopt && strchr("ptCeFcsdn", optopt))
				snprintf(err, errlen, "option -%c needs a value (see perftop --help)", optopt);
			else if (optopt)
				snprintf(err, errlen, "unknown option -%c (see perftop --help)", optopt);
			else
				snprintf(err, errlen, "unknown option '%s' (see perftop --help)", argv[optind - 1]);
			return CLI_ERROR;
		}
	}

	int targets = have_pids + have_tids + have_all + (optind < argc) + (c->input != NULL);
	if (targets > 1) {
		snprintf(err, errlen, "choose one target: -p, -t, -a, -i FILE or a command");
		return CLI_ERROR;
	}
	if ((c->have_time || c->header_only) && !c->input) {
		snprintf(err, errlen, "--time and --header are for replays: add -i FILE");
		return CLI_ERROR;
	}
	if (c->input && c->output) {
		snprintf(err, errlen, "-i and -o together: replaying a recording does not record it again");
		return CLI_ERROR;
	}
	if (c->json && !c->batch)
		c->batch = true; /* --json only makes sense as batch output */
	if (have_pids)
		o->target = TARGET_PIDS;
	else if (have_tids)
		o->target = TARGET_TIDS;
	else if (optind < argc) {
		o->target = TARGET_COMMAND;
		o->argv = argv + optind;
	} else if (o->ncpus && !have_all)
		o->target = TARGET_CPUS;
	o->ids = c->ids;
	o->cpus = o->ncpus ? c->cpus : NULL;

	c->nkeys = sort_keys_parse(sort_spec, c->keys, PROFILE_MAX_KEYS, err, errlen);
	if (c->nkeys < 0)
		return CLI_ERROR;
	describe_target(c, argc, argv, optind);
	return CLI_OK;
}
