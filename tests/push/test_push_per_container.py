#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance (--push-per container): `perftop -a --push URL --push-per container` pushing to a
stand-in of Pyroscope's /ingest on 127.0.0.1 (ingest_server.py) sends one series per container.

Two cgroups are made under the perf_event hierarchy, the spinner fixture runs in one, cgloop in the
other. perftop samples the machine (-a) pushing every second and records what it samples (-o), so
that perf report reads the very samples that were pushed:
  - no container twice in a window, and the containers pushed are the cgroups `perf report --sort
    cgroup` finds in the same file, both ways (a path of no known layout is its own name, "/" is "host", a known layout's name
    is part of its path); samples of no known cgroup go without a container label;
  - each series' pprof holds only its container's samples: every sample's container label is the
    series', and the test's two cgroups hold only their own fixture's command (comm label);
  - --push-per takes only "container" and needs --push: one line on stderr and exit 2.

usage: test_push_per_container.py PERFTOP FIXTURE_DIR"""
import os
import subprocess
import sys
import time
import urllib.parse

here = os.path.dirname(os.path.abspath(__file__))
tests = os.path.dirname(here)
sys.path.insert(0, here)
sys.path.insert(1, os.path.join(tests, "lib"))
sys.path.insert(1, os.path.join(tests, "replay"))
import cgrouplib  # noqa: E402
from ingest_server import IngestServer, read_pprof  # noqa: E402
from replaylib import fail, tmpdir  # noqa: E402

perftop, fixtures = sys.argv[1], sys.argv[2]


def run(args, timeout=60):
    return subprocess.run([perftop] + args, capture_output=True, text=True, timeout=timeout)


# the options, before anything is made
for args, want in ((["--push", "http://127.0.0.1:1", "--push-per", "pod", "-a"], "--push-per"),
                   (["--push-per", "container", "-a"], "--push")):
    p = run(args)
    if p.returncode != 2 or len(p.stderr.strip().splitlines()) != 1 or want not in p.stderr:
        fail(f"perftop {' '.join(args)}: exit {p.returncode}, stderr {p.stderr!r}: want one line "
             f"naming {want} and exit 2")

mount, _ = cgrouplib.need_mount()
tag = f"perftop-pushcg-{os.getpid()}"
dir_a, path_a = cgrouplib.make(mount, tag + "-a")
dir_b, path_b = cgrouplib.make(mount, tag + "-b")
d = tmpdir()
procs = [cgrouplib.start_in(dir_a, [os.path.join(fixtures, "spinner"), "4"]),
         cgrouplib.start_in(dir_b, [os.path.join(fixtures, "cgloop"), "4"])]
time.sleep(0.2)
# live, recording what it samples (-o): perf report reads the same samples afterwards
data = os.path.join(d, "cg.data")
with IngestServer(max_requests=400, lifetime=60) as srv:
    p = run(["-a", "-F", "499", "-b", "-q", "-n", "2", "-d", "1", "-o", data, "--push", srv.url,
             "--push-interval", "1", "--push-per", "container", "-s", "container,sym"])
    if p.returncode != 0:
        fail(f"perftop --push-per container exited {p.returncode}: {p.stderr.strip()}")
    reqs = list(srv.requests)
for p in procs:
    p.kill()
    p.wait()
if not reqs:
    fail("no push reached the server")

series = {}  # container label (None: none) -> its samples' labels, all windows
windows = {}  # (from, until) -> the containers pushed in it
for r in reqs:
    name = r.query["name"][0]
    app, _, rest = name.partition("{")
    labels = dict(kv.split("=", 1) for kv in rest.rstrip("}").split(",") if kv)
    c = labels.get("container")
    win = windows.setdefault((r.query["from"][0], r.query["until"][0]), set())
    if c in win:
        fail(f"two series of container {c!r} in one window: {[q.query['name'] for q in reqs]}")
    win.add(c)
    if "pod" in labels or "namespace" in labels:
        fail(f"{name}: pod or namespace labels on a container of no Kubernetes layout")
    series.setdefault(c, []).extend(read_pprof(r.body)["sample_labels"])

# every sample of a series is of its container
for c, samples in series.items():
    for labs in samples:
        if labs.get("container") != c:
            fail(f"series container={c!r} holds a sample labelled {labs}")
for path, comm in ((path_a, "spinner"), (path_b, "cgloop")):
    if path not in series:
        fail(f"no series for {path}: {sorted(map(str, series))}")
    comms = {labs.get("comm") for labs in series[path]}
    if comms != {comm}:
        fail(f"series {path}: commands {comms}, want only {comm}")

# the containers pushed against perf report's cgroups, both ways
paths = set(cgrouplib.report_cgroups(data))


def names_path(name, path):
    return name == path or (path == "/" and name == "host") or (len(name) > 2 and name in path)


known = {c for c in series if c is not None}
for path in paths:
    if path not in ("unknown", "") and not any(names_path(n, path) for n in known):
        fail(f"perf report's cgroup {path} has no series: {sorted(known)}")
for n in known:
    if not any(names_path(n, path) for path in paths):
        fail(f"series container={n} is no cgroup perf report finds: {sorted(paths)}")
print(f"ok: {len(series)} series ({sorted(map(str, series))}) for perf report's {sorted(paths)}")
