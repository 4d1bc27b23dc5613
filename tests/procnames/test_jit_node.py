#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: a node workload started with --perf-basic-prof shows its JavaScript function
names: rows of dso "[JIT] tid PID" (perf's name) whose sym contains hotLoopFunction, both for
`perftop -- node --perf-basic-prof hot.js` and for `perftop -p PID` of a running node.

usage: test_jit_node.py PERFTOP FIXTURE_DIR"""
import os
import shutil
import sys
import time
from e2elib import fail, passed, run_json
from procnameslib import remove_jit_maps, rows, start, stop, top

script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hot.js")
node = shutil.which("node")
if not node:
    fail("node is not installed (the JIT test needs it)")
checks = 0


def check_hot(merged, what, pid=None):
    """The script's JavaScript functions by name. Once V8's optimizing tier has run, hotLoopFunction
    may be inlined into outerCaller (then the samples are outerCaller's, named from the same map), so
    the share is over both; hotLoopFunction must still be named."""
    global checks
    if not any("hotLoopFunction" in (k[1] or "") for k in merged):
        fail(f"{what}: no hotLoopFunction row; top: {top(merged)}")
    hot = {k: v for k, v in merged.items()
           if "hotLoopFunction" in (k[1] or "") or "outerCaller" in (k[1] or "")}
    for (dso, _), _ in hot.items():
        want = f"[JIT] tid {pid}" if pid else "[JIT] tid "
        if not (dso == want if pid else dso.startswith(want)):
            fail(f"{what}: a JavaScript function in dso {dso!r}, want {want!r}")
    share = sum(hot.values()) / max(1e-9, sum(merged.values()))
    if share < 0.2:
        fail(f"{what}: the script's functions only {share:.0%} of the samples; top: {top(merged)}")
    print(f"{what}: the script's functions {share:.0%}; top: {top(merged, 4)}")
    checks += 2


# A command perftop starts.
# --no-turbo-inlining: V8's optimizing tier may inline hotLoopFunction into outerCaller, and then a
# -p session that attaches after that never sees hotLoopFunction by name (it failed so, now and then,
# under load); the names are what is tested, not V8's inlining.
# --no-logfile-per-isolate --logfile=+ (an unlinked temporary file): --perf-basic-prof also makes V8
# write an isolate-*-v8.log into the working directory (the build tree), which nothing here reads
# (--logfile=/dev/null is no good: this V8 then writes the log to stdout).
NODE = [node, "--perf-basic-prof", "--no-turbo-inlining", "--no-logfile-per-isolate", "--logfile=+"]
# node's own output goes elsewhere: on the stdout it would share with perftop, its "done" lands
# inside a snapshot's JSON line whenever the line outgrows the pipe (64 KiB, as the JIT's rows do)
# and perftop's write of it waits for the reader in the middle.
snaps, _ = run_json(["-n", "3", "-d", "1", "--", "sh", "-c", 'exec "$@" >/dev/null', "sh"] + NODE
                    + [script, "4"])
merged = rows(snaps)
remove_jit_maps(merged)
check_hot(merged, "command")

# -p of a node already running (and already JIT-compiling).
p = start(NODE + [script, "10"])
try:
    time.sleep(1.0)
    snaps, _ = run_json(["-p", str(p.pid), "-n", "2", "-d", "1"])
    check_hot(rows(snaps), "-p", p.pid)
finally:
    stop(p)
    try:
        os.unlink(f"/tmp/perf-{p.pid}.map")
    except OSError:
        pass
passed(checks)
