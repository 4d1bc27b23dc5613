#!/bin/bash
# The names' pool compacted at nearly every refresh (PERFTOP_NAMES_FLOOR=1, src/symbolize/intern.h)
# while the views that keep names are open, on the ASan+UBSan build (any read of a freed name stops
# it): perftop -- sh -c 'fixture & a churn of short processes' (their unnamed addresses are new names
# at every refresh). The function view of leaf_a keeps showing mid as its caller across compactions;
# a dso zoom keeps its rows; paused, the windows go on (and compactions with them) while the screen
# stays, and a function view opened from the paused screen, the m key and resuming all work; q
# exits 0 with no ASan report and with several compactions counted.
set -u
pt=${1:?usage: test_names_tmux.sh PERFTOP_ASAN FIXTURE}
fixture=${2:?}
dso=$(basename "$fixture")
. "$(dirname "$0")/tmuxlib.sh" names
tmp=$(mktemp -d)
trap 'tm kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
churn="$fixture 60 & while :; do /bin/true; ls / >/dev/null; done"
tm new-session -d -s t -x 140 -y 40 \
	"PERFTOP_NAMES_FLOOR=1 ASAN_OPTIONS=log_path=$tmp/asan:detect_leaks=1 $pt -d 0.3 -- sh -c '$churn' 2>$tmp/err; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for ' leaf_a ' 200 || fail "no leaf_a row"
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
tm send-keys -t t q q
wait_for 'PERFTOP-EXITED:0' 100 || fail "q did not exit 0 ($(cat "$tmp"/asan* 2>/dev/null | head -20))"
ok
ls "$tmp"/asan* >/dev/null 2>&1 && fail "ASan/UBSan reported: $(head -30 "$tmp"/asan*)"
n=$(compactions)
[ "${n:-0}" -ge 3 ] || fail "only ${n:-0} compactions of the names: $(cat "$tmp/err")"
echo "names compacted $n times"
ok
echo "$checks passed, 0 failed"
