#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Does perftop's cost under process churn grow with its age? Under one no-pause churn (true, ls,
# sh -c, python3 -c pass, awk in a loop, and a process whose threads come and go), a perftop view
# (-a -g, under tmux) started at once and a second one started at minute 5: each one's CPU over each
# minute (ticks of 1/100 s), side by side for minutes 6-10, with the machine's fork count. Both see
# the same load at the same moment, so a gap between them is perftop's own state, not the machine's.
# Not a test: the figures depend on the machine.
#
# usage: bench/churn_age.sh [PERFTOP]
here=$(cd "$(dirname "$0")" && pwd)
pt=${1:-$here/../build/perftop}
command -v tmux >/dev/null || { echo "tmux is not installed"; exit 2; }
[ -x "$pt" ] || { echo "no perftop at $pt (make build)"; exit 2; }
tmpd=$(mktemp -d)
. "$here/churnload.sh"
sock=le-$$
tm() { tmux -L "$sock" "$@"; }
start_churn "$tmpd" || { rm -rf "$tmpd"; exit 2; }
cleanup() { tm kill-server 2>/dev/null; stop_churn; rm -rf "$tmpd"; }
trap cleanup EXIT
trap 'exit 1' PIPE INT TERM
sleep 2
tm new-session -d -s a -x 160 -y 50 "exec $pt -a -g"
pa=$(tm display -p -t a '#{pane_pid}')
tk() { awk '{print $14+$15}' /proc/$1/stat; }
prev_a=$(tk $pa); prev_b=0; pb=""
for m in 1 2 3 4 5 6 7 8 9 10; do
  if [ $m = 6 ]; then tm new-session -d -s b -x 160 -y 50 "exec $pt -a -g"; pb=$(tm display -p -t b '#{pane_pid}'); prev_b=$(tk $pb); fi
  sleep 60
  a=$(tk $pa); line="minute $m: early $((a-prev_a))"; prev_a=$a
  if [ -n "$pb" ]; then b=$(tk $pb); line="$line late $((b-prev_b))"; prev_b=$b; fi
  echo "$line forks $(awk '/processes/ {print $2}' /proc/stat)"
done
