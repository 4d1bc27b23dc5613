#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""PLT stubs are named after what they jump to, in binaries built the ways the world builds them.

One C program that calls libc and libm functions, ifuncs among them (plt_calls.c), is built here
-static, -static-pie, PIE, -no-pie, with -z now and -z lazy, with -fcf-protection (and -z ibtplt,
which gives the .plt.sec split), with gcc and with clang when it is installed; the machine's
libc.so.6 and libm.so.6 are checked beside them. Each binary's PLT sections (.plt, .plt.sec,
.plt.got, .iplt) are decoded by this test on its own (pltdecode.py): the ELF section headers, the
relocation sections and the symbol tables are parsed here, and every entry's `jmp *disp(%rip)`
gives its GOT slot; the relocation of that slot gives the expected name (JUMP_SLOT, GLOB_DAT: its
symbol; IRELATIVE: the ifunc at its addend, looked up in the binary's own symbols and those of its
debug file under /usr/lib/debug/.build-id when there is one), NAME@plt as perf 6.3+ prints it.

perftop is asked without sampling: the test writes a perf.data file of its own (one process per
address checked, each with its MMAP2 record of the binary and one sample at that address) and
replays it with perftop -i ... -s pid,sym. Every instruction of every entry must carry its entry's
name; an entry that jumps through no named slot (PLT0, the lazy entries of an IBT .plt) must not
carry another entry's name. perf report on the same file is shown beside it: where perf 6.1 names a
stub otherwise (`_init` for the stubs of static binaries and the first of a lazy .plt, an address
for .plt.sec and .plt.got), the test says so and holds perftop to the decode, not to perf.

usage: test_plt_stubs.py PERFTOP SOURCE_DIR"""
import concurrent.futures
import os
import re
import shutil
import struct
import subprocess
import sys

from nameslib import fail, perftop_json, skip, tmpdir
from pltdecode import Elf, entries_named, name_ok

perftop, srcdir = sys.argv[1], sys.argv[2]
source = os.path.join(srcdir, "plt_calls.c")
work = tmpdir()

# ---- the corpus ----------------------------------------------------------------------------------
VARIANTS = [
    ("static", ["-static"]),
    ("static-pie", ["-static-pie"]),
    ("pie", ["-fPIE", "-pie"]),
    ("no-pie", ["-fno-PIE", "-no-pie"]),
    ("z-now", ["-Wl,-z,now"]),
    ("z-lazy", ["-Wl,-z,lazy"]),
    ("cet", ["-fcf-protection=full"]),
    ("cet-ibtplt", ["-fcf-protection=full", "-Wl,-z,ibtplt"]),
    ("cet-ibtplt-now", ["-fcf-protection=full", "-Wl,-z,ibtplt", "-Wl,-z,now"]),
    ("cet-ibtplt-static", ["-fcf-protection=full", "-Wl,-z,ibtplt", "-static"]),
    ("static-stripped", ["-static", "-s"]),
]
CLANG_VARIANTS = [("pie", ["-fPIE", "-pie"]), ("static", ["-static"]), ("z-now", ["-Wl,-z,now"])]

if not shutil.which("gcc"):
    skip("gcc is not installed")


def build(cc, name, flags):
    out = os.path.join(work, f"{cc}-{name}")
    p = subprocess.run([cc, "-O2", "-fno-builtin", *flags, "-o", out, source, "-lm"],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1:] or ["?"]
    return out, None


def has_static_libc(cc):
    """Whether cc finds libc.a (libc6-dev's static part): -static links need it."""
    p = subprocess.run([cc, "-print-file-name=libc.a"], capture_output=True, text=True, timeout=60)
    return os.path.isabs(p.stdout.strip()) and os.path.isfile(p.stdout.strip())


def buildable(cc, variants):
    static_ok = has_static_libc(cc)
    for name, flags in variants:
        if not static_ok and any(f.startswith("-static") for f in flags):
            notes.append(f"{cc} {name} skipped: {cc} finds no libc.a here")
        else:
            yield cc, name, flags


binaries, notes = [], []
jobs = list(buildable("gcc", VARIANTS))
if shutil.which("clang"):
    jobs += buildable("clang", CLANG_VARIANTS)
else:
    notes.append("clang variants skipped: clang is not installed")
with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
    for (cc, name, flags), (path, err) in zip(jobs, ex.map(lambda j: build(*j), jobs)):
        if not path:
            fail(f"{cc} {' '.join(flags)} {source}: {err[0]}")
        binaries.append(path)
# and the distribution's own libc and libm, as the machine has them (their ifuncs' IRELATIVE
# entries, named from their debug files' symbols when those are installed)
for lib in ("libc.so.6", "libm.so.6"):
    p = subprocess.run(["gcc", f"-print-file-name={lib}"], capture_output=True, text=True, timeout=60)
    if os.path.isabs(p.stdout.strip()) and os.path.isfile(p.stdout.strip()):
        binaries.append(os.path.realpath(p.stdout.strip()))
    else:
        notes.append(f"{lib} not found by gcc: left out")


# ---- what to ask perftop: each address to check, with what it must be called ----------------------
checks = []   # (binary, section, address, acceptable names, what it is)
summary = []
for path in binaries:
    elf = Elf(path)
    if elf.machine != 62:
        skip(f"the compiler here does not make x86-64 binaries (e_machine {elf.machine})")
    entries = entries_named(elf)
    if not entries:
        fail(f"{os.path.basename(path)}: no PLT entry found: the corpus is not what it should be")
    for sec, addrs, want, what in entries:
        checks.extend((path, sec, a, want, what) for a in addrs)
    named = sum(1 for e in entries if not isinstance(e[2], tuple))
    summary.append(f"{os.path.basename(path)}: {len(entries)} entries, {named} named "
                   f"({', '.join(sorted({e[0] for e in entries}))})")

# ---- the recording: one process per address, its binary mapped as the loader maps it -------------
PIE_BASE = 0x555555554000
PID0 = 100000


def rec(typ, misc, body):
    return struct.pack("<IHH", typ, misc, 8 + len(body)) + body


def cstr8(s):
    raw = s.encode() + b"\0"
    return raw + b"\0" * (-len(raw) % 8)


data = bytearray()
elfs = {path: Elf(path) for path in binaries}
for k, (path, sec, addr, want, what) in enumerate(checks):
    pid = PID0 + k
    elf = elfs[path]
    vaddr, off, memsz = elf.exec_segment()
    base = PIE_BASE if elf.type == 3 else 0
    start = base + (vaddr & ~0xfff)
    length = ((vaddr + memsz + 0xfff) & ~0xfff) - (vaddr & ~0xfff)
    st = os.stat(path)
    data += rec(3, 0, struct.pack("<II", pid, pid) + cstr8(f"plt{k}"))            # COMM
    data += rec(10, 2, struct.pack("<IIQQQIIQQII", pid, pid, start, length, off & ~0xfff,
                                   os.major(st.st_dev), os.minor(st.st_dev), st.st_ino, 0,
                                   5, 2) + cstr8(path))                           # MMAP2, r-x private
    data += rec(9, 2, struct.pack("<QIIQ", base + addr, pid, pid, 1))   # SAMPLE: ip, tid, period

ATTR_SIZE = 128   # PERF_ATTR_SIZE_VER7, what perf 6.1 writes and reads
attr = struct.pack("<IIQQQQQ", 1, ATTR_SIZE, 0, 1, 0x1 | 0x2 | 0x100, 0, (1 << 8) | (1 << 9))
attr += b"\0" * (ATTR_SIZE - len(attr))   # cpu-clock, period 1, sample IP|TID|PERIOD, mmap comm
attrs = attr + struct.pack("<QQ", 0, 0)
header_size = 104
recording = os.path.join(work, "plt.data")
with open(recording, "wb") as f:
    f.write(b"PERFILE2" + struct.pack("<QQ", header_size, len(attrs)))
    f.write(struct.pack("<QQQQQQ", header_size, len(attrs), header_size + len(attrs), len(data), 0, 0))
    # One feature (HEADER_BUILD_ID, empty): a header without any says its writer never finished it.
    f.write(struct.pack("<Q", 1 << 2) + b"\0" * 24)
    f.write(attrs)
    f.write(data)
    f.write(struct.pack("<QQ", header_size + len(attrs) + len(data) + 16, 0))

# ---- perftop's names ------------------------------------------------------------------------------
snaps = perftop_json(perftop, ["-i", recording, "-b", "--json", "-s", "pid,sym"])
got = {}
for snap in snaps:
    for r in snap.get("rows", []):
        got[int(r.get("pid", -1))] = str(r.get("sym", ""))

# perf report on the same file, for the record: perf is not the reference here
perf_names = {}
if shutil.which("perf"):
    perf_version = subprocess.run(["perf", "--version"], capture_output=True, text=True,
                                  timeout=60).stdout.strip() or "perf"
    p = subprocess.run(["perf", "report", "-i", recording, "--stdio", "-n", "--sort", "pid,sym",
                        "--percent-limit", "0"], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail(f"perf report -i {recording}: {p.stderr.strip()[:300]}")
    for line in p.stdout.splitlines():
        m = re.match(r"\s*[\d.]+%\s+\d+\s+(\d+):\S*\s+\[.\]\s+(.*?)\s*$", line)
        if m:
            perf_names[int(m.group(1))] = m.group(2)
    if not perf_names:
        fail(f"perf report -i {recording} printed no row: {p.stdout[:300]!r}")
else:
    notes.append("perf is not installed: perf's names are not shown beside perftop's")

for line in notes + summary:
    print(line)
bad, perf_wrong, npassed = [], {}, 0
for k, (path, sec, addr, want, what) in enumerate(checks):
    name = got.get(PID0 + k)
    binary = os.path.basename(path)
    shown = "no other entry's name" if isinstance(want, tuple) else " or ".join(sorted(want))
    if name_ok(want, name):
        npassed += 1
    else:
        bad.append(f"{binary} {sec} {addr:#x}: perftop says {name!r}, the decode wants {shown} ({what})")
    perf = perf_names.get(PID0 + k)
    if not isinstance(want, tuple) and perf is not None and perf not in want:
        perf_wrong.setdefault(binary, []).append(f"{addr:#x} {perf or '(empty)'} for {shown}")

for binary, v in perf_wrong.items():
    print(f"{perf_version} is wrong on {binary} ({len(v)} of its stub addresses; perftop is held to the "
          f"decode instead): {'; '.join(v[:4])}{' ...' if len(v) > 4 else ''}")
for b in bad[:40]:
    print(f"wrong: {b}")
if bad:
    per = {}
    for b in bad:
        per[b.split()[0]] = per.get(b.split()[0], 0) + 1
    fail(f"{len(bad)} of {len(checks)} PLT addresses named otherwise than their entry's jump says "
         f"({', '.join(f'{k}: {v}' for k, v in per.items())})")
print(f"{npassed} passed, 0 failed")
