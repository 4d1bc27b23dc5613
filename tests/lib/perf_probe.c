/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_probe: the tests' question "may I open the perf events I need here?" as a command, for the
 * Python and shell tests (the C tests include perfprobe.h). perf_probe KIND... prints the verdict
 * and exits 0 (every kind opens), 77 (refused: skip, and say why) or 1 (refused where it must
 * not be: fail). Kinds: task, cpu, dwarf, tracepoint:SUBSYS:NAME, and the hardware-PMU ones:
 * cycles, precise, raw, cpu-pmu, group, counters, cache, lbr (see perfprobe.h).
 */
#include "perfprobe.h"

int main(int argc, char **argv)
{
	char why[256];
	int worst = 0;
	for (int i = 1; i < argc; i++) {
		int v = perfprobe_verdict(argv[i], why, sizeof(why));
		printf("%s%s\n", v == 0 ? "" : v == 77 ? "SKIP: " : "FAIL: ", why);
		if (v == 1 || (v == 77 && worst == 0))
			worst = v;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: perf_probe task|cpu|dwarf|tracepoint:SUBSYS:NAME|cycles|precise|raw|cpu-pmu|group|counters|cache|lbr...\n");
		return 2;
	}
	return worst;
}
