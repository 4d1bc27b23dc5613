# SPDX-License-Identifier: GPL-2.0-or-later
"""Live --call-graph dwarf through .debug_frame: the chain main -> top -> mid -> leaf built
-O2 -fomit-frame-pointer -g without unwind tables (tests/unwind/debugframe.c), so that its functions
have no .eh_frame entry and .debug_frame is all there is to unwind them. perftop -b --json must give
leaf, mid, top and main a Total% of at least 90 and unwind at least 90% of the samples to the root:

  1. the fixture whose rows all have the fast path's compact form (and, under PERFTOP_UNWIND=check,
     libunwind with our .debug_frame steps gives the same chain for every sample);
  2. the DRAP variant, whose main has a CFA expression: libunwind walks those samples and the
     .debug_frame frames are stepped by evaluating the DWARF rules;
  3. both with the debug info split off into a separate file found by .gnu_debuglink
     (objcopy --only-keep-debug, --strip-debug, --add-gnu-debuglink);
  4. under ASan+UBSan (perftop_asan);
and, as the control, with the debug info stripped and no debug file, mid and top are not found.
"""
import os
import re
import subprocess
import sys

from replaylib import fail, need_perf_events, need_tool, snapshots, tmpdir

perftop, perftop_asan, plain, drap = sys.argv[1:5]
FUNCS = ("leaf", "mid", "top", "main")


def tool(*args):
    p = subprocess.run(list(args), capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        fail(f"{' '.join(args)} exited {p.returncode}: {p.stderr.strip()[:300]}")
    return p.stdout


def fde_ranges(frames, section):
    """The [start, end) of each FDE of one section of readelf --debug-dump=frames, and its text."""
    parts = re.split(r"^Contents of the (\S+) section:", frames, flags=re.M)
    text = "".join(parts[i + 1] for i in range(1, len(parts) - 1, 2) if parts[i] == section)
    ranges = [(int(a, 16), int(b, 16)) for a, b in re.findall(r"FDE cie=\w+ pc=(\w+)\.\.(\w+)", text)]
    return ranges, text


def check_fixture(binary, want_expression):
    """The premise: the functions have .debug_frame rows and no .eh_frame entry."""
    syms = {}
    for line in tool("nm", binary).splitlines():
        f = line.split()
        if len(f) == 3 and f[2] in FUNCS:
            syms[f[2]] = int(f[0], 16)
    frames = tool("readelf", "--debug-dump=frames", binary)
    eh, _ = fde_ranges(frames, ".eh_frame")
    dbg, dbg_text = fde_ranges(frames, ".debug_frame")
    for f in FUNCS:
        if f not in syms:
            fail(f"{binary}: no symbol {f}")
        a = syms[f]
        if any(s <= a < e for s, e in eh):
            fail(f"{binary}: {f} has an .eh_frame entry (the fixture must have none)")
        if not any(s <= a < e for s, e in dbg):
            fail(f"{binary}: {f} has no .debug_frame entry")
    if want_expression and "DW_CFA_def_cfa_expression" not in dbg_text:
        fail(f"{binary}: no DW_CFA_def_cfa_expression in .debug_frame (gcc no longer realigns main "
             "through DRAP?)")


def run(binary, fixture, env=None):
    need_perf_events("task", "dwarf")
    # Two windows of 1 s: the checks are of the fullest, a whole second of samples (as with three,
    # one more of which only gave the maximum one more window to be taken from).
    p = subprocess.run([binary, "--call-graph", "dwarf", "-b", "-n", "2", "-d", "1", "--json", "--",
                        fixture, "4"], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, **(env or {})))
    if p.returncode != 0:
        fail(f"{binary} exited {p.returncode}: {p.stderr.strip()[:500]}")
    if "ERROR: AddressSanitizer" in p.stderr or "runtime error" in p.stderr:
        fail(f"{binary} on {fixture}: sanitizer report: {p.stderr[:800]}")
    snaps = snapshots(p)
    if not snaps:
        fail(f"{binary} on {fixture}: no snapshot; stderr {p.stderr.strip()[:300]}")
    # The fullest window (the run may end in a short one as the fixture exits).
    best = max(snaps, key=lambda s: s.get("samples", 0))
    return {r["sym"]: r["total"] for r in best["rows"]}, best, p.stderr


def check(binary, fixture, what, env=None):
    tot, best, err = run(binary, fixture, env)
    for f in FUNCS:
        if tot.get(f, 0) < 90:
            fail(f"{what}: {f} Total% {tot.get(f, 0):.1f} < 90; top rows: "
                 f"{sorted(tot.items(), key=lambda kv: -kv[1])[:12]}")
    if best.get("unwound") is None or best["unwound"] < 90:
        fail(f"{what}: unwound share {best.get('unwound')} (want >= 90)")
    print(f"{what}: leaf {tot['leaf']:.1f}% mid {tot['mid']:.1f}% top {tot['top']:.1f}% "
          f"main {tot['main']:.1f}% unwound {best['unwound']}% ({best['samples']} samples)")
    return err


def check_counts(err, what):
    m = re.search(r"unwind check: (\d+) samples by both paths, (\d+) differ; (\d+) left to libunwind; "
                  r"(\d+) frames stepped through \.debug_frame", err)
    if not m:
        fail(f"{what}: no unwind check line on stderr: {err.strip()[-300:]}")
    return [int(g) for g in m.groups()], m.group(0)


for t in ("objcopy", "readelf", "nm"):
    need_tool(t, "binutils")
check_fixture(plain, False)
check_fixture(drap, True)

d = tmpdir()
split = {}
for name, src in (("plain", plain), ("drap", drap)):
    # The debug file beside the binary, named by its .gnu_debuglink.
    base = os.path.join(d, os.path.basename(src))
    tool("objcopy", "--only-keep-debug", src, base + ".debug")
    tool("objcopy", "--strip-debug", "--add-gnu-debuglink=" + base + ".debug", src, base)
    if "debug_frame" in tool("readelf", "-SW", base):
        fail(f"{base}: .debug_frame left in the stripped binary")
    split[name] = base
nodebug = os.path.join(d, "nodebug")
tool("objcopy", "--strip-debug", plain, nodebug)

# 1. Compact rows: the fast path takes every sample, and libunwind's walk (with our .debug_frame steps)
#    of each gives the same chain.
check(perftop, plain, "compact rows")
(both, differ, left, steps), line = check_counts(
    check(perftop, plain, "compact rows, PERFTOP_UNWIND=check", {"PERFTOP_UNWIND": "check"}), "check")
print(line)
if both == 0 or differ != 0 or steps == 0:
    fail(f"compact rows: fast path against libunwind: {line}")

# 2. A CFA expression: libunwind walks the samples, .debug_frame frames are stepped by evaluation.
(both, differ, left, steps), line = check_counts(
    check(perftop, drap, "CFA expression", {"PERFTOP_UNWIND": "check"}), "drap")
print(line)
if left == 0 or steps < 3 * left:
    fail(f"CFA expression: the samples should go to libunwind and .debug_frame steps: {line}")

# 3. The debug info in a separate file.
check(perftop, split["plain"], "separate debug file")
check(perftop, split["drap"], "separate debug file, CFA expression")

# 4. ASan+UBSan: the rules' evaluation reads the stack copies and the mapped files.
check(perftop_asan, plain, "perftop_asan")
check(perftop_asan, split["drap"], "perftop_asan, separate debug file, CFA expression")

# The control: without .debug_frame nothing describes these frames, and mid and top are not found.
tot, best, _ = run(perftop, nodebug)
print(f"no debug info (control): mid {tot.get('mid', 0):.1f}% top {tot.get('top', 0):.1f}%")
if tot.get("mid", 0) >= 50 or tot.get("top", 0) >= 50:
    fail("control: mid or top found without .debug_frame: the test no longer shows the fallback")
print("ok")
