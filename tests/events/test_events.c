/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_events: the -e parser (src/events) over a fake sysfs and tracefs made here, checking the
 * resulting attrs field by field: generic and cache names, modifiers, raw and PMU events (format
 * bits, events/ aliases, overrides), tracepoints and --filter, uprobes on this very program (the
 * file offset found must hold this function's bytes), kprobes with and without a kprobe PMU,
 * breakpoints on an address and on a global of this process, groups, the errors and their
 * suggestions, and --list-events over the fake tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/hw_breakpoint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "events/events.h"

static char root[PATH_MAX];

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX + 256], dir[PATH_MAX + 256];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	/* mkdir -p of the parent */
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *s = dir + strlen(root) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		mkdir(dir, 0755);
		*s = '/';
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static void make_tree(void)
{
	snprintf(root, sizeof(root), "/tmp/perftop-events-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(1);
	}
	/* A core PMU as x86 has it, a PMU with scattered bits, the dynamic uprobe PMU. */
	put("sys/cpu/type", "4\n");
	put("sys/cpu/format/event", "config:0-7\n");
	put("sys/cpu/format/umask", "config:8-15\n");
	put("sys/cpu/format/inv", "config:23\n");
	put("sys/cpu/format/ldlat", "config1:0-15\n");
	put("sys/cpu/events/mem-loads", "event=0xcd,umask=0x1\n");
	put("sys/cpu/events/mem-loads.scale", "1\n");
	put("sys/cpu/events/ldlat-loads", "event=0xcd,umask=0x1,ldlat=?\n");
	put("sys/split/type", "11\n");
	put("sys/split/format/split", "config:0-3,32-35\n");
	put("sys/split/format/wide", "config2:0-63\n");
	put("sys/uprobe/type", "8\n");
	put("sys/uprobe/format/retprobe", "config:0\n");
	put("sys/software/type", "1\n");
	/* The same machine with a kprobe PMU; one without a core PMU. */
	put("sysk/kprobe/type", "9\n");
	put("sysk/kprobe/format/retprobe", "config:0\n");
	put("sysk/software/type", "1\n");
	put("nopmu/software/type", "1\n");
	put("nopmu/uprobe/type", "8\n");
	put("trace/events/sched/sched_switch/id", "316\n");
	put("trace/events/sched/sched_wakeup/id", "317\n");
	put("trace/events/syscalls/sys_enter_openat/id", "640\n");
	put("notrace/readme", "not a tracefs\n");
}

static int fake_precise(const struct perf_event_attr *a)
{
	(void)a;
	return 2;
}

static bool yes(int cap)
{
	(void)cap;
	return true;
}

static bool no(int cap)
{
	(void)cap;
	return false;
}

static struct events_ctx *ctx_for(const char *sys, const char *trace, bool (*capable)(int))
{
	static char s[PATH_MAX + 16], t[PATH_MAX + 16];
	snprintf(s, sizeof(s), "%s/%s", root, sys);
	snprintf(t, sizeof(t), "%s/%s", root, trace);
	struct events_env env = { .sysfs = s, .tracefs = t, .no_mount = true,
				  .max_precise = fake_precise, .capable = capable };
	return events_ctx_new(&env);
}

static struct events_ctx *ctx;
static struct sampler_event ev[SAMPLER_MAX_EVENTS];
static char err[1024];

/* Parses text as the only event; 1 (the count) or -1. */
static int one(const char *text)
{
	err[0] = '\0';
	return events_parse(ctx, text, ev, 0, SAMPLER_MAX_EVENTS, err, sizeof(err));
}

static void expect_error(const char *text, const char *needle1, const char *needle2)
{
	int n = one(text);
	bool ok = n == -1 && strstr(err, needle1) && (!needle2 || strstr(err, needle2)) &&
		  !strchr(err, '\n');
	CHECK(ok);
	if (!ok)
		fprintf(stderr, "  -e %s: '%s' (wanted '%s'%s%s)\n", text, err, needle1,
			needle2 ? ", " : "", needle2 ? needle2 : "");
}

static void test_generic_and_cache(void)
{
	CHECK(one("cycles") == 1);
	CHECK_EQ_U64(ev[0].attr.type, PERF_TYPE_HARDWARE);
	CHECK_EQ_U64(ev[0].attr.config, PERF_COUNT_HW_CPU_CYCLES);
	CHECK_EQ_U64(ev[0].attr.sample_period, 0);
	CHECK(ev[0].leader == -1 && ev[0].filter == NULL && !ev[0].may_never_fire);
	CHECK_STR(ev[0].name, "cycles");
	CHECK(one("page-faults") == 1);
	CHECK_EQ_U64(ev[0].attr.type, PERF_TYPE_SOFTWARE);
	CHECK_EQ_U64(ev[0].attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	CHECK_EQ_U64(ev[0].attr.exclude_kernel + ev[0].attr.exclude_user, 0);

	static const struct { const char *name; uint64_t config; } caches[] = {
		{ "L1-dcache-load-misses", 0x10000 },  /* L1D | READ << 8 | MISS << 16 */
		{ "L1-dcache-loads", 0 },
		{ "LLC-loads", 2 },
		{ "LLC-store-misses", 2 | 1 << 8 | 1 << 16 },
		{ "dTLB-load-misses", 3 | 1 << 16 },
		{ "iTLB-load-misses", 4 | 1 << 16 },
		{ "branch-load-misses", 5 | 1 << 16 },
		{ "branch-loads", 5 },
		{ "L1-icache-prefetches", 1 | 2 << 8 },
		{ "node-stores", 6 | 1 << 8 },
		{ "l1d-store-miss", 1 << 8 | 1 << 16 },            /* aliases */
		{ "Data-TLB-speculative-read-access", 3 | 2 << 8 },
		{ "llc-LOADS", 2 },                                 /* any case */
		{ "LLC", 2 },                                       /* load, access by default */
		{ "LLC-misses", 2 | 1 << 16 },
	};
	for (size_t i = 0; i < sizeof(caches) / sizeof(caches[0]); i++) {
		CHECK(one(caches[i].name) == 1);
		CHECK_EQ_U64(ev[0].attr.type, PERF_TYPE_HW_CACHE);
		if (ev[0].attr.config != caches[i].config)
			fprintf(stderr, "  %s\n", caches[i].name);
		CHECK_EQ_U64(ev[0].attr.config, caches[i].config);
	}
	expect_error("iTLB-stores", "unknown event 'iTLB-stores'", NULL);   /* no such op */
	expect_error("L1-icache-load-misses-x", "unknown event", NULL);
	/* branches and branch-misses are the generic ones */
	CHECK(one("branch-misses") == 1);
	CHECK_EQ_U64(ev[0].attr.type, PERF_TYPE_HARDWARE);
}

static void test_modifiers(void)
{
	CHECK(one("cycles:u") == 1);
	struct perf_event_attr *a = &ev[0].attr;
	CHECK(!a->exclude_user && a->exclude_kernel && a->exclude_hv && a->exclude_guest &&
	      !a->exclude_host && a->precise_ip == 0);
	CHECK_STR(ev[0].name, "cycles:u");
	CHECK(one("cycles:k") == 1);
	CHECK(a->exclude_user && !a->exclude_kernel && a->exclude_hv && !a->exclude_guest);
	CHECK(one("cycles:h") == 1);
	CHECK(a->exclude_user && a->exclude_kernel && !a->exclude_hv);
	CHECK(one("cycles:uk") == 1);
	CHECK(!a->exclude_user && !a->exclude_kernel && a->exclude_hv);
	CHECK(one("cycles:upp") == 1);
	CHECK(!a->exclude_user && a->exclude_kernel && a->exclude_hv && a->precise_ip == 2 &&
	      a->exclude_guest);
	CHECK(one("cycles:ppp") == 1);
	CHECK(a->precise_ip == 3 && a->exclude_guest && !a->exclude_kernel && !a->exclude_user);
	CHECK(one("instructions:P") == 1);
	CHECK(a->precise_ip == 2); /* what the (fake) hardware takes */
	CHECK(one("cycles:G") == 1);
	CHECK(a->exclude_host && !a->exclude_guest);
	CHECK(one("cycles:H") == 1);
	CHECK(!a->exclude_host && a->exclude_guest);
	CHECK(one("cycles:GH") == 1);
	CHECK(!a->exclude_host && !a->exclude_guest);
	CHECK(one("cycles:D") == 1);
	CHECK(a->pinned);
	CHECK(one("cpu-clock:k") == 1);
	CHECK_EQ_U64(a->type, PERF_TYPE_SOFTWARE);
	CHECK(a->exclude_user && !a->exclude_kernel);
	expect_error("cycles:pppp", "cycles:pppp", "three p");
	expect_error("cycles:uu", "modifier 'u' twice", NULL);
	expect_error("cycles:S", "not supported", NULL);
}

static void test_raw_and_pmu(void)
{
	struct perf_event_attr *a = &ev[0].attr;
	CHECK(one("r01c2") == 1);
	CHECK_EQ_U64(a->type, PERF_TYPE_RAW);
	CHECK_EQ_U64(a->config, 0x1c2);
	CHECK(one("r1a:u") == 1);
	CHECK_EQ_U64(a->config, 0x1a);
	CHECK(a->exclude_kernel);

	CHECK(one("cpu/event=0x3c,umask=0x2/") == 1);
	CHECK_EQ_U64(a->type, 4);
	CHECK_EQ_U64(a->config, 0x23c);
	CHECK_EQ_U64(a->config1, 0);
	CHECK(one("cpu/event=60,inv,ldlat=3/") == 1);     /* decimal; a bare format term is 1 */
	CHECK_EQ_U64(a->config, 60 | 1u << 23);
	CHECK_EQ_U64(a->config1, 3);
	CHECK(one("cpu/mem-loads/") == 1);
	CHECK_EQ_U64(a->config, 0x1cd);
	CHECK_STR(ev[0].name, "cpu/mem-loads/");
	CHECK(one("mem-loads") == 1);                     /* a sysfs event by its name alone */
	CHECK_EQ_U64(a->type, 4);
	CHECK_EQ_U64(a->config, 0x1cd);
	CHECK(one("cpu/mem-loads,umask=0x3/") == 1);      /* later terms override */
	CHECK_EQ_U64(a->config, 0x3cd);
	CHECK(one("cpu/mem-loads/:u") == 1);
	CHECK(a->exclude_kernel && !a->exclude_user);
	CHECK(one("cpu/config=0x1234,config1=5,config2=7,period=1000,name=mine/") == 1);
	CHECK_EQ_U64(a->config, 0x1234);
	CHECK_EQ_U64(a->config1, 5);
	CHECK_EQ_U64(a->config2, 7);
	CHECK_EQ_U64(a->sample_period, 1000);
	CHECK(!a->freq);
	CHECK_STR(ev[0].name, "mine");
	CHECK(one("split/split=0xab/") == 1);             /* config:0-3,32-35 */
	CHECK_EQ_U64(a->type, 11);
	CHECK_EQ_U64(a->config, 0xbull | 0xaull << 32);
	CHECK(one("split/wide=0xffffffffffffffff/") == 1);
	CHECK_EQ_U64(a->config2, ~0ull);
	CHECK(one("cpu//") == 1);
	CHECK_EQ_U64(a->type, 4);
	CHECK_EQ_U64(a->config, 0);
	expect_error("cpu/event=0x100/", "too big", "event");
	expect_error("split/split=0x100/", "too big", NULL);
	expect_error("cpu/nosuch=1/", "PMU 'cpu' has no term 'nosuch'", "event, inv, ldlat, umask");
	expect_error("cpu/nosuch/", "has no term or event 'nosuch'", NULL);
	expect_error("nopmu/event=1/", "no PMU 'nopmu'", "cpu, software, split, uprobe");
	expect_error("cpu/ldlat-loads/", "ldlat", "number");
	expect_error("cpu/event=xyz/", "event wants a number", NULL);
	expect_error("rxyz", "unknown event 'rxyz'", NULL);
}

static void test_tracepoints(void)
{
	struct perf_event_attr *a = &ev[0].attr;
	CHECK(one("sched:sched_switch") == 1);
	CHECK_EQ_U64(a->type, PERF_TYPE_TRACEPOINT);
	CHECK_EQ_U64(a->config, 316);
	CHECK_EQ_U64(a->sample_period, 1);                /* every hit */
	CHECK(!a->freq);
	CHECK(!ev[0].may_never_fire);                      /* a tracepoint's hits are the kernel's */
	CHECK(events_set_filter(ctx, ev, 1, "prev_pid != 0", err, sizeof(err)) == 0);
	CHECK_STR(ev[0].filter, "prev_pid != 0");
	CHECK(one("syscalls:sys_enter_openat:u") == 1);
	CHECK_EQ_U64(a->config, 640);
	CHECK(a->exclude_kernel);
	expect_error("sched:sched_swich", "unknown event 'sched:sched_swich'",
		     "did you mean sched:sched_switch");
	expect_error("nosuch:event", "unknown event 'nosuch:event'", "no tracepoint");
	expect_error("sched:", "SUBSYSTEM:NAME", NULL);
	CHECK(one("cycles") == 1);
	CHECK(events_set_filter(ctx, ev, 1, "x == 1", err, sizeof(err)) == -1);
	CHECK(strstr(err, "'cycles'") != NULL);
	CHECK(events_set_filter(ctx, ev, 0, "x == 1", err, sizeof(err)) == -1);

	/* -F given: every hit is no more the default; a period= term stays. */
	int n = events_parse(ctx, "sched:sched_switch,cpu/event=1,period=50/", ev, 0, 4, err,
			     sizeof(err));
	CHECK(n == 2);
	events_use_freq(ctx, ev, n);
	CHECK_EQ_U64(ev[0].attr.sample_period, 0);
	CHECK_EQ_U64(ev[1].attr.sample_period, 50);

	struct events_ctx *none = ctx_for("sys", "notrace", yes);
	CHECK(events_parse(none, "sched:sched_switch", ev, 0, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "sched:sched_switch") && strstr(err, "no tracefs"));
	events_ctx_free(none);
}

__attribute__((noinline)) int probe_me(int x)
{
	return x * 3 + 1;
}

volatile long watched_global = 42;

static void test_probes(const char *self)
{
	char exe[PATH_MAX], text[PATH_MAX + 64];
	CHECK(realpath(self, exe) != NULL);
	struct perf_event_attr *a = &ev[0].attr;
	snprintf(text, sizeof(text), "uprobe:%s:probe_me", exe);
	CHECK(one(text) == 1);
	CHECK_EQ_U64(a->type, 8);
	CHECK_EQ_U64(a->config, 0);
	CHECK_EQ_U64(a->sample_period, 1);
	CHECK(ev[0].may_never_fire);
	CHECK_STR((const char *)(uintptr_t)a->config1, exe);
	/* The offset found holds this very function's first bytes. */
	unsigned char file_bytes[16];
	int fd = open(exe, O_RDONLY);
	CHECK(fd >= 0 && pread(fd, file_bytes, sizeof(file_bytes), (off_t)a->config2) == 16);
	if (fd >= 0)
		close(fd);
	CHECK(memcmp(file_bytes, (const void *)(uintptr_t)probe_me, sizeof(file_bytes)) == 0);
	uint64_t off = a->config2;
	snprintf(text, sizeof(text), "uprobe:%s:probe_me+0x4", exe);
	CHECK(one(text) == 1);
	CHECK_EQ_U64(a->config2, off + 4);
	snprintf(text, sizeof(text), "uretprobe:%s:probe_me", exe);
	CHECK(one(text) == 1);
	CHECK_EQ_U64(a->config, 1);                       /* format/retprobe config:0 */
	CHECK_EQ_U64(a->config2, off);
	snprintf(text, sizeof(text), "uprobe:%s:probe_mee", exe);
	expect_error(text, "no function 'probe_mee'", "did you mean probe_me");
	expect_error("uprobe:/nonexistent/prog:main", "no file '/nonexistent/prog'", NULL);
	expect_error("uprobe:main", "uprobe:PATH:FUNC", NULL);
	snprintf(text, sizeof(text), "uretprobe:%s:probe_me+4", exe);
	expect_error(text, "uretprobe:PATH:FUNC", NULL);
	struct events_ctx *unpriv = ctx_for("sys", "trace", no);
	snprintf(text, sizeof(text), "uprobe:%s:probe_me", exe);
	CHECK(events_parse(unpriv, text, ev, 0, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "CAP_SYS_ADMIN") != NULL);
	events_ctx_free(unpriv);

	expect_error("kprobe:do_sys_open", "no kprobe PMU", "CONFIG_KPROBES");
	struct events_ctx *k = ctx_for("sysk", "trace", yes);
	CHECK(events_parse(k, "kprobe:do_sys_open+0x10", ev, 0, 1, err, sizeof(err)) == 1);
	CHECK_EQ_U64(a->type, 9);
	CHECK_STR((const char *)(uintptr_t)a->config1, "do_sys_open");
	CHECK_EQ_U64(a->config2, 0x10);
	CHECK_EQ_U64(a->config, 0);
	CHECK(events_parse(k, "kretprobe:do_sys_open", ev, 0, 1, err, sizeof(err)) == 1);
	CHECK_EQ_U64(a->config, 1);
	CHECK_EQ_U64(a->sample_period, 1);
	events_ctx_free(k);
}

static void test_breakpoints(const char *self)
{
	struct perf_event_attr *a = &ev[0].attr;
	CHECK(one("mem:0x1000") == 1);
	CHECK_EQ_U64(a->type, PERF_TYPE_BREAKPOINT);
	CHECK_EQ_U64(a->bp_addr, 0x1000);
	CHECK_EQ_U64(a->bp_len, HW_BREAKPOINT_LEN_4);      /* perf's defaults: 4 bytes, rw */
	CHECK_EQ_U64(a->bp_type, HW_BREAKPOINT_R | HW_BREAKPOINT_W);
	CHECK_EQ_U64(a->sample_period, 1);
	CHECK(ev[0].may_never_fire);
	CHECK(one("mem:0x1000/8:w") == 1);
	CHECK_EQ_U64(a->bp_len, 8);
	CHECK_EQ_U64(a->bp_type, HW_BREAKPOINT_W);
	CHECK(one("mem:4096:x") == 1);
	CHECK_EQ_U64(a->bp_addr, 4096);
	CHECK_EQ_U64(a->bp_len, sizeof(long));
	CHECK_EQ_U64(a->bp_type, HW_BREAKPOINT_X);
	CHECK(one("mem:0x1000:rw:u") == 1);
	CHECK(a->exclude_kernel);
	expect_error("mem:0x1000/3", "mem:ADDR[/LEN][:rwx]", NULL);
	expect_error("mem:0x1000:rr", "mem:ADDR", NULL);
	expect_error("mem:0x1000:rx", "cannot also be r or w", NULL);

	/* A global of this (position-independent) process, where it is now. */
	CHECK(one("mem:watched_global:w") == 1);
	struct events_target t = { .pid = getpid() };
	CHECK(events_resolve(ctx, ev, 1, &t, err, sizeof(err)) == 0);
	CHECK_EQ_U64(a->bp_addr, (uintptr_t)&watched_global);
	CHECK_EQ_U64(a->bp_len, sizeof(long));             /* the variable's own size */
	CHECK(one("mem:watched_global") == 1);
	struct events_target cmd = { .command = self };
	CHECK(events_resolve(ctx, ev, 1, &cmd, err, sizeof(err)) == -1);
	CHECK(strstr(err, "position-independent") && strstr(err, "-p PID"));
	struct events_target none = { 0 };
	CHECK(events_resolve(ctx, ev, 1, &none, err, sizeof(err)) == -1);
	CHECK(strstr(err, "needs a target") != NULL);
	CHECK(one("mem:no_such_global") == 1);
	CHECK(events_resolve(ctx, ev, 1, &t, err, sizeof(err)) == -1);
	CHECK(strstr(err, "no global variable 'no_such_global'") != NULL);
}

static void test_groups_and_lists(void)
{
	int n = events_parse(ctx, "{cycles,instructions}:u", ev, 0, SAMPLER_MAX_EVENTS, err,
			     sizeof(err));
	CHECK(n == 2);
	CHECK(ev[0].leader == 0 && ev[1].leader == 0);
	CHECK(ev[0].attr.exclude_kernel && ev[1].attr.exclude_kernel && !ev[1].attr.exclude_user);
	CHECK_STR(ev[0].name, "cycles:u");
	CHECK_STR(ev[1].name, "instructions:u");
	/* After one event already there; a member's own modifiers, then the group's. */
	n = events_parse(ctx, "cpu-clock,{cycles:k,instructions,cpu/mem-loads/}:uD", ev, 0,
			 SAMPLER_MAX_EVENTS, err, sizeof(err));
	CHECK(n == 4);
	CHECK(ev[0].leader == -1 && ev[1].leader == 1 && ev[2].leader == 1 && ev[3].leader == 1);
	CHECK(!ev[1].attr.exclude_user && !ev[1].attr.exclude_kernel && ev[1].attr.exclude_hv);
	CHECK(!ev[2].attr.exclude_user && ev[2].attr.exclude_kernel);
	CHECK(ev[1].attr.pinned && !ev[2].attr.pinned);   /* D pins the leader only */
	CHECK_EQ_U64(ev[3].attr.config, 0x1cd);
	n = events_parse(ctx, "cpu-clock,page-faults", ev, 0, SAMPLER_MAX_EVENTS, err, sizeof(err));
	CHECK(n == 2);
	n = events_parse(ctx, "task-clock", ev, n, SAMPLER_MAX_EVENTS, err, sizeof(err));
	CHECK(n == 3);
	CHECK_EQ_U64(ev[2].attr.config, PERF_COUNT_SW_TASK_CLOCK);
	CHECK(events_parse(ctx, "cpu-clock,cycles,instructions", ev, 0, 2, err, sizeof(err)) == -1);
	CHECK(strstr(err, "too many events") != NULL);
	expect_error("{}", "empty group", NULL);
	expect_error("{cycles,{instructions}}", "do not nest", NULL);
	expect_error("{cycles,instructions", "{EVENT,EVENT...}", NULL);
	expect_error("cpu-clok", "unknown event 'cpu-clok'", "did you mean cpu-clock");
	expect_error("nosuch-event", "unknown event 'nosuch-event'", "--list-events");
	expect_error("", "an empty event", NULL);
	expect_error("cpu-clock,", "an empty event", NULL);
}

static void test_no_pmu(void)
{
	struct events_ctx *c = ctx_for("nopmu", "trace", yes);
	static const char *const need_pmu[] = { "cycles", "L1-dcache-load-misses", "r01c2",
						"cycles:pp" };
	for (size_t i = 0; i < sizeof(need_pmu) / sizeof(need_pmu[0]); i++) {
		CHECK(events_parse(c, need_pmu[i], ev, 0, 1, err, sizeof(err)) == -1);
		CHECK(strstr(err, need_pmu[i]) && strstr(err, "no hardware PMU"));
	}
	CHECK(events_parse(c, "cpu-clock:pp", ev, 0, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "precise") && strstr(err, "no hardware PMU"));
	CHECK(events_parse(c, "cpu-clock:u", ev, 0, 1, err, sizeof(err)) == 1);
	events_ctx_free(c);
}

static void test_list(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK(events_list(ctx, f) == 0);
	fclose(f);
	static const char *const wanted[] = {
		"Hardware events", "cycles OR cpu-cycles", "Software events", "cpu-clock",
		"Hardware cache events", "L1-dcache-load-misses", "Raw hardware events",
		"PMU events", "cpu/mem-loads/", "cpu/TERM=VALUE,.../", "event, inv, ldlat, umask",
		"Tracepoints", "sched:sched_switch", "syscalls:sys_enter_openat",
		"uprobe:PATH:FUNC[+OFFSET]", "yes (the uprobe PMU, type 8)",
		"kprobe:FUNC[+OFFSET]", "no: this kernel has no kprobe PMU", "mem:ADDR[/LEN][:rwx]",
		"Modifiers",
	};
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		CHECK(text && strstr(text, wanted[i]));
		if (!text || !strstr(text, wanted[i]))
			fprintf(stderr, "  --list-events lacks '%s'\n", wanted[i]);
	}
	CHECK(text && !strstr(text, "cpu/mem-loads.scale/"));
	free(text);
}

int main(int argc, char **argv)
{
	(void)argc;
	make_tree();
	ctx = ctx_for("sys", "trace", yes);
	test_generic_and_cache();
	test_modifiers();
	test_raw_and_pmu();
	test_tracepoints();
	test_probes(argv[0]);
	test_breakpoints(argv[0]);
	test_groups_and_lists();
	test_no_pmu();
	test_list();
	events_ctx_free(ctx);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
	return CHECK_DONE();
}
