#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: a fixture in `unshare --pid --mount --fork`, its binary copied onto a tmpfs mounted
inside its mount namespace only (the host sees an empty directory at that path): perftop -p on it
with -s pid,tid,sym shows its namespace pid and tid beside the host's ("nspid"/"nstid" in JSON:
what its own /proc/PID/status NSpid says), and its function named from the binary inside its root
(the fixture's own symbol table, read with nm on the copy the test made).

usage: test_container_pidns.py PERFTOP FIXTURE_DIR"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from perfprobe import fail, need_perf_events, need_tool, skip  # noqa: E402

perftop, fixtures = sys.argv[1], sys.argv[2]
spinner = os.path.join(fixtures, "spinner")
need_tool("unshare")
need_tool("nm")
need_perf_events("task")
d = tempfile.mkdtemp(prefix="perftop-pidns-")
nm = subprocess.run(["nm", "--defined-only", spinner], capture_output=True, text=True).stdout
if " spinner_work" not in nm:
    fail("the spinner fixture has no spinner_work in its symbol table")

inner = f"mount -t tmpfs perftop-pidns {d} && cp {spinner} {d}/spinner && exec {d}/spinner 8"
u = subprocess.Popen(["unshare", "--pid", "--mount", "--fork", "sh", "-c", inner],
                     stderr=subprocess.PIPE, text=True)
try:
    child = None
    for _ in range(100):
        kids = subprocess.run(["pgrep", "-P", str(u.pid)], capture_output=True, text=True).stdout.split()
        if kids:
            try:
                if os.readlink(f"/proc/{kids[0]}/exe").endswith("/spinner"):
                    child = int(kids[0])
                    break
            except OSError:
                pass
        if u.poll() is not None:
            err = u.stderr.read()
            if "Operation not permitted" in err or "Invalid argument" in err:
                skip(f"this kernel refuses new pid or mount namespaces: {err.strip()}")
            fail(f"unshare exited {u.returncode}: {err.strip()}")
        time.sleep(0.05)
    if not child:
        fail("the fixture in its namespaces did not start")
    if os.listdir(d):
        fail(f"{d} is not empty on the host: the test's mount leaked out of the namespace")
    with open(f"/proc/{child}/status") as f:
        nspid = [l.split()[1:] for l in f if l.startswith("NSpid:")][0]
    if len(nspid) < 2:
        fail(f"/proc/{child}/status NSpid {nspid}: the fixture is not in a pid namespace of its own")
    want = int(nspid[-1])

    r = subprocess.run([perftop, "-p", str(child), "-s", "pid,tid,sym", "-b", "--json", "-d", "1", "-n", "1",
                        "--no-python"], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        fail(f"perftop exited {r.returncode}: {r.stderr.strip()[:300]}")
    snap = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")][-1]
    rows = [x for x in snap["rows"] if x.get("sym") == "spinner_work"]
    if not rows:
        fail(f"no spinner_work row (its binary exists only inside the fixture's root): "
             f"{[(x.get('sym'), x.get('self')) for x in snap['rows'][:8]]}")
    for x in rows:
        if x.get("pid") != child or x.get("nspid") != want or x.get("nstid") != want:
            fail(f"spinner_work's row: pid {x.get('pid')} nspid {x.get('nspid')} nstid {x.get('nstid')}, "
                 f"want {child} ({want}) from /proc/{child}/status")
    # the text table says it the same way
    r = subprocess.run([perftop, "-p", str(child), "-s", "pid,sym", "-b", "-d", "1", "-n", "1",
                        "--no-python"], capture_output=True, text=True, timeout=60)
    if f"{child} ({want})" not in r.stdout:
        fail(f"the text table does not show '{child} ({want})':\n{r.stdout[:600]}")
    print(f"ok: pid {child} ({want}), spinner_work named from inside its root")
finally:
    # the namespace's init first (its parent's death would not end it): it holds ctest's output
    subprocess.run(["pkill", "-KILL", "-P", str(u.pid)])
    u.kill()
    u.wait()
    shutil.rmtree(d, True)
