#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: files from perf record --switch-output. perf record -g --switch-output=1s of the
spinner for 3.5 s writes several perf.data.<timestamp> files (each a complete perf.data of its own
second; the ones after the first start with the side-band perf synthesizes at the switch, the last
one may have none). Each opens in perftop -i and agrees with perf report on it: the same number of
samples as perf script counts, and every row's Self% as lib/perfcompare.py holds it (a file where
perf report resolves nothing, because its mappings were in an earlier file, has rows by address on
both sides, compared the same way).

usage: test_replay_switch.py PERFTOP FIXTURE_DIR"""
import glob
import os
import subprocess
import sys
from replaylib import check, fail, perf_record, replay_json, report_section, tmpdir

perftop, fixtures = sys.argv[1], sys.argv[2]
spinner = os.path.join(fixtures, "spinner")
d = tmpdir()
base = os.path.join(d, "perf.data")
perf_record(["-g", "-F", "999", "--switch-output=1s"], base, [spinner, "3.5"])
files = sorted(glob.glob(base + ".*"))
if len(files) < 3:
    fail(f"perf record --switch-output=1s for 3.5 s wrote {len(files)} files: {files}")
print(f"{len(files)} files from --switch-output")


checks = 0
for f in files:
    name = os.path.basename(f)
    snaps, err = replay_json(perftop, f)
    if len(snaps) != 1:
        fail(f"{name}: want one snapshot, got {len(snaps)}")
    if err.strip():
        fail(f"{name}: perftop -i warns about a file perf wrote whole: {err.strip()}")
    snap = snaps[0]
    want = subprocess.run(["perf", "script", "-i", f, "-G", "-F", "ip"], capture_output=True,
                          text=True, timeout=120).stdout.count("\n")
    if snap["samples"] != want:
        fail(f"{name}: perftop has {snap['samples']} samples, perf script {want}")
    if want == 0:
        # the spinner ended just after a switch: perf report has nothing to print, and perftop
        # agreed on the count above
        checks += 1
        continue
    # the spinner is one loop: main, the vdso's clock and the kernel; a file whose mappings were
    # in an earlier one has its rows by address, compared as such
    text = check(name, snap, report_section(f, False), "self", min_rows=2)
    checks += 2
print(f"{checks} passed, 0 failed")
