#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""perftop --off-cpu's per-thread totals agree with perf's own recording of the same run (perf
sched timehist's measure) within 5%.

perf sched record records every context switch of the machine while perftop profiles blocker, in
two runs: started by perftop (per-task events), and beside `perftop -a` (per-CPU events), which
the test starts first and stops once blocker has exited. `perf sched timehist` prints, at each
switch-out of a task, its "wait time": the time between its previous switch-out and this switch-in,
i.e. one whole stretch off the CPU ("sch delay", the part of it after the wakeup, is inside it and
is not added again). Their sum per thread is the thread's off-CPU time; each of blocker's five named
threads (created after the exec, so all of their waits are inside both profilers' view) is compared
with perftop's row for its tid, summed over the windows, in every run: within 5%, or within 1% of
the thread's run for a thread that hardly waits (the spinner, off the CPU only when preempted).
Each thread's blocks (summed) and its longest block (the longest of any window) against the number
and the longest of its stretches off the CPU in the reference.

With -a perftop takes both ends of a block from the sched_switch tracepoint, as timehist does.
(perftop's and perf's handlers at one tracepoint take their own timestamps, each some microseconds
after the other's; the difference of their call chain walks at the two ends stays in the
comparison: about 1 us a block here.) Per task the kernel delivers no tracepoint sample at a
switch-in (the task is not running yet), only a switch-in record written after the switch, once
the task's events are scheduled in; perftop then measures from the switch-out record to it
(sampler/offcpu.h). The two records' lags after their tracepoints do not cancel: the switch itself
and the scheduling in of the task's events lie between, 2-7 us a block in this VM alone and 11 us
under a CI run's load, several per cent for a thread whose blocks last some tens of microseconds
(fdatasync on a fast disk). So per task each thread is held to the same marks in perf's
recording, its own switch records (written in the same two hooks as perftop's): from each
switch-out record of the thread to its next switch-in record. What the sched_switch events give is
printed beside, with the difference a block.

timehist takes a task's switch-in time from the previous sched_switch event on its CPU, which is
right only where every switch on that CPU is in the recording. On this machine some are never
recorded: those in the context of the idle task and of the VM's own agent (pid 1's threads): no
sched_switch event nor switch record is written while they switch out, though perf loses nothing
(perf report --stats shows no LOST records). A blocker thread switched in from one of them gets
from timehist a wait measured from the wrong event. So that the CPUs never go idle, the test keeps
them busy with SCHED_IDLE loops (they run only when no other task wants the CPU and are preempted
at once by any wakeup); for the switches away from the agent's threads it records the switch
records too (--switch-events): a thread's own switch-in record (PERF_RECORD_SWITCH_CPU_WIDE IN,
written in its context) is always there. The reference per thread is then timehist's measure
taken from perf script of the same recording: each stretch from its switch-out (the sched_switch
event naming it prev) to its switch-in (the sched_switch event naming it next, or, where that one
was never written, its own switch-in record). Where no switch-in is missing the sum is timehist's
own to its printed microsecond, which the test checks; where some are, it says after which task.
Per task the switch records alone make the reference, as said above. Every one of blocker's five
threads is compared in each run. perf sched record runs with large rings (-m); a LOST record in its
file is a failure (its reference would be short), as is a switch-in of a blocker thread missing
from both kinds of records, and so is perftop losing or dropping records (a shortfall is never
excused).

usage: test_offcpu_timehist.py PERFTOP FIXTURE_DIR"""
import os
import re
import subprocess
import sys
from offcpulib import (THREADS, args, need_tracefs, blocker_cmd, check_mode, close, fail, kinds_for,
                       load_workload, max_rows, need_perf_events, need_tool, passed, scratch_dir,
                       snapshots, sum_rows)

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
        # Rings of 8 MiB a CPU (-m 2048 pages): the switches of two busy CPUs for seconds.
        cmd = ["perf", "sched", "record", "-m", "2048", "--switch-events", "-o", rec, "--"] + run
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, DIR=d, OUT=out))
    finally:
        for b in burners:
            b.kill()
            b.wait()
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[-400:]}")
    stats = subprocess.run(["perf", "report", "--stats", "-i", rec], capture_output=True, text=True,
                           timeout=120)
    if stats.returncode != 0:
        fail(f"perf report --stats -i {rec}: {stats.stderr.strip()[:300]}")
    lost = sum(int(n) for n in re.findall(r"LOST(?:_SAMPLES)? events:\s+(\d+)", stats.stdout))
    if lost:
        fail(f"perf sched record lost {lost} records even with -m 2048: its reference would be short")
    if name == "per-task":
        return rec, snapshots(p.stdout, f"perftop under perf sched record ({name})")
    with open(snaps) as f:
        return rec, snapshots(f.read(), f"perftop -a under perf sched record")


SWITCH = re.compile(r"\s*(-?\d+)\s+\[(\d+)\]\s+([\d.]+):\s+sched:sched_switch:.*prev_pid=(-?\d+) "
                    r"prev_prio=\S+ prev_state=(\S+) ==> .*next_pid=(-?\d+)")
SWITCH_IN = re.compile(r"\s*(-?\d+)\s+\[(\d+)\]\s+([\d.]+):\s+PERF_RECORD_SWITCH_CPU_WIDE IN ")
SWITCH_RECORD = re.compile(r"\s*(-?\d+)\s+\[\d+\]\s+([\d.]+):\s+PERF_RECORD_SWITCH_CPU_WIDE (IN|OUT) ")


def by_records(out, tids):
    """Per thread of tids, from the recording's switch records alone (each stretch from the
    thread's own switch-out record to its own next switch-in record, the marks a per-task session
    has): [summed off-CPU ns, blocks, longest ns]."""
    pending, ref = {}, {t: [0, 0, 0] for t in tids}
    for line in out.splitlines():
        m = SWITCH_RECORD.match(line)
        if not m or int(m.group(1)) not in tids:
            continue
        tid, t = int(m.group(1)), round(float(m.group(2)) * 1e9)
        if m.group(3) == "OUT":
            pending[tid] = t
        elif tid in pending:
            t0 = pending.pop(tid)
            r = ref[tid]
            r[0] += t - t0
            r[1] += 1
            r[2] = max(r[2], t - t0)
    return ref


def reference(rec, tids):
    """Per thread of tids, from the recording's sched_switch events and switch records: [summed
    off-CPU ns, blocks, longest ns, blocks whose sched_switch switch-in was never written, and
    each block as (its end, its ns, whether a switch record ended it)], {the task whose own
    switch-out was missing before such a switch-in: (count, whether it is ever seen switching
    out)}, and the threads' stretches by their switch records alone (by_records)."""
    p = subprocess.run(["perf", "script", "-i", rec, "--show-switch-events", "-F",
                        "tid,cpu,time,event,trace"], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail(f"perf script --show-switch-events -i {rec}: {p.stderr.strip()[:300]}")
    out = p.stdout
    pending, ref, last_next, culprits = {}, {t: [0, 0, 0, 0, []] for t in tids}, {}, {}
    seen_prev = set()
    for line in out.splitlines():
        m = SWITCH.match(line)
        if m:
            cpu, t = int(m.group(2)), round(float(m.group(3)) * 1e9)
            prev, state, nxt = int(m.group(4)), m.group(5), int(m.group(6))
            seen_prev.add(prev)
            if nxt in pending:  # switched in: the stretch since its switch-out ends
                t0 = pending.pop(nxt)
                r = ref[nxt]
                r[0] += t - t0
                r[1] += 1
                r[2] = max(r[2], t - t0)
                r[4].append((t, t - t0, False))
            if prev in tids:
                if prev in pending:
                    fail(f"{tids[prev]} (tid {prev}) switched out at {t / 1e9:.6f} s on CPU {cpu} "
                         "with no switch-in since its last switch-out, in neither the sched_switch "
                         f"events nor its switch records of {rec}: no reference")
                if last_next.get(cpu, prev) != prev:
                    culprits[last_next[cpu]] = culprits.get(last_next[cpu], 0) + 1
                if state[0] not in "XZ":  # a dying thread's last switch-out begins no block
                    pending[prev] = t
            last_next[cpu] = nxt
            continue
        m = SWITCH_IN.match(line)
        if m and int(m.group(1)) in pending:
            # Its switch-in without the sched_switch event naming it next: the task before it
            # switched out unrecorded. Its own switch-in record, written once it runs, ends it.
            tid, cpu, t = int(m.group(1)), int(m.group(2)), round(float(m.group(3)) * 1e9)
            if cpu in last_next:
                culprits[last_next[cpu]] = culprits.get(last_next[cpu], 0) + 1
            last_next[cpu] = tid
            t0 = pending.pop(tid)
            r = ref[tid]
            r[0] += t - t0
            r[1] += 1
            r[2] = max(r[2], t - t0)
            r[3] += 1
            r[4].append((t, t - t0, True))
    return ref, {k: (v, k in seen_prev) for k, v in culprits.items()}, by_records(out, tids)


def timehist(rec, tids):
    """Per thread: its rows, [(the switch-out's time in ns, the wait before that run in ns)]."""
    th = subprocess.run(["perf", "sched", "timehist", "-i", rec], capture_output=True, text=True,
                        timeout=120)
    if th.returncode != 0:
        fail(f"perf sched timehist -i {rec}: {th.stderr.strip()[:300]}")
    rows = {t: [] for t in tids}
    row = re.compile(r"\s*([\d.]+)\s+\[\d+\]\s+.*?\[(\d+)(?:/\d+)?\]\s+([\d.]+)\s+[\d.]+\s+[\d.]+\s*$")
    for line in th.stdout.splitlines():
        m = row.match(line)
        if m and int(m.group(2)) in tids:
            rows[int(m.group(2))].append((round(float(m.group(1)) * 1e9), float(m.group(3)) * 1e6))
    return rows


def against_timehist(name, t, blocks, rows):
    """timehist's wait on each row of a thread is the block that ended at the thread's last
    switch-in before that row's switch-out: the same as the reference's to timehist's printed
    microsecond, except where the reference took the switch-in from a switch record (timehist,
    blind to it, measured from an earlier event). Returns (rows agreeing, rows differing there)."""
    same = differ = 0
    i = 0
    for t_out, wait in rows:
        while i + 1 < len(blocks) and blocks[i + 1][0] <= t_out:
            i += 1
        if wait == 0 or not blocks or blocks[i][0] > t_out:
            continue  # its first run, after no block
        end, ns, filled = blocks[i]
        if filled:
            differ += 1
        elif abs(ns - wait) <= 2000:  # both printed to the microsecond
            same += 1
        else:
            fail(f"{name}: {t}: timehist's wait {wait / 1e6:.3f} ms at {t_out / 1e9:.6f} s is not "
                 f"the reference's block of {ns / 1e6:.3f} ms ending at {end / 1e9:.6f} s: the "
                 "test reads the events wrong")
    return same, differ


def compare(name):
    """One run: each of blocker's threads against the reference; the failures' lines."""
    out = os.path.join(d, f"{name}.json")
    rec, snaps = recorded(name, out)
    print(f"{name}:")
    w = load_workload(out)
    tids = {w["threads"][t]["tid"]: t for t in THREADS}
    check_mode(snaps, "off-cpu")
    lost = sum(sn.get("lost", 0) + sn.get("dropped", 0) for sn in snaps)
    if lost:
        fail(f"{name}: perftop lost or dropped {lost} records: its totals would be short")
    ours = sum_rows(snaps, lambda r: int(r["tid"]))
    blocks = sum_rows(snaps, lambda r: int(r["tid"]), "total_blocks")
    ptlong = max_rows(snaps, lambda r: int(r["tid"]))
    ref, culprits, records = reference(rec, tids)
    th_rows = timehist(rec, tids)
    filled = sum(r[3] for r in ref.values())
    why = ", ".join(f"{n} after tid {k}{'' if seen else ' (never recorded switching out)'}"
                    for k, (n, seen) in sorted(culprits.items(), key=lambda kv: -kv[1][0]))
    print(f"  {filled} switch-ins of blocker's threads have no sched_switch event, taken from their "
          f"switch records{': ' + why if why else ''}")
    # What perftop's pairing dropped, and records taken out of time order, over the session: where
    # a block is missing, what may have taken it.
    print(f"  perftop's pairing: {snaps[-1].get('pairing')}")
    bad = []
    for tid, t in tids.items():
        total, nblocks, long_ns, nfilled, stretches = ref[tid]
        same, differ = against_timehist(name, t, stretches, th_rows[tid])
        slack = 0.01 * w["threads"][t]["wall_ns"]
        marks = ""
        if name == "per-task":
            # Held to the same marks as its own: the thread's switch records in perf's recording.
            rtotal, rblocks, rlong = records[tid]
            marks = (f"; by the sched_switch events {total / 1e6:.1f} ms in {nblocks} blocks "
                     f"({(rtotal - total) / max(1, nblocks) / 1e3:+.1f} us a block by the records)")
            total, nblocks, long_ns = rtotal, rblocks, rlong
        ok, line = close(f"{t} (tid {tid})", ours.get(tid, 0), total, 0.05, slack)
        own = (w['threads'][t]['wall_ns'] - w['threads'][t]['cpu_ns']) / 1e6
        print(f"  {line}{marks}; timehist's wait agrees on {same} rows, {differ} measured from a "
              f"wrong event ({nfilled} switch-ins from switch records); the thread's own clocks: "
              f"{own:.1f} ms off the CPU")
        if not ok:
            bad.append(f"{name}: {line}")
        print(f"  {t}: {blocks.get(tid, 0)} blocks, reference {nblocks}; longest "
              f"{ptlong.get(tid, 0) / 1e6:.2f} ms, reference {long_ns / 1e6:.2f} ms")
        if abs(blocks.get(tid, 0) - nblocks) > 0.01 * nblocks + 2:
            bad.append(f"{name}: {t}: {blocks.get(tid, 0)} blocks, the reference has {nblocks}")
        ok, line = close(f"{t}'s longest block", ptlong.get(tid, 0), long_ns, 0.05, 2e6)
        if not ok:
            bad.append(f"{name}: {line}")
        if not ok or abs(ours.get(tid, 0) - total) > max(0.05 * total, slack):
            describe_disagreement(t, tid, snaps, stretches)
    return bad, 3 * len(tids)


def describe_disagreement(t, tid, snaps, stretches):
    """Where perftop and the reference part for a thread: perftop's windows (their end in the
    records' clock is not in the JSON: their order, blocks, time and longest) and the reference's
    longest blocks (where they end, and whether a switch record ended them), so that a failure in
    a CI log says which of the two saw a block the other did not."""
    wins = []
    for i, sn in enumerate(snaps):
        for r in sn["rows"]:
            if int(r["tid"]) == tid:
                wins.append(f"#{i}: {r.get('total_blocks', 0)} blocks {r.get('total_ns', 0) / 1e6:.2f} ms "
                            f"longest {r.get('longest_ns', 0) / 1e6:.2f} ms")
    print(f"  {t}: perftop's windows: {'; '.join(wins) or 'none'}")
    top = sorted(stretches, key=lambda b: -b[1])[:5]
    first = stretches[0][0] - stretches[0][1] if stretches else 0
    print(f"  {t}: the reference's longest blocks: " + "; ".join(
        f"{ns / 1e6:.2f} ms ending {(end - first) / 1e9:.4f} s after its first began"
        f"{' (switch record)' if filled else ''}" for end, ns, filled in top))


bad, checks = [], 0
for run in ("per-task", "all-cpus"):
    b, n = compare(run)
    bad += b
    checks += n
if bad:
    fail("per thread against perf's recording of the same run: " + "; ".join(bad))
passed(checks)
