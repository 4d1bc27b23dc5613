#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Python frames: (1) perftop's CPU on a CPython process with and without them: perftop
# -b -p PID of PYTHON tests/python/pysplit.py for SECONDS, then the same with --no-python, taking
# turns, perftop's own CPU (perf stat's task-clock: all its threads, the watcher's too) as a share
# of one CPU, medians of ROUNDS; the issue's bar is 2x. (2) Staleness: perftop -o records bench/pyphases.py
# (phases of 10 ms and 2 ms), by default and at --python-rate 1000, and bench/python_staleness.py
# counts the samples whose Python stack names the other phase than the one the program's own clock
# says ran at the sample's time; perftop's own figures of the distance between samples and reads
# (PERFTOP_PY_STATS) beside it. (3) The CPU at --python-rate 1000.
# Not a test: the figures depend on the machine. PARTS picks the parts (default "cpu staleness
# rate"): PARTS=cpu for (1) alone, e.g. to compare CPython versions (3.8-3.10 are read another way
# than 3.11+: a frame object and a struct pthread per read) under one perftop.
#
# usage: [PARTS="cpu staleness rate"] bench/python.sh [PERFTOP] [PYTHON] [ROUNDS] [SECONDS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
pt=${1:-$here/../build/perftop}
py=${2:-$(command -v python3)}
rounds=${3:-5}
secs=${4:-8}
parts=" ${PARTS:-cpu staleness rate} "
[ -x "$pt" ] || { echo "no perftop at $pt (make build)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
cpu() { # perftop's own CPU as a share of one CPU: perf stat's task-clock of perftop -p PID (all
	# its threads, the watcher's too; the Python process is not its child, so not counted), over
	# SECS windows of a pysplit.py started a second before
	"$py" "$here/../tests/python/pysplit.py" $((secs + 3)) >/dev/null &
	local w=$! ms
	sleep 1
	ms=$(perf stat -x, -e task-clock -- "$pt" -b -d 1 -n "$secs" -p "$w" "$@" 2>&1 >/dev/null |
		awk -F, '$3 == "task-clock" {print $1}')
	kill "$w"; wait "$w" 2>/dev/null
	echo "scale=3; $ms / ($secs * 10)" | bc
}
with=(); without=()
[[ $parts == *" cpu "* ]] && for r in $(seq "$rounds"); do
	if (( r % 2 )); then
		with+=("$(cpu)")
		without+=("$(cpu --no-python)")
	else
		without+=("$(cpu --no-python)")
		with+=("$(cpu)")
	fi
	echo "round $r: with Python frames ${with[-1]}% of a CPU, without ${without[-1]}%"
done
if [[ $parts == *" cpu "* ]]; then
	w=$(printf '%s\n' "${with[@]}" | median); wo=$(printf '%s\n' "${without[@]}" | median)
	echo "medians of $rounds rounds of ${secs}s ($py): with $w%, without $wo%, ratio" \
		"$(echo "scale=2; $w / $wo" | bc)"
fi
# by default (the watcher's CPU budget), and with a read every millisecond (--python-rate 1000)
[[ $parts == *" staleness "* ]] && for rate in "" 1000; do
	for phase in 10 2; do
		PERFTOP_PY_STATS=1 "$pt" -b -d 1 -o "$tmp/ph.data" ${rate:+--python-rate $rate} -- "$py" \
			"$here/pyphases.py" "$secs" "$phase" "$tmp/log" 2>"$tmp/err" >/dev/null
		echo "phases of $phase ms, ${rate:-default} reads/s:" \
			"$(python3 "$here/python_staleness.py" "$tmp/ph.data.python" "$tmp/log")"
		grep -o "gap mean.*" "$tmp/err" | sed 's/^/  perftop: /'
	done
done
# and the CPU at --python-rate 1000, for the cost of that precision
[[ $parts == *" rate "* ]] || exit 0
r1k=(); for r in $(seq "$rounds"); do
	r1k+=("$(cpu --python-rate 1000)")
done
echo "--python-rate 1000: median $(printf '%s\n' "${r1k[@]}" | median)% of a CPU"
