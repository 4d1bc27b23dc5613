#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Idle cost: perftop's full-screen view (under tmux) of a -p target that sleeps,
# then of the same after the target has exited: perftop's CPU time (utime+stime of all its threads)
# over SECONDS each (default 20), as a share of one CPU, ROUNDS rounds (default 3), medians. The
# issue's target is at most 0.5% in both cases. Not a test: the figures depend on the machine.
#
# usage: bench/idle.sh [PERFTOP] [ROUNDS] [SECONDS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
pt=${1:-$here/../build/perftop}
rounds=${2:-3}
secs=${3:-20}
[ -x "$pt" ] || { echo "no perftop at $pt (make build)"; exit 2; }
command -v tmux >/dev/null || { echo "tmux is not installed"; exit 2; }
sock=perftop-idle-$$
tm() { tmux -L "$sock" "$@"; }
target=
trap 'tm kill-server 2>/dev/null; [ -n "$target" ] && kill $target 2>/dev/null' EXIT
clk=$(getconf CLK_TCK)
ticks() { local st; st=$(cat /proc/"$1"/stat) || return; local f=(${st##*) }); echo $(( f[11] + f[12] )); }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
sleeping=(); exited=()
for r in $(seq "$rounds"); do
	sleep 3600 & target=$!
	tm kill-server 2>/dev/null
	tm new-session -d -s i -x 160 -y 50 "exec $pt -p $target"
	pid=$(tm display -p -t i '#{pane_pid}')
	sleep 5   # past the first seconds' fast refreshes
	a=$(ticks "$pid"); sleep "$secs"; b=$(ticks "$pid")
	sleeping+=("$(echo "scale=3; ($b - $a) * 100 / $clk / $secs" | bc)")
	kill $target; target=
	sleep 3
	a=$(ticks "$pid"); sleep "$secs"; b=$(ticks "$pid")
	exited+=("$(echo "scale=3; ($b - $a) * 100 / $clk / $secs" | bc)")
	echo "round $r: target sleeping ${sleeping[-1]}% of a CPU, target exited ${exited[-1]}%"
	tm send-keys -t i q
	sleep 0.5
done
s=$(printf '%s\n' "${sleeping[@]}" | median); e=$(printf '%s\n' "${exited[@]}" | median)
echo "medians of $rounds rounds of ${secs}s (ticks of 1/$clk s): sleeping target $s%, exited target $e%"
awk -v s="$s" -v e="$e" 'BEGIN {exit !(s <= 0.5 && e <= 0.5)}' || { echo "MISSED: above 0.5%"; exit 1; }
