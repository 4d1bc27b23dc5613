#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""How a replay names the maps of a recording from another machine, against perf report on the same
file: a pipe-mode perf.data written here byte by byte (one cpu-clock event, the records of one
process), so that every name is one the test chose:

  - a relative MMAP name ("64/ld-2.17.so", as an older distribution's perf wrote it) is shown by
    its base name, an absolute one ("/opt/gone/libgone.so.1", no such file here) too;
  - "[vdso]" and "[anon:v8]" (a region named by prctl(PR_SET_VMA_ANON_NAME)) are shown by those
    names, "[anon:v8]" not as per-process JIT rows; "//anon" and an executable "[heap]" are JIT
    code to perf, "[JIT] tid PID" (no perf map here);
  - a kernel-mode sample at a user-space address is not kernel; the recording has no kernel map,
    so its kernel-mode samples are [unknown], never [kernel.kallsyms];
then, on a copy with three MMAP2 records too short to parse, the warning says they were MMAP2.

The comparison is lib/perfcompare.py's on --sort comm,dso (rows within 0.5 points both ways, the
same sample count), plus each row's sample count equal to what the test wrote.

usage: test_replay_mapnames.py PERFTOP"""
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from perfcompare import compare, dso_key, perf_report, snapshots  # noqa: E402
from perfprobe import fail  # noqa: E402

if len(sys.argv) != 2:
    sys.exit("usage: test_replay_mapnames.py PERFTOP")
perftop = sys.argv[1]
try:
    subprocess.run(["perf", "--version"], capture_output=True, timeout=60, check=True)
except (OSError, subprocess.SubprocessError):
    print("SKIP: no perf here to compare with")
    sys.exit(77)

PID = 4242
MISC_KERNEL, MISC_USER = 1, 2
SAMPLE_TYPE = 0x1 | 0x2 | 0x4 | 0x100   # IP, TID, TIME, PERIOD


def rec(rtype, misc, body):
    body += b"\0" * (-len(body) % 8)
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def attr_record():
    # perf_event_attr of 112 bytes (PERF_ATTR_SIZE_VER5): cpu-clock, period 1, no id fields
    attr = struct.pack("<IIQQQQQII", 1, 112, 0, 1, SAMPLE_TYPE, 0, 0, 0, 0)
    attr += b"\0" * (112 - len(attr))
    return rec(64, 0, attr)   # PERF_RECORD_HEADER_ATTR, no ids


def comm(name):
    return rec(3, 0, struct.pack("<II", PID, PID) + name.encode() + b"\0")


def mmap(start, length, name):
    return rec(1, MISC_USER, struct.pack("<IIQQQ", PID, PID, start, length, 0) + name.encode() + b"\0")


def sample(ip, misc, t):
    return rec(9, misc, struct.pack("<QIIQQ", ip, PID, PID, t, 1))


MAPS = [   # start, name, samples written there (user mode)
    (0x400000, "64/ld-2.17.so", 40),
    (0x500000, "/opt/gone/libgone.so.1", 30),
    (0x600000, "[anon:v8]", 25),
    (0x700000, "//anon", 20),
    (0x800000, "[heap]", 15),
    (0x7fff0000, "[vdso]", 10),
]
KERNEL_AT_USER = 12   # kernel-mode samples at an address of 64/ld-2.17.so
KERNEL = 8            # kernel-mode samples at a kernel address (no kernel map in the file)
expected = {os.path.basename(n) if not n.startswith(("[", "//")) else n: k for _, n, k in MAPS}
expected["[unknown]"] = KERNEL_AT_USER + KERNEL
# Executable memory of no file, [heap] as //anon, is JIT code to perf, named after its perf map
# (none here): "[JIT] tid PID", one row of both.
expected[f"[JIT] tid {PID}"] = expected.pop("//anon") + expected.pop("[heap]")

body = [attr_record(), comm("mapnames")]
for start, name, _ in MAPS:
    body.append(mmap(start, 0x10000, name))
t = 1000
for start, _, k in MAPS:
    for i in range(k):
        t += 1000
        body.append(sample(start + 0x100 + i, MISC_USER, t))
for i in range(KERNEL_AT_USER):
    t += 1000
    body.append(sample(0x400200 + i, MISC_KERNEL, t))
for i in range(KERNEL):
    t += 1000
    body.append(sample(0xffffffff81000100 + i, MISC_KERNEL, t))
header = b"PERFILE2" + struct.pack("<Q", 16)
bad_mmap2 = rec(10, MISC_USER, struct.pack("<II", PID, PID))   # MMAP2 cut after pid, tid

with tempfile.TemporaryDirectory() as d:
    good = os.path.join(d, "mapnames.data")
    with open(good, "wb") as f:
        f.write(header + b"".join(body))
    p = subprocess.run([perftop, "-i", good, "-b", "--json", "-s", "comm,dso"], capture_output=True,
                       text=True, timeout=120)
    if p.returncode != 0:
        fail(f"perftop -i {good} exited {p.returncode}: {p.stderr.strip()[:300]}")
    snap = snapshots(p.stdout)[-1]
    secs = perf_report(good, False, sort="comm,dso")
    if len(secs) != 1:
        fail(f"perf report shows {len(secs)} events ({sorted(secs)}), the file has one")
    ev, sec = next(iter(secs.items()))
    if snap.get("event") != ev:
        fail(f"perftop names the event {snap.get('event')!r}, perf report {ev!r}")
    ok, text = compare(snap, sec, "self", sort="comm,dso", min_rows=len(expected), points=0.5)
    print(f"comm,dso against perf report: {text}")
    if not ok:
        fail(text)
    ours = {}
    for r in snap["rows"]:
        ours[r["dso"]] = ours.get(r["dso"], 0) + r["samples"]
    ref = {k[1]: n for k, _, _, n in sec.rows}
    # perf's "[JIT] tid N" and perftop's are compared as perfcompare's dso_key has them, so the
    # exact names too: perftop's own, the written
    if ours != expected:
        fail(f"samples by dso: written {expected}; perftop {ours}")
    expected = {dso_key(k): n for k, n in expected.items()}
    if ref != expected:
        fail(f"samples by dso: written {expected}; perftop {ours}; perf report {ref}")
    print(f"ok: samples by dso as written and as perf report's: {expected}")

    cut = os.path.join(d, "mapnames_cut.data")
    with open(cut, "wb") as f:
        f.write(header + b"".join(body[:3]) + bad_mmap2 * 3 + b"".join(body[3:]))
    p = subprocess.run([perftop, "-i", cut, "-b", "--json", "-s", "comm,dso"], capture_output=True,
                       text=True, timeout=120)
    warn = [l for l in p.stderr.splitlines() if "did not parse" in l]
    if p.returncode != 0 or len(warn) != 1 or "3 MMAP2" not in warn[0]:
        fail(f"three short MMAP2 records: perftop exited {p.returncode}, its warning {warn} does not "
             f"say '3 MMAP2' (stderr: {p.stderr.strip()[:300]!r})")
    print(f"ok: three short MMAP2 records: {warn[0].strip()}")
print("PASS")
