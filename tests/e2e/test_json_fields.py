#!/usr/bin/env python3
"""Acceptance (issue 11): the batch JSON's counters, exited, dropped and total_period, and the final
snapshot printed when the command exits, checked against the workload's own counts.

  - counters: a Python program (the interpreter itself, no shell shim in between) sleeps 300 times,
    touches 40 MiB of fresh pages, spins, and prints its own getrusage at the end; the sums of the
    snapshots' context_switches and page_faults are its own counts (within 10% + 20 and 10% + 100:
    the exit after it printed, and the child's faults before its exec, are on one side only); every snapshot has
    the counters perftop documents, none negative, window the refresh interval (the last one
    shorter), samples_per_sec its samples over its window;
  - exited is on the last snapshot only, lost and dropped are 0 for one thread at 999 Hz;
  - the final snapshot: perftop -d 10 -- spinner 1 prints one snapshot when the spinner exits,
    about a second in (not at 10 s), with exited and the spinner's functions, and exits 0;
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
    if (not last and abs(c["window"] - 0.3) > 0.05) or c["window"] <= 0 or c["window"] > 0.35:
        fail(f"snapshot {i}: window {c['window']} s with -d 0.3")
    if s["samples"] and abs(c["samples_per_sec"] - s["samples"] / c["window"]) > \
            0.05 * c["samples_per_sec"] + 1:
        fail(f"snapshot {i}: {s['samples']} samples over {c['window']} s, samples_per_sec "
             f"{c['samples_per_sec']}")
    if s.get("exited", False) != last:
        fail(f"snapshot {i} of {len(snaps)}: exited is {s.get('exited')}")
    if s.get("lost") != 0 or s.get("dropped") != 0 or c["lost"] != 0:
        fail(f"snapshot {i}: lost {s.get('lost')}, dropped {s.get('dropped')} for one thread at 999 Hz")
cs = sum(s["counters"]["context_switches"] for s in snaps)
pf = sum(s["counters"]["page_faults"] for s in snaps)
print(f"counters: context switches {cs} (the workload's own: {own_cs}), page faults {pf} (own: "
      f"{own_pf}) over {len(snaps)} snapshots; the last: {snaps[-1]['counters']}")
if abs(cs - own_cs) > 0.1 * own_cs + 20 or abs(pf - own_pf) > 0.1 * own_pf + 100:
    fail(f"counters: context switches {cs} vs {own_cs}, page faults {pf} vs {own_pf}")
checks += 4

# the final snapshot when the command exits, well before the next refresh
t0 = time.time()
snaps, _ = run_json(["-d", "10", "--", spinner, "1"], timeout=30)
took = time.time() - t0
last = snaps[-1]
syms = [r["sym"] for r in last["rows"]]
print(f"final snapshot: {len(snaps)} after {took:.2f} s, time {last['time']}, exited "
      f"{last.get('exited')}, rows {syms[:4]}")
if len(snaps) != 1 or took > 5 or last.get("exited") is not True or "spinner_work" not in syms:
    fail(f"-d 10 -- spinner 1: want one final snapshot with exited and spinner_work about 1 s in: "
         f"{len(snaps)} snapshots after {took:.2f} s: {last.get('exited')}, {syms[:5]}")
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
