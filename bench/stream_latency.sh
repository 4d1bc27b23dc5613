#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Stream latency: how soon `perftop -i - -b -d 1 --json` prints each second's snapshot of a stream
# it follows, with two producers: `perftop -b -d 1 -o - -- spinner` (writes as it samples) and
# `perf record -a -g -o -` (writes in bursts of its ring buffers). A snapshot's lag is its arrival
# (wall time since the producer started) less the stream time its window ends at (counted from the
# stream's first sample, which comes after the start: the lag is an upper bound). ROUNDS runs of
# SECONDS each per producer; prints every lag, and per producer the median and the largest.
# Not a test (tests/record/test_record_stream.py checks that the stream is followed at all): the
# figures depend on the machine and its load.
#
# usage: bench/stream_latency.sh [PERFTOP] [ROUNDS] [SECONDS]     (defaults: build/perftop 3 8)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
pt=${1:-$here/build/perftop}
rounds=${2:-3}
secs=${3:-8}
spinner=$here/build/fixtures/spinner
[ -x "$pt" ] || { echo "no perftop at $pt (make build)"; exit 2; }
[ -x "$spinner" ] || { echo "no $spinner (cmake --build build --target spinner)"; exit 2; }
command -v perf >/dev/null || { echo "bench/stream_latency.sh needs perf"; exit 2; }

# lags PRODUCER...: one line of the lags (s) of every snapshot of one run
lags() {
	python3 - "$pt" "$@" <<'EOF'
import json, subprocess, sys, time
pt, producer = sys.argv[1], sys.argv[2:]
t0 = time.monotonic()
prod = subprocess.Popen(producer, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
cons = subprocess.Popen([pt, "-i", "-", "-b", "-d", "1", "--json"], stdin=prod.stdout,
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
prod.stdout.close()
out = [time.monotonic() - t0 - json.loads(l)["time"] for l in cons.stdout if l.startswith("{")]
cons.wait()
prod.wait()
# the last snapshot is the stream's end (a partial window), not a second's
print(" ".join(f"{x:.3f}" for x in out[:-1]))
EOF
}

summary() {  # NAME, then lags on stdin (any spacing)
	tr ' ' '\n' | grep . | sort -g | awk -v name="$1" '{a[NR] = $1}
		END {printf "%-40s %3d snapshots: median lag %.2f s, largest %.2f s\n", name, NR,
		     (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2, a[NR]}'
}

echo "stream latency, $rounds rounds of $secs s; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
all_pt=""; all_perf=""
for r in $(seq "$rounds"); do
	l=$(lags "$pt" -b -d 1 -n "$secs" -o - -- "$spinner" "$((secs + 5))")
	echo "round $r perftop -o -:         $l"; all_pt="$all_pt $l"
	l=$(lags perf record -q -a -g -o - -- sleep "$secs")
	echo "round $r perf record -a -g -o -: $l"; all_perf="$all_perf $l"
done
echo "$all_pt" | summary "perftop -o - | perftop -i -"
echo "$all_perf" | summary "perf record -a -g -o - | perftop -i -"
