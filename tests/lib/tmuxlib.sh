# SPDX-License-Identifier: GPL-2.0-or-later
# tmuxlib: what the tmux tests share (drill-down, keys, options, e2e, export, replay, settings...),
# sourced after their arguments are read:
#   . "$(dirname "$0")/../lib/tmuxlib.sh" NAME [noperf]
# A UTF-8 locale, a private tmux server (perftop-NAME-PID, killed on exit) whose session is "t",
# screen (the pane's text), fail/ok and the check count, bounded waits, and moving the cursor onto
# a table row by the row index read from the screen. Exits 77 (skip) when tmux is missing or the
# kernel refuses the perf events perftop needs (perf_probe, asked before perftop starts); with
# noperf it does not ask: a test that runs no sampler (tui_demo) skips only for want of tmux.
command -v tmux >/dev/null || { echo "SKIP: tmux is not installed"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/perfprobe.sh"
[ "${2:-}" = noperf ] || need_perf_events task
for l in C.UTF-8 C.utf8 en_US.UTF-8; do
	if locale -a 2>/dev/null | grep -qx "$l"; then export LANG=$l; break; fi
done
unset LC_ALL NO_COLOR
sock=perftop-${1:-tmux}-$$
tm() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null' EXIT
screen() { tm capture-pane -p -t t 2>/dev/null; }
# cells ARGS: tests/lib/cells.py (a capture with colours on stdin, read as the terminal shows it),
# under the interpreter python3 stands for, found once: a pyenv shim costs 0.4 s a call, and the
# waits call it many times.
cells_py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
cells_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cells() { "${cells_py:-python3}" "$cells_dir/cells.py" "$@"; }
checks=0
fail() { echo "FAIL: $*"; echo "--- screen:"; screen; exit 1; }
ok() { checks=$((checks + 1)); }
# wait_for REGEX [tenths]: polls the screen for that long (10 s by default; of wall time, not of
# tries: on a busy machine a capture alone takes a while), and never less than WAIT_MIN: a wait
# returns as soon as the screen shows what it waits for, so its bound only tells a hang from a
# slow machine (a key's effect drawn in 3 s on a quiet one may take longer on a busy one).
# wait_gone REGEX [tenths]: the same, until the screen no longer shows it.
WAIT_MIN=300
wait_for() {
	local n=${2:-100} end
	((n < WAIT_MIN)) && n=$WAIT_MIN
	end=$((SECONDS + (n + 9) / 10))
	until screen | grep -Eq -- "$1"; do
		((SECONDS < end)) || return 1
		sleep 0.1
	done
}
wait_gone() {
	local n=${2:-100} end
	((n < WAIT_MIN)) && n=$WAIT_MIN
	end=$((SECONDS + (n + 9) / 10))
	while screen | grep -Eq -- "$1"; do
		((SECONDS < end)) || return 1
		sleep 0.1
	done
}
# The index (from 0) of the table row whose symbol is $1.
row_index() {
	screen | awk -v sym="$1" '
		/Self%.*Total%.*Symbol/ { hdr = NR; next }
		hdr && $4 == sym { print NR - hdr - 1; exit }'
}
cursor_to() {
	local idx
	idx=$(row_index "$1")
	[ -n "$idx" ] || fail "no row for $1"
	tm send-keys -t t Home
	for ((k = 0; k < idx; k++)); do tm send-keys -t t Down; done
	wait_for "^ +[0-9.]+% +[0-9.]+% +[0-9]+ +$1 " 20 || fail "cursor not moved to $1"
}
# write_to FILE: the view's w key: the prompt comes with its default name
# (perftop-YYYYmmdd-HHMMSS.pb.gz), which is replaced by FILE; Enter writes it and the bottom line
# says so.
write_to() {
	tm send-keys -t t w
	wait_for 'Write to: perftop-[0-9]{8}-[0-9]{6}\.pb\.gz_' || fail "no prompt with the default name"
	for _ in $(seq 40); do tm send-keys -t t BSpace; done
	tm send-keys -t t -l "$1"
	tm send-keys -t t Enter
	wait_for "wrote $1" || fail "no 'wrote $1' on the bottom line"
}
