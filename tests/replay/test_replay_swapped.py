#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: files of the other byte order. Small little-endian recordings made here (perf record
-e cpu-clock -g, no compression; two events with --sample-cpu -d for IDENTIFIER, ID, CPU and ADDR;
--call-graph dwarf for REGS_USER and STACK_USER) are turned into the files a big-endian machine's
perf would have written by swap_endian.py (field by field, see there). perf report must read each
converted file exactly as the original (which checks the converter against perf's own reader), and
perftop -i must give the same snapshot on both: the same samples, rows and percentages; --header
says "other byte order" and shows the same hostname, OS release and events.

usage: test_replay_swapped.py PERFTOP FIXTURE_DIR"""
import os
import subprocess
import sys
from replaylib import fail, perf_record, perf_report, replay_json, run_perftop, tmpdir

perftop, fixtures = sys.argv[1], sys.argv[2]
spinner = os.path.join(fixtures, "spinner")
here = os.path.dirname(os.path.abspath(__file__))
d = tmpdir()
checks = 0


def rows(snap):
    return [(r["sym"], r["dso"], r["self"], r["total"], r.get("samples")) for r in snap["rows"]]


def header(path):
    p = run_perftop(perftop, ["-i", path, "--header"])
    if p.returncode != 0:
        fail(f"perftop -i {path} --header exited {p.returncode}: {p.stderr.strip()}")
    return dict(l.split(": ", 1) for l in p.stdout.splitlines() if ": " in l)


def check(name, args, extra=()):
    global checks
    le = perf_record(args, os.path.join(d, name + ".le.data"), [spinner, "1"])
    be = os.path.join(d, name + ".be.data")
    p = subprocess.run([sys.executable, os.path.join(here, "swap_endian.py"), le, be],
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{name}: swap_endian.py: {p.stderr.strip()}")
    with open(le, "rb") as f, open(be, "rb") as g:
        if f.read(8) != b"PERFILE2" or g.read(8) != b"2ELIFREP":
            fail(f"{name}: the converted file does not have the swapped magic")
    # perf's own reader is the judge of the converter
    ref_le, ref_be = ({e: (s.samples, s.rows) for e, s in perf_report(path, False).items()}
                      for path in (le, be))
    if ref_le != ref_be or not any(rows for _, rows in ref_le.values()):
        fail(f"{name}: perf report differs on the converted file:\n{str(ref_le)[:800]}\n---\n"
             f"{str(ref_be)[:800]}")
    checks += 1
    a, err_a = replay_json(perftop, le, extra)
    b, err_b = replay_json(perftop, be, extra)
    if err_b.strip() != err_a.strip():
        fail(f"{name}: perftop warns on the swapped file only: {err_b.strip()}")
    if a[0]["samples"] != b[0]["samples"] or not a[0]["samples"]:
        fail(f"{name}: {a[0]['samples']} samples, {b[0]['samples']} in the swapped file")
    if rows(a[0]) != rows(b[0]) or a[0]["event"] != b[0]["event"]:
        fail(f"{name}: the snapshots differ:\n{rows(a[0])[:6]}\n{rows(b[0])[:6]}")
    print(f"{name}: {a[0]['samples']} samples, {len(a[0]['rows'])} rows, the same in both byte orders;"
          f" top {rows(a[0])[0][:3]}")
    checks += 1
    ha, hb = header(le), header(be)
    if hb.get("format") != "file, other byte order" or ha.get("format") != "file":
        fail(f"{name}: --header format: {ha.get('format')!r} / {hb.get('format')!r}")
    for k in ("hostname", "os release", "arch", "nrcpus online", "cmdline", "event 0", "event 1"):
        if ha.get(k) != hb.get(k):
            fail(f"{name}: --header {k}: {ha.get(k)!r} in the original, {hb.get(k)!r} swapped")
    checks += 1


check("fp", ["-e", "cpu-clock", "-g", "-F", "999"])
check("two-events", ["-e", "cpu-clock,task-clock", "-g", "-F", "999", "--sample-cpu", "-d"],
      ["--select-event", "task-clock"])
check("dwarf", ["-e", "cpu-clock", "--call-graph", "dwarf,4096", "-F", "499"])
print(f"{checks} passed, 0 failed")
