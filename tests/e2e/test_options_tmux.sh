#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two options of the full-screen view, through tmux, each against a control run without it.
#   --prefix OLD=NEW: the drill fixture's source is compiled here in a build directory OLD and the
#   directory is then moved to NEW, so the path its DWARF names no longer exists. With --prefix
#   OLD=NEW, annotate (a on leaf_a) shows leaf_a's loop line with the line number and text the
#   moved file itself has; without it, no source line but an error naming OLD's path.
#   --no-mouse: tmux's own record of the pane (#{mouse_any_flag}, #{mouse_standard_flag}) says
#   whether perftop asked the terminal for mouse reports: not with --no-mouse, yes without. A click
#   (an xterm report sent into the pane) on the third row followed by Down selects the second row
#   with --no-mouse (the click did nothing) and the fourth without (the click selected the third).
# Exit 77 (skip) only when tmux or a C compiler is missing or the kernel refuses the perf events
# perftop needs (perf_probe).
set -u
pt=${1:?usage: test_options_tmux.sh PERFTOP FIXTURE_C}
src=${2:?}
. "$(dirname "$0")/../lib/tmuxlib.sh" options
command -v cc >/dev/null || { echo "SKIP: no C compiler (cc) to build the fixture"; exit 77; }
d=$(mktemp -d /tmp/perftop-options-XXXXXX)
trap 'tm kill-server 2>/dev/null; rm -rf "$d"' EXIT

# The fixture built in OLD, then OLD moved to NEW.
old=$d/old-build new=$d/new-place
mkdir -p "$old"
cp "$src" "$old/fixture.c"
(cd "$old" && cc -O2 -g -fno-omit-frame-pointer -o fixture fixture.c) || fail "cc failed"
mv "$old" "$new"
[ -e "$old/fixture.c" ] && fail "the build directory is still there"
# leaf_a's loop line, as the moved file has it: number and text.
loop=$(awk '/leaf_a\(unsigned long seed\)/ { f = 1 } f && /for \(int i = 0;/ { print NR; exit }' \
	"$new/fixture.c")
[ -n "$loop" ] || fail "no loop line in leaf_a of $src"
looptext=$(sed -n "${loop}p" "$new/fixture.c" | sed 's/^[[:space:]]*//')

# annotate leaf_a in a view started with ARGS; leaves the view in annotate.
annotate_leaf_a() {
	tm new-session -d -s t -x 140 -y 40 "NO_COLOR=1 $pt -d 0.5 $* -- $new/fixture 60; echo PERFTOP-EXITED:\$?; sleep 60"
	wait_for ' leaf_a ' || fail "no leaf_a row"
	sleep 1
	tm send-keys -t t Space
	wait_for 'PAUSED' 30 || fail "no PAUSED after Space"
	cursor_to leaf_a
	tm send-keys -t t a
	wait_for "^ leaf_a .*Self" || fail "no annotate view of leaf_a after a"
}

annotate_leaf_a "--prefix $old=$new"
wait_for "^ +([0-9.]+%)? +([0-9.]+%)? +([0-9]+ +)?$loop  +$(printf '%s' "$looptext" | sed 's/[][\.*^$()+?{}|]/\\&/g')" ||
	fail "--prefix $old=$new: no line $loop '$looptext' of the moved source"
ok
tm send-keys -t t q q
wait_for 'PERFTOP-EXITED:0' || fail "q did not exit 0 (--prefix)"
tm kill-server
sleep 0.2

annotate_leaf_a ""
wait_for "$old/fixture.c" || fail "without --prefix: no error naming $old/fixture.c"
screen | grep -Eq "^ .* $loop  +for \(int i = 0;" && fail "without --prefix the moved source was read"
ok
tm send-keys -t t q q
wait_for 'PERFTOP-EXITED:0' || fail "q did not exit 0 (no --prefix)"
tm kill-server
sleep 0.2

# --no-mouse, and the control without it.
rows() { screen | awk '/Self%.*Total%.*Symbol/ { h = 1; next } h && /%/ { print $4 }'; }
# The selected row (in colour: the row seen on a cyan background; cells.py reads the capture as the
# terminal shows it); its symbol.
cyan_rows() { tm capture-pane -p -e -t t | cells lead 6; }
selected() {
	cyan_rows | awk '/%/ && !/Self%.*Total%/ { print $4; exit }'
}
click() { # x y (0-based): an xterm X10 press then release
	tm send-keys -t t -H 1b 5b 4d 20 $(printf '%x %x' $(($1 + 33)) $(($2 + 33)))
	tm send-keys -t t -H 1b 5b 4d 23 $(printf '%x %x' $(($1 + 33)) $(($2 + 33)))
}
# The selected row's place among the rows (1-based), both read off one capture: the rows' order is
# read with the selection, never from an earlier screen (a paused table may still be drawn anew
# once after PAUSED shows).
selected_index() {
	tm capture-pane -p -e -t t | cells mark 6 |
		awk -F '\t' '$2 ~ /Self%.*Total%.*Symbol/ { h = 1; next }
		h && $2 ~ /%/ { n++; if ($1 == 1) { print n; exit } }'
}
wait_selected() {
	local t=$SECONDS
	while ((SECONDS - t < 30)); do [ "$(selected_index)" = "$1" ] && return 0; sleep 0.1; done
	return 1
}
mouse_test() { # ARGS EXPECTED-FLAG EXPECTED-ROW (1-based) after a click on the third and Down
	tm new-session -d -s t -x 140 -y 40 "$pt -d 0.5 $1 -- $new/fixture 60; echo PERFTOP-EXITED:\$?; sleep 60"
	wait_for ' leaf_b ' || fail "no leaf_b row ($1)"
	tm send-keys -t t Space
	wait_for 'PAUSED' 30 || fail "no PAUSED ($1)"
	local flags
	flags=$(tm display -p -t t '#{mouse_any_flag}#{mouse_standard_flag}#{mouse_button_flag}')
	if [ "$2" = off ]; then
		[ "$flags" = 000 ] || fail "perftop $1 asked the terminal for mouse reports (tmux: $flags)"
	else
		[ "$flags" != 000 ] || fail "perftop $1 did not ask the terminal for mouse reports"
	fi
	[ "$(rows | wc -l)" -ge 4 ] || fail "fewer than 4 rows ($1)"
	local title_y
	title_y=$(screen | grep -n 'Self%.*Total%.*Symbol' | head -1 | cut -d: -f1)
	title_y=$((title_y - 1))
	[ "$(selected_index)" = 1 ] || fail "the cursor is not on the first row ($1)"
	click 30 $((title_y + 3))
	if [ "$2" = on ]; then
		# ncurses makes a click of the press and the release: wait for it, then Down.
		wait_selected 3 || fail "$1: a click on the third row selected row $(selected_index) ('$(selected)')"
	fi
	tm send-keys -t t Down
	wait_selected "$3" ||
		fail "$1: a click on the third row and Down selected row $(selected_index) ('$(selected)'), not row $3"
	# Nothing comes of the click later either.
	sleep 1
	[ "$(selected_index)" = "$3" ] || fail "$1: the selection moved to row $(selected_index) after the click"
	tm send-keys -t t q
	wait_for 'PERFTOP-EXITED:0' || fail "q did not exit 0 ($1)"
	tm kill-server
	sleep 0.2
}
mouse_test --no-mouse off 2
ok
mouse_test "" on 4
ok
echo "$checks passed, 0 failed"
