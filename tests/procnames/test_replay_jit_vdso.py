#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: `perf record -g -- node --perf-basic-prof hot.js`, then perftop -i F -b
--json: the rows agree with `perf report --no-children --sort dso,sym` as lib/perfcompare.py holds
them (every row of 0.5% or more, both ways), JIT rows included. The same for a clock_gettime loop, [vdso] rows included
(named from our own vdso image: the recording is of this kernel).

usage: test_replay_jit_vdso.py PERFTOP FIXTURE_DIR"""
import os
import shutil
import sys
from replaylib import (check as compare_check, fail, perf_record, perf_script, replay_json,
                       report_section, tmpdir)

perftop, fixtures = sys.argv[1], sys.argv[2]
script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hot.js")
node = shutil.which("node")
if not node:
    fail("node is not installed (the JIT test needs it)")
d = tmpdir()
checks = 0


def check(name, path, must, min_rows=5):
    global checks
    snaps, _ = replay_json(perftop, path)
    rep = report_section(path, False)
    compare_check(name, snaps[-1], rep, "self", min_rows=min_rows)
    # The rows that matter here must really be compared (they are: the comparison drops no row),
    # and be there on both sides.
    ours = [(r["dso"], r["sym"]) for r in snaps[-1]["rows"][:10]]
    if not any(must(dso, sym) for dso, sym in ours):
        fail(f"{name}: no such row in our top 10: {ours}")
    theirs = sorted(rep.rows, key=lambda r: -r[1])[:10]
    if not any(must(k[0], k[1]) for k, *_ in theirs):
        fail(f"{name}: no such row in perf report's top 10: {[r[0] for r in theirs]}")
    checks += 2
    return snaps


# V8 would also write an isolate-*-v8.log into the working directory (the tree): a temporary file
# instead (--logfile=+, unlinked).
data = perf_record(["-g"], os.path.join(d, "node.data"),
                   [node, "--perf-basic-prof", "--no-logfile-per-isolate", "--logfile=+", script, "3"])
try:
    snaps = check("node --perf-basic-prof", data,
                  lambda dso, sym: dso.startswith("[JIT]") and "hotLoopFunction" in sym,
                  # a JIT loop's profile: the hot function and a few rows of V8 and the kernel
                  # around it (3 of 0.5% or more on a quiet machine)
                  min_rows=2)
finally:
    # node leaves its perf map behind: remove the recorded pid's.
    for pid in set(perf_script(data, "pid").split()):
        try:
            os.unlink(f"/tmp/perf-{pid}.map")
        except OSError:
            pass

data = perf_record(["-g"], os.path.join(d, "cg.data"), [os.path.join(fixtures, "cgloop"), "2"])
check("clock_gettime loop", data, lambda dso, sym: dso == "[vdso]" and "clock_gettime" in sym)
print(f"{checks} passed, 0 failed")
