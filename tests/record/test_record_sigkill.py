#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: a recording whose perftop is killed with SIGKILL after ~2 s leaves nothing at its name
(the file takes it only when complete: util/safefile.h), and the temporary beside it, .NAME.XXXXXX,
is still a perf.data file perf report reads (everything up to the last header update, at most ~1 s old: at least the samples
of the first one-second snapshot perftop printed before it was killed); and perftop -i shows it
with a notice that it was cut short. perftop reads past the
header's data size (its last update) to the last complete record: a file without feature bits was
never finished (perfdata_write.h)."""
import os
import re
import signal
import subprocess
import tempfile
import time
from e2elib import fail, need_perf_events, passed, perftop_path, snapshots
from reclib import need_perf, perf, report_rows, fixture

need_perf()
need_perf_events("task")
checks = 0
with tempfile.TemporaryDirectory() as d:
    f = os.path.join(d, "cut.data")
    p = subprocess.Popen([perftop_path(), "-b", "--json", "-d", "1", "-o", f, "--", fixture("spinner"),
                          "10"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    time.sleep(2.5)
    if p.poll() is not None:
        fail(f"perftop ended early: {p.stderr.read()}")
    p.kill()
    p.wait()
    try:
        os.killpg(p.pid, signal.SIGKILL)   # the orphaned spinner (it holds the stdout pipe too)
    except ProcessLookupError:
        pass
    snaps = snapshots(p.stdout.read(), "perftop -o (killed)")
    p.stdout.close()
    p.stderr.close()
    if os.path.lexists(f):
        fail(f"a killed recording left {os.path.getsize(f)} bytes at its name {f}")
    left = [n for n in os.listdir(d) if re.fullmatch(r"\.cut\.data\.\w{6}", n)]
    if len(left) != 1:
        fail(f"want the killed recording under one temporary name beside it, found {os.listdir(d)}")
    f = os.path.join(d, left[0])
    checks += 1
    rows = report_rows(f)
    if not rows or rows[0][2] != "spinner_work":
        fail(f"perf report of the cut file: {rows[:5]}")
    samples = perf(["script", "-F", "comm,tid"], f).count("\n")
    # The header is brought up to date every second: the first second's samples are all in the file.
    if not snaps:
        fail("perftop printed no snapshot in 2.5 s")
    if samples < snaps[0]["samples"] or samples == 0:
        fail(f"only {samples} samples in a recording cut after 2.5 s; perftop's first snapshot "
             f"alone had {snaps[0]['samples']}")
    print(f"cut file: {os.path.getsize(f)} bytes, {samples} samples; top {rows[0]}")
    checks += 2

    # The writer's side of the contract (perfdata_write.h): no feature bits = never finished, so
    # the reader reads on past the header's data size (the last sync) to the last complete record.
    r = subprocess.run([perftop_path(), "-i", f, "-b", "--json"], capture_output=True, text=True,
                       timeout=60)
    if r.returncode != 0:
        fail(f"perftop -i on the cut file exited {r.returncode}: {r.stderr.strip()}")
    snaps = snapshots(r.stdout, "perftop -i on the cut file")
    if len(snaps) != 1 or not snaps[0]["rows"]:
        fail(f"perftop -i printed no snapshot with rows: {r.stdout[:300]}")
    syms = [row["sym"] for row in snaps[0]["rows"]]
    if syms[0] != "spinner_work" or "spinner_main_loop" not in syms:
        fail(f"perftop -i on the cut file: top rows {syms[:5]}")
    checks += 1
    notice = [l for l in r.stderr.splitlines() if l.strip()]
    if len(notice) != 1 or "cut short" not in notice[0]:
        fail(f"want one notice that the recording was cut short on stderr, got {notice}")
    m = re.search(r"read (\d+) records", notice[0])
    if not m or int(m.group(1)) < samples:
        # everything perf reads (up to the header's data size) and what follows it
        fail(f"the notice does not say how much was recovered, or less than perf reads "
             f"({samples} samples): {notice[0]}")
    print(f"perftop -i: {notice[0]}")
    checks += 2
passed(checks)
