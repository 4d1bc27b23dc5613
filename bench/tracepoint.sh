#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Tracepoint sampling at every hit: perftop -a -e sched:sched_switch -c 1 against
# perf top -a -e sched:sched_switch -c 1, each in its full-screen view under tmux (as bench/run.sh),
# while `perf bench sched pipe` switches as fast as it can on the two CPUs, SECONDS each (default 10),
# ROUNDS rounds (default 3), the two taking turns to go first. Reads each profiler's CPU time
# (utime+stime, all threads) and what it lost (perftop: lost + dropped from its JSON twin run;
# perf top: the "lost" its header shows), and prints medians and the ratio perftop / perf top.
# Not a test: the figures depend on the machine. tracefs must be mounted (perftop mounts it as root).
#
# usage: bench/tracepoint.sh [PERFTOP] [ROUNDS] [SECONDS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
pt=${1:-$here/../build/perftop}
rounds=${2:-3}
secs=${3:-10}
[ -x "$pt" ] || { echo "no perftop at $pt (make build)"; exit 2; }
command -v tmux >/dev/null && command -v perf >/dev/null || { echo "needs tmux and perf"; exit 2; }
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
sock=perftop-tp-$$
tm() { tmux -L "$sock" "$@"; }
. "$here/schedload.sh"
trap 'tm kill-server 2>/dev/null; stop_load' EXIT
clk=$(getconf CLK_TCK)
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# measure CMD...: the view for $secs s beside the switching load; prints "cpu_seconds screen_lost"
measure() {
	tm kill-server 2>/dev/null
	start_load
	tm new-session -d -s t -x 160 -y 50 "exec $*"
	local pid; pid=$(tm display -p -t t '#{pane_pid}')
	sleep "$secs"
	local st; st=$(cat /proc/"$pid"/stat 2>/dev/null) || { echo "nan nan"; stop_load; return; }
	local f=(${st##*) })
	local lost; lost=$(tm capture-pane -p -t t | grep -oE '[Ll]ost:? *[0-9/]+' | head -1 | grep -oE '[0-9/]+$')
	tm send-keys -t t q
	sleep 0.5
	tm kill-server 2>/dev/null
	stop_load
	echo "$(echo "(${f[11]} + ${f[12]}) / $clk" | bc -l) ${lost:-?}"
}

pc=(); fc=()
for r in $(seq "$rounds"); do
	for who in $( [ $((r % 2)) = 1 ] && echo "pt pf" || echo "pf pt"); do
		if [ $who = pt ]; then
			read -r c l < <(measure "$pt" -a -e sched:sched_switch -c 1)
			pc+=("$c"); printf 'round %d perftop:  CPU %.2f s, lost %s\n' "$r" "$c" "$l"
		else
			read -r c l < <(measure perf top -a -e sched:sched_switch -c 1)
			fc+=("$c"); printf 'round %d perf top: CPU %.2f s, lost %s\n' "$r" "$c" "$l"
		fi
	done
done
a=$(printf '%s\n' "${pc[@]}" | median); b=$(printf '%s\n' "${fc[@]}" | median)
printf 'medians of %d rounds of %ds: perftop CPU %.2f s, perf top CPU %.2f s, ratio %.2f\n' \
	"$rounds" "$secs" "$a" "$b" "$(echo "$a / $b" | bc -l)"
# Lost and dropped over the same load, from perftop's own counters (batch JSON, one window).
start_load
"$pt" -a -e sched:sched_switch -c 1 -b --json -d "$secs" -n 1 2>/dev/null |
	python3 -c 'import json,sys
for l in sys.stdin:
    d=json.loads(l); print("perftop batch, one window: samples %d, lost %d, dropped %d" % (d["samples"], d.get("lost",0), d.get("dropped",0)))'
stop_load
