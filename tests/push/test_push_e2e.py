#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance (--push): perftop pushing to a stand-in of Pyroscope's /ingest on 127.0.0.1
(ingest_server.py; no other address is ever used).

  - options: a bad URL, label, header, name or interval is one line on stderr and exit 2, before
    anything is opened;
  - accepted: --push http://USER:PASSWORD@127.0.0.1:PORT --push-interval 1 --push-label env=test
    --push-header ... -b --json -n 5 -d 1 -- spinner: at least 4 requests; the first, answered 500,
    is sent again (same window); every request is POST /ingest with name APP{env=test,hostname=H},
    from < until in Unix seconds around the run, format=pprof, sampleRate=999, spyName=perftop,
    basic auth, the custom header, and a gzipped pprof body (samples/count first); the windows
    follow each other, and the accepted ones hold samples and the spinner's hot function, and are
    accepted by pprof's own Go package (Parse, CheckValid: tests/export/pprofcheck.go); the
    JSON's last "push" says what the server saw; exit 0;
  - rejected: a server that answers 400 gets each window once (no retry), and the JSON says failed
    and dropped with the server's answer in last_error;
  - down: nothing listening on the port: the session's snapshots are whole (5, with the spinner's
    function), push sent 0, failed and dropped counted with --push-queue 1, stderr says the pushes
    failed, exit 0 within its bounded flush;
  - Parca: parca://127.0.0.1:PORT posts to /api/profiles/writeraw the JSON of a WriteRawRequest
    (labels __name__=perftop, job=APP, the --push-label ones, hostname) around the same pprof;
  - agent: -a --push URL -b -n 0 -q runs until SIGINT, prints nothing (a server that accepts),
    pushes under the host name, and exits 0.

usage: test_push_e2e.py PERFTOP FIXTURE_DIR"""
import base64
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "e2e"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "export"))
from e2elib import fail, kinds_for, need_perf_events, parse_snapshots, passed, perftop_path  # noqa: E402
from exportlib import pprof_check  # noqa: E402
from ingest_server import IngestServer, read_pprof, wait_for  # noqa: E402

perftop = perftop_path()
spinner = os.path.join(sys.argv[2], "spinner")
host = socket.gethostname()
checks = 0


def check(cond, msg):
    global checks
    checks += 1
    if not cond:
        fail(msg)


def q1(r, k):
    v = r.query.get(k)
    return v[0] if v else None


# options: one line, exit 2, nothing started
for bad in (["--push", "ftp://127.0.0.1:1"], ["--push", "http://127.0.0.1:99999"],
            ["--push", "http://127.0.0.1:1/x?y=1"],
            ["--push", "http://127.0.0.1:1", "--push-label", "env"],
            ["--push", "http://127.0.0.1:1", "--push-label", "env=a,b"],
            ["--push", "http://127.0.0.1:1", "--push-header", "NoColon"],
            ["--push", "http://127.0.0.1:1", "--push-name", "a{b}"],
            ["--push", "http://127.0.0.1:1", "--push-interval", "0"],
            ["--push-label", "env=x"], ["--push", "http://127.0.0.1:1", "-i", "x.data"]):
    p = subprocess.run([perftop] + bad + ["-b", "-n", "1"], capture_output=True, text=True, timeout=30)
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and lines[0].startswith("perftop: "),
          f"{bad}: exit {p.returncode}, stderr {p.stderr!r}")

need_perf_events(*kinds_for(["--", spinner]))


def run(args, timeout=60):
    p = subprocess.run([perftop] + args, capture_output=True, text=True, timeout=timeout)
    return p, parse_snapshots(p.stdout)


# accepted, after a 500
with IngestServer(statuses=(500, 200), max_requests=40) as srv:
    t0 = time.time()
    p, snaps = run(["--push", f"http://alice:s3cret@127.0.0.1:{srv.port}", "--push-interval", "1",
                    "--push-label", "env=test", "--push-header", "X-Scope-OrgID: tenant-7",
                    "--push-name", "spinapp", "-b", "--json", "-n", "5", "-d", "1", "--",
                    spinner, "8"])
    t1 = time.time()
    check(p.returncode == 0, f"accepted: exit {p.returncode}: {p.stderr.strip()}")
    reqs = list(srv.requests)
check(len(reqs) >= 4, f"accepted: {len(reqs)} requests, want at least 4")
check(reqs[0].status == 500 and reqs[1].status == 200, "accepted: not 500 then 200")
check((q1(reqs[0], "from"), q1(reqs[0], "until")) == (q1(reqs[1], "from"), q1(reqs[1], "until")),
      "accepted: the request answered 500 was not sent again (same window)")
auth = "Basic " + base64.b64encode(b"alice:s3cret").decode()
prev_until = None
total = 0
functions = set()
for i, r in enumerate(reqs):
    w = f"accepted: request {i}"
    check(r.method == "POST" and r.path == "/ingest", f"{w}: {r.method} {r.path}")
    check(q1(r, "name") == f"spinapp{{env=test,hostname={host}}}", f"{w}: name {q1(r, 'name')!r}")
    f, u = int(q1(r, "from")), int(q1(r, "until"))
    check(f < u and t0 - 2 <= f and u <= t1 + 2, f"{w}: from {f} until {u}, run {t0:.1f}..{t1:.1f}")
    check(q1(r, "format") == "pprof" and q1(r, "spyName") == "perftop" and
          q1(r, "sampleRate") == "999", f"{w}: query {r.query}")
    check(r.headers.get("Authorization") == auth, f"{w}: Authorization {r.headers.get('Authorization')}")
    check(r.headers.get("X-Scope-OrgID") == "tenant-7", f"{w}: no X-Scope-OrgID")
    check(r.headers.get("Content-Type") == "application/octet-stream", f"{w}: Content-Type")
    try:
        prof = read_pprof(r.body)
    except Exception as e:  # noqa: BLE001
        fail(f"{w}: the body is not a gzipped pprof: {e}")
    check(prof["sample_types"] and prof["sample_types"][0] == ("samples", "count"),
          f"{w}: sample types {prof['sample_types']}")
    if r.status == 200:
        if prev_until is not None:  # windows follow each other (to the second, rounded out)
            check(prev_until - 1 <= f <= prev_until, f"{w}: from {f} after until {prev_until}")
        prev_until = u
        total += sum(v[0] for v in prof["sample_values"] if v)
        functions |= set(prof["function_names"])
check(total > 0, "accepted: no samples in the pushed profiles")
check("spinner_work" in functions, f"accepted: the spinner's hot function is in no pushed profile: "
      f"{sorted(functions)[:20]}")
# every accepted body read by pprof's own Go package (Parse and CheckValid: tests/export)
with tempfile.TemporaryDirectory() as tmp:
    paths = []
    for i, r in enumerate(reqs):
        if r.status == 200:
            paths.append(os.path.join(tmp, f"push{i}.pb.gz"))
            with open(paths[-1], "wb") as f:
                f.write(r.body)
    summary = pprof_check(tmp, *paths)
check(len(summary) == len(paths), f"accepted: pprof read {len(summary)} of {len(paths)} bodies")
check(any("spinner_work" in r.get("flat", {}) for r in summary.values()),
      "accepted: pprof finds spinner_work in no pushed profile")
push = snaps[-1].get("push") if snaps else None
check(push is not None and push["failed"] >= 1 and push["sent"] >= 2,
      f"accepted: last snapshot's push {push}")
sent = sum(1 for r in reqs if r.status == 200)
check(push["sent"] <= sent, f"accepted: JSON says {push['sent']} sent, the server took {sent}")

# rejected: 400, never retried
with IngestServer(statuses=(400,), max_requests=40) as srv:
    p, snaps = run(["--push", srv.url, "--push-interval", "1", "-b", "--json", "-n", "3", "-d", "1",
                    "--", spinner, "5"])
    reqs = list(srv.requests)
check(p.returncode == 0, f"rejected: exit {p.returncode}: {p.stderr.strip()}")
windows = {(q1(r, "from"), q1(r, "until")) for r in reqs}
check(len(reqs) >= 2 and len(windows) == len(reqs), f"rejected: {len(reqs)} requests for "
      f"{len(windows)} windows (a 400 must not be retried)")
push = snaps[-1]["push"]
check(push["sent"] == 0 and push["failed"] >= 1 and push["failed"] == push["dropped"] and
      "HTTP 400" in push["last_error"] and "bad series name" in push["last_error"],
      f"rejected: push {push}")
check("not sent" in p.stderr, f"rejected: stderr does not say so: {p.stderr!r}")

# down: bound, not listening (connections refused)
s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
t0 = time.time()
p, snaps = run(["--push", f"http://127.0.0.1:{port}", "--push-interval", "1", "--push-queue", "1",
                "-b", "--json", "-n", "5", "-d", "1", "--", spinner, "8"], timeout=90)
took = time.time() - t0
s.close()
check(p.returncode == 0, f"down: exit {p.returncode}: {p.stderr.strip()}")
check(len(snaps) == 5, f"down: {len(snaps)} snapshots, want 5")
check(all(any("spinner" in (r.get("sym") or "") for r in sn["rows"]) for sn in snaps),
      "down: a snapshot without the spinner's functions")
push = snaps[-1]["push"]
check(push["sent"] == 0 and push["failed"] >= 1 and push["dropped"] >= 1 and push["last_error"],
      f"down: push {push}")
check("push:" in p.stderr and "not sent" in p.stderr, f"down: stderr {p.stderr!r}")
# 5 refreshes and a flush bounded to 5 s (pusher.c) take ~11 s: 45 s is a flush that never ended
check(took < 45, f"down: took {took:.1f}s for 5 refreshes of 1 s: the flush did not stop")

# Parca: parca://HOST:PORT posts the JSON of a WriteRawRequest to /api/profiles/writeraw
with IngestServer(statuses=(200,), max_requests=40) as srv:
    p, snaps = run(["--push", f"parca://127.0.0.1:{srv.port}", "--push-interval", "1",
                    "--push-label", "env=test", "-b", "--json", "-n", "2", "-d", "1", "--", spinner, "4"])
    reqs = list(srv.requests)
check(p.returncode == 0, f"parca: exit {p.returncode}: {p.stderr.strip()}")
check(len(reqs) >= 2, f"parca: {len(reqs)} requests")
functions = set()
for i, r in enumerate(reqs):
    w = f"parca: request {i}"
    check(r.method == "POST" and r.path == "/api/profiles/writeraw" and not r.query, f"{w}: {r.path}")
    check(r.headers.get("Content-Type") == "application/json", f"{w}: Content-Type")
    try:
        req = json.loads(r.body)
        series = req["series"]
        labels = {l["name"]: l["value"] for l in series[0]["labels"]["labels"]}
        prof = read_pprof(base64.b64decode(series[0]["samples"][0]["rawProfile"]))
    except Exception as e:  # noqa: BLE001
        fail(f"{w}: not a WriteRawRequest holding a gzipped pprof: {e}: {r.body[:200]!r}")
    check(len(series) == 1 and labels == {"__name__": "perftop", "job": "spinner", "env": "test",
                                          "hostname": host}, f"{w}: labels {labels}")
    functions |= set(prof["function_names"])
check("spinner_work" in functions, "parca: the spinner's hot function is in no pushed profile")
check(snaps[-1]["push"]["sent"] >= 1, f"parca: push {snaps[-1]['push']}")

# the headless agent: -a -b -n 0 -q until SIGINT
need_perf_events(*kinds_for(["-a"]))
with IngestServer(statuses=(200,), max_requests=40) as srv:
    a = subprocess.Popen([perftop, "-a", "--push", srv.url, "--push-interval", "1", "-b", "-n", "0",
                          "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: len(srv.requests) >= 2, 20)
    a.send_signal(signal.SIGINT)
    try:
        out, err = a.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        a.kill()
        fail("agent: still running 20 s after SIGINT")
    reqs = list(srv.requests)
check(a.returncode == 0, f"agent: exit {a.returncode}: {err.strip()}")
check(out == "" and err == "", f"agent: printed {out[:200]!r} {err[:200]!r}")
check(len(reqs) >= 2, f"agent: {len(reqs)} requests")
check(all(q1(r, "name") == f"{host}{{hostname={host}}}" for r in reqs),
      f"agent: name {q1(reqs[0], 'name') if reqs else None!r}")
passed(checks)
