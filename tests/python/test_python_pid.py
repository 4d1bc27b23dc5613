#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Python frames attached: perftop -p PID to pysplit.py started without perftop (no restart, no -X
perf), for every interpreter of the CPython version given (pylib.py finds them; none: a skip): the
same acceptance checks as live with a command. With "-a" after the version: the whole machine
instead, for the first of them, alpha's share and inner under both (the machine's other work is in
the samples too); that test holds the whole machine, so it runs for one version only
(CMakeLists.txt): finding the interpreters among all processes is the same for every version.

And failure is visible: given a version whose layout perftop does not know (3.10), each of its
interpreters keeps its native frames (_PyEval_EvalFrameDefault) and perftop says why on stderr,
once.

usage: test_python_pid.py PERFTOP FIXTURE_DIR VERSION [-a]"""
import subprocess
import sys
import time

from e2elib import fail, passed, run_json
from pylib import (PY_STATS_ENV, PYSPLIT, SPLIT_SECS, UNKNOWN_LAYOUT_VERSIONS, check_split, pythons_of,
                   version_arg, watcher_reads)


def attached(exe, args, secs=SPLIT_SECS + 4, whole_machine=False):
    p = subprocess.Popen([exe, PYSPLIT, str(secs)], stdout=subprocess.DEVNULL)
    try:
        time.sleep(1.0)  # well inside its loop: perftop attaches to a running interpreter
        return run_json(([] if whole_machine else ["-p", str(p.pid)]) + args, timeout=120,
                        env=PY_STATS_ENV)
    finally:
        p.kill()
        p.wait()


version = version_arg()
# The first interpreter of the version: the others of it (Debian's, its debug build) are read by
# test_python_live; attaching is the same for each, and the suite's time is bounded.
found = pythons_of(version)[:1]
checks = 0
if version in UNKNOWN_LAYOUT_VERSIONS:
    for py in found:
        snaps, err = attached(py.exe, ["-z", "-n", "2", "-d", "1"], secs=5)
        told = [l for l in err.splitlines() if "python:" in l]
        syms = {r["sym"] for s in snaps for r in s["rows"]}
        print(f"{py.label} -p: {told}")
        if len(told) != 1 or version not in told[0] and "older than 3.11" not in told[0]:
            fail(f"{py.label} -p: want one line saying why its Python frames are not read, got {told}")
        if "_PyEval_EvalFrameDefault" not in syms or any("(pysplit.py)" in x for x in syms):
            fail(f"{py.label} -p: its native frames should stay: {sorted(syms)[:15]}")
        checks += 2
    passed(checks)

if sys.argv[4:] == ["-a"]:
    py = found[0]
    snaps, err = attached(py.exe, ["-a", "-z", "-n", str(SPLIT_SECS), "-d", "1"], whole_machine=True)
    checks += check_split(snaps, f"{py.label} -a", whole=False, reads=watcher_reads(err))
    passed(checks)
for py in found:
    snaps, err = attached(py.exe, ["-z", "-n", str(SPLIT_SECS), "-d", "1"])
    checks += check_split(snaps, f"{py.label} -p", reads=watcher_reads(err))
passed(checks)
