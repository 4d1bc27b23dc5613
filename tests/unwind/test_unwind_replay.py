# SPDX-License-Identifier: GPL-2.0-or-later
"""Replayed --call-graph dwarf.

1. perf record --call-graph dwarf of a Python loop (Debian's /usr/bin/python3, called by its path so
   that no shell shim runs first), replayed by perftop -i: Total% and Self% of every row against
   perf report's as tests/lib/perfcompare.py holds them, and the
   share of samples unwound to the root at least perf's on the same file (from perf script: samples
   whose stack reaches __libc_start_call_main, _start or a thread start).
2. perftop's own recording (-o with --call-graph dwarf) of the C chain carries the registers and the
   stack: perf report unwinds it (mid and top Total% >= 90), and so does perftop -i.
"""
import os
import re
import subprocess
import sys

from replaylib import (check, fail, need_perf_events, perf_record, replay_json, report_section,
                       report_sections, tmpdir)

perftop, chain = sys.argv[1], sys.argv[3]
d = tmpdir()
py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"
data = perf_record(["--call-graph", "dwarf", "-F", "999"], os.path.join(d, "py.data"),
                   [py, "-c", "import time\nt=time.time()\n"
                    "while time.time()-t<3: sum(i*i for i in range(100000))"])

snaps, _ = replay_json(perftop, data)
snap = snaps[-1]
refs = report_sections(data)  # Self and Total from one perf report (perfcompare.self_of)
check("dwarf python", snap, refs[True], "total", contexts=("dwarf",))
check("dwarf python", snap, refs[False], "self")

# The cached-CFI fast path must give libunwind's chain for every sample it takes (libunwind walks
# each one again under PERFTOP_UNWIND=check and the differences are counted on stderr).
p = subprocess.run([perftop, "-i", data, "-b", "--json"], capture_output=True, text=True, timeout=300,
                   env=dict(os.environ, PERFTOP_UNWIND="check"))
m = re.search(r"unwind check: (\d+) samples by both paths, (\d+) differ; (\d+) left", p.stderr)
if not m or int(m.group(1)) == 0 or int(m.group(2)) != 0:
    fail(f"fast unwinding vs libunwind: {m.group(0) if m else p.stderr.strip()[-300:]}")
print(m.group(0))

ROOTS = ("__libc_start_call_main", "_start", "start_thread", "clone3", "__clone3", "clone", "__clone")
p = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"], capture_output=True, text=True,
                   timeout=300)
blocks = [b for b in p.stdout.split("\n\n") if b.strip()]


def perf_rooted(block):
    return any(re.search(r"\s%s(\s|$)" % re.escape(r), block) for r in ROOTS)


rooted = sum(1 for b in blocks if perf_rooted(b))
perf_share = 100.0 * rooted / max(1, len(blocks))
ours = snap.get("unwound")
# perftop does not guess a caller from RBP where no CFI describes the code (_init, _dl_start_user):
# such a chain ends at "[no unwind info: DSO]" and is not counted as unwound, where perf's guess
# may reach a root; those samples are the only ones perftop may have short of perf's
no_info = sum(float(r.get("total", 0)) for r in snap["rows"]
              if str(r.get("sym", "")).startswith("[no unwind info"))
print(f"unwound to the root: perftop {ours}% (+{no_info:.2f}% ended where no CFI describes the "
      f"code), perf {perf_share:.1f}% ({len(blocks)} samples)")
if ours is None or ours + no_info + 0.05 < perf_share:
    # The recording goes with the temporary directory: print what each side left short of a root,
    # so that the log alone says which samples differ.
    folded = os.path.join(d, "py.folded")
    subprocess.run([perftop, "-i", data, "-b", "--export", folded], capture_output=True, timeout=300)
    if os.path.exists(folded):
        for line in open(folded):
            stack, n = line.rstrip("\n").rsplit(" ", 1)
            if not any(r in stack.split(";") for r in ROOTS):
                print(f"perftop, short of a root ({n} samples): {stack[:600]}")
    for b in blocks:
        if not perf_rooted(b):
            print("perf, short of a root:", " <- ".join(x.strip() for x in b.strip().split("\n"))[:600])
    fail(f"perftop unwound {ours}% of the samples to the root (and {no_info:.2f}% ended at code "
         f"without CFI), perf {perf_share:.1f}%")

# perftop's own recording, read by perf report and by perftop.
rec = os.path.join(d, "own.data")
need_perf_events("task", "dwarf")
p = subprocess.run([perftop, "--call-graph", "dwarf", "-b", "-n", "2", "-d", "1", "--json", "-o", rec,
                    "--", chain, "2.5"], capture_output=True, text=True, timeout=120)
if p.returncode != 0:
    fail(f"perftop -o exited {p.returncode}: {p.stderr.strip()[:300]}")
rep = report_section(rec, True)
tot = {}
for (dso, sym), _, total, _ in rep.rows:
    tot[sym] = max(tot.get(sym, 0), total)
for f in ("mid", "top"):
    if tot.get(f, 0) < 90:
        fail(f"perf report on perftop's dwarf recording: {f} Total% {tot.get(f, 0)} < 90")
snaps, _ = replay_json(perftop, rec)
ours = {r["sym"]: r["total"] for r in snaps[-1]["rows"]}
# the chain fixture: main -> top -> mid -> leaf, and the kernel's entry and clock
check("perftop -i on its own recording", snaps[-1], rep, "total", contexts=("dwarf",), min_rows=4)
print(f"own recording: perf report mid {tot['mid']:.1f}% top {tot['top']:.1f}%, "
      f"perftop -i mid {ours['mid']:.1f}% top {ours['top']:.1f}%")
print("ok")
