#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Acceptance: the replay in the full-screen view, driven through tmux as a person would, on a real
# recording made here (perf record -g of the spinner fixture for 4 s): the header shows the position
# "X.Xs / Y.Ys" and the sparkline, rows with the spinner's functions appear, + gives 2x, the table
# stays on screen once the end is reached (it must not decay away), Space pauses, Right seeks +10 s
# (to the end of a 4 s recording), [ and ] set a range over which the table aggregates (checked
# against perf script's samples in that range), i opens the header view (hostname, os release) and
# Esc closes it, q exits 0 with the alternate screen off.
#
# usage: test_replay_tui.sh PERFTOP FIXTURE_DIR   (exit 77 when tmux or perf is missing, or perf
# record is refused)
set -u
pt=${1:?usage: test_replay_tui.sh PERFTOP FIXTURE_DIR}
fixtures=${2:?}
command -v perf >/dev/null || { echo "SKIP: perf is not installed"; exit 77; }
# tm, screen, fail, ok, wait_for, wait_gone: tests/lib/tmuxlib.sh (a skip without tmux or the
# perf events); a fresh tmux server (socket) per run: no race with a previous server's exit.
. "$(dirname "$0")/../lib/tmuxlib.sh" replay-tui
d=$(mktemp -d /tmp/perftop-replay-tui-XXXXXX)
cleanup() { tm kill-server 2>/dev/null; rm -rf "$d"; }
trap cleanup EXIT
# The header's "X.Xs / Y.Ys": position and duration.
position() { screen | sed -nE 's@^ (PAUSED   |END   )?([0-9]+\.[0-9])s / [0-9]+\.[0-9]s.*@\2@p' | head -n1; }
duration() { screen | sed -nE 's@^ (PAUSED   |END   )?[0-9]+\.[0-9]s / ([0-9]+\.[0-9])s.*@\2@p' | head -n1; }
# The Samples column of a function's row.
samples_of() { screen | awk -v f="$1" '$4 == f && $1 ~ /%$/ { print $3; exit }'; }

f=$d/spin.data
if ! out=$(perf record -q -N -B -g -F 999 -o "$f" -- "$fixtures/spinner" 4 2>&1 >/dev/null); then
	echo "FAIL: perf record: $out"; exit 1
fi

tm new-session -d -s t -x 120 -y 40 "$pt -i $f -d 0.5; echo PERFTOP-EXITED:\$?; sleep 60"
SPARK='[▁▂▃▄▅▆▇█]{20,}'
wait_for "^ $SPARK" || fail "no sparkline"
ok
wait_for '^ [0-9]+\.[0-9]s / [34]\.[0-9]s   speed 1x' || fail "no position X.Xs / Y.Ys at 1x"
ok
wait_for 'spinner_work +spinner' || fail "no spinner_work row"
wait_for 'spinner_main_loop +spinner' || fail "no spinner_main_loop row"
ok
dur=$(duration)

# 2x, then the end: the last table stays (no decay to empty rows or zero samples).
tm send-keys -t t +
wait_for 'speed 2x' || fail "no 2x after +"
ok
wait_for "^ END   $dur"'s / '"$dur"'s' 60 || fail "the replay did not reach its end ($dur s)"
ok
sleep 1 # the refresh after the last records were fed
n1=$(samples_of spinner_work)
sleep 3 # six refresh intervals more
n2=$(samples_of spinner_work)
[ -n "$n1" ] && [ "$n1" -gt 0 ] && [ "$n1" = "$n2" ] ||
	fail "the table did not keep its data at the end: spinner_work samples $n1, 3 s later $n2"
ok

# Back to the start (Left: -10 s, clamped to 0); Space pauses past 1.5 s; Right goes to the end.
tm send-keys -t t Left
wait_for '^ 0\.[0-9]s / ' || fail "Left did not go back to the start"
wait_for '^ (1\.[5-9]|2\.[0-9])s / ' || fail "no position between 1.5 s and 3 s after Left"
tm send-keys -t t Space
wait_for '^ PAUSED   [0-9]+\.[0-9]s / ' || fail "no PAUSED after Space"
ok
p1=$(position)
awk -v p="$p1" -v d="$dur" 'BEGIN { exit !(p + 0 < d - 0.5) }' || fail "paused too late: at $p1 s of $dur s"
tm send-keys -t t '['
wait_for "range ${p1}s–${dur}s" || fail "no range from $p1 s after ["
tm send-keys -t t Right
wait_for "^ PAUSED   ${dur}s / ${dur}s" || fail "Right did not move from $p1 s to the end ($dur s)"
ok
tm send-keys -t t ']'
wait_for '^ +\[─+\]' || fail "no [───] range marks after ]"
wait_for "range ${p1}s–${dur}s   mode" || fail "no range ${p1}s–${dur}s after ]"
ok
# The table is the range's: spinner_work's samples there, as perf script counts them.
sleep 0.5
got=$(samples_of spinner_work)
want=$(perf script -i "$f" -G -F time,ip,sym 2>/dev/null | awk -v s="$p1" -v e="$dur" '
	{ t = $1; sub(":", "", t); t += 0; if (!n++) t0 = t; rel = t - t0 }
	rel >= s && rel < e + 0.05 && $3 == "spinner_work" { c++ }
	END { print c + 0 }')
all=$(perf script -i "$f" -G -F ip,sym 2>/dev/null | awk '$2 == "spinner_work"' | wc -l)
awk -v g="$got" -v w="$want" -v a="$all" 'BEGIN { exit !(g != "" && w > 0 && g - w < 120 &&
	w - g < 120 && g < 0.8 * a) }' ||
	fail "over the range ${p1}s–${dur}s the table has $got spinner_work samples, perf script $want (of $all)"
echo "range ${p1}s–${dur}s: spinner_work $got samples (perf script: $want in the range, $all in all)"
ok

# The header view.
tm send-keys -t t i
wait_for 'recording header' || fail "no header view after i"
wait_for "^ hostname: +$(hostname)" || fail "no hostname line in the header view"
wait_for "^ os release: +$(uname -r)" || fail "no os release line in the header view"
ok
tm send-keys -t t Escape
wait_gone 'recording header' || fail "Esc did not close the header view"
wait_for 'spinner_work +spinner' || fail "no rows after closing the header view"
ok

tm send-keys -t t q
wait_for 'PERFTOP-EXITED:0' || fail "q did not exit with status 0"
[ "$(tm display -p -t t '#{alternate_on}')" = 0 ] || fail "the terminal is still on the alternate screen"
screen | grep -Eq "$SPARK" && fail "the sparkline is still on the screen after q"
ok
echo "$checks passed, 0 failed"
