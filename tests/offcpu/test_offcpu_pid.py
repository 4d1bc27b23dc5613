#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: perftop --off-cpu attached to a program already running (its threads
already blocked and waking in their loops) charges each blocking function with the off-CPU time the
program measured itself over the part compared, within 10%: with -p PID (per-task events: the
switch-ins from context-switch records), with -t on two of its threads (their functions only), with
-a and with -C listing every CPU (per-CPU events; the program's rows by pid). Two perftops watch
each run of the program (-p and -a; -t and -C), each held to that run's own clocks.

blocker --wait-signal runs its threads' loops untimed until SIGUSR1, waiting the same ways in
functions of their own (warmup_sleep, ...); the functions compared are called in the timed phase
only. The test lets it run, attaches `perftop --off-cpu -b --json -z -d 0.5` (twice), waits for each
perftop's first snapshot (its events are on then), sends SIGUSR1 (the program's timed phase of SECS seconds
starts), and sums every window perftop printed, the first included. A window holds what perftop
took in during it, not what happened during it: at the first snapshot perftop may still be hundreds
of milliseconds of records behind (whole-machine events, cold symbol tables, a loaded machine), and
the test itself may be descheduled before it signals. Summing windows from a moment judged from
outside therefore charged the compared functions with warm-up time; with the warm-up under other
names, every block of a compared function is of the timed phase, whichever window it lands in.
With -p and -t perftop ends when the program has exited; with -a and -C the test stops it with -n
(windows enough to cover the phase) and sums the windows up to the program's exit.

usage: test_offcpu_pid.py PERFTOP FIXTURE_DIR"""
import os
import signal
import subprocess
import time
from offcpulib import (args, blocker_cmd, check_snapshots, check_mode, fail, kinds_for,
                       load_workload, need_perf_events, passed, scratch_dir, snapshots,
                       sync_blocked)

SECS = 3
perftop, blocker = args()
d, where = scratch_dir()
print(f"fdatasync's file in {where}")


def attached(targets):
    """blocker under perftops attached mid-run, one for each (NAME, TARGET) of targets (TARGET(pid):
    -p PID, -a ...), all on the same run of the program, each one's events on before its timed phase
    starts: ({NAME: every snapshot of that perftop}, the workload's figures, the program's pid).
    Each perftop's rows are held to the same run's own clocks, so that two of them watching one run
    check what two runs would, in the time of one."""
    out = os.path.join(d, f"{targets[0][0]}.json")
    prog = subprocess.Popen(blocker_cmd(blocker, SECS, d, out, ["--wait-signal"]),
                            stdout=subprocess.PIPE, text=True)
    pts = {}  # name: (Popen, its arguments, its snapshots' file)
    errs = {}
    try:
        line = prog.stdout.readline().split()
        if line[:1] != ["ready"]:
            fail(f"blocker did not start: {line}")
        time.sleep(0.5)  # its loops are under way: threads blocked, waking, blocking again
        for name, target in targets:
            pt_args = ["--off-cpu", "-b", "--json", "-z", "-d", "0.5"] + target(prog.pid)
            need_perf_events(*kinds_for(pt_args))
            # perftop's output goes to a file: a pipe nobody reads until the program is done would
            # fill (an -a snapshot of pid,sym rows is tens of KiB) and stop perftop's writes, and
            # its queue would overflow meanwhile.
            snap_path = os.path.join(d, f"{name}.snaps")
            with open(snap_path, "w") as snap_file:
                pts[name] = (subprocess.Popen([perftop] + pt_args, stdout=snap_file,
                                              stderr=subprocess.PIPE, text=True),
                             pt_args, snap_path)
        for name, (pt, pt_args, snap_path) in pts.items():
            first = ""
            for _ in range(300):
                with open(snap_path) as f:
                    first = f.readline()
                if first.endswith("\n") or pt.poll() is not None:
                    break
                time.sleep(0.01)
            if not first.startswith("{"):
                fail(f"perftop {' '.join(pt_args)} gave no first snapshot: {first!r}")
            check_mode(snapshots(first, "the first snapshot"), "off-cpu")
        prog.send_signal(signal.SIGUSR1)
        if prog.stdout.readline().strip() != "started":
            fail("blocker did not start its timed phase")
        prog.wait(timeout=SECS + 30)
        for name, (pt, _, _) in pts.items():
            errs[name] = pt.communicate(timeout=SECS + 60)[1]
    finally:
        for p in [pt for pt, _, _ in pts.values()] + [prog]:
            if p and p.poll() is None:
                p.kill()
                p.wait()
    for name, (pt, pt_args, _) in pts.items():
        if pt.returncode != 0:
            fail(f"perftop {' '.join(pt_args)} exited {pt.returncode}: {errs[name].strip()[:300]}")
    if prog.returncode != 0:
        fail(f"blocker exited {prog.returncode}")
    w = load_workload(out)
    names = " and ".join(name for name, _ in targets)
    print(f"{names}: {sync_blocked(w)[1]}")
    every = {}
    for name, (_, pt_args, snap_path) in pts.items():
        with open(snap_path) as f:
            every[name] = snapshots(f.read(), f"perftop {' '.join(pt_args)}")
        check_mode(every[name], "off-cpu")
        print(f"{name}: {len(every[name])} snapshots")
    return every, w, prog.pid


def tids_named(pid, names):
    """The tids of pid's threads of those names (blocker names its threads at their start)."""
    out = []
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{t}/comm") as f:
                if f.read().strip() in names:
                    out.append(t)
        except OSError:
            pass
    if len(out) != len(names):
        fail(f"blocker's threads {names} not found in /proc/{pid}/task: {out}")
    return out


checks = 0
# Two perftops on each run of the program: one with per-task events, which end with the program,
# and one with per-CPU events, stopped with -n (windows enough for the phase and the program's exit
# after it, with room for perftop to take in the last records late: it ran a second behind on a
# loaded machine). Never two per-CPU ones at once: each takes in the whole machine's switches.
n = int((SECS + 4) / 0.5)
cpus = ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))

# -p: the program's functions within 10%. -a: the whole machine, per CPU, the program's rows by pid.
snaps, w, pid = attached([("-p", lambda pid: ["-s", "sym", "-p", str(pid)]),
                          ("-a", lambda pid: ["-a", "-n", str(n), "-s", "pid,sym"])])
checks += 2 + check_snapshots(snaps["-p"], w, 0.10, "-p mid-run")
checks += 2 + check_snapshots(snaps["-a"], w, 0.10, "-a mid-run, the program's rows",
                              lambda r: int(r["pid"]) == pid)

# -t: two of its threads only (per-task events on each, without inheritance): the sleeper's and
# the syncer's functions within 10%, and no row of the functions where the other threads wait.
# -C with every CPU this test may use: per-CPU events on a list, the program's rows by pid.
snaps, w, pid = attached([("-t", lambda pid: ["-s", "sym", "-t",
                                              ",".join(tids_named(pid, ("sleeper", "syncer")))]),
                          ("-C", lambda pid: ["-C", cpus, "-n", str(n), "-s", "pid,sym"])])
checks += 2 + check_snapshots(snaps["-t"], w, 0.10, "-t sleeper,syncer",
                              funcs=("sleep_wait", "sync_wait"))
others = {r["sym"] for sn in snaps["-t"] for r in sn["rows"]} & {
    "lock_wait", "hold_lock", "spin_work", "warmup_lock", "warmup_hold", "warmup_spin"}
if others:
    fail(f"-t sleeper,syncer: rows of other threads' functions: {sorted(others)}")
checks += 1
checks += 2 + check_snapshots(snaps["-C"], w, 0.10, f"-C {cpus} mid-run, the program's rows",
                              lambda r: int(r["pid"]) == pid)
passed(checks)
