# SPDX-License-Identifier: GPL-2.0-or-later
"""Cgroups made by a test: where the perf_event controller's hierarchy is mounted (read from
/proc/self/mountinfo and /proc/cgroups by the test itself, never from perftop), cgroups made there
and removed at exit, processes started inside them, and a process's cgroup path as /proc says it.

perf report's samples per cgroup of a recording (report_cgroups) are the reference the tests that
replay or export cgroups compare with.

A test skips (SKIP) when the machine has no perf_event hierarchy or refuses a cgroup, and says so."""
import atexit
import os
import signal
import subprocess
import time

from perfprobe import fail, skip


def perf_event_mount():
    """(mount path, is_v2): the v1 mount whose options hold perf_event, else the cgroup2 mount when
    /proc/cgroups says perf_event is bound to no v1 hierarchy (hierarchy 0: it is on v2)."""
    v2 = None
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, rfields = left.split(), right.split()
            if len(rfields) < 3:
                continue
            fstype, opts = rfields[0], rfields[2].split(",")
            if fstype == "cgroup" and "perf_event" in opts:
                return fields[4], False
            if fstype == "cgroup2" and v2 is None:
                v2 = fields[4]
    on_v2 = False
    try:
        with open("/proc/cgroups") as f:
            for line in f:
                p = line.split()
                if p and p[0] == "perf_event":
                    on_v2 = p[1] == "0" and p[3] == "1"
    except OSError:
        pass
    if v2 and on_v2:
        return v2, True
    return None, False


def need_mount():
    m, v2 = perf_event_mount()
    if not m:
        skip("this machine has no perf_event cgroup hierarchy (/proc/self/mountinfo, /proc/cgroups)")
    return m, v2


_made = []
_procs = []


def _cleanup():
    for p in _procs:
        if p.poll() is None:
            p.kill()
            p.wait()
    for d in reversed(_made):
        for _ in range(50):
            try:
                os.rmdir(d)
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.05)  # the killed tasks leave the cgroup as they are reaped


atexit.register(_cleanup)
for _sig in (signal.SIGTERM, signal.SIGINT):
    signal.signal(_sig, lambda *a: (_cleanup(), os._exit(1)))


def make(mount, name):
    """A new cgroup MOUNT/NAME (removed at exit); its path as the kernel names it ("/NAME")."""
    d = os.path.join(mount, name)
    try:
        os.mkdir(d)
    except OSError as e:
        skip(f"cannot make a cgroup at {d}: {e}")
    _made.append(d)
    return d, "/" + name


def start_in(cgdir, cmd, **kw):
    """CMD started inside cgroup directory CGDIR (the child moves itself before it execs)."""
    def enter():
        with open(os.path.join(cgdir, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
    p = subprocess.Popen(cmd, preexec_fn=enter if cgdir else None, stdout=subprocess.DEVNULL, **kw)
    _procs.append(p)
    return p


def cgroup_of(pid, v2=True, controller="perf_event"):
    """The process's cgroup path in the v2 line of /proc/PID/cgroup (or the v1 controller's)."""
    with open(f"/proc/{pid}/cgroup") as f:
        for line in f:
            hid, ctrls, path = line.rstrip("\n").split(":", 2)
            if (v2 and hid == "0") or (not v2 and controller in ctrls.split(",")):
                return path
    return None


def cpu_ticks(pid):
    """utime + stime of a process (clock ticks), the workload's own clock."""
    with open(f"/proc/{pid}/stat") as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return int(rest[11]) + int(rest[12])


def report_cgroups(data):
    """{cgroup path: samples} of a recording, as perf report --sort cgroup counts them ("unknown" for
    an id no record named). The test fails when perf report does."""
    rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "-q", "-g", "none", "--no-children",
                          "--sort", "cgroup", "-F", "sample,cgroup", "--percent-limit", "0"],
                         capture_output=True, text=True, timeout=60)
    if rep.returncode != 0:
        fail(f"perf report --sort cgroup exited {rep.returncode}: {rep.stderr.strip()[:300]}")
    counts = {}
    for line in rep.stdout.splitlines():  # "  1234  /path"
        f = line.split()
        if len(f) == 2 and f[0].isdigit():
            counts[f[1]] = counts.get(f[1], 0) + int(f[0])
    return counts
