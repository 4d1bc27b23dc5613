#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Find, filter, zoom, setup and the mouse on the real binary through tmux: perftop -- fixture
# (main -> top -> mid -> leaf_a / leaf_b). /leaf_b + Enter puts the cursor on leaf_b's row; \leaf +
# Enter leaves only the leaves; Esc clears the filter; I inverts the order (the rows follow); K hides
# kernel frames and d zooms into the fixture's dso (said in the mode line, and the table's rows are
# only those the zoom lets in), Esc pops them; F2 opens the
# setup and Space hides Samples; a mouse click (an xterm mouse report sent into the pane) selects
# a row and a click on a column title orders by it; the function-key bar is at the bottom; q and
# Esc always get back out. Exit 77 (skip) only when tmux is missing or perf_event_open is refused.
set -u
pt=${1:?usage: test_find_tmux.sh PERFTOP FIXTURE}
fixture=${2:?}
. "$(dirname "$0")/../lib/tmuxlib.sh" find
# The symbols of the table's rows, in order, from the screen.
rows() { screen | awk '/Self%.*Total%.*Symbol/ { h = 1; next } h && /%/ { print $4 }'; }
# The selected row: under NO_COLOR the cursor is the reversed row; its symbol. tmux writes only the
# changes of attribute, across lines too (the reversed title line's pen carries into a cursor on
# the first row), so cells.py reads the capture as a terminal would.
selected() {
	tm capture-pane -p -e -t t | cells rev | awk '$1 ~ /%$/ && $2 ~ /%$/ { print $4; exit }'
}

tm new-session -d -s t -x 140 -y 40 "NO_COLOR=1 $pt -d 0.5 -- $fixture 60; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for 'leaf_a' || fail "no leaf_a row"
wait_for ' leaf_b ' || fail "no leaf_b row"
wait_for '^F1Help  F2Setup F3Search' || fail "no function-key bar"
ok
tm send-keys -t t Space
wait_for 'PAUSED' 30 || fail "no PAUSED after Space"

# /leaf_b, Enter: the cursor on leaf_b.
tm send-keys -t t / l e a f _
wait_for 'Search: leaf_' || fail "no search field after /"
tm send-keys -t t b Enter
wait_gone 'Search:' || fail "search field still shown after Enter"
[ "$(selected)" = leaf_b ] || fail "cursor on '$(selected)' after /leaf_b, not leaf_b"
ok
# n from leaf_b: the next row matching leaf_b is leaf_b itself (the only one).
tm send-keys -t t Home n
sleep 0.3
[ "$(selected)" = leaf_b ] || fail "n did not find leaf_b again"
ok

# \leaf, Enter: only the leaves.
tm send-keys -t t '\' l e a f Enter
wait_for 'filter: leaf' || fail "no filter in the mode line"
got=$(rows | sort | tr '\n' ' ')
[ "$got" = "leaf_a leaf_b " ] || fail "rows after \\leaf: '$got' (want leaf_a leaf_b)"
ok
# Esc clears it: mid is back.
tm send-keys -t t Escape
wait_gone 'filter: leaf' || fail "filter still there after Esc"
rows | grep -qx mid || fail "mid not back after Esc"
ok

# I inverts the order: Self% ascending, its arrow up; the rows (paused: one refresh's) follow it.
# self_in_order asc|desc: the Self% column on screen in that order, over at least two rows.
self_in_order() {
	screen | awk -v d="$1" '/Self%.*Total%.*Symbol/ { h = 1; next } h && $1 ~ /%$/ {
		v = $1; sub("%", "", v); v += 0; n++
		if (n > 1 && (d == "asc" ? v < prev : v > prev)) bad = 1
		prev = v }
		END { exit !(n >= 2 && !bad) }'
}
tm send-keys -t t I
wait_for 'Self%▲' || fail "no inverted order after I"
self_in_order asc || fail "the rows are not in ascending Self% after I"
self_in_order desc && fail "the rows are still in descending Self% after I"
tm send-keys -t t I
wait_for 'Self%▼' || fail "order not back after I again"
self_in_order desc || fail "the rows are not back in descending Self% after I again"
ok

# Zoom: K hides the kernel's frames, then d zooms into the fixture's dso; Esc pops each. A zoom
# starts the aggregation over, so a refresh after each shows only what it lets in: no kernel row
# after K (the fixture's kernel time is gone from the table), only the fixture's rows after d.
dso=$(basename "$fixture")
tm send-keys -t t K
wait_for "zoom: kernel hidden" || fail "no kernel hidden after K"
tm send-keys -t t Space   # resume: the zoomed table fills again
wait_for ' leaf_a ' 50 || fail "no leaf_a with the kernel hidden"
sleep 1
screen | grep -q '\[kernel\.kallsyms\]' && fail "a kernel row with the kernel hidden (K)"
tm send-keys -t t Home d
wait_for "zoom: kernel hidden › dso $dso" || fail "no dso zoom after d"
wait_for ' leaf_a ' 50 || fail "no leaf_a under the zoom"
sleep 1
others=$(screen | awk -v d="$dso" '/Self%.*Total%.*Symbol/ { h = 1; next } h && $1 ~ /%$/ && $NF != d { print $4 " (" $NF ")" }')
[ -z "$others" ] || fail "rows of other binaries under the zoom into $dso: $(echo $others)"
tm send-keys -t t Escape
wait_gone "› dso $dso" || fail "Esc did not pop the dso zoom"
tm send-keys -t t Escape
wait_gone 'zoom:' || fail "Esc did not pop K"
ok

# F2: the setup; Space on Samples hides the column; Esc closes.
tm send-keys -t t F2
wait_for 'Setup: columns of the table' || fail "no setup screen after F2"
tm send-keys -t t Down Down Down Space
wait_for '\[ \] Samples' || fail "Samples not hidden in the setup"
tm send-keys -t t Escape
wait_for 'Self%.*Total%.*Symbol' || fail "Esc did not close the setup"
screen | grep -q 'Samples' && fail "Samples column still shown"
ok

# The mouse: a click (an xterm X10 report, press then release) on a row selects it; on the
# Symbol title it orders by Symbol.
tm send-keys -t t Space
wait_for 'PAUSED' 30 || fail "no PAUSED (mouse)"
title_y=$(screen | grep -n 'Self%.*Total%.*Symbol' | head -1 | cut -d: -f1)
title_y=$((title_y - 1))
click() { # x y (0-based)
	tm send-keys -t t -H 1b 5b 4d 20 $(printf '%x %x' $(($1 + 33)) $(($2 + 33)))
	tm send-keys -t t -H 1b 5b 4d 23 $(printf '%x %x' $(($1 + 33)) $(($2 + 33)))
}
want=$(rows | sed -n 3p)
click 30 $((title_y + 3))
for ((i = 0; i < 20; i++)); do [ "$(selected)" = "$want" ] && break; sleep 0.1; done
[ "$(selected)" = "$want" ] || fail "a click on the third row selected '$(selected)', not $want"
ok
symx=$(screen | sed -n "$((title_y + 1))p" | awk '{ print index($0, "Symbol") - 1 }')
click $((symx + 1)) $title_y
wait_for 'Symbol▲' || fail "a click on the Symbol title did not order by it"
ok

# q gets out of a view, then out of perftop.
tm send-keys -t t F2
wait_for 'Setup: columns' || fail "no setup (second time)"
tm send-keys -t t q
wait_for 'Self%.*Total%.*Symbol' || fail "q did not leave the setup"
tm send-keys -t t q
wait_for 'PERFTOP-EXITED:0' || fail "q in the table did not exit 0"
[ "$(tm display -p -t t '#{alternate_on}')" = 0 ] || fail "the terminal is still on the alternate screen"
ok
echo "$checks passed, 0 failed"
