#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Python frames attached: perftop -p PID to pysplit.py started without perftop (no restart, no -X
perf), for every interpreter of the CPython version given (pylib.py finds them; none: a skip): the
same acceptance checks as live with a command. With "-a" after the version: the whole machine
instead, for the first of them, alpha's share and inner under both (the machine's other work is in
the samples too); that test holds the whole machine, so it runs for one version only
(CMakeLists.txt): finding the interpreters among all processes is the same for every version.

usage: test_python_pid.py PERFTOP FIXTURE_DIR VERSION [-a]"""
import subprocess
import sys
import time

from e2elib import fail, passed, run_json
from pylib import PY_STATS_ENV, PYSPLIT, SPLIT_SECS, check_split, pythons_of, version_arg, watcher_reads


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
if sys.argv[4:] == ["-a"]:
    py = found[0]
    snaps, err = attached(py.exe, ["-a", "-z", "-n", str(SPLIT_SECS), "-d", "1"], whole_machine=True)
    checks += check_split(snaps, f"{py.label} -a", whole=False, reads=watcher_reads(err))
    passed(checks)
for py in found:
    snaps, err = attached(py.exe, ["-z", "-n", str(SPLIT_SECS), "-d", "1"])
    checks += check_split(snaps, f"{py.label} -p", reads=watcher_reads(err))
passed(checks)
