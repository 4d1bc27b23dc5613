#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: perftop against `perf top` profiling the whole machine at -F 4000 for 10 s, on the same
# workload, in the same run, alternating the two, several rounds. For each profiler it measures its own
# CPU time (utime+stime of the process, all threads), its peak RSS (VmHWM) and the time from start until
# the first data row is on screen (both in their full-screen views under tmux, polled every 20 ms).
# Prints the medians and the ratios perftop/perf top, perftop both with its Python frames (the default:
# the Python loop is read by the watcher) and with --no-python. Not a test: machines here are shared
# and noisy.
#
# usage: bench/run.sh [PERFTOP] [ROUNDS] [SECONDS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
pt=${1:-$here/../build/perftop}
rounds=${2:-3}
secs=${3:-10}
freq=4000
command -v perf >/dev/null || { echo "perf is not installed"; exit 2; }
command -v tmux >/dev/null || { echo "tmux is not installed"; exit 2; }
[ -x "$pt" ] || { echo "no perftop at $pt (make build)"; exit 2; }
sock=perftop-bench-$$
tmpd=$(mktemp -d)
tm() { tmux -L "$sock" "$@"; }
workers=()
cleanup() { tm kill-server 2>/dev/null; rm -rf "$tmpd"; for w in "${workers[@]}"; do kill "$w" 2>/dev/null; done; }
trap cleanup EXIT

# The workload: a Python loop (user code, deep stacks) and dd (kernel work), one per vCPU.
python3 -c "import time
t=time.time()
while True: sum(i*i for i in range(10000))" & workers+=($!)
dd if=/dev/zero of=/dev/null bs=4k 2>/dev/null & workers+=($!)
sleep 1

# measure NAME CMD...: prints "cpu_seconds peak_rss_kib first_data_seconds"
measure() {
	local name=$1; shift
	tm kill-server 2>/dev/null
	local t0 t1 pid first=""
	# The clock starts right before the profiler is exec'ed, so tmux's own start-up is not counted.
	rm -f "$tmpd/t0"
	tm new-session -d -s b -x 160 -y 50 "date +%s.%N > $tmpd/t0; exec $*"
	pid=$(tm display -p -t b '#{pane_pid}')
	local deadline=$(( $(date +%s) + secs + 5 ))
	while [ -z "$first" ] && [ "$(date +%s)" -lt "$deadline" ]; do
		if tm capture-pane -p -t b | grep -Eq '^[ +-]*[0-9]+\.[0-9]+%.*[A-Za-z_]'; then
			t1=$(date +%s.%N); t0=$(cat "$tmpd/t0"); first=$(echo "$t1 - $t0" | bc -l)
		else
			sleep 0.02
		fi
	done
	sleep "$(echo "$secs - ${first:-0}" | bc -l | sed 's/^-.*/0/')"
	local clk; clk=$(getconf CLK_TCK)
	local stat; stat=$(cat /proc/"$pid"/stat 2>/dev/null) || { echo "$name died" >&2; echo "nan nan nan"; return; }
	local rest=${stat##*) }
	local fields=($rest)
	local cpu; cpu=$(echo "(${fields[11]} + ${fields[12]}) / $clk" | bc -l)
	local rss; rss=$(awk '/VmHWM/ {print $2}' /proc/"$pid"/status)
	tm send-keys -t b q
	sleep 0.5
	tm kill-server 2>/dev/null
	kill "$pid" 2>/dev/null
	printf '%.3f %s %.3f\n' "$cpu" "$rss" "${first:-99}"
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

declare -a pt_cpu pt_rss pt_first pf_cpu pf_rss pf_first np_cpu np_rss np_first
for r in $(seq "$rounds"); do
	read -r c m f < <(measure perftop "$pt" -a -F $freq -e cpu-clock)
	pt_cpu+=("$c"); pt_rss+=("$m"); pt_first+=("$f")
	echo "round $r perftop:  cpu ${c}s  rss ${m} KiB  first data ${f}s"
	read -r c m f < <(measure "perf top" perf top -a -g -F $freq -e cpu-clock)
	pf_cpu+=("$c"); pf_rss+=("$m"); pf_first+=("$f")
	echo "round $r perf top: cpu ${c}s  rss ${m} KiB  first data ${f}s"
	read -r c m f < <(measure "perftop --no-python" "$pt" -a -F $freq -e cpu-clock --no-python)
	np_cpu+=("$c"); np_rss+=("$m"); np_first+=("$f")
	echo "round $r perftop --no-python: cpu ${c}s  rss ${m} KiB  first data ${f}s"
done

a=$(printf '%s\n' "${pt_cpu[@]}" | median); b=$(printf '%s\n' "${pf_cpu[@]}" | median)
c=$(printf '%s\n' "${pt_rss[@]}" | median); d=$(printf '%s\n' "${pf_rss[@]}" | median)
e=$(printf '%s\n' "${pt_first[@]}" | median); f=$(printf '%s\n' "${pf_first[@]}" | median)
echo
echo "medians of $rounds rounds, ${secs}s each, -a -F $freq -e cpu-clock, call graphs on in both (perf top -g):"
printf '| %-22s | %10s | %10s | %8s |\n' "" perftop "perf top" ratio
printf '| %-22s | %10s | %10s | %8s |\n' "---" "---" "---" "---"
printf '| %-22s | %10.2f | %10.2f | %8.2f |\n' "CPU time (s)" "$a" "$b" "$(echo "$a / $b" | bc -l)"
printf '| %-22s | %10d | %10d | %8.2f |\n' "peak RSS (KiB)" "$c" "$d" "$(echo "$c / $d" | bc -l)"
printf '| %-22s | %10.2f | %10.2f | %8.2f |\n' "first data on screen (s)" "$e" "$f" "$(echo "$e / $f" | bc -l)"
g=$(printf '%s\n' "${np_cpu[@]}" | median); h=$(printf '%s\n' "${np_rss[@]}" | median)
i=$(printf '%s\n' "${np_first[@]}" | median)
echo
echo "perftop --no-python (no Python frames read), the same rounds:"
printf '| %-22s | %10s | %10s | %8s |\n' "" "--no-python" "perf top" ratio
printf '| %-22s | %10s | %10s | %8s |\n' "---" "---" "---" "---"
printf '| %-22s | %10.2f | %10.2f | %8.2f |\n' "CPU time (s)" "$g" "$b" "$(echo "$g / $b" | bc -l)"
printf '| %-22s | %10d | %10d | %8.2f |\n' "peak RSS (KiB)" "$h" "$d" "$(echo "$h / $d" | bc -l)"
printf '| %-22s | %10.2f | %10.2f | %8.2f |\n' "first data on screen (s)" "$i" "$f" "$(echo "$i / $f" | bc -l)"
