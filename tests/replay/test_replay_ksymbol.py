#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A recording's BPF programs: perf record writes a PERF_RECORD_KSYMBOL for each kernel symbol
registered while it runs (a BPF program, a BPF trampoline), and perf report shows the samples in
one as a row whose shared object and symbol are the program's name (bpf_prog_TAG_NAME), never
[kernel.kallsyms] or this machine's kallsyms. No BPF program runs here under a sampled workload,
so the test makes the recording: perf record -g of dd reading /dev/urandom (kernel time), then a
KSYMBOL record of a BPF program placed above the recording's kernel maps, before its first sample,
and one kernel sample in three moved into the program (its IP and the callchain's matching entry,
at four offsets). perftop -i agrees with perf report on that file (Self and Total, both ways,
tests/lib/perfcompare.py), and the program's row has exactly the samples moved, on both sides. A
second file adds the program's unregistration after its last sample: nothing changes.

usage: test_replay_ksymbol.py PERFTOP"""
import os
import struct
import sys

from perfdata_rw import (S_CALLCHAIN, S_CPU, S_ID, S_IDENTIFIER, S_IP, S_TID, S_TIME, S_ADDR,
                         S_STREAM_ID, S_PERIOD, S_READ, read_file, u32, u64, write_file)
from replaylib import check, fail, perf_record, replay_json, report_sections, tmpdir

perftop = sys.argv[1]
d = tmpdir()
orig = perf_record(["-g", "-e", "cpu-clock", "-F", "999"], os.path.join(d, "dd.data"),
                   ["dd", "if=/dev/urandom", "of=/dev/null", "bs=64k", "count=4000"])
rec = read_file(orig)
st = rec.sample_type()
if st & S_READ or not st & S_IP or not st & S_TIME or not st & S_CALLCHAIN:
    fail(f"perf record -g wrote sample_type {st:#x}: this test moves IPs and callchain entries")
REC_MMAP, REC_SAMPLE, REC_KSYMBOL = 1, 9, 17
KSYM_TYPE_BPF, KSYM_UNREGISTER = 1, 1
KERNEL = 0xffff800000000000
PROG = b"bpf_prog_6deef7357e7b4530_perftop_test"


def fields(r):
    """Offsets and values of a sample's fields (perf_event.h's order)."""
    o, f = 8, {}
    if st & S_IDENTIFIER:
        f["identifier"] = u64(r, o)
        o += 8
    f["ip"] = o
    o += 8
    if st & S_TID:
        f["tid"] = bytes(r[o:o + 8])
        o += 8
    f["time"] = u64(r, o)
    o += 8
    for bit in (S_ADDR, S_ID, S_STREAM_ID):
        if st & bit:
            if bit == S_ID:
                f["id"] = u64(r, o)
            o += 8
    if st & S_CPU:
        f["cpu"] = bytes(r[o:o + 8])
        o += 8
    if st & S_PERIOD:
        o += 8
    f["chain"] = o
    return f


samples = [r for r in rec.records if u32(r, 0) == REC_SAMPLE]
# Where the kernel puts BPF programs: in the modules' area (x86-64: from 0xffffffffa0000000),
# above every kernel map of the recording (perf's MMAP records of pid -1: perf report gives a
# KSYMBOL a map of its own only where none of them is), on a fresh 1 MiB
MODULES_AREA = 0xffffffffa0000000
kends = [u64(r, 16) + u64(r, 24) for r in rec.records if u32(r, 0) == REC_MMAP and
         u32(r, 8) == 0xffffffff and u64(r, 16) >= KERNEL]
if not kends:
    fail(f"{orig}: no kernel map (MMAP of pid -1): is kernel sampling refused here?")
base = ((max(max(kends), MODULES_AREA) + (1 << 20)) | ((1 << 20) - 1)) + 1
if base >= 0xfffffffffe000000:
    fail(f"{orig}: the kernel maps reach {max(kends):#x}, no room above them")
size = 0x400
first = fields(samples[0])


def ksymbol(flags, time):
    name = PROG + b"\0" * (8 - len(PROG) % 8)
    body = struct.pack("<QIHH", base, size, KSYM_TYPE_BPF, flags) + name
    trailer = b""
    if st & S_TID:
        trailer += first["tid"]
    if st & S_TIME:
        trailer += struct.pack("<Q", time)
    if st & S_ID:
        trailer += struct.pack("<Q", first["id"])
    if st & S_CPU:
        trailer += first["cpu"]
    if st & S_IDENTIFIER:
        trailer += struct.pack("<Q", first["identifier"])
    return struct.pack("<IHH", REC_KSYMBOL, 0, 8 + len(body) + len(trailer)) + body + trailer


times = [fields(r)["time"] for r in samples]
out, moved, nkernel = [], 0, 0
for r in rec.records:
    if r is samples[0]:
        out.append(ksymbol(0, min(times) - 1000))
    if u32(r, 0) == REC_SAMPLE:
        f = fields(r)
        ip = u64(r, f["ip"])
        nr = u64(r, f["chain"])
        at = [i for i in range(nr) if u64(r, f["chain"] + 8 + 8 * i) == ip]
        # a sample whose callchain holds its IP (the kernel's first entry: all but a few)
        if ip >= KERNEL and at:
            if nkernel % 3 == 0:
                new = base + 0x40 + 0x10 * (nkernel % 4)
                r = bytearray(r)
                struct.pack_into("<Q", r, f["ip"], new)
                struct.pack_into("<Q", r, f["chain"] + 8 + 8 * at[0], new)
                r = bytes(r)
                moved += 1
            nkernel += 1
    out.append(r)
if moved < 50:
    fail(f"only {nkernel} kernel samples in perf record -g of dd: too few to move into a program")
rec.records = out
registered = write_file(rec, os.path.join(d, "bpf.data"))
rec.records = out + [ksymbol(KSYM_UNREGISTER, max(times) + 1000)]
unregistered = write_file(rec, os.path.join(d, "bpf-unreg.data"))
print(f"{moved} of {len(samples)} samples moved into {PROG.decode()} at {base:#x}")

prog = PROG.decode()
for path in (registered, unregistered):
    name = os.path.basename(path)
    snaps, _ = replay_json(perftop, path)
    if len(snaps) != 1:
        fail(f"{name}: {len(snaps)} snapshots, want one")
    snap = snaps[0]
    rows = [r for r in snap["rows"] if r["sym"] == prog]
    if len(rows) != 1 or rows[0]["dso"] != prog or rows[0]["samples"] != moved:
        fail(f"{name}: perftop's rows of {prog}: {rows} (want one, {moved} samples, its shared object "
             f"the program's name); top rows: {[(r['dso'], r['sym']) for r in snap['rows'][:6]]}")
    refs = report_sections(path)  # Self and Total from one perf report (perfcompare.self_of)
    sec = refs[False]
    theirs = [n for key, _, _, n in sec.rows if key == (prog, prog)]
    if theirs != [moved]:
        fail(f"{name}: perf report's rows of {prog}: {theirs} samples, want [{moved}]: the file is "
             "not what the test meant to write")
    # dd's Self: the program, chacha's rounds and a few more (how many reach 0.5% varies)
    check(f"{name} self", snap, sec, "self", min_rows=2)
    check(f"{name} total", snap, refs[True], "total")
print("4 passed, 0 failed")
