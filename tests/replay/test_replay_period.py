#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Samples that carry no period: `perf record -e page-faults -c 1000` writes samples without
PERF_SAMPLE_PERIOD (the period is fixed: the attr's sample_period), and each one stands for 1000
faults. perftop -i F -b --json must count them so: total_period == samples * 1000, equal to the
total of `perf script -F period` and to perf report's event count on the same file, and the rows'
Self% as tests/lib/perfcompare.py holds them to perf report's.

usage: test_replay_period.py PERFTOP FIXTURE_DIR"""
import os
import re
import subprocess
import sys
from replaylib import check, fail, perf_record, replay_json, report_section, skip, tmpdir

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
ref = report_section(data, False)
if ref.event_count is None:
    fail("perf report shows no event count")
print(f"perftop: {s['samples']} samples, total_period {s.get('total_period')}; perf script: "
      f"{len(periods)} samples, periods sum {sum(periods)}; perf report: event count {ref.event_count}")
if s["samples"] != len(periods) or not periods:
    fail(f"perftop counts {s['samples']} samples, perf script {len(periods)}")
if s.get("total_period") != s["samples"] * PERIOD:
    fail(f"total_period {s.get('total_period')} is not samples * {PERIOD} = {s['samples'] * PERIOD}")
if s["total_period"] != sum(periods) or s["total_period"] != int(ref.event_count):
    fail(f"total_period {s['total_period']}: perf script sums {sum(periods)}, perf report counts "
         f"{ref.event_count}")
# about 30 samples: the few places that fault (the allocator, the kernel's page clearing), all
# in one function in some runs
check("page-faults", s, ref, "self", min_rows=1)
print("3 passed, 0 failed")
