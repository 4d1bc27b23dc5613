#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Files perftop writes as root, where someone else may have planted the name (util/safefile.h):

- symlink: in a sticky world-writable directory, nobody planted a symlink at the -o target pointing
  at a root file; the root file is untouched and the target is a new regular 0600 recording perf
  report reads;
- sudo: run through sudo (SUDO_UID/SUDO_GID), the recording is the invoking user's, as perf's is;
- export_symlink: the same planted symlink at an --export target: the link's target is untouched,
  the export a regular 0600 file.

usage: test_record_safe.py PERFTOP FIXTURE_DIR CASE"""
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from e2elib import fail, need_perf_events, passed, perftop_path
from perfprobe import skip
from reclib import fixture, need_perf, report_rows

case = sys.argv[3]
if os.geteuid() != 0:
    skip("perftop must run as root here: the names are planted for root to write")
if not shutil.which("setpriv"):
    skip("no setpriv on this machine")
need_perf_events("task")

VICTIM = b"root's own file: not to be written through a link\n"


def run(args, env=None):
    cmd = [perftop_path(), "-b", "--json", "-n", "1", "-d", "1"] + args + ["--", fixture("spinner"), "1"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()}")


def check_regular(path, uid, gid):
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode) or stat.S_IMODE(st.st_mode) != 0o600:
        fail(f"{path}: want a regular file of mode 0600, found mode {oct(st.st_mode)}")
    if (st.st_uid, st.st_gid) != (uid, gid):
        fail(f"{path}: owned by {st.st_uid}:{st.st_gid}, want {uid}:{gid}")


d = tempfile.mkdtemp(prefix="perftop-sticky-")
try:
    os.chmod(d, 0o1777)  # like /tmp: anyone may add a name, root may replace any
    victim = os.path.join(tempfile.mkdtemp(prefix="perftop-victim-", dir=d), "victim")
    os.chmod(os.path.dirname(victim), 0o700)
    with open(victim, "wb") as f:
        f.write(VICTIM)
    os.chmod(victim, 0o644)
    if case in ("symlink", "export_symlink"):
        target = os.path.join(d, "perf.data" if case == "symlink" else "out.folded")
        subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                        "ln", "-s", victim, target], check=True, timeout=30)
        if os.lstat(target).st_uid != 65534:
            fail("the planted symlink is not nobody's")
        if case == "symlink":
            need_perf()
        run(["-o", target] if case == "symlink" else ["--export", target])
        with open(victim, "rb") as f:
            if f.read() != VICTIM:
                fail(f"{victim} was written through the symlink planted at {target}")
        check_regular(target, 0, 0)
        if case == "symlink":
            rows = report_rows(target)
            if not rows or rows[0][2] != "spinner_work":
                fail(f"perf report of {target}: {rows[:5]}")
        elif "spinner_work" not in open(target).read():
            fail(f"{target}: no spinner_work stack in the export")
        print(f"{case}: {target} is a new regular 0600 file; {victim} untouched")
    elif case == "sudo":
        need_perf()
        # in the invoking user's own directory, as `sudo perftop -o x.data` in a home: root keeps
        # what it needs to rename the recording into it at its end (batch mode writes nothing else)
        home = tempfile.mkdtemp(prefix="perftop-home-", dir=d)
        os.chown(home, 65534, 65534)
        os.chmod(home, 0o755)
        target = os.path.join(home, "sudo.data")
        run(["-o", target], env=dict(os.environ, SUDO_UID="65534", SUDO_GID="65534"))
        check_regular(target, 65534, 65534)
        left = [n for n in os.listdir(home) if n.startswith(".")]
        if left:
            fail(f"temporaries left in the user's directory: {left}")
        # the invoking user reads it (perf refuses another user's file without -f)
        r = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                            "perf", "report", "--stdio", "--no-children", "-i", target],
                           capture_output=True, text=True, timeout=60, env=dict(os.environ, HOME=home))
        if r.returncode != 0 or "spinner_work" not in r.stdout:
            fail(f"perf report as the sudo user: exit {r.returncode}: {r.stderr.strip()[:500]}")
        print(f"sudo: {target} is 65534:65534, 0600, and its user's perf report reads it")
    else:
        fail(f"no such case {case!r}")
    leftover = [n for n in os.listdir(d) if n.startswith(".")]  # a temporary not renamed
    if leftover:
        fail(f"temporaries left beside the target: {leftover}")
finally:
    shutil.rmtree(d, True)
passed(1)
