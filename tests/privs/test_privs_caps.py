#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance (least privilege after start): every command line of the table in docs/security.md
("## Privileges", "started as root | capabilities kept") is started as written, as root, all at
once; once the drop is done (NoNewPrivs 1 in /proc/PID/status) its CapEff and CapPrm must be the
row's capabilities exactly (nothing more, nothing less), its CapBnd, CapInh and CapAmb empty, and
every thread's CapPrm the same. The view's rows run on a pseudo-terminal and are quit with q; -i -
reads a pipe that stays empty (the drop comes before the replay's file is read). A SUDO_UID=N
prefix is put in the environment (and SUDO_UID is taken out of it otherwise). Fewer than 4 rows
fails: the table is the reference.

usage: test_privs_caps.py PERFTOP SOURCE_DIR"""
import os
import re
import shlex
import subprocess
import sys
import threading
import time

sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from perfprobe import fail, kinds_for, need_perf_events, passed, skip  # noqa: E402

perftop, src = sys.argv[1], sys.argv[2]
# the kernel's numbering (linux/capability.h)
NAMES = ("chown dac_override dac_read_search fowner fsetid kill setgid setuid setpcap "
         "linux_immutable net_bind_service net_broadcast net_admin net_raw ipc_lock ipc_owner "
         "sys_module sys_rawio sys_chroot sys_ptrace sys_pacct sys_admin sys_boot sys_nice "
         "sys_resource sys_time sys_tty_config mknod lease audit_write audit_control setfcap "
         "mac_override mac_admin syslog wake_alarm block_suspend audit_read perfmon bpf "
         "checkpoint_restore").split()
with open("/proc/sys/kernel/cap_last_cap") as f:
    LAST_CAP = int(f.read())
checks = 0


def check(cond, msg):
    global checks
    checks += 1
    if not cond:
        fail(msg)


def names(mask):
    return {("cap_" + NAMES[b]) if b < len(NAMES) else f"cap_{b}" for b in range(64) if mask >> b & 1}


def status(path):
    out = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k] = v.strip()
    return out


def drain(fd):
    try:
        while os.read(fd, 65536):
            pass
    except OSError:  # EIO: the view has quit and the terminal's other side is closed
        pass


if os.geteuid() != 0:
    skip("not root: nothing is dropped")
with open(os.path.join(src, "docs", "security.md")) as f:
    doc = f.read()
section = doc.split("## Privileges", 1)[1].split("\n## ", 1)[0]
rows = re.findall(r"^\| `((?:SUDO_UID=\d+ )?perftop [^`]*)` \| `([a-z_ ]+)` \|$", section, re.M)
check(len(rows) >= 4, f"docs/security.md's Privileges table has {len(rows)} rows")
need_perf_events(*kinds_for(["-a", "-g"]))

runs = []
for line, caps in rows:
    words = shlex.split(line)
    env = {k: v for k, v in os.environ.items() if k != "SUDO_UID"}
    while "=" in words[0]:
        k, v = words.pop(0).split("=", 1)
        env[k] = v
    args = [perftop] + words[1:]
    view = "-b" not in words
    want = set(caps.split())
    if LAST_CAP < NAMES.index("checkpoint_restore"):
        want.discard("cap_checkpoint_restore")  # the table's "kernels 5.9 and later"
    run = {"line": line, "want": want, "master": None}
    if view:
        master, slave = os.openpty()
        env["TERM"] = "xterm"
        p = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env,
                             start_new_session=True)
        os.close(slave)
        run["master"] = master
        # the view's frames are read and thrown away, so that it never waits on the terminal
        threading.Thread(target=drain, args=(master,), daemon=True).start()
    else:
        stdin = subprocess.PIPE if "-i" in words else subprocess.DEVNULL
        p = subprocess.Popen(args + ["-d", "1", "-n", "30"], stdin=stdin, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, env=env)
    run["p"] = p
    runs.append(run)

deadline = time.time() + 15
try:
    for run in runs:
        p = run["p"]
        st = {}
        while time.time() < deadline and p.poll() is None:
            st = status(f"/proc/{p.pid}/status")
            if st.get("NoNewPrivs") == "1":
                break
            time.sleep(0.05)
        check(st.get("NoNewPrivs") == "1", f"{run['line']}: NoNewPrivs {st.get('NoNewPrivs')} "
              f"(exit {p.poll()})")
        time.sleep(0.3)  # the threads the start makes (the sampler's) are there too
        st = status(f"/proc/{p.pid}/status")
        for k in ("CapEff", "CapPrm"):
            got = names(int(st[k], 16))
            check(got == run["want"], f"{run['line']}: {k} has {sorted(got - run['want'])} more and "
                  f"{sorted(run['want'] - got)} less than docs/security.md says")
        for k in ("CapBnd", "CapInh", "CapAmb"):
            check(int(st[k], 16) == 0, f"{run['line']}: {k} {st[k]}")
        for tid in os.listdir(f"/proc/{p.pid}/task"):
            try:
                t = status(f"/proc/{p.pid}/task/{tid}/status")
            except OSError:
                continue
            check(names(int(t["CapPrm"], 16)) == run["want"] and t["NoNewPrivs"] == "1",
                  f"{run['line']}: thread {tid} has CapPrm {t['CapPrm']}, NoNewPrivs {t['NoNewPrivs']}")
finally:
    for run in runs:
        p = run["p"]
        if run["master"] is not None:
            os.write(run["master"], b"q")
        elif p.stdin:
            p.stdin.close()
        else:
            p.terminate()
    for run in runs:
        try:
            run["p"].wait(timeout=15)
        except subprocess.TimeoutExpired:
            run["p"].kill()
            fail(f"{run['line']}: did not end")
passed(f"privs_caps: {len(rows)} command lines, {checks} checks")
