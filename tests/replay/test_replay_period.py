#!/usr/bin/env python3
"""Samples that carry no period: `perf record -e page-faults -c 1000` writes samples without
PERF_SAMPLE_PERIOD (the period is fixed: the attr's sample_period), and each one stands for 1000
faults. perftop -i F -b --json must count them so: total_period == samples * 1000, equal to the
total of `perf script -F period` and to perf report's event count on the same file, and the rows'
Self% within 0.5 points of perf report's.

usage: test_replay_period.py PERFTOP FIXTURE_DIR"""
import os
import re
import subprocess
import sys
from replaylib import compare, fail, perf_record, perf_report, replay_json, skip, tmpdir

perftop = sys.argv[1]
d = tmpdir()
PERIOD = 1000
# About 30,000 fresh pages: about 30 samples of 1000 faults.
faults = ["python3", "-c", "x = [bytearray(4096) for i in range(30000)]"]
data = perf_record(["-e", "page-faults", "-c", str(PERIOD)], os.path.join(d, "pf.data"), faults)

ev = subprocess.run(["perf", "evlist", "-v", "-i", data], capture_output=True, text=True).stdout
m = re.search(r"sample_type: ([A-Z_|]+)", ev)
if not m:
    fail(f"perf evlist -v shows no sample_type: {ev.strip()[:300]}")
if "PERIOD" in m.group(1).split("|"):
    # The file perf wrote here is not what this test is about: a skip, not a pass.
    skip(f"this perf puts PERIOD in the samples ({m.group(1)}): no fixed-period samples to replay")

snaps, _ = replay_json(perftop, data)
s = snaps[0]
periods = [int(x) for x in subprocess.run(["perf", "script", "-i", data, "-F", "period"],
                                          capture_output=True, text=True).stdout.split()]
rep = subprocess.run(["perf", "report", "-i", data, "--stdio"], capture_output=True, text=True).stdout
m = re.search(r"Event count \(approx\.\): (\d+)", rep)
if not m:
    fail(f"perf report shows no event count:\n{rep[:800]}")
print(f"perftop: {s['samples']} samples, total_period {s.get('total_period')}; perf script: "
      f"{len(periods)} samples, periods sum {sum(periods)}; perf report: event count {m.group(1)}")
if s["samples"] != len(periods) or not periods:
    fail(f"perftop counts {s['samples']} samples, perf script {len(periods)}")
if s.get("total_period") != s["samples"] * PERIOD:
    fail(f"total_period {s.get('total_period')} is not samples * {PERIOD} = {s['samples'] * PERIOD}")
if s["total_period"] != sum(periods) or s["total_period"] != int(m.group(1)):
    fail(f"total_period {s['total_period']}: perf script sums {sum(periods)}, perf report counts "
         f"{m.group(1)}")
ok, text = compare(s, perf_report(data, False), "self", minpct=3.0)
print(text)
if not ok:
    fail(text)
print("3 passed, 0 failed")
