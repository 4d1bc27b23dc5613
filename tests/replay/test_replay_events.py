#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Replay of perf record files of several events, against perf report on the same file, per event:

- a perf probe event (made here with perf probe -x on a private copy of probe_work, deleted at the
  end) beside cpu-clock, -g: the probe's samples and their periods are perf script's. probe_work calls
  the probed function N times, but the kernel can record one call twice (a uprobe whose out-of-line
  step is aborted, as when a signal arrives during it, goes back to the breakpoint and runs its
  handler again: a CI run recorded 20001 hits of 20000 calls, perf script and perftop agreeing), so a
  recording of other than N hits is printed with its pids and is not perftop's failure;
- sched:sched_switch beside cpu-clock, -a -g, while a shell sleeps in a loop.

For each event the replay's samples are perf script's, and the Self% and Total% of perf report's top
rows agree as tests/lib/perfcompare.py holds them (every row of 0.5% or more, both ways). Each of the two is a ctest test of its own (PART probe or sched), so
that a part this machine cannot run shows as skipped. A part skips (77) only on what the machine
says: perf missing, the kernel refusing the events (perf_probe: cpu-clock, -a, sched:sched_switch),
tracefs not mounted (the suite's tracefs fixture mounts it), no uprobe_events in it or not ours to
write (probe). Once those are there, a perf probe or perf record that fails is a failure.

usage: test_replay_events.py PERFTOP PROBE_WORK probe|sched"""
import os
import shutil
import subprocess
import sys
from replaylib import (compare, fail, kinds_for, need_perf_events, need_tool, perf_record,
                       perf_reports, perf_script, replay_json, script_counts, skip, tmpdir)

if len(sys.argv) < 4 or sys.argv[3] not in ("probe", "sched"):
    sys.exit(f"usage: {sys.argv[0]} PERFTOP PROBE_WORK probe|sched")
perftop, work, part = sys.argv[1], sys.argv[2], sys.argv[3]
N = 20000
d = tmpdir()
checks = 0


def uprobe_events():
    """tracefs's uprobe_events, where perf probe -x defines a probe: skips when tracefs is not
    mounted, the kernel has no uprobes there, or this process may not write it."""
    roots = [r for r in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing")
             if os.path.isdir(os.path.join(r, "events"))]
    if not roots:
        skip("tracefs is not mounted (the suite's tracefs fixture mounts it: "
             "mount -t tracefs nodev /sys/kernel/tracing)")
    path = os.path.join(roots[0], "uprobe_events")
    if not os.path.exists(path):
        skip(f"this kernel has no uprobes (no {path}: CONFIG_UPROBE_EVENTS off)")
    if not os.access(path, os.W_OK):
        skip(f"{path} is not writable by this process (perf probe needs root)")
    return path


def check_events(path, events, min_rows={}):
    """The replay of path against perf script's counts and perf report's sections, per event."""
    global checks
    counts = script_counts(path)
    reports = perf_reports(path)  # --no-children within --children (perfcompare.self_of)
    snaps, _ = replay_json(perftop, path)
    got = {s["event"]: s for s in snaps}
    if sorted(got) != sorted(events) or len(snaps) != len(events):
        fail(f"{path}: the replay printed {[s['event'] for s in snaps]}, want {events}")
    for e in events:
        if got[e]["samples"] != counts.get(e):
            fail(f"{e}: the replay has {got[e]['samples']} samples, perf script {counts.get(e)}")
        for key, children in (("self", False), ("total", True)):
            if e not in reports[children]:
                fail(f"{e}: no section in perf report: {sorted(reports[children])}")
            ok, text = compare(got[e], reports[children][e], key, min_rows=min_rows.get(e, 5))
            print(f"{os.path.basename(path)} {e}: {got[e]['samples']} samples; {text}")
            if not ok:
                fail(f"{e}: {text}")
        checks += 3
    return got


need_tool("perf")
if part == "probe":
    # A probe of our own group, made and deleted here.
    uprobe_events()
    need_perf_events(*kinds_for(["-e", "cpu-clock", "-g"]))
    # perf probe wants event names unique across groups: both are ours alone
    group = f"perftop_{os.getpid()}"
    probe = f"{group}:target_{os.getpid()}"
    # A uprobe lives on the file's inode: a copy of our own keeps other tests' runs of probe_work
    # (the sched part runs it system-wide) away from it.
    own = os.path.join(d, "probe_work")
    shutil.copy2(work, own)
    p = subprocess.run(["perf", "probe", "-x", own, f"{probe}=probe_target"],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        fail(f"perf probe -x {own} probe_target: {p.stderr.strip()[:300]}")
    try:
        f = perf_record(["-e", probe, "-e", "cpu-clock", "-g"], os.path.join(d, "probe.data"),
                        [own, str(N)])
    finally:
        subprocess.run(["perf", "probe", "-q", "-d", f"{group}:*"], capture_output=True, timeout=60)
    # every hit of the probe is in probe_target: one row of Self; the time is in probe_target, its
    # two callers and the uprobe's slot
    got = check_events(f, [probe, "cpu-clock"], min_rows={probe: 1, "cpu-clock": 3})
    hits = {}
    period = 0
    for line in perf_script(f, "pid,event,period").splitlines():
        w = line.split()
        # perf script prints pid, period, event in that order whatever -F's order
        if len(w) >= 3 and w[2].rstrip(":") == probe:
            hits[w[0]] = hits.get(w[0], 0) + 1
            period += int(w[1])
    if got[probe]["total_period"] != period:
        fail(f"{probe}: total_period {got[probe]['total_period']}, perf script's periods add to {period}")
    if sum(hits.values()) != N:
        print(f"note: the kernel recorded {sum(hits.values())} hits of {N} calls (per pid: {hits}); "
              "perftop is held to the recording")
    checks += 1
else:
    # A tracepoint beside a clock, system-wide.
    need_perf_events("cpu", "tracepoint:sched:sched_switch")
    f = perf_record(["-e", "sched:sched_switch", "-e", "cpu-clock", "-a", "-g"],
                    os.path.join(d, "sched.data"),
                    ["sh", "-c", f"{work} {N} >/dev/null & for i in $(seq 40); do sleep 0.01; done; wait"])
    # every switch is taken in the scheduler (__schedule): one row of Self
    check_events(f, ["sched:sched_switch", "cpu-clock"], min_rows={"sched:sched_switch": 1})
print(f"{checks} passed, 0 failed")
