# SPDX-License-Identifier: GPL-2.0-or-later
# perfprobe.sh: the shell tests' need_perf_events, sourced: asks perf_probe (perf_probe.c) whether
# the kernel lets them open the perf events they need, before perftop runs, instead of reading
# perftop's messages. need_perf_events KIND... (task, cpu, dwarf) returns when they open, exits 77
# (skip, saying why) when the kernel refuses them, 1 when it refuses them to a privileged process.
# The probe is $PERFTOP_PERF_PROBE (set by ctest), else fixtures/perf_probe beside $pt (by hand).
need_perf_events() {
	local probe=${PERFTOP_PERF_PROBE:-$(dirname "${pt:-.}")/fixtures/perf_probe} out rc
	[ -x "$probe" ] || { echo "FAIL: no perf_probe at $probe (set PERFTOP_PERF_PROBE)"; exit 1; }
	out=$("$probe" "$@")
	rc=$?
	[ $rc = 0 ] && return 0
	echo "$out"
	[ $rc = 77 ] && exit 77
	exit 1
}
