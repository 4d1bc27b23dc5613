#!/bin/bash
# Replay benchmark: perftop -i F -b against perf report -i F --stdio on the same files, made here
# with perf record: a 5 s fp recording of one program, a 30 s -a fp recording (two programs running),
# a 5 s DWARF recording. Wall time and peak RSS (/usr/bin/time -f '%e %M'), the median of RUNS runs
# each, and the ratios perf / perftop (higher is better for perftop).
#   usage: bench/replay.sh [PERFTOP]     (RUNS=5 by default; KEEP=DIR keeps the recordings there)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
pt=${1:-$here/build/perftop}
runs=${RUNS:-5}
[[ -x /usr/bin/time ]] || { echo "bench/replay.sh needs /usr/bin/time (package time)"; exit 2; }
command -v perf >/dev/null || { echo "bench/replay.sh needs perf"; exit 2; }
t=${KEEP:-$(mktemp -d)}; mkdir -p "$t"
[[ -n ${KEEP:-} ]] || trap 'rm -rf "$t"' EXIT
busy() { python3 -c "import time
t=time.time()
while time.time()-t<$1: sum(i*i for i in range(10000))"; }
export -f busy
spinner=$here/build/fixtures/spinner

rec() { perf record -q -N -B "$@" >/dev/null 2>&1; }
if [[ ! -s $t/fp5.data ]]; then
	echo "recording (45 s)..." >&2
	rec -g -F 999 -o "$t/fp5.data" -- bash -c 'busy 5'
	bash -c 'busy 32' & b1=$!
	if [[ -x $spinner ]]; then "$spinner" 32 >/dev/null & b2=$!; else bash -c 'busy 32' & b2=$!; fi
	rec -a -g -F 999 -o "$t/a30.data" -- sleep 30
	kill $b1 $b2 2>/dev/null || true; wait $b1 $b2 2>/dev/null || true
	rec --call-graph dwarf -F 999 -o "$t/dwarf5.data" -- bash -c 'busy 5'
fi

# median of the runs of one command: prints "SECONDS KIB"
measure() {
	local i
	: >"$t/times"
	for ((i = 0; i < runs; i++)); do
		/usr/bin/time -f '%e %M' -o "$t/time.out" "$@" >/dev/null 2>&1 || true
		tail -1 "$t/time.out" >>"$t/times"
	done
	echo "$(cut -d' ' -f1 "$t/times" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')" \
		"$(cut -d' ' -f2 "$t/times" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')"
}

printf '| %-22s | %8s | %11s | %11s | %7s | %12s | %12s | %7s |\n' recording size \
	"perftop s" "perf s" speed "perftop MiB" "perf MiB" memory
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' ------------------------ ---------- ------------- \
	------------- --------- -------------- -------------- ---------
for f in fp5 a30 dwarf5; do
	case $f in
	fp5) what="5 s fp, one program" ;;
	a30) what="30 s -a fp" ;;
	dwarf5) what="5 s DWARF" ;;
	esac
	read -r pe pm < <(measure "$pt" -i "$t/$f.data" -b)
	read -r re rm < <(measure perf report -i "$t/$f.data" --stdio)
	size=$(du -h "$t/$f.data" | cut -f1)
	awk -v w="$what" -v s="$size" -v pe="$pe" -v pm="$pm" -v re="$re" -v rm="$rm" 'BEGIN {
		printf "| %-22s | %8s | %11.2f | %11.2f | %6.1fx | %12.1f | %12.1f | %6.2fx |\n",
			w, s, pe, re, (pe > 0 ? re / pe : 0), pm / 1024, rm / 1024, (pm > 0 ? rm / pm : 0) }'
done
echo "(median of $runs runs; speed and memory are perf report / perftop: above 1x, perftop is ahead)"
