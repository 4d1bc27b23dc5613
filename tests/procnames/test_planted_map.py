#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A perf map planted for root to read: perftop, as root, profiles jitspin running as nobody (its
code in anonymous executable memory, no map of its own) after an unprivileged user put at
/tmp/perf-PID.map one of: a symlink to a root-only file (symlink), a file of another user
(other_user), a FIFO (fifo), a 10 GB sparse file (sparse), a directory (directory). Each of them
holds, or leads to, lines naming the code SECRET_*; perftop must refuse the name with one warning
line naming the file and the reason, and no row may carry a SECRET name.

usage: test_planted_map.py PERFTOP FIXTURE_DIR CASE"""
import os
import shutil
import subprocess
import sys
import tempfile
from e2elib import fail, passed, run_json
from perfprobe import skip
from procnameslib import rows, start, stop, top

fixtures, case = sys.argv[2], sys.argv[3]
OTHER_UID = 12345  # a user who is neither the process's (nobody) nor root
if os.geteuid() != 0:
    skip("perftop must run as root here: the files are planted for root to read")
for tool in ("setpriv", "mkfifo", "truncate"):
    if not shutil.which(tool):
        skip(f"no {tool} on this machine")


def as_user(uid, gid, script, *args):
    """Runs sh -c SCRIPT as uid:gid (no supplementary groups): the unprivileged planter."""
    subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups",
                    "sh", "-euc", script, "sh", *args], check=True, timeout=30)


secret_dir = tempfile.mkdtemp(prefix="perftop-secret-")  # 0700, root's
p = None
try:
    p = start(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
               os.path.join(fixtures, "jitspin"), "6", "nomap"])
    pid = p.pid  # setpriv execs jitspin
    lines = "0 7fffffffffff SECRET_everything\n"  # would name every address of the process
    path = f"/tmp/perf-{pid}.map"
    if os.path.lexists(path):
        fail(f"{path} exists before the test planted it")
    secret = os.path.join(secret_dir, "root-only.map")
    with open(secret, "w") as f:
        f.write(lines)
    os.chmod(secret, 0o600)
    if case == "symlink":
        as_user(65534, 65534, 'ln -s "$1" "$2"', secret, path)
        reason = "a symlink"
    elif case == "other_user":
        as_user(OTHER_UID, OTHER_UID, 'printf "%s" "$1" > "$2"', lines, path)
        reason = f"owned by uid {OTHER_UID}, not the process's user (uid 65534) or root"
    elif case == "fifo":
        as_user(65534, 65534, 'mkfifo "$1"', path)
        reason = "a FIFO, not a regular file"
    elif case == "sparse":
        as_user(65534, 65534, 'printf "%s" "$1" > "$2"; truncate -s 10G "$2"', lines, path)
        reason = f"too big ({10 << 30} bytes, the bound is"
    elif case == "directory":
        as_user(65534, 65534, 'mkdir "$1"; printf "%s" "$2" > "$1/x"', path, lines)
        reason = "a directory"
    else:
        fail(f"no such case {case!r}")
    snaps, err = run_json(["-p", str(pid), "-n", "2", "-d", "1"])
    merged = rows(snaps)
    named = [k for k in merged if "SECRET" in f"{k[0]} {k[1]}"]
    if named:
        fail(f"{case}: rows named from the planted file: {named}")
    warned = [ln for ln in err.splitlines() if path in ln]
    if len(warned) != 1 or reason not in warned[0]:
        fail(f"{case}: want one warning naming {path} and '{reason}'; stderr: {err!r}")
    if not any(k[0] == f"[JIT] tid {pid}" for k in merged):
        fail(f"{case}: no samples in jitspin's code ([JIT] tid {pid}); top: {top(merged)}")
    print(f"{case}: {warned[0]}; top: {top(merged, 4)}")
finally:
    stop(p)
    shutil.rmtree(secret_dir, True)
    path = f"/tmp/perf-{p.pid}.map" if p else None
    if path and os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, True)
    elif path and os.path.lexists(path):
        os.unlink(path)
passed(1)
