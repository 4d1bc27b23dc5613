#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Python frames live with a command: perftop -- PYTHON pysplit.py, for every interpreter of the
CPython version given (CMakeLists.txt: 3.11, 3.12, 3.13; pylib.py finds them on PATH, in pyenv,
in /usr/bin, debug builds included; none: a skip), with frame pointers and again with
--call-graph dwarf: alpha's share of alpha+beta Total is 0.70 (the script's own 7:3 of work units)
within the binomial bound of its reads (pylib.share_tol), alpha and beta cover 70% of the samples,
inner shows under both, native rows are still there. For the first of them also: the same with
--call-graph dwarf (the reader is the same for the others of the version: what differs between
them, the layout of a debug build, shows with frame pointers), -s srcline names inner's loop body,
and --no-python keeps the interpreter's frames as they were.

usage: test_python_live.py PERFTOP FIXTURE_DIR VERSION"""

from e2elib import fail, passed, run_json
from pylib import PY_STATS_ENV, PYSPLIT, SPLIT_SECS, check_split, pythons_of, version_arg, watcher_reads

found = pythons_of(version_arg())
checks = 0
for py in found:
    snaps, err = run_json(["-z", "-n", str(SPLIT_SECS), "-d", "1", "--", py.exe, PYSPLIT,
                           str(SPLIT_SECS)], timeout=120, env=PY_STATS_ENV)
    checks += check_split(snaps, py.label, reads=watcher_reads(err))
    print(" ", [l for l in err.splitlines() if "python:" in l][-1:])

py = found[0]
# --call-graph dwarf: the native chains unwound through the interpreter, the Python frames in them
# all the same
snaps, err = run_json(["-z", "-n", str(SPLIT_SECS), "-d", "1", "--call-graph", "dwarf", "--",
                       py.exe, PYSPLIT, str(SPLIT_SECS)], timeout=120, env=PY_STATS_ENV)
checks += check_split(snaps, f"{py.label} --call-graph dwarf", reads=watcher_reads(err))
# One window for each of the two checks of what is shown (a line, rows present or absent), longer
# than the 2 s program, so that its one snapshot comes at the program's exit and holds the whole
# run (about 200 reads of the hottest function's loop body, the one line looked for): a window of
# 1 s from perftop's start held no Python row at all in a CI run, where the interpreter's start
# and the first reads took most of it.
WHOLE = ["-z", "-n", "1", "-d", "4"]
snaps, _ = run_json(WHOLE + ["-s", "sym,srcline", "--", py.exe, PYSPLIT, "2"])
lines = {r.get("srcline") for s in snaps for r in s["rows"] if r["sym"] == "inner (pysplit.py)"}
body = [i + 1 for i, l in enumerate(open(PYSPLIT)) if "s += i * i" in l][0]
if f"pysplit.py:{body}" not in lines:
    fail(f"{py.label} -s srcline: inner's lines are {lines}, without its loop body pysplit.py:{body}")
checks += 1

snaps, _ = run_json(WHOLE + ["--no-python", "--", py.exe, PYSPLIT, "2"])
syms = {r["sym"] for s in snaps for r in s["rows"]}
if any("(pysplit.py)" in x for x in syms) or "_PyEval_EvalFrameDefault" not in syms:
    fail(f"{py.label} --no-python: Python rows, or no _PyEval_EvalFrameDefault: {sorted(syms)[:20]}")
checks += 1
passed(checks)
