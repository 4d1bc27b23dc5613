# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers for the recording tests: run perf on a file perftop wrote and be strict about what it says.

perf is the judge of whether a recording is right: it must read the file with exit status 0 and say
nothing on stderr that sounds like a problem with the file."""
import os
import re
import shutil
import subprocess
import sys

from e2elib import SKIP, fail, kinds_for, need_perf_events, perftop_path

# Words perf uses when a file is damaged, cut or odd in any way.
BAD = re.compile(r"warning|corrupt|fail|truncat|unexpected|invalid|error|bad |broken|"
                 r"out of order|unknown|not a perf|skipping|can't|cannot", re.I)


def fixture(name):
    return os.path.join(sys.argv[2], name)


def need_perf():
    if not shutil.which("perf"):
        print("SKIP: perf is not installed")
        sys.exit(SKIP)


def perf(args, path, strict=True, timeout=120):
    """perf ARGS -i PATH; returns stdout. Fails on a non-zero exit or a complaint on stderr."""
    cmd = ["perf"] + args + ["-i", path]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[:2000]}")
    if strict:
        bad = [l for l in p.stderr.splitlines() if BAD.search(l)]
        if bad:
            fail(f"{' '.join(cmd)} complains: {bad[:10]}")
    return p.stdout


def perftop(args, timeout=120):
    """Runs perftop ARGS; returns the CompletedProcess (skips when the kernel refuses the events ARGS
    need: perf_probe)."""
    need_perf_events(*kinds_for(args))
    cmd = [perftop_path()] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def report_rows(path, sort="dso,sym"):
    """perf report's Self rows: list of (pct, fields...) in its order."""
    out = perf(["report", "--stdio", "--no-children", "-g", "none", "--sort", sort], path)
    rows = []
    for line in out.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        m = re.match(r"^\s*([\d.]+)%\s+(.*\S)\s*$", line)
        if not m:
            continue
        rest = m.group(2)
        if sort == "dso,sym":
            m2 = re.match(r"^(\S+)\s+\[(.)\]\s+(.*)$", rest)
            if m2:
                rows.append((float(m.group(1)), m2.group(1), m2.group(3).strip()))
        else:
            rows.append((float(m.group(1)), rest))
    return rows


def header_info(path):
    out = perf(["report", "--header-only"], path)
    info = {}
    for line in out.splitlines():
        m = re.match(r"^# ([a-z][a-z ]+?)\s*: (.*)$", line)
        if m:
            info[m.group(1).strip()] = m.group(2).strip()
    return info

