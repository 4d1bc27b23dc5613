#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Acceptance: the off-CPU view through tmux. perftop --off-cpu -s state,sym -- blocker
# (threads waiting in sleep_wait, sync_wait, lock_wait and hold_lock, blocker.c): the header says
# off-CPU, the table has rows for the blocking functions with their state (sleep_wait's S, and
# sync_wait's D when fdatasync blocks in the directory used: a short run of blocker first says
# whether it does), r hides the run-queue waits, shows them alone (spin_work's among them: blocker
# runs on one CPU, where the kernel counts the spinner's preemptions), then all again, f draws the
# flame graph of the window with the blocking functions in it, q goes
# back to the table and q again exits 0. Exit 77 (skip) only when tmux is missing or the kernel
# refuses the perf events perftop needs.
set -u
pt=${1:?usage: test_offcpu_tmux.sh PERFTOP BLOCKER}
blocker=${2:?}
. "$(dirname "$0")/../lib/tmuxlib.sh" offcpu

# fdatasync's file on a disk-backed filesystem if there is one (tmpfs never blocks in fdatasync).
base=${TMPDIR:-/tmp}
case $(findmnt -n -o FSTYPE -T "$base" 2>/dev/null) in
tmpfs | ramfs) base=$(dirname "$pt") ;;
esac
dir=$(mktemp -d "$base/perftop-offcpu-tmux-XXXXXX")
trap 'tm kill-server 2>/dev/null; rm -rf "$dir"' EXIT
"$blocker" 0.5 --dir "$dir" --out "$dir/probe.json" || fail "blocker failed"
want_d=$(python3 -c 'import json, sys
f = json.load(open(sys.argv[1]))["functions"]["sync_wait"]
print(1 if f["calls"] and f["blocked_calls"] >= f["calls"] // 2 else 0)' "$dir/probe.json")
echo "fdatasync in $dir ($(findmnt -n -o FSTYPE -T "$dir")): $([ "$want_d" = 1 ] && echo blocks || echo 'never blocks here: no D row required')"

# blocker on one CPU: its threads' wake-ups preempt the spinner there, so run-queue waits (R, R+)
# happen on any machine, however many idle CPUs it has; the kernel counts them (the spinner's
# nonvoluntary_ctxt_switches) for the r check below.
command -v taskset >/dev/null || { echo "SKIP: taskset is not installed (util-linux)"; exit 77; }
cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
tm new-session -d -s t -x 160 -y 45 \
	"$pt --off-cpu -d 0.5 -s state,sym -- taskset -c $cpu $blocker 40 --dir $dir --out $dir/run.json; echo PERFTOP-EXITED:\$?; sleep 60"
for fn in sleep_wait lock_wait hold_lock; do
	wait_for " $fn( |$)" 100 || fail "no $fn row"
done
ok
screen | grep -Eqi 'off-?cpu' || fail "the header does not say off-CPU"
ok
screen | grep -E 'Symbol' | grep -q 'State' || fail "no State column title with -s state,sym"
# The state column: sleep_wait's row (there may be a few, one per state) has S; sync_wait's has D.
# The table has a hundred rows and more, most of them tied at 0% Self, so a row may sit below the
# pane's last line: each check filters the table to the function first (F4, as a person would),
# then Esc shows everything again.
has_state() { # SYM STATE: a row of SYM with STATE as a field of its own
	screen | awk -v sym="$1" -v st="$2" '{ hs = hy = 0; for (i = 1; i <= NF; i++) { if ($i == sym) hy = 1; if ($i == st) hs = 1 } if (hs && hy) f = 1 } END { exit !f }'
}
filtered_state() { # SYM STATE: with the table filtered to SYM, a row of SYM in STATE within 5 s
	local found=1
	tm send-keys -t t F4
	wait_for 'Filter: ' 30 || fail "F4 did not open the filter field"
	tm send-keys -t t -l "$1"
	tm send-keys -t t Enter
	wait_for "filter: $1" 30 || fail "no 'filter: $1' in the mode line after F4 $1 Enter"
	for _ in $(seq 50); do has_state "$1" "$2" && { found=0; break; }; sleep 0.1; done
	[ $found = 0 ] || fail "no $1 row in state $2 (the table filtered to $1)"
	tm send-keys -t t Escape
	wait_gone 'filter:' 30 || fail "Esc did not clear the filter"
}
filtered_state sleep_wait S
filtered_state lock_wait S
ok
if [ "$want_d" = 1 ]; then
	filtered_state sync_wait D
	ok
fi

# r: the run-queue waits (R, R+) hidden, then alone, then all again; the mode line says which.
# Hidden: no R or R+ row is left and sleep_wait's S row stays. Alone: only R and R+ rows.
states_shown() { # the State column's values of the table's rows
	screen | awk '/State/ && /Symbol/ { t = 1; next } t && NF >= 7 && $1 ~ /%$/ { print $6 }' | sort -u | tr '\n' ' '
}
tm send-keys -t t r
wait_for 'run-queue waits hidden' 30 || fail "r did not hide the run-queue waits"
sleep 1.2
case " $(states_shown)" in *" R "* | *" R+ "*) fail "R rows shown with the run-queue waits hidden: $(states_shown)" ;; esac
has_state sleep_wait S || fail "sleep_wait's S row went with the run-queue waits"
echo "run-queue waits hidden: states $(states_shown)"
ok
# The kernel's count of the spinner's preemptions (each one a run-queue wait of spin_work's).
spinner_preempted() {
	local pid t
	pid=$(pgrep -f -x "$blocker 40 --dir $dir --out $dir/run.json" | head -1)
	[ -n "$pid" ] || return
	for t in /proc/"$pid"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = spinner ] &&
			awk '/^nonvoluntary_ctxt_switches:/ { print $2 }' "$t/status" 2>/dev/null
	done
}
tm send-keys -t t r
wait_for 'run-queue waits only' 30 || fail "r again did not show the run-queue waits alone"
sleep 1.2
shown=$(states_shown)
preempted=$(spinner_preempted)
[ -n "$preempted" ] || fail "no spinner thread of blocker in /proc"
[ -n "$shown" ] || fail "no row with the run-queue waits alone (the kernel counts $preempted preemptions of the spinner)"
for st in $shown; do
	case "$st" in R | R+) ;; *) fail "a $st row shown with the run-queue waits alone: $shown" ;; esac
done
# The spinner waits only in the run queue: spin_work's row is there exactly when the kernel says
# it was preempted.
if [ "$preempted" -gt 0 ]; then
	has_state spin_work R || has_state spin_work R+ ||
		fail "no spin_work row in state R or R+ with the run-queue waits alone, the kernel counts $preempted preemptions of the spinner"
else
	screen | grep -q ' spin_work' && fail "a spin_work row, but the kernel counts no preemption of the spinner"
fi
echo "run-queue waits alone: states $shown; the spinner preempted $preempted times (/proc)"
ok
tm send-keys -t t r
wait_gone 'run-queue waits' || fail "r a third time did not show everything again"
for _ in $(seq 30); do case " $(states_shown)" in *" R "* | *" R+ "*) break ;; esac; sleep 0.1; done
case " $(states_shown)" in *" R "* | *" R+ "*) ;; *) fail "no R or R+ row back after r a third time: $(states_shown)" ;; esac
ok

# f: the flame graph with the blocking functions (names that fit their frames).
tm send-keys -t t f
wait_for 'Flame graph' || fail "no flame graph after f"
for fn in sleep_wait lock_wait hold_lock; do
	wait_for "(^| |[│|])$fn( |…|$|[│|])" 30 || fail "no $fn frame in the flame graph"
done
ok
tm send-keys -t t q
wait_for " sleep_wait( |$)" || fail "q in the flame graph did not go back to the table"
screen | grep -q PERFTOP-EXITED && fail "q in the flame graph quit"
tm send-keys -t t q
wait_for 'PERFTOP-EXITED:0' || fail "q did not exit with status 0"
ok
echo "$checks passed, 0 failed"
