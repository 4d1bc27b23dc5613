#!/bin/bash
# Annotate on the real binary through tmux: perftop -o F -- fixture (main -> top -> mid -> leaf_a /
# leaf_b, built -O2 -g). a on leaf_a's row shows lines of fixture.c with percentages, s shows its
# assembly (mov / imul / add / ret ...) and then both interleaved, H puts the cursor on the hottest
# line, Tab moves it, Esc gets back to the table, a from the function view annotates too, and q in
# the table exits 0 with the terminal restored. Which lines are hot is this CPU's business (its
# skid puts the samples of the loop on the for line, on the add, or on both): the lines perftop
# showed hot are checked against perf report --sort srcline on F, the recording of the same
# session. A fresh tmux server per run; every wait is bounded. Exit 77 (skip) only when tmux or
# perf is missing or the kernel refuses perf_event_open (perf_probe).
set -u
pt=${1:?usage: test_annotate_tmux.sh PERFTOP FIXTURE}
fixture=${2:?}
dso=$(basename "$fixture")
. "$(dirname "$0")/tmuxlib.sh" annotate
command -v perf >/dev/null || { echo "SKIP: perf is not installed"; exit 77; }
d=$(mktemp -d /tmp/perftop-annotate-XXXXXX)
trap 'tm kill-server 2>/dev/null; rm -rf "$d"' EXIT
# The line of the annotate list under the cursor: the one that starts in the cursor's colours
# (cyan background, or reverse video without colour).
selected() {
	tm capture-pane -p -e -t t | grep -E $'^(\e\\[[0-9;]*m)*\e\\[(46|7)m' | sed 's/\x1b\[[0-9;]*m//g' |
		grep -E '^ +([0-9.]+%| )' | tail -1
}

tm new-session -d -s t -x 120 -y 40 "$pt -d 0.5 -o $d/ann.data -- $fixture 60; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for 'leaf_a' || fail "no leaf_a row"
# A few refreshes, so that leaf_a's loop has samples on its lines.
sleep 2
tm send-keys -t t Space
wait_for 'PAUSED' 30 || fail "no PAUSED after Space"
cursor_to leaf_a
ok

# a: the source of leaf_a from fixture.c, lines with percentages (which ones: checked at the end).
tm send-keys -t t a
wait_for "^ leaf_a +$dso +Self .*source" || fail "no annotate view of leaf_a after a"
wait_for 'table › annotate leaf_a' || fail "no breadcrumb"
wait_for 'Line +/.*fixture\.c' || fail "no fixture.c title"
wait_for '^ +[0-9.]+% +[0-9.]+% +[0-9]+  ' || fail "no line of leaf_a with percentages"
wait_for '[0-9]+  .*for \(int i = 0; i < 200000; i\+\+\)' || fail "no leaf_a loop line"
wait_for '[0-9]+  .*unsigned long leaf_a\(unsigned long seed\)' || fail "no leaf_a signature line"
# Line number and Self% of each line with samples, for the comparison with perf at the end.
lines=$(screen | awk '/Self% +Total% +Line/ { f = 1; next } f && $1 ~ /%$/ && $3 ~ /^[0-9]+$/ {
	v = $1; sub("%", "", v); print $3, v }')
[ -n "$lines" ] || fail "no line with a Self% in the annotate view"
ok
# H: the hottest line goes under the cursor (it has the biggest Self%).
tm send-keys -t t H
sleep 0.3
sel=$(selected)
hot=$(screen | awk '/Line +\/|Line +fixture|Line +\//{f=1; next} f && $1 ~ /%$/ {v=$1; sub("%","",v); if (v+0 > m) {m=v+0; l=$0}} END{print l}')
[ -n "$sel" ] || fail "no cursor line after H"
echo "$sel" | grep -Eq '^ +[0-9.]+%' || fail "the cursor line after H has no Self%: $sel"
[ "$(echo "$sel" | awk '{print $1}')" = "$(echo "$hot" | awk '{print $1}')" ] ||
	fail "H did not go to the hottest line: '$sel' vs '$hot'"
ok
# Tab: on to another hot line (or stays, when there is only one).
tm send-keys -t t Tab
sleep 0.3
[ -n "$(selected)" ] || fail "no cursor line after Tab"
ok

# s: the assembly, with instructions and addresses.
tm send-keys -t t s
wait_for "^ leaf_a .*assembly" || fail "no assembly mode after s"
wait_for 'Address +Instruction' || fail "no assembly title"
for insn in mov imul add ret; do
	wait_for "^ [ 0-9.%]* +[0-9a-f]+:  $insn( |$)" 20 || fail "no $insn instruction"
done
wait_for '^ +[0-9.]+% +[0-9.]+% +[0-9a-f]+:  ' || fail "no instruction with a percentage"
ok
# s again: both interleaved (source lines with their instructions under them).
tm send-keys -t t s
wait_for "^ leaf_a .*source \+ assembly" || fail "no interleaved mode after the second s"
wait_for '[0-9]+  .*for \(int i = 0;' || fail "no source line in the interleaved mode"
wait_for '^ [ 0-9.%]* +[0-9a-f]+:  [a-z]' || fail "no instruction in the interleaved mode"
ok
# Esc: back to the table.
tm send-keys -t t Escape
wait_for 'Self%.*Total%.*Symbol' || fail "Esc did not go back to the table"
ok
# From the function view of leaf_a: a annotates too; q returns to the table.
cursor_to leaf_a
tm send-keys -t t Enter
wait_for 'Callers of leaf_a' || fail "no function view of leaf_a"
tm send-keys -t t a
wait_for "table › leaf_a › annotate" || fail "a in the function view did not annotate"
tm send-keys -t t '?'
wait_for 'annotate view keys' || fail "no annotate help after ?"
tm send-keys -t t Escape q
wait_for 'Self%.*Total%.*Symbol' || fail "q in annotate did not return to the table"
ok

tm send-keys -t t q
wait_for 'PERFTOP-EXITED:0' || fail "q in the table did not exit 0"
[ "$(tm display -p -t t '#{alternate_on}')" = 0 ] || fail "the terminal is still on the alternate screen"
screen | grep -q 'Self%' && fail "the view is still on the screen after q"
ok

# The reference: perf report on the recording of this session, leaf_a's samples by source line
# (fixture.c:N). Each line's share of leaf_a's samples, perftop's (its window when the view was
# paused) against perf's (the whole recording), within 10 points; and perftop's hottest line is
# one of perf's hottest (within the same 10 points of perf's top line).
ref=$(perf report -i "$d/ann.data" --stdio -q --no-children -g none --sort srcline --symbols leaf_a \
	--percent-limit 0 2>/dev/null | awk '$1 ~ /%$/ && $2 ~ /fixture\.c:[0-9]+$/ {
	v = $1; sub("%", "", v); n = $2; sub(".*:", "", n); print n, v }')
[ -n "$ref" ] || fail "perf report --sort srcline shows no line of leaf_a in $d/ann.data"
cmp=$({ echo "$lines" | sed 's/^/P /'; echo "$ref" | sed 's/^/R /'; } | awk '
	{ v[$1, $2] = $3; s[$1] += $3; line[$2] = 1 }
	END {
		for (l in line) {
			p = s["P"] ? 100 * v["P", l] / s["P"] : 0
			r = s["R"] ? 100 * v["R", l] / s["R"] : 0
			printf "line %s: perftop %.1f%% perf %.1f%%\n", l, p, r
			d = p - r; if (d < 0) d = -d
			if (d > 10) bad = bad " " l
			if (p > pmax) { pmax = p; phot = l }
			if (r > rmax) rmax = r
			rs[l] = r
		}
		if (rs[phot] < rmax - 10) bad = bad " hottest:" phot
		print bad == "" ? "OK" : "BAD" bad
	}')
echo "$cmp" | sort -n -k2
echo "$cmp" | grep -qx OK || fail "leaf_a's lines: perftop and perf report on the same recording differ: $(echo "$cmp" | tr '\n' ';')"
ok
echo "$checks passed, 0 failed"
