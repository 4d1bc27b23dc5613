#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What naming a stripped Go binary from its .gopclntab costs. Not a test: machines here are shared.
#  1. Profiling: gohot (tests/runtimes/gohot, built by the build tree) runs SECONDS as a process of
#     its own, and perftop -p follows it for the same time (batch, --inline, -s dso,sym,srcline); its
#     own CPU (utime + stime) and wall time, the stripped build against the unstripped one (whose
#     names come from .symtab), taking turns, medians of ROUNDS.
#  2. A replay of one recording of the stripped gohot with either build at its path (the same
#     samples), -s dso,sym,srcline --inline: wall time, medians of ROUNDS.
#  3. The table of a big Go binary: the go tool itself, stripped (Debian ships it without .symtab and
#     DWARF; strip --strip-all where it has them), and the two gohot builds for scale: the dso
#     layer's time to open each and load its functions, and N random .text addresses looked up with
#     inline frames and lines, cold and warm (bench/gopclnbench.c; medians of ROUNDS fresh dso sets).
#   usage: bench/runtime_go.sh [BUILD_DIR] [ROUNDS] [SECONDS]     (N=20000 addresses)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
b=$(cd "${1:-$here/build}" && pwd)
rounds=${2:-3}
secs=${3:-5}
n=${N:-20000}
pt=$b/perftop
fx=$b/fixtures/gohot
[ -x "$pt" ] || { echo "no perftop in $b (make build)"; exit 2; }
[ -x "$fx/gohot_stripped" ] || { echo "no $fx/gohot_stripped (go was not found at configure time)"; exit 2; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
now() { date +%s.%N; }
tck=$(getconf CLK_TCK)

echo "== 1. perftop -p on gohot for ${secs} s (medians of $rounds)"
for ((r = 0; r < rounds; r++)); do
	for kind in stripped full; do
		exe=$fx/gohot; [ $kind = stripped ] && exe=$fx/gohot_stripped
		"$exe" $((secs + 2)) >/dev/null &
		w=$!
		sleep 0.3
		t0=$(now)
		"$pt" -b --json -q --inline -s dso,sym,srcline -d "$secs" -n 1 -p "$w" >/dev/null 2>&1 &
		p=$!
		# its CPU just before it exits: sampled every 0.1 s from /proc (the last read wins)
		cpu=0
		while kill -0 "$p" 2>/dev/null; do
			c=$(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null) && cpu=$c
			sleep 0.1
		done
		wait "$p" || true
		t1=$(now)
		kill "$w" 2>/dev/null; wait "$w" 2>/dev/null || true
		echo "$cpu" | awk -v t="$tck" '{print $1 / t}' >>"$t/cpu-$kind"
		echo "$t1 - $t0" | bc -l >>"$t/wall-$kind"
	done
done
for kind in stripped full; do
	printf '%-9s CPU %.3f s, wall %.2f s\n' "$kind" "$(median <"$t/cpu-$kind")" "$(median <"$t/wall-$kind")"
done

echo "== 2. replay of one recording of the stripped gohot, either build at its path (medians of $rounds)"
cp "$fx/gohot_stripped" "$t/gohot"
"$pt" -b --json -q -n 0 -o "$t/rec.data" -- "$t/gohot" "$secs" >/dev/null 2>&1
for ((r = 0; r < rounds; r++)); do
	for kind in stripped full; do
		src=$fx/gohot; [ $kind = stripped ] && src=$fx/gohot_stripped
		cp "$src" "$t/gohot"
		t0=$(now)
		PERFTOP_CACHE_DIR=$t/cache-$r-$kind "$pt" -i "$t/rec.data" -b --json -s dso,sym,srcline --inline >/dev/null 2>&1
		t1=$(now)
		echo "$t1 - $t0" | bc -l >>"$t/replay-$kind"
	done
done
for kind in stripped full; do
	printf '%-9s %.3f s\n' "$kind" "$(median <"$t/replay-$kind")"
done

echo "== 3. tables: load and lookups ($n random .text addresses, medians of $rounds)"
gotool=$(readlink -f "$(command -v go)")
[ -x "$gotool" ] || { echo "no go tool found"; exit 2; }
strip --strip-all -o "$t/go-stripped" "$gotool"
gcc -O2 -std=c11 -D_GNU_SOURCE -I"$here/src" -o "$t/gopclnbench" "$here/bench/gopclnbench.c" \
	"$b/src/symbolize/libperftop_symbolize.a" "$b/src/util/libperftop_util.a" \
	$(pkg-config --libs libdw libelf libunwind-generic) -ldl /usr/lib/x86_64-linux-gnu/libiberty.a
text_range() {  # file offsets of .text ("[ 1]": one field, as "[15]" is)
	readelf -SW "$1" | sed 's/\[ */[/' | awk '$2==".text"{print $5, $6}' |
		{ read -r off size; printf '%x-%x\n' $((16#$off)) $((16#$off + 16#$size)); }
}
args=()
for f in "$t/go-stripped" "$fx/gohot" "$fx/gohot_stripped"; do args+=("$f" "$(text_range "$f")"); done
PERFTOP_CACHE_DIR=$t/bench-cache "$t/gopclnbench" "$rounds" "$n" "${args[@]}"
