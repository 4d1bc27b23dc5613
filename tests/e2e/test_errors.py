#!/usr/bin/env python3
"""Acceptance: errors a user can cause give one line naming the cause and what to do, and a non-zero
exit: no such PID, permission denied for -a and for another user's process (with the
perf_event_paranoid setting), an event this machine does not support, a command that cannot be run,
bad options."""
import os
import shutil
import subprocess
from e2elib import expect_one_line_error, perftop_path, passed
from perfprobe import hw_verdict

pt = perftop_path()
checks = 0


def expect_error(args, *needles, run_as=None):
    global checks
    prefix = ["setpriv", f"--reuid={run_as}", f"--regid={run_as}", "--clear-groups"] if run_as else []
    expect_one_line_error(args, *needles, prefix=prefix)
    checks += 1


expect_error(["-b", "-n", "1", "-p", "999999"], "no such process", "999999")
expect_error(["-b", "-n", "1", "-e", "no-such-event"], "unknown event", "no-such-event", "--list-events")
expect_error(["-b", "-n", "1", "-e", "cpu-clok"], "unknown event", "did you mean cpu-clock")
expect_error(["-b", "-n", "1", "--", "/nonexistent/command"], "cannot run", "/nonexistent/command")
expect_error(["-b", "-n", "1", "--", "no-such-command-anywhere"], "cannot run")
expect_error(["-Z"], "unknown option")
expect_error(["-s", "bogus", "-b", "-n", "1"], "sort key", "bogus")
expect_error(["-p", "abc"], "-p")

# Whether cycles is supported here is the kernel's answer to perf_event_open of cycles (perf_probe),
# not perf stat's text (whose "<not counted>" is also a hybrid CPU's idle core type).
cycles_opens, cycles_why, _ = hw_verdict("cycles")
if not cycles_opens:
    expect_error(["-b", "-n", "1", "-e", "cycles", "--", "true"], "cycles", "not supported", "cpu-clock")
else:
    print(f"note: {cycles_why}: the unsupported-event error is pmu_*_refused's part where it "
          "does not (tests/pmu)")

paranoid = int(open("/proc/sys/kernel/perf_event_paranoid").read())
nobody = 65534
# The binary must be reachable by another user for the permission checks.
if os.geteuid() == 0 and shutil.which("setpriv") and \
        subprocess.run(["setpriv", f"--reuid={nobody}", f"--regid={nobody}", "--clear-groups",
                        pt, "--version"], capture_output=True).returncode == 0:
    if paranoid > 0:
        expect_error(["-b", "-n", "1", "-a"], "permission denied", "perf_event_paranoid", str(paranoid),
                     run_as=nobody)
    else:
        print(f"note: perf_event_paranoid is {paranoid}: an unprivileged -a is allowed here")
    expect_error(["-b", "-n", "1", "-p", "1"], "permission denied", run_as=nobody)
else:
    print("note: not root, or the build is not reachable by another user: permission checks not run")
passed(checks)
