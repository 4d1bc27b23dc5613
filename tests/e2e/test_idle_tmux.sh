#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# An idle view costs nothing: perftop -p on a process that sleeps, in its
# full-screen view under tmux, wakes only for its refreshes and to check its target, and once the
# target has exited, only for its refreshes. Measured in wakeups, not CPU time (machines are noisy):
# the voluntary context switches of all perftop's threads (each one a sleep, so a wakeup after it;
# the involuntary ones are the machine's load, printed only), per second of the interval they were
# counted over (timed, not assumed: a late machine stretches it), must stay far under what a view
# that ticks every 50 ms and a sampler that polls every 15 ms make (~86 a second): under 25 while
# the target sleeps, under 10 once it has exited. Meanwhile the same view keeps drawing (its
# elapsed time moves), and it notices the exit (within HUNG_SECS: longer is a hang). Exit 77 only
# when tmux is missing or the kernel refuses the events (perfprobe.sh).
set -u
pt=${1:?usage: test_idle_tmux.sh PERFTOP}
# tm, screen, fail, wait_for: tests/lib/tmuxlib.sh (a skip without tmux or the perf events)
. "$(dirname "$0")/../lib/tmuxlib.sh" idle
sleep 600 & target=$!
trap 'tm kill-server 2>/dev/null; kill $target 2>/dev/null' EXIT
HUNG_SECS=30
# Each count's interval: 3 s holds 3 refreshes, and the ~86 wakeups a second of a view that ticks
# and polls would be ~260 in it, ten times the limit's 75 (and 26 times the 30 after the exit).
WINDOW_SECS=3
# The context switches of every thread of pid: $2 = voluntary or nonvoluntary.
switches() {
	local n=0 f
	for f in /proc/"$1"/task/*/status; do
		n=$((n + $(awk -v k="$2_ctxt_switches:" '$1 == k {s += $2} END {print s + 0}' "$f" 2>/dev/null)))
	done
	echo "$n"
}
# EPOCHREALTIME's decimal point is the locale's
now_ms() { local t=$EPOCHREALTIME; echo $(( ${t%[.,]*} * 1000 + 10#${t#*[.,]} / 1000 )); }
# wakeups_per_sec PID SECONDS: the voluntary switches a second over about SECONDS (measured), as
# "RATE VOLUNTARY NONVOLUNTARY MS" (RATE rounded down).
wakeups_per_sec() {
	local v0 n0 t0 v1 n1 t1
	v0=$(switches "$1" voluntary); n0=$(switches "$1" nonvoluntary); t0=$(now_ms)
	sleep "$2"
	v1=$(switches "$1" voluntary); n1=$(switches "$1" nonvoluntary); t1=$(now_ms)
	echo "$(( (v1 - v0) * 1000 / (t1 - t0) )) $((v1 - v0)) $((n1 - n0)) $((t1 - t0))"
}
elapsed() { screen | head -1 | grep -Eo '[0-9]+s *$' | tr -d 's '; }

tm new-session -d -s t -x 140 -y 30 "$pt -d 1 -p $target; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for "pid $target" || fail "no header"
wait_for 'rows: 0' || fail "no table state"
shell=$(tm display -p -t t '#{pane_pid}')
ppid=$(pgrep -P "$shell" -x perftop | head -1)
[ -n "$ppid" ] || fail "no perftop process under the pane's shell"
sleep 4  # past the first seconds' fast refreshes
e0=$(elapsed); read -r rate vol invol ms < <(wakeups_per_sec "$ppid" "$WINDOW_SECS"); e1=$(elapsed)
echo "target sleeping: $vol voluntary switches in $ms ms ($rate a second; $invol involuntary);" \
	"elapsed ${e0}s -> ${e1}s"
[ "$rate" -lt 25 ] || fail "an idle view woke $rate times a second ($vol in $ms ms)"
[ -n "$e0" ] && [ -n "$e1" ] && [ "$e1" -gt "$e0" ] || fail "the view stopped redrawing (${e0}s -> ${e1}s)"

kill $target
wait_for 'have exited' $((HUNG_SECS * 10)) || fail "the exit was not noticed within $HUNG_SECS s"
sleep 1
read -r rate vol invol ms < <(wakeups_per_sec "$ppid" "$WINDOW_SECS")
echo "target exited: $vol voluntary switches in $ms ms ($rate a second; $invol involuntary)"
[ "$rate" -lt 10 ] || fail "a view whose target exited woke $rate times a second ($vol in $ms ms)"
tm send-keys -t t q
wait_for 'PERFTOP-EXITED:0' || fail "q did not exit 0"
echo "ok"
