#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: JVMs that give no perf map, and processes that only look like JVMs, neither stop nor
stall perftop, and leave nothing behind.
  - A JVM started with -XX:+DisableAttachMechanism: perftop sees the flag and sends it nothing; a
    one-line notice on stderr names what to do instead (jcmd PID Compiler.perfmap,
    -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit); exit 0 with a profile.
  - A JVM whose attach is off where perftop cannot see it (-XX:VMOptionsFile): no socket comes;
    asked twice (two SIGQUITs, two thread dumps of its own), then the notice.
  - Fake JVMs (fakejvm.c, its /tmp the real one), all under one perftop -p: a well-behaved one (its
    anonymous code named from the map it writes when asked), and hostile ones that answer garbage,
    never answer, drip bytes, answer 256 MiB, never make a socket, or make it a symlink: each gets
    the answer it earns (PERFTOP_JVM_STATS), perftop exits 0 on time.
  - --no-jit-attach: a well-behaved fake JVM is not asked (no SIGQUIT, no trigger file), its code
    stays addresses.
No .attach_pid file left anywhere.

usage: test_jvm_refused.py PERFTOP CLASSDIR FAKEJVM"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from e2elib import fail, passed, run_json
from jvmlib import Jvm, fixture_copy, java_or_skip, no_files_left

classdir, fakejvm = sys.argv[2], sys.argv[3]
env = dict(os.environ, PERFTOP_JVM_STATS="1")
checks = 0


def answers(err):
    """{pid: (status, why)} of the attach answers perftop told (the last of each pid)."""
    out = {}
    for m in re.finditer(r"^perftop: jvm: pid (\d+): (\w+)[^:\n]*(?:: (.*))?$", err, re.M):
        out[int(m.group(1))] = (m.group(2), m.group(3) or "")
    return out


def sigquits(err):
    m = re.search(r"; (\d+) SIGQUIT sent", err)
    return int(m.group(1)) if m else None


def disabled(java, work):
    global checks
    jvm = Jvm(java, work, 30, flags=["-XX:+DisableAttachMechanism"])
    try:
        snaps, err = run_json(["-z", "-p", str(jvm.pid), "-n", "3", "-d", "1"], env=env)
        notes = [l for l in err.splitlines() if l.startswith("perftop: java:")]
        print(f"-XX:+DisableAttachMechanism: {notes}; {sigquits(err)} SIGQUIT sent")
        want = ["DisableAttachMechanism", f"jcmd {jvm.pid} Compiler.perfmap",
                "-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit"]
        if len(notes) != 1 or not all(w in notes[0] for w in want):
            fail(f"-XX:+DisableAttachMechanism: want one notice naming {want}, got {notes}")
        if sigquits(err) != 0 or jvm.thread_dumps():
            fail(f"-XX:+DisableAttachMechanism: it was sent a SIGQUIT: {err}")
        if sum(s["samples"] for s in snaps) < 500:
            fail(f"-XX:+DisableAttachMechanism: no profile: {[s['samples'] for s in snaps]}")
        checks += 3 + no_files_left(jvm, "-XX:+DisableAttachMechanism")
    finally:
        jvm.stop()


def hidden_off(java, work):
    """The attach turned off in an options file: asked twice, then the notice."""
    global checks
    opts = os.path.join(work, "vm.options")
    with open(opts, "w") as f:
        f.write("-XX:+DisableAttachMechanism\n")
    jvm = Jvm(java, work, 30, flags=[f"-XX:VMOptionsFile={opts}"])
    try:
        snaps, err = run_json(["-z", "-p", str(jvm.pid), "-n", "7", "-d", "1"], env=env)
        notes = [l for l in err.splitlines() if l.startswith("perftop: java:")]
        print(f"-XX:VMOptionsFile: {notes}; {sigquits(err)} SIGQUIT sent, "
              f"{len(jvm.thread_dumps())} thread dumps")
        if len(notes) != 1 or "no attach socket" not in notes[0] or "DumpPerfMapAtExit" not in notes[0]:
            fail(f"-XX:VMOptionsFile: want the notice of no socket, got {notes}")
        if sigquits(err) != 2:
            fail(f"-XX:VMOptionsFile: {sigquits(err)} SIGQUITs sent, want 2 (then no more)")
        checks += 2 + no_files_left(jvm, "-XX:VMOptionsFile")
    finally:
        jvm.stop()


# mode -> the answers it may earn
FAKES = {"ok": ("ok",), "garbage": ("refused",), "silent": ("later",), "drip": ("later", "refused"),
         "huge": ("ok",), "nosocket": ("later",), "symlink": ("refused",)}


def fakes():
    global checks
    lib = tempfile.mkdtemp(prefix="perftop-fakejvm-")
    procs = {}
    try:
        for mode in FAKES:
            cwd = os.path.join(lib, mode)
            os.mkdir(cwd)
            p = subprocess.Popen([fakejvm, mode, "30", "/tmp", lib], cwd=cwd, stdout=subprocess.PIPE,
                                 text=True)
            if p.stdout.readline().strip() != "ready":
                fail(f"fakejvm {mode} did not start")
            procs[mode] = p
        time.sleep(1.1)  # older than a second: not a JVM only starting
        pids = {p.pid: mode for mode, p in procs.items()}
        # One job asks the seven in turn, the silent and the dripping one each waiting out the
        # 2 s reply limit: ~5 s from the first window's samples of their code. A 6 s session under
        # a CI run's load ended with the job still under way, and no answer told at all; 10 windows
        # leave the job room, and the ok one's named code windows after its answer.
        windows = 10
        t0 = time.monotonic()
        snaps, err = run_json(["-z", "-p", ",".join(str(p) for p in pids), "-n", str(windows),
                               "-d", "1"], env=env)
        took = time.monotonic() - t0
        got = answers(err)
        print(f"fake JVMs: perftop took {took:.1f} s; answers: "
              f"{ {pids[p]: a for p, a in got.items()} }")
        if took > windows + 4:
            fail(f"fake JVMs: perftop -n {windows} -d 1 took {took:.1f} s")
        for pid, mode in pids.items():
            if pid not in got or got[pid][0] not in FAKES[mode]:
                fail(f"fakejvm {mode}: answer {got.get(pid)}, want one of {FAKES[mode]}")
        ok = next(p for p, m in pids.items() if m == "ok")
        named = sum(r["self"] for s in snaps[2:] for r in s["rows"]
                    if r["dso"] == f"[JIT] tid {ok}" and r["sym"] == "fake_jit_spin")
        if named <= 0:
            fail(f"fakejvm ok: its code is not named fake_jit_spin after it wrote its map")
        left = [f for pid in pids for f in glob.glob(f"/tmp/.attach_pid{pid}")
                + glob.glob(os.path.join(lib, "*", f".attach_pid{pid}"))]
        if left:
            fail(f"fake JVMs: attach trigger files left behind: {left}")
        checks += len(pids) + 3
    finally:
        for p in procs.values():
            p.kill()
            p.wait()
        for p in procs.values():
            for f in (f"/tmp/.java_pid{p.pid}", f"/tmp/.java_pid{p.pid}.real", f"/tmp/perf-{p.pid}.map"):
                if os.path.lexists(f):
                    os.unlink(f)
        shutil.rmtree(lib, ignore_errors=True)


def no_attach():
    global checks
    lib = tempfile.mkdtemp(prefix="perftop-fakejvm-")
    p = subprocess.Popen([fakejvm, "ok", "30", "/tmp", lib], cwd=lib, stdout=subprocess.PIPE, text=True)
    try:
        if p.stdout.readline().strip() != "ready":
            fail("fakejvm ok did not start")
        time.sleep(1.1)
        snaps, err = run_json(["-z", "--no-jit-attach", "-p", str(p.pid), "-n", "2", "-d", "1"],
                              env=env)
        p.kill()
        said = p.stdout.read()
        syms = {r["sym"] for s in snaps for r in s["rows"] if r["dso"] == f"[JIT] tid {p.pid}"}
        print(f"--no-jit-attach: {sigquits(err)} SIGQUIT sent; the fake said {said.split()}; "
              f"{len(syms)} JIT rows")
        if answers(err) or sigquits(err) != 0 or "trigger" in said:
            fail(f"--no-jit-attach: the fake JVM was asked: {err} / {said}")
        if "fake_jit_spin" in syms or not syms:
            fail(f"--no-jit-attach: its code should stay addresses: {sorted(syms)[:5]}")
        checks += 2
    finally:
        p.kill()
        p.wait()
        shutil.rmtree(lib, ignore_errors=True)


fakes()
no_attach()
java = java_or_skip(classdir)
work = fixture_copy(classdir)
try:
    disabled(java, work)
    hidden_off(java, work)
finally:
    shutil.rmtree(work, ignore_errors=True)
passed(checks)
