#!/usr/bin/env python3
"""Acceptance (issue 14): perftop --off-cpu's per-thread totals agree with perf sched timehist on the
same run within 5%.

perf sched record records every context switch of the machine while perftop profiles blocker, in
two runs: started by perftop (per-task events), and beside `perftop -a` (per-CPU events), which
the test starts first and stops once blocker has exited. `perf sched timehist` prints, at each
switch-out of a task, its "wait time": the time between its previous switch-out and this switch-in,
i.e. one whole stretch off the CPU ("sch delay", the part of it after the wakeup, is inside it and
is not added again). Their sum per thread is the thread's off-CPU time; each of blocker's five named
threads (created after the exec, so all of their waits are inside both profilers' view) is compared
with perftop's row for its tid, summed over the windows: within 5%, or within 1% of the thread's run
for a thread that hardly waits (the spinner, off the CPU only when preempted). Each thread's blocks
(summed) and its longest block (the longest of any window) against the number of waits and the
longest wait timehist shows for it.

With -a perftop takes both ends of a block from the sched_switch tracepoint, as timehist does. Per
task the kernel delivers no tracepoint sample at a switch-in (the task is not running yet), only a
switch-in record written after the switch, once the task's events are scheduled in; perftop then
measures from the switch-out record, so that the two records' lags after their tracepoints mostly
cancel (sampler/offcpu.h). What does not cancel is the switch itself and the scheduling in of the
task's events, 2-3 us a block in this VM: for a thread whose blocks last some tens of microseconds
(fdatasync on a fast disk) that is several per cent. Per task, a thread is therefore held to 5% or
3 us a block, whichever is more. (With -a, perftop's and perf's handlers at one tracepoint take
their own timestamps, each some microseconds after the other's; the difference of their call chain
walks at the two ends stays in the comparison too: about 1 us a block here.)

timehist takes a task's switch-in time from the previous sched_switch event on its CPU. Some kernels
(6.18 here) do not report switches away from the idle task through the tracepoint (the switch-in is
in the PERF_RECORD_SWITCH records only); timehist then counts the idle time before a wakeup as the
woken task's run time. So that every switch is from a task to a task, the test keeps the CPUs busy
with SCHED_IDLE loops (they run only when no other task wants the CPU, and are preempted at once by
any wakeup), and checks that the recording's sched_switch events link up on every CPU (each one's
next task is the following one's previous task) before it trusts timehist: a thread with a broken
link is left out of the comparison (a stall of the machine made one a wait of 600 ms that timehist
measured from the wrong event); with more than two such threads the run is made again (three times
at most before the test fails for want of a reference).

usage: test_offcpu_timehist.py PERFTOP FIXTURE_DIR"""
import os
import re
import subprocess
import sys
from offcpulib import (THREADS, args, need_tracefs, blocker_cmd, check_mode, close, fail, kinds_for,
                       load_workload, max_rows, need_perf_events, need_tool, passed, perf_script,
                       scratch_dir, skip, snapshots, sum_rows)

SECS = 2
perftop, blocker = args()
need_tool("perf")
need_tracefs()
pt_args = ["--off-cpu", "-b", "--json", "-z", "-d", "1", "-s", "tid"]
need_perf_events(*kinds_for(pt_args + ["-a"]))
d, where = scratch_dir()
# perftop -a: windows enough for blocker's start, its SECS and its exit.
ALL_WINDOWS = SECS + 4


def idle_loop(cpu):
    def setup():
        os.sched_setaffinity(0, {cpu})
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    return setup


def recorded(name, out):
    """perf sched record of one run: (its file, perftop's snapshots)."""
    rec = os.path.join(d, f"{name}.data")
    if name == "per-task":
        run = [perftop] + pt_args + ["--"] + blocker_cmd(blocker, SECS, d, out)
    else:
        # perftop -a first, its output to a file; blocker once perftop's first window is out.
        snaps = os.path.join(d, f"{name}.snaps")
        script = ('"$1" -a -n "$2" "${@:6}" > "$3" & pt=$!; '
                  'for i in $(seq 300); do [ -s "$3" ] && break; sleep 0.05; done; '
                  '"$4" "$5" --dir "$DIR" --out "$OUT"; wait $pt')
        run = ["bash", "-c", script, "driver", perftop, str(ALL_WINDOWS), snaps, blocker,
               str(SECS)] + pt_args
    # One on each CPU, pinned there: a CPU never goes idle while it is runnable.
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                preexec_fn=idle_loop(c))
               for c in sorted(os.sched_getaffinity(0))]
    try:
        cmd = ["perf", "sched", "record", "-o", rec, "--"] + run
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, DIR=d, OUT=out))
    finally:
        for b in burners:
            b.kill()
            b.wait()
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[-400:]}")
    lost = re.findall(r"(\d+) (?:lost|chunks LOST)", p.stderr, re.I)
    if any(int(x) for x in lost):
        fail(f"perf sched record lost events, its reference is incomplete: {p.stderr.strip()[-300:]}")
    if name == "per-task":
        return rec, snapshots(p.stdout, f"perftop under perf sched record ({name})")
    with open(snaps) as f:
        return rec, snapshots(f.read(), f"perftop -a under perf sched record")


def check_links(rec, tids):
    """The reference is sound only where sched_switch events link up on each CPU."""
    last_next, links, broken, ours_in, ours_broken, unsound = {}, 0, 0, 0, 0, set()
    for line in perf_script(rec, "cpu,event,trace", timeout=120).splitlines():
        m = re.match(r"\s*\[(\d+)\]\s+sched:sched_switch:.*prev_pid=(-?\d+).*next_pid=(-?\d+)", line)
        if not m:
            continue
        cpu, prev, nxt = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if cpu in last_next:
            links += 1
            ours_in += prev in tids
            if last_next[cpu] != prev:
                broken += 1
                ours_broken += prev in tids
                if prev in tids:
                    unsound.add(prev)
        last_next[cpu] = nxt
    print(f"  perf sched record: {links} sched_switch links, {broken} broken; {ours_broken} of the "
          f"{ours_in} switch-outs of blocker's threads lack the switch-in before them")
    if ours_in == 0:
        fail("perf sched record has no sched_switch events of blocker's threads")
    if ours_broken > 0.01 * ours_in:
        fail(f"{ours_broken} switch-ins of blocker's threads missing from the sched_switch events "
             "even with the CPUs kept busy: timehist's waits would be wrong, no reference")
    return unsound


def timehist(rec, tids):
    """Per thread: (summed wait time, lines, longest wait), in ns."""
    th = subprocess.run(["perf", "sched", "timehist", "-i", rec], capture_output=True, text=True,
                        timeout=120)
    if th.returncode != 0:
        fail(f"perf sched timehist -i {rec}: {th.stderr.strip()[:300]}")
    wait, runs, longest = {}, {}, {}
    row = re.compile(r"\s*[\d.]+\s+\[\d+\]\s+.*?\[(\d+)(?:/\d+)?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$")
    for line in th.stdout.splitlines():
        m = row.match(line)
        if m and int(m.group(1)) in tids:
            t, ns = int(m.group(1)), float(m.group(2)) * 1e6
            wait[t] = wait.get(t, 0) + ns
            runs[t] = runs.get(t, 0) + 1
            longest[t] = max(longest.get(t, 0), ns)
    return wait, runs, longest


def sound_run(name, attempts=3):
    """A run whose reference can be trusted for all but two of blocker's threads at most.

    A thread with a switch-in missing from the sched_switch events has a wait timehist measured
    from the wrong event (one of hundreds of ms when the machine stalled, seen once): not a
    reference for that thread. When that hits more than two threads (a CI machine under load did
    it: 5 of 38,441 switch-ins missing, across 3 threads) the recording is the reference's fault,
    not perftop's: the run is made again, and only a reference broken every time fails."""
    for attempt in range(1, attempts + 1):
        out = os.path.join(d, f"{name}.json")
        rec, snaps = recorded(name, out)
        print(f"{name}:" if attempt == 1 else f"{name}, again ({attempt} of {attempts}):")
        w = load_workload(out)
        tids = {w["threads"][t]["tid"]: t for t in THREADS}
        unsound = check_links(rec, tids)
        if len(unsound) <= 2:
            return rec, snaps, w, tids, unsound
        print(f"  {len(unsound)} of blocker's threads lack switch-ins in the sched_switch events: "
              "no reference for them, recording again")
    fail(f"{attempts} runs, in each more than two of blocker's threads lack switch-ins in the "
         "sched_switch events perf sched record wrote: no reference")


def compare(name):
    """One run: blocker's threads against timehist; the failures' lines."""
    rec, snaps, w, tids, unsound = sound_run(name)
    check_mode(snaps, "off-cpu")
    ours = sum_rows(snaps, lambda r: int(r["tid"]))
    # Records perftop lost (its rings overflowed while the machine stalled): the blocks open across
    # the gap are dropped by design (never inflated), so a thread may then come out short, and its
    # blocks fewer; over the reference is a failure all the same.
    lost = sum(sn.get("lost", 0) + sn.get("dropped", 0) for sn in snaps)
    print(f"  perftop lost or dropped {lost} records")
    wait, runs, longest = timehist(rec, tids)
    bad = []
    for tid in unsound:
        print(f"  {tids[tid]} (tid {tid}): not compared, a switch-in of it is missing from the "
              "sched_switch events timehist reads")
        del tids[tid]
    for tid, t in tids.items():
        ref = wait.get(tid, 0)
        slack = 0.01 * w["threads"][t]["wall_ns"]
        if name == "per-task":
            slack = max(slack, 3e3 * runs.get(tid, 0))
        ok, line = close(f"{t} (tid {tid})", ours.get(tid, 0), ref, 0.05, slack)
        own = (w['threads'][t]['wall_ns'] - w['threads'][t]['cpu_ns']) / 1e6
        print(f"  {line}; the thread's own clocks: {own:.1f} ms off the CPU in its loop")
        if not ok and lost and ours.get(tid, 0) < ref:
            print(f"  {t}: short, with {lost} records lost: not held to the reference")
            ok = True
        if not ok:
            bad.append(f"{name}: {line}")
    # A thread's runs are timehist's lines (one per switch-out), its blocks the stretches between
    # them (its first run follows no block and its last switch-out, at its exit, begins none).
    blocks = sum_rows(snaps, lambda r: int(r["tid"]), "total_blocks")
    ptlong = max_rows(snaps, lambda r: int(r["tid"]))
    for tid, t in tids.items():
        want = runs.get(tid, 0) - 1
        print(f"  {t}: {blocks.get(tid, 0)} blocks, timehist {want}; longest "
              f"{ptlong.get(tid, 0) / 1e6:.2f} ms, timehist {longest.get(tid, 0) / 1e6:.2f} ms")
        if abs(blocks.get(tid, 0) - want) > 0.01 * want + 2 and not (lost and blocks.get(tid, 0) < want):
            bad.append(f"{name}: {t}: {blocks.get(tid, 0)} blocks, timehist has {want}")
        ok, line = close(f"{t}'s longest block", ptlong.get(tid, 0), longest.get(tid, 0), 0.05, 2e6)
        if not ok:
            bad.append(f"{name}: {line}")
    return bad, 2 + 3 * len(tids)


bad, checks = [], 0
for run in ("per-task", "all-cpus"):
    b, n = compare(run)
    bad += b
    checks += n
if bad:
    fail("per thread against perf sched timehist: " + "; ".join(bad))
passed(checks)
