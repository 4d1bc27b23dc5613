#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A perf map planted for root to read: perftop, as root, profiles jitspin running as nobody (its
code in anonymous executable memory, no map of its own) after an unprivileged user put at
/tmp/perf-PID.map one of: a symlink to a root-only file (symlink), a file of another user
(other_user), a FIFO (fifo), a 10 GB sparse file (sparse), a directory (directory). Each of them
holds, or leads to, lines naming the code SECRET_*; perftop must refuse the name with one warning
line naming the file and the reason, and no row may carry a SECRET name. jitdump_symlink: the
process itself maps its /tmp/jit-PID.dump while perftop watches, then makes that name a symlink to
a root-only dump naming its code.

usage: test_planted_map.py PERFTOP FIXTURE_DIR CASE"""
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
from e2elib import fail, need_perf_events, passed, perftop_path, run_json, snapshots
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


def jitdump_case(secret_dir):
    """The jitdump_symlink case: returns (the name, the reason, snapshots, stderr)."""
    need_perf_events("task")
    secret = os.path.join(secret_dir, "root-only.dump")
    global p
    p = start(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
               os.path.join(fixtures, "jitspin"), "6", "dump", secret], stdin=subprocess.DEVNULL)
    pid, code = p.pid, int(p.ready.split()[2], 16)
    name = b"SECRET_jitdump\0"
    load = struct.pack("<IIQIIQQQQ", 0, 16 + 40 + len(name) + 64, 0, pid, pid, code, code, 64, 0)
    with open(secret, "wb") as f:  # a header, then one load naming the spinning code
        f.write(struct.pack("<IIIIIIQQ", 0x4A695444, 1, 40, 62, 0, pid, 0, 0) + load + name +
                bytes(64))
    os.chmod(secret, 0o600)
    pt = subprocess.Popen([perftop_path(), "-b", "--json", "-p", str(pid), "-n", "3", "-d", "0.5"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = pt.stdout.readline()  # its events are open: the mapping to come is seen
    os.kill(pid, signal.SIGUSR1)
    if "planted" not in p.stdout.readline():
        pt.kill()
        fail("jitspin did not plant its dump")
    out, err = pt.communicate(timeout=60)
    if pt.returncode != 0:
        fail(f"perftop exited {pt.returncode}: {err.strip()}")
    return f"/tmp/jit-{pid}.dump", "a symlink", snapshots(first + out, "perftop -p"), err


def map_case(secret_dir):
    """The perf map's cases: returns (the name, the reason, snapshots, stderr)."""
    global p
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
    snaps, err = run_json(["-p", str(pid), "-n", "1", "-d", "1"])
    return path, reason, snaps, err


secret_dir = tempfile.mkdtemp(prefix="perftop-secret-")  # 0700, root's
p = None
try:
    if case == "jitdump_symlink":
        path, reason, snaps, err = jitdump_case(secret_dir)
    else:
        path, reason, snaps, err = map_case(secret_dir)
    merged = rows(snaps)
    named = [k for k in merged if "SECRET" in f"{k[0]} {k[1]}"]
    if named:
        fail(f"{case}: rows named from the planted file: {named}")
    warned = [ln for ln in err.splitlines() if path in ln]
    if len(warned) != 1 or reason not in warned[0]:
        fail(f"{case}: want one warning naming {path} and '{reason}'; stderr: {err!r}")
    if not any(k[0] == f"[JIT] tid {p.pid}" for k in merged):
        fail(f"{case}: no samples in jitspin's code ([JIT] tid {p.pid}); top: {top(merged)}")
    print(f"{case}: {warned[0]}; top: {top(merged, 4)}")
finally:
    stop(p)
    shutil.rmtree(secret_dir, True)
    for path in ([f"/tmp/perf-{p.pid}.map", f"/tmp/jit-{p.pid}.dump"] if p else []):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, True)
        elif os.path.lexists(path):
            os.unlink(path)
passed(1)
