#!/usr/bin/env python3
"""Acceptance (issue 14): perftop --off-cpu's per-thread totals agree with perf sched timehist on the
same run within 5%.

`perf sched record -- perftop --off-cpu -b --json -z -d 1 -s tid -- blocker SECS`: perf records
every context switch of the machine while perftop profiles blocker. `perf sched timehist` prints, at
each switch-out of a task, its "wait time": the time between its previous switch-out and this
switch-in, i.e. one whole stretch off the CPU ("sch delay", the part of it after the wakeup, is
inside it and is not added again). Their sum per thread is the thread's off-CPU time; each of
blocker's five named threads (created after the exec, so all of their waits are inside both
profilers' view) is compared with perftop's row for its tid, summed over the windows: within 5%, or
within 1% of the thread's run for a thread that hardly waits (the spinner, off the CPU only when
preempted), or 3 us a block for a thread of very short blocks (see PER_SWITCH_NS). Each thread's
blocks (summed) and its longest block (the longest of any window) against
the number of waits and the longest wait timehist shows for it.

timehist takes a task's switch-in time from the previous sched_switch event on its CPU. Some kernels
(6.18 here) do not report switches away from the idle task through the tracepoint (the switch-in is
in the PERF_RECORD_SWITCH records only); timehist then counts the idle time before a wakeup as the
woken task's run time. So that every switch is from a task to a task, the test keeps the CPUs busy
with SCHED_IDLE loops (they run only when no other task wants the CPU, and are preempted at once by
any wakeup), and checks that the recording's sched_switch events link up on every CPU (each one's
next task is the following one's previous task) before it trusts timehist.

usage: test_offcpu_timehist.py PERFTOP FIXTURE_DIR"""
import os
import re
import subprocess
import sys
from offcpulib import (THREADS, args, blocker_cmd, check_mode, close, fail, kinds_for,
                       load_workload, lost_note, max_rows, need_perf_events, need_tool, passed,
                       scratch_dir, skip, snapshots, sum_rows)

SECS = 2
PER_SWITCH_NS = 3e3
perftop, blocker = args()
need_tool("perf")
if not os.path.isdir("/sys/kernel/tracing/events") and \
        not os.path.isdir("/sys/kernel/debug/tracing/events"):
    m = subprocess.run(["mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing"],
                       capture_output=True, text=True)
    if m.returncode != 0 or not os.path.isdir("/sys/kernel/tracing/events"):
        skip(f"tracefs is not mounted and cannot be: {m.stderr.strip()}")
pt_args = ["--off-cpu", "-b", "--json", "-z", "-d", "1", "-s", "tid"]
need_perf_events(*kinds_for(pt_args + ["-a"]))
d, where = scratch_dir()
rec = os.path.join(d, "sched.data")
out = os.path.join(d, "timehist.json")


def idle_loop(cpu):
    def setup():
        os.sched_setaffinity(0, {cpu})
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    return setup


# One on each CPU, pinned there: a CPU never goes idle while it is runnable.
burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=idle_loop(c))
           for c in sorted(os.sched_getaffinity(0))]
try:
    cmd = ["perf", "sched", "record", "-o", rec, "--", perftop] + pt_args + ["--"] + \
        blocker_cmd(blocker, SECS, d, out)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
finally:
    for b in burners:
        b.kill()
        b.wait()
if p.returncode != 0:
    fail(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[-400:]}")
lost = re.findall(r"(\d+) (?:lost|chunks LOST)", p.stderr, re.I)
if any(int(x) for x in lost):
    fail(f"perf sched record lost events, its reference is incomplete: {p.stderr.strip()[-300:]}")
w = load_workload(out)
tids = {w["threads"][t]["tid"]: t for t in THREADS}
snaps = snapshots(p.stdout, "perftop under perf sched record")
check_mode(snaps, "off-cpu")
ours = sum_rows(snaps, lambda r: int(r["tid"]))
print(f"perftop: {len(snaps)} snapshots, lost {sum(sn.get('lost', 0) for sn in snaps)}, dropped "
      f"{sum(sn.get('dropped', 0) for sn in snaps)}; perf: {p.stderr.strip().splitlines()[-1:]}")
checks = 1

# The reference is sound only where sched_switch events link up on each CPU.
sw = subprocess.run(["perf", "script", "-i", rec, "-F", "cpu,event,trace"], capture_output=True,
                    text=True, timeout=120)
if sw.returncode != 0:
    fail(f"perf script -i {rec}: {sw.stderr.strip()[:300]}")
last_next, links, broken, ours_in, ours_broken = {}, 0, 0, 0, 0
for line in sw.stdout.splitlines():
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
    last_next[cpu] = nxt
print(f"perf sched record: {links} sched_switch links, {broken} broken; {ours_broken} of the "
      f"{ours_in} switch-outs of blocker's threads lack the switch-in before them")
if ours_in == 0:
    fail("perf sched record has no sched_switch events of blocker's threads")
if ours_broken > 0.01 * ours_in:
    fail(f"{ours_broken} switch-ins of blocker's threads missing from the sched_switch events even "
         "with the CPUs kept busy: timehist's waits would be wrong, no reference")
checks += 1

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
bad = []
for tid, name in tids.items():
    ref = wait.get(tid, 0)
    # timehist's wait time is the block (switch-out to switch-in; sch delay is a part of it, not
    # to be added: the threads of long blocks agree with wait time alone to a few hundredths of a
    # percent). Its ends are the sched_switch tracepoints; a per-task session's are the
    # PERF_RECORD_SWITCH records, written after the tracepoints (the switch-in's after the context
    # switch): about 4 us after for a switch-in and 3 us for a switch-out here, so each block comes
    # out a microsecond or two longer. 5% (the issue's), or PER_SWITCH_NS a block for a thread of
    # blocks so short (the syncer's fdatasync waits, some 30 us on a fast disk) that it adds up.
    nblk = runs.get(tid, 0)
    ok, line = close(f"{name} (tid {tid})", ours.get(tid, 0), ref, 0.05,
                     max(0.01 * w["threads"][name]["wall_ns"], PER_SWITCH_NS * nblk))
    print(f"  {line}; the thread's own clocks: {(w['threads'][name]['wall_ns'] - w['threads'][name]['cpu_ns']) / 1e6:.1f} ms off the CPU in its loop")
    if not ok:
        bad.append(line)
    checks += 1

# Blocks and the longest one, per thread: timehist prints a line at each switch-out of a thread but
# its last (at its exit, state X, which begins no block), so its lines are the thread's blocks; the
# longest block against timehist's longest wait.
blocks = sum_rows(snaps, lambda r: int(r["tid"]), "total_blocks")
ptlong = max_rows(snaps, lambda r: int(r["tid"]))
for tid, name in tids.items():
    want = runs.get(tid, 0)
    print(f"  {name}: {blocks.get(tid, 0)} blocks, timehist {want}; longest "
          f"{ptlong.get(tid, 0) / 1e6:.2f} ms, timehist {longest.get(tid, 0) / 1e6:.2f} ms")
    if abs(blocks.get(tid, 0) - want) > 0.01 * want + 2:
        bad.append(f"{name}: {blocks.get(tid, 0)} blocks, timehist has {want}")
    ok, line = close(f"{name}'s longest block", ptlong.get(tid, 0), longest.get(tid, 0), 0.05, 2e6)
    if not ok:
        bad.append(line)
    checks += 2
if bad:
    fail("per thread against perf sched timehist: " + "; ".join(bad) + lost_note(snaps))
passed(checks)
