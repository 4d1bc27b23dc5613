#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: several events in one session. perftop -e cpu-clock -e page-faults -o F -b --json on a
Python loop that allocates: every refresh prints one object per event, in the events' order, each
with its "event", and the two events have rows of their own (page faults are not where the time
goes). The recording holds both events: perf report shows a section for each, perf script counts
each event's samples as the live session took them in, and perftop's replay of F agrees with perf
report per event (Self% and Total% of the top rows within 0.5 points). Last, an event that opens
but never fires beside one that does is told on stderr, and only then."""
import os
import tempfile
from e2elib import fail, parse_snapshots, passed
from reclib import need_perf, perftop
from replaylib import compare, perf_reports, replay_json, script_counts

need_perf()
EVENTS = ["cpu-clock", "page-faults"]
# Fresh pages every round (8 MiB mapped, each page written, unmapped) between stretches of
# interpreter work.
WORK = ["python3", "-c", "import mmap, time\nt=time.time()\nwhile time.time()-t<1.5:\n"
        " m=mmap.mmap(-1, 8<<20)\n for i in range(0, 8<<20, 4096): m[i]=1\n m.close()\n"
        " sum(i*i for i in range(30000))"]
checks = 0


def by_event(snaps):
    """{event: [its snapshots]}, after checking that each refresh prints the events in order."""
    if len(snaps) % len(EVENTS):
        fail(f"{len(snaps)} snapshots for {len(EVENTS)} events")
    out = {e: [] for e in EVENTS}
    for i in range(0, len(snaps), len(EVENTS)):
        group = snaps[i:i + len(EVENTS)]
        names = [s.get("event") for s in group]
        if names != EVENTS or len({s["time"] for s in group}) != 1:
            fail(f"refresh {i // len(EVENTS)}: events {names} at {[s['time'] for s in group]}")
        for s in group:
            out[s["event"]].append(s)
    return out


def merged_self(snaps):
    rows = {}
    for s in snaps:
        for r in s["rows"]:
            k = (r["dso"], r["sym"])
            rows[k] = rows.get(k, 0.0) + r["self"] * s["total_period"]
    total = sum(rows.values()) or 1
    return {k: 100 * v / total for k, v in rows.items()}


with tempfile.TemporaryDirectory() as d:
    f = os.path.join(d, "two.data")
    # Frame pointers alone: perf report reads a recording of the default call graph (the user
    # registers and stack beside the frame-pointer chain) as a DWARF one, appending the sample's IP
    # with its inline frames to each chain, and cannot see the first frames perftop computes from
    # the stack (tests/unwind/test_unwind_fphead.py holds those to the program's own figures).
    args = ["-b", "--json", "-d", "0.5", "-z", "--call-graph", "fp", "-o", f]
    for e in EVENTS:
        args += ["-e", e]
    p = perftop(args + ["--"] + WORK)
    if p.returncode != 0:
        fail(f"perftop {' '.join(args)} exited {p.returncode}: {p.stderr.strip()}")
    ev = by_event(parse_snapshots(p.stdout, "live"))
    checks += 1
    live = {e: sum(s["samples"] for s in ev[e]) for e in EVENTS}
    if not all(live.values()):
        fail(f"an event has no samples: {live}")
    cpu, pf = merged_self(ev["cpu-clock"]), merged_self(ev["page-faults"])
    apart = sum(abs(cpu.get(k, 0) - pf.get(k, 0)) for k in set(cpu) | set(pf))
    top = {e: max(m, key=m.get) for e, m in (("cpu-clock", cpu), ("page-faults", pf))}
    print(f"live: samples {live}; top rows {top}; the two profiles differ by {apart:.0f} points")
    if apart < 20:
        fail(f"the events' rows are nearly the same ({apart:.1f} points apart): {top}")
    checks += 2

    # The file: both events, as many samples each as the live session took in.
    counts = script_counts(f)
    if counts != live:
        fail(f"perf script counts {counts}, the live session took in {live}")
    checks += 1
    reports = perf_reports(f)  # --no-children within --children (perfcompare.self_of)
    if sorted(reports[False]) != sorted(EVENTS):
        fail(f"perf report's sections: {sorted(reports[False])}")
    # perf report knows no Python frames: the replay is compared without them (tests/python
    # checks them)
    snaps, _ = replay_json(p.args[0], f, ["--no-python"])
    rep = by_event(snaps)
    for e in EVENTS:
        s = rep[e][0]
        if s["samples"] != counts[e]:
            fail(f"replay of {e}: {s['samples']} samples, perf script {counts[e]}")
        for key, children in (("self", False), ("total", True)):
            # rows by address are compared too (code without symbols: the faults of Debian's
            # stripped mmap module); page faults land in one or two functions (the page writes
            # of mmap_ass_subscript: all of them in some runs), and their callers are rows only
            # where the kernel's frame-pointer walk got past them (Debian's python3 and its mmap
            # module have no frame pointers: in some runs no caller reaches 0.5%)
            rows = 5 if e == "cpu-clock" else 1
            ok, text = compare(s, reports[children][e], key, min_rows=rows)
            print(f"replay {e} vs perf report: {text}")
            if not ok:
                fail(f"replay of {e}: {text}")
        checks += 3

    # An event that has not fired beside one that has: the notice names it, once.
    p = perftop(["-b", "--json", "-d", "0.25", "-e", "cpu-clock", "-e", "alignment-faults", "--"]
                + WORK[:2] + [WORK[2].replace("1.5", "1.2")])
    snaps = parse_snapshots(p.stdout, "alignment-faults")
    # told at the third refresh when it had not fired by then (whatever this CPU does)
    early = sum(s["samples"] for s in snaps[:6] if s["event"] == "alignment-faults")
    told = p.stderr.count("event 'alignment-faults' has not fired yet")
    print(f"alignment-faults: {early} samples in the first 3 of {len(snaps) // 2} refreshes; "
          f"told {told} time(s)")
    if p.returncode != 0 or len(snaps) < 6 or (early == 0) != (told == 1) or told > 1:
        fail(f"not-fired notice: exit {p.returncode}, {len(snaps)} snapshots, {early} early "
             f"samples, stderr {p.stderr.strip()!r}")
    checks += 1

    # -q prints errors only: neither the tables nor that notice (nor any other warning)
    p = perftop(["-b", "-q", "-d", "0.25", "-e", "cpu-clock", "-e", "alignment-faults", "--"]
                + WORK[:2] + [WORK[2].replace("1.5", "1.2")])
    print(f"-q: exit {p.returncode}, stdout {len(p.stdout)} bytes, stderr {p.stderr.strip()!r}")
    if p.returncode != 0 or p.stdout or p.stderr:
        fail(f"-q printed: exit {p.returncode}, stdout {p.stdout[:200]!r}, "
             f"stderr {p.stderr.strip()!r}")
    checks += 1
passed(checks)
