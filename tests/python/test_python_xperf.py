#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Python frames and CPython's -X perf (3.12 on): pysplit.py started with -X perf (trampolines named
py::FUNC:FILE in /tmp/perf-PID.map), --call-graph dwarf, for every interpreter of the CPython
version given (pylib.py finds them; none: a skip): with --no-python, the chains walk through the
trampolines (they have no unwind tables) to _start, and the py:: functions' Totals hold alpha:beta
at 7:3 (within the binomial bound of the samples: each sample's own chain says which it was in);
with Python frames, the trampolines leave the chains (but those of the few samples that keep native
frames) and the acceptance checks hold as without -X perf.

usage: test_python_xperf.py PERFTOP FIXTURE_DIR VERSION"""
from e2elib import fail, passed, run_json
from pylib import (PY_STATS_ENV, PYSPLIT, SHARE, SPLIT_SECS, check_split, pythons_of, share_tol, sums,
                   version_arg, watcher_reads)

found = pythons_of(version_arg())
checks = 0
for py in found:
    cmd = ["--", py.exe, "-X", "perf", PYSPLIT, "4"]
    snaps, _ = run_json(["-z", "-n", "4", "-d", "1", "--call-graph", "dwarf", "--no-python"] + cmd,
                        timeout=120)
    total, n = sums(snaps)
    by_sym = {}
    for (dso, sym), v in total.items():
        by_sym[sym] = by_sym.get(sym, 0.0) + v
    a = sum(v for s, v in by_sym.items() if s.startswith("py::alpha:"))
    b = sum(v for s, v in by_sym.items() if s.startswith("py::beta:"))
    start = by_sym.get("_start", 0.0)
    tol = share_tol(a + b)
    print(f"{py.label} -X perf --no-python: py::alpha {a:.0f} py::beta {b:.0f} _start {start:.0f} "
          f"of {n}: alpha's share {a / (a + b) if a + b else 0:.3f} (want {SHARE} +- {tol:.3f})")
    if a + b <= 0 or abs(a / (a + b) - SHARE) > tol or (a + b) / n < 0.70:
        fail(f"{py.label} -X perf: py::alpha {a:.0f} and py::beta {b:.0f} of {n} samples: not 7:3 "
             f"(+- {tol:.3f}) over 70%")
    if start < 0.90 * n:
        fail(f"{py.label} -X perf: only {start:.0f} of {n} chains reach _start through the "
             "trampolines")
    checks += 2
    snaps, err = run_json(["-z", "-n", str(SPLIT_SECS), "-d", "1", "--call-graph", "dwarf"] + cmd[:-1]
                          + [str(SPLIT_SECS)], timeout=120, env=PY_STATS_ENV)
    checks += check_split(snaps, f"{py.label} -X perf, Python frames", reads=watcher_reads(err))
    # the trampolines leave every chain that got Python frames: those left are in the few samples
    # the watcher had not read near (a thread's first ones), which keep their native frames
    total, n = sums(snaps)
    left = max([v for k, v in total.items() if k[1].startswith("py::")] + [0.0])
    print(f"{py.label} -X perf with Python frames: the most of a py:: row {left:.0f} of {n} samples")
    if left > 0.03 * n:
        fail(f"{py.label} -X perf with Python frames: py:: trampolines left in {left:.0f} of {n} "
             "chains")
    checks += 1
passed(checks)
