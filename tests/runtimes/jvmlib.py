# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers of the JVM tests: the Hot fixture (Hot.java, compiled by CMake) started under a real JVM
in the ways a test wants (as root, as nobody, in its own pid and mount namespaces, with JVM flags),
its own measure of alpha's and beta's time read from its stdout while it runs, the shares perftop
gave them, and the .attach_pid files that must not be left behind."""
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time

from e2elib import SKIP, fail, is_address

NOBODY = 65534
SHARE_TOL = 0.06   # alpha's share of alpha+beta against the fixture's own, at least (6 points)
Z = 4.0            # ... or this many standard errors of a proportion, when wider


def java_or_skip(classdir):
    """The java launcher, once javac made the fixture's classes (else a skip that says why)."""
    if not os.path.exists(os.path.join(classdir, "Hot.class")):
        print(f"skip: no {classdir}/Hot.class: javac is missing (the JVM tests need a JDK: "
              "openjdk-17-jdk-headless)")
        raise SystemExit(SKIP)
    java = shutil.which("java")
    if not java:
        print("skip: no java on PATH")
        raise SystemExit(SKIP)
    return java


def fixture_copy(classdir):
    """The classes in a fresh directory anyone may read, outside /tmp (which a namespace of the
    fixture's own hides under a tmpfs): the JVMs run there (their working directory)."""
    d = tempfile.mkdtemp(prefix="perftop-jvm-", dir="/var/tmp")
    os.chmod(d, 0o755)
    for f in os.listdir(classdir):
        if f.endswith(".class"):
            shutil.copy(os.path.join(classdir, f), d)
            os.chmod(os.path.join(d, f), 0o644)
    return d


class Jvm:
    """The Hot fixture running: its process (the JVM's host pid), what it printed, and its own
    split (the last "split" line's running totals, with the time each was read)."""

    def __init__(self, java, workdir, secs, how="root", flags=()):
        self.workdir = workdir
        self.lines = []
        self.splits = []          # (time.monotonic(), alpha_ns, beta_ns, cold_ns)
        cmd = [java] + list(flags) + ["-cp", workdir, "Hot", str(secs)]
        if how == "nobody":
            cmd = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"] + cmd
        elif how == "container":
            # its own pid and mount namespaces, a tmpfs on its /tmp: the JVM is pid 1 there
            script = 'mount -t tmpfs tmpfs /tmp && exec "$@"'
            cmd = ["unshare", "--pid", "--mount", "--fork", "--kill-child", "sh", "-c", script,
                   "sh"] + cmd
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, cwd=workdir)
        self.ready = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        if not self.ready.wait(20):
            self.stop()
            fail(f"{' '.join(cmd)} did not say ready: {self.lines[-5:]}")
        self.pid = self.proc.pid if how != "container" else self._child(self.proc.pid)
        self.nspid = self._nspid()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            if line.startswith("ready"):
                self.ready.set()
            m = re.match(r"split (\d+) (\d+) (\d+)", line)
            if m:
                self.splits.append((time.monotonic(),) + tuple(int(x) for x in m.groups()))

    @staticmethod
    def _child(pid):
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return int(f.read().split()[0])

    def _nspid(self):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("NSpid:"):
                    return int(line.split()[-1])
        return self.pid

    def split_between(self, t0, t1):
        """alpha's share of alpha+beta by the fixture's own clock between two moments (the last
        totals it printed before each)."""
        before = [s for s in self.splits if s[0] <= t0] or self.splits[:1]
        after = [s for s in self.splits if s[0] <= t1] or self.splits[-1:]
        a = after[-1][1] - before[-1][1]
        b = after[-1][2] - before[-1][2]
        return a / (a + b) if a + b > 0 else None

    def attach_files(self):
        """The .attach_pid files of this JVM left in its working directory or its /tmp (seen
        through /proc/PID, so a namespace's /tmp too)."""
        name = f".attach_pid{self.nspid}"
        found = []
        for d in (f"/proc/{self.pid}/cwd", f"/proc/{self.pid}/root/tmp", self.workdir, "/tmp"):
            try:
                if os.path.lexists(os.path.join(d, name)):
                    found.append(os.path.join(d, name))
            except OSError:
                pass
        return found

    def thread_dumps(self):
        return [l for l in self.lines if "Full thread dump" in l]

    def stop(self):
        """SIGTERM (the JVM removes its socket on the way out), SIGKILL if it does not go; and
        the perf map it wrote."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc.wait()
        for p in (f"/tmp/perf-{self.pid}.map", f"/tmp/.java_pid{self.pid}"):
            try:
                if os.path.lexists(p) and os.lstat(p).st_uid in (0, NOBODY):
                    os.unlink(p)
            except OSError:
                pass


def window_rows(snap, pid):
    """{sym: self samples} of the [JIT] rows of pid in one snapshot, and its samples."""
    n = snap["samples"]
    out = {}
    for r in snap["rows"]:
        if r.get("dso") == f"[JIT] tid {pid}":
            out[r["sym"]] = out.get(r["sym"], 0.0) + r["self"] * n / 100.0
    return out, n


def check_named(snaps, pid, what, reference, skip=1):
    """The acceptance of one JVM over perftop's windows (-z, one a second): in the four windows
    after the first skip (with skip 1: seconds 2-5, within its first 5 seconds) alpha and beta are
    named, no raw JIT address holds over 1% of a
    window, the interpreter's frames are "Interpreter"; alpha's share of alpha+beta over those
    windows is the fixture's own (reference) within SHARE_TOL, or Z standard errors when wider.
    Returns the checks made."""
    if len(snaps) < skip + 2:
        fail(f"{what}: {len(snaps)} snapshots, want at least {skip + 2}")
    a = b = interp = total = 0.0
    for i, s in enumerate(snaps[skip:skip + 4], start=skip + 1):
        rows, n = window_rows(s, pid)
        total += n
        wa = sum(v for k, v in rows.items() if "Hot.alpha(" in k)
        wb = sum(v for k, v in rows.items() if "Hot.beta(" in k)
        if wa <= 0 or wb <= 0:
            fail(f"{what}: window {i} (second {i}) names no alpha or beta; its JIT rows: "
                 f"{sorted(rows.items(), key=lambda kv: -kv[1])[:8]}")
        raw = {k: v for k, v in rows.items() if is_address(k)}
        worst = max(raw.values(), default=0.0)
        if worst > 0.01 * n:
            fail(f"{what}: window {i}: a raw JIT address holds {100 * worst / n:.1f}% "
                 f"(over 1%): {sorted(raw.items(), key=lambda kv: -kv[1])[:5]}")
        a, b, interp = a + wa, b + wb, interp + rows.get("Interpreter", 0.0)
    share = a / (a + b)
    tol = max(SHARE_TOL, Z * (reference * (1 - reference) / (a + b)) ** 0.5)
    print(f"{what}: alpha {a:.0f} beta {b:.0f} Interpreter {interp:.0f} of {total:.0f} samples "
          f"(seconds {skip + 1}-{min(len(snaps), skip + 4)}): alpha's share {share:.3f}, the fixture's own "
          f"{reference:.3f} (+- {tol:.3f})")
    if abs(share - reference) > tol:
        fail(f"{what}: alpha's share {share:.3f} is not the fixture's {reference:.3f} +- {tol:.3f}")
    if interp <= 0:
        fail(f"{what}: no Interpreter row (Cold.cold runs in HotSpot's template interpreter)")
    return 4


def no_files_left(jvm, what):
    left = jvm.attach_files()
    if left:
        fail(f"{what}: attach trigger files left behind: {left}")
    return 1
