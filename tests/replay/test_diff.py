# SPDX-License-Identifier: GPL-2.0-or-later
"""--diff: two recordings of diff_work made here with perf record, OLD with the
mix a:b:d = 2:1:1 and NEW with a:b:c = 1:1:2, so Self% moves from about 50/25/0/25 to 25/25/50/0.
How far from those round numbers each share lands moves with the machine (its CPU, its load), so
the sizes expected are perf report's on the same two files: perftop -i NEW --diff OLD -b --json
must give each row delta = self - base_self, base_self and self equal to perf report's Self% on OLD
and on NEW as tests/lib/perfcompare.py holds them (every row of 0.5% or more, both ways), work_c marked new (base 0), work_d gone (self 0), work_a and work_b on both
sides, rows ordered by the size of the change; the text table has a Delta column; and where perf
diff works, its Delta for each function agrees with ours to 1 point (it prints NEW minus OLD, the
same sense).

usage: test_diff.py PERFTOP DIFF_WORK"""
import os
import re
import subprocess
import sys

from replaylib import check, fail, perf_record, report_section, run_perftop, snapshots, tmpdir

perftop, work = sys.argv[1], sys.argv[2]
d = tmpdir()
old, new = os.path.join(d, "old.data"), os.path.join(d, "new.data")
perf_record(["-e", "cpu-clock", "-F", "999"], old, [work, "2", "2", "1", "0", "1"])
perf_record(["-e", "cpu-clock", "-F", "999"], new, [work, "2", "1", "1", "2", "0"])

p = run_perftop(perftop, ["-i", new, "--diff", old, "-b", "--json"])
if p.returncode != 0:
    fail(f"perftop --diff exited {p.returncode}: {p.stderr.strip()}")
snaps = snapshots(p)
if len(snaps) != 1:
    fail(f"expected one snapshot, got {len(snaps)}")
rows = snaps[0]["rows"]
by = {r["sym"]: r for r in rows}
for name in ("work_a", "work_b", "work_c", "work_d"):
    if name not in by:
        fail(f"no row for {name}: {[r['sym'] for r in rows][:10]}")
for r in rows:
    if "delta" not in r or "base_self" not in r:
        fail(f"a row without delta/base_self: {r}")
    if abs(r["self"] - r["base_self"] - r["delta"]) > 1e-3:
        fail(f"delta is not self - base_self: {r}")
a, b, c, dd = by["work_a"], by["work_b"], by["work_c"], by["work_d"]
print(f"work_a {a['base_self']:.2f} -> {a['self']:.2f} ({a['delta']:+.2f}), "
      f"work_b {b['base_self']:.2f} -> {b['self']:.2f} ({b['delta']:+.2f}), "
      f"work_c {c['delta']:+.2f} {c.get('diff')}, work_d {dd['delta']:+.2f} {dd.get('diff')}")


def report_self(path):
    """perf report's Self% by symbol on path (tests/lib/perfcompare.py's parser)."""
    out = {}
    for (_, sym), self_, _, _ in report_section(path, False, sort="sym").rows:
        out[sym] = out.get(sym, 0.0) + self_
    return out


ref_old, ref_new = report_self(old), report_self(new)
print("perf report:", {n: (round(ref_old.get(n, 0), 2), round(ref_new.get(n, 0), 2))
                       for n in ("work_a", "work_b", "work_c", "work_d")})
if "work_c" in ref_old or "work_d" in ref_new:
    fail(f"the recordings do not have the mixes asked for: OLD {ref_old}, NEW {ref_new}")
if c.get("diff") != "new" or c["base_self"] != 0:
    fail(f"work_c should be new (not in OLD): {c}")
if dd.get("diff") != "gone" or dd["self"] != 0:
    fail(f"work_d should be gone (not in NEW) with self 0: {dd}")
if "diff" in a or "diff" in b:
    fail(f"work_a and work_b are on both sides: {a}, {b}")
# Self on NEW and base_self on OLD, every row, against perf report on each file by
# tests/lib/perfcompare.py's rule (diff_work: its four work functions, main and the kernel's few)
check("NEW (self)", snaps[0], report_section(new, False, sort="sym"), "self", sort="sym", min_rows=3)
base = {"samples": None, "rows": [dict(r, self=r["base_self"]) for r in rows]}
check("OLD (base_self)", base, report_section(old, False, sort="sym"), "self", sort="sym",
      min_rows=3, whole=False)
mags = [abs(r["delta"]) for r in rows]
if any(x < y - 1e-9 for x, y in zip(mags, mags[1:])):
    fail(f"rows are not ordered by the size of the change: {mags[:8]}")

# Without --diff nothing changes in the JSON rows.
p = run_perftop(perftop, ["-i", new, "-b", "--json"])
plain = snapshots(p)[0]["rows"]
if any("delta" in r for r in plain):
    fail("rows have a delta without --diff")

# The text table: a Delta column, gone and new rows marked.
p = run_perftop(perftop, ["-i", new, "--diff", old, "-b"])
if p.returncode != 0 or "Delta" not in p.stdout or " new" not in p.stdout or " gone" not in p.stdout:
    fail(f"the text table has no Delta column or marks:\n{p.stdout[:1500]}")

# A base that is not a recording is refused with the file named.
bad = os.path.join(d, "bad.data")
with open(bad, "w") as f:
    f.write("not perf data\n")
p = run_perftop(perftop, ["-i", new, "--diff", bad, "-b", "--json"])
if p.returncode == 0 or "--diff" not in p.stderr or "bad.data" not in p.stderr:
    fail(f"a bad base should fail naming it: rc {p.returncode}: {p.stderr.strip()}")

# perf diff OLD NEW: Baseline (OLD's Self%) and Delta (NEW minus OLD), per symbol.
q = subprocess.run(["perf", "diff", old, new, "--sort", "sym"], capture_output=True, text=True,
                   timeout=300)
ref = {}
for line in q.stdout.splitlines():
    m = re.match(r"\s*([\d.]+)%\s+([+-][\d.]+)%\s+\[[.k]\]\s+(\S+)", line)
    if m:
        ref[m.group(3)] = (float(m.group(1)), float(m.group(2)))
if q.returncode != 0 or "work_a" not in ref:
    print(f"perf diff gave nothing to compare (rc {q.returncode}); checked against perf report only")
else:
    for name in ("work_a", "work_b"):
        base, delta = ref[name]
        r = by[name]
        if abs(base - r["base_self"]) > 1.0 or abs(delta - r["delta"]) > 1.0:
            fail(f"{name}: perf diff says baseline {base} delta {delta:+.2f}, "
                 f"perftop {r['base_self']:.2f} {r['delta']:+.2f}")
    print("perf diff agrees on work_a and work_b:", {k: ref[k] for k in ("work_a", "work_b")})
print("ok")
