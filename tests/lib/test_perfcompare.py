#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The comparison with perf report (perfcompare.py) on rows made here, so that its rules are held
to what they say: equal rows pass; a row of 1% that only perftop has fails, and one that only perf
has fails; a perf row by address in libc's .plt.got pairs with perftop's NAME@plt only when
binutils' objdump names that address NAME@plt (and a wrong name fails); perf 6.1's inline frame of
a glibc alias (__GI___libc_malloc under malloc) is explained only with the dwarf context; a
comparison of fewer rows than asked fails; symbol versions are cut from names, @plt is not.

usage: test_perfcompare.py"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfcompare as pc  # noqa: E402
from perfprobe import fail, kinds_for, need_perf_events, need_tool  # noqa: E402

LIBC = "/lib/x86_64-linux-gnu/libc.so.6"
checks = 0


def section(rows, n=2000, event_count=None):
    """A perf report section of rows [(dso, sym, self, total)]; event_count: its total period."""
    s = pc.Section("cpu-clock")
    s.event_count = event_count
    s.rows = [((dso, pc.sym_key(sym)), self_, total, round(self_ * n / 100))
              for dso, sym, self_, total in rows]
    s.samples = n
    return s


def snap(rows, n=2000):
    return {"samples": n, "rows": [{"dso": d, "sym": s, "self": a, "total": b} for d, s, a, b in rows]}


def expect(what, ok_wanted, snap_rows, ref_rows, key="self", recording=None, n=2000, **kw):
    global checks
    sec = section(ref_rows, n, kw.pop("event_count", None))
    sec.path = recording
    ok, text = pc.compare(snap(snap_rows, n), sec, key, min_rows=kw.pop("min_rows", 1), **kw)
    print(f"{what}: {'passes' if ok else 'fails'}: {text[:300]}")
    if ok != ok_wanted:
        fail(f"{what}: the comparison {'passed' if ok else 'failed'}, it should "
             f"{'pass' if ok_wanted else 'fail'}: {text}")
    checks += 1


# perftop's rows name a dso by its base name, as perf report's do
base = [("prog", "work", 60.0, 90.0), ("prog", "main", 30.0, 95.0), ("libc.so.6", "memcpy", 10.0, 10.0)]
ref = list(base)
expect("equal rows", True, base, ref)
expect("equal rows, Total", True, base, ref, key="total")
expect("a row of 1% only perftop has", False, base + [("prog", "extra", 1.0, 1.0)], ref)
expect("a row of 1% only perf has", False, base, ref + [("prog", "extra", 1.0, 1.0)])
expect("a row 5 points apart (3 sigma of 2000 samples: 3.3)", False, [("prog", "work", 65.0, 90.0)] + base[1:], ref)
expect("fewer rows than asked", False, base, ref, min_rows=4)

# .plt.got: the first entry objdump names in libc's .plt.got, perf's row by its address. libc is
# found by its path in the recording compared (a dd spending its time in libc's read and write):
# neither tool's rows carry it.
need_tool("perf")
need_perf_events(*kinds_for([]))
d = tempfile.mkdtemp(prefix="perftop-perfcompare-")
rec = os.path.join(d, "dd.data")
r = subprocess.run(["perf", "record", "-q", "-N", "-B", "-F", "5000", "-o", rec, "--", "dd",
                    "if=/dev/zero", "of=/dev/null", "bs=1", "count=300000"], capture_output=True,
                   text=True, timeout=120)
if r.returncode != 0:
    fail(f"perf record of dd exited {r.returncode}: {r.stderr.strip()[:300]}")
libc = next((os.path.realpath(ln.split()[-1]) for ln in open("/proc/self/maps")
             if ln.rstrip().endswith("/libc.so.6")), LIBC)
out = subprocess.run(["objdump", "-d", "-j", ".plt.got", libc], capture_output=True, text=True).stdout
m = re.search(r"^([0-9a-f]+) <([^>+]+@plt)>:", out, re.M)
if not m:
    fail(f"objdump names no .plt.got entry of {libc}: {out[-300:]}")
addr, name = f"0x{int(m.group(1), 16):016x}", m.group(2)
other = "memcpy@plt" if name != "memcpy@plt" else "strlen@plt"
expect(f"perf's {addr} against perftop's {name}", True, base + [("libc.so.6", name, 2.0, 2.0)],
       ref + [("libc.so.6", addr, 2.0, 2.0)], recording=rec)
expect(f"perf's {addr} against perftop's {other} (a wrong name)", False,
       base + [("libc.so.6", other, 2.0, 2.0)], ref + [("libc.so.6", addr, 2.0, 2.0)],
       recording=rec)
shutil.rmtree(d, True)

# perf 6.1's inline frame of a glibc alias, Total only, with --call-graph dwarf
alias = ref + [("libc.so.6", "__GI___libc_malloc (inlined)", 0.0, 1.0)]
with_malloc = base + [("libc.so.6", "malloc", 1.0, 1.0)]
expect("__GI___libc_malloc (inlined) beside perftop's malloc, dwarf", True, with_malloc,
       alias + [("libc.so.6", "malloc", 1.0, 1.0)], key="total", contexts=("dwarf",))
expect("the same without the dwarf context", False, with_malloc,
       alias + [("libc.so.6", "malloc", 1.0, 1.0)], key="total")
expect("__GI___libc_free (inlined) beside perftop's malloc only", False, with_malloc,
       ref + [("libc.so.6", "__GI___libc_free (inlined)", 0.0, 1.0), ("libc.so.6", "malloc", 1.0, 1.0)],
       key="total", contexts=("dwarf",))

# a frame-pointer chain's garbage entries (perf) against perftop's one [unmapped address]
garbage = [("[unknown]", "0xbe552274c0854800", 0.0, 60.0), ("[unknown]", "0x7261762d706f7466", 0.0, 0.3)]
expect("perf's non-canonical rows against perftop's [unmapped address]", True,
       base + [("[unknown]", "[unmapped address]", 0.0, 60.3)], ref + garbage, key="total")
small = [("[unknown]", f"0x{0x0574ff8548000900 + i:016x}", 0.0, 0.1) for i in range(6)]
expect("perf's six small non-canonical rows against perftop's one of their sum", True,
       base + [("[unknown]", "[unmapped address]", 0.0, 0.6)], ref + small, key="total")
expect("perftop's [unmapped address] above the sum of perf's non-canonical rows", False,
       base + [("[unknown]", "[unmapped address]", 0.0, 5.0)], ref + small, key="total")
# 2300 chains of 3182 samples, each ending at a garbage entry of its own: perf prints 2300 rows
# of 0.03% (one sample is 0.0314%), 69.00% in all, where the true sum is 72.28% (3 sigma: 2.38)
ones = [("[unknown]", f"0x{0xbe55227400000000 + i:016x}", 0.0, 0.03) for i in range(2300)]
expect("2300 one-sample garbage rows, each printed 0.03%, against perftop's 72.28%, weight 1 each",
       True, base + [("[unknown]", "[unmapped address]", 0.0, 72.28)], ref + ones, key="total",
       n=3182, event_count=3182)
expect("the same against perftop's 78%, above the rows' true sum", False,
       base + [("[unknown]", "[unmapped address]", 0.0, 78.0)], ref + ones, key="total",
       n=3182, event_count=3182)
expect("the same rows of unknown weights against perftop's 72.28% (half a printed unit each)",
       True, base + [("[unknown]", "[unmapped address]", 0.0, 72.28)], ref + ones, key="total",
       n=3182)
# an entry in no mapping (perf's [unknown] row of a user-space address) is garbage too; one in a
# binary is not, nor does the 0 where the kernel's walk ended stand for one
expect("perf's row of a user-space address in no mapping against perftop's [unmapped address]",
       True, base + [("[unknown]", "[unmapped address]", 0.0, 60.0)],
       ref + [("[unknown]", "0x00007f0000001000", 0.0, 60.0)], key="total")
expect("perf's row of an address in a binary against perftop's [unmapped address]", False,
       base + [("[unknown]", "[unmapped address]", 0.0, 60.0)],
       ref + [("libfoo.so", "0x0000000000001000", 0.0, 60.0)], key="total")
# an address in no mapping that is also some samples' own ip (a file read unordered, a process's
# samples before its MMAPs): perf's Total of it adds the samples passing it as a caller, which
# perftop's chain cut puts in [unmapped address]; its Self is what both show
leaf = ("[unknown]", "0x00007f874c34e2ad")
expect("an address in no mapping, a leaf in 0.5% and a caller in 22%, beside [unmapped address]",
       True, base + [leaf + (0.5, 0.5), ("[unknown]", "[unmapped address]", 0.0, 22.0)],
       ref + [leaf + (0.5, 22.5)], key="total")
expect("the same with perftop's leaf row at 3% (perf's Self 0.5%)", False,
       base + [leaf + (3.0, 3.0), ("[unknown]", "[unmapped address]", 0.0, 22.0)],
       ref + [leaf + (0.5, 22.5)], key="total")
expect("the same with perftop's [unmapped address] at 40%, above what perf's caller share allows",
       False, base + [leaf + (0.5, 0.5), ("[unknown]", "[unmapped address]", 0.0, 40.0)],
       ref + [leaf + (0.5, 22.5)], key="total")
expect("the same with no [unmapped address] on perftop's side", False,
       base + [leaf + (0.5, 0.5)], ref + [leaf + (0.5, 22.5)], key="total")
expect("perf's root row 0x0 against perftop's [unmapped address]", False,
       base + [("[unknown]", "[unmapped address]", 0.0, 60.0)],
       ref + [("[unknown]", "0x0000000000000000", 0.0, 60.0)], key="total")

# DWARF: a few chains perftop ends with [unmapped address] where perf's unwinder ends them with no
# frame: 2 samples of 312 (0.64%; 3 sigma of it is 1.36 points) are a few, 12 of 2000 (0.60%, 3
# sigma 0.52 points) are not
unmapped = [("[unknown]", "[unmapped address]", 0.0, 0.64)]
expect("perftop's [unmapped address] in 2 of 312 samples, none of perf's, dwarf", True,
       base + unmapped, ref, key="total", contexts=("dwarf",), n=312)
expect("perftop's [unmapped address] in 12 of 2000 samples, none of perf's, dwarf", False,
       base + [("[unknown]", "[unmapped address]", 0.0, 0.6)], ref, key="total", contexts=("dwarf",))
expect("perftop's [unmapped address] in 2 of 312 samples, none of perf's, frame pointers", False,
       base + unmapped, ref, key="total", n=312)

# one inline function at two depths of a chain: two rows of perftop's, one of perf's
twice = [("prog", "std::panic::catch_unwind (inlined)", 0.0, 98.0)] * 2
expect("perftop's two rows of one inline name against perf's one", True, base + twice,
       ref + [("prog", "std::panic::catch_unwind (inlined)", 0.0, 98.0)], key="total")
expect("perf's one row above the sum of perftop's two", False,
       base + [("prog", "std::panic::catch_unwind (inlined)", 0.0, 50.0),
               ("prog", "std::panic::catch_unwind (inlined)", 0.0, 1.0)],
       ref + [("prog", "std::panic::catch_unwind (inlined)", 0.0, 98.0)], key="total")

for raw, want in (("clock_nanosleep@@GLIBC_2.17", "clock_nanosleep"), ("memcpy@GLIBC_2.2.5", "memcpy"),
                  ("free@plt", "free@plt"), ("0x1234", "0x0000000000001234")):
    if pc.sym_key(raw) != want:
        fail(f"sym_key({raw!r}) is {pc.sym_key(raw)!r}, not {want!r}")
    checks += 1
print(f"{checks} checks passed")
