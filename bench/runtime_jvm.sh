#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# JVM frames: perftop's CPU on a HotSpot JVM with its perf map asked for (the default) and without
# (--no-jit-attach), taking turns: perftop -b -p PID for SECONDS of a JVM started fresh for each run
# (tests/runtimes/Hot.java, compiled into the build tree by `make build`, given a second to warm up,
# so each run with the attach pays for it whole: the trigger file, the SIGQUIT, the wait for the
# socket, the map read, and its re-reads), perftop's own CPU (perf stat's task-clock: all its
# threads, the attach thread's too; the JVM is not its child, so not counted) as a share of one
# CPU, medians of ROUNDS. Also: how long each attach took and how many there were
# (PERFTOP_JVM_STATS), and the share of the samples in named Java methods either way.
# Not a test: the figures depend on the machine.
#
# usage: bench/runtime_jvm.sh [PERFTOP] [CLASSDIR] [ROUNDS] [SECONDS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
pt=${1:-$here/../build/perftop}
classes=${2:-$here/../build/fixtures/java}
rounds=${3:-3}
secs=${4:-8}
[ -x "$pt" ] || { echo "no perftop at $pt (make build)"; exit 2; }
[ -f "$classes/Hot.class" ] || { echo "no $classes/Hot.class (make build, with javac)"; exit 2; }
command -v java >/dev/null || { echo "no java"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
run() { # one run: prints "CPU% NAMED% ATTACHES ATTACH_MS" (NAMED: the samples in Hot's methods)
	java -cp "$classes" Hot $((secs + 5)) >"$tmp/jvm.out" &
	local j=$! ms
	until grep -q ready "$tmp/jvm.out" 2>/dev/null; do sleep 0.05; done
	sleep 1
	PERFTOP_JVM_STATS=1 perf stat -x, -o "$tmp/stat" -e task-clock -- "$pt" -b --json -z -d 1 \
		-n "$secs" -p "$j" "$@" >"$tmp/out.json" 2>"$tmp/err"
	kill "$j"; wait "$j" 2>/dev/null
	rm -f "/tmp/perf-$j.map"
	ms=$(awk -F, '$3 == "task-clock" {print $1}' "$tmp/stat")
	python3 - "$tmp/out.json" "$tmp/err" "$ms" "$secs" <<'PY'
import json, re, sys
snaps = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
n = sum(s["samples"] for s in snaps)
named = sum(r["self"] * s["samples"] / 100 for s in snaps for r in s["rows"] if "Hot." in r["sym"])
err = open(sys.argv[2]).read()
took = [int(x) for x in re.findall(r"^perftop: jvm: pid \d+: ok[^\n]*?, (\d+) ms", err, re.M)]
cpu = float(sys.argv[3]) / (float(sys.argv[4]) * 10)
print(f"{cpu:.3f} {100 * named / max(n, 1):.1f} {len(took)} {','.join(map(str, took)) or '-'}")
PY
}
with=(); without=()
for r in $(seq "$rounds"); do
	if (( r % 2 )); then
		a=$(run); b=$(run --no-jit-attach)
	else
		b=$(run --no-jit-attach); a=$(run)
	fi
	with+=("${a%% *}"); without+=("${b%% *}")
	set -- $a; echo "round $r: attach: $1% of a CPU, $2% of the samples in Hot's methods, $3 attaches ($4 ms)"
	set -- $b; echo "round $r: --no-jit-attach: $1% of a CPU, $2% of the samples in Hot's methods"
done
w=$(printf '%s\n' "${with[@]}" | median); wo=$(printf '%s\n' "${without[@]}" | median)
echo "medians of $rounds rounds of ${secs}s: with the attach $w% of a CPU, --no-jit-attach $wo%," \
	"ratio $(printf %.2f "$(echo "scale=3; $w / $wo" | bc)")"
