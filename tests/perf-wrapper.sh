#!/bin/sh
# perf, as the tests run it: each test gets a build-id cache of its own (PERFTOP_PERF_BUILDID_DIR),
# because perf 6.1 fails an assertion (util/build-id.c) when several perf processes share one, and
# ctest runs tests in parallel. Everything else is passed to the real perf unchanged.
self_dir=$(cd "$(dirname "$0")" && pwd)
real=$(PATH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -vx "$self_dir" | paste -sd: -) command -v perf)
[ -n "$real" ] || { echo "perf: not installed" >&2; exit 127; }
if [ -n "${PERFTOP_PERF_BUILDID_DIR:-}" ]; then
	mkdir -p "$PERFTOP_PERF_BUILDID_DIR"
	exec "$real" --buildid-dir "$PERFTOP_PERF_BUILDID_DIR" "$@"
fi
exec "$real" "$@"
