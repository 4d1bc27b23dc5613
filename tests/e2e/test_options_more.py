#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Options no other test checks the effect of, live, each against a reference from the machine.
  - --call-graph fp spelled out: the session's own recording (-o) read by perf report
    --children has the callers (main, __libc_start_call_main at about 100% Children, no Self), and
    perftop's Total% of every caller row (Total% of 5 or more, Self% under 1) is perf report's
    Children% on that same recording within its binomial error, both ways: each such caller of
    perf report is a perftop row and each of perftop's is in perf report;
  - -g (frame pointers, their first frames from CFI): its recording's attr has the user registers
    and 256 bytes of stack, and the spinner's own caller rows (spinner_main_loop, main, whose
    samples in the vdso's clock_gettime a plain frame-pointer walk gives to main's caller) are those
    of perf report --children on a perf record --call-graph dwarf of the same program;
  - --python-rate HZ: the Python reader reads the one Python thread HZ times a second: the reads
    perftop counts (PERFTOP_PY_STATS) over the Python program's own run time are HZ times it within
    4 Poisson sigmas (and 0.2 s of reads for the interpreter's start and exit), at 20 and at 100 Hz
    (by default it reads at 100 Hz or more, so 20 Hz is the option's doing);
  - --diff BASE, live: BASE is a perf record of diff_work with the mix a:b:d = 2:1:1, the live run
    a:b:c = 1:1:2 (recorded with -o). Every row's base_self is perf report's Self% on BASE (0.5
    points), its self (the -z windows weighted by their samples) is perf report's Self% on the live
    recording within binomial error, delta = self - base_self, work_c is new, work_d gone (self 0),
    and the rows of each snapshot are ordered by the size of the change.
usage: test_options_more.py PERFTOP FIXTURE_DIR"""
import atexit
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

from e2elib import fail, need_perf_events, passed, perftop_path, run_json  # noqa: F401
from perfprobe import need_tool

need_tool("perf")
pt = perftop_path()
fixtures = sys.argv[2]
spinner = os.path.join(fixtures, "spinner")
diff_work = os.path.join(fixtures, "diff_work")
d = tempfile.mkdtemp(prefix="perftop-options-")
atexit.register(shutil.rmtree, d, True)  # also when a check fails
checks = 0


def check(cond, msg):
    global checks
    if not cond:
        fail(msg)
    checks += 1


def perf_report(path, children):
    """{sym: (children%, self%)} of perf report on path (children == self without --children)."""
    q = subprocess.run(["perf", "report", "-i", path, "--stdio", "-q",
                        "--children" if children else "--no-children", "-g", "none", "--sort",
                        "sym", "--percent-limit", "0"], capture_output=True, text=True, timeout=300)
    if q.returncode != 0:
        fail(f"perf report -i {path}: {q.stderr.strip()[:300]}")
    out = {}
    for line in q.stdout.splitlines():
        if children:
            m = re.match(r"\s*([\d.]+)%\s+([\d.]+)%\s+\[[.k]\]\s+(\S+)", line)
            if m:
                c, s = out.get(m.group(3), (0.0, 0.0))
                out[m.group(3)] = (c + float(m.group(1)), s + float(m.group(2)))
        else:
            m = re.match(r"\s*([\d.]+)%\s+\[[.k]\]\s+(\S+)", line)
            if m:
                c, s = out.get(m.group(2), (0.0, 0.0))
                out[m.group(2)] = (c + float(m.group(1)), s + float(m.group(1)))
    return out


def weighted(snaps, field):
    """{sym: field's % over the -z windows, each weighted by its samples}, and the samples."""
    total = sum(s["samples"] for s in snaps)
    out = {}
    for s in snaps:
        for r in s["rows"]:
            out[r["sym"]] = out.get(r["sym"], 0.0) + r[field] * s["samples"]
    return {k: v / total for k, v in out.items()} if total else {}, total


def tolerance(p, n):
    """Points of disagreement allowed at a share of p% over n samples: 4 binomial sigmas, and half
    a point for the rounding of perf report's two decimals and the session's last partial record."""
    q = min(max(p / 100.0, 0.0), 1.0)
    return 400.0 * math.sqrt(q * (1 - q) / max(n, 1)) + 0.5


# --- --call-graph fp, and -g (--call-graph fp+cfi) ---
for spelled in (["--call-graph", "fp"],):
    name = " ".join(spelled)
    rec = os.path.join(d, "cg.data")
    snaps, _ = run_json(spelled + ["-e", "cpu-clock", "-z", "-d", "1", "-o", rec, "--",
                                   spinner, "3"])
    mine, n = weighted(snaps, "total")
    mine_self, _ = weighted(snaps, "self")
    ref = perf_report(rec, True)
    check(n >= 500, f"{name}: only {n} samples")
    check(ref.get("main", (0, 0))[0] >= 90, f"{name}: perf report finds no callers in the "
          f"recording (main {ref.get('main')}): the kernel was not asked for call chains")
    ref_callers = {s for s, (c, sf) in ref.items() if c >= 5 and sf < 1}
    mine_callers = {s for s, t in mine.items() if t >= 5 and mine_self.get(s, 0) < 1}
    check("main" in mine_callers, f"{name}: main is no caller row in perftop: "
          f"{sorted(mine.items(), key=lambda kv: -kv[1])[:6]}")
    for s in ref_callers | mine_callers:
        want, got = ref.get(s, (0.0, 0.0))[0], mine.get(s, 0.0)
        check(abs(want - got) <= tolerance(want, n),
              f"{name}: {s}: perftop Total {got:.2f}%, perf report Children {want:.2f}% on the "
              f"same recording ({n} samples)")
    print(f"ok: {name}: callers {sorted(ref_callers | mine_callers)} as perf report --children "
          f"({n} samples)")
    os.unlink(rec)


def dwarf_reference(secs):
    """{sym: (children%, self%)} of the spinner binary's own functions in perf report --children of
    a perf record --call-graph dwarf of spinner, and its samples."""
    rec = os.path.join(d, "dwarf.data")
    q = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "--call-graph", "dwarf", "-o",
                        rec, "--", spinner, str(secs)], capture_output=True, text=True, timeout=120)
    if q.returncode != 0:
        fail(f"perf record --call-graph dwarf: {q.stderr.strip()[:300]}")
    q = subprocess.run(["perf", "report", "-i", rec, "--stdio", "-q", "--children", "-g", "none",
                        "--sort", "dso,sym", "--percent-limit", "0"], capture_output=True, text=True,
                       timeout=300)
    out = {}
    for line in q.stdout.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(\S+)", line)
        if m and m.group(3) == "spinner":
            c, sf = out.get(m.group(4), (0.0, 0.0))
            out[m.group(4)] = (c + float(m.group(1)), sf + float(m.group(2)))
    q = subprocess.run(["perf", "script", "-i", rec, "-F", "tid"], capture_output=True, text=True,
                       timeout=300)
    os.unlink(rec)
    return out, max(1, sum(1 for l in q.stdout.splitlines() if l.strip()))


# -g: frame pointers whose first frames come from CFI. The recording says so (the user registers
# BP, SP, IP and 256 bytes of stack beside the callchain, whose user part stays); and where the
# spinner's own functions call what has no frame pointer (the vdso's clock_gettime and libc's), the
# callers the kernel's walk skips are there: the spinner's caller rows are those of perf report on a
# --call-graph dwarf recording of the same program (another run: twice the variance), both ways.
rec = os.path.join(d, "g.data")
snaps, _ = run_json(["-g", "-e", "cpu-clock", "-z", "-d", "1", "-s", "dso,sym", "-o", rec, "--",
                     spinner, "2"])
ev = subprocess.run(["perf", "evlist", "-v", "-i", rec], capture_output=True, text=True,
                    timeout=60).stdout
check(re.search(r"sample_type: [^,]*REGS_USER\|STACK_USER", ev) and "sample_regs_user: 0x1c0" in ev
      and "sample_stack_user: 256" in ev and "exclude_callchain_user" not in ev,
      f"-g: the recording's attr is {ev.strip()[:400]}, want the callchain with the user registers "
      f"0x1c0 and 256 bytes of user stack")
total = sum(s["samples"] for s in snaps)
mine, mine_self = {}, {}
for s in snaps:
    for r in s["rows"]:
        if r["dso"] == "spinner":
            mine[r["sym"]] = mine.get(r["sym"], 0.0) + r["total"] * s["samples"] / total
            mine_self[r["sym"]] = mine_self.get(r["sym"], 0.0) + r["self"] * s["samples"] / total
ref, nref = dwarf_reference(2)
# The functions of spinner.c (not the C runtime's _start: below libc's frames without frame pointers
# a frame-pointer chain ends, as perf report -g's does).
OWN = ("main", "spinner_main_loop", "spinner_late_thread", "spinner_work", "seconds_now")
ref_callers = {f for f, (c, sf) in ref.items() if c >= 5 and sf < 1 and f in OWN}
mine_callers = {f for f, t in mine.items() if t >= 5 and mine_self.get(f, 0) < 1 and f in OWN}
check("spinner_main_loop" in ref_callers, f"-g: perf's DWARF reference lacks spinner_main_loop: {ref}")
for f in ref_callers | mine_callers:
    want, got = ref.get(f, (0.0, 0.0))[0], mine.get(f, 0.0)
    check(abs(want - got) <= math.sqrt(2) * tolerance(want, min(total, nref)),
          f"-g: {f}: perftop Total {got:.2f}%, perf report Children {want:.2f}% of a --call-graph "
          f"dwarf recording ({total} and {nref} samples)")
print(f"ok: -g: the attr has the registers and 256 bytes of stack; the spinner's callers "
      f"{sorted(ref_callers | mine_callers)} as perf report --children of a DWARF recording")
os.unlink(rec)

# --- --python-rate ---
python = shutil.which("python3")
if not python:
    fail("no python3 on PATH (the test itself runs under one)")
busy = ("import time\nt=time.time()\ndef f():\n    return sum(i*i for i in range(10000))\n"
        "while time.time()-t<4: f()\nprint('ran', time.time()-t, flush=True)\n")
for hz in (20, 100):
    need_perf_events("task")
    env = dict(os.environ, PERFTOP_PY_STATS="1")
    p = subprocess.run([pt, "-b", "-q", "-d", "1", "-n", "0", "-e", "cpu-clock", "--python-rate",
                        str(hz), "--", python, "-c", busy], capture_output=True, text=True,
                       timeout=120, env=env)
    m = re.search(r"ran ([\d.]+)", p.stdout)
    st = re.search(r"python: (\d+) samples, (\d+) with Python frames.*watcher (\d+) reads",
                   p.stderr)
    check(p.returncode == 0 and m and st, f"--python-rate {hz}: exit {p.returncode}, "
          f"stdout {p.stdout[-200:]!r}, stderr {p.stderr[-400:]!r}")
    ran, reads, with_py = float(m.group(1)), int(st.group(3)), int(st.group(2))
    check(with_py > 0, f"--python-rate {hz}: no sample got Python frames: {st.group(0)}")
    rate = reads / ran
    # The reads are a clock's ticks at random intervals of mean 1/HZ: their count over the run is
    # within 4 Poisson sigmas of HZ * run, plus HZ * 0.2 s for the interpreter's start and exit
    # around the program's own clock.
    want = hz * ran
    check(abs(reads - want) <= 4 * math.sqrt(want) + hz * 0.2,
          f"--python-rate {hz}: {reads} reads over the program's {ran:.2f} s = {rate:.1f} a "
          f"second (want {want:.0f} +- {4 * math.sqrt(want) + hz * 0.2:.0f})")
    print(f"ok: --python-rate {hz}: {reads} reads in {ran:.2f} s ({rate:.1f}/s)")

# --- --diff BASE, live ---
base = os.path.join(d, "base.data")
q = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "999", "-o", base, "--",
                    diff_work, "2", "2", "1", "0", "1"], capture_output=True, text=True, timeout=120)
check(q.returncode == 0, f"perf record of the base: {q.stderr.strip()[:300]}")
live = os.path.join(d, "live.data")
snaps, _ = run_json(["--diff", base, "-e", "cpu-clock", "-z", "-d", "1", "-o", live, "--",
                     diff_work, "3", "1", "1", "2", "0"])
ref_base = {k: v[1] for k, v in perf_report(base, False).items()}
ref_live = {k: v[1] for k, v in perf_report(live, False).items()}
check("work_c" not in ref_base and "work_d" not in ref_live,
      f"the recordings lack the mixes asked for: base {ref_base}, live {ref_live}")
mine, n = weighted(snaps, "self")
for s in snaps:
    for r in s["rows"]:
        check("delta" in r and "base_self" in r, f"a row without delta/base_self: {r}")
        check(abs(r["self"] - r["base_self"] - r["delta"]) <= 1e-3, f"delta is not self - base: {r}")
        want = ref_base.get(r["sym"], 0.0)
        check(abs(r["base_self"] - want) <= 0.5, f"{r['sym']}: base_self {r['base_self']:.2f}, "
              f"perf report on BASE {want:.2f}")
    mags = [abs(r["delta"]) for r in s["rows"]]
    check(all(x >= y - 1e-9 for x, y in zip(mags, mags[1:])),
          f"window at {s['time']}: rows not ordered by the size of the change: {mags[:8]}")
last = {r["sym"]: r for r in snaps[-2 if len(snaps) > 1 else -1]["rows"]}
for name in ("work_a", "work_b", "work_c", "work_d"):
    check(name in last, f"no row for {name} in a full window: {sorted(last)[:10]}")
check(last["work_c"].get("diff") == "new" and last["work_c"]["base_self"] == 0,
      f"work_c should be new: {last['work_c']}")
check(last["work_d"].get("diff") == "gone" and last["work_d"]["self"] == 0,
      f"work_d should be gone: {last['work_d']}")
for name in ("work_a", "work_b", "work_c"):
    want, got = ref_live.get(name, 0.0), mine.get(name, 0.0)
    check(abs(want - got) <= tolerance(want, n), f"{name}: live self {got:.2f}%, perf report on "
          f"the session's recording {want:.2f}% ({n} samples)")
print("ok: --diff live:", {k: (round(last[k]["base_self"], 2), round(mine.get(k, 0), 2))
                           for k in ("work_a", "work_b", "work_c", "work_d")})
passed(checks)
