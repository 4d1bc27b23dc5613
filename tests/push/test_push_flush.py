#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The agent's last window at SIGTERM: `perftop --push URL --push-interval 30 -b -q -n 0 -- spinner`
against the stand-in of Pyroscope's /ingest (ingest_server.py), sent SIGTERM about 3 s in, long
before its first push is due (27 s at the earliest, with the interval's jitter). The partial window
must still be pushed before perftop exits: exactly one request, POST /ingest, whose from..until
(Unix seconds) covers the run up to the signal, and whose samples are the spinner's CPU time at 999
Hz: between its CPU time (/proc/PID/stat) just before the signal and its CPU time once perftop has
gone, times 999, within 4 binomial sigmas and one clock tick of each reading. perftop exits 0, and
says nothing (-q).
Exit 77 (skip) only when the kernel refuses the perf events (perf_probe).
usage: test_push_flush.py PERFTOP FIXTURE_DIR"""
import math
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "e2e"))
from e2elib import fail, kinds_for, need_perf_events, passed, perftop_path  # noqa: E402
from ingest_server import IngestServer, read_pprof, wait_for  # noqa: E402

perftop = perftop_path()
spinner = os.path.join(sys.argv[2], "spinner")
need_perf_events(*kinds_for(["-e", "cpu-clock", "--", spinner]))
TICK = os.sysconf("SC_CLK_TCK")
checks = 0


def check(cond, msg):
    global checks
    checks += 1
    if not cond:
        fail(msg)


def cpu_seconds(pid):
    """utime + stime of pid (all its threads), or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICK


def child_of(pid):
    """A child process of pid (the command perftop started), from /proc's parent pids."""
    for e in os.listdir("/proc"):
        if not e.isdigit():
            continue
        try:
            with open(f"/proc/{e}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            return int(e)
    return None


with IngestServer(statuses=(200,), max_requests=10) as srv:
    t0 = time.time()
    a = subprocess.Popen([perftop, "-e", "cpu-clock", "--push", srv.url, "--push-interval", "30",
                          "-b", "-q", "-n", "0", "--", spinner, "60"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    spin = None
    try:
        wait_for(lambda: child_of(a.pid) is not None, 10)
        spin = child_of(a.pid)
        check(spin is not None, "no spinner under perftop")
        time.sleep(3)
        check(not srv.requests, f"a push came before the interval: {len(srv.requests)}")
        cpu_before = cpu_seconds(spin)
        t_sig = time.time()
        a.send_signal(signal.SIGTERM)
        try:
            out, err = a.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            a.kill()
            fail("perftop still running 60 s after SIGTERM")
        cpu_after = cpu_seconds(spin)
        reqs = list(srv.requests)
    finally:
        if spin:
            try:
                os.kill(spin, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if a.poll() is None:
            a.kill()
check(a.returncode == 0, f"exit {a.returncode} after SIGTERM: {err.strip()[:300]}")
# (the spinner's own "ready" shares perftop's stdout)
check(out.replace("ready\n", "") == "" and err == "", f"-q printed {out[:200]!r} {err[:200]!r}")
check(len(reqs) == 1, f"{len(reqs)} requests after SIGTERM, want the one partial window")
r = reqs[0]
check(r.method == "POST" and r.path == "/ingest", f"{r.method} {r.path}")
frm, until = int(r.query["from"][0]), int(r.query["until"][0])
check(frm <= t0 + 1 and until >= int(t_sig) and until <= time.time() + 1,
      f"the window {frm}..{until} does not cover the run {t0:.1f}..{t_sig:.1f}")
prof = read_pprof(r.body)
samples = sum(v[0] for v in prof["sample_values"] if v)
check("spinner_work" in prof["function_names"], "the spinner's hot function is not in the window")
if cpu_after is None:
    cpu_after = cpu_before
lo, hi = (cpu_before - 1.0 / TICK) * 999, (cpu_after + 1.0 / TICK) * 999
slack = 4 * math.sqrt(max(hi, 1))
check(lo - slack <= samples <= hi + slack,
      f"{samples} samples in the last window; the spinner had {cpu_before:.2f} s of CPU at the "
      f"signal and {cpu_after:.2f} s after, {lo:.0f}..{hi:.0f} samples at 999 Hz (+- {slack:.0f})")
print(f"ok: one request at SIGTERM, window {frm}..{until}, {samples} samples for "
      f"{cpu_before:.2f}-{cpu_after:.2f} s of the spinner's CPU")
passed(checks)
