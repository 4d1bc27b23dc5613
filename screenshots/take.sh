#!/bin/bash
# Takes the README's screenshots of the real perftop: runs it in tmux on a known workload, captures
# the pane with its colours (capture-pane -e) and turns that into PNG with ansilove.
# usage: screenshots/take.sh [PERFTOP]   (as root; needs tmux and ansilove)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
pt=${1:-$here/../build/perftop}
sock=perftop-shot-$$
tm() { tmux -L "$sock" "$@"; }
trap 'tm kill-server 2>/dev/null; kill $dd 2>/dev/null || true' EXIT
dd if=/dev/zero of=/dev/null bs=4k 2>/dev/null & dd=$!
shot() { # NAME COLUMNS ROWS SECONDS ARGS...
	local name=$1 cols=$2 rows=$3 secs=$4; shift 4
	tm kill-server 2>/dev/null || true
	tm new-session -d -s s -x "$cols" -y "$rows" "TERM=xterm-256color $pt $*"
	sleep "$secs"
	# ansilove reads CP437 and knows no "default colour" codes (39/49): map them to white on black.
	tm capture-pane -e -p -t s | sed -e 's/\x1b\[39m/\x1b[37m/g' -e 's/\x1b\[49m/\x1b[40m/g' \
		| iconv -f utf-8 -t cp437//TRANSLIT > "$here/$name.ans"
	ansilove -q -c "$cols" -o "$here/$name.png" "$here/$name.ans" >/dev/null
	rm -f "$here/$name.ans"
	tm send-keys -t s q
}
shot live-python 120 30 4 -- python3 -c "'while True: sum(i*i for i in range(10000))'"
shot system-comm 120 24 4 -a -s comm,dso,sym
