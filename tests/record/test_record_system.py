#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: perftop -a -o F for 2 s with two programs running: perf report shows both by comm,
and perf script reads the whole file quietly."""
import os
import subprocess
import tempfile
from e2elib import fail, passed
from reclib import need_perf, perf, perftop, report_rows, fixture

need_perf()
spin = subprocess.Popen([fixture("spinner"), "12"], stdout=subprocess.DEVNULL)
dd = subprocess.Popen(["dd", "if=/dev/zero", "of=/dev/null", "bs=4k"], stderr=subprocess.DEVNULL)
checks = 0
try:
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "a.data")
        p = perftop(["-b", "--json", "-a", "-n", "2", "-d", "1", "-o", f])
        if p.returncode != 0:
            fail(f"perftop -a -o exited {p.returncode}: {p.stderr.strip()}")
        checks += 1
        comms = {r[1]: r[0] for r in report_rows(f, "comm")}
        print("comms:", sorted(comms.items(), key=lambda kv: -kv[1])[:8])
        for want in ("spinner", "dd"):
            if comms.get(want, 0) <= 1.0:
                fail(f"comm {want} missing from perf report --sort comm: {comms}")
            checks += 1
        perf(["script"], f)
        dsos = {r[1] for r in report_rows(f)}
        if "[kernel.kallsyms]" not in dsos:
            fail(f"no kernel samples resolved to [kernel.kallsyms]: {dsos}")
        checks += 2
finally:
    for p in (spin, dd):
        p.kill()
        p.wait()
passed(checks)
