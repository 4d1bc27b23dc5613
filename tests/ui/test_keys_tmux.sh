#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every key of the view that the other terminal tests leave out, each checked by what it does on the
# screen of the real perftop in tmux: the key aliases (j k g G h l, the upper-case ones, F1 F3 F4
# F5 F10, , . = Ctrl-L), the flame graph's and the function view's moves, the annotate view's, the
# setup's and the i page's, z Z, the zoom keys t and U, the replay's speed keys, the mouse (double
# click, wheel, a click on the function-key bar), m (demangled / raw C++ names), Shift-Tab and the
# live i page.
#
# The input is fixed: perf record of the drill fixture (main -> top -> mid -> leaf_a / leaf_b), of
# the C++ fixture (tests/names/cxx_fixture.cc) and of the drill fixture with three events, replayed
# with perftop -i (only the i page of a live session runs live). Once the replay has reached
# its end the table stays as it is, so what a key changes is all that changes. The names a key must
# bring up come from the recording itself (perf report, perf script) or from the fixtures' call
# graph. A check that fails is reported and the test goes on to the next, so that one run names
# every key that does nothing. Exit 77 (skip) only when tmux, perf or g++ is missing or the kernel
# refuses the perf events perf record needs (perf_probe).
set -u
pt=${1:?usage: test_keys_tmux.sh PERFTOP DRILL_FIXTURE CXX_FIXTURE}
fixture=${2:?}
cxx=${3:?} # names/cxx_fixture.cc, built at build time when g++ is there (tests/names)
dso=$(basename "$fixture")
. "$(dirname "$0")/../lib/tmuxlib.sh" keys
command -v perf >/dev/null || { echo "SKIP: perf is not installed"; exit 77; }
[ -x "$cxx" ] || { echo "SKIP: no $cxx: g++ is not installed (the C++ fixture for m is built with it)"; exit 77; }
d=$(mktemp -d /tmp/perftop-keys-XXXXXX)
trap 'tm kill-server 2>/dev/null; rm -rf "$d"' EXIT
# The view keeps its settings (order, icicle, hidden columns) in XDG_CONFIG_HOME: a fresh one, so
# that no earlier run decides where this one starts.
export XDG_CONFIG_HOME=$d/config

# The waits by the clock, not by a count of polls: on a loaded machine a capture takes long, and
# each key that does nothing costs a whole wait. wait_for REGEX [tenths], wait_gone REGEX [tenths].
now_us() { echo "${EPOCHREALTIME/./}"; }
until_ok() { # TENTHS COMMAND...: runs COMMAND until it succeeds, TENTHS tenths of a second at most
	local end=$(($(now_us) + $1 * 100000))
	shift
	while :; do
		"$@" && return 0
		(($(now_us) > end)) && return 1
		sleep 0.1
	done
}
on_screen() { screen | grep -Eq -- "$1"; }
off_screen() { ! screen | grep -Eq -- "$1"; }
wait_for() { until_ok "${2:-50}" on_screen "$1"; }
wait_gone() { until_ok "${2:-50}" off_screen "$1"; }
fails=0
# bad: a check failed; the screen is printed and the test goes on.
bad() { fails=$((fails + 1)); echo "FAIL: $*"; echo "--- screen:"; screen; echo "---"; }
expect() { wait_for "$1" "${3:-50}" && ok || bad "$2"; }
expect_gone() { wait_gone "$1" && ok || bad "$2"; }
# wait_eq CMD WANT: polls the output of CMD (a function) until it is WANT, 5 s at most.
is_eq() { [ "$($1)" = "$2" ]; }
wait_eq() { until_ok 50 is_eq "$1" "$2"; }
expect_eq() { # CMD WANT MESSAGE
	wait_eq "$1" "$2" && ok || bad "$3 (got '$($1)', want '$2')"
}
key() { tm send-keys -t t "$@"; }
# The line under the cursor, as text: the one that starts in the cursor's colours (black on cyan,
# ROLE_SELECTED) in every list view, as the terminal shows them (cells.py reads the capture so).
selected() {
	tm capture-pane -p -e -t t | cells lead 6 |
		grep -E '%|^ +[0-9]+:|^ {10,}[0-9a-f]+:  |^ +[0-9]+  ' | head -1
}
sel_sym() { selected | awk '$1 ~ /%$/ { print $4 }'; }                  # the table's
sel_node() { selected | sed -nE 's/^ +[0-9.]+% +[▾▸·] ([^ ]+) .*/\1/p'; } # the function view's
sel_setup() { selected | sed -E 's/^ +//; s/ +$//'; }                    # the setup's
sel_frame() { screen | sed -nE 's/^ ▶ ([^ ]+) .*/\1/p'; }                 # the flame graph's
# The function-key bar's "3/35": cursor row / rows; the i page's "1-23/23".
where() { screen | tail -1 | awk '{ print $NF }'; }
# The cursor's row from the bar, "last" on the last row: the row count is read with it, from the same
# screen (a replay's last refresh after END may still add or drop a row of the final window).
pos() { where | awk -F/ '{ print ($1 == $2 && $2 > 1) ? "last" : $1 }'; }
rows() { screen | awk '/Self%.*Symbol/ { h = 1; next } h && $1 ~ /%$/ { print $4 }'; }
table_up() { wait_for 'Symbol +Shared Object' 30; }
# Moving the cursor of the table onto a row with Up and Down only (the keys under test are not
# used to get somewhere): up to the first row, then down to the row of SYM.
goto_row() {
	local cur i idx
	reset_table
	cur=$(where | cut -d/ -f1)
	for ((i = 1; i < cur; i++)); do key Up; done
	wait_eq pos 1 || fail "Up did not get the cursor to the first row"
	idx=$(rows | grep -nx -- "$1" | head -1 | cut -d: -f1)
	[ -n "$idx" ] || fail "no row of $1"
	for ((i = 1; i < idx; i++)); do key Down; done
	wait_eq sel_sym "$1" || fail "the cursor did not get to $1"
}
# Back to the table from wherever a key that did nothing left the view (Esc in the table only
# clears a filter or a zoom, and there is none between the parts).
reset_table() { key Escape Escape Escape; table_up || fail "no table after Esc Esc Esc"; }

# --- the recordings ----------------------------------------------------------------------------
# --no-bpf-event: perf 6.1 otherwise joins its BPF side-band thread at the end, which sleeps in a
# poll of 1 s (up to a second of each recording, no sample changed; the fixtures run in user space).
rec() { # FILE COMMAND...
	local f=$1 out
	shift
	out=$(perf record -q -N -B --no-bpf-event -g -F 999 -o "$f" -- "$@" 2>&1 >/dev/null) ||
		{ echo "FAIL: perf record $*: $out"; exit 1; }
}
# The function view's part below wants mid called by top alone and top by main alone, which is
# what the fixture does. A sample taken on mid's or top's first or last instruction (its frame
# not yet made, or already gone) has the frame-pointer chain skip a caller: perf script shows
# main -> mid then, and so does perftop, rightly; ~1% of recordings have one. Such a recording
# is made again (perf script is the judge; perftop is not run), at most 5 times.
skips_caller() { # FILE: true when a chain has mid under another than top, or top under another than main
	perf script -i "$1" -F ip,sym 2>/dev/null | awk '
		NF == 0 { n = 0; next }
		{ s[++n] = $2; if (n > 1 && ((s[n-1] == "mid" && $2 != "top") || (s[n-1] == "top" && $2 != "main"))) bad = 1 }
		END { exit !bad }'
}
for ((try = 1; try <= 5; try++)); do
	rec "$d/drill.data" "$fixture" 3
	skips_caller "$d/drill.data" || break
	echo "drill.data: perf script shows a chain with a skipped caller of mid or top; recording it again"
done
# Five in a row is no chance: this machine's build of the fixture has a frameless mid or top.
((try <= 5)) || { echo "SKIP: 5 recordings of the fixture all have chains that skip a caller (perf script): its frames are not all made here"; exit 77; }
rec "$d/cxx.data" "$cxx" 2
pid=$(perf script -i "$d/drill.data" -F pid,comm 2>/dev/null | awk -v c="$dso" '$1 == c { print $2; exit }')
[ -n "$pid" ] || { echo "FAIL: perf script shows no sample of $dso in $d/drill.data"; exit 1; }
# Shift-Tab's recording of three events (its part is below)
rec_events() { perf record -q -N -B --no-bpf-event -g -F 999 -e cpu-clock -e task-clock -e page-faults -o "$d/three.data" -- "$fixture" 1 2>&1 >/dev/null; }
out=$(rec_events) || { echo "FAIL: perf record of three events: $out"; exit 1; }
mapfile -t ev < <(perf evlist -i "$d/three.data" 2>/dev/null)
[ "${#ev[@]}" = 3 ] || fail "perf evlist names ${#ev[@]} events in three.data: ${ev[*]}"
# The replays of the later parts start now, each in a session of its own (renamed t when its part
# comes): a replay plays its recording in the recording's time and then waits, so each has reached
# its end by then instead of being waited for. They start from the default settings, before any
# session here has saved its own.
tm new-session -d -s cx -x 160 -y 30 "$pt -i $d/cxx.data -d 0.5; echo PERFTOP-EXITED:\$?; sleep 60"
tm new-session -d -s ev -x 140 -y 30 "$pt -i $d/three.data -d 0.5; echo PERFTOP-EXITED:\$?; sleep 60"

# --- the table -----------------------------------------------------------------------------------
tm new-session -d -s t -x 140 -y 30 \
	"$pt -i $d/drill.data -d 0.5; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for '^ END ' 600 || fail "the replay of drill.data did not reach its end"
wait_for " leaf_b +$dso" || fail "no leaf_b row"
first=$(rows | sed -n 1p)
second=$(rows | sed -n 2p)
wait_eq pos 1 && wait_eq sel_sym "$first" ||
	fail "the cursor is not on the first row ($first): at $(where), on '$(sel_sym)'; the rows seen on cyan: $(tm capture-pane -p -e -t t | cells mark 6 | grep -c '^1')"
total=$(where | cut -d/ -f2)
echo "table: $total rows, the first two $first and $second"

# j k: a row down, a row up.
key j
expect_eq sel_sym "$second" "j did not move the cursor to the second row"
key k
expect_eq sel_sym "$first" "k did not move the cursor back to the first row"
# G g (and End Home): the last row, the first.
key G
expect_eq pos last "G did not move the cursor to the last row"
last=$(rows | tail -1)
[ "$(sel_sym)" = "$last" ] && ok || bad "after G the cursor is on '$(sel_sym)', not on the last row '$last'"
key g
expect_eq pos 1 "g did not move the cursor to the first row"
key End
expect_eq pos last "End did not move the cursor to the last row"
key Home
expect_eq pos 1 "Home did not move the cursor to the first row"
# PgDn PgUp: a page (the rows on screen) down and back; to the last row where the table has no
# more than a page (the recording's rows vary with what the kernel did during it).
page=$(rows | wc -l)
down=$((1 + page))
total=$(where | cut -d/ -f2)
((down >= total)) && down=last
key PgDn
expect_eq pos "$down" "PgDn did not move the cursor a page ($page rows) down"
key PgUp
expect_eq pos 1 "PgUp did not move the cursor back to the first row"

# . , (the keys < and > are on) F6: the order a column right, left; F6 the next, wrapping round.
key .
expect 'Total%▼' ". did not order by Total%"
key ,
expect 'Self%▼' ", did not order by Self% again"
key '>'
expect 'Total%▼' "> did not order by Total%"
key '<'
expect 'Self%▼' "< did not order by Self% again"
key F6
expect 'Total%▼' "F6 did not order by the next column (Total%)"
for ((i = 0; i < 10; i++)); do
	screen | grep -q 'Self%▼' && break
	key F6
	sleep 0.2
done
screen | grep -q 'Self%▼' && ok || bad "F6 did not come round to Self% again"

# F3 opens the search; F3 in it goes on to the next match; N and n go back and forth.
opened() { # REGEX MESSAGE: the view or field is up, or a failed check
	wait_for "$1" 50 && ok && return 0
	bad "$2"
	return 1
}
key F3
if opened 'Search: _' "F3 did not open the search field"; then
	key -l leaf
	expect_eq sel_sym leaf_a "the search for leaf did not put the cursor on leaf_a"
	key F3
	expect_eq sel_sym leaf_b "F3 in the search field did not go on to the next match (leaf_b)"
	key Enter
	expect_gone 'Search:' "Enter did not close the search field"
else
	key / && key -l leaf && key Enter
	goto_row leaf_b
fi
key N
expect_eq sel_sym leaf_a "N did not go back to the previous match (leaf_a)"
key n
expect_eq sel_sym leaf_b "n did not go on to the next match (leaf_b)"

# F4 opens the filter.
key F4
if opened 'Filter: _' "F4 did not open the filter field"; then
	key -l leaf_
	key Enter
	expect 'filter: leaf_' "no filter in the mode line after F4 leaf_ Enter"
	got=$(rows | sort | tr '\n' ' ')
	[ "$got" = "leaf_a leaf_b " ] && ok || bad "rows after F4 leaf_: '$got' (want leaf_a leaf_b)"
	key Escape
	expect_gone 'filter:' "Esc did not clear the filter"
fi

# U: user frames hidden, only the kernel's rows are left; Esc shows them again.
key U
expect 'zoom: user hidden' "U did not hide the user frames"
wait_for ' \[kernel\.kallsyms\]' 30
sleep 0.5
got=$(screen | awk '/Self%.*Symbol/ { h = 1; next } h && $1 ~ /%$/ && $NF != "[kernel.kallsyms]"')
[ -z "$got" ] && ok || bad "rows of user code after U: $got"
key Escape
expect_gone 'zoom:' "Esc did not undo U"
# t: the row's process, the fixture's pid as perf script reads it from the recording.
goto_row "$first"
key t
expect "zoom: process $pid \($dso\)" "t did not zoom into the process $pid"
key Escape
expect_gone 'zoom:' "Esc did not undo t"

# z Z: zero / decay.
key z
expect 'mode: zero' "z did not switch to zero"
key Z
expect 'mode: decay' "Z did not switch back to decay"
# = - (the replay's speed, + without Shift): 2x, 1x.
key =
expect 'speed 2x' "= did not speed the replay up to 2x"
key -
expect 'speed 1x' "- did not slow the replay down to 1x"

# Ctrl-L: a stray text written onto the terminal behind perftop's back goes at the repaint.
tty=$(tm display -p -t t '#{pane_tty}')
printf '\033[12;50HSTRAY-TEXT-ON-THE-TERMINAL' >"$tty"
wait_for 'STRAY-TEXT' 20 || bad "the stray text did not show"
sleep 1 # refreshes that change nothing leave it
screen | grep -q 'STRAY-TEXT' || bad "the stray text went without Ctrl-L (the check would prove nothing)"
key C-l
expect_gone 'STRAY-TEXT' "Ctrl-L did not repaint the screen"

# F1: the help; any key closes it.
key F1
expect ' perftop keys ' "F1 did not show the help"
key x
expect_gone ' perftop keys ' "a key did not close the help"

# A: annotate; F and F5: the flame graph; Q and F10 in a view: back to the table, not out (sent
# only when the view is up: in the table they quit).
goto_row "$first"
key A
if opened "table › annotate $first" "A did not open the annotate view of $first"; then
	key Q
	table_up && ok || bad "Q in the annotate view did not return to the table"
fi
key F
if opened 'Flame graph of the window' "F did not open the flame graph"; then
	key F10
	table_up && ok || bad "F10 in the flame graph did not return to the table"
fi
key F5
if opened 'Flame graph of the window' "F5 did not open the flame graph"; then
	key Q
	table_up && ok || bad "Q in the flame graph did not return to the table"
fi
sleep 0.5
screen | grep -q PERFTOP-EXITED && fail "Q or F10 in a view quit"
reset_table

# --- the flame graph (root at the bottom: Up goes to the children) ------------------------------
key f
expect 'Flame graph of the window' "f did not open the flame graph"
expect_eq sel_frame all "the flame graph does not start on its root"
key k
expect_eq sel_frame __libc_start_call_main "k did not go up to the root's child"
key k k k
expect_eq sel_frame mid "k k k did not go up main, top, mid"
key k
expect_eq sel_frame leaf_a "k did not go up from mid to its widest child leaf_a"
key l
expect_eq sel_frame leaf_b "l did not go to leaf_a's neighbour leaf_b"
key h
expect_eq sel_frame leaf_a "h did not go back to leaf_a"
key Right
expect_eq sel_frame leaf_b "Right did not go to leaf_b"
key Left
expect_eq sel_frame leaf_a "Left did not go back to leaf_a"
key j
expect_eq sel_frame mid "j did not go down to leaf_a's parent mid"
key Down
expect_eq sel_frame top "Down did not go down to mid's parent top"
key Up
expect_eq sel_frame mid "Up did not go up to top's child mid"
key g
expect_eq sel_frame all "g did not go to the root"
key k Home
expect_eq sel_frame all "Home did not go to the root"
key V
expect 'icicle, root on top' "V did not flip the flame graph to an icicle"
key j
expect_eq sel_frame __libc_start_call_main "j in the icicle did not go down to the root's child"
key V
expect 'root at the bottom' "V did not flip it back"
key BSpace
table_up && ok || bad "Backspace in the flame graph with no zoom did not go back to the table"

# --- the function view of mid: callers top > main > __libc_start_call_main, callees the leaves ---
goto_row mid
key Enter
wait_for 'Callees of mid' || fail "Enter did not open the function view of mid"
callers=$(screen | sed -n '/Callers of mid/,/Callees of mid/p' | grep -Eo '[▾▸·] [^ ]+' | cut -d' ' -f2 | tr '\n' ' ')
[ "$callers" = "top main __libc_start_call_main " ] ||
	fail "mid's callers are '$callers', not the chain top main __libc_start_call_main"
lastnode=$(screen | grep -Eo '% +[▾▸·] [^ ]+' | tail -1 | awk '{ print $3 }')
expect_eq sel_node top "the function view does not start on its first node"
key j
expect_eq sel_node main "j did not move to the next node"
key k
expect_eq sel_node top "k did not move back"
key Down
expect_eq sel_node main "Down did not move to the next node"
key Up
expect_eq sel_node top "Up did not move back"
key G
expect_eq sel_node "$lastnode" "G did not move to the last node"
key g
expect_eq sel_node top "g did not move to the first node"
key End
expect_eq sel_node "$lastnode" "End did not move to the last node"
key Home
expect_eq sel_node top "Home did not move to the first node"
key PgDn
expect_eq sel_node "$lastnode" "PgDn did not move a page down (to the last node of this short list)"
key PgUp
expect_eq sel_node top "PgUp did not move a page up"
# h l (and - = Left Right +): collapse and expand the node under the cursor (top: open, main under).
for ((i = 0; i < 10; i++)); do key Up; done
wait_eq sel_node top || fail "Up did not get the cursor to top"
shown_main() { screen | grep -Ec '[▾▸·] main '; }
key h
expect '▸ top ' "h did not collapse top"
expect_eq shown_main 0 "main still shown under top after h"
key l
expect '▾ top ' "l did not expand top"
expect_eq shown_main 1 "main not shown under top after l"
key -
expect '▸ top ' "- did not collapse top"
key =
expect '▾ top ' "= did not expand top"
key Left
expect '▸ top ' "Left did not collapse top"
key Right
expect '▾ top ' "Right did not expand top"
key h
wait_for '▸ top ' || fail "h did not collapse top (before +)"
key +
expect '▾ top ' "+ did not expand top"
# e E: every node open (no ▸ left); c C: every node closed (no ▾ left).
key e
expect_gone '▸' "e did not expand every node"
key c
expect_gone '▾' "c did not collapse every node"
key E
expect_gone '▸' "E did not expand every node"
key C
expect_gone '▾' "C did not collapse every node"
key Escape
table_up || fail "Esc did not leave the function view"

# --- the annotate view of leaf_a (source: 7 lines, the loop's body the hot one) -----------------
goto_row leaf_a
key a
wait_for "table › annotate leaf_a" || fail "a did not open the annotate view of leaf_a"
wait_for '^ +[0-9.]+% +[0-9.]+% +[0-9]+  ' || fail "no line of leaf_a with samples"
src_lines() { screen | awk '/Self% +Total% +Line/ { f = 1; next } f && /^ +([0-9.]+% +)*[0-9]+  /'; }
first_line=$(src_lines | head -1 | sed -E 's/^ +([0-9.]+% +)*//')
last_line=$(src_lines | tail -1 | sed -E 's/^ +([0-9.]+% +)*//')
sel_text() { selected | sed -E 's/^ +([0-9.]+% +)*//'; }
key G
expect_eq sel_text "$last_line" "G did not move to the last line"
key g
expect_eq sel_text "$first_line" "g did not move to the first line"
key j
second_line=$(src_lines | sed -n 2p | sed -E 's/^ +([0-9.]+% +)*//')
expect_eq sel_text "$second_line" "j did not move a line down"
key k
expect_eq sel_text "$first_line" "k did not move a line up"
key Down
expect_eq sel_text "$second_line" "Down did not move a line down"
key Up
expect_eq sel_text "$first_line" "Up did not move a line up"
key End
expect_eq sel_text "$last_line" "End did not move to the last line"
key Home
expect_eq sel_text "$first_line" "Home did not move to the first line"
key PgDn
expect_eq sel_text "$last_line" "PgDn did not move a page down (to the last line of this short list)"
key PgUp
expect_eq sel_text "$first_line" "PgUp did not move a page up"
# Tab from the first line: the next hot line (a Self at least a twentieth of the hottest's; a line
# with Self shows two percentages, Self and Total, one with Total only one).
key g
hot_line=$(src_lines | awk '{ v = $1; sub("%", "", v) } $2 ~ /%$/ { s[NR] = v + 0; if (v + 0 > m) m = v + 0 }
	{ t[NR] = $0 } END { for (i = 2; i <= NR; i++) if (s[i] && s[i] * 20 >= m) { print t[i]; exit } }' |
	sed -E 's/^ +([0-9.]+% +)*//')
[ -n "$hot_line" ] || fail "no hot line of leaf_a below its first"
key Tab
expect_eq sel_text "$hot_line" "Tab did not move to the next hot line"
key S
expect "^ leaf_a .*assembly" "S did not switch to the assembly"
expect 'Address +Instruction' "no assembly title after S"
key Escape
table_up || fail "Esc did not leave the annotate view"

# --- the setup: j k move, Enter and Space show / hide, F2 closes ---------------------------------
key F2
wait_for 'Setup: columns of the table' || fail "F2 did not open the setup"
key j
expect_eq sel_setup "[x] Total%" "j did not move to Total% in the setup"
key k
expect_eq sel_setup "[x] Self%" "k did not move back to Self% in the setup"
key Down
expect_eq sel_setup "[x] Total%" "Down did not move to Total% in the setup"
key Up
expect_eq sel_setup "[x] Self%" "Up did not move back to Self% in the setup"
key Enter
expect '\[ \] Self%' "Enter did not hide Self% in the setup"
key Space
expect '\[x\] Self%' "Space did not show Self% again"
key Down Enter
expect '\[ \] Total%' "Enter did not hide Total% in the setup"
key F2
if table_up; then
	ok
	screen | grep -q 'Total%' && bad "Total% still shown after it was hidden in the setup" || ok
	key F2
	wait_for 'Setup: columns of the table' || fail "F2 did not open the setup (second time)"
else
	bad "F2 did not close the setup"
fi
key Up Up Up Down Space Escape
table_up || fail "Esc did not close the setup"
expect 'Total%' "Total% not back after it was shown again"

# --- the i page in a short terminal: j k G g PgDn PgUp scroll it, I and Q close it --------------
tm resize-window -t t -x 140 -y 12
key i
wait_for 'recording header' || fail "i did not open the recording header"
wait_for '^ hostname:' || fail "no hostname line"
n=$(where | cut -d/ -f2)
h=$(where | sed -E 's@^1-([0-9]+)/.*@\1@')
[ "$h" -lt "$n" ] || fail "the i page fits the short terminal ($(where)): nothing to scroll"
key j
expect_eq where "2-$((h + 1))/$n" "j did not scroll the i page a line"
key k
expect_eq where "1-$h/$n" "k did not scroll the i page back"
key Down
expect_eq where "2-$((h + 1))/$n" "Down did not scroll the i page a line"
key Up
expect_eq where "1-$h/$n" "Up did not scroll the i page back"
key G
expect_eq where "$((n - h + 1))-$n/$n" "G did not scroll the i page to its end"
key g
expect_eq where "1-$h/$n" "g did not scroll the i page to its start"
key End
expect_eq where "$((n - h + 1))-$n/$n" "End did not scroll the i page to its end"
key Home
expect_eq where "1-$h/$n" "Home did not scroll the i page to its start"
key PgDn
expect_eq where "$((1 + h))-$((2 * h > n ? n : 2 * h))/$n" "PgDn did not scroll the i page a page"
key PgUp
expect_eq where "1-$h/$n" "PgUp did not scroll the i page back"
key I
expect_gone 'recording header' "I did not close the i page"
screen | grep -q 'recording header' && key Escape
table_up || fail "Esc did not close the i page"
key i
wait_for 'recording header' || fail "i did not open the recording header (second time)"
key Q
expect_gone 'recording header' "Q did not close the i page"
screen | grep -q PERFTOP-EXITED && fail "Q on the i page quit"
screen | grep -q 'recording header' && key Escape
tm resize-window -t t -x 140 -y 30
table_up || fail "no table after the resize"

# --- the mouse: the wheel, a double click, a click on the function-key bar -----------------------
# xterm's X10 reports: ESC [ M, then button+32, x+33, y+33 (0-based cells).
mouse() { # BUTTON X Y
	tm send-keys -t t -H 1b 5b 4d $(printf '%x %x %x' $(($1 + 32)) $(($2 + 33)) $(($3 + 33)))
}
goto_row "$first"
mouse 65 30 10 # wheel down: three rows
expect_eq pos 4 "the wheel down did not move the cursor three rows"
mouse 64 30 10 # wheel up
expect_eq pos 1 "the wheel up did not move the cursor back"
title_y=$(($(screen | grep -n 'Self%.*Symbol' | head -1 | cut -d: -f1) - 1))
target=$(rows | sed -n 3p)
# A double click: two clicks (press, release) at once.
tm send-keys -t t -H 1b 5b 4d 20 41 $(printf %x $((title_y + 3 + 33))) 1b 5b 4d 23 41 \
	$(printf %x $((title_y + 3 + 33))) 1b 5b 4d 20 41 $(printf %x $((title_y + 3 + 33))) \
	1b 5b 4d 23 41 $(printf %x $((title_y + 3 + 33)))
expect "Callees of $target " "a double click on the third row did not open the function view of $target"
key Escape
table_up || fail "Esc did not leave the function view (mouse)"
bar_y=$(($(screen | wc -l) - 1))
bar_x=$(screen | tail -1 | awk '{ print index($0, "F5Flame") - 1 }')
[ "$bar_x" -ge 0 ] || fail "no F5Flame on the function-key bar"
mouse 0 $((bar_x + 3)) $bar_y
mouse 3 $((bar_x + 3)) $bar_y
expect 'Flame graph of the window' "a click on F5Flame did not open the flame graph"
key Escape
table_up || fail "Esc did not leave the flame graph (mouse)"

# F10 in the table: out, exit 0.
key F10
wait_for 'PERFTOP-EXITED:0' && ok || bad "F10 in the table did not exit 0"
tm kill-session -t t

# --- m: C++ names demangled / raw, in the table and in the function view ------------------------
# The names of the same function from perf report on the same file, with and without demangling.
report() { perf report -i "$d/cxx.data" --stdio -q --no-children -g none "$@" 2>/dev/null; }
shown=$(report | awk '$5 ~ /^geo::Grid::smooth/ { print $5; exit }')
raw=$(report --no-demangle | awk '$5 ~ /^_Z.*4Grid6smooth/ { print $5; exit }')
[ -n "$shown" ] && [ -n "$raw" ] || fail "perf report names no geo::Grid::smooth in cxx.data ('$shown' '$raw')"
echo "m: $shown / $raw"
tm rename-session -t cx t || fail "no session cx (the replay of cxx.data)"
wait_for '^ END ' 600 || fail "the replay of cxx.data did not reach its end"
wait_for " $shown +cxx_fixture" || fail "no $shown row"
screen | grep -q ' _Z' && bad "raw names in the table before m"
key m
expect " $raw +cxx_fixture" "m did not show the raw name $raw"
expect_gone " $shown +cxx_fixture" "the demangled name $shown is still shown after m"
raws=$(screen | grep -c ' _Z[A-Za-z0-9_]* ')
[ "$raws" -ge 5 ] && ok || bad "only $raws raw names after m"
key m
expect " $shown +cxx_fixture" "m again did not demangle $shown"
expect_gone ' _Z' "raw names left after m again"
# In the function view the header follows m.
total=$(where | cut -d/ -f2)
goto_row "$shown"
key Enter
expect "^ $shown +cxx_fixture +Self" "no function view of $shown"
key m
expect "^ $raw +cxx_fixture +Self" "m in the function view did not show the raw name"
expect "Callers of $raw " "m in the function view did not rename its callers' title"
key m
expect "^ $shown +cxx_fixture +Self" "m again in the function view did not demangle"
key q q
wait_for 'PERFTOP-EXITED:0' && ok || bad "q q did not exit 0"
tm kill-session -t t

# --- Shift-Tab: the previous event, round, in a recording of three (Tab, the next, has its test in
# e2e_events_tmux; with two events the two keys would land on the same one) ---------------------
# (three.data was recorded, and its replay started as the session "ev", with the others at the top)
tm rename-session -t ev t || fail "no session ev (the replay of three.data)"
wait_for '^ END ' 600 || fail "the replay of three.data did not reach its end"
wait_for "event 1/3: ${ev[0]} " || fail "the replay does not start on its first event ${ev[0]}"
key BTab
expect "event 3/3: ${ev[2]} " "Shift-Tab on the first event did not go round to the last (${ev[2]})"
key BTab
expect "event 2/3: ${ev[1]} " "Shift-Tab did not go back to the second event (${ev[1]})"
key Tab
expect "event 3/3: ${ev[2]} " "Tab did not go on to the third event (${ev[2]})"
key q
wait_for 'PERFTOP-EXITED:0' && ok || bad "q did not exit 0 (three events)"
tm kill-session -t t

# --- i live: the session information page (a binding of its own, the replay's is above) ---------
tm new-session -d -s t -x 140 -y 30 "$pt -d 0.5 -- $fixture 60; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for " leaf_a +$dso" 300 || fail "no leaf_a row in the live view"
key i
expect 'perftop — session information' "i did not open the session information page (live)"
key Escape
expect_gone 'session information' "Esc did not close the session information page"
key q
wait_for 'PERFTOP-EXITED:0' && ok || bad "q did not exit 0 (live)"

echo "$checks passed, $fails failed"
[ "$fails" = 0 ]
