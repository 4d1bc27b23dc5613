#!/bin/bash
# Benchmark of --call-graph dwarf (issue 5). Not a test: machines here are shared and noisy.
#  1. Replay: a perf record --call-graph dwarf recording of a Python loop (3 s at 999 Hz, 8 KiB stacks),
#     read by perftop -i -b --json and by perf report --children: wall time of each, medians over
#     ROUNDS, and the ratio.
#  2. Live: the whole machine at --call-graph dwarf -F 4000 for SECONDS with a Python loop on every vCPU:
#     perftop (batch, one window over the run) against perf top --call-graph dwarf under tmux (as
#     bench/run.sh runs it): samples lost (perftop: lost + dropped; perf top: its "lost" counter) and
#     CPU time of the profiler process (utime + stime, all threads).
#
# usage: bench/unwind.sh [PERFTOP] [ROUNDS] [SECONDS]   (PERFTOP_EXTRA: more perftop options, e.g.
#        --no-inline)
set -u
here=$(cd "$(dirname "$0")" && pwd)
pt=${1:-$here/../build/perftop}
rounds=${2:-5}
secs=${3:-10}
command -v perf >/dev/null || { echo "perf is not installed"; exit 2; }
command -v tmux >/dev/null || { echo "tmux is not installed"; exit 2; }
[ -x "$pt" ] || { echo "no perftop at $pt (make build)"; exit 2; }
py=/usr/bin/python3
tmpd=$(mktemp -d)
sock=perftop-unwind-bench-$$
tm() { tmux -L "$sock" "$@"; }
workers=()
cleanup() { tm kill-server 2>/dev/null; rm -rf "$tmpd"; for w in "${workers[@]}"; do kill "$w" 2>/dev/null; done; }
trap cleanup EXIT
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
now() { date +%s.%N; }

# --- 1. replay ---
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

# --- 2. live ---
for ((c = 0; c < $(nproc); c++)); do
	"$py" -c "import time
while True: sum(i*i for i in range(10000))" & workers+=($!)
done
sleep 1
clk=$(getconf CLK_TCK)
cpu_of() { local s; s=$(cat /proc/"$1"/stat 2>/dev/null) || { echo nan; return; }; local f=(${s##*) }); echo "(${f[11]} + ${f[12]}) / $clk" | bc -l; }

# perftop: one batch window over the whole run; its CPU time (utime + stime) from GNU time.
/usr/bin/time -f "%U %S" -o "$tmpd/pt.time" "$pt" --call-graph dwarf -F 4000 -a -b -n 1 -d "$secs" \
	--json ${PERFTOP_EXTRA:-} >"$tmpd/pt.json" 2>/dev/null
ptcpu=$(awk '{print $1 + $2}' "$tmpd/pt.time")
ptlost=$(python3 -c "import json,sys
s=[json.loads(l) for l in open('$tmpd/pt.json') if l.startswith('{')][-1]
print(s['lost'] + s['dropped'], s['samples'], s.get('unwound'))")

# perf top in its full-screen view under tmux, as a user runs it.
tm new-session -d -s b -x 200 -y 50 "exec perf top --call-graph dwarf -F 4000 -a"
pid=$(tm display -p -t b '#{pane_pid}')
sleep "$secs"
pfcpu=$(cpu_of "$pid")
pflost=$(tm capture-pane -p -t b | grep -o 'lost: [0-9]*/[0-9]*' | head -1)
tm send-keys -t b q; sleep 0.5; tm kill-server 2>/dev/null; kill "$pid" 2>/dev/null

printf 'live -a --call-graph dwarf -F 4000, %s s, %s busy vCPUs:\n' "$secs" "$(nproc)"
printf '  perftop : CPU %.2f s (%.1f%% of one CPU), lost+dropped / samples / unwound%%: %s\n' \
	"$ptcpu" "$(echo "100 * $ptcpu / $secs" | bc -l)" "$ptlost"
printf '  perf top: CPU %.2f s (%.1f%% of one CPU), %s\n' "$pfcpu" "$(echo "100 * $pfcpu / $secs" | bc -l)" \
	"${pflost:-lost: ?}"
printf '  CPU ratio perftop / perf top: %.2f\n' "$(echo "$ptcpu / $pfcpu" | bc -l)"
