#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of jitdump reading. Not a test: machines here are shared and noisy.
# perftop -p on node --perf-prof running tests/procnames/jitsplit.js (the jitdump tests' workload:
# a fresh function compiled every 50 rounds, so the dump keeps growing), batch mode, one window of
# SECONDS: perftop's own CPU time (utime + stime, from /usr/bin/time: node is not its child under
# -p), with the dump read, and without it: the same node with --perf-prof-delete-file, which writes
# the dump but removes its name at once, so that perftop cannot open it. Medians over ROUNDS, the
# two taking turns to go first; also the share of samples in named JavaScript code, each way.
#
# usage: bench/runtime_jitdump.sh [PERFTOP] [ROUNDS] [SECONDS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
pt=${1:-$here/../build/perftop}
rounds=${2:-3}
secs=${3:-10}
command -v node >/dev/null || { echo "node is not installed"; exit 2; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is not installed"; exit 2; }
[ -x "$pt" ] || { echo "no perftop at $pt (make build)"; exit 2; }
tmpd=$(mktemp -d)
nodepid=
cleanup() { [ -n "$nodepid" ] && kill "$nodepid" 2>/dev/null; rm -rf "$tmpd"; }
trap cleanup EXIT
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# one KIND (with / without) run: CPU seconds and the JS share appended to $tmpd/KIND.{cpu,js}
run() {
	local kind=$1 extra=()
	[ "$kind" = without ] && extra=(--perf-prof-delete-file)
	(cd "$tmpd" && exec node --perf-prof "${extra[@]}" --interpreted-frames-native-stack \
		--no-logfile-per-isolate --logfile=+ "$here/../tests/procnames/jitsplit.js" \
		$((secs + 3)) >/dev/null) &
	nodepid=$!
	sleep 1.5
	/usr/bin/time -f '%U %S' -o "$tmpd/time" "$pt" -p "$nodepid" -b --json -n 1 -d "$secs" \
		>"$tmpd/out.json" 2>/dev/null
	kill "$nodepid" 2>/dev/null; wait "$nodepid" 2>/dev/null; nodepid=
	rm -f "$tmpd"/jit-*.dump
	awk '{ print $1 + $2 }' "$tmpd/time" >>"$tmpd/$kind.cpu"
	python3 -c '
import json, sys
rows = [r for l in open(sys.argv[1]) if l.startswith("{") for r in json.loads(l)["rows"]]
print(sum(r.get("self", 0) for r in rows if r.get("sym", "").startswith("JS:")))' "$tmpd/out.json" \
		>>"$tmpd/$kind.js"
}

for ((i = 0; i < rounds; i++)); do
	if ((i % 2)); then run without; run with; else run with; run without; fi
done
w=$(median <"$tmpd/with.cpu"); wo=$(median <"$tmpd/without.cpu")
printf 'perftop -p node --perf-prof, %s s windows, medians of %s: CPU %.2f s with the jitdump read, %.2f s without (%.2fx); JavaScript named: %.1f%% vs %.1f%% of samples\n' \
	"$secs" "$rounds" "$w" "$wo" "$(echo "$w / $wo" | bc -l)" "$(median <"$tmpd/with.js")" \
	"$(median <"$tmpd/without.js")"
