#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Replay benchmark: perftop -i F -b against perf report -i F --stdio on the same files, made here
# with perf record: a 5 s fp recording of one program, a 30 s -a fp recording (two programs running),
# a 5 s DWARF recording, and a 50 s -a fp recording at 4 kHz (cpu-clock) while a mix of processes
# keeps both CPUs busy (a Python loop beside a shell loop of compiles, dd | gzip, sort and sha256sum:
# several processes and binaries, ~400k samples; being system-wide, it also holds whatever else the
# machine runs), and a 40 s -a fp recording at 4 kHz of a Python loop beside xz compressing the
# machine's libraries in a loop (two busy processes, one of them deep in the interpreter: ~40 MB).
# Wall time (date +%s%N around the run) and peak RSS (/usr/bin/time -f %M), the median
# of RUNS runs each, and the ratios perf / perftop (higher is better for perftop).
# perftop keeps caches under PERFTOP_CACHE_DIR (~/.cache/perftop): the parsed kallsyms for the boot,
# uncompressed copies of compressed debug files, and each binary's inline frames and source lines by
# build-id. "warm" runs share one cache directory that a first run filled; "cold" runs each get a new
# one that holds only the boot's kallsyms table (any perftop run since boot made it), so they pay for
# everything about the binaries, as the first replay of a recording of them does (the background
# copy of a compressed debug file a cold run starts is waited for outside the timing). The first
# perftop run after a boot also reads /proc/kallsyms: "first after boot" is a cold run without it.
#   usage: bench/replay.sh [PERFTOP]     (RUNS=5 by default; KEEP=DIR keeps the recordings there;
#          FILES="a30 a50" benches only those recordings; pyxz40 is the Python-and-xz one)
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
# A shell loop of short processes of several binaries, for $1 seconds.
churn() {
	local end=$((SECONDS + $1)) d
	d=$(mktemp -d)
	while ((SECONDS < end)); do
		gcc -O2 -std=c11 -D_GNU_SOURCE -I"$here/src" -c -o "$d/o.o" "$here/src/record/parse.c"
		dd if=/dev/urandom bs=64k count=64 2>/dev/null | gzip -6 >"$d/z.gz"
		seq 1 200000 | sort -R | sort -n | sha256sum >/dev/null
		sh -c 'ls -l /usr/bin >/dev/null'
	done
	rm -rf "$d"
}
export -f churn
export here

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
if [[ ! -s $t/a50.data ]]; then
	echo "recording (52 s)..." >&2
	bash -c 'busy 52' & b1=$!
	bash -c 'churn 52' & b2=$!
	rec -a -g -F 4000 -e cpu-clock -o "$t/a50.data" -- sleep 50
	kill $b1 $b2 2>/dev/null || true; wait $b1 $b2 2>/dev/null || true
fi
if [[ ! -s $t/pyxz40.data ]]; then
	echo "recording (42 s)..." >&2
	bash -c 'busy 42' & b1=$!
	timeout 42 sh -c 'while :; do cat /usr/lib/x86_64-linux-gnu/lib*.so* | xz -T1 -6 >/dev/null; done' & b2=$!
	rec -a -g -F 4000 -e cpu-clock -o "$t/pyxz40.data" -- sleep 40
	kill $b1 $b2 2>/dev/null || true; wait $b1 $b2 2>/dev/null || true
fi

# median of the runs of one command: prints "SECONDS KIB"; a run that fails stops the bench.
measure() {
	local i
	: >"$t/times"
	for ((i = 0; i < runs; i++)); do
		if [[ -n ${COLD:-} ]]; then
			export PERFTOP_CACHE_DIR=$(mktemp -d "$t/cold.XXXXXX")
			[[ $COLD == boot ]] || cp "$t/warm/kallsyms" "$PERFTOP_CACHE_DIR/"
		fi
		local t0 t1
		t0=$(date +%s%N)
		if ! /usr/bin/time -f '%M' -o "$t/time.out" "$@" >/dev/null 2>"$t/err"; then
			echo "failed: $* ($(tail -1 "$t/err"))" >&2
			exit 1
		fi
		t1=$(date +%s%N)
		echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }') $(tail -1 "$t/time.out")" >>"$t/times"
		if [[ -n ${COLD:-} ]]; then
			sleep 0.2; while pgrep -f eu-elfcompress >/dev/null; do sleep 0.1; done
			rm -rf "$PERFTOP_CACHE_DIR"
		fi
	done
	echo "$(cut -d' ' -f1 "$t/times" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')" \
		"$(cut -d' ' -f2 "$t/times" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')"
}

export PERFTOP_CACHE_DIR=$t/warm
row() {  # recording, perftop's and perf's "s KiB"
	awk -v w="$1" -v s="$2" -v pe="$3" -v pm="$4" -v re="$5" -v rm="$6" 'BEGIN {
		printf "| %-38s | %6s | %7.3f | %7.3f | %6.1fx | %8.1f | %8.1f | %6.2fx |\n",
			w, s, pe, re, (pe > 0 ? re / pe : 0), pm / 1024, rm / 1024, (pm > 0 ? rm / pm : 0) }'
}
printf '| %-38s | %6s | %7s | %7s | %7s | %8s | %8s | %7s |\n' recording size "perftop s" "perf s" speed \
	"perftop MiB" "perf MiB" memory
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' ---------------------------------------- -------- --------- --------- --------- \
	---------- ---------- ---------
for f in ${FILES:-fp5 a30 dwarf5 a50 pyxz40}; do
	case $f in
	fp5) what="5 s fp, one program" ;;
	a30) what="30 s -a fp" ;;
	dwarf5) what="5 s DWARF" ;;
	a50) what="50 s -a 4 kHz, busy mix" ;;
	pyxz40) what="40 s -a 4 kHz, Python beside xz" ;;
	esac
	size=$(du -h "$t/$f.data" | cut -f1)
	read -r re rm < <(measure perf report -i "$t/$f.data" --stdio)
	"$pt" -i "$t/$f.data" -b >/dev/null 2>&1  # fills the warm cache
	read -r pe pm < <(measure "$pt" -i "$t/$f.data" -b)
	row "$what, warm" "$size" "$pe" "$pm" "$re" "$rm"
	read -r pe pm < <(COLD=1 measure "$pt" -i "$t/$f.data" -b)
	row "$what, cold" "$size" "$pe" "$pm" "$re" "$rm"
	read -r pe pm < <(COLD=boot measure "$pt" -i "$t/$f.data" -b)
	row "$what, first after boot" "$size" "$pe" "$pm" "$re" "$rm"
	if [[ $f == dwarf5 ]]; then  # inline frames and source lines on
		"$pt" -i "$t/$f.data" -b -s dso,sym,srcline >/dev/null 2>&1
		read -r pe pm < <(measure "$pt" -i "$t/$f.data" -b -s dso,sym,srcline)
		row "$what, srcline, warm" "$size" "$pe" "$pm" "$re" "$rm"
		read -r pe pm < <(COLD=1 measure "$pt" -i "$t/$f.data" -b -s dso,sym,srcline)
		row "$what, srcline, cold" "$size" "$pe" "$pm" "$re" "$rm"
	fi
done
echo "(median of $runs runs; speed and memory are perf report / perftop: above 1x, perftop is ahead;"
echo " perf report with its defaults, inline frames on)"
