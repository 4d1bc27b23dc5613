# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared helpers for the replay tests: make recordings with `perf record` in the test, run perftop -i
on them; the comparison with `perf report` on the same file is perfcompare's (tests/lib/perfcompare.py). A test skips (exit 77) only when perf is
missing or the kernel refuses the events perf record needs (asked by perf_probe first: perfprobe.py),
and says so; a perf record that fails after that is a failure."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# perfprobe.py is in tests/lib
sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from perfprobe import SKIP, fail, kinds_for, need_perf_events, need_tool, perf_script, skip  # noqa: F401
# the one comparison with perf report, and its parsers (tests/lib/perfcompare.py)
from perfcompare import (check, compare, merge_sections, perf_report, perf_reports,  # noqa: F401
                         report_section, report_sections,
                         script_section, snapshots as _snapshots, tolerance)


def tmpdir(prefix="perftop-replay-"):
    d = tempfile.mkdtemp(prefix=prefix)
    import atexit
    atexit.register(shutil.rmtree, d, True)
    return d


def python_busy(secs):
    """A python3 command line that burns CPU in the interpreter for secs seconds."""
    return ["python3", "-c",
            f"import time\nt=time.time()\nwhile time.time()-t<{secs}: sum(i*i for i in range(10000))"]


def perf_record(args, out, cmd, stdout=None, timeout=120):
    """perf record -q ARGS -o OUT -- CMD; skips when perf is missing or the kernel refuses the events
    (perf_probe), fails when perf record fails otherwise."""
    need_tool("perf")
    need_perf_events(*kinds_for(args))
    full = ["perf", "record", "-q", "-N", "-B"] + args + ["-o", out, "--"] + cmd
    p = subprocess.run(full, stdout=stdout if stdout is not None else subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=stdout is None, timeout=timeout)
    err = p.stderr if isinstance(p.stderr, str) else p.stderr.decode(errors="replace")
    if p.returncode != 0:
        fail(f"{' '.join(full)} exited {p.returncode}: {err.strip()[:300]}")
    return out


def run_perftop(perftop, args, timeout=120, stdin=None, env=None):
    """Runs perftop ARGS; returns the CompletedProcess (text)."""
    return subprocess.run([perftop] + args, capture_output=True, text=True, timeout=timeout,
                          stdin=stdin, env=env)


def snapshots(p, what=None):
    """The JSON snapshots of a finished perftop run (CompletedProcess)."""
    return _snapshots(p.stdout, what or (" ".join(p.args) if isinstance(p.args, list) else str(p.args)))


def replay_json(perftop, path, extra=(), stdin=None, env=None):
    p = run_perftop(perftop, ["-i", path, "-b", "--json"] + list(extra), stdin=stdin, env=env)
    if p.returncode != 0:
        fail(f"perftop -i {path} {' '.join(extra)} exited {p.returncode}: {p.stderr.strip()}")
    snaps = snapshots(p)
    if not snaps:
        fail(f"perftop -i {path}: no snapshot; stderr: {p.stderr.strip()}")
    return snaps, p.stderr


def script_counts(path):
    """Samples per event in a file, from perf script."""
    out = {}
    for line in perf_script(path, "event", timeout=120).splitlines():
        e = line.strip().rstrip(":")
        if e:
            out[e] = out.get(e, 0) + 1
    return out
