#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: a HotSpot JVM started with no flags, and nothing done by the user, has its Java
methods named by `perftop -p PID` within 5 seconds: perftop asks the JVM for its perf map through
HotSpot's attach protocol (src/runtime/jvmattach.h). The Hot fixture (Hot.java: alpha 7 units of
work, beta 3, Cold in the interpreter) runs
  - as root,
  - as an unprivileged user (nobody),
  - in its own pid and mount namespaces with a tmpfs on its /tmp (unshare --pid --mount --fork:
    it is pid 1 there, its map and socket are /tmp/perf-1.map and /tmp/.java_pid1 of its own /tmp),
  - and as a command perftop starts (-- java ...), which perftop asks while the JVM starts;
  - then as root under every other JDK the machine has (/usr/lib/jvm/*/bin/java, each real
    launcher once: a Temurin 25 beside Debian's 17, say).
For each (check_named): from the second window on, alpha and beta named, no raw JIT address over
1% of a window, "Interpreter" named, alpha's share of alpha+beta within 6 points (or 4 standard
errors) of the fixture's own measured split over the same seconds; no .attach_pid file left in its
working directory or its /tmp; the notice that it runs without -XX:+PreserveFramePointer; no thread
dump printed by the JVM (no SIGQUIT it did not expect).

usage: test_jvm_live.py PERFTOP CLASSDIR"""
import glob
import os
import shutil
import sys
import time

from e2elib import fail, passed, run_json
from jvmlib import Jvm, check_named, fixture_copy, java_or_skip, no_files_left

classdir = sys.argv[2]
java = java_or_skip(classdir)
work = fixture_copy(classdir)
env = dict(os.environ, PERFTOP_JVM_STATS="1")
checks = 0


def attached(how, launcher=java):
    """perftop -p on a running fixture started the way how says (by the java launcher given)."""
    global checks
    jvm = Jvm(launcher, work, 30, how=how)
    try:
        t0 = time.monotonic()
        snaps, err = run_json(["-z", "-p", str(jvm.pid), "-n", "5", "-d", "1"], env=env)
        t1 = time.monotonic()
        what = f"{how} (pid {jvm.pid}, {jvm.nspid} in its own namespace, {launcher})"
        print(f"{what}: perftop said: {[l for l in err.splitlines() if 'jvm' in l or 'java' in l]}")
        checks += check_named(snaps, jvm.pid, what, jvm.split_between(t0 + 1.0, t1))
        if "runs without -XX:+PreserveFramePointer" not in err:
            fail(f"{what}: no notice that its Java callers are likely missing: {err}")
        if jvm.thread_dumps():
            fail(f"{what}: the JVM printed a thread dump (a SIGQUIT it did not take as an attach)")
        checks += no_files_left(jvm, what) + 2
    finally:
        jvm.stop()


def command():
    """perftop -- java ...: asked while it starts (no signal dispatcher yet: asked again soon)."""
    global checks
    out = os.path.join(work, "command.out")
    cmd = ["-z", "-n", "7", "-d", "1", "--", "sh", "-c", f'exec "$@" > {out}', "sh", java, "-cp",
           work, "Hot", "30"]
    snaps, err = run_json(cmd, env=env)
    pid = next((int(l.split()[3].rstrip(":")) for l in err.splitlines()
                if l.startswith("perftop: jvm: pid ")), None)
    print(f"command: perftop said: {[l for l in err.splitlines() if 'jvm' in l or 'java' in l]}")
    if pid is None:
        fail(f"command: perftop never asked the JVM: {err}")
    try:
        os.unlink(f"/tmp/perf-{pid}.map")  # the map it wrote when asked (it has exited)
    except OSError:
        pass
    # its first seconds start and warm it up, compiling as it goes (on a busy machine its hot code
    # comes seconds later): asked again 2 s after a map its hot code misses; seconds 4-7 against
    # the work's split (its own is printed to the file)
    checks += check_named(snaps, pid, f"command (pid {pid})", 0.7, skip=3)
    text = open(out).read()
    if "Full thread dump" in text:
        fail("command: the JVM printed a thread dump")
    checks += 1


def other_jdks():
    """The java launchers of /usr/lib/jvm other than the one on PATH, each real file once."""
    seen, out = {os.path.realpath(java)}, []
    for d in sorted(glob.glob("/usr/lib/jvm/*/bin/java")):
        real = os.path.realpath(d)
        if real not in seen and os.access(real, os.X_OK):
            seen.add(real)
            out.append(real)
    return out


try:
    for how in ("root", "nobody", "container"):
        attached(how)
    command()
    for other in other_jdks():
        attached("root", other)
finally:
    shutil.rmtree(work, ignore_errors=True)
passed(checks)
