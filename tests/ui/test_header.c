/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_header: the header lines of a frame with the counters line, compared with
 * golden files under tests/ui/golden/ (header_*.txt: the lines above the table's column titles,
 * so that changes to the table or the footer do not touch them). Cases: this machine's picture
 * (software counters only, no PMU), a machine with a PMU whose hardware group was multiplexed
 * (values marked *), a narrow terminal (the least important parts go first), and a replay (no
 * counters line at all). Also checks the table starts one line lower when the line is there.
 *
 *   test_header GOLDEN_DIR            compare
 *   PERFTOP_UPDATE_GOLDEN=1 ...       rewrite the golden files (then review them)
 */
#include <stdlib.h>

#include "check.h"
#include "golden.h"
#include "model/profile.h"
#include "model/snapshot.h"
#include "ui/keys.h"
#include "ui/render.h"
#include "ui/surface.h"
#include "util/util.h"

static char s_main[] = "main", s_spin[] = "spin", s_app[] = "spinner", s_comm[] = "spinner";

static struct snapshot *make_snap(void)
{
	struct profile *p = profile_new(NULL, 0);
	struct frame a[] = { { .sym = s_spin, .dso = s_app }, { .sym = s_main, .dso = s_app } };
	struct sample_ctx s = { .comm = s_comm, .pid = 7, .tid = 7, .period = 900, .frames = a,
				.nframes = 2 };
	profile_add(p, &s);
	s.frames = a + 1;
	s.nframes = 1;
	s.period = 100;
	profile_add(p, &s);
	struct snapshot *snap = profile_snapshot(p, COL_SELF);
	profile_free(p);
	return snap;
}

static struct view_header base_header(void)
{
	return (struct view_header){ .target = "command: ./spinner", .event = "cpu-clock",
				     .freq = 999, .samples_per_sec = 998, .elapsed = 9.2 };
}

/* This VM: no PMU, so only the software counters, throttles and perftop's CPU. */
static struct view_header no_pmu(void)
{
	struct view_header h = base_header();
	h.counters = true;
	h.ctx_switches = 1234.5;
	h.migrations = 3;
	h.page_faults = 45678;
	h.cycles = h.instructions = h.cache_misses = h.branch_misses = h.ipc = -1;
	h.self_cpu = 2.34;
	return h;
}

static struct view_header with_pmu(void)
{
	struct view_header h = no_pmu();
	h.event = "cycles";
	h.cycles = 2.5e9;
	h.instructions = 3.1e9;
	h.ipc = 1.24;
	h.cache_misses = 1.2e6;
	h.branch_misses = 45000;
	h.multiplexed = true;
	h.throttled = 12;
	return h;
}

/* The lines of text above the one with the column titles. */
static char *header_part(const char *text)
{
	const char *line = text;
	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *title = strstr(line, "Total%");
		if (title && (size_t)(title - line) < len)
			break;
		line += len + (nl ? 1 : 0);
	}
	size_t n = (size_t)(line - text);
	char *out = xmalloc(n + 1);
	memcpy(out, text, n);
	out[n] = '\0';
	return out;
}

static int lines_of(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void golden(const char *name, int w, int h, const struct view_header *hd, int want_lines)
{
	struct snapshot *snap = make_snap();
	struct view_state v;
	keys_state_init(&v);
	v.color = false;
	struct surface *s = surface_new(w, h);
	render_frame(s, snap, hd, &v);
	char *all = surface_to_text(s);
	char *got = header_part(all);
	CHECK(lines_of(got) == want_lines);
	/* The table is where the frame says it is: one line per header line above it. */
	CHECK(render_table_rows(h, hd) == h - want_lines - 2);
	golden_check(name, got);
	free(got);
	free(all);
	surface_free(s);
	keys_state_done(&v);
	snapshot_free(snap);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_header GOLDEN_DIR\n");
		return 2;
	}
	golden_init(argv[1]);

	struct view_header h = no_pmu();
	golden("header_counters_80x24.txt", 80, 24, &h, 3);
	golden("header_counters_200x60.txt", 200, 60, &h, 3);
	h = with_pmu();
	golden("header_counters_pmu_200x60.txt", 200, 60, &h, 3);
	golden("header_counters_pmu_80x24.txt", 80, 24, &h, 3);
	golden("header_counters_pmu_40x12.txt", 40, 12, &h, 3);
	/* No counters (a replay: the file has none): no line; rate and losses stay on the summary. */
	h = base_header();
	golden("header_plain_80x24.txt", 80, 24, &h, 2);
	/* Several events: which one is shown, of how many. */
	h.event = "page-faults";
	h.event_index = 1;
	h.nevents = 2;
	golden("header_events_80x24.txt", 80, 24, &h, 2);
	return CHECK_DONE();
}
