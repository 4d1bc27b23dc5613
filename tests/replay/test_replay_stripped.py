# SPDX-License-Identifier: GPL-2.0-or-later
"""Unresolved addresses of a binary are named by their address in that binary:
two processes of one stripped binary, loaded at two different addresses (the second one through the
dynamic loader, which places it itself, so the addresses differ even without ASLR), recorded by perf
record -g; perftop -i must give the same rows of that binary (one per relative address, as perf
report prints them: 0x00000000000011d5) with Self% and Total% equal to perf report's on the same file
within tests/lib/perfcompare.py's tolerance. The binary is diff_work with its symbol table stripped
(objcopy --strip-all).

usage: test_replay_stripped.py PERFTOP STRIPPED_BINARY"""
import os
import re
import subprocess
import sys

from replaylib import check, fail, perf_record, replay_json, report_section, tmpdir, tolerance

perftop, work = sys.argv[1], sys.argv[2]
d = tmpdir()
data = os.path.join(d, "stripped.data")
ldso = "/lib64/ld-linux-x86-64.so.2"
if not os.path.exists(ldso):
    fail(f"no dynamic loader at {ldso}")
# Two mixes, so that each process has rows of its own and some in common.
perf_record(["-g", "-e", "cpu-clock", "-F", "999"], data,
            ["sh", "-c", f"{work} 2 1 1 0 0 & {ldso} {work} 2 0 1 1 1 & wait"])

# The two processes' mappings of the binary's code: they must be at different addresses for this
# to test anything.
script = subprocess.run(["perf", "script", "-i", data, "--show-mmap-events", "-F", "pid"],
                        capture_output=True, text=True, timeout=120).stdout
name = os.path.basename(work)
maps = {}  # pid -> (start, len, pgoff)
for line in script.splitlines():
    m = re.search(r"PERF_RECORD_MMAP2? (\d+)/\d+: \[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0) "
                  r".*r-xp .*" + re.escape(name) + r"\s*$", line)
    if m:
        maps.setdefault(m.group(1), tuple(int(x, 16) for x in m.group(2, 3, 4)))
if len(maps) < 2 or len({v[0] for v in maps.values()}) < 2:
    fail(f"expected two processes mapping {name} at two addresses, got {maps}")


def relative(addr):
    """An absolute address of one of the processes, as an address in the binary (perf's map_ip)."""
    for start, size, pgoff in maps.values():
        if start <= addr < start + size:
            return addr - start + pgoff
    return None

snap = replay_json(perftop, data)[0][-1]
ours = {r["sym"]: r for r in snap["rows"] if r["dso"] == name}
if not ours:
    fail(f"no row of {name}: {[(r['dso'], r['sym']) for r in snap['rows'][:8]]}")
# PLT stubs keep their names: stripping leaves the dynamic relocations and symbols they are named
# from (tests/names/test_plt_stubs.py holds those names to the binary's own decode)
bad = [s for s in ours if not s.endswith("@plt") and
       (not re.fullmatch(r"0x[0-9a-f]{16}", s) or int(s, 16) >= 1 << 32)]
if bad:
    fail(f"rows of {name} not named by their address in the binary: {bad[:5]}")


def report_rows(children):
    """perf report's rows of the binary by relative address. Self: its rows as they are. Total:
    perf 6.1's --children gives a sampled address a row by relative address carrying only its own
    samples, and each address met in a callchain a row by absolute address, one per process; the
    Total of a relative address is the sum of the latter (every sample with it on the stack)."""
    rows = {}
    sec = report_section(data, children)
    for (dso, sym), self_, total, _ in sec.rows:
        if dso != name or not sym.startswith("0x"):
            continue
        pct = total if children else self_
        addr = int(sym, 16)
        rel = relative(addr) if children else addr
        if rel is None:
            continue  # a relative row: with --children it holds the address's Self only
        key = f"0x{rel:016x}"
        rows[key] = rows.get(key, 0.0) + pct
    return rows, sec.samples


checked = 0
for key, children in (("self", False), ("total", True)):
    ref, n = report_rows(children)
    if not ref:
        fail(f"perf report has no row of {name} ({key})")
    for sym in sorted(set(ref) | set(ours)):
        pct, got = ref.get(sym, 0.0), ours.get(sym, {}).get(key, 0.0)
        if pct >= 0.5 or got >= 0.5:
            checked += 1
            print(f"{key:5} {sym} perf {pct:6.2f}  perftop {got:6.2f}")
            if abs(got - pct) > tolerance(max(got, pct), n):
                fail(f"{key} of {name} {sym}: perftop {got:.2f}, perf report {pct:.2f} (tolerance "
                     f"{tolerance(max(got, pct), n):.2f}: tests/lib/perfcompare.py's rule)")
# and every row, the binary's and the others, by the suite's one rule
check("all rows", snap, report_section(data, False), "self", min_rows=4)
if checked < 4:
    fail(f"too few rows of {name} to compare ({checked})")
print(f"ok: {len(ours)} rows of {name} by relative address in two processes, {checked} compared "
      f"with perf report")
