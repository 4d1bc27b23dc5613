# SPDX-License-Identifier: GPL-2.0-or-later
"""--call-graph dwarf on a g++ -static executable, which has .eh_frame but no .eh_frame_hdr (GCC links
static executables without --eh-frame-hdr), so the unwind tables must be found through the section
headers and searched without the header's index.

The fixture (static_cxx.cpp) runs main -> run -> Mixer::churn -> leaf and spends its time in leaf:
by its own structure, every chain through leaf has main above it, through run and Mixer::churn.
perf 6.1 loses main on such a binary, so the reference is that structure, read from the folded
stacks perftop exports, replayed from a perf record file and live:
- main;run;Mixer::churn;leaf in at least 95% of leaf's samples, and the chains reach _start;
- no garbage: no frame named by a bare address (in no mapping) in a chain of the fixture's code,
  `[unmapped address]` and the other ends of a cut chain at most 2% Total;
- replayed, Self% of every row as perf report's on the same file (the samples themselves), and
  the fast path's chains the same as libunwind's for every sample (PERFTOP_UNWIND=check), the table
  built from .eh_frame served to both.
The test first reads the fixture's ELF headers itself: no PT_GNU_EH_FRAME, an .eh_frame section.
"""
import os
import re
import struct
import subprocess
import sys

from replaylib import (check, fail, need_perf_events, perf_record, replay_json, report_section, skip,
                       snapshots, tmpdir)

perftop, fixture = sys.argv[1], sys.argv[2]
if not os.path.exists(fixture):
    skip(f"no {fixture}: g++ (and its static libraries) is needed to build it")
CHAIN = ["main", "run", "Mixer::churn", "leaf"]
PT_GNU_EH_FRAME = 0x6474E550


def elf_facts(path):
    """(has PT_GNU_EH_FRAME, has an .eh_frame section) from the ELF64 headers of path."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        fail(f"{path}: not an ELF64 file")
    phoff, shoff = struct.unpack_from("<QQ", data, 0x20)
    phentsize, phnum, shentsize, shnum, shstrndx = struct.unpack_from("<HHHHH", data, 0x36)
    hdr = any(struct.unpack_from("<I", data, phoff + i * phentsize)[0] == PT_GNU_EH_FRAME
              for i in range(phnum))
    strtab_off = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 0x18)[0]
    names = []
    for i in range(shnum):
        name = struct.unpack_from("<I", data, shoff + i * shentsize)[0]
        end = data.index(b"\0", strtab_off + name)
        names.append(data[strtab_off + name:end].decode())
    return hdr, ".eh_frame" in names


has_hdr, has_eh_frame = elf_facts(fixture)
if has_hdr:
    skip(f"{fixture} has .eh_frame_hdr: this g++ links -static with --eh-frame-hdr")
if not has_eh_frame:
    fail(f"{fixture} has no .eh_frame: the fixture cannot be unwound from CFI at all")

BARE = re.compile(r"^0x[0-9a-f]+$")
CUT = ("[unmapped address]", "[unwind failed]", "[stack copy too short]", "[too deep]")


def folded_chains(path):
    """{chain (root first, the comm dropped): samples} from a folded export."""
    out = {}
    with open(path) as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            frames = tuple(stack.split(";")[1:])
            out[frames] = out.get(frames, 0) + int(n)
    return out


def judge(what, snaps, folded):
    """The folded chains of a run and its snapshots (the fullest one's rows judged)."""
    chains = folded_chains(folded)
    snap = max(snaps, key=lambda s: s.get("samples", 0))
    # Each name's object, from every snapshot's rows: a bare address in the vdso or a binary
    # (a function without a symbol) is in a mapping; one in [unknown] is in none.
    dso_of = {r["sym"]: r["dso"] for s in snaps for r in s["rows"]}
    in_leaf = {c: n for c, n in chains.items() if "leaf" in c}
    total = sum(in_leaf.values())
    if total < 200:
        fail(f"{what}: only {total} samples in leaf; the fixture did not run as built?")
    k = len(CHAIN)
    good = sum(n for c, n in in_leaf.items()
               if any(list(c[i:i + k]) == CHAIN for i in range(len(c) - k + 1)))
    rooted = sum(n for c, n in chains.items() if c and c[0] == "_start")
    all_n = sum(chains.values())
    worst = sorted(in_leaf.items(), key=lambda kv: -kv[1])[:3]
    print(f"{what}: {good} of {total} leaf samples under {';'.join(CHAIN)} ({100.0 * good / total:.1f}%), "
          f"{rooted} of {all_n} chains from _start, unwound {snap.get('unwound')}%")
    if good < 0.95 * total:
        fail(f"{what}: {';'.join(CHAIN)} in {good} of {total} leaf samples (want 95%); "
             f"most common chains: {worst}")
    if rooted < 0.95 * all_n:
        fail(f"{what}: only {rooted} of {all_n} chains reach _start")
    # A return address unwound from the fixture's frames that is in no mapping. (A sample taken in
    # execve, before the fixture's image exists, has a user IP the recording maps nowhere: that
    # chain holds none of the fixture's functions and is no unwinding of them.)
    ours = set(CHAIN) | {"_start"}
    for c, n in chains.items():
        bare = [f for f in c if BARE.match(f) and dso_of.get(f, "[unknown]") == "[unknown]"]
        if bare and ours & set(c):
            fail(f"{what}: a garbage frame, {bare[0]} in no mapping, in {n} samples: {c}")
    cut = sum(n for c, n in chains.items()
              if any(f in CUT or f.startswith("[no unwind info") for f in c))
    if cut > 0.02 * all_n:
        fail(f"{what}: {cut} of {all_n} chains cut short ([unmapped address] and the like; want <= 2%): "
             f"{[c for c in chains if any(f in CUT or f.startswith('[no unwind') for f in c)][:3]}")
    if snap.get("unwound") is None or snap["unwound"] < 95:
        fail(f"{what}: unwound {snap.get('unwound')}% (want >= 95: every chain of the fixture "
             f"reaches _start)")


d = tmpdir()
data = perf_record(["--call-graph", "dwarf", "-F", "999"], os.path.join(d, "static.data"), [fixture, "2"])
folded = os.path.join(d, "replay.folded")
snaps, _ = replay_json(perftop, data, extra=["--export", folded])
judge("replay", snaps, folded)
check("replay", snaps[-1], report_section(data, False), "self", min_rows=1)  # leaf is the one hot row

p = subprocess.run([perftop, "-i", data, "-b", "--json"], capture_output=True, text=True, timeout=300,
                   env=dict(os.environ, PERFTOP_UNWIND="check"))
m = re.search(r"unwind check: (\d+) samples by both paths, (\d+) differ", p.stderr)
if not m or int(m.group(1)) < 200 or int(m.group(2)) != 0:
    fail(f"fast unwinding vs libunwind: {m.group(0) if m else p.stderr.strip()[-300:]}")
print(m.group(0))

need_perf_events("task", "dwarf")
folded = os.path.join(d, "live.folded")
p = subprocess.run([perftop, "--call-graph", "dwarf", "-b", "-n", "3", "-d", "1", "--json", "--export",
                    folded, "--", fixture, "2.5"], capture_output=True, text=True, timeout=120)
if p.returncode != 0:
    fail(f"perftop live exited {p.returncode}: {p.stderr.strip()[:300]}")
live = snapshots(p, "perftop live")
if not live:
    fail(f"perftop live: no snapshot; stderr {p.stderr.strip()[:300]}")
judge("live", live, folded)
print("ok")
