#!/bin/bash
# perf, as the tests run it. Two defences against perf 6.1 itself:
# - each test gets a build-id cache of its own (PERFTOP_PERF_BUILDID_DIR): perf fails an assertion
#   (util/build-id.c) when perf processes running at once share one, and ctest runs tests in parallel;
# - that assertion still fires now and then under load (seen with perf report, with a "stack smashing
#   detected" abort): a run that dies of it is run again, up to 3 times. Its output is held back until
#   the run is known good, so a caller never sees half of a crashed run.
#   Found since: the usual cause was a recording, not the cache. While any event on the machine asks
#   for build-ids in MMAP2 (attr.build_id; perftop did until --buildid-mmap became opt-in), the
#   kernel marks perf record's MMAP2 records as build-id ones over their inode payload, and perf
#   report aborts on those. perftop no longer asks by default, so this should be rare now; the retry
#   stays for perf processes outside the suite that ask (perf record --buildid-mmap).
# Everything else is passed to the real perf unchanged; a stream to standard output (-o -) is passed
# straight through.
self_dir=$(cd "$(dirname "$0")" && pwd)
real=$(PATH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -vx "$self_dir" | paste -sd: -) command -v perf)
[ -n "$real" ] || { echo "perf: not installed" >&2; exit 127; }
args=("$@")
if [ -n "${PERFTOP_PERF_BUILDID_DIR:-}" ]; then
	mkdir -p "$PERFTOP_PERF_BUILDID_DIR"
	args=(--buildid-dir "$PERFTOP_PERF_BUILDID_DIR" "$@")
fi
# A stream (-o -) is read as it is written: passed through, not held back.
prev=
for a in "$@"; do
	[ "$prev" = -o ] && [ "$a" = - ] && exec "$real" "${args[@]}"
	prev=$a
done
tmp=$(mktemp -d) || exec "$real" "${args[@]}"
trap 'rm -rf "$tmp"' EXIT
for attempt in 1 2 3; do
	"$real" "${args[@]}" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 0 ] && grep -q 'assertion failed at util/build-id.c' "$tmp/err" && [ "$attempt" -lt 3 ]; then
		sleep 0.2
		continue
	fi
	break
done
cat "$tmp/out"
cat "$tmp/err" >&2
exit "$rc"
