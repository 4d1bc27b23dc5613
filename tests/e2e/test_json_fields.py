#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: the batch JSON's counters, exited, dropped and total_period, and the final
snapshot printed when the command exits, checked against the workload's own counts.

  - counters: a Python program (the interpreter itself, no shell shim in between) sleeps 300 times,
    touches 40 MiB of fresh pages, spins, and prints its own getrusage at the end; the sums of the
    snapshots' context_switches and page_faults are its own counts (within 10% + 20 and 10% + 100:
    the exit after it printed, and the child's faults before its exec, are on one side only); every snapshot has
    the counters perftop documents, none negative, the windows back to back from the session's
    start (their sum up to a snapshot is its time, less the moment spent making it), most of them
    the refresh interval or longer (the machine may be late, perftop is never early by much),
    samples_per_sec its samples over its window;
  - exited is on the last snapshot only, lost and dropped are 0 for one thread at 999 Hz;
  - the final snapshot: perftop -d 60 -- spinner 1 prints one snapshot when the spinner exits,
    after its second and long before the refresh at 60 s, with exited and the spinner's functions,
    and exits 0;
  - total_period with -e cpu-clock -c 1000000: the first window's is its samples * 1,000,000, each
    later one the previous decayed by 7/8 plus its own samples * 1,000,000 (the decay perftop
    documents), and with -z each window's own.

usage: test_json_fields.py PERFTOP FIXTURE_DIR"""
import os
import subprocess
import sys
import time
from e2elib import fail, kinds_for, need_perf_events, parse_snapshots, passed, perftop_path, run_json

spinner = os.path.join(sys.argv[2], "spinner")
checks = 0
HUNG_SECS = 30  # a wait longer than this is a hang, not a slow machine
KEYS = ("samples_per_sec", "lost", "throttled", "window", "cpu", "context_switches", "cpu_migrations",
        "page_faults")

# counters against the workload's own getrusage
work = """
import resource, time
for _ in range(300):
    time.sleep(0.001)
x = bytearray(40 * 1024 * 1024)
for i in range(0, len(x), 4096):
    x[i] = 1
t = time.time()
while time.time() - t < 0.3:
    pass
r = resource.getrusage(resource.RUSAGE_SELF)
print("rusage", r.ru_nvcsw + r.ru_nivcsw, r.ru_minflt + r.ru_majflt, flush=True)
"""
args = ["-d", "0.3", "--", sys.executable, "-c", work]
# run here, not by run_json: the workload's own line is on perftop's stdout too
need_perf_events(*kinds_for(args))
p = subprocess.run([perftop_path(), "-b", "--json"] + args, capture_output=True, text=True, timeout=60)
if p.returncode != 0:
    fail(f"perftop {' '.join(args)} exited {p.returncode}: {p.stderr.strip()}")
snaps = parse_snapshots(p.stdout)
own = [l.split() for l in p.stdout.splitlines() if l.startswith("rusage ")]
if not snaps or len(own) != 1:
    fail(f"no snapshots or no rusage line from the workload: {p.stdout[-500:]}")
own_cs, own_pf = int(own[0][1]), int(own[0][2])
for i, s in enumerate(snaps):
    c = s.get("counters")
    if not isinstance(c, dict) or any(k not in c for k in KEYS):
        fail(f"snapshot {i}: counters lack some of {KEYS}: {c}")
    if any(not isinstance(c[k], (int, float)) or c[k] < 0 for k in KEYS):
        fail(f"snapshot {i}: a negative or non-numeric counter: {c}")
    last = i == len(snaps) - 1
    # The windows follow each other from the session's start; a snapshot's time is stamped after
    # its window closed, so the sum of the windows so far is its time less that moment (a late
    # machine makes it longer, never negative; 0.0005 a figure is their rounding). More than
    # HUNG_SECS apart is not a slow machine.
    since = s["time"] - sum(x["counters"]["window"] for x in snaps[:i + 1])
    if c["window"] <= 0 or not -0.0005 * (i + 2) <= since <= HUNG_SECS:
        fail(f"snapshot {i}: window {c['window']} s, the windows so far end {since:.3f} s before "
             f"its time {s['time']}")
    # window is printed to the millisecond: over a short last window (the target exited just
    # after a refresh) that rounding alone moves the rate by more than 5%
    lo_w, hi_w = max(c["window"] - 0.0005, 1e-9), c["window"] + 0.0005
    if s["samples"] and not (s["samples"] / hi_w - 0.05 * c["samples_per_sec"] - 1
                             <= c["samples_per_sec"] <=
                             s["samples"] / lo_w + 0.05 * c["samples_per_sec"] + 1):
        fail(f"snapshot {i}: {s['samples']} samples over {c['window']} s, samples_per_sec "
             f"{c['samples_per_sec']}")
    if s.get("exited", False) != last:
        fail(f"snapshot {i} of {len(snaps)}: exited is {s.get('exited')}")
    if s.get("lost") != 0 or s.get("dropped") != 0 or c["lost"] != 0:
        fail(f"snapshot {i}: lost {s.get('lost')}, dropped {s.get('dropped')} for one thread at 999 Hz")
# -d 0.3 sets the windows: most are 0.3 s or a little longer (a refresh after a late one may come
# early by as much as the other was late, so only the median is held to it)
windows = sorted(s["counters"]["window"] for s in snaps[:-1])
if not windows or windows[len(windows) // 2] < 0.29:
    fail(f"-d 0.3: the median window is {windows[len(windows) // 2] if windows else None} s: "
         f"{windows}")
cs = sum(s["counters"]["context_switches"] for s in snaps)
pf = sum(s["counters"]["page_faults"] for s in snaps)
print(f"counters: context switches {cs} (the workload's own: {own_cs}), page faults {pf} (own: "
      f"{own_pf}) over {len(snaps)} snapshots; the last: {snaps[-1]['counters']}")
if abs(cs - own_cs) > 0.1 * own_cs + 20 or abs(pf - own_pf) > 0.1 * own_pf + 100:
    fail(f"counters: context switches {cs} vs {own_cs}, page faults {pf} vs {own_pf}")
checks += 4

# the final snapshot when the command exits, before the next refresh: with -d 60 a perftop that
# waited for the refresh would print at 60 s, far past anything a slow machine makes of a 1 s
# spinner
REFRESH = 60
t0 = time.time()
snaps, _ = run_json(["-d", str(REFRESH), "--", spinner, "1"], timeout=2 * REFRESH)
took = time.time() - t0
last = snaps[-1]
syms = [r["sym"] for r in last["rows"]]
print(f"final snapshot: {len(snaps)} after {took:.2f} s, time {last['time']}, exited "
      f"{last.get('exited')}, rows {syms[:4]}")
if len(snaps) != 1 or not 1.0 <= last["time"] < REFRESH or took >= REFRESH or \
        last.get("exited") is not True or "spinner_work" not in syms:
    fail(f"-d {REFRESH} -- spinner 1: want one final snapshot with exited and spinner_work after "
         f"the spinner's 1 s, before the refresh: {len(snaps)} snapshots, time {last['time']}, "
         f"after {took:.2f} s: {last.get('exited')}, {syms[:5]}")
checks += 1

# total_period: the decay, then -z
P = 1000000
for zero in (False, True):
    snaps, _ = run_json(["-e", "cpu-clock", "-c", str(P), "-d", "0.3", "-n", "4"] + (["-z"] if zero else []) +
                        ["--", spinner, "2"])
    prev = 0
    for i, s in enumerate(snaps):
        want = (0 if zero else prev * 7 / 8) + s["samples"] * P
        if abs(s["total_period"] - want) > 1e-6 * want + 8:
            fail(f"-c {P}{' -z' if zero else ''}: window {i} has total_period {s['total_period']}, "
                 f"want {want:.0f} ({s['samples']} samples, the previous {prev})")
        prev = s["total_period"]
    print(f"total_period{' -z' if zero else ''}: {[(s['samples'], s['total_period']) for s in snaps]}")
    checks += 1
passed(checks)
