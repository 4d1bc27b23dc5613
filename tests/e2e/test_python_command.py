#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: perftop -b -n 3 -d 1 --json --no-python -- python3 -c '<busy loop>' lists
_PyEval_EvalFrameDefault in the interpreter's library among its top 5 rows, and Self% over all rows
sums to 100 +- 0.5. (--no-python: without it the eval loop's frames are the Python functions they
run, which tests/python checks.)

The library is libpython3.11.so.1.0 when python3 links it (pyenv's build does); Debian's /usr/bin/python3
is linked statically, and then the function lives in the executable itself: the expected dso is
whatever file holds the interpreter loop, found with ldd, not assumed."""
import os
import shutil
import subprocess
from e2elib import fail, run_json, check_snapshot_contract, passed

python = shutil.which("python3") or "/usr/bin/python3"
real = subprocess.run([python, "-c", "import sys; print(sys.executable)"], capture_output=True,
                      text=True).stdout.strip() or python
ldd = subprocess.run(["ldd", real], capture_output=True, text=True).stdout
lib = next((l.split()[0] for l in ldd.splitlines() if "libpython3" in l), None)
expect_dso = lib or os.path.basename(os.path.realpath(real))

busy = "import time\nt=time.time()\nwhile time.time()-t<5: sum(i*i for i in range(10000))"
snaps, err = run_json(["-n", "3", "-d", "1", "--no-python", "--", python, "-c", busy])
checks = 0
if len(snaps) != 3:
    fail(f"expected 3 snapshots with -n 3, got {len(snaps)}")
for s in snaps:
    check_snapshot_contract(s)
    if s["event"] != "cpu-clock" and "cpu-clock" in err:
        fail(f"event should be the fallback cpu-clock, got {s['event']}")
    if s["samples"] <= 0:
        fail(f"a window without samples: {s}")
    total = sum(r["self"] for r in s["rows"])
    if abs(total - 100.0) > 0.5:
        fail(f"Self% sums to {total:.3f}, not 100 +- 0.5, at time {s['time']}")
    checks += 2

last = snaps[-1]
top5 = [(r["dso"], r["sym"]) for r in last["rows"][:5]]
if ("_PyEval_EvalFrameDefault" not in [sym for _, sym in top5]):
    fail(f"_PyEval_EvalFrameDefault not in the top 5: {top5}")
dso = dict((sym, d) for d, sym in top5)["_PyEval_EvalFrameDefault"]
if dso != expect_dso:
    fail(f"_PyEval_EvalFrameDefault's dso is {dso}, expected {expect_dso}")
checks += 2
print(f"top 5: {top5}")
passed(checks)
