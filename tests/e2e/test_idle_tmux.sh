#!/bin/bash
# An idle view costs nothing (issue 11 item 4): perftop -p on a process that sleeps, in its
# full-screen view under tmux, wakes only for its refreshes and to check its target, and once the
# target has exited, only for its refreshes. Measured in wakeups, not time (machines are noisy): the
# context switches of all perftop's threads over 6 s must stay far under what a view that ticks
# every 50 ms and a sampler that polls every 15 ms make (~520), while the same view keeps drawing
# (its elapsed time moves) and notices the exit at once. Exit 77 only when tmux is missing or the
# kernel refuses the events (perfprobe.sh).
set -u
pt=${1:?usage: test_idle_tmux.sh PERFTOP}
command -v tmux >/dev/null || { echo "SKIP: tmux is not installed"; exit 77; }
. "$(dirname "$0")/../perfprobe.sh"
need_perf_events task
sock=perftop-idle-$$
tm() { tmux -L "$sock" -f /dev/null "$@"; }
sleep 600 & target=$!
trap 'tm kill-server 2>/dev/null; kill $target 2>/dev/null' EXIT
screen() { tm capture-pane -p -t t 2>/dev/null; }
fail() { echo "FAIL: $*"; echo "--- screen:"; screen; exit 1; }
wait_for() {
	for _ in $(seq "${2:-100}"); do screen | grep -Eq -- "$1" && return 0; sleep 0.1; done
	return 1
}
# Voluntary + involuntary context switches of every thread of pid.
switches() {
	local n=0 f
	for f in /proc/"$1"/task/*/status; do
		n=$((n + $(awk '/ctxt_switches/ {s += $2} END {print s + 0}' "$f" 2>/dev/null)))
	done
	echo "$n"
}
elapsed() { screen | head -1 | grep -Eo '[0-9]+s *$' | tr -d 's '; }

tm new-session -d -s t -x 140 -y 30 "$pt -d 1 -p $target; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for "pid $target" || fail "no header"
wait_for 'rows: 0' || fail "no table state"
shell=$(tm display -p -t t '#{pane_pid}')
ppid=$(pgrep -P "$shell" -x perftop | head -1)
[ -n "$ppid" ] || fail "no perftop process under the pane's shell"
sleep 4  # past the first seconds' fast refreshes
e0=$(elapsed); a=$(switches "$ppid"); sleep 6; b=$(switches "$ppid"); e1=$(elapsed)
echo "target sleeping: $((b - a)) context switches in 6 s; elapsed ${e0}s -> ${e1}s"
[ $((b - a)) -lt 150 ] || fail "an idle view woke $((b - a)) times in 6 s"
[ -n "$e0" ] && [ -n "$e1" ] && [ "$e1" -ge $((e0 + 4)) ] || fail "the view stopped redrawing (${e0}s -> ${e1}s)"

kill $target
wait_for 'have exited' 30 || fail "the exit was not noticed within 3 s"
sleep 1
a=$(switches "$ppid"); sleep 6; b=$(switches "$ppid")
echo "target exited: $((b - a)) context switches in 6 s"
[ $((b - a)) -lt 60 ] || fail "a view whose target exited woke $((b - a)) times in 6 s"
tm send-keys -t t q
wait_for 'PERFTOP-EXITED:0' || fail "q did not exit 0"
echo "ok"
