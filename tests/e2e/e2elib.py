# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared helpers for perftop's end-to-end tests: run perftop, read its JSON snapshots, skip only
when the kernel refuses perf_event_open (asked by perf_probe before perftop runs: perfprobe.py, and
said), fail with a message otherwise."""
import json
import os
import re
import subprocess
import sys

# perfprobe.py is in tests/lib
sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from perfprobe import SKIP, fail, kinds_for, need_perf_events, passed  # noqa: F401  (tests import them from here)
from ptjson import snapshot, snapshots  # noqa: F401,E402  (the one reader of perftop's JSON lines)


def perftop_path():
    if len(sys.argv) < 2:
        sys.exit("usage: TEST PERFTOP [FIXTURE_DIR]")
    return sys.argv[1]


def parse_snapshots(stdout, what=""):
    return snapshots(stdout, what)


def run_json(args, timeout=60, env=None, cwd=None):
    """Runs perftop -b --json ARGS (after asking perf_probe whether the kernel allows what ARGS
    need); returns (snapshots, stderr)."""
    need_perf_events(*kinds_for(args))
    cmd = [perftop_path(), "-b", "--json"] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()}")
    snaps = parse_snapshots(p.stdout, " ".join(cmd))
    if not snaps:
        fail(f"no snapshot from {' '.join(cmd)}; stderr: {p.stderr.strip()}")
    return snaps, p.stderr


def merged_rows(snaps, key="self"):
    """Sum of a field over all snapshots, per (dso, sym) - a steadier picture than one window."""
    out = {}
    for s in snaps:
        for r in s["rows"]:
            k = (r.get("dso"), r.get("sym"))
            out[k] = out.get(k, 0.0) + r.get(key, 0.0)
    return out


def expect_one_line_error(args, *needles, prefix=()):
    """Runs [prefix...] perftop ARGS and checks the user's error: a non-zero exit and one line on
    stderr that mentions every needle (any case). Returns the line."""
    cmd = list(prefix) + [perftop_path()] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    err = p.stderr.strip()
    if p.returncode == 0:
        fail(f"{args} should fail, exited 0 (stderr: {err!r})")
    lines = [l for l in err.splitlines() if l.strip()]
    if len(lines) != 1:
        fail(f"{args}: expected one line on stderr, got {len(lines)}: {err!r}")
    for n in needles:
        if n.lower() not in err.lower():
            fail(f"{args}: message {err!r} does not mention {n!r}")
    print(f"ok: perftop {' '.join(args)} -> {err}")
    return err


def is_address(sym):
    return re.fullmatch(r"(0x)?[0-9a-fA-F]+", sym or "") is not None


def check_snapshot_contract(s):
    for f in ("time", "event", "samples", "lost", "rows"):
        if f not in s:
            fail(f"snapshot lacks '{f}': {json.dumps(s)[:200]}")
    for r in s["rows"][:50]:
        for f in ("sym", "dso", "self", "total"):
            if f not in r:
                fail(f"row lacks '{f}': {r}")
