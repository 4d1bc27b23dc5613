#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: node --perf-prof writes a jitdump (jit-PID.dump in its working directory, mapped
executable); perftop names the JavaScript functions of jitsplit.js from it, live (`perftop -o F --
node ...`, and -p of a node already running), in the replay of F, and in the replay of `perf record
-k 1` of the same program. The
references: the dump decoded here (every JIT name perftop shows is a load record's name), the
workload's own 70/30 split of alphaWork and betaWork, the fixture's source (each function's srclines
fall inside its lines), and perf report after `perf inject --jit` on the perf recording. And node
without flags (beside the -p one): perftop's batch stderr names the flag that would give
JavaScript names.

usage: test_jitdump_node.py PERFTOP FIXTURE_DIR"""
import glob
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from e2elib import fail, passed, run_json
from procnameslib import start, stop

here = os.path.dirname(os.path.abspath(__file__))
script = os.path.join(here, "jitsplit.js")
node = shutil.which("node")
if not node:
    print("SKIP: node is not installed")
    sys.exit(77)
NODE = [node, "--perf-prof", "--interpreted-frames-native-stack", "--no-turbo-inlining",
        "--no-logfile-per-isolate", "--logfile=+"]
QUIET = ["sh", "-c", 'exec "$@" >/dev/null', "sh"]
checks = 0


def dump_names(path):
    """The names of the dump's complete load records, decoded here from the format."""
    b = open(path, "rb").read()
    magic, _, hsize = struct.unpack_from("<III", b, 0)
    if magic != 0x4A695444:
        fail(f"{path}: no jitdump magic")
    names, off = set(), hsize
    while off + 16 <= len(b):
        rid, size = struct.unpack_from("<II", b, off)
        if size < 16 or off + size > len(b):
            break
        if rid == 0:
            end = b.index(b"\0", off + 56)
            names.add(b[off + 56:end].decode("utf-8", "replace"))
        off += size
    return names


def function_lines(name):
    """The lines of jitsplit.js from `function NAME` to its closing brace."""
    lines = open(script).read().splitlines()
    first = next(i for i, l in enumerate(lines, 1) if l.startswith(f"function {name}("))
    last = next(i for i, l in enumerate(lines, 1) if i > first and l.startswith("}"))
    return first, last


def check(snaps, dump, what, pid=None):
    """JIT rows (of pid, when given) named from the dump, the 70/30 split, the srclines inside each
    function."""
    global checks
    names = dump_names(dump)
    self_by_fn = {"alphaWork": 0.0, "betaWork": 0.0}
    samples_by_fn = {"alphaWork": 0, "betaWork": 0}
    for s in snaps:
        for r in s["rows"]:
            sym, dso = r.get("sym") or "", r.get("dso") or ""
            if not dso.startswith(f"[JIT] tid {pid if pid else ''}") or sym.startswith("0x"):
                continue
            if sym not in names:
                fail(f"{what}: JIT row {sym!r} is no load record of {dump}")
            for fn in self_by_fn:
                if f"{fn} " in sym:
                    self_by_fn[fn] += r.get("self", 0.0)
                    samples_by_fn[fn] += r.get("samples", 0)
                    src = r.get("srcline")
                    if not src or src == "?":
                        continue
                    lo, hi = function_lines(fn)
                    base, _, line = src.rpartition(":")
                    if base != "jitsplit.js" or not lo <= int(line) <= hi:
                        fail(f"{what}: {fn}'s srcline {src} is not in jitsplit.js:{lo}-{hi}")
    a, b = self_by_fn["alphaWork"], self_by_fn["betaWork"]
    na, nb = samples_by_fn["alphaWork"], samples_by_fn["betaWork"]
    if na + nb < 30:
        fail(f"{what}: {na + nb} samples named alphaWork or betaWork, too few for their split")
    share = na / (na + nb)
    # the workload's own split, within 3 binomial standard errors (and 5 points for V8's tiers:
    # the first calls of each run interpreted, at another cost per iteration)
    tol = 3 * math.sqrt(0.21 / (na + nb)) + 0.05
    if abs(share - 0.7) > tol:
        fail(f"{what}: alphaWork {share:.0%} of alphaWork + betaWork's {na + nb} samples, "
             f"the workload does 70% (within {tol:.0%})")
    print(f"{what}: alphaWork {a:.1f}%, betaWork {b:.1f}% ({na}/{nb} samples, split {share:.0%}), "
          f"names from {dump}")
    checks += 3


def js_shares(rows):
    """function name (alphaWork, betaWork) -> summed percentage, over every tier's code."""
    out = {}
    for sym, pct in rows:
        for fn in ("alphaWork", "betaWork"):
            if sym.startswith("JS:") and f"{fn} " in sym:
                out[fn] = out.get(fn, 0.0) + pct
    return out


with tempfile.TemporaryDirectory(prefix="perftop-jitdump-") as d:
    # Live, recorded with -o: node writes its dump into its working directory, d.
    rec = os.path.join(d, "live.data")
    snaps, _ = run_json(["-n", "2", "-d", "0.7", "-s", "dso,sym,srcline", "-o", rec, "--"] + QUIET
                        + NODE + [script, "1.5"], cwd=d)
    dumps = glob.glob(os.path.join(d, "jit-*.dump"))
    if len(dumps) != 1:
        fail(f"node --perf-prof left {dumps} in {d}, not one jit-PID.dump")
    check(snaps, dumps[0], "live")
    # The replay of that recording reads the dump at the recorded mapping's path.
    snaps, _ = run_json(["-i", rec, "-s", "dso,sym,srcline"])
    check(snaps, dumps[0], "replay of -o")
    os.unlink(dumps[0])

    # perf record -k 1 of the same program; perftop replays it, perf reports it after inject --jit.
    pdata, jdata = os.path.join(d, "perf.data"), os.path.join(d, "jit.data")
    env = dict(os.environ, HOME=d)
    subprocess.run(["perf", "record", "-q", "-k", "1", "-e", "cpu-clock", "-o", pdata, "--"]
                   + NODE + [script, "1.5"], cwd=d, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True, timeout=60)
    dumps = glob.glob(os.path.join(d, "jit-*.dump"))
    snaps, _ = run_json(["-i", pdata, "-s", "sym,dso"])
    check(snaps, dumps[0], "replay of perf record")
    ours = js_shares([(r["sym"], r["self"]) for s in snaps for r in s["rows"]])
    total = snaps[-1].get("samples") or sum(s.get("samples", 0) for s in snaps)
    subprocess.run(["perf", "inject", "--jit", "-i", pdata, "-o", jdata], cwd=d, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=120)
    rep = subprocess.run(["perf", "report", "-i", jdata, "--stdio", "-q", "--no-children",
                          "--sort", "sym", "--percent-limit", "0"], env=env, capture_output=True,
                         text=True, timeout=120).stdout
    perf_rows = []
    for line in rep.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[0].endswith("%") and parts[1] == "[.]":
            perf_rows.append((parts[2].strip(), float(parts[0][:-1])))
    theirs = js_shares(perf_rows)
    for fn in ("alphaWork", "betaWork"):
        p, r = ours.get(fn, 0.0), theirs.get(fn, 0.0)
        se = 100 * math.sqrt(max(r, 1) / 100 * (1 - min(r, 99) / 100) / max(total, 1))
        if abs(p - r) > 3 * se + 0.5:
            fail(f"{fn}: perftop {p:.2f}%, perf report after inject --jit {r:.2f}% ({total} samples)")
        print(f"{fn}: perftop {p:.2f}%, perf report after perf inject --jit {r:.2f}%")
    checks += 1

    # -p of a node --perf-prof already running (its dump found by its mapping, read from the start)
    # beside a node without flags (no perf map, no dump: the hint on batch stderr).
    os.unlink(dumps[0])
    a = start(NODE + [script, "4"], cwd=d)
    b = start([node, script, "4"], cwd=d)
    try:
        time.sleep(1.0)
        snaps, err = run_json(["-p", f"{a.pid},{b.pid}", "-n", "1", "-d", "1.2",
                               "-s", "dso,sym,srcline"])
        dumps = glob.glob(os.path.join(d, f"jit-{a.pid}.dump"))
        if not dumps:
            fail(f"node --perf-prof (pid {a.pid}) wrote no jit-{a.pid}.dump in {d}")
        check(snaps, dumps[0], "-p", a.pid)
    finally:
        stop(a)
        stop(b)
    hint = [l for l in err.splitlines() if "--perf-basic-prof" in l]
    if (len(hint) != 1 or f"pid {b.pid}" not in hint[0]
            or "--perf-prof" not in hint[0].replace("--perf-basic-prof", "")):
        fail(f"node without flags (pid {b.pid}): no one-line hint naming it, --perf-basic-prof and "
             f"--perf-prof on stderr: {err!r}")
    print(f"node without flags: {hint[0]}")
    checks += 1
passed(checks)
