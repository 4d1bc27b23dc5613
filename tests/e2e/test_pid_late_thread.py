#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: -p on a running busy program gives its hot functions, and a thread that the program starts
after perftop attached shows up too (perftop uses per-CPU events with inherit, unlike perf top -p)."""
import os
import subprocess
import sys
from e2elib import fail, run_json, passed, merged_rows

spinner = os.path.join(sys.argv[2], "spinner")
# The second thread starts 1.5 s after the program, well after perftop attached.
prog = subprocess.Popen([spinner, "6", "1500"], stdout=subprocess.PIPE, text=True)
try:
    if prog.stdout.readline().strip() != "ready":
        fail("spinner did not start")
    snaps, _ = run_json(["-p", str(prog.pid), "-n", "4", "-d", "1", "-s", "tid,sym"])
finally:
    prog.kill()
    prog.wait()

syms = {}
tids = {}
for s in snaps:
    for r in s["rows"]:
        syms[r["sym"]] = syms.get(r["sym"], 0) + r["self"]
        tids.setdefault(r["sym"], set()).add(r.get("tid"))
checks = 0
for want in ("spinner_work", "spinner_main_loop", "spinner_late_thread"):
    if not any(k == want for k in syms):
        fail(f"{want} missing from -p rows: {sorted(syms, key=lambda k: -syms[k])[:10]}")
    checks += 1
late_tids = tids.get("spinner_late_thread", set())
if prog.pid in late_tids or not late_tids:
    fail(f"the late thread should have its own tid, got {late_tids}")
checks += 1
if "tid" not in snaps[-1]["rows"][0]:
    fail("rows lack 'tid' when tid is a sort key")
checks += 1
passed(checks)
