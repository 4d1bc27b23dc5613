#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Exports of a recording of two cgroups (perf record -a --all-cgroups, spinner in one, cgloop in the
other, both made by the test under the perf_event hierarchy), replayed with -s container,sym:

  - pprof: every sample carries the string labels container and cgroup; the samples labelled with
    each of the test's cgroups are exactly perf report --sort cgroup -n's count for it on the same
    file, and all of its fixture's command; go tool pprof -tags (pprof's own reader) lists both;
  - folded: every line starts with its container (a path of no known layout is its own name), the
    counts of a cgroup's lines are perf report's count, and its lines are of its fixture alone;
    without a container key the lines start with the command, as before.

usage: test_export_cgroups.py PERFTOP FIXTURE_DIR"""
import os
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
tests = os.path.dirname(here)
sys.path.insert(0, here)
sys.path.insert(1, os.path.join(tests, "lib"))
sys.path.insert(1, os.path.join(tests, "replay"))
sys.path.insert(1, os.path.join(tests, "push"))
import cgrouplib  # noqa: E402
from exportlib import folded_read, go_env, need_tool  # noqa: E402
from ingest_server import read_pprof  # noqa: E402
from replaylib import fail, perf_record, tmpdir  # noqa: E402

perftop, fixtures = sys.argv[1], sys.argv[2]
mount, _ = cgrouplib.need_mount()
tag = f"perftop-expcg-{os.getpid()}"
dir_a, path_a = cgrouplib.make(mount, tag + "-a")
dir_b, path_b = cgrouplib.make(mount, tag + "-b")
mine = {path_a: "spinner", path_b: "cgloop"}
d = tmpdir()
procs = [cgrouplib.start_in(dir_a, [os.path.join(fixtures, "spinner"), "4"]),
         cgrouplib.start_in(dir_b, [os.path.join(fixtures, "cgloop"), "4"])]
time.sleep(0.2)
data = perf_record(["-a", "--all-cgroups", "-F", "999"], os.path.join(d, "cg.data"), ["sleep", "1"])
for p in procs:
    p.kill()
    p.wait()

counts = cgrouplib.report_cgroups(data)  # perf report's samples per cgroup
for path in mine:
    if counts.get(path, 0) < 50:
        fail(f"perf report gives {path} {counts.get(path, 0)} samples: its fixture did not run")


def export(keys, *names):
    outs = [os.path.join(d, n) for n in names]
    args = [perftop, "-i", data, "-b", "-q", "-s", keys]
    for o in outs:
        args += ["--export", o]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail(f"perftop {' '.join(args[1:])} exited {p.returncode}: {p.stderr.strip()[:300]}")
    return outs


pb, folded = export("container,sym", "cg.pb.gz", "cg.folded")

# pprof: the labels, per cgroup against perf report
with open(pb, "rb") as f:
    prof = read_pprof(f.read())
got = {}
for vals, labs in zip(prof["sample_values"], prof["sample_labels"]):
    c = labs.get("container")
    if c is None or labs.get("cgroup") is None:
        fail(f"a sample without its container or cgroup label: {labs}")
    if c in mine and labs.get("comm") != mine[c]:
        fail(f"a sample of {c} labelled comm {labs.get('comm')}, want {mine[c]}")
    got[c] = got.get(c, 0) + vals[0]
for path in mine:
    if got.get(path) != counts[path]:
        fail(f"pprof: {got.get(path)} samples labelled container={path}, perf report {counts[path]}")
need_tool("go", "golang-go (the Makefile's PACKAGES)")
tags = subprocess.run(["go", "tool", "pprof", "-tags", pb], capture_output=True, text=True,
                      timeout=120, env=go_env(d))
if tags.returncode != 0 or any(path not in tags.stdout for path in mine):
    fail(f"go tool pprof -tags lists no container {sorted(mine)}: {tags.stdout[:500]}"
         f"{tags.stderr[:300]}")

# folded: the container first, then the command
fold = {}
for stack, n in folded_read(folded).items():
    frames = stack.split(";")
    if len(frames) < 2:
        fail(f"folded line of one frame with -s container: {stack}")
    if frames[0] in mine and frames[1] != mine[frames[0]]:
        fail(f"folded: a line of {frames[0]} of command {frames[1]}: {stack}")
    fold[frames[0]] = fold.get(frames[0], 0) + n
for path in mine:
    if fold.get(path) != counts[path]:
        fail(f"folded: {fold.get(path)} samples under {path}, perf report {counts[path]}")

# without a container key: unchanged, the command first
(plain,) = export("sym", "plain.folded")
roots = {stack.split(";")[0] for stack in folded_read(plain)}
if not {"spinner", "cgloop"} <= roots or roots & set(mine):
    fail(f"folded without -s container: roots {sorted(roots)[:20]}")
print(f"ok: pprof labels and folded roots of {sorted(mine)} agree with perf report {counts}")
