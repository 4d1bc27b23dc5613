#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: a fixture whose binary is deleted after it starts is still named correctly
under -p (read through /proc/PID/map_files), and one replaced by another file at the same path
(an upgrade) keeps the names of the binary it runs, not of the new file.

usage: test_deleted_live.py PERFTOP FIXTURE_DIR"""
import os
import shutil
import sys
import tempfile
from e2elib import fail, passed, run_json
from procnameslib import rows, start, stop, top

spinner = os.path.join(sys.argv[2], "spinner")
d = tempfile.mkdtemp(prefix="perftop-deleted-")
checks = 0


def check(merged, what, want_dso):
    global checks
    named = {k: v for k, v in merged.items() if (k[1] or "").startswith("spinner_")}
    if not named or sum(named.values()) < 0.5 * sum(merged.values()):
        fail(f"{what}: spinner_* names missing; top: {top(merged)}")
    dsos = {k[0] for k in named}
    if dsos != {want_dso}:
        fail(f"{what}: spinner_* rows in {dsos}, want {want_dso!r}")
    print(f"{what}: {top(named, 3)}")
    checks += 1


try:
    # Deleted while it runs.
    path = os.path.join(d, "spin_deleted")
    shutil.copy(spinner, path)
    p = start([path, "8"])
    try:
        os.unlink(path)
        snaps, _ = run_json(["-p", str(p.pid), "-n", "2", "-d", "1"])
        check(rows(snaps), "deleted", "spin_deleted (deleted)")
    finally:
        stop(p)

    # Replaced (renamed over) while it runs: the path now holds another program.
    path = os.path.join(d, "spin_replaced")
    shutil.copy(spinner, path)
    p = start([path, "8"])
    try:
        tmp = path + ".new"
        shutil.copy("/bin/true", tmp)
        os.rename(tmp, path)
        snaps, _ = run_json(["-p", str(p.pid), "-n", "2", "-d", "1"])
        check(rows(snaps), "replaced", "spin_replaced (deleted)")
    finally:
        stop(p)
finally:
    shutil.rmtree(d, True)
passed(checks)
