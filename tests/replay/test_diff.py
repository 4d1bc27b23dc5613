"""--diff (issue 6 item 8): two recordings of diff_work made here with perf record, OLD with the
mix a:b:d = 2:1:1 and NEW with a:b:c = 1:1:2, so Self% moves from about 50/25/0/25 to 25/25/50/0.
perftop -i NEW --diff OLD -b --json must give each row delta = self - base_self with the expected
signs and sizes (work_c new at about +50, work_d gone at about -25 with self 0, work_a about -25,
work_b about 0), ordered by the size of the change; the text table has a Delta column; and where
perf diff works, its Delta for each function agrees with ours (it prints NEW minus OLD, the same
sense).

usage: test_diff.py PERFTOP DIFF_WORK"""
import os
import re
import subprocess
import sys

from replaylib import fail, perf_record, run_perftop, snapshots, tmpdir

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
if c.get("diff") != "new" or c["base_self"] != 0 or not 40 < c["delta"] < 60:
    fail(f"work_c should be new at about +50: {c}")
if dd.get("diff") != "gone" or dd["self"] != 0 or not -32 < dd["delta"] < -18:
    fail(f"work_d should be gone at about -25 with self 0: {dd}")
if "diff" in a or not -32 < a["delta"] < -18:
    fail(f"work_a should be on both sides at about -25: {a}")
if "diff" in b or abs(b["delta"]) > 7:
    fail(f"work_b should barely change: {b}")
mags = [abs(r["delta"]) for r in rows]
if any(x < y - 1e-9 for x, y in zip(mags, mags[1:])):
    fail(f"rows are not ordered by the size of the change: {mags[:8]}")
if [r["sym"] for r in rows[:1]] != ["work_c"]:
    fail(f"the biggest change (work_c) should come first: {[r['sym'] for r in rows[:4]]}")

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
    print(f"perf diff gave nothing to compare (rc {q.returncode}); checked against the mix only")
else:
    for name in ("work_a", "work_b"):
        base, delta = ref[name]
        r = by[name]
        if abs(base - r["base_self"]) > 1.0 or abs(delta - r["delta"]) > 1.0:
            fail(f"{name}: perf diff says baseline {base} delta {delta:+.2f}, "
                 f"perftop {r['base_self']:.2f} {r['delta']:+.2f}")
    print("perf diff agrees on work_a and work_b:", {k: ref[k] for k in ("work_a", "work_b")})
print("ok")
