#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Python frames in recordings: perftop -o FILE -- PYTHON pysplit.py keeps the Python frames in
FILE.python, and a replay (-i FILE) shows them: the acceptance checks on the replay's snapshot, and
-s srcline names inner's loop body. perf report still reads FILE (its native chains) as before. A
replay with --no-python, or of a recording without its side file, is native frames only. For every
interpreter of the CPython version given (pylib.py finds them; none: a skip).

usage: test_python_replay.py PERFTOP FIXTURE_DIR VERSION"""
import os
import shutil
import subprocess
import tempfile

from e2elib import fail, parse_snapshots, passed, perftop_path, run_json
from perfcompare import check, report_section
from perfprobe import need_tool
from pylib import PY_STATS_ENV, PYSPLIT, SPLIT_SECS, check_split, pythons_of, version_arg, watcher_reads

# The first interpreter of the version: the others of it (Debian's, its debug build) are read by
# test_python_live; this test's subject is the same for each, and the suite's time is bounded.
found = pythons_of(version_arg())[:1]
need_tool("perf")
d = tempfile.mkdtemp(prefix="perftop-pyrec-")
checks = 0
try:
    for i, py in enumerate(found):
        rec = os.path.join(d, f"py{i}.data")
        _, err = run_json(["-z", "-n", str(SPLIT_SECS), "-d", "1", "-o", rec, "--", py.exe, PYSPLIT,
                           str(SPLIT_SECS)], timeout=120, env=PY_STATS_ENV)
        if not os.path.exists(rec + ".python"):
            fail(f"{py.label} -o {rec}: no {rec}.python beside it")

        def replay(args):
            p = subprocess.run([perftop_path(), "-b", "--json", "-i", rec] + args,
                               capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                fail(f"{py.label} replay {args}: exit {p.returncode}: {p.stderr.strip()}")
            return parse_snapshots(p.stdout, "replay")

        # the replay's samples have the stacks the recording's watcher read: its reads are the draws
        checks += check_split(replay([]), f"{py.label} replay", reads=watcher_reads(err))
        body = [i + 1 for i, l in enumerate(open(PYSPLIT)) if "s += i * i" in l][0]
        lines = {r.get("srcline") for s in replay(["-s", "sym,srcline"]) for r in s["rows"]
                 if r["sym"] == "inner (pysplit.py)"}
        if f"pysplit.py:{body}" not in lines:
            fail(f"{py.label} replay -s srcline: inner's lines are {lines}, without pysplit.py:{body}")
        checks += 1
        for what, args in (("--no-python", ["--no-python"]), ("without FILE.python", None)):
            if args is None:
                os.rename(rec + ".python", rec + ".python.off")
                args = []
            syms = {r["sym"] for s in replay(args) for r in s["rows"]}
            if any("(pysplit.py)" in x for x in syms) or "_PyEval_EvalFrameDefault" not in syms:
                fail(f"{py.label} replay {what}: Python rows, or no _PyEval_EvalFrameDefault: "
                     f"{sorted(syms)[:12]}")
            checks += 1
        # perf report reads FILE as perf's: its native rows, every one of them perftop's with
        # --no-python (tests/lib/perfcompare.py's rule)
        ref = report_section(rec, False)
        if not any(k[1] == "_PyEval_EvalFrameDefault" for k, *_ in ref.rows):
            fail(f"{py.label} perf report of the recording has no _PyEval_EvalFrameDefault: "
                 f"{ref.rows[:8]}")
        native = replay(["--no-python"])
        if len(native) != 1:
            fail(f"{py.label} replay --no-python: {len(native)} snapshots, want one")
        check(f"{py.label} replay --no-python vs perf report", native[0], ref, "self")
        checks += 2
finally:
    shutil.rmtree(d, True)
passed(checks)
