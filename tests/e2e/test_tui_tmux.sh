#!/bin/bash
# Acceptance: the full-screen view driven as a person would, through tmux: the header and rows appear,
# the order changes with '>', 'q' exits with status 0 and the terminal is restored (the alternate
# screen is off and the shell's own text is back). Also Ctrl-C restores the terminal.
set -u
pt=${1:?usage: test_tui_tmux.sh PERFTOP FIXTURE_DIR}
fixtures=${2:?}
command -v tmux >/dev/null || { echo "SKIP: tmux is not installed"; exit 77; }
. "$(dirname "$0")/../perfprobe.sh"
need_perf_events task
# A fresh server (socket) per run: starting a session right after kill-server can race with the
# old server's exit ("server exited unexpectedly").
run=0
sock=perftop-e2e-$$-$run
tm() { tmux -L "$sock" "$@"; }
cleanup() { tm kill-server 2>/dev/null; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- screen:"; tm capture-pane -p -t t 2>/dev/null; exit 1; }
# Waits up to 8 s for the screen to match a regex.
wait_for() {
	for _ in $(seq 80); do
		tm capture-pane -p -t t 2>/dev/null | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	return 1
}

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
grep_header() { tm capture-pane -p -t t | grep -E 'Self|Total|Samples' | head -1; }
before=$(grep_header)
tm send-keys -t t '>'
sleep 0.7
after=$(grep_header)
[ "$before" != "$after" ] || fail "'>' did not change the order column: $before"
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

# The target exits: the view says so and keeps the data until q.
run_view -d 0.5 -- "$fixtures/spinner" 1.5
wait_for 'exited' || fail "the view does not say the target exited"
wait_for 'spinner_(work|main_loop)' || fail "the last data is not kept on screen"
tm send-keys -t t 'q'
wait_for 'PERFTOP-EXITED:0' || fail "q after the target exited"
checks=$((checks + 2))
echo "$checks passed, 0 failed"
