#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_tui_tmux: the live view in a real terminal. tui_demo (a fake source) runs inside a private tmux
# server; the test reads the screen with capture-pane, sends keys, and checks that the terminal is
# restored after q, after SIGTERM and after die(). Every wait is bounded. Exit 77 (skip) only when
# tmux is missing. The last runs play the demo's fake recording (--replay): sparkline and position,
# speed, pause, seek, range, the i view, and the ASCII sparkline in a C locale.
set -u
BIN=${1:?usage: test_tui_tmux.sh path/to/tui_demo}
# tm (a private server), a UTF-8 locale (the marker and dashes drawn as such), wait_for and
# wait_gone: tests/lib/tmuxlib.sh; noperf: tui_demo opens no perf events, the test skips only
# without tmux.
. "$(dirname "$0")/../lib/tmuxlib.sh" tui noperf

# The screen of the session of the run ($S); a failed check is counted and the test goes on.
fails=0
fail() { echo "FAIL: $*"; echo "--- screen of $S:"; screen; echo "---"; fails=$((fails + 1)); }
screen() { tm capture-pane -p -t "$S" 2>/dev/null; }
start() { # start NAME ARGS...
	S=$1
	shift
	tm new-session -d -s "$S" -x 120 -y 30 "$BIN $*; echo EXITED:\$?; sleep 30"
}
alt_off() { [ "$(tm display -p -t "$S" '#{alternate_on}')" = 0 ]; }
demo_pid() { pgrep -P "$(tm display -p -t "$S" '#{pane_pid}')" | head -n1; }

# 1. header and rows show up fast, order keys, pause, help, q.
start main -d 0.5
wait_for 'perftop .*command: python3' || fail "no header"
wait_for '%.*compute_checksum' || fail "no rows"
wait_for 'Self%(▼|v)' || fail "no order marker on Self%"
tm send-keys -t "$S" '>'
wait_for 'Total%(▼|v)' || fail "order marker did not move to Total% after >"
wait_gone 'Self%(▼|v)' || fail "Self% still marked after >"
tm send-keys -t "$S" Space
wait_for 'PAUSED' || fail "no PAUSED after Space"
tm send-keys -t "$S" Space
wait_gone 'PAUSED' || fail "still PAUSED after a second Space"
tm send-keys -t "$S" '?'
wait_for 'perftop keys' || fail "no help after ?"
tm send-keys -t "$S" Escape
wait_gone 'perftop keys' || fail "help still shown after Esc"
tm send-keys -t "$S" q
wait_for '^EXITED:0$' || fail "no EXITED:0 after q"
alt_off || fail "alternate screen still on after q"
screen | grep -q 'Shared Object' && fail "the view is still on the screen after q"

# 2. SIGTERM: restored, status 0 (the loop returns normally).
start term -d 0.5
wait_for '%.*compute_checksum' || fail "no rows (SIGTERM run)"
pid=$(demo_pid)
[ -n "$pid" ] && kill -TERM "$pid"
wait_for '^EXITED:0$' || fail "no EXITED:0 after SIGTERM"
alt_off || fail "alternate screen still on after SIGTERM"

# 3. die() inside the loop: restored first, then the message, status 1.
start die --die-after 1
wait_for '^EXITED:1$' || fail "no EXITED:1 after die()"
alt_off || fail "alternate screen still on after die()"
screen | grep -q 'perftop: demo: dying on purpose' || fail "die() message not on the restored screen"

# 4. warnings go to the notice line, the exited target gets its notice.
start notes --warn --exit-after 0.3
wait_for 'warning: this is a warning from the demo source' || fail "warning not shown in the view"
wait_for 'python3 exited with status 0 — showing the last data; q quits' || fail "no exit notice"
tm send-keys -t "$S" q
wait_for '^EXITED:0$' || fail "no EXITED:0 (notes run)"

# 5. Ctrl-C: restored, status 0.
start intr -d 0.5
wait_for '%.*compute_checksum' || fail "no rows (Ctrl-C run)"
tm send-keys -t "$S" C-c
wait_for '^EXITED:0$' || fail "no EXITED:0 after Ctrl-C"
alt_off || fail "alternate screen still on after Ctrl-C"

# 6. resize down to a tiny window and back: redrawn, no crash.
start resize -d 0.5
wait_for '%.*compute_checksum' || fail "no rows (resize run)"
tm resize-window -t "$S" -x 20 -y 5
wait_for '^F1Help  F2Setup F3Se$' || fail "no key bar after resizing to 20x5"
tm resize-window -t "$S" -x 100 -y 20
wait_for 'Shared Object' || fail "no table after resizing back"
tm send-keys -t "$S" q
wait_for '^EXITED:0$' || fail "no EXITED:0 (resize run)"

# 7. NO_COLOR: attributes only, no colour escapes in the pane.
S=nocolor
tm new-session -d -s "$S" -x 120 -y 30 "NO_COLOR=1 $BIN; echo EXITED:\$?; sleep 30"
wait_for '%.*compute_checksum' || fail "no rows (NO_COLOR run)"
tm capture-pane -p -e -t "$S" | grep -qE $'\e\\[(3[0-7]|4[0-7])m' && fail "colour escapes under NO_COLOR"
tm capture-pane -p -e -t "$S" | grep -qE $'\e\\[(1|7)m' || fail "no bold/reverse under NO_COLOR"
tm send-keys -t "$S" q
wait_for '^EXITED:0$' || fail "no EXITED:0 (NO_COLOR run)"

# 8. an unknown terminal type: a clear error, status 1, nothing left behind.
S=badterm
tm new-session -d -s "$S" -x 120 -y 30 "TERM=bogus-term $BIN; echo EXITED:\$?; sleep 30"
wait_for '^EXITED:1$' || fail "no EXITED:1 with TERM=bogus-term"
screen | grep -q "perftop: cannot use terminal type 'bogus-term'" || fail "no message for an unknown TERM"

# 9. no terminal: a clear error, status 1.
out=$("$BIN" </dev/null 2>&1 >/dev/null)
rc=$?
[ $rc = 1 ] || { echo "FAIL: without a tty, status $rc (want 1)"; fails=$((fails + 1)); }
echo "$out" | grep -q 'needs a terminal' || { echo "FAIL: without a tty: '$out'"; fails=$((fails + 1)); }

# 10. replay: sparkline and position, + speed, Space pause, Right seek, [ ] range (R clears it:
# \ is the filter), i view, q; the function-key bar as live.
SPARK='[▁▂▃▄▅▆▇█]{20,}'
# position: the "12.3" of "12.3s / 60.0s" on the screen.
position() { screen | sed -nE 's@.* ([0-9]+\.[0-9])s / 60\.0s.*@\1@p' | head -n1; }
start replay --replay -d 0.5
wait_for "^ $SPARK" || fail "no sparkline in replay"
wait_for '[0-9]+\.[0-9]s / 60\.0s   speed 1x' || fail "no position and speed in replay"
wait_for '^ +▲' || fail "no position mark under the sparkline"
tm send-keys -t "$S" +
wait_for 'speed 2x' || fail "no 2x after +"
tm send-keys -t "$S" Space
wait_for '^ PAUSED   [0-9]+\.[0-9]s / 60\.0s' || fail "no PAUSED after Space in replay"
p1=$(position)
tm send-keys -t "$S" Right
sleep 0.3
p2=$(position)
for ((i = 0; i < 30; i++)); do
	[ "$p2" != "$p1" ] && break
	sleep 0.1
	p2=$(position)
done
awk -v a="$p1" -v b="$p2" 'BEGIN { d = b - a; exit !(a != "" && d > 9.8 && d < 10.2) }' ||
	fail "Right moved the position from '$p1' to '$p2' (want +10 s)"
tm send-keys -t "$S" '['
wait_for '^ +\[' || fail "no range start mark after ["
wait_for "range ${p2}s–60\.0s" || fail "no range from $p2 s after ["
tm send-keys -t "$S" Right
tm send-keys -t "$S" ']'
wait_for '^ +\[─+\]' || fail "no [───] range marks after ]"
wait_for 'range [0-9.]+s–[0-9.]+s   mode' || fail "no range in the mode line after ]"
screen | grep -qE "range ${p2}s–60\.0s" && fail "the range end did not move with ]"
tm send-keys -t "$S" R
wait_gone 'range [0-9.]+s–' || fail "range still shown after R"
wait_for '^F1Help  F2Setup F3Search' || fail "no function-key bar in replay"
tm send-keys -t "$S" i
wait_for 'perftop — recording header' || fail "no header view after i"
wait_for '^ hostname: +build-7' || fail "no hostname line in the header view"
tm send-keys -t "$S" End
wait_for 'build-id: .*kernel.kallsyms' || fail "End did not scroll the header view to its end"
tm send-keys -t "$S" i
wait_gone 'recording header' || fail "header view still shown after a second i"
wait_for "^ $SPARK" || fail "no sparkline after closing the header view"
tm send-keys -t "$S" i
wait_for 'recording header' || fail "no header view after i (again)"
tm send-keys -t "$S" q
wait_gone 'recording header' || fail "header view still shown after q"
sleep 0.3
screen | grep -q '^EXITED' && fail "q in the header view quit the program"
tm send-keys -t "$S" q
wait_for '^EXITED:0$' || fail "no EXITED:0 after q (replay run)"
alt_off || fail "alternate screen still on after q (replay run)"
screen | grep -qE "$SPARK" && fail "the sparkline is still on the screen after q"

# 11. replay in a C locale: the sparkline falls back to ASCII marks.
S=replay-ascii
tm new-session -d -s "$S" -x 100 -y 24 "LANG=C LC_ALL=C $BIN --replay; echo EXITED:\$?; sleep 30"
wait_for '^ [_.~=+*#-]{20,} +[_.~=+*#-]+$' || fail "no ASCII sparkline under LANG=C"
screen | grep -qE '[▁▂▃▄▅▆▇█]' && fail "UTF-8 blocks under LANG=C"
tm send-keys -t "$S" q
wait_for '^EXITED:0$' || fail "no EXITED:0 (ASCII replay run)"

[ $fails = 0 ] && echo "all tmux checks passed"
exit $((fails ? 1 : 0))
