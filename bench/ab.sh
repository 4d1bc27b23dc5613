#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A/B of two perftop builds on the same command line, in the same run: the two alternate, ROUNDS
# rounds (5 by default), and the medians of wall time, CPU time (user+sys, all threads) and peak RSS
# are printed, with each one's CPU spread. For changes inside perftop (a table, a pass) where perf
# is not the yardstick; the machines here are shared (and virtual: no hardware counters), so CPU
# time is the steadier figure, and only the same-run comparison counts.
#   usage: bench/ab.sh PERFTOP_A PERFTOP_B ARGS...   e.g. bench/ab.sh base/perftop build/perftop -i F -b
set -eu
[[ $# -ge 3 ]] || { sed -n 2,7p "$0"; exit 2; }
a=$1 b=$2; shift 2
rounds=${ROUNDS:-5}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
one() {  # binary args -> "wall cpu kib"
	local bin=$1; shift
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/t" "$bin" "$@" >/dev/null 2>&1 </dev/null || true
	awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$tmp/t"
}
"$a" "$@" >/dev/null 2>&1 </dev/null || true  # warm caches for both
"$b" "$@" >/dev/null 2>&1 </dev/null || true
for ((r = 0; r < rounds; r++)); do
	one "$a" "$@" >>"$tmp/a"
	one "$b" "$@" >>"$tmp/b"
done
med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { sort -g | sed -n '1p;$p' | paste -sd-; }
printf '%-3s %7s %7s %9s  %s\n' "" "wall s" "cpu s" "peak KiB" "cpu spread"
for s in a b; do
	printf '%-3s %7s %7s %9s  %s\n' "$s" "$(cut -d' ' -f1 "$tmp/$s" | med)" \
		"$(cut -d' ' -f2 "$tmp/$s" | med)" "$(cut -d' ' -f3 "$tmp/$s" | med)" \
		"$(cut -d' ' -f2 "$tmp/$s" | range)"
done
