#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: off-CPU time from recordings, within 10% of what the workload measured.

  - `perf record -e sched:sched_switch --switch-events -g` of blocker (hotspot's recipe: the
    switch-outs with their stacks and prev_state, the switch-ins from the context-switch records),
    replayed with `perftop -i FILE --off-cpu -b --json`: one snapshot over the whole file (-s sym),
    and windows of 0.5 s of recorded time (-d 0.5, -s state,sym) summed; each blocking function's
    total_ns within 10% of the workload's own figure, the sleeper's waits S and the fdatasync's D
    (when fdatasync blocked in this run);
  - perftop's own recording of an off-CPU session (`perftop --off-cpu -o FILE`), replayed with
    --off-cpu: the same, and the live session's figures too.

tracefs is mounted at /sys/kernel/tracing if it is not (perf record needs it for the tracepoint);
the test skips only when that cannot be done.

usage: test_offcpu_replay.py PERFTOP FIXTURE_DIR"""
import os
import subprocess
from offcpulib import (args, blocker_cmd, check_libc_callers, check_snapshots, check_mode,
                       check_states, fail,
                       kinds_for, load_workload, need_perf_events, need_tool, need_tracefs, passed,
                       run_perftop, scratch_dir, snapshots, sync_blocked)

SECS = 3
perftop, blocker = args()
need_tool("perf")
need_tracefs()
d, where = scratch_dir()
print(f"fdatasync's file in {where}")
checks = 0


def replay(path, extra):
    p = subprocess.run([perftop, "-i", path, "--off-cpu", "-b", "--json"] + extra,
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail(f"perftop -i {path} --off-cpu {' '.join(extra)} exited {p.returncode}: "
             f"{p.stderr.strip()[:300]}")
    return snapshots(p.stdout, f"perftop -i {path} --off-cpu")


def check_replays(path, w, what, libc_callers=False, whole=None):
    """The checks of a whole-file replay (whole: its snapshots when the caller made it already, the
    same replay) and of one in windows of 0.5 s."""
    n = 0
    if whole is None:
        whole = replay(path, ["-s", "sym"])
    check_mode(whole, "off-cpu")
    if len(whole) != 1:
        fail(f"{what}: a replay without -d gave {len(whole)} snapshots, want one")
    n += 2 + check_snapshots(whole, w, 0.10, f"{what}, whole file")
    if libc_callers:
        n += check_libc_callers(whole, w, 0.10, f"{what}, whole file")
    windows = replay(path, ["-d", "0.5", "-s", "state,sym"])
    check_mode(windows, "off-cpu")
    print(f"  {what}: {len(windows)} windows of 0.5 s")
    n += 1 + check_snapshots(windows, w, 0.10, f"{what}, windows summed")
    n += check_states(windows, w, f"{what}, windows")
    return n


# perf record's file
rec = os.path.join(d, "perf.data")
out = os.path.join(d, "perf.json")
rec_args = ["-e", "sched:sched_switch", "--switch-events", "-g"]
need_perf_events(*kinds_for(rec_args))
cmd = ["perf", "record", "-q", "-N", "-B"] + rec_args + ["-o", rec, "--"] + \
    blocker_cmd(blocker, SECS, d, out)
# A recording with lost records is not a reference: the blocks open across a gap are dropped (by
# design, never inflated), so every total comes out short (a loaded machine once made perf record
# lose 146,482 records of it). Such a recording is made again, three times at most.
for attempt in range(1, 4):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[:300]}")
    whole = replay(rec, ["-s", "sym"])
    lost = sum(sn.get("lost", 0) for sn in whole)
    if not lost:
        break
    print(f"perf record lost {lost} records (attempt {attempt} of 3)")
else:
    fail("perf record lost records in each of 3 recordings: no reference")
w = load_workload(out)
print(f"perf record: {sync_blocked(w)[1]}")
checks += check_replays(rec, w, "perf record", whole=whole)

# perftop's own recording
rec = os.path.join(d, "perftop.data")
out = os.path.join(d, "perftop.json")
snaps, _ = run_perftop(perftop, ["--off-cpu", "-z", "-d", "1", "-s", "sym", "-o", rec],
                       blocker_cmd(blocker, SECS, d, out))
w = load_workload(out)
print(f"perftop -o: {sync_blocked(w)[1]}")
check_mode(snaps, "off-cpu")
checks += 1 + check_snapshots(snaps, w, 0.10, "perftop -o, live")
checks += check_libc_callers(snaps, w, 0.10, "perftop -o, live")
checks += check_replays(rec, w, "perftop -o", libc_callers=True)
passed(checks)
