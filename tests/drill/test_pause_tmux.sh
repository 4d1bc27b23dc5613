#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Space when the table is empty: a dso zoom made while paused starts its aggregation over, empty.
# perftop -d 1 -z -- fixture (-z: the table is one window, the one w writes), paused once its rows
# show: after d on leaf_a the zoomed table fills with the fixture's rows (leaf_a, and mid, every
# sample's caller) instead of holding an empty table; once it has rows it keeps them (two captures
# two refreshes apart are the same), and w writes that window: the samples of each of the
# fixture's functions on screen are the export's stacks ending in it, both ways; Space resumes and
# q exits 0. (A table with rows is never changed by a pause: the other tmux tests pause and then
# move the cursor on what they read.)
set -u
pt=${1:?usage: test_pause_tmux.sh PERFTOP FIXTURE}
fixture=${2:?}
dso=$(basename "$fixture")
. "$(dirname "$0")/../lib/tmuxlib.sh" pause

table() { screen | sed -n '/Self%.*Total%.*Symbol/,$p' | grep -E '^ +[0-9.]+% '; }
# held: the table has rows and stays the same over two refreshes and more (-d 1), looked at once
# (a table with rows must not change under a pause at all).
held() {
	local a b
	a=$(table)
	sleep 2.5
	b=$(table)
	[ -n "$a" ] && [ "$a" = "$b" ]
}

tm new-session -d -s t -x 140 -y 40 "$pt -d 1 -z -- $fixture 60; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for " leaf_a +$dso" || fail "no leaf_a row"
tm send-keys -t t Space
wait_for '^ PAUSED ' 50 || fail "Space did not pause the display"
# A zoom while paused starts its aggregation over: the zoomed table fills in, then holds.
cursor_to leaf_a
tm send-keys -t t d
wait_for "zoom: dso $dso" || fail "no dso zoom after d"
screen | grep -q '^ PAUSED ' || fail "the zoom resumed the display"
wait_for " leaf_a +$dso" 60 || fail "zoomed while paused, the table never showed leaf_a"
wait_for " mid +$dso" 30 || fail "zoomed while paused, the table never showed mid"
held || fail "the paused zoomed table still changes after it showed rows"
ok
tmp=$(mktemp -d /tmp/perftop-pause-XXXXXX)
trap 'tm kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
screen > "$tmp/paused.txt"
write_to "$tmp/w.folded"
# the fixture's own functions, from its symbol table
nm --defined-only "$fixture" | awk '$2 ~ /^[tT]$/ { print $3 }' > "$tmp/funcs"
python3 - "$tmp/paused.txt" "$tmp/w.folded" "$tmp/funcs" "$dso" <<'PY' || fail "the export of the paused window"
import re, sys
paused, folded, funcs, dso = sys.argv[1:5]
funcs = set(open(funcs).read().split())
rows, last = {}, None
for line in open(paused).read().splitlines():
    m = re.match(r'\s*[\d.]+%\s+[\d.]+%\s+(\d+)\s+(\S+)\s+(\S+)\s*$', line)
    if m:
        last = int(m.group(1))
        if m.group(3) == dso and last > 0:
            rows[m.group(2)] = last
if last != 0:
    sys.exit("the paused screen does not reach the rows without samples: rows are missing")
leaves = {}
for line in open(folded):
    stack, count = line.rsplit(' ', 1)
    leaf = stack.split(';')[-1]
    if leaf in funcs:
        leaves[leaf] = leaves.get(leaf, 0) + int(count)
print("screen:", rows, "export:", leaves)
if not rows or rows != leaves:
    sys.exit("the export's leaf samples of the fixture differ from the paused screen's")
PY
ok
tm send-keys -t t Space
wait_gone '^ PAUSED ' || fail "Space did not resume"
tm send-keys -t t q
wait_for 'PERFTOP-EXITED:0' || fail "q did not exit 0"
ok
echo "$checks passed, 0 failed"
