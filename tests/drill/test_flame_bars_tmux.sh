#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The flame graph's bars as the terminal shows them: every bar lies within the bar of its parent (on
# the row under it, or over it in the icicle), and the root spans the whole width, with the cursor
# on the root, on a middle frame and on a leaf, in both orientations. The screen is read with its
# colours (capture-pane -e -N, cells.py), in a terminal whose description says it erases in the
# current background (xterm-256color: bce), where a bar drawn as an erase ended at its label in
# tmux's cells (the selected root three cells wide under children that spanned the width).
#
# The input is perf record -g of the drill fixture (main -> top -> mid -> leaf_a / leaf_b),
# replayed with perftop -i to its end, so the graph stays as it is while the keys move the cursor.
# Exit 77 (skip) only when tmux or perf is missing or the kernel refuses the events perf record needs.
set -u
pt=${1:?usage: test_flame_bars_tmux.sh PERFTOP DRILL_FIXTURE}
fixture=${2:?}
. "$(dirname "$0")/../lib/tmuxlib.sh" flamebars
command -v perf >/dev/null || { echo "SKIP: perf is not installed"; exit 77; }
d=$(mktemp -d /tmp/perftop-flamebars-XXXXXX)
trap 'tm kill-server 2>/dev/null; rm -rf "$d"' EXIT
export XDG_CONFIG_HOME=$d/config
out=$(perf record -q -g -F 999 -o "$d/drill.data" -- "$fixture" 2 2>&1 >/dev/null) ||
	{ echo "FAIL: perf record of the drill fixture: $out"; exit 1; }

COLS=120
tm new-session -d -s t -x $COLS -y 30 \
	"TERM=xterm-256color $pt -i $d/drill.data -d 0.5; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for '^ END ' 600 || fail "the replay did not reach its end"
wait_for ' leaf_b ' || fail "no leaf_b row"
tm send-keys -t t f
wait_for 'Flame graph of the window' || fail "f did not open the flame graph"
sel_frame() { screen | sed -nE 's/^ ▶ ([^ ]+) .*/\1/p'; }
# move KEY NAME: presses KEY until the selected frame is NAME (at most 8 times)
move() {
	local i
	for ((i = 0; i < 8; i++)); do
		[ "$(sel_frame)" = "$2" ] && return 0
		tm send-keys -t t "$1"
		sleep 0.3
	done
	[ "$(sel_frame)" = "$2" ] || fail "$1 did not bring the cursor to $2 (it is on '$(sel_frame)')"
}

# bars WHAT: the flame area's bars (runs of cells on a colour) checked row by row against the row
# nearer the root; fails saying which bar sticks out.
bars() {
	local what=$1 report
	# the selected frame's line (▶ NAME) and the graph under the title, up to the key bar
	report=$(tm capture-pane -p -e -N -t t | cells runs | python3 -c '
import sys
cols, what = int(sys.argv[1]), sys.argv[2]
rows = [l.rstrip("\n").split("\t", 1) for l in sys.stdin]
title = next((i for i, (_, text) in enumerate(rows) if "Flame graph of" in text), None)
if title is None:
    sys.exit(f"{what}: no flame graph on the screen")
icicle = "root on top" in rows[title][1]
while rows and not rows[-1][1].strip():
    rows.pop()
area = rows[title + 2:len(rows) - 1]  # the last line is the key bar
levels = []
for head, _ in area:
    runs = [tuple(int(x) for x in r.split("/")[0].split("-")) for r in head.split(": ", 1)[1].split()] if ": " in head else []
    levels.append(runs)
levels = [l for l in levels if l]
if not icicle:
    levels.reverse()  # root first
if not levels:
    sys.exit(f"{what}: no bars")
bad = []
root = levels[0]
if len(root) != 1 or root[0][0] > 1 or root[0][1] < cols - 3:
    bad.append(f"the root is {root}, not one bar across the width ({cols} columns)")
for depth in range(1, len(levels)):
    for s, e in levels[depth]:
        if not any(ps <= s and e <= pe for ps, pe in levels[depth - 1]):
            bad.append(f"the bar {s}-{e} at depth {depth} is not within a bar under it "
                       f"({levels[depth - 1]})")
print(f"{what}: {len(levels)} levels, root {root}, {sum(len(l) for l in levels)} bars")
if bad:
    print("FAIL " + "; ".join(bad))
' "$COLS" "$what") || fail "$report"
	echo "$report"
	case $report in *FAIL*) fail "$what: ${report#*FAIL }" ;; esac
	ok
}

move k all
bars "root at the bottom, cursor on the root"
move k mid
bars "root at the bottom, cursor on mid"
move k leaf_a
bars "root at the bottom, cursor on leaf_a"
tm send-keys -t t v
wait_for 'icicle, root on top' || fail "v did not flip the flame graph"
tm send-keys -t t g
move g all
bars "icicle, cursor on the root"
move j mid
bars "icicle, cursor on mid"
move j leaf_a
bars "icicle, cursor on leaf_a"
tm send-keys -t t q
echo "$checks passed, 0 failed"
