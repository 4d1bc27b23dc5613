#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""PLT stubs in a real `perf record` of a static binary, where perf 6.1 is wrong.

plt_calls.c, linked -static, loops calling libc and libm ifuncs (sin, memmove, strchr, strlen ...)
through its .plt, whose 8-byte entries jump through IRELATIVE GOT slots. It is recorded here with
perf record (cpu-clock); perf 6.1's report calls the samples on those entries `_init` (the function
before the .plt, stretched over it). The reference is the binary itself: each sample's address
(perf script) is looked up in the test's own decode of the PLT (pltdecode.py: entry -> GOT slot ->
IRELATIVE addend -> the ifunc there), which gives every stub's expected sample count; perftop's
replay must have exactly that count on a NAME@plt row for each stub, and no other @plt row. The test
prints what perf report says for the same samples.

usage: test_plt_stubs_record.py PERFTOP SOURCE_DIR"""
import os
import subprocess
import sys

from nameslib import fail, perftop_json, perf_record, skip, tmpdir
from perfcompare import perf_report
from perfprobe import perf_script
from pltdecode import Elf, entries_named

perftop, srcdir = sys.argv[1], sys.argv[2]
work = tmpdir()
p = subprocess.run(["gcc", "-print-file-name=libc.a"], capture_output=True, text=True, timeout=60)
if not (os.path.isabs(p.stdout.strip()) and os.path.isfile(p.stdout.strip())):
    skip("gcc finds no libc.a here (libc6-dev's static part): no static binary can be linked")
binary = os.path.join(work, "plt_calls_static")
subprocess.run(["gcc", "-O2", "-fno-builtin", "-static", "-o", binary,
                os.path.join(srcdir, "plt_calls.c"), "-lm"], check=True, timeout=120)

# the decode: every address of every named entry, and the entry it belongs to
elf = Elf(binary)
if elf.type != 2:
    fail(f"{binary}: gcc -static made an ELF of type {elf.type}, not an executable (ET_EXEC)")
entry_of, names_of = {}, {}
for k, (sec, addrs, want, what) in enumerate(entries_named(elf)):
    for a in addrs:
        entry_of[a] = k
    names_of[k] = want
spans = sorted(entry_of)
if not any(not isinstance(w, tuple) for w in names_of.values()):
    fail(f"{binary}: the decode found no named PLT entry")

recording = perf_record(["-e", "cpu-clock", "-F", "2999"], os.path.join(work, "static.data"),
                        [binary, "6000000"])

# each sample's address, from perf script; those inside a PLT entry count for it
plt_ranges = [(addr, addr + size)
              for name, _, _, addr, _, size, _ in map(elf.section, range(len(elf.shdrs)))
              if name in (".plt", ".iplt") or name.startswith(".plt.")]
expected = {}
nsamples = 0
for line in perf_script(recording, "ip").splitlines():
    s = line.strip()
    if not s:
        continue
    nsamples += 1
    ip = int(s, 16)
    if not any(lo <= ip < hi for lo, hi in plt_ranges):
        continue
    # the entry that holds ip: the last instruction address at or below it
    below = [a for a in spans if a <= ip]
    k = entry_of[below[-1]]
    if not isinstance(names_of[k], tuple):   # a named entry (not PLT0 or an unnamed one)
        expected[k] = expected.get(k, 0) + 1
if not expected:
    fail(f"none of the {nsamples} samples landed on a PLT stub: the workload does not exercise "
         "what this test checks")

snaps = perftop_json(perftop, ["-i", recording, "-b", "--json"])
if len(snaps) != 1:
    fail(f"want one snapshot over the whole file, got {len(snaps)}")
rows = {r["sym"]: int(r.get("samples", -1)) for r in snaps[0]["rows"]
        if r.get("dso") == os.path.basename(binary)}

report = perf_report(recording, False, sort="sym")
perf_rows = {key[1]: n for sec in report.values() for key, _, _, n in sec.rows}
stub_samples = sum(expected.values())
print(f"{nsamples} samples, {stub_samples} on {len(expected)} PLT stubs (the binary's own decode); "
      f"perf report: _init {perf_rows.get('_init', 0)} samples, "
      f"{sum(n for s, n in perf_rows.items() if s.endswith('@plt'))} on @plt rows")
if perf_rows.get("_init", 0) >= stub_samples:
    version = subprocess.run(["perf", "--version"], capture_output=True, text=True,
                             timeout=60).stdout.strip() or "perf"
    print(f"{version} is wrong here: it names the samples on the static binary's PLT stubs `_init`; "
          "perftop is checked against the decode")

bad, seen = [], set()
for k, n in sorted(expected.items()):
    want = names_of[k]
    have = {name: rows[name] for name in want if name in rows}
    seen.update(have)
    if sum(have.values()) != n:
        bad.append(f"stub {' or '.join(sorted(want))}: {n} samples by the decode, perftop "
                   f"{have or 'no row'}")
    else:
        print(f"{' or '.join(sorted(want))}: {n} samples, perftop {have}")
for name, n in rows.items():
    if name.endswith("@plt") and name not in seen:
        bad.append(f"perftop has a row {name} ({n} samples) that no sampled stub jumps to")
for b in bad:
    print(f"wrong: {b}")
if bad:
    fail(f"{len(bad)} PLT rows of perftop disagree with the binary's decode")
print(f"{len(expected)} passed, 0 failed")
