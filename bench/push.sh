#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What --push costs: `perftop -a -F FREQ -b -q -n SECONDS` with and without `--push` to a stand-in
# of Pyroscope's /ingest on 127.0.0.1 (tests/push/ingest_server.py, accepting everything), the two
# taking turns to go first, ROUNDS rounds, on the same workload as bench/run.sh (a Python loop and
# dd, one per vCPU). For each: perftop's CPU time (user + system, all threads) and peak RSS, from
# GNU time; for the pushing one also the requests and bytes the server took. Push interval INTERVAL
# (1 s by default, ten times perftop's default, so the encoding and sending show). Prints the
# medians and the ratios.
# Not a test: the machine is shared and noisy.
#
# usage: [FREQ=4000] [INTERVAL=1] bench/push.sh [PERFTOP] [ROUNDS] [SECONDS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
pt=${1:-$here/../build/perftop}
rounds=${2:-3}
secs=${3:-10}
freq=${FREQ:-4000}
interval=${INTERVAL:-1}
[ -x "$pt" ] || { echo "no perftop at $pt (make build)"; exit 2; }
[ -x /usr/bin/time ] || { echo "GNU time is not installed"; exit 2; }
tmpd=$(mktemp -d)
workers=()
cleanup() { for w in "${workers[@]}"; do kill "$w" 2>/dev/null; done; rm -rf "$tmpd"; }
trap cleanup EXIT

python3 -c "import time
while True: sum(i*i for i in range(10000))" & workers+=($!)
dd if=/dev/zero of=/dev/null bs=4k 2>/dev/null & workers+=($!)

# The server, for the whole run: its port in $tmpd/port, a line per request in $tmpd/log.
PYTHONPATH=$here/../tests/push python3 -c "
import sys, time
from ingest_server import IngestServer
srv = IngestServer(statuses=(200,), max_requests=1000000, lifetime=86400)
open('$tmpd/port', 'w').write(str(srv.port))
seen = 0
while True:
    time.sleep(0.2)
    new = srv.requests[seen:]
    with open('$tmpd/log', 'a') as f:
        for r in new:
            f.write(f'{len(r.body)}\n')
    seen += len(new)
" & workers+=($!)
for _ in $(seq 50); do [ -s "$tmpd/port" ] && break; sleep 0.1; done
port=$(cat "$tmpd/port")
sleep 1

# run NAME ARGS...: prints "cpu_seconds peak_rss_kib"
run() {
	local name=$1; shift
	/usr/bin/time -f "%U %S %M" -o "$tmpd/time" "$pt" -a -F "$freq" -b -q -n "$secs" -d 1 "$@" \
		2> "$tmpd/err.$name" || { echo "$name failed: $(cat "$tmpd/err.$name")" >&2; }
	awk '{ printf "%.3f %s\n", $1 + $2, $3 }' "$tmpd/time"
}

plain_cpu=(); plain_rss=(); push_cpu=(); push_rss=()
: > "$tmpd/log"
for r in $(seq "$rounds"); do
	for which in $( [ $((r % 2)) = 1 ] && echo "plain push" || echo "push plain" ); do
		if [ "$which" = plain ]; then
			read -r c m < <(run plain)
			plain_cpu+=("$c"); plain_rss+=("$m")
		else
			read -r c m < <(run push --push "http://127.0.0.1:$port" --push-interval "$interval")
			push_cpu+=("$c"); push_rss+=("$m")
		fi
		echo "round $r $which: cpu ${c}s, peak rss ${m} KiB"
	done
done
sleep 0.5
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
pc=$(median "${plain_cpu[@]}"); pr=$(median "${plain_rss[@]}")
qc=$(median "${push_cpu[@]}"); qr=$(median "${push_rss[@]}")
reqs=$(wc -l < "$tmpd/log"); bytes=$(awk '{ s += $1 } END { print s + 0 }' "$tmpd/log")
echo "perftop -a -F $freq, $secs s, push every $interval s, medians of $rounds:"
echo "  without push: cpu ${pc}s  peak rss ${pr} KiB"
echo "  with push:    cpu ${qc}s  peak rss ${qr} KiB  ($reqs requests, $((bytes / (reqs > 0 ? reqs : 1))) bytes each on average)"
echo "  ratio cpu $(echo "$qc / $pc" | bc -l | cut -c1-5)  rss $(echo "$qr / $pr" | bc -l | cut -c1-5)"
