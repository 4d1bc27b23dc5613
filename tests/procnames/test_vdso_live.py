#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: a program calling clock_gettime in a loop, as a command and under
-p: perftop's [vdso] rows are the ones perf report shows on the recording of the same session
(perftop -o F), names and shares.

Where in the vdso the time goes is the machine's business (with the TSC as clock source it is
__vdso_clock_gettime; with kvm-clock most of it is in a helper the image exports no symbol for,
which perf prints as its offset in the image, 0x000000000000079d), so nothing here expects a
symbol; the reference is the vdso image itself (this process's: one kernel, one image) and perf:
  - every named [vdso] row, perftop's and perf's, is a function of the image's symbol table, and
    every unnamed one is an offset inside the image that no function covers;
  - each [vdso] row of 2% or more on either side is on the other side too (same name, or an alias
    at the same address; an unnamed one by the same offset, as perf prints it), within 10 points
    (perftop's snapshots against perf's whole file), and so is the [vdso] total.

usage: test_vdso_live.py PERFTOP FIXTURE_DIR"""
import os
import sys
import tempfile
from e2elib import fail, is_address, passed, run_json
from perfcompare import report_section
from perfprobe import need_tool
from procnameslib import elf_functions, rows, start, stop, vdso_image

need_tool("perf")
cgloop = os.path.join(sys.argv[2], "cgloop")
image = vdso_image()
funcs = elf_functions(image)
if not funcs:
    fail("the vdso image has no function symbol")
checks = 0


def where(name):
    """The image address a row names: a function's start, or the offset an unnamed row prints;
    None when neither (a name the image does not have, an address outside it)."""
    if is_address(name):
        off = int(name, 16)
        return off if off < len(image) and not any(s <= off < e for s, e, _ in funcs) else None
    starts = [s for s, _, n in funcs if n == name]
    return starts[0] if starts else None


def perf_vdso(path):
    """perf report's Self% by (dso, sym) on path (tests/lib/perfcompare.py's parser)."""
    out = {}
    for k, self_, _, _ in report_section(path, False).rows:
        out[k] = out.get(k, 0.0) + self_
    return out


def check(what, args):
    global checks
    with tempfile.TemporaryDirectory() as d:
        rec = os.path.join(d, "cg.data")
        snaps, _ = run_json(["-o", rec] + args)
        ref = perf_vdso(rec)
    merged = rows(snaps)
    total = sum(merged.values()) or 1.0
    ours = {k: 100.0 * v / total for k, v in merged.items()}
    mine = {k[1]: v for k, v in ours.items() if k[0] == "[vdso]"}
    theirs = {k[1]: v for k, v in ref.items() if k[0] == "[vdso]"}
    print(f"{what}: [vdso] perftop {sum(mine.values()):.1f}% {sorted(mine.items(), key=lambda kv: -kv[1])[:4]}")
    print(f"{what}: [vdso] perf    {sum(theirs.values()):.1f}% {sorted(theirs.items(), key=lambda kv: -kv[1])[:4]}")
    bad = []
    for side, rs in (("perftop", mine), ("perf", theirs)):
        for name in rs:
            if where(name) is None:
                bad.append(f"{side}'s [vdso] row {name!r} is neither a function of the image nor an "
                           f"unnamed offset inside it")
    # Rows by image address: aliases (clock_gettime, __vdso_clock_gettime) are one place.
    by_mine, by_theirs = {}, {}
    for rs, by in ((mine, by_mine), (theirs, by_theirs)):
        for name, v in rs.items():
            a = where(name)
            by[a] = by.get(a, 0.0) + v
    for a in set(by_mine) | set(by_theirs):
        m, t = by_mine.get(a, 0.0), by_theirs.get(a, 0.0)
        if max(m, t) >= 2.0 and abs(m - t) > 10.0:
            names = sorted({n for n in list(mine) + list(theirs) if where(n) == a})
            bad.append(f"[vdso] {names}: perftop {m:.1f}%, perf {t:.1f}%")
    if abs(sum(mine.values()) - sum(theirs.values())) > 10.0:
        bad.append(f"[vdso] in all: perftop {sum(mine.values()):.1f}%, perf {sum(theirs.values()):.1f}%")
    if bad:
        fail(f"{what}: " + "; ".join(bad))
    checks += 1


check("command", ["-n", "2", "-d", "1", "--", cgloop, "3"])
p = start([cgloop, "6"])
try:
    check("-p", ["-p", str(p.pid), "-n", "2", "-d", "1"])
finally:
    stop(p)
passed(checks)
