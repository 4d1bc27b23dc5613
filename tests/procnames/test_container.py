#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: a "container" (its own mount and pid namespaces, chrooted into a directory
that holds a static copy of the spinner at /opt/perftop-jail-only/, a path that does not exist on the
host) is named correctly under -p and under -a (its files resolved under /proc/PID/root), and its
JIT map is found where the process wrote it: /tmp/perf-NSPID.map inside its root, NSPID being its
pid in its own namespace (1 here).

usage: test_container.py PERFTOP FIXTURE_DIR"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
from e2elib import fail, need_perf_events, parse_snapshots, passed, perftop_path, run_json
from procnameslib import child_pid, rows, start, stop, top

fixtures = sys.argv[2]
jail_dir = "/opt/perftop-jail-only"
if os.path.exists(jail_dir):
    fail(f"{jail_dir} exists on the host: the test needs a path only the container has")
root = tempfile.mkdtemp(prefix="perftop-jail-")
os.makedirs(root + jail_dir)
os.makedirs(root + "/tmp")
shutil.copy(os.path.join(fixtures, "spinner_static"), root + jail_dir + "/jailspin")
shutil.copy(os.path.join(fixtures, "jitspin"), root + jail_dir + "/jitspin")
checks = 0


def jailed(prog, secs):
    """unshare -m -p -f chroot ROOT prog: returns (the unshare Popen, the jailed host pid)."""
    p = start(["unshare", "-m", "-p", "-f", "--kill-child", "chroot", root, prog, str(secs)])
    return p, child_pid(p.pid)


def check_spinner(merged, what):
    global checks
    named = {k: v for k, v in merged.items() if (k[1] or "").startswith("spinner_")}
    if not named:
        fail(f"{what}: no spinner_* rows from the jailed spinner; top: {top(merged)}")
    if {k[0] for k in named} != {"jailspin"}:
        fail(f"{what}: spinner_* rows in {set(k[0] for k in named)}, want jailspin")
    print(f"{what}: {top(named, 3)}")
    checks += 1


try:
    # -p of a jailed process that started before perftop (maps read from /proc).
    p, pid = jailed(jail_dir + "/jailspin", 8)
    try:
        snaps, _ = run_json(["-p", str(pid), "-n", "2", "-d", "1"])
        check_spinner(rows(snaps), "-p")
    finally:
        stop(p)

    # -a while a jailed process starts (its mappings come from the kernel, with in-root paths). By
    # pid: the machine may run other spinners (another checkout's tests), named from their own files.
    need_perf_events("task", "cpu")
    cmd = [perftop_path(), "-b", "--json", "-a", "-s", "pid,dso,sym", "-n", "3", "-d", "1"]
    pt = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.7)
    # It outlives perftop: a process gone before its samples are named cannot be looked into.
    p, pid = jailed(jail_dir + "/jailspin", 10)
    try:
        out, err = pt.communicate(timeout=60)
    finally:
        stop(p)
    if pt.returncode != 0:
        fail(f"perftop -a exited {pt.returncode}: {err.strip()}")
    snaps = parse_snapshots(out, "perftop -a")
    check_spinner(rows([{"rows": [r for r in s["rows"] if r.get("pid") == pid]} for s in snaps]), "-a")

    # JIT code in the container: its map file is /tmp/perf-1.map inside its root.
    p, pid = jailed(jail_dir + "/jitspin", 8)
    try:
        if not os.path.exists(root + "/tmp/perf-1.map"):
            fail(f"the jailed jitspin wrote no {root}/tmp/perf-1.map: {os.listdir(root + '/tmp')}")
        snaps, _ = run_json(["-p", str(pid), "-n", "2", "-d", "1"])
        merged = rows(snaps)
        jit = {k: v for k, v in merged.items() if k[1] == "fakejit_spin_loop [jitted]"}
        if not jit or {k[0] for k in jit} != {f"[JIT] tid {pid}"}:
            fail(f"jit: no fakejit_spin_loop row in [JIT] tid {pid}; top: {top(merged)}")
        print(f"jit: {top(jit)}")
        checks += 1
    finally:
        stop(p)
finally:
    shutil.rmtree(root, True)
passed(checks)
