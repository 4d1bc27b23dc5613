#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A stripped Go binary with C code (cgo, -ldflags='-s -w'): its Go functions come from .gopclntab,
its C functions are in no Go table (the C toolchain links them) and must keep their own names or
none. One live session records its samples; every sampled address of the binary (perf script's leaf
IPs) is named by independent readers of the same stripped file, in perftop's order: nm -D's symbol
that covers the address (.dynsym: an ELF symbol wins), else Go's debug/gosym's (gosymref: go tool
addr2line of Go 1.19 takes .text's start for the code's base, which the C code in front of Go's
shifts here), else nothing (perftop then shows the address). perftop's rows must hold the same sample
counts name by name; c_spin and main.goSpin must both be there."""
import bisect
import collections
import os
import shutil
import subprocess
import sys
import tempfile

from e2elib import SKIP, fail, is_address, kinds_for, need_perf_events, passed, snapshots  # noqa: F401
from perfprobe import need_tool

PERFTOP, FIXDIR = sys.argv[1], sys.argv[2]
CGO, REF = os.path.join(FIXDIR, "gocgo_stripped"), os.path.join(FIXDIR, "gosymref")


def run(args):
    p = subprocess.run([PERFTOP] + args, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        fail(f"perftop {' '.join(args)} exited {p.returncode}: {p.stderr.strip()[:400]}")
    snaps = snapshots(p.stdout, "perftop " + " ".join(args))
    if not snaps:
        fail(f"perftop {' '.join(args)}: no snapshot; stderr: {p.stderr.strip()[:400]}")
    return snaps[-1]


def dynsyms(exe):
    """.dynsym's sized functions: sorted (start, end, name)."""
    out = subprocess.run(["nm", "-D", "--defined-only", "-S", exe], capture_output=True, text=True,
                         timeout=60).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "Tt" and int(f[1], 16):
            syms.append((int(f[0], 16), int(f[0], 16) + int(f[1], 16), f[3]))
    return sorted(syms)


def main():
    if not os.path.exists(CGO) or not os.path.exists(REF):
        print(f"SKIP: no {CGO} or {REF}: go was not found when the build was configured")
        sys.exit(SKIP)
    need_tool("perf", "the sampled addresses come from perf script")
    need_tool("nm", "the C functions' names come from nm -D")
    need_perf_events(*kinds_for(["--"]))
    d = tempfile.mkdtemp(prefix="perftop-cgo-")
    try:
        checks = check(d)
    finally:
        shutil.rmtree(d, True)
    passed(checks)


def check(d):
    exe, rec = os.path.join(d, "gocgo"), os.path.join(d, "rec.data")
    shutil.copy(CGO, exe)
    run(["-b", "--json", "-n", "0", "-o", rec, "--", exe, "1"])
    ips = collections.Counter()
    p = subprocess.run(["perf", "script", "-i", rec, "-F", "ip,dso", "-G"], capture_output=True, text=True,
                       timeout=60)
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) == 2 and f[1] == f"({exe})":
            ips[int(f[0], 16)] += 1
    if sum(ips.values()) < 100:
        fail(f"only {sum(ips.values())} samples in gocgo: {p.stderr.strip()[:200]}")
    addrs = sorted(ips)
    out = subprocess.run([REF, exe], input="".join(f"{a:#x}\n" for a in addrs), capture_output=True,
                         text=True, timeout=60).stdout.splitlines()
    if len(out) != len(addrs):
        fail(f"gosymref answered {len(out)} lines for {len(addrs)} addresses")
    dyn = dynsyms(exe)
    starts = [s for s, _, _ in dyn]
    want = collections.Counter()
    for i, a in enumerate(addrs):
        k = bisect.bisect_right(starts, a) - 1
        if k >= 0 and a < dyn[k][1]:
            name = dyn[k][2]
        else:
            name = out[i].split("\t")[0]
            name = name if name != "?" else "(address)"
        want[name] += ips[a]
    snap = run(["-i", rec, "-b", "--json", "-s", "dso,sym"])
    got = collections.Counter()
    for r in snap["rows"]:
        if r["dso"] == "gocgo" and r["samples"]:
            got["(address)" if is_address(r["sym"]) else r["sym"]] += r["samples"]
    checks = 0
    for k in sorted(set(want) | set(got)):
        if want[k] != got[k]:
            fail(f"{k}: {want[k]} samples by gosymref and nm -D, {got[k]} by perftop")
        checks += 1
    for k in ("c_spin", "main.goSpin"):
        if not got[k]:
            fail(f"no samples of {k}: {dict(got)}")
        checks += 1
    print(f"gocgo: {sum(ips.values())} samples at {len(addrs)} addresses; c_spin {got['c_spin']}, "
          f"main.goSpin {got['main.goSpin']}")
    return checks


main()
