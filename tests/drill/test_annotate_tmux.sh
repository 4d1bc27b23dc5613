#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Annotate on the real binary through tmux: perftop -o F -- fixture (main -> top -> mid -> leaf_a /
# leaf_b, built -O2 -g). a on leaf_a's row shows lines of fixture.c with percentages, s shows its
# assembly (mov / imul / add / ret ...) and then both interleaved, H puts the cursor on the hottest
# line, Tab moves it to the next hot line (and between leaf_b's hot instructions), Esc gets back to the table, a from the function view annotates too, and q in
# the table exits 0 with the terminal restored. Which lines are hot is this CPU's business (its
# skid puts the samples of the loop on the for line, on the add, or on both): the lines perftop
# showed hot are checked against perf report --sort srcline on F, the recording of the same
# session. A fresh tmux server per run; every wait is bounded. Exit 77 (skip) only when tmux or
# perf is missing or the kernel refuses perf_event_open (perf_probe).
set -u
pt=${1:?usage: test_annotate_tmux.sh PERFTOP FIXTURE}
fixture=${2:?}
dso=$(basename "$fixture")
. "$(dirname "$0")/../lib/tmuxlib.sh" annotate
command -v perf >/dev/null || { echo "SKIP: perf is not installed"; exit 77; }
d=$(mktemp -d /tmp/perftop-annotate-XXXXXX)
trap 'tm kill-server 2>/dev/null; rm -rf "$d"' EXIT
# The line of the annotate list under the cursor: the one seen on the cursor's cyan. tmux writes
# only the changes of colour, across lines too, so cells.py reads the capture as a terminal would.
selected() {
	tm capture-pane -p -e -t t | cells lead 6 | grep -E '^ +([0-9.]+%| )' | tail -1
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
# The rows of the annotate list with a Self% on screen, in the list's order, as "key self": the key
# is the line number (source) or the address (assembly).
self_rows() {
	screen | awk '/Self% +Total% +(Line|Address)/ { f = 1; next }
		f && $1 ~ /%$/ && $2 ~ /%$/ && $3 ~ /^[0-9a-f]+:?$/ {
			k = $3; sub(":", "", k); v = $1; sub("%", "", v); print k, v }'
}
# The key of the row under the cursor ("" when it has no Self%).
selected_key() {
	selected | awk '$1 ~ /%$/ && $2 ~ /%$/ { k = $3; sub(":", "", k); print k }'
}
# H: the cursor goes to the row with the biggest Self% (a tie in the screen's rounding lets either
# be it).
check_hottest() {
	tm send-keys -t t H
	sleep 0.3
	local key verdict
	key=$(selected_key)
	[ -n "$key" ] || fail "the cursor row after H has no Self%: '$(selected)'"
	verdict=$(self_rows | awk -v s="$key" '{ v[$1] = $2; if ($2 + 0 > m) m = $2 + 0 }
		END { if ((s in v) && v[s] + 0.011 >= m) print "OK"
		      else print "row " s " (" v[s] "%), the hottest is " m "%" }')
	[ "$verdict" = OK ] || fail "H did not go to the hottest row: $verdict"
	echo "$key"
}
# Tab: the cursor goes to the next hot row (Self at least a twentieth of the hottest's) after it in
# the list's order, wrapping round (back to the same row when it is the only hot one). A row whose
# Self% is within the screen's rounding of that bar may count either way: it is accepted, and so is
# the first row after it that is clearly hot. Prints the new row's key.
check_next_hot() {
	local from=$1 want got
	want=$(self_rows | awk -v s="$from" '
		{ n++; k[n] = $1; v[n] = $2 + 0; if ($1 == s) at = n; if ($2 + 0 > m) m = $2 + 0 }
		END {
			bar = m / 20
			for (j = 1; j <= n; j++) {
				i = (at + j - 1) % n + 1
				if (v[i] >= bar + 0.011) { out = out " " k[i]; break }
				if (v[i] > bar - 0.011) out = out " " k[i]
			}
			print out
		}')
	tm send-keys -t t Tab
	sleep 0.3
	got=$(selected_key)
	case " $want " in
	*" $got "*) ;;
	*) fail "Tab went from row $from to '${got:-$(selected)}', not to the next hot row (one of:$want)" ;;
	esac
	echo "$got"
}
hot=$(check_hottest) || { echo "$hot"; exit 1; }
next=$(check_next_hot "$hot") || { echo "$next"; exit 1; }
echo "source of leaf_a: H line $hot, Tab line $next (lines with Self%: $(self_rows | tr '\n' ' '))"
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
# H and Tab where there are two hot rows to go between: leaf_b's loop in assembly, where its two
# shifts (each followed by the xor that waits for it) take the samples. Tab twice: to the other hot
# row and round again.
cursor_to leaf_b
tm send-keys -t t a
wait_for "^ leaf_b +$dso +Self .*source" || fail "no annotate view of leaf_b after a"
tm send-keys -t t s
wait_for "^ leaf_b .*assembly" || fail "no assembly mode of leaf_b after s"
wait_for '^ +[0-9.]+% +[0-9.]+% +[0-9a-f]+:  ' || fail "no instruction of leaf_b with a percentage"
hot_rows=$(self_rows | awk '{ v[NR] = $2 + 0; if ($2 + 0 > m) m = $2 + 0 }
	END { for (i = 1; i <= NR; i++) if (v[i] >= m / 20 + 0.011) n++; print n + 0 }')
[ "$hot_rows" -ge 2 ] || fail "leaf_b's loop has $hot_rows clearly hot instruction(s), Tab needs two: $(self_rows | tr '\n' ' ')"
hot=$(check_hottest) || { echo "$hot"; exit 1; }
next=$(check_next_hot "$hot") || { echo "$next"; exit 1; }
[ "$next" != "$hot" ] || fail "Tab stayed on $hot with $hot_rows hot instructions"
again=$(check_next_hot "$next") || { echo "$again"; exit 1; }
echo "assembly of leaf_b: H $hot, Tab $next, Tab $again (instructions with Self%: $(self_rows | tr '\n' ' '))"
tm send-keys -t t Escape
wait_for 'Self%.*Total%.*Symbol' || fail "Esc did not go back to the table from leaf_b's annotate view"
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
