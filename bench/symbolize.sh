#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Symbolization benchmark.
#  1. Throughput of the dso layer (bench/symbench.c) on random addresses in libpython and libc text:
#     cold (first lookup of each address: opening, symbols, debug info) and warm (cached), for ELF
#     symbols only, + inline frames, + inline frames and source lines.
#     The dso layer runs with an empty cache directory: cold is DWARF itself, not an earlier run's
#     srcinfo store (srcstore.h).
#  2. A 5 s `perf record --call-graph dwarf` recording of a Python loop replayed with inline frames
#     and source lines on (perftop -i F -b --json -s dso,sym,srcline) against `perf report` with its
#     defaults (inline on), and with --no-inline; wall time, median of RUNS runs. perftop warm: its
#     cache directory filled by an earlier run (the binaries' srcinfo stores, debug file copies);
#     cold: each run with a new one that holds only the boot's kallsyms table; "debug copies
#     present": the same plus the uncompressed copies of compressed debug files (libc6-dbg's) that
#     any earlier DWARF session on the machine made, i.e. the first replay of new binaries.
#   usage: bench/symbolize.sh [BUILD_DIR]      (RUNS=3; N=20000 addresses)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-$here/build}
runs=${RUNS:-3}
n=${N:-20000}
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT

gcc -O2 -std=c11 -D_GNU_SOURCE -I"$here/src" -o "$t/symbench" "$here/bench/symbench.c" \
	"$b/src/symbolize/libperftop_symbolize.a" "$b/src/util/libperftop_util.a" \
	$(pkg-config --libs libdw libelf) -ldl /usr/lib/x86_64-linux-gnu/libiberty.a
text_range() {  # file offsets of .text
	readelf -SW "$1" | awk '$2==".text"{print $5, $6}' | { read -r off size; printf '%x-%x\n' $((16#$off)) $((16#$off + 16#$size)); }
}
py=$(python3 -c 'import sysconfig,os;print(os.path.realpath(os.path.join(sysconfig.get_config_var("LIBDIR"),sysconfig.get_config_var("LDLIBRARY"))))')
libc=/lib/x86_64-linux-gnu/libc.so.6
args=()
for f in "$py" "$libc"; do [[ -f $f ]] && args+=("$f" "$(text_range "$f")"); done
echo "== throughput: $n random addresses over ${#args[@]}/2 binaries ($(basename "$py"), libc.so.6)"
PERFTOP_CACHE_DIR=$t/symbench-cache "$t/symbench" "$n" "${args[@]}"

echo "== replay of a 5 s --call-graph dwarf recording of a Python loop"
perf record -q -N -B --call-graph dwarf -F 999 -o "$t/dwarf.data" -- python3 -c "import time
t=time.time()
while time.time()-t<5: sum(i*i for i in range(10000))" >/dev/null 2>&1
median() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
timeit() { for _ in $(seq "$runs"); do s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc; done | median; }
export PERFTOP_CACHE_DIR=$t/cache
"$b/perftop" -i "$t/dwarf.data" -b --json -s dso,sym,srcline >/dev/null 2>&1  # fills the cache
coldtime() {  # timeit, each run with a new cache directory holding the boot's kallsyms only
	# (COPIES=1: and the uncompressed debug file copies an earlier session made)
	for _ in $(seq "$runs"); do
		local d
		d=$(mktemp -d "$t/cold.XXXXXX")
		cp "$t/cache/kallsyms" "$d/" 2>/dev/null
		[[ -n ${COPIES:-} ]] && cp -r "$t/cache/debug" "$d/" 2>/dev/null
		s=$(date +%s.%N); PERFTOP_CACHE_DIR=$d "$@" >/dev/null 2>&1; e=$(date +%s.%N)
		echo "$e - $s" | bc
		sleep 0.2; while pgrep -f eu-elfcompress >/dev/null; do sleep 0.1; done  # its background copy
	done | median
}
pi=$(timeit "$b/perftop" -i "$t/dwarf.data" -b --json -s dso,sym,srcline)
pc=$(coldtime "$b/perftop" -i "$t/dwarf.data" -b --json -s dso,sym,srcline)
pd=$(COPIES=1 coldtime "$b/perftop" -i "$t/dwarf.data" -b --json -s dso,sym,srcline)
pn=$(timeit "$b/perftop" -i "$t/dwarf.data" -b --json --no-inline)
ri=$(timeit perf report -i "$t/dwarf.data" --stdio)
rn=$(timeit perf report -i "$t/dwarf.data" --stdio --no-inline)
printf "perftop, inline + srcline, warm: %6.3f s    perf report (defaults, inline): %6.3f s   ratio %5.1fx\n" "$pi" "$ri" "$(echo "$ri / $pi" | bc -l)"
printf "perftop, inline + srcline, cold: %6.3f s    perf report (defaults, inline): %6.3f s   ratio %5.1fx\n" "$pc" "$ri" "$(echo "$ri / $pc" | bc -l)"
printf "perftop, inline + srcline, cold, debug copies present: %6.3f s   ratio %5.1fx\n" "$pd" "$(echo "$ri / $pd" | bc -l)"
printf "perftop --no-inline:             %6.3f s    perf report --no-inline:        %6.3f s   ratio %5.1fx\n" "$pn" "$rn" "$(echo "$rn / $pn" | bc -l)"
