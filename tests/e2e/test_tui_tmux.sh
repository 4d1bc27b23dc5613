#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Acceptance: the full-screen view driven as a person would, through tmux: the header and rows appear,
# the order changes with '>' (the mark moves to Total% and the rows follow it), 'q' exits with status 0 and the terminal is restored (the alternate
# screen is off and the shell's own text is back). Also Ctrl-C restores the terminal.
set -u
pt=${1:?usage: test_tui_tmux.sh PERFTOP FIXTURE_DIR}
fixtures=${2:?}
# tm, fail, wait_for: tests/lib/tmuxlib.sh (a skip without tmux or the perf events)
. "$(dirname "$0")/../lib/tmuxlib.sh" e2e
# A fresh server (socket) per run: starting a session right after kill-server can race with the
# old server's exit ("server exited unexpectedly"). tm and the exit's kill-server use the run's.
run=0
sock=perftop-e2e-$$-$run

run_view() {
	tm kill-server 2>/dev/null
	run=$((run + 1))
	sock=perftop-e2e-$$-$run
	tm new-session -d -s t -x 120 -y 30 "$pt $* ; echo PERFTOP-EXITED:\$?; sleep 60"
}

run_view -d 0.5 -- "$fixtures/spinner" 30
wait_for 'perftop' || fail "no header"
wait_for 'spinner_(work|main_loop)' || fail "no rows with the spinner's functions"
checks=2
# The column whose title carries the order mark (▼ or ▲), and whether the rows on screen are in
# that order: the column's values descending (▼) or ascending (▲), row after row.
order_mark() { tm capture-pane -p -t t | grep -Eo '(Self|Total)%[▼▲]' | head -1; }
rows_in_order() { # COLUMN (1: Self%, 2: Total%) DIRECTION (desc|asc)
	tm capture-pane -p -t t | sed -n '/^ *Self%.*Total%.*Symbol/,$p' |
		awk -v c="$1" -v d="$2" 'NR > 1 && $1 ~ /%$/ && $2 ~ /%$/ {
			v = $c; sub("%", "", v); v += 0; n++
			if (n > 1 && (d == "desc" ? v > prev : v < prev)) bad = 1
			prev = v }
		END { exit !(n >= 2 && !bad) }'
}
wait_for 'Self%▼' || fail "the table is not ordered by Self% at first"
# Paused, so that the rows read are those of one refresh. Ctrl-L then: the spinner's "ready",
# written to the same terminal, scrolls it when it comes after the view's first frame, and the view
# does not know (it draws only what changed); the order is what is checked here.
tm send-keys -t t Space
wait_for 'PAUSED' || fail "no PAUSED after Space"
tm send-keys -t t C-l
sleep 0.3
rows_in_order 1 desc || fail "the rows are not in descending Self% order under Self%▼"
tm send-keys -t t '>'
wait_for 'order: Total%' || fail "'>' did not make the mode line say order: Total%"
[ "$(order_mark)" = 'Total%▼' ] || fail "'>' did not move the order mark to Total%: $(order_mark)"
rows_in_order 2 desc || fail "after '>' the rows are not in descending Total% order"
# Total% order is not Self% order on this table (a caller above its callees), or '>' changed nothing
# that the check above could see.
rows_in_order 1 desc && fail "after '>' the rows are still in Self% order"
tm send-keys -t t Space
checks=$((checks + 1))
tm send-keys -t t 'q'
wait_for 'PERFTOP-EXITED:0' || fail "q did not exit with status 0"
[ "$(tm display -p -t t '#{alternate_on}')" = 0 ] || fail "the terminal is still on the alternate screen"
checks=$((checks + 2))

# Ctrl-C also restores the terminal.
run_view -d 0.5 -- "$fixtures/spinner" 30
wait_for 'spinner_(work|main_loop)' || fail "no rows on the second run"
tm send-keys -t t C-c
wait_for 'PERFTOP-EXITED:' || fail "Ctrl-C did not end perftop"
[ "$(tm display -p -t t '#{alternate_on}')" = 0 ] || fail "Ctrl-C left the alternate screen on"
checks=$((checks + 1))

# A fault (SIGSEGV, here sent from outside so that it comes whatever the code does): the report on
# stderr names the signal, the terminal is given back (normal screen, cooked mode with echo: a
# shell after it works), and the exit status is the signal's, as the fault's would be.
tm kill-server 2>/dev/null
run=$((run + 1))
sock=perftop-e2e-$$-$run
tm new-session -d -s t -x 120 -y 30 "$pt -d 0.5 -- $fixtures/spinner 30; echo PERFTOP-EXITED:\$?; stty -a | tr -s '; ' '\n\n' | grep -xE -- '-?(icanon|echo)' | tr '\n' ' '; echo; sleep 60"
wait_for 'spinner_(work|main_loop)' || fail "no rows on the fault run"
pid=$(pgrep -P "$(tm display -p -t t '#{pane_pid}')" -x perftop | head -n1)
[ -n "$pid" ] || fail "no perftop process under the pane"
kill -SEGV "$pid"
wait_for 'PERFTOP-EXITED:139' || fail "a SIGSEGV did not end perftop with status 139"
[ "$(tm display -p -t t '#{alternate_on}')" = 0 ] || fail "a fault left the alternate screen on"
wait_for '^icanon echo *$' || fail "a fault left the terminal in raw mode (stty: $(tm capture-pane -p -t t | grep -E 'icanon|echo'))"
tm capture-pane -p -t t | grep -q 'perftop: crashed: SEGV (signal 11)' || fail "no crash report naming SIGSEGV"
checks=$((checks + 4))

# The target exits: the view says so and keeps the data until q.
run_view -d 0.5 -- "$fixtures/spinner" 1.5
wait_for 'exited' || fail "the view does not say the target exited"
wait_for 'spinner_(work|main_loop)' || fail "the last data is not kept on screen"
tm send-keys -t t 'q'
wait_for 'PERFTOP-EXITED:0' || fail "q after the target exited"
checks=$((checks + 2))
echo "$checks passed, 0 failed"
