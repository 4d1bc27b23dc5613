#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""--buildid-mmap: perftop asks the kernel for build-ids in its mmap records only when told to.

The kernel (up to at least 6.18) leaks the request: while any event on the machine has
attr.build_id, the MMAP2 records other tools' events get for the same mappings are marked as
build-id ones over their inode payload, and perf 6.1 then aborts reading them (an assertion in
util/build-id.c). perftop therefore leaves it off unless --buildid-mmap is given, as perf does.
References are the binary's own build-id (readelf -n), its inode (stat) and what perf script and
perf report make of the recordings.

  given        perftop --buildid-mmap -o F -- spinner: F's MMAP2 record of spinner carries
               spinner's own build-id (perf script --show-mmap-events), and perf report reads F;
  default      perftop -o F -- spinner: every MMAP2 record of F is in the inode form (spinner's
               record holds spinner's inode), and perf report reads F;
  default-all  perftop -a running while perf record -- spinner records: perf record's file has no
               MMAP2 record in the build-id form, and perf script and perf report read it (with
               the request on, perf script aborted on such a file here).

Each part is a ctest test of its own (CMakeLists.txt); each skips (77) only when perf is missing or
the kernel refuses the events it needs (perf_probe: task; default-all also cpu).

usage: test_buildid_mmap.py PERFTOP FIXTURE_DIR given|default|default-all"""
import os
import re
import subprocess
import sys
import tempfile
import time

from e2elib import fail, need_perf_events, passed, perftop_path
from reclib import fixture, need_perf, perf

if len(sys.argv) < 4 or sys.argv[3] not in ("given", "default", "default-all"):
    sys.exit(f"usage: {sys.argv[0]} PERFTOP FIXTURE_DIR given|default|default-all")
part = sys.argv[3]
spinner = fixture("spinner")
need_perf()
need_perf_events("task", *(["cpu"] if part == "default-all" else []))

# perf script's MMAP2 line: [addr(len) @ pgoff <BUILD-ID>] or [addr(len) @ pgoff maj:min ino gen].
MMAP2 = re.compile(r"PERF_RECORD_MMAP2 [-\d]+/[-\d]+: \[0x[0-9a-f]+\(0x[0-9a-f]+\) @ \S+ "
                   r"(?:<([0-9a-f]+)>|([0-9a-f]+):([0-9a-f]+) (\d+) (\d+))\]: \S+ (.*)$")


def own_build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    if not m:
        fail(f"readelf -n {path}: no build-id")
    return m.group(1)


def mmap2_records(path):
    """[(build-id or None, inode or None, file)] of each MMAP2 record, per perf script (strict:
    it must exit 0 and not complain)."""
    recs = []
    out = perf(["script", "--show-mmap-events", "-F", "comm,tid"], path)
    for line in out.splitlines():
        if "PERF_RECORD_MMAP2" not in line:
            continue
        m = MMAP2.search(line)
        if not m:
            fail(f"perf script -i {path}: an MMAP2 line not understood: {line.strip()}")
        recs.append((m.group(1), int(m.group(4)) if m.group(4) else None, m.group(6).strip()))
    if not recs:
        fail(f"perf script --show-mmap-events -i {path}: no MMAP2 record")
    return recs


def report_reads(path):
    """perf report reads the file: exit 0, no complaint (reclib.perf), and spinner's rows."""
    out = perf(["report", "--stdio", "--no-children", "-g", "none", "--sort", "sym"], path)
    if "spinner_work" not in out:
        fail(f"perf report -i {path} has no spinner_work row: {out[-600:]}")


def spinner_records(recs, path):
    mine = [r for r in recs if r[2] == os.path.realpath(spinner)]
    if not mine:
        fail(f"{path}: no MMAP2 record of {spinner}: {[r[2] for r in recs][:10]}")
    return mine


checks = 0
with tempfile.TemporaryDirectory() as d:
    if part in ("given", "default"):
        f = os.path.join(d, f"{part}.data")
        flag = ["--buildid-mmap"] if part == "given" else []
        p = subprocess.run([perftop_path(), "-b", "-q", "-n", "2", "-d", "0.5", "-o", f] + flag +
                           ["--", spinner, "1"], capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            fail(f"perftop {' '.join(flag)} -o {f} exited {p.returncode}: {p.stderr.strip()[:300]}")
        recs = mmap2_records(f)
        mine = spinner_records(recs, f)
        if part == "given":
            want = own_build_id(spinner)
            got = {r[0] for r in mine}
            print(f"--buildid-mmap: {len(recs)} MMAP2 records, {sum(1 for r in recs if r[0])} with a "
                  f"build-id; spinner's: {sorted(x or 'inode form' for x in got)}, readelf: {want}")
            if got != {want}:
                fail(f"--buildid-mmap: spinner's MMAP2 records carry {sorted(x or 'no build-id' for x in got)}, "
                     f"its own build-id is {want}")
        else:
            with_bid = [r for r in recs if r[0]]
            ino = os.stat(spinner).st_ino
            print(f"default: {len(recs)} MMAP2 records, {len(with_bid)} with a build-id; spinner's "
                  f"inodes {sorted({r[1] for r in mine})}, stat {ino}")
            if with_bid:
                fail(f"without --buildid-mmap perftop's recording has MMAP2 records with build-ids: "
                     f"{with_bid[:3]}")
            if {r[1] for r in mine} != {ino}:
                fail(f"spinner's MMAP2 records hold inodes {sorted({r[1] for r in mine})}, "
                     f"stat says {ino}")
        checks += 2
        report_reads(f)
        checks += 1
    else:
        # perftop on every CPU, its default options: its events see perf record's child's mmaps.
        pt = subprocess.Popen([perftop_path(), "-b", "-q", "-a", "-n", "60", "-d", "0.5"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            time.sleep(1)  # its events open (a second is ample: -a opens one per CPU)
            if pt.poll() is not None:
                fail(f"perftop -a ended early ({pt.returncode}): {pt.stderr.read().strip()[:300]}")
            f = os.path.join(d, "beside.data")
            r = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-o", f, "--", spinner,
                                "1"], capture_output=True, text=True, timeout=120)
            if r.returncode != 0:
                fail(f"perf record beside perftop -a exited {r.returncode}: {r.stderr.strip()[:300]}")
            still = pt.poll() is None
        finally:
            if pt.poll() is None:
                pt.kill()
            pt.wait()
        if not still:
            fail(f"perftop -a ended before perf record did: {pt.stderr.read().strip()[:300]}")
        recs = mmap2_records(f)
        with_bid = [r for r in recs if r[0]]
        print(f"perf record beside perftop -a: {len(recs)} MMAP2 records, {len(with_bid)} marked "
              "as build-id ones")
        if with_bid:
            fail(f"perf record's MMAP2 records, made while perftop -a ran without --buildid-mmap, "
                 f"are marked as build-id ones: {with_bid[:3]}")
        spinner_records(recs, f)
        checks += 2
        report_reads(f)
        checks += 1
passed(checks)
