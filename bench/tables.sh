#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A/B of the model's hot tables (bench/tablebench.c) between two trees' builds, in the same run:
# tablebench built against each tree's libperftop_model.a and libperftop_util.a, the two run
# alternately ROUNDS times (5), and the median CPU seconds of profile_add, calltree_add and
# annotate_add printed,
# with their spread (min-max: under load, the min is the least disturbed run).
#   usage: bench/tables.sh TREE_A TREE_B [SAMPLES]   (each tree built in TREE/build)
set -eu
[[ $# -ge 2 ]] || { sed -n 2,5p "$0"; exit 2; }
src=$(cd "$(dirname "$0")" && pwd)/tablebench.c
rounds=${ROUNDS:-5}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for s in a b; do
	tree=$([[ $s == a ]] && echo "$1" || echo "$2")
	${CC:-cc} -O2 -std=c11 -D_GNU_SOURCE -I"$tree/src" "$src" "$tree/build/src/model/libperftop_model.a" \
		"$tree/build/src/util/libperftop_util.a" -lm -lpthread -o "$tmp/tb-$s"
done
for ((r = 0; r < rounds; r++)); do
	for s in a b; do "$tmp/tb-$s" ${3:-} >>"$tmp/$s"; done
done
med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { sort -g | sed -n '1p;$p' | paste -sd-; }
printf '%-3s' ""
for n in profile calltree annotate; do printf ' %10s %13s' "$n s" "(spread)"; done
echo
for s in a b; do
	printf '%-3s' "$s"
	for f in 2 7 12; do
		printf ' %10s %13s' "$(awk -v f=$f '{ print $f }' "$tmp/$s" | med)" \
			"$(awk -v f=$f '{ print $f }' "$tmp/$s" | range)"
	done
	echo
done
