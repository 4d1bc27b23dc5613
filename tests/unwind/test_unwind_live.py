# SPDX-License-Identifier: GPL-2.0-or-later
"""Live --call-graph dwarf: perftop -b --json on the C chain main -> top -> mid -> leaf built
-O2 -fomit-frame-pointer. Frame pointers cannot see past leaf; DWARF unwinding must give mid and top a
Total% of at least 90, report the share unwound to the root ("unwound") in the JSON, and do the same
under ASan+UBSan (perftop_asan: the accessors read stack copies of a live process). The control,
--call-graph fp (frame pointers only), must profile leaf and not reach mid or top, or the fixture
tests nothing."""
import subprocess
import sys

from replaylib import fail, need_perf_events, snapshots

perftop, perftop_asan, chain = sys.argv[1], sys.argv[2], sys.argv[3]


def run(binary, extra=()):
    need_perf_events("task", "dwarf")
    # Two windows of 1 s: the checks are of the fullest, a whole second of samples (as with three,
    # one more of which only gave the maximum one more window to be taken from).
    p = subprocess.run([binary, "--call-graph", "dwarf", "-b", "-n", "2", "-d", "1", "--json"] +
                       list(extra) + ["--", chain, "4"], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail(f"{binary} exited {p.returncode}: {p.stderr.strip()[:500]}")
    snaps = snapshots(p, binary)
    if not snaps:
        fail(f"{binary}: no snapshot; stderr {p.stderr.strip()[:300]}")
    return snaps, p.stderr


def check(binary, what):
    snaps, err = run(binary)
    # The last full window (the run may end in a short one as the chain exits).
    best = max(snaps, key=lambda s: s.get("samples", 0))
    tot = {r["sym"]: r["total"] for r in best["rows"]}
    for f in ("leaf", "mid", "top", "main"):
        if tot.get(f, 0) < 90:
            fail(f"{what}: {f} Total% {tot.get(f, 0):.1f} < 90; top rows: "
                 f"{sorted(tot.items(), key=lambda kv: -kv[1])[:12]}")
    if "unwound" not in best or best["unwound"] < 90:
        fail(f"{what}: unwound share {best.get('unwound')} (want >= 90)")
    if "ERROR: AddressSanitizer" in err or "runtime error" in err:
        fail(f"{what}: sanitizer report: {err[:800]}")
    print(f"{what}: mid {tot['mid']:.1f}% top {tot['top']:.1f}% main {tot['main']:.1f}% "
          f"unwound {best['unwound']}% ({best['samples']} samples)")


check(perftop, "perftop")
check(perftop_asan, "perftop_asan")
# Frame pointers alone (the control): the chain is built without them, so the frame-pointer walk
# from leaf's samples cannot reach mid or top. Were it to reach them, the DWARF check above would
# pass with an unwinder that fell back to frame pointers: the fixture would test nothing. The
# control's own run must still see the workload (leaf's samples).
p = subprocess.run([perftop, "--call-graph", "fp", "-b", "-n", "2", "-d", "1", "--json", "--",
                    chain, "2"],
                   capture_output=True, text=True, timeout=60)
if p.returncode != 0:
    fail(f"frame pointers only: {perftop} exited {p.returncode}: {p.stderr.strip()[:500]}")
rows = snapshots(p, "frame pointers only")
if not rows:
    fail(f"frame pointers only: no snapshot; stderr {p.stderr.strip()[:300]}")
best = max(rows, key=lambda s: s.get("samples", 0))
tot = {r["sym"]: r["total"] for r in best["rows"]}
print(f"frame pointers only: leaf {tot.get('leaf', 0):.1f}% mid {tot.get('mid', 0):.1f}% "
      f"top {tot.get('top', 0):.1f}% ({best['samples']} samples)")
if tot.get("leaf", 0) < 90:
    fail(f"frame pointers only: leaf Total% {tot.get('leaf', 0):.1f} < 90: the control did not "
         f"profile the chain; top rows: {sorted(tot.items(), key=lambda kv: -kv[1])[:12]}")
for f in ("mid", "top"):
    if tot.get(f, 0) >= 10:
        fail(f"frame pointers only: {f} Total% {tot[f]:.1f} >= 10: the frame-pointer walk reaches "
             f"the callers of a chain built without frame pointers (are they DWARF-unwound?)")
print("ok")
