#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: errors a user can cause give one line naming the cause and what to do, and a non-zero
exit: no such PID, permission denied for -a and for another user's process (with the
perf_event_paranoid setting), an event this machine does not support, a command that cannot be run,
bad options.

usage: test_errors.py PERFTOP FIXTURE_DIR [PART]

Without PART, the errors every machine can give. The errors that only some machines can give are
parts of their own, each its own ctest test that runs or skips (exit 77, saying what the machine
lacks, asked of it: the uid, setpriv, whether another user can reach the binary, the
perf_event_paranoid setting, whether the kernel opens cycles):
  unprivileged-system  -a run as nobody is refused (root needed to be nobody; perf_event_paranoid > 0)
  unprivileged-pid     -p 1 run as nobody is refused (root needed to be nobody)
  unsupported-cycles   -e cycles where the kernel refuses it (no PMU here)"""
import os
import shutil
import subprocess
import sys
from e2elib import expect_one_line_error, fail, perftop_path, passed
from perfprobe import hw_verdict, need_tool, skip

pt = perftop_path()
PARTS = ("unprivileged-system", "unprivileged-pid", "unsupported-cycles")
part = sys.argv[3] if len(sys.argv) > 3 else None
if part is not None and part not in PARTS:
    fail(f"no part {part!r}: one of {', '.join(PARTS)}")
checks = 0
NOBODY = 65534


def expect_error(args, *needles, run_as=None):
    global checks
    prefix = ["setpriv", f"--reuid={run_as}", f"--regid={run_as}", "--clear-groups"] if run_as else []
    expect_one_line_error(args, *needles, prefix=prefix)
    checks += 1


def as_nobody_possible():
    """Skips unless this test can run perftop as nobody: root (to change its uid), setpriv, and a
    binary nobody can reach (every directory above it searchable, asked of the filesystem as
    nobody)."""
    if os.geteuid() != 0:
        skip(f"not root (uid {os.geteuid()}): perftop cannot be run as another user here")
    need_tool("setpriv", "to run perftop as nobody")
    reach = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                            "test", "-x", pt])
    if reach.returncode != 0:
        skip(f"{pt} cannot be reached by uid {NOBODY} (a directory above it is not searchable)")


if part is None:
    expect_error(["-b", "-n", "1", "-p", "999999"], "no such process", "999999")
    expect_error(["-b", "-n", "1", "-e", "no-such-event"], "unknown event", "no-such-event", "--list-events")
    expect_error(["-b", "-n", "1", "-e", "cpu-clok"], "unknown event", "did you mean cpu-clock")
    expect_error(["-b", "-n", "1", "--", "/nonexistent/command"], "cannot run", "/nonexistent/command")
    expect_error(["-b", "-n", "1", "--", "no-such-command-anywhere"], "cannot run")
    expect_error(["-Z"], "unknown option")
    expect_error(["-s", "bogus", "-b", "-n", "1"], "sort key", "bogus")
    expect_error(["-p", "abc"], "-p")
elif part == "unsupported-cycles":
    # Whether cycles is supported here is the kernel's answer to perf_event_open of cycles
    # (perf_probe), not perf stat's text (whose "<not counted>" is also a hybrid CPU's idle core
    # type).
    cycles_opens, cycles_why, _ = hw_verdict("cycles")
    if cycles_opens:
        skip(f"{cycles_why}: no unsupported-event error to give (pmu_*_works covers cycles)")
    expect_error(["-b", "-n", "1", "-e", "cycles", "--", "true"], "cycles", "not supported", "cpu-clock")
elif part == "unprivileged-system":
    as_nobody_possible()
    paranoid = int(open("/proc/sys/kernel/perf_event_paranoid").read())
    if paranoid <= 0:
        skip(f"perf_event_paranoid is {paranoid}: an unprivileged -a is allowed here, not refused")
    expect_error(["-b", "-n", "1", "-a"], "permission denied", "perf_event_paranoid", str(paranoid),
                 run_as=NOBODY)
elif part == "unprivileged-pid":
    as_nobody_possible()
    expect_error(["-b", "-n", "1", "-p", "1"], "permission denied", run_as=NOBODY)
passed(checks)
