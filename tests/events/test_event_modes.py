#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: modifiers and -c on software events, against the machine's own answers.

  - cpu-clock:u and cpu-clock:k on a program that spends its time both in its own loop and in
    open(2): plain cpu-clock shows kernel rows (so the check means something); :u shows no kernel
    row at all; every row :k counts samples in (Self%) is the kernel's (its callers may be user
    frames: the kernel gives a kernel sample's user call chain, as perf report shows it).
  - -e page-faults -c 1000 on a program that touches 20,000 fresh pages takes as many samples as
    perf record -e page-faults -c 1000 on the same program (within 5%), each of period 1000 (perf
    script on perftop's own recording and on perf's).

usage: test_event_modes.py PERFTOP FIXTURE_DIR"""
import os
import shutil
import subprocess
import sys
import tempfile
from e2elib import fail, passed, run_json
from perfprobe import need_tool

target = os.path.join(sys.argv[2], "probe_target")
# About half a second in its own loop and half in open(2) on this machine; the checks need only
# some samples of each.
BUSY = [target, "200000000", "300000", "0", "300"]
checks = 0


def is_kernel(dso):
    return dso == "[kernel.kallsyms]" or (dso.startswith("[") and dso not in
                                          ("[unknown]", "[vdso]", "[vsyscall]", "[uprobes]"))


def rows_of(event):
    snaps, _ = run_json(["-e", event, "-d", "0.5", "--"] + BUSY)
    if any(s["event"] != event for s in snaps):
        fail(f"{event}: the snapshots name the event {snaps[0]['event']!r}")
    return snaps, [r for s in snaps for r in s["rows"]]


_, plain = rows_of("cpu-clock")
if not any(is_kernel(r["dso"]) and r["self"] > 0 for r in plain):
    fail("cpu-clock: no kernel row on a program that opens 300,000 files")
snaps, user = rows_of("cpu-clock:u")
kernel_rows = sorted({r["sym"] for r in user if is_kernel(r["dso"])})
print(f"cpu-clock:u: {sum(s['samples'] for s in snaps)} samples, kernel rows {kernel_rows[:5]}")
if kernel_rows or not any(r["self"] > 0 for r in user):
    fail(f"cpu-clock:u: kernel rows {kernel_rows[:8]}")
snaps, kern = rows_of("cpu-clock:k")
user_self = sorted({(r["sym"], r["dso"]) for r in kern if r["self"] > 0 and not is_kernel(r["dso"])})
print(f"cpu-clock:k: {sum(s['samples'] for s in snaps)} samples, rows with Self% outside the "
      f"kernel {user_self[:5]}")
if user_self or not any(r["self"] > 0 for r in kern):
    fail(f"cpu-clock:k: user rows with samples {user_self[:8]}")
checks += 3

need_tool("perf")
d = tempfile.mkdtemp(prefix="perftop-modes-")
try:
    faults = [target, "0", "0", "20000", "300"]

    def periods(path):
        p = subprocess.run(["perf", "script", "-i", path, "-F", "period"], capture_output=True,
                           text=True, timeout=120)
        if p.returncode != 0:
            fail(f"perf script -i {path}: {p.stderr.strip()[:300]}")
        return [int(x) for x in p.stdout.split()]

    ref = os.path.join(d, "perf.data")
    p = subprocess.run(["perf", "record", "-q", "-e", "page-faults", "-c", "1000", "-o", ref,
                        "--"] + faults, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail(f"perf record: {p.stderr.strip()[:300]}")
    theirs = periods(ref)
    rec = os.path.join(d, "perftop.data")
    snaps, _ = run_json(["-e", "page-faults", "-c", "1000", "-z", "-o", rec, "--"] + faults)
    n = sum(s["samples"] for s in snaps)
    ours = periods(rec)
    print(f"page-faults -c 1000: perftop {n} samples (its recording: {len(ours)} of periods "
          f"{sorted(set(ours))}), perf record {len(theirs)} of {sorted(set(theirs))}")
    if set(theirs) != {1000} or len(theirs) < 15:
        fail(f"perf record -c 1000 took {len(theirs)} samples of periods {sorted(set(theirs))[:5]}")
    if abs(n - len(theirs)) > max(1, 0.05 * len(theirs)) or len(ours) != n or set(ours) != {1000}:
        fail(f"page-faults -c 1000: perftop {n} samples ({len(ours)} recorded, periods "
             f"{sorted(set(ours))[:5]}), perf record {len(theirs)}")
    if sum(s["total_period"] for s in snaps) != 1000 * n:
        fail(f"page-faults -c 1000: total_period {sum(s['total_period'] for s in snaps)} for {n} samples")
    checks += 3
finally:
    shutil.rmtree(d, True)
passed(checks)
