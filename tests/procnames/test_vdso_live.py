#!/usr/bin/env python3
"""Acceptance (issue 4): a program calling clock_gettime in a loop shows [vdso] rows by name
(__vdso_clock_gettime, read from the vdso image), as a command and under -p.

usage: test_vdso_live.py PERFTOP FIXTURE_DIR"""
import os
import sys
from e2elib import fail, is_address, passed, run_json
from procnameslib import rows, start, stop, top

cgloop = os.path.join(sys.argv[2], "cgloop")
checks = 0


def check(merged, what):
    global checks
    vdso = {k: v for k, v in merged.items() if k[0] == "[vdso]"}
    named = sum(v for k, v in vdso.items() if "clock_gettime" in (k[1] or ""))
    unnamed = sum(v for k, v in vdso.items() if is_address(k[1]))
    total = max(1e-9, sum(merged.values()))
    if named / total < 0.3 or unnamed > 0.05 * max(named, 1e-9):
        fail(f"{what}: [vdso] rows should be named: named {named / total:.0%}, addresses "
             f"{unnamed / total:.0%}; top: {top(merged)}")
    print(f"{what}: [vdso] clock_gettime {named / total:.0%}; top: {top(merged, 4)}")
    checks += 1


snaps, _ = run_json(["-n", "2", "-d", "1", "--", cgloop, "3"])
check(rows(snaps), "command")
p = start([cgloop, "6"])
try:
    snaps, _ = run_json(["-p", str(p.pid), "-n", "2", "-d", "1"])
    check(rows(snaps), "-p")
finally:
    stop(p)
passed(checks)
