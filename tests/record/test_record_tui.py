#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: -o works with the full-screen view too: perftop -o F -- spinner in tmux, 'q' after the
rows appear; the file is complete (feature sections written at close) and perf report reads it."""
import os
import shutil
import subprocess
import sys
import tempfile
import time
from e2elib import SKIP, fail, need_perf_events, passed, perftop_path
from reclib import need_perf, perf, report_rows, header_info, fixture

need_perf()
need_perf_events("task")
if not shutil.which("tmux"):
    print("SKIP: tmux is not installed")
    sys.exit(SKIP)
sock = f"perftop-rec-{os.getpid()}"


def tm(*args):
    return subprocess.run(["tmux", "-L", sock] + list(args), capture_output=True, text=True)


def screen():
    return tm("capture-pane", "-p", "-t", "t").stdout


checks = 0
with tempfile.TemporaryDirectory() as d:
    f = os.path.join(d, "tui.data")
    try:
        tm("new-session", "-d", "-s", "t", "-x", "120", "-y", "30",
           f"{perftop_path()} -d 0.5 -o {f} -- {fixture('spinner')} 30; echo PERFTOP-EXITED:$?; sleep 60")
        for _ in range(80):
            s = screen()
            if "spinner_work" in s:
                break
            time.sleep(0.1)
        if "spinner_work" not in s:
            fail(f"no rows in the view:\n{s}")
        time.sleep(1.0)
        tm("send-keys", "-t", "t", "q")
        for _ in range(80):
            s = screen()
            if "PERFTOP-EXITED" in s:
                break
            time.sleep(0.1)
        if "PERFTOP-EXITED:0" not in s:
            fail(f"perftop did not exit 0 on q:\n{s}")
        checks += 1
    finally:
        tm("kill-server")
    rows = report_rows(f)
    if not rows or rows[0][2] != "spinner_work":
        fail(f"perf report of the TUI recording: {rows[:5]}")
    info = header_info(f)
    if not info.get("hostname") or "missing features" in info and "HOSTNAME" in info["missing features"]:
        fail(f"the TUI recording lacks its feature sections: {info}")
    perf(["script"], f)
    checks += 3
passed(checks)
