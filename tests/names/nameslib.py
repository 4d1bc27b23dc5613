# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers for the names tests: record workloads with `perf record -g`, replay them with perftop -i,
and compare perftop's rows with `perf report` on the same file (tests/lib/perfcompare.py). A test skips (exit 77) only when perf
or a tool it needs is missing, or the kernel refuses the events (perf_probe), and says so."""
import subprocess

from replaylib import SKIP, fail, need_tool, skip  # noqa: F401  (the names tests import them here)
from replaylib import check, compare, report_section, snapshots  # noqa: F401  (tests/lib/perfcompare.py's)
from replaylib import perf_record as _perf_record
from replaylib import tmpdir as _tmpdir


def tmpdir():
    return _tmpdir("perftop-names-")


def need(tool):
    need_tool(tool)


def perf_record(args, out, cmd, timeout=180):
    return _perf_record(args, out, cmd, timeout=timeout)


def perftop_json(perftop, args, timeout=180):
    p = subprocess.run([perftop] + args, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        fail(f"perftop {' '.join(args)} exited {p.returncode}: {p.stderr.strip()[:300]}")
    snaps = snapshots(p)
    if not snaps:
        fail(f"perftop {' '.join(args)}: no snapshot; stderr: {p.stderr.strip()[:300]}")
    return snaps
