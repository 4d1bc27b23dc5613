#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perf, as the tests run it: the real perf with a build-id cache of the test's own
# (PERFTOP_PERF_BUILDID_DIR, made per test by CMakeLists.txt) instead of the shared ~/.debug, since
# perf 6.1 fails an assertion (util/build-id.c) when perf processes running at once share one and
# ctest runs tests in parallel. Everything else is passed to the real perf unchanged, and a run
# that fails is the caller's to see: nothing is run again.
#
# The same assertion is what perf 6.1 does with MMAP2 records that are marked as build-id ones over
# their inode payload, which the kernel writes into every tool's recording while any event on the
# machine asks for build-ids (attr.build_id). The suite avoids that by how it records: perftop asks
# only with --buildid-mmap (test_buildid_mmap checks that it is off by default), that test runs
# serially, and the tests' own perf record runs never ask.
#
# perf record runs with --no-bpf-event: perf 6.1 waits up to a second at exit for the thread that
# watches for BPF programs being loaded (its poll's timeout), ~0.8 s of every recording, and the
# records it adds (the kernel's BPF programs, none of them under a test's workload) are read by no
# test from a perf recording (test_replay_ksymbol writes its own). PERFTOP_PERF_BPF_EVENTS=1 keeps
# them.
self_dir=$(cd "$(dirname "$0")" && pwd)
real=$(PATH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -vx "$self_dir" | paste -sd: -) command -v perf)
[ -n "$real" ] || { echo "perf: not installed" >&2; exit 127; }
if [ "${1:-}" = record ] && [ -z "${PERFTOP_PERF_BPF_EVENTS:-}" ]; then
	shift
	set -- record --no-bpf-event "$@"
fi
if [ -n "${PERFTOP_PERF_BUILDID_DIR:-}" ]; then
	mkdir -p "$PERFTOP_PERF_BUILDID_DIR"
	exec "$real" --buildid-dir "$PERFTOP_PERF_BUILDID_DIR" "$@"
fi
exec "$real" "$@"
