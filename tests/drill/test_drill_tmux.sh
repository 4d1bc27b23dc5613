#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Drill-down on the real binary through tmux: perftop -- fixture (main -> top -> mid -> leaf_a /
# leaf_b). Enter on leaf_a's row (the cursor moved there by the row index read from capture-pane)
# shows mid as its caller; Enter on mid shows leaf_a and leaf_b as callees; Backspace goes back, Esc
# and q always get back out to the table; f draws a flame graph with main, top, mid and both leaves;
# q in the table exits 0 with the terminal restored. A fresh tmux server per run; every wait is
# bounded. Exit 77 (skip) only when tmux is missing or perf_event_open is refused.
set -u
pt=${1:?usage: test_drill_tmux.sh PERFTOP FIXTURE}
fixture=${2:?}
dso=$(basename "$fixture")   # the fixture's rows name it as their Shared Object
. "$(dirname "$0")/../lib/tmuxlib.sh" drill

tm new-session -d -s t -x 140 -y 40 "$pt -d 0.5 -- $fixture 60; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for 'leaf_a' || fail "no leaf_a row"
wait_for ' leaf_b ' || fail "no leaf_b row"
ok

# Enter on leaf_a: the function view with mid as its caller.
tm send-keys -t t Space
wait_for 'PAUSED' 30 || fail "no PAUSED after Space"
cursor_to leaf_a
tm send-keys -t t Enter
wait_for "^ leaf_a +$dso +Self" || fail "no function view of leaf_a after Enter"
wait_for 'Callers of leaf_a' || fail "no callers section"
screen | sed -n '/Callers of leaf_a/,/Callees of leaf_a/p' | grep -Eq "%  [▾▸·] mid  $dso" ||
	fail "mid is not leaf_a's caller"
wait_for 'table › leaf_a' || fail "no breadcrumb"
ok
# The first caller (mid) is under the cursor: Enter re-roots on it; leaf_a and leaf_b are callees.
tm send-keys -t t Enter
wait_for "^ mid +$dso +Self" || fail "Enter on mid did not re-root the view"
wait_for 'table › leaf_a › mid' || fail "no breadcrumb after re-root"
callees=$(screen | sed -n '/Callees of mid/,$p')
echo "$callees" | grep -Eq "%  [▾▸·] leaf_a  $dso" || fail "leaf_a is not a callee of mid"
echo "$callees" | grep -Eq "%  [▾▸·] leaf_b  $dso" || fail "leaf_b is not a callee of mid"
ok
# Backspace back to leaf_a, Esc to the table.
tm send-keys -t t BSpace
wait_for "^ leaf_a +$dso +Self" || fail "Backspace did not go back to leaf_a"
tm send-keys -t t Escape
wait_for 'Self%.*Total%.*Symbol' || fail "Esc did not go back to the table"
ok
# Straight to mid from the table, and q from the function view: back to the table, not out.
cursor_to mid
tm send-keys -t t Enter
wait_for 'Callees of mid' || fail "no function view of mid from the table"
tm send-keys -t t q
wait_for 'Self%.*Total%.*Symbol' || fail "q in the function view did not return to the table"
screen | grep -q PERFTOP-EXITED && fail "q in the function view quit"
ok

# f: the flame graph with main, top, mid and both leaves (resumed: it updates live).
tm send-keys -t t Space
wait_gone 'PAUSED' || fail "still PAUSED"
tm send-keys -t t f
wait_for 'Flame graph of the window' || fail "no flame graph after f"
for fn in main top mid leaf_a leaf_b; do
	wait_for "(^| )$fn( |…|$)" 30 || fail "no $fn frame in the flame graph"
done
# Up from the root (all) to the widest child three times: __libc_start_call_main, main, top.
tm send-keys -t t Up Up Up
wait_for "▶ top  $dso" || fail "Up did not walk to top"
# The screen line (from 1) of the flame graph's row that starts with frame $1, empty when none.
frame_line() { screen | awk -v f="$1" '$1 == f && /^ [^ ]/ { print NR; exit }'; }
# Zoomed into top, the frames under it (main, __libc_start_call_main, all) leave the graph, top is
# its bottom row; Backspace brings them back, under top.
tm send-keys -t t Enter
wait_for 'zoom: all › .*top' || fail "Enter did not zoom into top"
wait_gone '^ main( |$)' || fail "main is still drawn under the zoom into top"
[ -z "$(frame_line all)" ] || fail "the root (all) is still drawn under the zoom into top"
[ -n "$(frame_line top)" ] || fail "no top row under the zoom into top"
tm send-keys -t t BSpace
wait_gone 'zoom:' || fail "Backspace did not zoom out"
wait_for '^ main( |$)' || fail "main is not drawn again after Backspace"
# Root at the bottom: all's row under main's, main's under leaf_a's; v flips them (icicle).
for _ in $(seq 30); do [ -n "$(frame_line all)" ] && break; sleep 0.1; done
[ "$(frame_line all)" -gt "$(frame_line main)" ] && [ "$(frame_line main)" -gt "$(frame_line leaf_a)" ] ||
	fail "the flame graph is not root at the bottom: all at $(frame_line all), main at $(frame_line main), leaf_a at $(frame_line leaf_a)"
tm send-keys -t t v
wait_for 'icicle' || fail "v did not flip to an icicle"
for _ in $(seq 30); do [ "$(frame_line all)" -lt "$(frame_line main)" ] 2>/dev/null && break; sleep 0.1; done
[ "$(frame_line all)" -lt "$(frame_line main)" ] && [ "$(frame_line main)" -lt "$(frame_line leaf_a)" ] ||
	fail "v did not put the root on top: all at $(frame_line all), main at $(frame_line main), leaf_a at $(frame_line leaf_a)"
tm send-keys -t t Escape
wait_for 'Self%.*Total%.*Symbol' || fail "Esc did not leave the flame graph"
ok
# From the function view, f: the flame graph of that function's subtree; q: the table.
tm send-keys -t t Space
wait_for 'PAUSED' 30 || fail "no PAUSED after Space (second time)"
cursor_to mid
tm send-keys -t t Enter
wait_for 'Callees of mid' || fail "no function view of mid (second time)"
tm send-keys -t t f
wait_for 'Flame graph of mid' || fail "no flame graph of mid's subtree"
wait_for 'leaf_a' 30 || fail "no leaf_a in mid's flame graph"
tm send-keys -t t q
wait_for 'Self%.*Total%.*Symbol' || fail "q in the flame graph did not return to the table"
ok
# ? in a sub-view lists its keys.
tm send-keys -t t f '?'
wait_for 'flame view keys' || fail "no flame view help after ?"
tm send-keys -t t Escape Escape
wait_for 'Self%.*Total%.*Symbol' || fail "Esc Esc did not close the help and the flame graph"
ok

tm send-keys -t t q
wait_for 'PERFTOP-EXITED:0' || fail "q in the table did not exit 0"
[ "$(tm display -p -t t '#{alternate_on}')" = 0 ] || fail "the terminal is still on the alternate screen"
screen | grep -q 'Self%' && fail "the view is still on the screen after q"
ok
echo "$checks passed, 0 failed"
