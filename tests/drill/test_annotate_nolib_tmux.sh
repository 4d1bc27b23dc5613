#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perftop without libcapstone and libdebuginfod, which it loads with dlopen on first use
# (src/symbolize/lazylib.c) instead of linking: in a private mount namespace, /dev/null is bound over
# both libraries' files, so that dlopen fails.
#   - the annotate view of leaf_a in assembly mode says "disassembly unavailable: <dlerror>" on one
#     line where the code would be, and perftop goes on (Esc, q exits 0);
#   - the debuginfod fetch child exits 1 with "debuginfod unavailable: <dlerror>" on stderr.
# Exit 77 (skip) when tmux is missing, mount namespaces are refused (not root), CMake found no
# library file, or perf_event_open is refused.
set -u
pt=${1:?usage: test_annotate_nolib_tmux.sh PERFTOP FIXTURE CAPSTONE_LIB DEBUGINFOD_LIB}
fixture=${2:?}
cs=$(readlink -f "${3:?}")
di=$(readlink -f "${4:?}")
dso=$(basename "$fixture")
. "$(dirname "$0")/../lib/tmuxlib.sh" nolib
unshare -m true 2>/dev/null || { echo "SKIP: no mount namespace (unshare -m)"; exit 77; }
[ -f "$cs" ] && [ -f "$di" ] || { echo "SKIP: library files not found: '$cs' '$di'"; exit 77; }
hide="mount --bind /dev/null '$cs' && mount --bind /dev/null '$di'"

# The fetch child: fails like any other fetch (exit 1), the reason on stderr.
out=$(DEBUGINFOD_URLS=http://127.0.0.1:9 unshare -m sh -c "$hide && exec '$pt' --debuginfod-fetch 00112233445566778899aabbccddeeff00112233" 2>&1)
rc=$?
[ $rc = 1 ] || fail "the fetch child exited $rc without libdebuginfod: $out"
echo "$out" | grep -Eq '^perftop: debuginfod unavailable: .*libdebuginfod' ||
	fail "the fetch child did not say why: $out"
ok

tm new-session -d -s t -x 120 -y 40 \
	"unshare -m sh -c \"$hide && exec '$pt' -d 0.5 -- '$fixture' 60\"; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for 'leaf_a' || fail "no leaf_a row"
sleep 1
tm send-keys -t t Space
wait_for 'PAUSED' 30 || fail "no PAUSED after Space"
cursor_to leaf_a
tm send-keys -t t a
wait_for "^ leaf_a +$dso +Self .*source" || fail "no annotate view of leaf_a after a"
tm send-keys -t t s
wait_for "^ leaf_a .*assembly" || fail "no assembly mode after s"
wait_for '^ +disassembly unavailable: .*libcapstone' || fail "no 'disassembly unavailable' line"
[ "$(screen | grep -c 'disassembly unavailable')" = 1 ] || fail "the reason is not on one line"
screen | grep -Eq '[0-9a-f]+:  (mov|add|ret)' && fail "instructions shown without capstone"
ok

tm send-keys -t t Escape
wait_for 'Self%.*Total%.*Symbol' || fail "Esc did not go back to the table"
tm send-keys -t t q
wait_for 'PERFTOP-EXITED:0' || fail "q in the table did not exit 0"
ok
echo "$checks passed, 0 failed"
