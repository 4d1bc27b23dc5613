#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Python frames of CPython 3.8, 3.9 and 3.10 (frame objects, read with perftop's own table of their
layouts), in one test per version, for the first interpreter of the version (pylib.py finds it;
none: a skip): started, attached and replayed, in as little wall time as the share's bound allows.

- started: perftop -o FILE -- PYTHON pysplit.py: the acceptance checks (pylib.check_split: alpha's
  share of alpha+beta is the script's own 0.70 within the binomial bound of the watcher's reads,
  alpha and beta cover 70% of the samples, inner under both, native rows kept);
- attached: while that runs, a second perftop -p PID on the same process (started 0.5 s into it,
  on an interpreter already in its loop, and ended with it when the first perftop ends it): the
  same checks. The two sample one workload side by side (each its own events and watcher), which
  halves the test's time against running it twice;
- replayed: perftop -i FILE of the first one's recording: the same checks, -s srcline names
  inner's loop body (the line comes from co_lnotab, or 3.10's co_linetable), and --no-python
  keeps the interpreter's frames (_PyEval_EvalFrameDefault) with no Python rows.

With --refuse V after the version: a CPython V perftop cannot read (3.7: no layout) keeps its native
frames and perftop says why once on stderr; run beside the replays, and left out (said, not a skip)
when the machine has no CPython V.

usage: test_python_old.py PERFTOP FIXTURE_DIR VERSION [--refuse V]"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

from e2elib import fail, parse_snapshots, passed, perftop_path, run_json
from perfprobe import kinds_for, need_perf_events
from pylib import PY_STATS_ENV, PYSPLIT, check_split, find_pythons, pythons_of, version_arg, watcher_reads

# Seconds sampled by the started perftop (the attached one has them less ATTACH_AFTER and its own
# start). The bound on alpha's share is 4 binomial standard errors over the draws
# (pylib.share_tol): over 5 s of reads at 100 a second at least, 0.082 (0.075 over 3.11-3.13's
# 6 s); the attached one's is counted from its own reads. The workload is given 2 s more than
# SECS; the started perftop ends it when its windows are done.
SECS = 5
ATTACH_AFTER = 0.5


def children_of(pid):
    """The pids of the children of process pid (every thread's)."""
    out = []
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/children") as f:
                out += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return out


def workload_pid(perftop, exe):
    """The pid of perftop's command once it runs exe (after its exec), or None when perftop ended."""
    while perftop.poll() is None:
        for c in children_of(perftop.pid):
            try:
                if os.path.realpath(f"/proc/{c}/exe") == exe:
                    return c
            except OSError:
                pass
        time.sleep(0.01)
    return None


def started_and_attached(py, rec):
    """perftop -o rec -- py pysplit.py, and perftop -p on that process: (their snapshots and
    stderrs), the started one's first."""
    args = ["-z", "-n", str(SECS), "-d", "1"]
    cmd = [perftop_path(), "-b", "--json"] + args + ["-o", rec, "--", py.exe, PYSPLIT, str(SECS + 2)]
    need_perf_events(*kinds_for(cmd))
    live = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=PY_STATS_ENV)
    try:
        pid = workload_pid(live, py.exe)
        if pid is None:
            fail(f"{py.label}: perftop ended before it ran the workload: {live.communicate()[1]}")
        time.sleep(ATTACH_AFTER)  # well inside its loop
        attached = run_json(args + ["-p", str(pid)], timeout=120, env=PY_STATS_ENV)
        out, err = live.communicate(timeout=120)
    finally:
        if live.poll() is None:
            live.kill()
            live.wait()
    if live.returncode != 0:
        fail(f"{' '.join(cmd)} exited {live.returncode}: {err.strip()}")
    return (parse_snapshots(out, "started"), err), attached


def refusal_start(version):
    """perftop on a CPython it cannot read, started: (the Python, the process), or None."""
    found = [p for p in find_pythons(version) if not p.free_threaded and not p.trace_refs]
    if not found:
        print(f"refusal not checked: no CPython {version} here")
        return None
    # One window longer than the 2 s program: its snapshot comes at the exit and holds the whole run,
    # whatever part of the first second the interpreter's start took.
    cmd = [perftop_path(), "-b", "--json", "-z", "-n", "1", "-d", "4", "--", found[0].exe, PYSPLIT, "2"]
    return found[0], subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def refusal_check(version, started):
    py, p = started
    out, err = p.communicate(timeout=120)
    if p.returncode != 0:
        fail(f"{py.label}: perftop exited {p.returncode}: {err.strip()}")
    told = [l for l in err.splitlines() if "python:" in l]
    syms = {r["sym"] for s in parse_snapshots(out, py.label) for r in s["rows"]}
    print(f"{py.label}: {told}")
    if len(told) != 1 or f"CPython {version}" not in told[0]:
        fail(f"{py.label}: want one line saying why its Python frames are not read, got {told}")
    if "_PyEval_EvalFrameDefault" not in syms or any("(pysplit.py)" in x for x in syms):
        fail(f"{py.label}: its native frames should stay: {sorted(syms)[:15]}")
    return 2


def replays(py, rec, reads):
    def replay(args):
        p = subprocess.run([perftop_path(), "-b", "--json", "-i", rec] + args,
                           capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            fail(f"{py.label} replay {args}: exit {p.returncode}: {p.stderr.strip()}")
        return parse_snapshots(p.stdout, "replay")

    # the replay's samples have the stacks the recording's watcher read: its reads are the draws
    checks = check_split(replay([]), f"{py.label} replay", secs=SECS, reads=reads)
    body = [i + 1 for i, l in enumerate(open(PYSPLIT)) if "s += i * i" in l][0]
    lines = {r.get("srcline") for s in replay(["-s", "sym,srcline"]) for r in s["rows"]
             if r["sym"] == "inner (pysplit.py)"}
    if f"pysplit.py:{body}" not in lines:
        fail(f"{py.label} replay -s srcline: inner's lines are {lines}, without pysplit.py:{body}")
    syms = {r["sym"] for s in replay(["--no-python"]) for r in s["rows"]}
    if any("(pysplit.py)" in x for x in syms) or "_PyEval_EvalFrameDefault" not in syms:
        fail(f"{py.label} replay --no-python: Python rows, or no _PyEval_EvalFrameDefault: "
             f"{sorted(syms)[:12]}")
    return checks + 2


version = version_arg()
refuse = sys.argv[5] if sys.argv[4:5] == ["--refuse"] and len(sys.argv) > 5 else None
py = pythons_of(version)[0]
d = tempfile.mkdtemp(prefix="perftop-pyold-")
checks = 0
try:
    rec = os.path.join(d, "old.data")
    (live, live_err), (pid_snaps, pid_err) = started_and_attached(py, rec)
    print(" ", [l for l in live_err.splitlines() if "python:" in l][-1:])
    checks += check_split(live, f"{py.label} started", secs=SECS, reads=watcher_reads(live_err))
    checks += check_split(pid_snaps, f"{py.label} -p", secs=SECS, reads=watcher_reads(pid_err))
    if not os.path.exists(rec + ".python"):
        fail(f"{py.label} -o {rec}: no {rec}.python beside it")
    refusal = refusal_start(refuse) if refuse else None
    checks += replays(py, rec, watcher_reads(live_err))
    if refusal:
        checks += refusal_check(refuse, refusal)
finally:
    shutil.rmtree(d, True)
passed(checks)
