#!/usr/bin/env python3
"""Issue 17, live with a command: perftop -- PYTHON pysplit.py, frame pointers, for pyenv's 3.11,
3.12 and 3.13 and Debian's /usr/bin/python3.11 (each skipped with a message when not installed):
alpha's share of alpha+beta Total is 0.70 +- 0.06 (the script's own 7:3 of work units), alpha and
beta cover 70% of the samples, inner shows under both, native rows are still there; the same
with --call-graph dwarf for the first of them and Debian's. Also -s srcline names inner's lines, and --no-python keeps the interpreter's frames as they were."""
import os
import sys

from e2elib import SKIP, fail, passed, run_json
from pylib import PYSPLIT, SPLIT_SECS, check_split, pythons

found = pythons(["pyenv 3.11", "pyenv 3.12", "pyenv 3.13", "debian 3.11"])
if not found:
    print("skip: none of the Pythons of the test is installed")
    sys.exit(SKIP)
checks = 0
for label, exe in found:
    snaps, err = run_json(["-z", "-n", str(SPLIT_SECS), "-d", "1", "--", exe, PYSPLIT, str(SPLIT_SECS)],
                          env=dict(os.environ, PERFTOP_PY_STATS="1"))
    checks += check_split(snaps, label)
    print(" ", [l for l in err.splitlines() if "python:" in l][-1:])

# --call-graph dwarf: the native chains unwound through the interpreter (pyenv's builds keep
# their CFI), the Python frames in them all the same
for label, exe in found[:1] + [f for f in found[1:] if f[0].startswith("debian")]:
    snaps, err = run_json(["-z", "-n", str(SPLIT_SECS), "-d", "1", "--call-graph", "dwarf", "--", exe,
                           PYSPLIT, str(SPLIT_SECS)])
    checks += check_split(snaps, f"{label} --call-graph dwarf")

label, exe = found[0]
snaps, _ = run_json(["-z", "-n", "2", "-d", "1", "-s", "sym,srcline", "--", exe, PYSPLIT, "2"])
lines = {r.get("srcline") for s in snaps for r in s["rows"] if r["sym"] == "inner (pysplit.py)"}
body = [i + 1 for i, l in enumerate(open(PYSPLIT)) if "s += i * i" in l][0]
if f"pysplit.py:{body}" not in lines:
    fail(f"{label} -s srcline: inner's lines are {lines}, without its loop body pysplit.py:{body}")
checks += 1

snaps, _ = run_json(["-z", "-n", "2", "-d", "1", "--no-python", "--", exe, PYSPLIT, "2"])
syms = {r["sym"] for s in snaps for r in s["rows"]}
if any("(pysplit.py)" in x for x in syms) or "_PyEval_EvalFrameDefault" not in syms:
    fail(f"{label} --no-python: Python rows, or no _PyEval_EvalFrameDefault: {sorted(syms)[:20]}")
checks += 1
passed(checks)
