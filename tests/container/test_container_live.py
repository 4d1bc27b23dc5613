#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: `perftop -a -s container,sym` live, on two cgroups the test makes under the perf_event
hierarchy with a 3:1 split of work (three spinners in one, one in the other) and a third program
outside them. The two cgroups are shown by name (their paths: no runtime's layout), their shares of
the two together within 3 points of what the spinners' own CPU clocks (/proc/PID/stat) say of the
same window, and the outsider's samples under its own cgroup's name (host for the root), never
under the test's cgroups. The header's shares are the rows' sums.

usage: test_container_live.py PERFTOP FIXTURE_DIR"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import cgrouplib  # noqa: E402
from perfprobe import fail, need_perf_events  # noqa: E402

perftop, fixtures = sys.argv[1], sys.argv[2]
spinner = os.path.join(fixtures, "spinner")
need_perf_events("cpu")
mount, v2 = cgrouplib.need_mount()
tag = f"perftop-live-{os.getpid()}"
dir_a, path_a = cgrouplib.make(mount, tag + "-a")
dir_b, path_b = cgrouplib.make(mount, tag + "-b")

secs = 2
a = [cgrouplib.start_in(dir_a, [spinner, str(2 * secs + 5)]) for _ in range(3)]
b = [cgrouplib.start_in(dir_b, [spinner, str(2 * secs + 5)])]
out = cgrouplib.start_in(None, [os.path.join(fixtures, "diff_work"), str(2 * secs + 5), "1", "0", "0", "0"])
time.sleep(0.3)
outsider_cg = cgrouplib.cgroup_of(out.pid, v2)

def run(env_extra, how):
    ticks0 = {p.pid: cgrouplib.cpu_ticks(p.pid) for p in a + b}
    env = dict(os.environ, **env_extra)
    r = subprocess.run([perftop, "-a", "-s", "container,sym", "-b", "--json", "-d", str(secs), "-n", "1",
                        "-F", "999", "--no-python"], capture_output=True, text=True, timeout=60, env=env)
    ticks1 = {p.pid: cgrouplib.cpu_ticks(p.pid) for p in a + b}
    if r.returncode != 0:
        fail(f"{how}: perftop exited {r.returncode}: {r.stderr.strip()[:300]}")
    snap = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")][-1]

    by = {}
    for row in snap["rows"]:
        by.setdefault(row.get("container"), []).append(row)
    for cg in (path_a, path_b):
        if cg not in by:
            fail(f"{how}: no rows for the cgroup {cg}: containers {sorted(k for k in by if k)}")
    share = {cg: sum(r["self"] for r in by[cg]) for cg in (path_a, path_b)}
    spent_a = sum(ticks1[p.pid] - ticks0[p.pid] for p in a)
    spent_b = sum(ticks1[p.pid] - ticks0[p.pid] for p in b)
    if spent_a + spent_b == 0:
        fail("the spinners spent no CPU time")
    want_a = 100.0 * spent_a / (spent_a + spent_b)
    got_a = 100.0 * share[path_a] / (share[path_a] + share[path_b])
    print(f"{how}: {path_a}: {got_a:.1f}% of the two (its spinners' clocks: {want_a:.1f}%; 75 by design)")
    if abs(got_a - want_a) > 3:
        fail(f"{how}: {path_a} has {got_a:.1f}% of the two cgroups' samples, its spinners' clocks {want_a:.1f}%")

    # the outsider (diff_work, whose only work is work_a): under its own cgroup's name, never the test's
    for cg in (path_a, path_b):
        if any(r.get("sym") == "work_a" for r in by[cg]):
            fail(f"{how}: the outsider's work_a shows under {cg}")
    outs = [k for k, rows in by.items() if any(r.get("sym") == "work_a" for r in rows)]
    if not outs:
        fail(f"{how}: the outsider's work_a (cgroup {outsider_cg}) is in no row: {sorted(k for k in by if k)}")
    if outsider_cg in ("/", "") and outs != ["host"]:
        fail(f"{how}: the outsider in the root cgroup shows under {outs}, not host")

    heads = {c["container"]: c["self"] for c in snap.get("containers", [])}
    for k, v in heads.items():
        # the rows print 4 decimals: their sum is off by up to half a unit each
        if abs(v - sum(r["self"] for r in by.get(k, []))) > 0.00005 * len(by.get(k, [])) + 0.001:
            fail(f"{how}: the header gives {k} {v:.2f}%, its rows {sum(r['self'] for r in by.get(k, [])):.2f}%")
    if path_a not in heads:
        fail(f"{how}: the header's top containers {heads} miss {path_a}")
    print(f"ok ({how}): {path_a} {share[path_a]:.1f}%, {path_b} {share[path_b]:.1f}%, outsider under {outs}")


# the kernel's ids (PERF_SAMPLE_CGROUP), then /proc/PID/cgroup as on a kernel before 5.7
run({}, "sample ids")
run({"PERFTOP_CGROUP_FROM_PROC": "1"}, "/proc")
