#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The default call graph (frame pointers, their first frames from CFI) shows the callers of libc's
string functions, live and replayed from perftop's own recording.

libc_leaves (libc_leaves.c) spends its CPU time in strlen and memcpy, called by scan_a and scan_b,
copy_a and copy_b in the shares 2:1 and 2:1, and times each batch of calls itself on the thread's
CPU clock. Debian's libc has no frame pointers: a frame-pointer chain sampled inside strlen skips
the function that called it (the return address into it is on the stack, not in a frame record), so
each of the four has next to no Total% under plain frame pointers. perftop's Total% of each must
be the program's own share of its CPU time (its nanoseconds over the run's), within four standard
deviations of a share of that many samples plus one point:

  - live: perftop -b --json -s sym -- libc_leaves SECS FILE (the default call graph);
  - replayed: the same under perftop --call-graph fp+cfi -o REC (the default spelled out), then
    perftop -i REC (the recording's samples carry the user registers and stack copy, and the
    replay completes their chains as the live view did).

Both ways: the libc rows' Self is within their callers' Totals (every sample in strlen or memcpy has
one of the four above it), and no other function of the program has a Total of more than 2%.

usage: test_unwind_fphead.py PERFTOP LIBC_LEAVES"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from ptjson import snapshots  # noqa: E402

SECS = 2
perftop, leaves = sys.argv[1], sys.argv[2]
OWN = ("scan_a", "scan_b", "copy_a", "copy_b", "main")


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def perf_ok():
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            return int(f.read()) <= 1 or os.geteuid() == 0
    except OSError:
        return False


if not perf_ok():
    print("SKIP: perf_event_paranoid forbids profiling a command here")
    sys.exit(77)


def run(args):
    p = subprocess.run([perftop, "-b", "--json"] + args, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail(f"perftop {' '.join(args)} exited {p.returncode}: {p.stderr.strip()[:300]}")
    snaps = snapshots(p.stdout, f"perftop {' '.join(args)}")
    if not snaps:
        fail(f"perftop {' '.join(args)}: no snapshot")
    return snaps


def check(snaps, out, what):
    w = json.load(open(out))
    samples = sum(s["samples"] for s in snaps)
    total = {}
    selfs = {}
    for s in snaps:
        for r in s["rows"]:
            n = s["samples"]
            total[(r["dso"], r["sym"])] = total.get((r["dso"], r["sym"]), 0) + r["total"] * n / samples
            selfs[(r["dso"], r["sym"])] = selfs.get((r["dso"], r["sym"]), 0) + r["self"] * n / samples
    by_sym = {}
    for (dso, sym), v in total.items():
        if dso == os.path.basename(leaves):
            by_sym[sym] = by_sym.get(sym, 0) + v
    bad = []
    for fn, v in w["functions"].items():
        ref = 100.0 * v["ns"] / w["cpu_ns"]
        got = by_sym.get(fn, 0.0)
        lim = 4 * 100 * math.sqrt(ref / 100 * (1 - ref / 100) / samples) + 1.0
        line = f"{fn}: Total {got:.2f}%, the program's share {ref:.2f}% (limit {lim:.2f} points)"
        print(f"  {what}: {line}")
        if abs(got - ref) > lim:
            bad.append(line)
    libc_self = sum(v for (dso, sym), v in selfs.items() if dso.startswith("libc.so"))
    callers = sum(by_sym.get(f, 0) for f in w["functions"])
    print(f"  {what}: {samples} samples; libc's Self {libc_self:.2f}%, its callers' Total "
          f"{callers:.2f}%")
    if libc_self > callers + 1.0:
        bad.append(f"libc's Self {libc_self:.2f}% is more than its callers' Total {callers:.2f}%")
    for fn, v in by_sym.items():
        if fn not in OWN and v > 2.0:
            bad.append(f"{fn} has Total {v:.2f}%: the program has no such caller")
    if bad:
        fail(f"{what}: " + "; ".join(bad))
    return len(w["functions"]) + 2


d = tempfile.mkdtemp(prefix="perftop-fphead-")
try:
    checks = 0
    out = os.path.join(d, "live.json")
    checks += check(run(["-s", "dso,sym", "-d", "60", "--", leaves, str(SECS), out]), out, "live")
    out = os.path.join(d, "rec.json")
    rec = os.path.join(d, "rec.data")
    run(["--call-graph", "fp+cfi", "-s", "dso,sym", "-d", "60", "-o", rec, "--", leaves, str(SECS),
         out])
    checks += check(run(["-i", rec, "-s", "dso,sym"]), out, "perftop -o, replayed")
finally:
    shutil.rmtree(d, True)
print(f"PASS ({checks} checks)")
