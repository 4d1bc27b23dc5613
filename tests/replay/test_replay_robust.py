#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Bad input never crashes, hangs or allocates without bound. On small real files made here by perf
record (file format, -z, and pipe format), perftop -i gets: cuts at 8, 64, 256 bytes, at 75% and at
every record boundary (every twelfth sample's); 60 seeded random bit flips; a record whose size is 0 and one larger
than the file; a callchain whose nr exceeds its record. Each run must end with exit 0 (a result,
with a warning when reading stopped early) or exit 1 with a one-line error; never a sanitizer report
(the ASan+UBSan build), never a timeout, and within an address-space limit (the plain build).

usage: test_replay_robust.py PERFTOP_ASAN PERFTOP FIXTURE_DIR"""
import concurrent.futures
import os
import random
import resource
import struct
import subprocess
import sys
from replaylib import fail, perf_record, tmpdir

perftop_asan, perftop, fixtures = sys.argv[1], sys.argv[2], sys.argv[3]
spinner = os.path.join(fixtures, "spinner")
d = tmpdir()
ENV = dict(os.environ, ASAN_OPTIONS="exitcode=99:detect_leaks=1",
           UBSAN_OPTIONS="halt_on_error=1:exitcode=98:print_stacktrace=1")
MEM_LIMIT = 1 << 30  # address space for the plain build: far more than a replay of these needs
checks = 0


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEM_LIMIT, MEM_LIMIT))


def run_one(name, data, asan=True, pipe=False):
    """Runs perftop on bytes data; returns None when it behaved, else a failure message."""
    path = os.path.join(d, f"case-{abs(hash(name))}.data")
    with open(path, "wb") as f:
        f.write(data)
    args = [perftop_asan if asan else perftop, "-i", "-" if pipe else path, "-b", "--json"]
    try:
        with open(path, "rb") as stdin:
            p = subprocess.run(args, stdin=stdin if pipe else subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=60, env=ENV,
                               preexec_fn=None if asan else limit_memory, errors="replace")
    except subprocess.TimeoutExpired:
        return f"{name}: timed out (a hang)"
    finally:
        os.unlink(path)
    err = p.stderr.strip()
    if "Sanitizer" in err or "runtime error" in err or p.returncode not in (0, 1):
        return f"{name}: exit {p.returncode}: {err[-1500:]}"
    lines = err.splitlines()
    if p.returncode == 1 and (len(lines) != 1 or not lines[0].startswith("perftop: ")):
        return f"{name}: exit 1 wants a one-line error, got {err!r}"
    if p.returncode == 0 and not p.stdout.startswith("{"):
        return f"{name}: exit 0 without a snapshot; stderr {err!r}"
    return None


def run_all(cases):
    global checks
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        for msg in ex.map(lambda c: run_one(*c), cases):
            if msg:
                fail(msg)
            checks += 1


def records(data, start, end):
    """(offset, type, size) of each record of the data section."""
    out, off = [], start
    while off + 8 <= end:
        typ, misc, size = struct.unpack_from("<IHH", data, off)
        if size < 8:
            break
        out.append((off, typ, size))
        off += size
    return out


fp = perf_record(["-g", "-F", "299"], os.path.join(d, "fp.data"), [spinner, "0.4"])
zf = perf_record(["-z", "-g", "-F", "299"], os.path.join(d, "z.data"), [spinner, "0.4"])
pf = os.path.join(d, "pipe.data")
with open(pf, "wb") as out:
    perf_record(["-g", "-F", "299"], "-", [spinner, "0.4"], stdout=out)
data = open(fp, "rb").read()
zdata = open(zf, "rb").read()
pdata = open(pf, "rb").read()
data_off, data_size = struct.unpack_from("<QQ", data, 40)
recs = records(data, data_off, data_off + data_size)
precs = records(pdata, 16, len(pdata))
print(f"fp.data: {len(data)} bytes, {len(recs)} records; z.data {len(zdata)} bytes; "
      f"pipe.data {len(pdata)} bytes, {len(precs)} records")
if len(recs) < 10:
    fail(f"the recording is too small to test with: {len(recs)} records")

# the untouched files read cleanly
for name, blob, pipe in (("fp.data", data, False), ("z.data", zdata, False), ("pipe.data", pdata, True)):
    msg = run_one(name, blob, pipe=pipe)
    if msg:
        fail(msg)
    checks += 1

# cuts at 8, 64, 256 bytes and at 75%; at every record boundary; and inside records
cases = []
for blob, tag, pipe in ((data, "fp", False), (zdata, "z", False), (pdata, "pipe", True)):
    for n in (8, 64, 256, len(blob) * 3 // 4):
        cases.append((f"{tag} cut at {n}", blob[:n], True, pipe))
# every record of each kind but samples, and every twelfth sample: the samples are most of the file
# and alike (what each one costs is an ASan run, and this test was the suite's longest; the fuzz
# target of the reader, fuzz/fuzz_perfdata.c, goes further)
for k, (off, rtype, size) in enumerate(recs):
    if rtype == 9 and k % 12:
        continue
    cases.append((f"fp cut at record boundary {off}", data[:off], True, False))
    cases.append((f"fp cut inside the record at {off}", data[:off + size // 2], True, False))
for off, _, _ in precs[::9]:
    cases.append((f"pipe cut at record boundary {off}", pdata[:off], True, True))
run_all(cases)

# cut short files say so: exit 0 and a warning naming where
def run_plain(blob):
    path = os.path.join(d, "plain.data")
    with open(path, "wb") as f:
        f.write(blob)
    return subprocess.run([perftop, "-i", path, "-b", "--json"], capture_output=True, timeout=60,
                          preexec_fn=limit_memory)


p = run_plain(data[:recs[len(recs) // 2][0] + 3])
if p.returncode != 0 or b"cut short at byte" not in p.stderr:
    fail(f"a file cut mid-record: exit {p.returncode}, stderr {p.stderr!r} (wants a cut-short warning)")
checks += 1

# a record whose size is 0, one larger than the file, a callchain nr beyond its record
def patched(off, fmt, value):
    b = bytearray(data)
    struct.pack_into(fmt, b, off, value)
    return bytes(b)


mid = recs[len(recs) // 2][0]
samples = [r for r in recs if r[1] == 9]
special = [
    ("size 0", patched(mid + 6, "<H", 0), True, False),
    ("size 0 (plain, memory limit)", patched(mid + 6, "<H", 0), False, False),
    ("size beyond the file", patched(recs[-1][0] + 6, "<H", 0xfff8), True, False),
    ("size beyond the file (plain)", patched(recs[-1][0] + 6, "<H", 0xfff8), False, False),
    ("data size beyond the file", patched(48, "<Q", 1 << 60), True, False),
    ("attrs beyond the file", patched(32, "<Q", 1 << 40), True, False),
]
# Where the callchain's nr sits in a sample: after the header, one u64 for each field before it
# that the attr's sample_type has (IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD;
# READ, of variable size, is not asked for). The attr: the header's attrs.offset (byte 24), its
# sample_type at byte 24.
sample_type = struct.unpack_from("<Q", data, struct.unpack_from("<Q", data, 24)[0] + 24)[0]
if not sample_type & (1 << 5) or sample_type & (1 << 4):
    fail(f"the recording's sample_type {sample_type:#x}: want CALLCHAIN and no READ")
BEFORE_CALLCHAIN = (1 << 16) | 1 | 2 | 4 | 8 | (1 << 6) | (1 << 9) | (1 << 7) | (1 << 8)
NR = 8 + 8 * bin(sample_type & BEFORE_CALLCHAIN).count("1")
for off, _, size in samples[:5]:
    special.append((f"callchain nr 2^40 at {off}", patched(off + NR, "<Q", 1 << 40), True, False))
    special.append((f"callchain nr one too many at {off}",
                    patched(off + NR, "<Q", (size - NR - 8) // 8 + 1), True, False))
run_all(special)
for name, blob, _, _ in special:
    if "size 0" in name or ("beyond the file" in name and "size" in name.split()[0]):
        p = run_plain(blob)
        if p.returncode == 0 and b"byte" not in p.stderr:
            fail(f"{name}: exit 0 without a warning saying where reading stopped: {p.stderr!r}")
        checks += 1

# seeded random bit flips: in the data section mostly, some anywhere
rng = random.Random(1234)
flips = []
for i in range(60):
    src, tag, pipe = rng.choice(((data, "fp", False), (zdata, "z", False), (pdata, "pipe", True)))
    b = bytearray(src)
    lo = 0 if i % 5 == 0 else min(len(b) - 1, 16 if pipe else data_off)
    for _ in range(rng.randint(1, 4)):
        pos = rng.randrange(lo, len(b))
        b[pos] ^= 1 << rng.randrange(8)
    flips.append((f"{tag} bit flips #{i}", bytes(b), i % 10 != 0, pipe))
run_all(flips)

print(f"{checks} passed, 0 failed")
