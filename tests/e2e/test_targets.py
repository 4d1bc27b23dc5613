#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: the targets no other test runs, each checked against what the test set up
(which thread, which processes, which CPU) and the session's own recording where it helps.

  - -t TID: the spinner's late thread only: every row of -s tid,sym is that tid, spinner_late_thread
    is there and the main thread's spinner_main_loop is not;
  - -p A,B: two spinners at once: -s pid shows both pids and no other;
  - -C LIST: a spinner pinned (sched_setaffinity) to one CPU and another to a second CPU; -C FIRST -s
    pid shows the first and not the second, and perf script on the recording (-o) finds every sample
    on that CPU; the second spinner needs a second CPU, so "leaving out the other CPU" is a part of
    its own (PART cpu-leaves-out-other, its own ctest test, which skips where
    /sys/devices/system/cpu/online and the test's affinity give one CPU);
  - a command's children: sh -c 'spinner & spinner; wait': the work is in two children sh forked and
    exec'd, and both show up (two pids with spinner_work, comm spinner).

usage: test_targets.py PERFTOP FIXTURE_DIR [cpu-leaves-out-other]"""
import os
import subprocess
import sys
import tempfile
import time
from e2elib import fail, passed, run_json
from perfprobe import need_tool, skip

spinner = os.path.join(sys.argv[2], "spinner")
part = sys.argv[3] if len(sys.argv) > 3 else None
if part not in (None, "cpu-leaves-out-other"):
    fail(f"no part {part!r}: cpu-leaves-out-other or none")
checks = 0


def cpus_here():
    """The CPUs this test can pin to: online (the kernel's list) and in its affinity mask."""
    with open("/sys/devices/system/cpu/online") as f:
        online = set()
        for span in f.read().strip().split(","):
            lo, _, hi = span.partition("-")
            online.update(range(int(lo), int(hi or lo) + 1))
    return sorted(online & os.sched_getaffinity(0)), sorted(online)


def spin(secs, late_ms=None, cpu=None):
    """A spinner, started and ready; pinned to cpu when given."""
    args = [spinner, str(secs)] + ([str(late_ms)] if late_ms is not None else [])
    pre = (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None
    p = subprocess.Popen(args, stdout=subprocess.PIPE, text=True, preexec_fn=pre)
    if p.stdout.readline().strip() != "ready":
        fail(f"{args} did not start")
    return p


def stop(*ps):
    for p in ps:
        p.kill()
        p.wait()
        p.stdout.close()


def field_rows(snaps, key):
    """{(row[key], sym): summed self} over the snapshots."""
    out = {}
    for s in snaps:
        for r in s["rows"]:
            if key not in r:
                fail(f"-s {key},...: a row without '{key}': {r}")
            k = (r[key], r["sym"])
            out[k] = out.get(k, 0.0) + r["self"]
    return out


# -C: a CPU's samples only (and, as its own part, not those of a spinner on another CPU)
def cpu_part(other):
    global checks
    cpus, online = cpus_here()
    if other and len(cpus) < 2:
        skip(f"one CPU to pin to (online {online}, affinity {sorted(os.sched_getaffinity(0))}): "
             "no other CPU whose spinner -C could leave out")
    need_tool("perf")
    with tempfile.TemporaryDirectory(prefix="perftop-cpu-") as d:
        rec = os.path.join(d, "c.data")
        a = spin(3, cpu=cpus[0])
        b = spin(3, cpu=cpus[1]) if other else None
        try:
            snaps, _ = run_json(["-C", str(cpus[0]), "-s", "pid", "-n", "2", "-d", "0.5", "-o", rec])
        finally:
            stop(*[x for x in (a, b) if x])
        pids = {}
        for s in snaps:
            for r in s["rows"]:
                pids[r["pid"]] = pids.get(r["pid"], 0.0) + r["self"]
        on = subprocess.run(["perf", "script", "-i", rec, "-F", "cpu"], capture_output=True,
                            text=True, timeout=120).stdout.split()
        seen = {int(c.strip("[]")) for c in on}
    print(f"-C {cpus[0]}: Self% by pid {sorted(pids.items(), key=lambda kv: -kv[1])[:4]}; "
          f"CPUs of the recording's {len(on)} samples: {sorted(seen)}")
    if a.pid not in pids or seen != {cpus[0]}:
        fail(f"-C {cpus[0]}: the spinner pinned there ({a.pid}) should be in {pids}, and the samples "
             f"on CPU {cpus[0]} only: {sorted(seen)}")
    checks += 2
    if other:
        if b.pid in pids:
            fail(f"-C {cpus[0]}: the spinner pinned to CPU {cpus[1]} ({b.pid}) is in the rows: {pids}")
        print(f"-C {cpus[0]}: the spinner pinned to CPU {cpus[1]} ({b.pid}) is left out")
        checks += 1


if part == "cpu-leaves-out-other":
    cpu_part(True)
    passed(checks)

# -t: the late thread alone
p = spin(3, late_ms=200)
try:
    time.sleep(0.4)
    tids = sorted(int(t) for t in os.listdir(f"/proc/{p.pid}/task"))
    late = [t for t in tids if t != p.pid]
    if len(late) != 1:
        fail(f"the spinner should have one late thread by now: tasks {tids}")
    snaps, _ = run_json(["-t", str(late[0]), "-s", "tid,sym", "-n", "2", "-d", "0.5"])
finally:
    stop(p)
rows = field_rows(snaps, "tid")
if {t for t, _ in rows} != {late[0]}:
    fail(f"-t {late[0]}: rows of tids {sorted({t for t, _ in rows})}")
syms = {s for _, s in rows}
if "spinner_late_thread" not in syms or "spinner_main_loop" in syms:
    fail(f"-t {late[0]} (the late thread): symbols {sorted(syms)}")
print(f"-t {late[0]}: rows {sorted(syms)}")
checks += 2

# -p A,B
a, b = spin(3), spin(3)
try:
    snaps, _ = run_json(["-p", f"{a.pid},{b.pid}", "-s", "pid", "-n", "2", "-d", "0.5"])
finally:
    stop(a, b)
pids = {}
for s in snaps:
    for r in s["rows"]:
        pids[r["pid"]] = pids.get(r["pid"], 0.0) + r["self"]
print(f"-p {a.pid},{b.pid}: Self% by pid {pids}")
if set(pids) != {a.pid, b.pid} or min(pids.values()) < 10:
    fail(f"-p {a.pid},{b.pid}: rows of pids {pids}")
checks += 1

cpu_part(False)

# a command's children: the work is in two processes sh forks and execs
snaps, _ = run_json(["-s", "comm,pid,sym", "-d", "0.5", "--", "sh", "-c",
                     f"'{spinner}' 1.2 & '{spinner}' 1.2; wait"])
kids = {(r["comm"], r["pid"]) for s in snaps for r in s["rows"] if r["sym"] == "spinner_work"}
print(f"children: spinner_work in {sorted(kids)}")
if len(kids) != 2 or {c for c, _ in kids} != {"spinner"}:
    fail(f"sh -c 'spinner & spinner; wait': want spinner_work in two spinner processes, got {kids}")
checks += 1
passed(checks)
