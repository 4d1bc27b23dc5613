#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# screenshots: pictures of the view with the demo source (tui_demo), for the repository: a replay
# (sparkline, position, range, 2x), its header view (i), and the live view. The demo runs in tmux,
# the pane is captured with its colours (capture-pane -e) and ansilove draws it as PNG.
#
# ansilove reads CP437 and knows neither UTF-8, the "default colour" codes nor reversed cells, so the
# capture goes through a converter first (screenshots/to_ans.py).
#
# usage: tests/ui/screenshots.sh path/to/tui_demo [OUTDIR]   (OUTDIR: screenshots/)
set -eu
BIN=${1:?usage: screenshots.sh path/to/tui_demo [OUTDIR]}
here=$(cd "$(dirname "$0")" && pwd)
out=${2:-$here/../../screenshots}
COLS=100
ROWS=26
sock=perftop-uishot-$$
tm() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null || true' EXIT
export LANG=C.UTF-8
unset LC_ALL NO_COLOR

to_ans() { # a capture on stdin -> CP437 ANSI on stdout (screenshots/to_ans.py says how)
	python3 "$here/../../screenshots/to_ans.py" "$COLS"
}

shot() { # NAME: captures the pane as NAME.png in out
	local name=$1
	tm capture-pane -e -N -p -t s | to_ans > "$out/$name.ans"
	ansilove -q -c "$COLS" -o "$out/$name.png" "$out/$name.ans" >/dev/null
	rm -f "$out/$name.ans"
}

wait_for() { # REGEX: polls the pane for up to 5 s
	local i
	for ((i = 0; i < 50; i++)); do
		tm capture-pane -p -t s | grep -qE -- "$1" && return 0
		sleep 0.1
	done
	echo "screenshots: '$1' did not show" >&2
	return 1
}

mkdir -p "$out"

# A replay: a range over the rise, played at 2x, paused for a still picture.
tm new-session -d -s s -x "$COLS" -y "$ROWS" "$BIN --replay -d 0.5"
wait_for 'speed 1x'
tm send-keys -t s Right
tm send-keys -t s '['
tm send-keys -t s Right Right
tm send-keys -t s ']'
tm send-keys -t s Left +
sleep 1.5
tm send-keys -t s Space
wait_for 'PAUSED'
sleep 0.6
shot replay-demo
tm send-keys -t s i
wait_for 'recording header'
shot replay-demo-header
# kill-session, not kill-server: a new session right after kill-server can meet the dying server.
tm kill-session -t s

# The live view of the same demo, for comparison.
tm new-session -d -s s -x "$COLS" -y "$ROWS" "$BIN -d 0.5"
wait_for 'compute_checksum'
sleep 1.5
shot live-demo
echo "wrote $out/replay-demo.png $out/replay-demo-header.png $out/live-demo.png"
