#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: tracepoints, sampled at every hit.

  - -e syscalls:sys_enter_openat on probe_target, which opens a file OPENS times (and says how
    many opens succeeded): at least OPENS samples, and not many more (the loader's own opens). It
    runs in a private mount namespace where tracefs is unmounted first: perftop mounts it itself
    (as perf does as root), and the namespace keeps that from the rest of the machine.
  - --filter after the tracepoint: 'flags & 0x100' keeps exactly the program's opens (it alone
    passes O_NOCTTY), 'flags == 0x7777' none.
  - -a -e sched:sched_switch: __schedule (where the tracepoint is) is the top row, with callers
    (rows with Total% but no Self%, such as schedule).

usage: test_tracepoints.py PERFTOP FIXTURE_DIR"""
import os
import re
import shlex
import subprocess
import sys
from e2elib import fail, need_perf_events, parse_snapshots, passed, perftop_path, run_json

OPENS = 400
pt = perftop_path()
target = os.path.join(sys.argv[2], "probe_target")
checks = 0

if os.geteuid() != 0:
    print("SKIP: tracepoints need root (tracefs, and mounting it)")
    sys.exit(77)
if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
    print("SKIP: no private mount namespace here (unshare -m refused)")
    sys.exit(77)
need_perf_events("task", "cpu")

# Everything that could give tracefs away, unmounted inside the namespace (debugfs would mount
# it again at debug/tracing on the first look).
UNMOUNT = ("for m in /sys/kernel/debug/tracing /sys/kernel/debug /sys/kernel/tracing; do "
           "while mountpoint -q $m; do umount -l $m || exit 9; done; done")
STATE = "if [ -d /sys/kernel/tracing/events ]; then echo TRACEFS:{0}:mounted; else echo TRACEFS:{0}:absent; fi"


def openat(extra=()):
    cmd = [pt, "-b", "--json", "-d", "0.5", "-e", "syscalls:sys_enter_openat"] + list(extra) + \
          ["--", target, "0", str(OPENS), "0", "300"]
    script = "; ".join([UNMOUNT, STATE.format("before"), " ".join(map(shlex.quote, cmd)),
                        "rc=$?", STATE.format("after"), "exit $rc"])
    p = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True,
                       timeout=60)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} in a fresh mount namespace exited {p.returncode}: {p.stderr.strip()}")
    states = dict(re.findall(r"TRACEFS:(\w+):(\w+)", p.stdout))
    m = re.search(r"opens (\d+)", p.stdout)
    snaps = parse_snapshots(p.stdout, " ".join(cmd))
    if not snaps or not m:
        fail(f"no snapshot or no count from {' '.join(cmd)}: {p.stdout[-300:]} {p.stderr[-300:]}")
    return sum(s["samples"] for s in snaps), int(m.group(1)), states, snaps


samples, opens, states, snaps = openat()
print(f"sys_enter_openat: {samples} samples for {opens} opens; tracefs {states}")
if states != {"before": "absent", "after": "mounted"}:
    fail(f"tracefs was {states.get('before')} before perftop and {states.get('after')} after "
         "(perftop should have mounted it)")
if snaps[0]["event"] != "syscalls:sys_enter_openat":
    fail(f"the snapshots name the event {snaps[0]['event']!r}")
if not opens <= samples <= opens + max(30, opens // 10):
    fail(f"sys_enter_openat: {samples} samples for a program that opened {opens} files")
checks += 3

kept, opens, _, _ = openat(["--filter", "flags & 0x100"])
none, _, _, _ = openat(["--filter", "flags == 0x7777"])
print(f"--filter 'flags & 0x100': {kept} samples for {opens} opens; 'flags == 0x7777': {none}")
if kept != opens or none != 0:
    fail(f"--filter: 'flags & 0x100' gave {kept} samples for {opens} O_NOCTTY opens, "
         f"'flags == 0x7777' {none}")
checks += 1

# The whole machine's context switches: where they happen, and who calls it.
snaps, _ = run_json(["-a", "-e", "sched:sched_switch", "-d", "1", "-n", "2"], timeout=60)
rows = [r for s in snaps for r in s["rows"]]
top = [r["sym"] for r in snaps[-1]["rows"][:5]]
callers = sorted({r["sym"] for r in rows if r["self"] == 0 and r["total"] > 0 and
                  r["dso"] == "[kernel.kallsyms]"})
print(f"-a sched:sched_switch: {sum(s['samples'] for s in snaps)} samples; top rows {top}; "
      f"kernel callers {callers[:6]}")
if sum(s["samples"] for s in snaps) == 0 or not {"__schedule", "schedule"} & set(top[:3]):
    fail(f"-a sched:sched_switch: top rows {top}, want __schedule or schedule first")
if "schedule" not in callers and not callers:
    fail("-a sched:sched_switch: no callers of __schedule among the rows")
checks += 2
passed(checks)
