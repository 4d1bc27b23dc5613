#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The view's w key, driven through tmux as a person would, on a live session of diff_work: w shows
# the prompt with its default name (perftop-YYYYmmdd-HHMMSS.pb.gz); the name edited to FILE.pb.gz,
# Enter writes the window on screen and the bottom line says so; with the filter \ work_b in force,
# a .folded export holds only stacks through work_b; then the pprof export is read by pprof's Go
# package (pprofcheck.go: Parse, CheckValid) and holds the hot functions; q exits 0.
#
# usage: test_export_tui.sh PERFTOP FIXTURE_DIR   (exit 77 when tmux or go is missing, or the
# kernel refuses the events)
set -u
pt=${1:?usage: test_export_tui.sh PERFTOP FIXTURE_DIR}
fixtures=${2:?}
here=$(cd "$(dirname "$0")" && pwd)
command -v go >/dev/null || { echo "SKIP: go is not installed (golang-go, the Makefile's PACKAGES)"; exit 77; }
# tm, screen, fail, wait_for, wait_gone, write_to: tests/lib/tmuxlib.sh (a skip without tmux or the events)
. "$here/../lib/tmuxlib.sh" export-tui
d=$(mktemp -d /tmp/perftop-export-tui-XXXXXX)
cleanup() { tm kill-server 2>/dev/null; rm -rf "$d"; }
trap cleanup EXIT

tm new-session -d -s t -x 160 -y 40 \
	"$pt -d 0.5 -e cpu-clock -- $fixtures/diff_work 30 4 2 1 1; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for 'work_a +diff_work' || fail "no work_a row"
wait_for 'work_d +diff_work' || fail "no work_d row"
sleep 1.2 # past the view's first, faster refreshes: the window on screen is a whole -d 0.5 one
write_to "$d/win.pb.gz"
[ -s "$d/win.pb.gz" ] || fail "no $d/win.pb.gz"

tm send-keys -t t '\' && tm send-keys -t t -l work_b && tm send-keys -t t Enter
# The filter's effect on screen, not its prompt: the mode line names it, work_a's row (no stack of
# work_a passes through work_b) leaves the table and work_b's stays.
wait_for 'filter: work_b ' || fail "the mode line does not name the filter work_b"
wait_gone 'work_a +diff_work' || fail "work_a is still in the table under the filter work_b"
wait_for 'work_b +diff_work' || fail "work_b left the table under its own filter"
sleep 1 # a refresh with the filter on: the window written next is a whole one
write_to "$d/filtered.folded"
lines=$(wc -l < "$d/filtered.folded")
[ "$lines" -ge 1 ] || fail "the filtered export is empty"
grep -v 'work_b' "$d/filtered.folded" && fail "a stack without work_b in the filtered export"
echo "filtered folded export: $lines stacks, all through work_b"

tm send-keys -t t q
wait_for 'PERFTOP-EXITED:0' || fail "perftop did not exit 0"

export GOPATH=/usr/share/gocode GO111MODULE=off GOCACHE=$d/gocache HOME=$d
out=$(go run "$here/pprofcheck.go" "$d/win.pb.gz") || fail "pprofcheck: $out"
echo "$out" | python3 -c '
import json, sys
r = list(json.load(sys.stdin).values())[0]
if r.get("error"):
    sys.exit("pprof rejects the window export: " + r["error"])
flat = {f: v[0] for f, v in r["flat"].items()}
print("window export: %d samples, flat %s" % (r["totals"][0], {f: flat.get(f, 0) for f in ("work_a", "work_b")}))
if r["totals"][0] < 20 or flat.get("work_a", 0) < r["totals"][0] // 5:
    sys.exit("the window export does not hold the hot functions")
' || fail "the pprof window export"
echo "ok"
