#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two perftop builds side by side under one workload, in both orders: a same-run A/B for changes of
# a few percent of the live view's CPU. Each pass starts both views (-a, under tmux) on the same
# workload, A first, then B, and reads each one's CPU (ticks of 1/100 s) every PERIOD seconds for
# PERIODS periods; the second pass starts B first. Both see the same load at the same moment, but
# two copies of ONE build differ by up to ~10% over 3 minutes on the 2-vCPU VM these were made on
# (docs/performance.md, ninth round): only a difference that holds in both passes, and beyond
# that, says something. Prints each pass's totals and B/A over both. Not a test.
#
# WORKLOAD=run (default): bench/run.sh's (a Python loop and dd), views on -a -F 4000;
# WORKLOAD=churn: the no-pause churn (true, ls, sh -c, python3 -c pass, awk, and a process whose
# threads come and go), views on -a -g.
#   usage: [WORKLOAD=run|churn] bench/side.sh PERFTOP_A PERFTOP_B [PERIOD] [PERIODS] [ARGS...]
set -u
[ $# -ge 2 ] || { sed -n 3,14p "$0"; exit 2; }
a_bin=$1 b_bin=$2
period=${3:-30}
periods=${4:-6}
shift $(($# < 4 ? $# : 4))
workload=${WORKLOAD:-run}
case $workload in
run) args=${*:--a -F 4000} ;;
churn) args=${*:--a -g} ;;
*) echo "WORKLOAD is run or churn"; exit 2 ;;
esac
for b in "$a_bin" "$b_bin"; do [ -x "$b" ] || { echo "no perftop at $b"; exit 2; }; done
command -v tmux >/dev/null || { echo "tmux is not installed"; exit 2; }
tmpd=$(mktemp -d)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/churnload.sh"
sock=side-$$
tm() { tmux -L "$sock" "$@"; }
pids=()
cleanup() { tm kill-server 2>/dev/null; for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; stop_churn; rm -rf "$tmpd"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
if [ "$workload" = run ]; then
	python3 -c "
while True: sum(i*i for i in range(10000))" & pids+=($!)
	dd if=/dev/zero of=/dev/null bs=4k 2>/dev/null & pids+=($!)
else
	start_churn "$tmpd" || exit 2
fi
sleep 1
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
# One pass: FIRST's view started before SECOND's; prints "A B" totals.
pass() {
	local first=$1 second=$2 pa pb a0 b0 a b ta=0 tb=0
	tm new-session -d -s "$first" -x 160 -y 50 "exec ${bin[$first]} $args"
	tm new-session -d -s "$second" -x 160 -y 50 "exec ${bin[$second]} $args"
	pa=$(tm display -p -t A '#{pane_pid}')
	pb=$(tm display -p -t B '#{pane_pid}')
	sleep 5
	a0=$(ticks "$pa") b0=$(ticks "$pb")
	for ((k = 1; k <= periods; k++)); do
		sleep "$period"
		a=$(ticks "$pa") b=$(ticks "$pb")
		echo "  period $k: A $((a - a0)) B $((b - b0))" >&2
		ta=$((ta + a - a0)) tb=$((tb + b - b0))
		a0=$a b0=$b
	done
	tm kill-server 2>/dev/null
	sleep 1
	echo "$ta $tb"
}
declare -A bin=([A]=$a_bin [B]=$b_bin)
echo "A: $a_bin"
echo "B: $b_bin"
echo "pass 1 ($workload, A started first):"
read -r a1 b1 < <(pass A B)
echo "  total: A $a1 B $b1"
echo "pass 2 ($workload, B started first):"
read -r a2 b2 < <(pass B A)
echo "  total: A $a2 B $b2"
awk -v a1="$a1" -v b1="$b1" -v a2="$a2" -v b2="$b2" 'BEGIN {
	r1 = a1 ? b1 / a1 : 0; r2 = a2 ? b2 / a2 : 0; r = (a1 + a2) ? (b1 + b2) / (a1 + a2) : 0
	printf "B/A: pass 1 %.3f, pass 2 %.3f, both %.3f", r1, r2, r
	if ((r1 - 1) * (r2 - 1) <= 0) printf " (the passes disagree: noise)"
	printf "\n" }'
