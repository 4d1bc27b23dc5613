#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""perftop's replay of recordings made on machines with hardware PMUs (the corpus of
perf_data_converter: event groups, a hybrid CPU's cpu_core/cpu_atom events) against perf
report and perf evlist on the same file. The files hold no binaries, so rows are (comm, dso).

  - events: perftop's header lists each event of the file with perf evlist's type and config,
    and its groups as perf's header does (leader, number of members); its replay shows one
    view per event that perf report shows, under the same name, plus only events perf report
    leaves out for having no samples (then with none in perftop either), named as perf evlist
    names them;
  - counts: per event, the samples and the event count (total period) equal perf report's;
  - rows, both ways: every (comm, dso) row of perf report is perftop's with the same samples
    and share (to perf's rounding), and perftop has no row perf does not, save the explained
    differences below.

Explained differences (each checked on the file, not assumed):
  - perf 6.1 cuts a comm to its column's width when the column was sized before a later, longer
    comm came in ("perf-exec" shown as "perf-ex"): perf's comm is exactly the column's width,
    perftop's starts with it and is a comm of the file's COMM records;
  - a kernel-mode sample in a recording with no kernel map (a user-only event's pipe): perf
    names its dso [unknown], perftop [kernel.kallsyms]; allowed only where perf script shows
    every such sample of that comm at a kernel address.

The parser of perf report's text is pmulib.perf_report (a small one for comm,dso; the suite's
general comparator is tests/lib/perfcompare.py).

usage: test_pmu_replay.py PERFTOP CORPUS_DIR FILE"""
import os
import re
import subprocess
import sys

from pmulib import fail, passed, perf_report, skip
from ptjson import snapshots  # tests/lib, on sys.path by pmulib

if len(sys.argv) != 4:
    sys.exit("usage: test_pmu_replay.py PERFTOP CORPUS_DIR FILE")
pt, corpus, name = sys.argv[1:4]
path = os.path.join(corpus, "perf_data_converter", name)
if not os.path.isfile(path):
    skip(f"no {path}: the corpus of foreign recordings is not on this machine "
         "(cmake -DPERFTOP_CORPUS_DIR=...)")
checks = 0
KERNEL_START = 0xffff800000000000  # x86-64's kernel half (the corpus' PMU files are x86-64)


def run(cmd, timeout=300):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[:400]}")
    return p.stdout


# --- events and groups: perftop's header against perf evlist -v and perf's header
header = run([pt, "-i", path, "--header"])
mine_events = re.findall(r"^event (\d+): (.*) \(type (\d+), config (0x[0-9a-f]+)", header, re.M)
evlist = []
for line in run(["perf", "evlist", "-v", "-i", path]).splitlines():
    ev, _, rest = line.partition(": ")
    f = dict(re.findall(r"(\w+): (0x[0-9a-f]+|\d+)", rest))
    evlist.append((ev, int(f.get("type", "0"), 0), int(f.get("config", "0"), 0)))
if len(mine_events) != len(evlist):
    fail(f"perftop's header has {len(mine_events)} events, perf evlist {len(evlist)}: "
         f"{mine_events} / {evlist}")
for (i, ev, t, c), (ref, rt, rc) in zip(mine_events, evlist):
    if (int(t), int(c, 16)) != (rt, rc):
        fail(f"event {i} ({ev}): perftop's header says type {t} config {c}, perf evlist "
             f"{ref} type {rt} config {rc:#x}")
print(f"ok: {len(evlist)} events, types and configs as perf evlist: "
      f"{[(e, t, hex(c)) for e, t, c in evlist]}")
checks += 1
ref_groups = re.findall(r"^# group: \{(.*)\}$", run(["perf", "report", "-i", path,
                                                       "--header-only"]), re.M)
mine_groups = re.findall(r"^group: .* \(leader (\d+), (\d+) members\)$", header, re.M)
if len(ref_groups) != len(mine_groups):
    fail(f"perf's header has groups {ref_groups}, perftop's {mine_groups}")
for members, (leader, n) in zip(ref_groups, mine_groups):
    names = members.split(",")
    if int(n) != len(names) or mine_events[int(leader)][1] != names[0]:
        fail(f"perf's group {{{members}}}: perftop's header says leader {leader} "
             f"({mine_events[int(leader)][1]}), {n} members")
if ref_groups:
    print(f"ok: groups {ref_groups} as perf's header")
    checks += 1

# --- the replay, per event
snaps = {}
for s in snapshots(run([pt, "-i", path, "-b", "--json", "-s", "comm,dso"])):
    snaps[s["event"]] = s  # the last snapshot of each event: the whole file
sections = perf_report(path, "comm,dso", ["--no-branch-stack", "--no-group"])
evlist_names = {e for e, _, _ in evlist if not e.startswith("dummy")}
for ev in snaps:
    if ev not in {s["event"] for s in sections}:
        if snaps[ev]["samples"] or snaps[ev]["rows"]:
            fail(f"perftop replays {snaps[ev]['samples']} samples of {ev!r}, an event perf report "
                 f"does not show (its events: {[s['event'] for s in sections]})")
        if ev not in evlist_names:
            fail(f"perftop's event {ev!r} is not an event of the file ({sorted(evlist_names)})")
        print(f"ok: {ev}: no samples, as perf report (which leaves it out)")
        checks += 1
if len(snaps) != len(evlist_names):
    fail(f"perftop replays the events {sorted(snaps)}, the file has {sorted(evlist_names)}")


def kernel_only_comms():
    """The comms whose samples perf maps to [unknown] all at kernel addresses."""
    out = run(["perf", "script", "-i", path, "-F", "comm,ip,dso"])
    kernel, other = set(), set()
    for line in out.splitlines():
        m = re.match(r"\s*(.+?)\s+([0-9a-f]+) \((.*)\)$", line)
        if m and m.group(3) == "[unknown]":
            (kernel if int(m.group(2), 16) >= KERNEL_START else other).add(m.group(1))
    return kernel - other


def comms_of_file():
    """The comms the file's COMM records name (perf script's task events)."""
    out = run(["perf", "script", "-i", path, "--show-task-events", "-F", "comm,tid"])
    return set(re.findall(r"PERF_RECORD_COMM(?: exec)?: (.*):\d+/\d+$", out, re.M))


unknown_kernel = file_comms = None
for sec in sections:
    ev = sec["event"]
    if ev not in snaps:
        fail(f"perf report shows the event {ev!r}, perftop's replay has {sorted(snaps)}")
    s = snaps[ev]
    if s["samples"] != sec["samples"] or s["total_period"] != sec["period"]:
        fail(f"{ev}: perftop {s['samples']} samples, event count {s['total_period']}; perf report "
             f"{sec['samples']} and {sec['period']}")
    comm_width = sec["widths"][0]
    mine = {(r["comm"], r["dso"]): r for r in s["rows"]}
    matched = set()
    for ref in sec["rows"]:
        comm, dso = ref["keys"]
        key, why = (comm, dso), ""
        if key not in mine and len(comm) == comm_width:
            if file_comms is None:
                file_comms = comms_of_file()
            cut = [k for k in mine if k[1] == dso and k[0].startswith(comm) and k[0] != comm
                   and k[0] in file_comms]
            if len(cut) == 1:
                key, why = cut[0], f" (perf cut the comm to its column's {comm_width})"
        if key not in mine and dso == "[unknown]":
            if unknown_kernel is None:
                unknown_kernel = kernel_only_comms()
            if comm in unknown_kernel and (comm, "[kernel.kallsyms]") in mine:
                key, why = (comm, "[kernel.kallsyms]"), " (kernel addresses, no kernel map)"
        if key not in mine or key in matched:
            fail(f"{ev}: perf report's row {comm} {dso} ({ref['pct']}%, {ref['samples']} samples) "
                 f"is not perftop's: {sorted(mine)}")
        r = mine[key]
        matched.add(key)
        # perf prints two decimals: the shares agree to its rounding
        if r["samples"] != ref["samples"] or abs(r["self"] - ref["pct"]) > 0.006:
            fail(f"{ev}: {key}: perftop {r['samples']} samples {r['self']:.4f}%, perf report "
                 f"{ref['samples']} samples {ref['pct']:.2f}%")
        if why:
            print(f"note: {ev}: perf's {comm} {dso} is perftop's {key[0]} {key[1]}{why}")
    extra = [k for k in mine if k not in matched]
    if extra:
        fail(f"{ev}: perftop has rows perf report has not: "
             f"{[(k, mine[k]['samples']) for k in extra]}")
    print(f"ok: {ev}: {s['samples']} samples, event count {s['total_period']}, {len(matched)} rows "
          f"(comm, dso) as perf report's, both ways")
    checks += 1
if not sections:
    fail("perf report showed no event: nothing compared")
passed(checks)
