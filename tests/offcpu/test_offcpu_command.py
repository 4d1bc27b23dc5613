#!/usr/bin/env python3
"""Acceptance (issue 14): perftop --off-cpu on a command charges each blocking function with the
off-CPU time the workload measured itself, within 10%.

blocker (blocker.c) runs SECS seconds under `perftop --off-cpu -b --json -z -d 1`: its threads wait
in sleep_wait (nanosleep 10 ms), sync_wait (write 4 KiB + fdatasync on a file in a directory of a
disk-backed filesystem: the system's temporary directory unless it is tmpfs, see offcpulib), lock_wait
(a mutex another thread, in hold_lock, keeps 30 ms at a time), and one spins in spin_work; each call
is timed by the program (wall time minus the thread's CPU time over it).

  - -s sym: each function's total_ns summed over the windows (each -z window counts its own time,
    blocks still open at a refresh counted up to it) within 10% of the workload's figure (spin_work,
    off the CPU only when preempted, and sync_wait where fdatasync never blocks: within 1% of the
    run); every snapshot says "mode": "off-cpu" and its rows carry self_ns, total_ns, blocks and
    longest_ns (blocks and longest are counted where a block is Self, the kernel's __schedule here:
    test_offcpu_timehist checks them per thread);
  - -s state,sym: the same totals summed over states, and sleep_wait, lock_wait and hold_lock mostly
    in S, sync_wait mostly in D (when fdatasync blocked in this run; else said why not).

usage: test_offcpu_command.py PERFTOP FIXTURE_DIR"""
import os
from offcpulib import (args, blocker_cmd, check_functions, check_mode, check_states,
                       load_workload, need_fields, passed, run_perftop, scratch_dir, sum_rows,
                       sync_blocked)

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
need_fields(snaps, ("sym", "self_ns", "total_ns", "blocks", "longest_ns"))
checks += 2
print(f"-s sym: {len(snaps)} snapshots")
total = sum_rows(snaps, lambda r: r["sym"])
checks += check_functions(total, w, 0.10, "-s sym")

# -s state,sym: how they waited
out = os.path.join(d, "state.json")
snaps, _ = run_perftop(perftop, ["--off-cpu", "-z", "-d", "1", "-s", "state,sym"],
                       blocker_cmd(blocker, SECS, d, out))
w = load_workload(out)
check_mode(snaps, "off-cpu")
print(f"-s state,sym: {len(snaps)} snapshots; {sync_blocked(w)[1]}")
checks += check_functions(sum_rows(snaps, lambda r: r["sym"]), w, 0.10, "-s state,sym")
checks += check_states(snaps, w, "-s state,sym")
passed(checks)
