#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of --call-graph dwarf. Not a test: machines here are shared and noisy.
#  1. Replay: a perf record --call-graph dwarf recording of a Python loop (3 s at 999 Hz, 8 KiB stacks),
#     read by perftop -i -b --json and by perf report --children: wall time of each, medians over
#     ROUNDS, and the ratio. The Python is the python3 first on PATH (PY=... for another), called by
#     the path of its interpreter (sys.executable) so that no shell shim (pyenv's) runs under perf.
#  2. Live: the whole machine at --call-graph dwarf -F 4000 for SECONDS with the same Python loop on
#     every vCPU, ROUNDS rounds, the two profilers taking turns to go first: perftop (batch, one
#     window over the run) against perf top --call-graph dwarf under tmux (as bench/run.sh runs it).
#     Per round: samples lost (perftop: lost + dropped, i.e. kernel ring overruns / queue full; perf
#     top: its "lost" counter), the 1-minute load average at the end of the round, CPU time of the
#     profiler process (utime + stime, all threads) and the ratio perftop / perf top; then the
#     medians, and the issue's target: perftop loses no sample in any round and its median CPU ratio
#     is at most 0.5.
#
# usage: bench/unwind.sh [PERFTOP] [ROUNDS] [SECONDS]   (PERFTOP_EXTRA: more perftop options, e.g.
#        --no-inline; PY: the python3 to run; PARTS: "replay", "live" or both, the default)
# Exit status: 0 when the live target is met (or not measured), 1 when it is missed (or perftop gave
# no snapshot in a round), 2 on set-up errors.
set -u
here=$(cd "$(dirname "$0")" && pwd)
pt=${1:-$here/../build/perftop}
rounds=${2:-5}
secs=${3:-10}
parts=${PARTS:-replay live}
command -v perf >/dev/null || { echo "perf is not installed"; exit 2; }
command -v tmux >/dev/null || { echo "tmux is not installed"; exit 2; }
[ -x "$pt" ] || { echo "no perftop at $pt (make build)"; exit 2; }
py=$("${PY:-python3}" -c 'import sys; print(sys.executable)' 2>/dev/null)
[ -x "$py" ] || { echo "no python3 at ${PY:-python3 (PATH)}"; exit 2; }
echo "python: $py ($("$py" -c 'import sys; print(sys.version.split()[0])'))"
tmpd=$(mktemp -d)
sock=perftop-unwind-bench-$$
tm() { tmux -L "$sock" "$@"; }
workers=()
cleanup() { tm kill-server 2>/dev/null; rm -rf "$tmpd"; for w in "${workers[@]}"; do kill "$w" 2>/dev/null; done; }
trap cleanup EXIT
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
now() { date +%s.%N; }
status=0

# --- 1. replay ---
if [[ " $parts " == *" replay "* ]]; then
	perf record -q -B --call-graph dwarf -F 999 -o "$tmpd/r.data" -- "$py" -c "import time
t=time.time()
while time.time()-t<3: sum(i*i for i in range(100000))" >/dev/null 2>&1 || { echo "perf record failed"; exit 2; }
	: >"$tmpd/pt"; : >"$tmpd/pr"
	for ((i = 0; i < rounds; i++)); do
		t0=$(now); "$pt" -i "$tmpd/r.data" -b --json >/dev/null 2>&1; t1=$(now)
		echo "$t1 - $t0" | bc -l >>"$tmpd/pt"
		t0=$(now); perf report -i "$tmpd/r.data" --stdio --children >/dev/null 2>&1; t1=$(now)
		echo "$t1 - $t0" | bc -l >>"$tmpd/pr"
	done
	a=$(median <"$tmpd/pt"); b=$(median <"$tmpd/pr")
	printf 'replay of a dwarf recording (%s MB): perftop -i %.3f s, perf report %.3f s, %.1fx faster\n' \
		"$(($(stat -c %s "$tmpd/r.data") / 1000000))" "$a" "$b" "$(echo "$b / $a" | bc -l)"
fi

# --- 2. live ---
[[ " $parts " == *" live "* ]] || exit $status
for ((c = 0; c < $(nproc); c++)); do
	"$py" -c "import time
while True: sum(i*i for i in range(10000))" & workers+=($!)
done
sleep 1
clk=$(getconf CLK_TCK)
cpu_of() { local s; s=$(cat /proc/"$1"/stat 2>/dev/null) || { echo nan; return; }; local f=(${s##*) }); echo "(${f[11]} + ${f[12]}) / $clk" | bc -l; }

# perftop: one batch window over the whole run; its CPU time (utime + stime) from GNU time.
# Writes "cpu lost+dropped samples unwound" to $tmpd/pt.round.
run_perftop() {
	/usr/bin/time -f "%U %S" -o "$tmpd/pt.time" "$pt" --call-graph dwarf -F 4000 -a -b -n 1 \
		-d "$secs" --json ${PERFTOP_EXTRA:-} >"$tmpd/pt.json" 2>/dev/null
	local cpu
	cpu=$(awk '{print $1 + $2}' "$tmpd/pt.time")
	echo "$cpu $("$py" -c "import json
try:
    s=[json.loads(l) for l in open('$tmpd/pt.json') if l.startswith('{')][-1]
    print(s['lost'] + s['dropped'], s['samples'], s.get('unwound'), '%d/%d' % (s['lost'], s['dropped']))
except Exception as e:
    print('? 0 ? no-snapshot')")" >"$tmpd/pt.round"
}

# perf top in its full-screen view under tmux, as a user runs it. Its screen and CPU time are read
# every second (the last reading counts), so that a perf top that dies early still reports what it
# did, and says so. Writes "cpu lost/total" to $tmpd/pf.round.
run_perf_top() {
	tm kill-server 2>/dev/null
	tm new-session -d -s b -x 200 -y 50 "exec perf top --call-graph dwarf -F 4000 -a"
	local pid lost="" cpu=nan c l note=""
	pid=$(tm display -p -t b '#{pane_pid}' 2>/dev/null)
	for ((k = 0; k < secs; k++)); do
		sleep 1
		c=$(cpu_of "$pid")
		[ "$c" = nan ] && { note=" (perf top exited after ${k} s)"; break; }
		cpu=$c
		l=$(tm capture-pane -p -t b 2>/dev/null | grep -o 'lost: [0-9]*/[0-9]*' | head -1 | cut -d' ' -f2)
		[ -n "$l" ] && lost=$l
	done
	tm send-keys -t b q 2>/dev/null; sleep 0.5; tm kill-server 2>/dev/null; kill "$pid" 2>/dev/null
	echo "$cpu ${lost:-?}$note" >"$tmpd/pf.round"
}

printf 'live -a --call-graph dwarf -F 4000, %s s, %s busy vCPUs, %s rounds:\n' "$secs" "$(nproc)" "$rounds"
: >"$tmpd/live"
for ((i = 1; i <= rounds; i++)); do
	if ((i % 2)); then run_perftop; run_perf_top; else run_perf_top; run_perftop; fi
	read -r ptcpu ptlost ptsamples ptunw ptsplit <"$tmpd/pt.round"
	read -r pfcpu pflost <"$tmpd/pf.round"
	ratio=$(echo "$ptcpu / $pfcpu" | bc -l)
	printf '  round %d: perftop CPU %.2f s, lost+dropped %s (%s) of %s samples, unwound %s%%; perf top CPU %.2f s, lost %s; ratio %.2f; load %s\n' \
		"$i" "$ptcpu" "$ptlost" "$ptsplit" "$ptsamples" "$ptunw" "$pfcpu" "$pflost" "$ratio" \
		"$(cut -d' ' -f1 /proc/loadavg)"
	echo "$ptcpu $pfcpu $ratio $ptlost" >>"$tmpd/live"
done
mpt=$(awk '{print $1}' "$tmpd/live" | median)
mpf=$(awk '{print $2}' "$tmpd/live" | median)
mratio=$(awk '{print $3}' "$tmpd/live" | median)
maxlost=$(awk 'BEGIN {m = 0} {if ($4 == "?") m = "?"; else if (m != "?" && $4 + 0 > m) m = $4 + 0} END {print m}' "$tmpd/live")
printf '  medians: perftop CPU %.2f s (%.1f%% of one CPU), perf top CPU %.2f s (%.1f%% of one CPU), ratio %.2f\n' \
	"$mpt" "$(echo "100 * $mpt / $secs" | bc -l)" "$mpf" "$(echo "100 * $mpf / $secs" | bc -l)" "$mratio"
verdict=met
if [ "$maxlost" != 0 ] || [ "$(echo "$mratio > 0.5" | bc -l)" = 1 ]; then verdict=MISSED; status=1; fi
printf '  target (no sample lost or dropped in any round, median CPU ratio <= 0.50): %s (most lost+dropped in a round: %s)\n' \
	"$verdict" "$maxlost"
exit $status
