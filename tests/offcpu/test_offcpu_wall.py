#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: --wall puts on-CPU samples (their period in ns) and off-CPU time in one
profile, so that a thread that sleeps all the time and one that spins all the time weigh the same.

blocker runs SECS seconds under `perftop --wall -b --json -z -d 1 -s sym`: the sleeper spends its
run in sleep_wait (nanosleep), the spinner its run in spin_work (on the CPU, off it only when
preempted), the locker in lock_wait, the holder in hold_lock (each thread's loop is that one
function). Each of the four functions' total_ns, summed over the windows, is within 15% of its
thread's whole run as the workload measured it (CLOCK_MONOTONIC over the thread's loop); every
snapshot says "mode": "wall".

usage: test_offcpu_wall.py PERFTOP FIXTURE_DIR"""
import os
from offcpulib import (args, blocker_cmd, check_mode, close, fail, load_workload, need_fields,
                       passed, run_perftop, scratch_dir, sum_rows)

SECS = 3
perftop, blocker = args()
d, where = scratch_dir()
out = os.path.join(d, "wall.json")
snaps, _ = run_perftop(perftop, ["--wall", "-z", "-d", "1", "-s", "sym"],
                       blocker_cmd(blocker, SECS, d, out))
w = load_workload(out)
check_mode(snaps, "wall")
need_fields(snaps, ("sym", "self_ns", "total_ns"))
total = sum_rows(snaps, lambda r: r["sym"])
print(f"--wall: {len(snaps)} snapshots")
checks = 2
bad = []
# Each thread's loop is one function: its whole run is that function's time, on the CPU or off it.
for fn, th in (("sleep_wait", "sleeper"), ("spin_work", "spinner"), ("lock_wait", "locker"),
               ("hold_lock", "holder")):
    t = w["threads"][th]
    ok, line = close(f"{fn} against the {th}'s run", total.get(fn, 0), t["wall_ns"], 0.15)
    print(f"  {line} (the {th} was on the CPU {t['cpu_ns'] / 1e6:.1f} ms of it)")
    checks += 1
    if not ok:
        bad.append(line)
if bad:
    fail("--wall: " + "; ".join(bad))
passed(checks)
