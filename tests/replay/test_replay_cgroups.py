#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: a replay of `perf record -a --all-cgroups` agrees with `perf report --sort cgroup,sym`
on the same file within 0.5 points, both ways (every row of 0.5% or more on either side), and its
container key names the cgroups the test made (a path of no known layout is named by itself).

Two cgroups are made under the perf_event hierarchy, the spinner fixture runs in each, a third
outside them.

usage: test_replay_cgroups.py PERFTOP FIXTURE_DIR"""
import os
import sys
import time

sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import cgrouplib  # noqa: E402
from replaylib import (check, fail, perf_record, perf_report, replay_json, tmpdir)  # noqa: E402

perftop, fixtures = sys.argv[1], sys.argv[2]
spinner = os.path.join(fixtures, "spinner")
mount, _ = cgrouplib.need_mount()
tag = f"perftop-replay-{os.getpid()}"
dir_a, path_a = cgrouplib.make(mount, tag + "-a")
dir_b, path_b = cgrouplib.make(mount, tag + "-b")
d = tmpdir()

procs = [cgrouplib.start_in(dir_a, [spinner, "5"]), cgrouplib.start_in(dir_b, [spinner, "5"]),
         cgrouplib.start_in(None, [spinner, "5"])]
time.sleep(0.2)
data = perf_record(["-a", "--all-cgroups", "-F", "999"], os.path.join(d, "cg.data"), ["sleep", "2"])
for p in procs:
    p.kill()
    p.wait()

snaps, err = replay_json(perftop, data, ["-s", "cgroup,sym"])
if len(snaps) != 1:
    fail(f"want one snapshot over the whole file, got {len(snaps)}")
secs = perf_report(data, False, sort="cgroup,sym")
if len(secs) != 1:
    fail(f"perf report: {len(secs)} sections, want one")
sec = next(iter(secs.values()))
check("--all-cgroups cgroup,sym", snaps[0], sec, "self", sort="cgroup,sym", min_rows=3)

# The acceptance's own bound, on top of perfcompare's: 0.5 points for every row either side has.
ours = {(r.get("cgroup", ""), r.get("sym", "")): r["self"] for r in snaps[0]["rows"]}
theirs, nsamples = {}, {}
for (cg, sym), self_, _, n in sec.rows:
    theirs[(cg, sym)] = theirs.get((cg, sym), 0.0) + self_
    nsamples[cg] = nsamples.get(cg, 0) + n
for cg in (path_a, path_b):
    mine = sum(v for (c, _), v in ours.items() if c == cg)
    perfs = sum(v for (c, _), v in theirs.items() if c == cg)
    # a spinner busy for 2 s has hundreds of samples even on a loaded machine
    if nsamples.get(cg, 0) < 100:
        fail(f"perf report gives {cg} only {nsamples.get(cg, 0)} samples: the spinner in it did not run")
    if abs(mine - perfs) > 0.5:
        fail(f"{cg}: perftop {mine:.2f}% against perf report's {perfs:.2f}%")

# the container key: the test's cgroups by their paths (no runtime's layout), once each
snaps, err = replay_json(perftop, data, ["-s", "container"])
names = {r.get("container"): r["self"] for r in snaps[0]["rows"]}
for cg in (path_a, path_b):
    if cg not in names:
        fail(f"-s container: no row for {cg}: {sorted(names)}")
shares = {c["container"]: c["self"] for c in snaps[0].get("containers", [])}
if path_a not in shares or abs(shares[path_a] - names[path_a]) > 0.01:
    fail(f"the header's containers {shares} disagree with the rows {names}")
print(f"ok: cgroup,sym within 0.5 points of perf report; containers {sorted(names)}")
