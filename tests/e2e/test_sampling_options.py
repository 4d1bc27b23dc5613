#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: -c PERIOD and -F HZ, live, each checked against the session's own
recording (-o F, read by perf) and the JSON's total_period.

  - -e cpu-clock -c 2000000 -z: every window's total_period is its samples * 2,000,000 (ns), and
    perf script on the recording gives every sample that period;
  - -e page-faults -c 1000 -z on a program that touches 30,000 fresh pages: each sample stands
    for 1000 faults (the windows' total_period sums to samples * 1000; perf script's periods and perf report's event
    count agree), so about 30 samples, not one per fault: the kernel samples a software event at
    every occurrence when the sample asks for its period with a fixed period, as perftop did;
  - -e cpu-clock -F 250 -z: the recording says freq 250 (perf evlist), and a cpu-clock sample
    stands for about 1e9/250 ns (total_period / samples within 10%).

usage: test_sampling_options.py PERFTOP FIXTURE_DIR"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from e2elib import fail, passed, run_json
from perfprobe import need_tool

need_tool("perf")
spinner = os.path.join(sys.argv[2], "spinner")
d = tempfile.mkdtemp(prefix="perftop-sampling-")
checks = 0


def perf_out(args):
    p = subprocess.run(["perf"] + args, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail(f"perf {' '.join(args)}: {p.stderr.strip()[:300]}")
    return p.stdout


def periods(path):
    return [int(x) for x in perf_out(["script", "-i", path, "-F", "period"]).split()]


try:
    # -c with cpu-clock: windows of fixed-period samples
    rec = os.path.join(d, "c.data")
    P = 2000000
    snaps, _ = run_json(["-e", "cpu-clock", "-c", str(P), "-z", "-n", "2", "-d", "1", "-o", rec, "--",
                         spinner, "3"])
    for s in snaps:
        if s["samples"] <= 0 or s["total_period"] != s["samples"] * P:
            fail(f"-c {P}: window of {s['samples']} samples has total_period {s['total_period']}")
    got = set(periods(rec))
    if got != {P}:
        fail(f"-c {P}: perf script finds periods {sorted(got)[:5]} in the recording")
    print(f"-c {P}: windows {[(s['samples'], s['total_period']) for s in snaps]}; perf script: {got}")
    checks += 2

    # -c with page-faults: one sample per 1000 faults
    rec = os.path.join(d, "pf.data")
    prog = [sys.executable, "-c", "x = [bytearray(4096) for i in range(30000)]"]
    # -z: each window's total_period is its own (a loaded machine may stretch the run over two)
    snaps, _ = run_json(["-e", "page-faults", "-c", "1000", "-z", "-o", rec, "--"] + prog)
    n = sum(s["samples"] for s in snaps)
    last = {"total_period": sum(s["total_period"] for s in snaps)}
    ps = periods(rec)
    rep = perf_out(["report", "-i", rec, "--stdio"])
    m = re.search(r"Event count \(approx\.\): (\d+)", rep)
    print(f"page-faults -c 1000: {n} samples, total_period {last['total_period']}; perf script "
          f"{len(ps)} samples of {sorted(set(ps))}, perf report event count {m and m.group(1)}")
    if last["total_period"] != n * 1000 or set(ps) != {1000} or len(ps) != n:
        fail(f"page-faults -c 1000: perftop {n} samples, total_period {last['total_period']}; the "
             f"recording has {len(ps)} samples of periods {sorted(set(ps))[:5]}")
    if not m or int(m.group(1)) != n * 1000:
        fail(f"page-faults -c 1000: perf report's event count {m and m.group(1)}, perftop {n * 1000}")
    if not 25 <= n <= 200:
        fail(f"page-faults -c 1000 on 30,000 fresh pages: {n} samples (one per 1000 faults wanted)")
    checks += 3

    # -F 250 with cpu-clock: the rate asked for, and the period it means
    rec = os.path.join(d, "f.data")
    snaps, _ = run_json(["-e", "cpu-clock", "-F", "250", "-z", "-n", "2", "-d", "1", "-o", rec, "--",
                         spinner, "3"])
    ev = perf_out(["evlist", "-v", "-i", rec])
    if not re.search(r"sample_freq \}: 250\b", ev) or "freq: 1" not in ev:
        fail(f"-F 250: the recording's attr is {ev.strip()[:300]}")
    for s in snaps:
        per = s["total_period"] / max(1, s["samples"])
        if s["samples"] <= 0 or abs(per - 1e9 / 250) > 0.1 * 1e9 / 250:
            fail(f"-F 250: a window of {s['samples']} samples, {per:.0f} ns each (want about 4,000,000)")
    print(f"-F 250: windows {[(s['samples'], round(s['total_period'] / s['samples'])) for s in snaps]}")
    checks += 2
finally:
    shutil.rmtree(d, True)
passed(checks)
