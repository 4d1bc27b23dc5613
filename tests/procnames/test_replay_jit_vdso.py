#!/usr/bin/env python3
"""Acceptance (issue 4): `perf record -g -- node --perf-basic-prof hot.js`, then perftop -i F -b
--json: the top 10 rows agree with `perf report --no-children --sort dso,sym` (Self% within 0.5
points, names equal), JIT rows included. The same for a clock_gettime loop, [vdso] rows included
(named from our own vdso image: the recording is of this kernel).

usage: test_replay_jit_vdso.py PERFTOP FIXTURE_DIR"""
import os
import re
import shutil
import sys
from replaylib import compare, fail, perf_record, perf_report, replay_json, tmpdir

perftop, fixtures = sys.argv[1], sys.argv[2]
script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hot.js")
node = shutil.which("node")
if not node:
    fail("node is not installed (the JIT test needs it)")
d = tmpdir()
checks = 0


def check(name, path, must):
    global checks
    snaps, _ = replay_json(perftop, path)
    rep = perf_report(path, False)
    ok, text = compare(snaps[-1], rep, "self")
    print(f"{name}: {text}")
    if not ok:
        fail(f"{name}: {text}")
    # The rows that matter here must really be compared, not skipped as optional.
    ours = [(r["dso"], r["sym"]) for r in snaps[-1]["rows"][:10]]
    if not any(must(dso, sym) for dso, sym in ours):
        fail(f"{name}: no such row in our top 10: {ours}")
    if not any(must(m.group(1), m.group(2)) for m in
               re.finditer(r"^\s*[\d.]+%\s+(.*?)\s+\[[.k]\]\s+(.*?)\s*$", rep, re.M)):
        fail(f"{name}: no such row in perf report:\n{rep[:1500]}")
    checks += 2
    return snaps


# V8 would also write an isolate-*-v8.log into the working directory (the tree): a temporary file
# instead (--logfile=+, unlinked).
data = perf_record(["-g"], os.path.join(d, "node.data"),
                   [node, "--perf-basic-prof", "--no-logfile-per-isolate", "--logfile=+", script, "3"])
try:
    snaps = check("node --perf-basic-prof", data,
                  lambda dso, sym: dso.startswith("[JIT] tid ") and "hotLoopFunction" in sym)
finally:
    # node leaves its perf map behind: remove the recorded pid's.
    rep = perf_report(data, False)
    for pid in set(re.findall(r"\[JIT\] tid (\d+)", rep)):
        try:
            os.unlink(f"/tmp/perf-{pid}.map")
        except OSError:
            pass

data = perf_record(["-g"], os.path.join(d, "cg.data"), [os.path.join(fixtures, "cgloop"), "2"])
check("clock_gettime loop", data, lambda dso, sym: dso == "[vdso]" and "clock_gettime" in sym)
print(f"{checks} passed, 0 failed")
