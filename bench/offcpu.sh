#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Off-CPU profiling of the whole machine under heavy switching: `perftop -a --off-cpu`
# (batch, one window of SECONDS) and `perf record -e sched:sched_switch -g -a` for the same SECONDS,
# both at once, while `perf bench sched pipe` switches as fast as it can on the two CPUs. Reads each
# profiler's CPU time (utime + stime of its process and its children, from /usr/bin/time) and what
# each lost (perftop: "lost" and "dropped" of its JSON snapshot; perf: the LOST_SAMPLES of its
# sched_switch event in `perf report --stats`), ROUNDS rounds (default 3), and prints the medians and
# the ratio perftop / perf record. Not a test: the figures depend on the machine. Needs root (-a,
# tracefs; mounted here if it is not).
#
# usage: bench/offcpu.sh [PERFTOP] [ROUNDS] [SECONDS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
pt=${1:-$here/../build/perftop}
rounds=${2:-3}
secs=${3:-10}
[ -x "$pt" ] || { echo "no perftop at $pt (make build)"; exit 2; }
command -v perf >/dev/null && [ -x /usr/bin/time ] || { echo "needs perf and /usr/bin/time"; exit 2; }
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
work=$(mktemp -d)
. "$here/schedload.sh"
trap 'stop_load; rm -rf "$work"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

ptc=(); pfc=(); ptl=(); pfl=()
for r in $(seq "$rounds"); do
	start_load
	sleep 0.5
	/usr/bin/time -f '%U %S' -o "$work/pt.time" \
		"$pt" -a --off-cpu -b --json -d "$secs" -n 1 >"$work/pt.json" 2>"$work/pt.err" &
	a=$!
	/usr/bin/time -f '%U %S' -o "$work/pf.time" \
		perf record -q -e sched:sched_switch -g -a -o "$work/perf.data" -- sleep "$secs" \
		>/dev/null 2>"$work/pf.err" &
	b=$!
	wait $a $b
	stop_load
	read -r u s < <(tail -1 "$work/pt.time"); c1=$(echo "$u + $s" | bc -l)
	read -r u s < <(tail -1 "$work/pf.time"); c2=$(echo "$u + $s" | bc -l)
	read -r n1 l1 lk dr < <(python3 -c 'import json, sys
d = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
print(d.get("samples", 0), d.get("lost", 0) + d.get("dropped", 0), d.get("lost", 0), d.get("dropped", 0))' "$work/pt.json" 2>/dev/null || echo "? ? ? ?")
	stats=$(perf report --stats -i "$work/perf.data" 2>/dev/null)
	n2=$(echo "$stats" | awk '/^sched:sched_switch stats:/ {s = 1; next} /stats:$/ {s = 0} s && /SAMPLE events/ && !/LOST/ {print $3}')
	l2=$(echo "$stats" | awk '/^sched:sched_switch stats:/ {s = 1; next} /stats:$/ {s = 0} s && /LOST_SAMPLES events/ {print $3}')
	ptc+=("$c1"); pfc+=("$c2"); ptl+=("${l1:-0}"); pfl+=("${l2:-0}")
	printf 'round %d: perftop CPU %.2f s, %s samples, lost %s + dropped %s; perf record CPU %.2f s, %s samples, lost %s\n' \
		"$r" "$c1" "$n1" "$lk" "$dr" "$c2" "${n2:-0}" "${l2:-0}"
	[ -s "$work/pt.err" ] && sed 's/^/  perftop: /' "$work/pt.err" | head -3
	rm -f "$work/perf.data"
done
a=$(printf '%s\n' "${ptc[@]}" | median); b=$(printf '%s\n' "${pfc[@]}" | median)
la=$(printf '%s\n' "${ptl[@]}" | median); lb=$(printf '%s\n' "${pfl[@]}" | median)
printf 'medians of %d rounds of %ds: perftop CPU %.2f s (lost %s), perf record CPU %.2f s (lost %s), ratio %.2f\n' \
	"$rounds" "$secs" "$a" "$la" "$b" "$lb" "$(echo "$a / $b" | bc -l)"
