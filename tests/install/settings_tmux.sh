#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The settings kept across runs (settings/settings.h, main.c): in the view, > (order by the next
# column, Total) then z (zero at each refresh) then q; started again with the same XDG_CONFIG_HOME,
# the view opens ordered by Total in zero mode (its mode line says so). An option of the run wins
# and is not saved (-d); a corrupt perftoprc gives a one-line warning and the defaults, and is left
# as it was. Exit 77 only when tmux is missing or the kernel refuses the events (perfprobe.sh).
set -u
pt=${1:?usage: settings_tmux.sh PERFTOP}
. "$(dirname "$0")/../lib/tmuxlib.sh" settings
tmp=$(mktemp -d)
sleep 600 & target=$!
trap 'tm kill-server 2>/dev/null; kill $target 2>/dev/null; rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp/config
rc=$XDG_CONFIG_HOME/perftop/perftoprc
# tmuxlib's screen and fail, on the session of the run ($S) and with the file shown too
S=t0
screen() { tm capture-pane -p -t "$S" 2>/dev/null; }
fail() { echo "FAIL: $*"; echo "--- screen:"; screen; echo "--- $rc:"; cat "$rc" 2>/dev/null; exit 1; }
# run ARGS...: perftop ARGS -p target in a fresh session of the private server, its stderr to a file.
run() {
	tm kill-session -t "$S" 2>/dev/null
	S=t$((${S#t} + 1))
	tm new-session -d -s "$S" -x 220 -y 30 \
		"XDG_CONFIG_HOME=$XDG_CONFIG_HOME $pt $* -p $target 2>$tmp/stderr; echo PERFTOP-EXITED:\$?; sleep 60"
	wait_for "pid $target" || fail "no header"
	wait_for 'mode: ' || fail "no mode line"
}
quit() {
	tm send-keys -t "$S" q
	wait_for 'PERFTOP-EXITED:0' || fail "perftop did not quit with status 0"
}

# 1. defaults, then > z q: the file has the order and the mode
run -d 0.5
screen | grep -Eq 'mode: decay .*order: Self' || fail "the defaults are not decay and Self"
tm send-keys -t "$S" '>'
wait_for 'order: Total' || fail "> did not order by Total"
tm send-keys -t "$S" z
wait_for 'mode: zero' || fail "z did not switch to zero"
quit
[ -f "$rc" ] || fail "no $rc written at quit"
grep -qx 'order=total' "$rc" && grep -qx 'mode=zero' "$rc" || fail "the file lacks order=total, mode=zero"
grep -q '^refresh=' "$rc" && fail "-d of the command line was saved"
echo "saved: $(grep -v '^#' "$rc" | tr '\n' ' ')"

# 2. started again: that order and mode; an option (-d 0.7) wins for the run and is not saved
run -d 0.7
wait_for 'mode: zero .*refresh: 0.7s .*order: Total' || fail "the second run did not open in zero mode ordered by Total"
cp "$rc" "$tmp/before"
quit
cmp -s "$rc" "$tmp/before" || fail "a run with no change in the view rewrote the file"

# 3. a corrupt file: one line on stderr, the defaults, the file left alone
printf 'order=total\nthis is not a setting\n' >"$rc"
cp "$rc" "$tmp/before"
run -d 0.5
wait_for "perftoprc:2: not key=value" || fail "no warning in the view"
screen | grep -Eq 'mode: decay .*order: Self' || fail "a corrupt file did not give the defaults"
quit
[ "$(wc -l <"$tmp/stderr")" = 1 ] && grep -q "perftoprc:2: not key=value: using the default settings" "$tmp/stderr" ||
	{ echo "stderr:"; cat "$tmp/stderr"; fail "not one warning line on stderr"; }
cmp -s "$rc" "$tmp/before" || fail "the corrupt file was overwritten though nothing changed"
echo ok
