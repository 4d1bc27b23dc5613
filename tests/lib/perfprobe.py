# SPDX-License-Identifier: GPL-2.0-or-later
"""What the Python tests need from the machine, found out by asking it, never by reading perftop's or
perf's messages: whether the kernel lets them open the perf events they need (perf_probe, built from
perf_probe.c: perf_event_open of cpu-clock with the test's options), whether a tool is installed.

A test skips (exit 77) only when what it needs does not exist here, and says why; a refusal of
perf_event_open to a privileged process (root, CAP_PERFMON) is a failure, not a skip (perfprobe.h).
Once the probe said yes, a perftop or perf record run that fails is the test's failure.

Also what every Python test shares beyond that: how it reports (fail, skip, passed), and perf
script's text of a recording (perf_script), a reference many of them read."""
import os
import shutil
import subprocess
import sys

SKIP = 77
_probed = {}


# How every Python test reports: one FAIL or SKIP line and its exit status, or the count passed.
def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def skip(msg):
    print(f"SKIP: {msg}")
    sys.exit(SKIP)


def passed(n):
    print(f"{n} passed, 0 failed")
    sys.exit(0)


def perf_script(path, fields, timeout=300):
    """perf script -i PATH -F FIELDS's output; the test fails when perf script does."""
    p = subprocess.run(["perf", "script", "-i", path, "-F", fields], capture_output=True, text=True,
                       timeout=timeout)
    if p.returncode != 0:
        fail(f"perf script -i {path}: {p.stderr.strip()[:300]}")
    return p.stdout


def _probe_path():
    p = os.environ.get("PERFTOP_PERF_PROBE")
    if p:
        return p
    # Run by hand: the probe is built beside the fixtures, under the build directory of perftop.
    for a in sys.argv[1:]:
        cand = os.path.join(os.path.dirname(os.path.abspath(a)), "fixtures", "perf_probe")
        if os.path.exists(cand):
            return cand
    return None


def need_perf_events(*kinds):
    """Exits 77 (skip) when the kernel refuses the perf events of these kinds (task: a command, -p,
    -t; cpu: -a, -C; dwarf: --call-graph dwarf; tracepoint:SUBSYS:NAME: that tracepoint, with
    tracefs mounted), 1 when it refuses them to a privileged process."""
    todo = [k for k in kinds if k not in _probed]
    if not todo:
        return
    probe = _probe_path()
    if not probe:
        print("FAIL: no perf_probe (set PERFTOP_PERF_PROBE to build/fixtures/perf_probe)")
        sys.exit(1)
    p = subprocess.run([probe] + todo, capture_output=True, text=True, timeout=30)
    if p.returncode == SKIP:
        print(p.stdout.strip())
        sys.exit(SKIP)
    if p.returncode != 0:
        print(f"FAIL: {p.stdout.strip()} {p.stderr.strip()}")
        sys.exit(1)
    for k in todo:
        _probed[k] = True


def kinds_for(args):
    """The probe kinds a perftop or perf record command line needs."""
    kinds = ["task"]
    if any(a in ("-a", "--all-cpus", "-C", "--cpu") or a.startswith("--cpu=") for a in args):
        kinds.append("cpu")
    if any("dwarf" in a for a in args):
        kinds.append("dwarf")
    return kinds


def need_tool(name, why=""):
    """Exits 77 when the command name is not installed (the Makefile's PACKAGES installs it)."""
    if not shutil.which(name):
        print(f"SKIP: {name} is not installed{': ' + why if why else ''}")
        sys.exit(SKIP)
    return shutil.which(name)


def hw_verdict(kind):
    """Whether the kernel opens the hardware-PMU events of kind (perfprobe.h: cycles, precise, raw,
    cpu-pmu, group, counters, cache, lbr) on this process: (True, why, None), or (False, why,
    the errno's name, e.g. "ENOENT") when it refuses them. A refusal is no failure: a machine
    without a PMU, or without precise sampling, is what it is."""
    import re
    probe = _probe_path()
    if not probe:
        fail("no perf_probe (set PERFTOP_PERF_PROBE to build/fixtures/perf_probe)")
    p = subprocess.run([probe, kind], capture_output=True, text=True, timeout=30)
    why = p.stdout.strip()
    if why.startswith("SKIP: "):
        why = why[len("SKIP: "):]
    if p.returncode == 0:
        return True, why, None
    if p.returncode != SKIP:
        fail(f"perf_probe {kind}: exit {p.returncode}: {why} {p.stderr.strip()}")
    m = re.search(r": (E[A-Z0-9]+|errno \d+) \(", why)
    if not m:
        fail(f"perf_probe {kind} gave no errno name: {why!r}")
    return False, why, m.group(1)
