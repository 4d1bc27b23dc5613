"""Helpers of the process-name tests (JIT, vdso, deleted binaries, containers): start a workload and
wait until it says "ready", sum rows over snapshots, find a chrooted process's host pid, and remove
the perf map files a JIT left in /tmp."""
import glob
import os
import re
import subprocess
import sys
import time

from e2elib import fail


def start(cmd, **kw):
    """Starts cmd with a stdout pipe and waits for its 'ready' line (at most 20 s)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, **kw)
    line = p.stdout.readline()
    if "ready" not in line:
        p.kill()
        fail(f"{' '.join(cmd)} did not start: {line!r}")
    return p


def stop(p):
    if p and p.poll() is None:
        p.kill()
    if p:
        p.wait()


def rows(snaps):
    """(dso, sym) -> summed self over all snapshots."""
    out = {}
    for s in snaps:
        for r in s["rows"]:
            k = (r.get("dso"), r.get("sym"))
            out[k] = out.get(k, 0.0) + r.get("self", 0.0)
    return out


def top(merged, n=8):
    return [(k, round(v, 2)) for k, v in sorted(merged.items(), key=lambda kv: -kv[1])[:n]]


def child_pid(pid, timeout=5.0):
    """The (single) child of pid, e.g. the process unshare -f started."""
    until = time.time() + timeout
    while time.time() < until:
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                kids = f.read().split()
            if kids:
                return int(kids[0])
        except OSError:
            pass
        time.sleep(0.05)
    fail(f"no child of {pid}")


def remove_jit_maps(merged):
    """Removes /tmp/perf-PID.map of every [JIT] tid PID dso seen (node leaves them behind)."""
    for dso, _ in merged:
        m = re.fullmatch(r"\[JIT\] tid (\d+)", dso or "")
        if m:
            try:
                os.unlink(f"/tmp/perf-{m.group(1)}.map")
            except OSError:
                pass
