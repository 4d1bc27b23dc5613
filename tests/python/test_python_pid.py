#!/usr/bin/env python3
"""Issue 17, attached: perftop -p PID to a pyenv 3.11 pysplit.py that was started without perftop
(no restart, no -X perf): the same acceptance checks as live with a command; and with -a, the whole
machine, alpha's share and inner under both (the machine's other work is in the samples too). And
failure is visible:
a CPython whose layout perftop does not know (pyenv's 3.10, when installed) keeps its native frames
(_PyEval_EvalFrameDefault) and perftop says why on stderr, once."""
import subprocess
import sys
import time

from e2elib import SKIP, fail, passed, run_json
from pylib import PYSPLIT, SPLIT_SECS, check_split, pythons


def attached(exe, args, secs=SPLIT_SECS + 4, whole_machine=False):
    p = subprocess.Popen([exe, PYSPLIT, str(secs)], stdout=subprocess.DEVNULL)
    try:
        time.sleep(1.0)  # well inside its loop: perftop attaches to a running interpreter
        return run_json(([] if whole_machine else ["-p", str(p.pid)]) + args)
    finally:
        p.kill()
        p.wait()


checks = 0
found = pythons(["pyenv 3.11"])
for label, exe in found:
    snaps, _ = attached(exe, ["-z", "-n", str(SPLIT_SECS), "-d", "1"])
    checks += check_split(snaps, f"{label} -p")
    snaps, _ = attached(exe, ["-a", "-z", "-n", str(SPLIT_SECS), "-d", "1"], whole_machine=True)
    checks += check_split(snaps, f"{label} -a", whole=False)

old = pythons(["pyenv 3.10"])
for label, exe in old:
    snaps, err = attached(exe, ["-z", "-n", "2", "-d", "1"], secs=5)
    told = [l for l in err.splitlines() if "python:" in l]
    syms = {r["sym"] for s in snaps for r in s["rows"]}
    print(f"{label} -p: {told}")
    if len(told) != 1 or "3.10" not in told[0] and "older than 3.11" not in told[0]:
        fail(f"{label} -p: want one line saying why its Python frames are not read, got {told}")
    if "_PyEval_EvalFrameDefault" not in syms or any("(pysplit.py)" in x for x in syms):
        fail(f"{label} -p: its native frames should stay: {sorted(syms)[:15]}")
    checks += 2
if not found and not old:
    print("skip: neither pyenv's 3.11 nor its 3.10 is installed")
    sys.exit(SKIP)
passed(checks)
