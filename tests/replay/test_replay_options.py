#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Replay options on files made here by perf record: --select-event on a two-event file (default: both
events, one snapshot each), -d windows of recorded time (each covers its own window), --time START,END,
--header (hostname, OS release, arch, CPUs; command line and events as perf report --header-only
reads them), the text table (its rows' samples as perf script counts them), and one-line errors with
exit 1 for a missing file and for a file that is not a perf.data file. Counts and times are checked
against perf script on the same file (its samples per event and their timestamps), never against
what the workload should have done: how much CPU it got moves with the machine's load.

usage: test_replay_options.py PERFTOP FIXTURE_DIR"""
import os
import math
import platform
import socket
import subprocess
import sys
from replaylib import fail, perf_record, python_busy, replay_json, run_perftop, tmpdir

perftop = sys.argv[1]
d = tmpdir()
checks = 0


def ok(cond, msg):
    global checks
    if not cond:
        fail(msg)
    checks += 1


def script_samples(path):
    """[(seconds from the file's first sample, event)] of every sample, from perf script."""
    p = subprocess.run(["perf", "script", "-i", path, "-F", "time,event"], capture_output=True,
                       text=True, timeout=120)
    out = []
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) >= 2 and f[0].endswith(":"):
            out.append((float(f[0][:-1]), f[1].rstrip(":")))
    if p.returncode != 0 or not out:
        fail(f"perf script -i {path}: no samples: {p.stderr.strip()[:300]}")
    t0 = min(t for t, _ in out)
    return [(t - t0, e) for t, e in out]


# --select-event on a file with two events
two = perf_record(["-e", "cpu-clock,task-clock", "-F", "999"], os.path.join(d, "two.data"),
                  python_busy(2))
snaps, _ = replay_json(perftop, two)
ok([s["event"].split(":")[0] for s in snaps] == ["cpu-clock", "task-clock"],
   f"default events: {[s['event'] for s in snaps]}")
tc, _ = replay_json(perftop, two, ["--select-event", "task-clock"])
ok(tc[0]["event"].split(":")[0] == "task-clock", f"--select-event task-clock: {tc[0]['event']}")
per_event = {}
for _, e in script_samples(two):
    per_event[e] = per_event.get(e, 0) + 1
ok(snaps[0]["samples"] == per_event.get("cpu-clock") and tc[0]["samples"] == per_event.get("task-clock")
   and len(tc) == 1 and snaps[1]["samples"] == tc[0]["samples"],
   f"samples: cpu-clock {snaps[0]['samples']}, task-clock {snaps[1]['samples']} "
   f"(alone {tc[0]['samples']}); perf script {per_event}")
p = run_perftop(perftop, ["-i", two, "-b", "--json", "--select-event", "no-such-event"])
ok(p.returncode == 1 and len(p.stderr.strip().splitlines()) == 1 and "no-such-event" in p.stderr,
   f"unknown event: exit {p.returncode}, stderr {p.stderr!r}")

# -d and --time on recorded time
f = perf_record(["-g", "-F", "999"], os.path.join(d, "fp.data"), python_busy(2.2))
whole, _ = replay_json(perftop, f)
total = whole[0]["samples"]
dur = whole[0]["time"]
ref = script_samples(f)
span = max(t for t, _ in ref)
ok(len(whole) == 1 and total == len(ref) and abs(dur - span) < 0.01,
   f"whole file: {len(whole)} snapshots, time {dur}, {total} samples; perf script: {len(ref)} "
   f"samples over {span:.3f} s")
wins, _ = replay_json(perftop, f, ["-d", "0.5"])
times = [s["time"] for s in wins]
# a window every 0.5 s of recorded time, and the last one (shorter) up to the last sample
ok(len(wins) in (math.ceil(dur / 0.5), math.floor(dur / 0.5) + 1),
   f"-d 0.5 on {dur:.2f} s: {len(wins)} snapshots at {times}")
ok(all(abs(t - 0.5 * (i + 1)) < 1e-6 for i, t in enumerate(times[:-1])), f"-d 0.5 times: {times}")
ok(sum(s["samples"] for s in wins) == total,
   f"-d windows' samples add up to {sum(s['samples'] for s in wins)}, the whole file has {total}")
ok(all(abs(sum(r["self"] for r in s["rows"]) - 100) < 1 for s in wins if s["samples"]),
   "each -d window is its own 100%")
n2, _ = replay_json(perftop, f, ["-d", "0.5", "-n", "2"])
ok(len(n2) == 2, f"-d 0.5 -n 2: {len(n2)} snapshots")
rng, _ = replay_json(perftop, f, ["--time", "0.5,1.5"])
in_range = sum(1 for t, _ in ref if 0.5 <= t < 1.5)
ok(len(rng) == 1 and abs(rng[0]["time"] - 1.5) < 1e-6, f"--time 0.5,1.5: {[s['time'] for s in rng]}")
# a sample on either edge may fall to one side or the other of a rounding
ok(abs(rng[0]["samples"] - in_range) <= 2,
   f"--time 0.5,1.5 holds {rng[0]['samples']} of {total} samples; perf script has {in_range} there")

# --header
p = run_perftop(perftop, ["-i", f, "--header"])
ok(p.returncode == 0, f"--header exited {p.returncode}: {p.stderr}")
hdr = dict(l.split(": ", 1) for l in p.stdout.splitlines() if ": " in l)
ok(hdr.get("hostname") == socket.gethostname(), f"hostname: {hdr.get('hostname')}")
ok(hdr.get("os release") == platform.release(), f"os release: {hdr.get('os release')}")
ok(hdr.get("arch") == platform.machine(), f"arch: {hdr.get('arch')}")
ok(int(hdr.get("nrcpus online", "0")) == os.cpu_count(), f"nrcpus online: {hdr.get('nrcpus online')}")
# The command line and the events as perf report --header-only reads them from the same file (its
# cmdline may run over several lines where an argument holds newlines: compared word by word).
p = subprocess.run(["perf", "report", "-i", f, "--header-only"], capture_output=True, text=True,
                   timeout=120)
perf_hdr = p.stdout.split("\n# cmdline : ", 1)[-1] if "\n# cmdline : " in p.stdout else ""
perf_cmdline = perf_hdr.split("\n# event : ", 1)[0].split()
perf_events = [l.split("name = ", 1)[1].split(",", 1)[0] for l in p.stdout.splitlines()
               if l.startswith("# event : name = ")]
ok(perf_cmdline and hdr.get("cmdline", "").split() == perf_cmdline,
   f"cmdline: perftop {hdr.get('cmdline')!r}, perf report {' '.join(perf_cmdline)!r}")
events = [v.split(" (", 1)[0] for k, v in sorted(hdr.items()) if k.startswith("event ")]
ok(perf_events and events == perf_events, f"events: perftop {events}, perf report {perf_events}")

# the text table: its rows of 2% Self or more against each function's own samples in perf script on
# the same file (the sampled address's symbol and binary), both ways, with the same sample count.
p = run_perftop(perftop, ["-i", f, "-b"])
ok(p.returncode == 0, f"text table: exit {p.returncode}: {p.stderr.strip()[:300]}")
table = {}
lines = p.stdout.splitlines()
title = next((i for i, l in enumerate(lines) if l.split()[:3] == ["Self%", "Total%", "Samples"]), None)
ok(title is not None and lines[title].split()[3:5] == ["Shared", "Object"],
   f"text table: no 'Self% Total% Samples Shared Object Symbol' title: {p.stdout[:300]}")
for l in lines[title + 1:]:
    fl = l.split(None, 4)
    if len(fl) < 5 or not fl[0].endswith("%"):
        break
    table[(fl[3], fl[4])] = (float(fl[0][:-1]), int(fl[2]))
sp = subprocess.run(["perf", "script", "-i", f, "-F", "ip,sym,dso", "-G"], capture_output=True,
                    text=True, timeout=120)
own = {}
for l in sp.stdout.splitlines():
    fl = l.split()
    if len(fl) >= 3 and fl[-1].startswith("(") and fl[-1].endswith(")"):
        key = (os.path.basename(fl[-1][1:-1]), " ".join(fl[1:-1]))
        own[key] = own.get(key, 0) + 1
nsamples = sum(own.values())
ok(nsamples == total, f"perf script -F ip,sym,dso: {nsamples} samples, the file has {total}")
want = {k: n for k, n in own.items() if n >= 0.02 * nsamples}
got = {k: v[1] for k, v in table.items() if v[0] >= 2}
bad = [f"{k}: perf script {n}, text table {table.get(k, (0, 'no row'))[1]}" for k, n in want.items()
       if table.get(k, (0, None))[1] != n]
bad += [f"{k}: text table {n} ({table[k][0]}%), not in perf script" for k, n in got.items()
        if k not in own]
ok(want and not bad, f"text table against perf script on {f}: {bad or 'no row of 2% or more'}")
print(f"text table: {len(want)} rows of 2% or more, as perf script counts them: "
      f"{sorted(want.items(), key=lambda kv: -kv[1])[:4]}")

# errors
p = run_perftop(perftop, ["-i", os.path.join(d, "missing.data"), "-b"])
ok(p.returncode == 1 and len(p.stderr.strip().splitlines()) == 1 and "No such file" in p.stderr,
   f"missing file: exit {p.returncode}: {p.stderr!r}")
p = run_perftop(perftop, ["-i", "/etc/hostname", "-b"])
ok(p.returncode == 1 and "not a perf.data file" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
   f"not a perf.data file: exit {p.returncode}: {p.stderr!r}")

print(f"{checks} passed, 0 failed")
