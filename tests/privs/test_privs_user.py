#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance (-u USER): perftop, root, starts its command as USER, as strace -u does. For nobody
(the machine's own entry, getent passwd and id): `id -u`, `id -g` and `id -G` print nobody's uid,
gid and groups, and HOME, USER and LOGNAME are nobody's; the command is still profiled (its
samples counted). An unknown user is one line on stderr and exit 2, and so is -u without a
command.

usage: test_privs_user.py PERFTOP"""
import json
import os
import subprocess
import sys

sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from perfprobe import fail, kinds_for, need_perf_events, passed, skip  # noqa: E402

perftop = sys.argv[1]
checks = 0


def check(cond, msg):
    global checks
    checks += 1
    if not cond:
        fail(msg)


def one_line_error(args, what):
    p = subprocess.run([perftop] + args, capture_output=True, text=True, timeout=30)
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and lines[0].startswith("perftop: -u"),
          f"{what}: exit {p.returncode}, stderr {p.stderr!r}")


one_line_error(["-u", "no-such-user-perftop", "--", "true"], "an unknown user")
one_line_error(["-u", "nobody", "-b", "-n", "1"], "-u without a command")

if os.geteuid() != 0:
    skip("not root: -u needs root")
ent = subprocess.run(["getent", "passwd", "nobody"], capture_output=True, text=True)
if ent.returncode != 0:
    skip("no user nobody on this machine")
name, _, uid, gid, _, home, _ = ent.stdout.strip().split(":")
groups = subprocess.run(["id", "-G", "nobody"], capture_output=True, text=True).stdout.split()
need_perf_events(*kinds_for(["-e", "cpu-clock", "--", "true"]))

script = 'id -u; id -g; id -G; echo "$HOME $USER $LOGNAME"; i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done'
p = subprocess.run([perftop, "-u", "nobody", "-e", "cpu-clock", "-b", "--json", "-n", "1", "-d", "5",
                    "--", "sh", "-c", script], capture_output=True, text=True, timeout=60)
check(p.returncode == 0, f"exit {p.returncode}: {p.stderr!r}")
lines = p.stdout.splitlines()
snaps = [json.loads(x) for x in lines if x.startswith("{")]
said = [x for x in lines if not x.startswith("{")]
check(len(said) >= 4, f"the command's output: {said}")
if len(said) >= 4:
    check(said[0] == uid, f"id -u printed {said[0]}, nobody's uid is {uid}")
    check(said[1] == gid, f"id -g printed {said[1]}, nobody's gid is {gid}")
    check(sorted(said[2].split()) == sorted(groups), f"id -G printed {said[2]}, id -G nobody {groups}")
    check(said[3] == f"{home} {name} {name}", f"HOME USER LOGNAME: {said[3]!r}")
check(snaps and snaps[-1].get("samples", 0) > 0, f"no samples of the command: {p.stdout[-400:]!r}")
passed(f"privs_user: {checks} checks")
