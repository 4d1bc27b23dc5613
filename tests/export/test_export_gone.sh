#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The view's w key once the sampled process is gone: a copy of diff_work runs for 2 s under the
# view (-d 1 -z: each refresh shows one window, the one w writes; in the default decay mode the
# table also holds the earlier windows, faded), the display is paused while its rows are on
# screen, the process exits and its binary is deleted, two more refreshes pass (sampling goes on
# while paused), then the paused screen is read and w writes the paused window as .folded.
# Everything the export needs must have been taken when the samples came:
# its stacks name diff_work's functions (not bare addresses), and the samples of each of the
# binary's functions on the paused screen are the export's stacks ending in it, both ways (a row
# the export lacks, or a leaf of the binary the screen does not show, fails).
#
# usage: test_export_gone.sh PERFTOP FIXTURE_DIR   (exit 77 when tmux is missing, or the kernel
# refuses the events)
set -u
pt=${1:?usage: test_export_gone.sh PERFTOP FIXTURE_DIR}
fixtures=${2:?}
here=$(cd "$(dirname "$0")" && pwd)
# tm, screen, fail, wait_for, write_to: tests/lib/tmuxlib.sh (a skip without tmux or the events)
. "$here/../lib/tmuxlib.sh" export-gone
d=$(mktemp -d /tmp/perftop-export-gone-XXXXXX)
cleanup() { tm kill-server 2>/dev/null; rm -rf "$d"; }
trap cleanup EXIT
cp "$fixtures/diff_work" "$d/gone_work"
tm new-session -d -s t -x 160 -y 50 \
	"$pt -d 1 -z -e cpu-clock -- sh -c '$d/gone_work 2 3 1 0 0; rm -f $d/gone_work; sleep 60'; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for 'work_b +gone_work' || fail "no work_b row"
tm send-keys -t t Space
wait_for '^ PAUSED ' || fail "Space did not pause the display"
for _ in $(seq 100); do [ -e "$d/gone_work" ] || break; sleep 0.1; done
[ -e "$d/gone_work" ] && fail "gone_work did not end within 10 s"
sleep 2.2 # two refreshes of -d 1 after the exit: whatever a refresh lets go of has gone
screen > "$d/paused.txt"
write_to "$d/gone.folded"
tm send-keys -t t q
wait_for 'PERFTOP-EXITED:0' || fail "perftop did not exit 0"

python3 - "$d/paused.txt" "$d/gone.folded" <<'PY' || fail "the export of the gone process"
import re, sys
screen = open(sys.argv[1]).read().splitlines()
# Rows with samples of the deleted binary, as the paused view showed them.
rows, last = {}, None
for line in screen:
    m = re.match(r'\s*[\d.]+%\s+[\d.]+%\s+(\d+)\s+(\S+)\s+(\S+)\s*$', line)
    if m:
        last = int(m.group(1))
        if m.group(3) == 'gone_work' and last > 0:
            rows[m.group(2)] = last
if last != 0:
    sys.exit("the paused screen does not reach the rows without samples: rows are missing")
if 'work_a' not in rows or 'work_b' not in rows:
    sys.exit("the paused screen lacks work_a or work_b: %s" % rows)
leaves, names = {}, set()
for line in open(sys.argv[2]):
    stack, count = line.rsplit(' ', 1)
    frames = stack.split(';')
    if frames[0] != 'gone_work':
        continue  # the shell's and its children's
    names.update(frames)
    leaves[frames[-1]] = leaves.get(frames[-1], 0) + int(count)
if 'main' not in names:
    sys.exit("no stack names diff_work's main")
mine = {k: v for k, v in leaves.items() if k in rows or k.startswith('work_')}
print("screen:", rows, "export:", mine)
if mine != rows:
    sys.exit("the export's leaf samples differ from the paused screen's")
PY
echo "ok: the export of a window whose process exited and whose binary was deleted matches the screen"
