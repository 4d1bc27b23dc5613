#!/usr/bin/env python3
"""Acceptance: files from perf record --switch-output. perf record -g --switch-output=1s of the
spinner for 3.5 s writes several perf.data.<timestamp> files (each a complete perf.data of its own
second; the ones after the first start with the side-band perf synthesizes at the switch, the last
one may have none). Each opens in perftop -i and agrees with perf report on it: the same number of
samples as perf script counts, and the top rows' Self% within 0.5 points (resolved rows through the
usual comparison; a file where perf report resolves nothing, because its mappings were in an earlier
file, is compared on the raw addresses both show).

usage: test_replay_switch.py PERFTOP FIXTURE_DIR"""
import glob
import os
import re
import subprocess
import sys
from replaylib import compare, fail, perf_record, perf_report, replay_json, tmpdir

perftop, fixtures = sys.argv[1], sys.argv[2]
spinner = os.path.join(fixtures, "spinner")
d = tmpdir()
base = os.path.join(d, "perf.data")
perf_record(["-g", "-F", "999", "--switch-output=1s"], base, [spinner, "3.5"])
files = sorted(glob.glob(base + ".*"))
if len(files) < 3:
    fail(f"perf record --switch-output=1s for 3.5 s wrote {len(files)} files: {files}")
print(f"{len(files)} files from --switch-output")


def report_all(path):
    """perf report's Self rows, resolved or not: {sym: pct}."""
    out = {}
    for line in perf_report(path, False).splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\S.*?)\s+\[([.kgHu])\]\s+(.*?)\s*$", line)
        if m:
            out[m.group(4)] = out.get(m.group(4), 0.0) + float(m.group(1))
    return out


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
    ok, text = compare(snap, perf_report(f, False), "self")
    if not ok and "no resolved row" in text:
        ref = report_all(f)
        ours = {}
        for r in snap["rows"]:
            ours[r["sym"]] = ours.get(r["sym"], 0.0) + float(r["self"])
        top = sorted(ref.items(), key=lambda kv: -kv[1])[:10]
        bad = [f"{s} ours {ours.get(s, 0):.2f}% ref {p:.2f}%" for s, p in top
               if abs(ours.get(s, 0.0) - p) > 0.5]
        ok = bool(top) and not bad
        text = f"self (raw addresses): {len(top) - len(bad)}/{len(top)} rows within 0.5pp" + \
            (": " + "; ".join(bad[:4]) if bad else "")
    print(f"{name}: {snap['samples']} samples; {text}")
    if not ok:
        fail(f"{name}: {text}")
    checks += 2
print(f"{checks} passed, 0 failed")
