#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: -a -s comm while two different programs run shows both; a kernel-heavy load
(dd if=/dev/zero of=/dev/null) shows [kernel.kallsyms] rows with symbol names, not addresses."""
import os
import subprocess
import sys
from e2elib import fail, run_json, passed, is_address

spinner = os.path.join(sys.argv[2], "spinner")
spin = subprocess.Popen([spinner, "12"], stdout=subprocess.DEVNULL)
dd = subprocess.Popen(["dd", "if=/dev/zero", "of=/dev/null", "bs=4k"], stderr=subprocess.DEVNULL)
checks = 0
try:
    by_comm, _ = run_json(["-a", "-s", "comm", "-n", "2", "-d", "1"])
    comms = {}
    for s in by_comm:
        for r in s["rows"]:
            if "comm" not in r:
                fail(f"-s comm rows lack 'comm': {r}")
            comms[r["comm"]] = comms.get(r["comm"], 0) + r["self"]
    for want in ("spinner", "dd"):
        if want not in comms:
            fail(f"comm {want} missing from -a -s comm: {sorted(comms, key=lambda k: -comms[k])[:10]}")
        checks += 1

    snaps, _ = run_json(["-a", "-n", "2", "-d", "1"])
    kernel = [r for s in snaps for r in s["rows"] if r["dso"] == "[kernel.kallsyms]"]
    if not kernel:
        fail("no [kernel.kallsyms] rows while dd runs")
    named = sum(r["self"] for r in kernel if not is_address(r["sym"]))
    unnamed = sum(r["self"] for r in kernel if is_address(r["sym"]))
    if named <= 0 or unnamed > 0.05 * (named + unnamed):
        fail(f"kernel rows should be named: named {named:.2f}%, addresses {unnamed:.2f}%")
    checks += 2
    print("kernel rows:", [(r["sym"], round(r["self"], 2)) for r in kernel[:5]])
finally:
    for p in (spin, dd):
        p.kill()
        p.wait()
passed(checks)
