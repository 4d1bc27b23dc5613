#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The names' pool compacted at nearly every refresh (PERFTOP_NAMES_FLOOR=1, src/symbolize/intern.h)
# while the views that keep names are open, on the ASan+UBSan build (any read of a freed name stops
# it): perftop -- sh -c 'fixture & a churn of short processes' (their unnamed addresses are new names
# at every refresh). The function view of leaf_a keeps showing mid as its caller across compactions;
# a dso zoom keeps its rows; paused, the windows go on (and compactions with them) while the screen
# stays, and a function view opened from the paused screen, the m key and resuming all work. A C++
# workload (names/cxx_fixture.cc, built at build time) runs beside: its rows are demangled at first, raw in
# the table after the m pressed in mid's function view, demangled again after a second m; q exits 0
# with no ASan report and with several compactions counted.
set -u
pt=${1:?usage: test_names_tmux.sh PERFTOP_ASAN FIXTURE CXX_FIXTURE}
fixture=${2:?}
cxx=${3:?} # names/cxx_fixture.cc, built at build time when g++ is there (tests/names)
dso=$(basename "$fixture")
. "$(dirname "$0")/../lib/tmuxlib.sh" names
[ -x "$cxx" ] || { echo "SKIP: no $cxx: g++ is not installed (the C++ workload for m is built with it)"; exit 77; }
tmp=$(mktemp -d)
trap 'tm kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
# A C++ workload beside the fixture, so that m (demangled / raw names) has names to change.
churn="$fixture 60 & $cxx 60 & while :; do /bin/true; ls / >/dev/null; done"
# Its own settings directory: m is saved there at q, and each run starts from the defaults.
tm new-session -d -s t -x 140 -y 40 \
	"XDG_CONFIG_HOME=$tmp/config PERFTOP_NAMES_FLOOR=1 ASAN_OPTIONS=log_path=$tmp/asan:detect_leaks=1 $pt -d 0.3 -- sh -c '$churn' 2>$tmp/err; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for ' leaf_a ' 200 || fail "no leaf_a row"
# The table's C++ rows: demangled (geo::...) or raw (_ZN...3geo...).
wait_for ' geo::Grid::' 100 || fail "no demangled row of the C++ workload (geo::Grid::...)"
screen | grep -q '_ZN[A-Z0-9]*3geo' && fail "a raw C++ name in the table while demangling"
ok

compactions() { grep -o 'names: [0-9]* compactions' "$tmp/err" 2>/dev/null | grep -o '[0-9]*'; }
# The function view across refreshes (each may compact the names).
tm send-keys -t t Space
wait_for 'PAUSED' 30 || fail "no PAUSED after Space"
cursor_to leaf_a
tm send-keys -t t Space Enter
wait_gone 'PAUSED' || fail "still PAUSED"
wait_for 'Callers of leaf_a' || fail "no function view of leaf_a"
sleep 3
screen | sed -n '/Callers of leaf_a/,/Callees of leaf_a/p' | grep -Eq "%  [▾▸·] mid  $dso" ||
	fail "mid is no longer leaf_a's caller after refreshes"
tm send-keys -t t f
wait_for 'Flame graph of leaf_a' || fail "no flame graph of leaf_a"
sleep 2
tm send-keys -t t q
wait_for 'Self%.*Total%.*Symbol' || fail "q did not return to the table"
ok
# A dso zoom keeps its rows across compactions.
cursor_to leaf_a
tm send-keys -t t d
wait_for "zoom: dso $dso" || fail "no dso zoom after d"
sleep 3
wait_for ' leaf_a ' 50 || fail "no leaf_a under the zoom after refreshes"
tm send-keys -t t Escape
wait_gone 'zoom:' || fail "Esc did not pop the zoom"
ok
# Paused: the windows go on behind the screen; then a view from the paused screen, m, resume.
tm send-keys -t t Space
wait_for 'PAUSED' 30 || fail "no PAUSED"
sleep 3
# by Total%: mid (no Self of its own) is then near the top, not below the screen's last row when
# the churn fills the table with rows of Self
tm send-keys -t t '>'
wait_for 'Total%▼' || fail "no Total% order after >"
cursor_to mid
tm send-keys -t t Enter
wait_for 'Callees of mid' || fail "no function view of mid from the paused screen"
tm send-keys -t t m
sleep 0.5
tm send-keys -t t Space
wait_gone 'PAUSED' || fail "still PAUSED after resuming"
sleep 2
screen | sed -n '/Callees of mid/,$p' | grep -Eq "%  [▾▸·] leaf_a  $dso" ||
	fail "leaf_a is no longer a callee of mid after resuming"
# m in the function view changed the names everywhere: the table's C++ rows are raw now; m again
# brings the demangled names back.
tm send-keys -t t q
wait_for 'Self%.*Total%.*Symbol' || fail "q did not return to the table from mid's function view"
tm send-keys -t t '<'
wait_for 'Self%▼' || fail "no Self% order after <"
tm send-keys -t t Home # the hottest rows, the C++ ones among them, on screen
wait_for ' _ZN[A-Z0-9]*3geo4Grid' || fail "no raw C++ name (_ZN...3geo4Grid...) in the table after m"
wait_gone ' geo::' || fail "demangled C++ names still in the table after m"
ok
tm send-keys -t t m
wait_for ' geo::Grid::' || fail "no demangled C++ name in the table after m again"
wait_gone ' _ZN[A-Z0-9]*3geo' || fail "raw C++ names still in the table after m again"
ok
tm send-keys -t t q
wait_for 'PERFTOP-EXITED:0' 100 || fail "q did not exit 0 ($(cat "$tmp"/asan* 2>/dev/null | head -20))"
ok
ls "$tmp"/asan* >/dev/null 2>&1 && fail "ASan/UBSan reported: $(head -30 "$tmp"/asan*)"
n=$(compactions)
[ "${n:-0}" -ge 3 ] || fail "only ${n:-0} compactions of the names: $(cat "$tmp/err")"
echo "names compacted $n times"
ok
echo "$checks passed, 0 failed"
