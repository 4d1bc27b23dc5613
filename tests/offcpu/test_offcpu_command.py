#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: perftop --off-cpu on a command charges each blocking function with the
off-CPU time the workload measured itself, within 10%.

blocker (blocker.c) runs SECS seconds under `perftop --off-cpu -b --json -z -d 1`: its threads wait
in sleep_wait (nanosleep 10 ms), sync_wait (write 4 KiB + fdatasync on a file in a directory of a
disk-backed filesystem: the system's temporary directory unless it is tmpfs, see offcpulib), lock_wait
(a mutex another thread, in hold_lock, keeps 30 ms at a time), and one spins in spin_work; each call
is timed by the program (wall time minus the thread's CPU time over it).

  - -s sym: each function's total_ns summed over the windows (each -z window counts its own time,
    blocks still open at a refresh counted up to it) within 10% of the workload's figure (sync_wait
    where fdatasync never blocks: within 10% or 1% of the run; spin_work within 10% or 1% of the
    run, its blocks at least the spinner's switches, offcpulib.check_functions); every snapshot says
    "mode": "off-cpu" and its rows carry self_ns, total_ns, total_blocks and longest_ns; the blocks
    with each function on the stack are at least the calls that blocked, its longest block no
    longer than its longest call's wait and at least the sleep (10 ms) or the hold (30 ms; the
    locker's most of it);
  - -s state,sym: the same totals summed over states, and sleep_wait, lock_wait and hold_lock mostly
    in S, sync_wait mostly in D (when fdatasync blocked in this run; else said why not);
  - --min-block 5: the 10 ms sleeps and 30 ms holds whole, and every function's remaining blocks
    5 ms or more on average.

usage: test_offcpu_command.py PERFTOP FIXTURE_DIR"""
import os
from offcpulib import (args, blocker_cmd, check_libc_callers, check_snapshots, check_mode,
                       check_states, fail,
                       load_workload, max_rows, need_fields, passed, run_perftop, scratch_dir,
                       sum_rows, sync_blocked)

SECS = 3
perftop, blocker = args()
d, where = scratch_dir()
print(f"fdatasync's file in {where}")
checks = 0

# -s sym: the functions' time
out = os.path.join(d, "sym.json")
snaps, _ = run_perftop(perftop, ["--off-cpu", "-z", "-d", "1", "-s", "sym"],
                       blocker_cmd(blocker, SECS, d, out))
w = load_workload(out)
print(sync_blocked(w)[1])
check_mode(snaps, "off-cpu")
need_fields(snaps, ("sym", "self_ns", "total_ns", "blocks", "total_blocks", "longest_ns"))
checks += 2
print(f"-s sym: {len(snaps)} snapshots")
checks += check_snapshots(snaps, w, 0.10, "-s sym")
checks += check_libc_callers(snaps, w, 0.10, "-s sym")

# Blocks with the function on the stack: at least one per call that blocked; the longest no longer
# than the longest call's wait and at least what one call must wait (the 10 ms sleep, the 30 ms
# hold; the locker's wait is the hold less its wakeup, so most of it).
blocks = sum_rows(snaps, lambda r: r["sym"], "total_blocks")
longest = max_rows(snaps, lambda r: r["sym"])
for fn, floor in (("sleep_wait", 9.5e6), ("lock_wait", 20e6), ("hold_lock", 29.5e6)):
    f = w["functions"][fn]
    print(f"  {fn}: {blocks.get(fn, 0)} blocks for {f['blocked_calls']} calls that blocked; "
          f"longest {longest.get(fn, 0) / 1e6:.2f} ms (the longest call waited "
          f"{f['max_off_ns'] / 1e6:.2f} ms)")
    if blocks.get(fn, 0) < 0.95 * f["blocked_calls"]:
        fail(f"{fn}: {blocks.get(fn, 0)} blocks for {f['blocked_calls']} calls that blocked")
    if not floor <= longest.get(fn, 0) <= f["max_off_ns"] * 1.02 + 1e6:
        fail(f"{fn}: the longest block {longest.get(fn, 0) / 1e6:.2f} ms, want at least "
             f"{floor / 1e6:.1f} ms and at most the longest call's {f['max_off_ns'] / 1e6:.2f} ms")
    checks += 2

# -s state,sym: how they waited
out = os.path.join(d, "state.json")
snaps, _ = run_perftop(perftop, ["--off-cpu", "-z", "-d", "1", "-s", "state,sym"],
                       blocker_cmd(blocker, SECS, d, out))
w = load_workload(out)
check_mode(snaps, "off-cpu")
print(f"-s state,sym: {len(snaps)} snapshots; {sync_blocked(w)[1]}")
checks += check_snapshots(snaps, w, 0.10, "-s state,sym")
checks += check_states(snaps, w, "-s state,sym")

# --min-block 5: blocks under 5 ms are dropped. The sleeper's 10 ms sleeps and the mutex's 30 ms
# holds stay whole (within 10%); every function's blocks that are left average at least 5 ms (a
# fraction of fdatasync's or the spinner's short blocks slipping through would pull it far below).
MIN_MS = 5
out = os.path.join(d, "min.json")
snaps, _ = run_perftop(perftop, ["--off-cpu", "-z", "-d", "1", "-s", "sym", "--min-block",
                                 str(MIN_MS)], blocker_cmd(blocker, SECS, d, out))
w = load_workload(out)
check_mode(snaps, "off-cpu")
checks += check_snapshots(snaps, w, 0.10, f"--min-block {MIN_MS}",
                          funcs=("sleep_wait", "hold_lock"))
total = sum_rows(snaps, lambda r: r["sym"])
blocks = sum_rows(snaps, lambda r: r["sym"], "total_blocks")
for fn in ("sleep_wait", "sync_wait", "lock_wait", "hold_lock", "spin_work"):
    if blocks.get(fn, 0):
        avg = total.get(fn, 0) / blocks[fn]
        print(f"  --min-block {MIN_MS}: {fn}: {blocks[fn]} blocks, {avg / 1e6:.2f} ms on average")
        if avg < 0.95 * MIN_MS * 1e6:
            fail(f"--min-block {MIN_MS}: {fn}'s {blocks[fn]} blocks average {avg / 1e6:.2f} ms")
    checks += 1
passed(checks)
