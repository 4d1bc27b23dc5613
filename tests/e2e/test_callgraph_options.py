#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: --call-graph none and --call-graph dwarf,SIZE, live.

  - --call-graph none on the spinner: no callers at all, so every row's Total% is its Self% and no
    row is there only as a caller (main, spinner_main_loop with Self 0);
  - --call-graph dwarf,SIZE on the chain main -> top -> mid -> leaf built -fomit-frame-pointer
    (unwind_chain): the size is the one the kernel was asked for (the recording's attr,
    perf evlist: sample_stack_user), 8192 when none is given; with 8 bytes only leaf's return
    address is copied, so the chains stop early in "[stack copy too short]" (its Total% the
    samples cut there) and main is never reached; with 65528 bytes they reach the root (unwound
    >= 90%, main at >= 90% Total, no cut chain to speak of).

usage: test_callgraph_options.py PERFTOP FIXTURE_DIR"""
import os
import re
import subprocess
import sys
import tempfile
from e2elib import fail, passed, run_json
from perfprobe import need_tool

need_tool("perf")
fixtures = sys.argv[2]
chain = os.path.join(fixtures, "unwind_chain")
checks = 0

# none: Total == Self everywhere
snaps, _ = run_json(["--call-graph", "none", "-n", "2", "-d", "0.5", "--", os.path.join(fixtures, "spinner"),
                     "1.5"])
for s in snaps:
    for r in s["rows"]:
        if abs(r["total"] - r["self"]) > 1e-3 or r["self"] <= 0:
            fail(f"--call-graph none: a row with callers' time: {r}")
print(f"--call-graph none: {[(r['sym'], r['self'], r['total']) for r in snaps[-1]['rows'][:3]]}")
checks += 1


def dwarf(size):
    """(the fullest window's Total% by symbol, that window, the recording's sample_stack_user)."""
    with tempfile.TemporaryDirectory(prefix="perftop-dwarf-") as d:
        rec = os.path.join(d, "dw.data")
        opt = "dwarf" + (f",{size}" if size else "")
        snaps, _ = run_json(["--call-graph", opt, "-d", "0.5", "-o", rec, "--", chain, "1.5"])
        ev = subprocess.run(["perf", "evlist", "-v", "-i", rec], capture_output=True, text=True).stdout
    m = re.search(r"sample_stack_user: (\d+)", ev)
    best = max(snaps, key=lambda s: s["samples"])
    return {r["sym"]: r["total"] for r in best["rows"]}, best, int(m.group(1)) if m else None


tot, best, asked = dwarf(None)
if asked != 8192:
    fail(f"--call-graph dwarf: the kernel was asked for {asked} bytes of stack, not the default 8192")
checks += 1

tot, best, asked = dwarf(8)
print(f"dwarf,8: asked {asked}, unwound {best.get('unwound')}%, Total% "
      f"{sorted(((k, round(v, 1)) for k, v in tot.items() if v >= 5), key=lambda kv: -kv[1])}")
if asked != 8:
    fail(f"--call-graph dwarf,8: the kernel was asked for {asked} bytes")
if tot.get("[stack copy too short]", 0) < 90 or tot.get("main", 0) > 10 or best.get("unwound", 100) > 10:
    fail(f"dwarf,8: the chains should stop at [stack copy too short] before main: {tot}, unwound "
         f"{best.get('unwound')}")
checks += 2

tot, best, asked = dwarf(65528)
print(f"dwarf,65528: asked {asked}, unwound {best.get('unwound')}%, Total% "
      f"{sorted(((k, round(v, 1)) for k, v in tot.items() if v >= 5), key=lambda kv: -kv[1])}")
if asked != 65528:
    fail(f"--call-graph dwarf,65528: the kernel was asked for {asked} bytes")
if any(tot.get(f, 0) < 90 for f in ("leaf", "mid", "top", "main")) or best.get("unwound", 0) < 90 or \
        tot.get("[stack copy too short]", 0) > 5:
    fail(f"dwarf,65528: the chains should reach the root: {tot}, unwound {best.get('unwound')}")
checks += 2
passed(checks)
