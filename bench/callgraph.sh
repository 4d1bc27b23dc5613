#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What each call graph costs per sample: frame pointers alone (--call-graph fp, what perf record -g
# samples), frame pointers with their first frames from CFI (fp+cfi, the default: the user
# registers BP, SP, IP and 256 bytes of the top of the user stack with each sample), and DWARF
# unwinding (dwarf: all the user registers and 8 KiB of stack). Not a test: machines here are shared
# and noisy.
#
# The workload: libc_leaves (tests/unwind/libc_leaves.c: its time in libc's strlen and memcpy,
# which have no frame pointers) on every vCPU. Per round and per call graph, in turn:
#   - perftop -a -F 4000 -b -n 1 -d SECONDS: its CPU time (utime + stime, GNU time) and samples;
#   - perftop -a -F 4000 -b -n 1 -d 2 -o FILE: the recording's bytes per sample (the rings' bytes
#     as the kernel wrote them, the side-band included: a few per cent).
# Printed: per round the figures, then the medians over ROUNDS rounds, the CPU per 1000 samples and
# the ratios to plain frame pointers. Where perftop sees the chains complete: the share of libc_leaves'
# samples with scan_a, scan_b, copy_a or copy_b on their chain (100% when the callers are all found).
#
# usage: bench/callgraph.sh [PERFTOP] [ROUNDS] [SECONDS]     (defaults: build/perftop, 5, 10;
#        MODES="fp fp+cfi,512 fp+cfi dwarf": the call graphs, the first the one ratios are to)
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
pt=${1:-$here/build/perftop}
rounds=${2:-5}
secs=${3:-10}
leaves=$here/build/fixtures/libc_leaves
[[ -x "$pt" ]] || { echo "no perftop at $pt (make build)"; exit 2; }
[[ -x "$leaves" ]] || { echo "no $leaves (make build)"; exit 2; }
[[ -x /usr/bin/time ]] || { echo "bench/callgraph.sh needs /usr/bin/time (package time)"; exit 2; }
tmpd=$(mktemp -d)
workers=()
cleanup() { for w in "${workers[@]}"; do kill "$w" 2>/dev/null; done; rm -rf "$tmpd"; }
trap cleanup EXIT
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
for ((c = 0; c < $(nproc); c++)); do
	"$leaves" 100000 /dev/null & workers+=($!)
done
sleep 1
modes=${MODES:-fp fp+cfi dwarf}
summary() { # json -> "samples callers%"
	python3 - "$1" <<'PY'
import json, sys
snaps = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
s = snaps[-1]
own = sum(r["self"] for r in s["rows"] if r.get("comm") == "libc_leaves")
callers = sum(r["total"] for r in s["rows"] if r.get("comm") == "libc_leaves" and
              r["sym"] in ("scan_a", "scan_b", "copy_a", "copy_b"))
print(s["samples"], f"{100 * callers / own:.1f}" if own else "nan")
PY
}
echo "round mode cpu_s samples bytes_per_sample callers_found%"
for ((i = 1; i <= rounds; i++)); do
	for m in $modes; do
		/usr/bin/time -f "%U %S" -o "$tmpd/time" "$pt" --call-graph "$m" -F 4000 -a -b -n 1 \
			-d "$secs" --json -s comm,sym >"$tmpd/out.json" 2>/dev/null
		cpu=$(awk '{print $1 + $2}' "$tmpd/time")
		read -r samples found < <(summary "$tmpd/out.json")
		rm -f "$tmpd/rec.data"
		"$pt" --call-graph "$m" -F 4000 -a -b -n 1 -d 2 --json -o "$tmpd/rec.data" \
			>"$tmpd/rec.json" 2>/dev/null
		read -r rsamples _ < <(summary "$tmpd/rec.json")
		bytes=$(echo "$(stat -c %s "$tmpd/rec.data") / $rsamples" | bc)
		echo "$i $m $cpu $samples $bytes $found" | tee -a "$tmpd/all"
	done
done
echo
first=${modes%% *}
printf '%-12s %10s %10s %16s %18s %14s %14s\n' mode "cpu s" samples "cpu ms/1k smp" "bytes/sample" "callers %" "cpu vs $first"
fpcpu=$(awk -v m="$first" '$2==m{print $3}' "$tmpd/all" | median)
for m in $modes; do
	cpu=$(awk -v m="$m" '$2==m{print $3}' "$tmpd/all" | median)
	smp=$(awk -v m="$m" '$2==m{print $4}' "$tmpd/all" | median)
	per=$(awk -v m="$m" '$2==m{print 1e6 * $3 / $4}' "$tmpd/all" | median)
	byt=$(awk -v m="$m" '$2==m{print $5}' "$tmpd/all" | median)
	fnd=$(awk -v m="$m" '$2==m{print $6}' "$tmpd/all" | median)
	printf '%-12s %10.2f %10d %16.3f %18d %14.1f %14.2f\n' "$m" "$cpu" "$smp" "$per" "$byt" "$fnd" \
		"$(echo "$cpu / $fpcpu" | bc -l)"
done
