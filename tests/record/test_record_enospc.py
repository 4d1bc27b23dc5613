#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: a recording onto a full disk (a 64 KiB tmpfs) stops with a clear message, the batch run
goes on to its end with exit 0, and what made it to disk is still a file perf report reads."""
import sys
import os
import subprocess
import tempfile
from e2elib import SKIP, fail, passed, snapshots
from reclib import need_perf, perf, perftop, fixture

need_perf()
checks = 0
with tempfile.TemporaryDirectory() as d:
    m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "none", d], capture_output=True,
                       text=True)
    if m.returncode != 0:
        print(f"SKIP: cannot mount a small tmpfs: {m.stderr.strip()}")
        sys.exit(SKIP)
    try:
        f = os.path.join(d, "full.data")
        p = perftop(["-b", "--json", "-n", "3", "-o", f, "--", fixture("spinner"), "10"])
        if p.returncode != 0:
            fail(f"perftop exited {p.returncode} on a full disk: {p.stderr.strip()}")
        snaps = snapshots(p.stdout, "perftop -o on a full disk")
        if len(snaps) != 3 or not snaps[-1]["rows"]:
            fail(f"the live view did not go on: {len(snaps)} snapshots")
        checks += 1
        want = f"recording to {f} stopped: No space left on device"
        if want not in p.stderr:
            fail(f"no clear message (want {want!r}): {p.stderr.strip()}")
        if p.stderr.count("recording to") != 1:
            fail(f"the message should come once: {p.stderr.strip()}")
        checks += 1
        out = perf(["report", "--stdio", "--no-children", "-g", "none"], f)
        if "spinner" not in out:
            fail("perf report of the partial recording shows no spinner samples")
        checks += 1
    finally:
        subprocess.run(["umount", d])
passed(checks)
