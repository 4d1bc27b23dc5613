#!/usr/bin/env python3
"""Issue 17, recordings: perftop -o FILE -- pyenv 3.12 pysplit.py keeps the Python frames in
FILE.python, and a replay (-i FILE) shows them: the acceptance checks on the replay's snapshot, and
-s srcline names inner's loop body. perf report still reads FILE (its native chains) as before. A
replay with --no-python, or of a recording without its side file, is native frames only."""
import os
import shutil
import subprocess
import sys
import tempfile

from e2elib import SKIP, fail, passed, perftop_path, run_json
from pylib import PYSPLIT, SPLIT_SECS, check_split, pythons

found = pythons(["pyenv 3.12"])
if not found:
    print("skip: pyenv's 3.12 is not installed")
    sys.exit(SKIP)
label, exe = found[0]
d = tempfile.mkdtemp(prefix="perftop-pyrec-")
checks = 0
try:
    rec = os.path.join(d, "py.data")
    run_json(["-z", "-n", str(SPLIT_SECS), "-d", "1", "-o", rec, "--", exe, PYSPLIT, str(SPLIT_SECS)])
    if not os.path.exists(rec + ".python"):
        fail(f"-o {rec}: no {rec}.python beside it")

    def replay(args):
        p = subprocess.run([perftop_path(), "-b", "--json", "-i", rec] + args, capture_output=True,
                           text=True, timeout=120)
        if p.returncode != 0:
            fail(f"replay {args}: exit {p.returncode}: {p.stderr.strip()}")
        from e2elib import parse_snapshots
        return parse_snapshots(p.stdout, "replay")

    checks += check_split(replay([]), f"{label} replay")
    body = [i + 1 for i, l in enumerate(open(PYSPLIT)) if "s += i * i" in l][0]
    lines = {r.get("srcline") for s in replay(["-s", "sym,srcline"]) for r in s["rows"]
             if r["sym"] == "inner (pysplit.py)"}
    if f"pysplit.py:{body}" not in lines:
        fail(f"replay -s srcline: inner's lines are {lines}, without pysplit.py:{body}")
    checks += 1
    for what, args in (("--no-python", ["--no-python"]), ("without FILE.python", None)):
        if args is None:
            os.rename(rec + ".python", rec + ".python.off")
            args = []
        syms = {r["sym"] for s in replay(args) for r in s["rows"]}
        if any("(pysplit.py)" in x for x in syms) or "_PyEval_EvalFrameDefault" not in syms:
            fail(f"replay {what}: Python rows, or no _PyEval_EvalFrameDefault: {sorted(syms)[:12]}")
        checks += 1
    if shutil.which("perf"):
        # perf report reads FILE as perf's: its native rows, every one of them perftop's with
        # --no-python (tests/perfcompare.py's rule)
        from perfcompare import check, report_section
        ref = report_section(rec, False)
        if not any(k[1] == "_PyEval_EvalFrameDefault" for k, *_ in ref.rows):
            fail(f"perf report of the recording has no _PyEval_EvalFrameDefault: {ref.rows[:8]}")
        p = subprocess.run([perftop_path(), "-b", "--json", "-i", rec, "--no-python"],
                           capture_output=True, text=True, timeout=120)
        from e2elib import parse_snapshots
        native = parse_snapshots(p.stdout, "replay --no-python")
        if p.returncode != 0 or len(native) != 1:
            fail(f"replay --no-python: exit {p.returncode}, {len(native)} snapshots: {p.stderr.strip()[:200]}")
        check("replay --no-python vs perf report", native[0], ref, "self")
        checks += 2
    else:
        print("perf is not installed: the recording not checked with perf report")
finally:
    shutil.rmtree(d, True)
passed(checks)
