#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: a recording of tracepoint events carries their formats (HEADER_TRACING_DATA), so that
perf reads it as it reads its own. perftop -e sched:sched_switch -o F on a command that sleeps a
thousand times, and perftop --off-cpu -o F (sched:sched_switch with its fields, beside switch
records): perf report -i F exits 0 without complaint, its samples per event (the sum of its Samples
column) equal perf script's and perftop's own replay of F (and the live session's, for -e), and
every sched_switch line of perf script prints the event's fields (prev_comm=... next_pid=...),
which perf decodes with the format file the section holds. Skips (77) when tracefs is not mounted
(the tracefs fixture mounts it) or tracepoints are not ours to open (not root)."""
import os
import re
import subprocess
import tempfile
from e2elib import SKIP, fail, need_perf_events, parse_snapshots, passed
from reclib import need_perf, perf, perftop
from replaylib import replay_json, script_counts

need_perf()
if os.geteuid() != 0:
    print("SKIP: tracepoints need root (tracefs is root's)")
    raise SystemExit(SKIP)
# tracefs mounted (the suite's tracefs fixture mounts it and unmounts it after) and the tracepoint
# opened by the kernel: asked of them (perf_probe), never mounted here.
need_perf_events("tracepoint:sched:sched_switch")

EV = "sched:sched_switch"
# A thousand short sleeps: as many switch-outs of the command's thread, at least.
SLEEPER = ["python3", "-c", "import time\nfor i in range(1000): time.sleep(0.0002)"]
FIELDS = re.compile(r"prev_comm=\S.* prev_pid=\d+ .*==> next_comm=.* next_pid=\d+")
checks = 0


def report_counts(path):
    """perf report's samples per event: the sum of the Samples column of each event's section."""
    out = perf(["report", "--stdio", "-F", "sample,comm", "-g", "none"], path)
    counts, ev = {}, None
    for line in out.splitlines():
        m = re.match(r"^# Samples: \S+\s+of event '([^']+)'", line)
        if m:
            ev = m.group(1)
            counts.setdefault(ev, 0)
            continue
        m = re.match(r"^\s+(\d+)\s+\S", line)
        if m and ev and not line.startswith("#"):
            counts[ev] += int(m.group(1))
    return counts


def check_file(path, what, live=None):
    """perf report, perf script and our replay agree on the file's samples; the fields print."""
    global checks
    rep = report_counts(path)
    scr = script_counts(path)
    snaps, _ = replay_json(perftop_bin, path)
    ours = {s.get("event", EV): s["samples"] for s in snaps}
    print(f"{what}: perf report {rep}, perf script {scr}, replay {ours}"
          + (f", live {live}" if live is not None else ""))
    if not rep.get(EV):
        fail(f"{what}: perf report has no {EV} samples: {rep}")
    if rep != scr or scr != ours or (live is not None and live != scr):
        fail(f"{what}: the counts differ: report {rep}, script {scr}, replay {ours}, live {live}")
    lines = [l for l in perf(["script"], path).splitlines() if f" {EV}:" in l]
    bare = [l for l in lines if not FIELDS.search(l)]
    if len(lines) != scr[EV] or bare:
        fail(f"{what}: {len(lines)} {EV} lines of {scr[EV]} samples; without fields: {bare[:3]}")
    checks += 3


with tempfile.TemporaryDirectory() as d:
    f = os.path.join(d, "tp.data")
    p = perftop(["-b", "--json", "-d", "0.5", "-z", "-e", EV, "-o", f, "--"] + SLEEPER)
    perftop_bin = p.args[0]
    if p.returncode != 0:
        fail(f"perftop -e {EV} -o exited {p.returncode}: {p.stderr.strip()}")
    live = {EV: sum(s["samples"] for s in parse_snapshots(p.stdout, "live"))}
    check_file(f, f"-e {EV}", live)
    if live[EV] < 1000:
        fail(f"-e {EV}: {live[EV]} switches for 1000 sleeps")
    checks += 1

    f = os.path.join(d, "offcpu.data")
    p = perftop(["--off-cpu", "-b", "-n", "1", "-d", "1", "-o", f, "--", "sleep", "0.3"])
    if p.returncode != 0:
        fail(f"perftop --off-cpu -o exited {p.returncode}: {p.stderr.strip()}")
    check_file(f, "--off-cpu")
passed(checks)
