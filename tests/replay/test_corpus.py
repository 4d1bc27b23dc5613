#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""perftop's replay of recordings made by other people's perf (3.2 to 6.12) on other machines:
the perf.data files of perf_data_converter's tests (pipe and file forms, armv7, i686, branch
stacks, Intel PT, event groups, a hybrid CPU, a corrupted pipe), against perf report on the same
file. The files come without their binaries, so rows are (comm, dso).

For each file:
  - perftop -i F -b --json -s comm,dso exits 0;
  - where perf report reads the file: per event, perftop's sample count is perf report's, and
    every (comm, dso) row of 0.5% or more on either side is on the other within 0.5 points
    (tests/lib/perfcompare.py, both ways);
  - where the file holds an AUX area trace (Intel PT: AUXTRACE records, found in the file's own
    bytes), which perftop does not decode and perf report does: perftop says so in one line that
    names `perf script --itrace`, and its sample count is the file's count of SAMPLE records;
  - where perf 6.1 cannot read the file (it prints no section): the file's own bytes are the
    reference: perftop's sample count is the count of SAMPLE records before the first record
    that cannot be read.
  - where perf report finds no kallsyms or vmlinux of the recording's kernel build-id (another
    machine's kernel), for the first file of each such kernel: perftop's kernel and module rows
    by symbol are perf report's, both ways, with their sample counts: addresses (a module's as
    its offset in the module), not names from this machine's kallsyms;
  - every (comm, [...]) row (the kernel, a module, [unknown], [vdso]...) has perf report's sample
    count, however small: where kernel samples go is in these rows.
Each file's verdict is printed, one line each; the test fails if any file's does.

perf 6.1 cuts a comm to its column's width when the column was sized before a longer comm came
in ("perf-exec" shown as "perf-ex"): such a row of perf's is matched to perftop's row of the
same dso whose comm starts with it, only when exactly one of perftop's comms does.

usage: test_corpus.py PERFTOP CORPUS_DIR (PERFTOP_CORPUS_DIR in the environment overrides it)"""
import concurrent.futures
import os
import re
import struct
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from perfcompare import compare, parse_report, snapshots, sym_key, COMM_DSO_SEP  # noqa: E402

if len(sys.argv) != 3:
    sys.exit("usage: test_corpus.py PERFTOP CORPUS_DIR")
perftop, corpus = sys.argv[1:3]
corpus = os.environ.get("PERFTOP_CORPUS_DIR") or corpus   # the environment's, when it names one
folder = os.path.join(corpus, "perf_data_converter")
if not os.path.isdir(folder):
    print(f"SKIP: no {folder}: the corpus of foreign recordings is not on this machine "
          "(PERFTOP_CORPUS_DIR or cmake -DPERFTOP_CORPUS_DIR=...)")
    sys.exit(77)
files = sorted(f for f in os.listdir(folder) if f.endswith(".data"))
if not files:
    print(f"FAIL: {folder} holds no .data file")
    sys.exit(1)

POINTS = 0.5
REC_SAMPLE, REC_AUXTRACE_INFO, REC_AUXTRACE = 9, 70, 71


def file_records(path):
    """From the file's own bytes: (SAMPLE records, AUX records, the offset of the first record
    that cannot be read (a size under 8 or past the end) or None) before the end of its data."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] == b"PERFILE2":
        end = "<"
    elif data[:8] == b"2ELIFREP":
        end = ">"
    else:
        return None
    hsize = struct.unpack_from(end + "Q", data, 8)[0]
    if hsize == 16:   # a pipe: records follow the 16-byte header to the end
        pos, stop = 16, len(data)
    else:
        off, size = struct.unpack_from(end + "QQ", data, 40)
        pos, stop = off, min(off + size, len(data))
    samples = aux = 0
    bad = None
    while pos + 8 <= stop:
        rtype, _, rsize = struct.unpack_from(end + "IHH", data, pos)
        if rsize < 8 or pos + rsize > stop:
            bad = pos
            break
        if rtype == REC_SAMPLE:
            samples += 1
        elif rtype in (REC_AUXTRACE_INFO, REC_AUXTRACE):
            aux += 1
        if rtype == REC_AUXTRACE and rsize >= 16:
            pos += struct.unpack_from(end + "Q", data, pos + 8)[0]   # its trace follows it
        pos += rsize
    return samples, aux, bad


def run(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        return None, "", "timed out after 240 s (hung)"
    return p.returncode, p.stdout, p.stderr


def cut_comm(section, snaps_rows):
    """perf's rows whose comm it cut to its column's width, renamed to perftop's full comm where
    exactly one of perftop's comms of that dso starts with it."""
    ours = {k for k in snaps_rows}
    width = max((len(k[0]) for k, *_ in section.rows), default=0)
    notes, rows = [], []
    for key, self_, total, n in section.rows:
        if key not in ours and len(key[0]) == width:
            cands = [o for o in ours if o[1] == key[1] and o[0] != key[0] and o[0].startswith(key[0])]
            if len(cands) == 1:
                notes.append(f"perf's comm {key[0]!r} is perftop's {cands[0][0]!r} (cut to its column)")
                key = cands[0]
        rows.append((key, self_, total, n))
    section.rows = rows
    return notes


def check_file(name):
    """(ok, verdict line) of one file."""
    path = os.path.join(folder, name)
    rc, out, err = run([perftop, "-i", path, "-b", "--json", "-s", "comm,dso"])
    errline = " | ".join(l for l in err.splitlines() if l.strip())[:300]
    if rc != 0:
        return False, f"{name}: perftop exited {rc}: {errline}"
    snaps = {}
    for s in snapshots(out, f"perftop -i {name}"):
        snaps[s.get("event")] = s   # the last snapshot of each event covers the whole file
    ours_total = sum(s.get("samples", 0) for s in snaps.values())
    recs = file_records(path)
    if recs is None:
        return False, f"{name}: not a perf.data file by its magic"
    nsamples, naux, bad_at = recs
    if naux:
        warned = [l for l in err.splitlines() if "perf script --itrace" in l]
        if len(warned) != 1:
            return False, (f"{name}: an AUX area trace ({naux} AUX records) that perftop does not "
                           f"decode, and no one-line warning naming `perf script --itrace` "
                           f"(stderr: {errline!r})")
        if ours_total != nsamples:
            return False, (f"{name}: AUX trace: perftop counts {ours_total} samples, the file "
                           f"holds {nsamples} SAMPLE records")
        return True, (f"{name}: AUX trace not decoded, warned ({warned[0].strip()}); "
                      f"{ours_total} samples as the file's SAMPLE records; not compared with "
                      "perf report, which decodes the trace")
    rrc, rout, rerr = run(["perf", "report", "-i", path, "--stdio", "-n", "-g", "none",
                           "--percent-limit", "0", "--sort", "comm,dso", "--no-children",
                           "--no-branch-stack", "--no-group", "-t", COMM_DSO_SEP])
    sections = parse_report(rout, "comm,dso") if rrc == 0 else {}
    if not sections or "# Samples" not in rout:
        why = " | ".join(l for l in rerr.splitlines() if l.strip())[:160]
        if ours_total != nsamples:
            return False, (f"{name}: perf 6.1 cannot read it ({why}); perftop counts "
                           f"{ours_total} samples, the file's readable records hold {nsamples}")
        if bad_at is not None and f"byte {bad_at}" not in err:
            return False, (f"{name}: perf 6.1 cannot read it ({why}); its record at byte {bad_at} "
                           f"cannot be read, and perftop does not say where it stopped: {errline!r}")
        return True, (f"{name}: perf 6.1 cannot read it ({why}); perftop reads it, "
                      f"{ours_total} samples as the file's SAMPLE records" +
                      ("" if bad_at is None else f", and says it stopped at byte {bad_at}"))
    problems, texts = [], []
    for ev, sec in sections.items():
        if not sec.rows:
            continue
        snap = snaps.get(ev)
        if snap is None:
            problems.append(f"perf report shows event {ev!r}, perftop only {sorted(snaps)}")
            continue
        notes = cut_comm(sec, [r[0] for r in _rows(snap)])
        ok, text = compare(snap, sec, "self", sort="comm,dso", min_rows=1, points=POINTS)
        texts.append(f"{ev}: {text}" + ("; " + "; ".join(notes) if notes else ""))
        if not ok:
            problems.append(f"{ev}: {text}")
        bad = bracket_rows_differ(sec, snap)
        if bad:
            problems.append(f"{ev}: rows of the kernel, its modules, [unknown] and other "
                            f"[...] maps by sample count (perf report, perftop): {bad}")
        else:
            texts[-1] += (f"; {sum(1 for k, *_ in sec.rows if k[1].startswith('['))} [...] rows "
                          "of equal samples")
    for ev, s in snaps.items():
        if s.get("samples") and ev not in sections:
            problems.append(f"perftop has {s['samples']} samples of {ev!r}, perf report no such "
                            f"event ({sorted(sections)})")
    m = re.search(r"No kallsyms or vmlinux with build-id ([0-9a-f]+)", rerr)
    if m and not problems and first_of_kernel(m.group(1)):
        kernel_syms(path, texts, problems)
    if problems:
        return False, f"{name}: " + "; ".join(problems)
    return True, f"{name}: " + "; ".join(texts)


_kernels_seen, _kernels_lock = set(), threading.Lock()


def first_of_kernel(build_id):
    """Whether this is the first file of that kernel to check by symbol (one file of each kernel
    is enough for where its names come from, and keeps the test short)."""
    with _kernels_lock:
        first = build_id not in _kernels_seen
        _kernels_seen.add(build_id)
        return first


def kernel_syms(path, texts, problems):
    """A recording of a kernel that is not this machine's (perf report found no kallsyms or vmlinux
    of its build-id): perftop's kernel and module rows by symbol are perf report's, both ways, so
    addresses where perf has no names, never names from this machine's kallsyms."""
    rrc, rout, _ = run(["perf", "report", "-i", path, "--stdio", "-n", "-g", "none",
                        "--percent-limit", "0", "--sort", "dso,sym", "--no-children",
                        "--no-branch-stack", "--no-group"])
    rc, out, err = run([perftop, "-i", path, "-b", "--json", "-s", "dso,sym"])
    if rrc != 0 or rc != 0:
        problems.append(f"dso,sym: perf report exited {rrc}, perftop {rc}: {err.strip()[:200]}")
        return
    snaps = {s.get("event"): s for s in snapshots(out, f"perftop -i {path} -s dso,sym")}
    kernel = lambda d: d.startswith("[") and d not in ("[unknown]", "[vdso]") and not d.startswith("[JIT]")
    named = 0
    for ev, sec in parse_report(rout, "dso,sym").items():
        snap = snaps.get(ev)
        if snap is None or not sec.rows:
            continue
        # rows of samples only (perftop lists callers' rows too, of 0 samples)
        ref = [(k, n) for k, _, _, n in sec.rows if kernel(k[0]) and n]
        ours = [((r.get("dso", ""), sym_key(str(r.get("sym", "")))), int(r.get("samples", 0)))
                for r in snap.get("rows", []) if kernel(str(r.get("dso", ""))) and r.get("samples")]
        named += sum(1 for (d, sym), _ in ours if not sym.startswith("0x"))
        if sorted(ref) != sorted(ours):
            diff = sorted(set(ref) ^ set(ours))[:4]
            problems.append(f"{ev}: kernel rows by symbol differ from perf report's "
                            f"(row, samples; either side): {diff}")
            return
    texts.append(f"kernel rows by symbol as perf report's (another kernel: "
                 f"{named} named rows)")


def bracket_rows_differ(section, snap):
    """The (comm, [dso]) rows, of any size, whose sample counts differ between perf report and
    perftop: where the kernel's samples go (the recording's kernel, a module of its own, [unknown]
    without a kernel map) is in these rows, and a module's row is often under 0.5%."""
    ref, ours = {}, {}
    for key, _, _, n in section.rows:
        if key[1].startswith("["):
            ref[key] = ref.get(key, 0) + n
    for r in snap.get("rows", []):
        key = _rows({"rows": [r]})[0][0]
        if key[1].startswith("["):
            ours[key] = ours.get(key, 0) + int(r.get("samples", 0))
    return [(k, ref.get(k, 0), ours.get(k, 0)) for k in sorted(set(ref) | set(ours))
            if ref.get(k, 0) != ours.get(k, 0)][:6]


def _rows(snap):
    from perfcompare import snapshot_rows
    return snapshot_rows(snap, "comm,dso")


with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
    results = list(pool.map(check_file, files))
bad = 0
for ok, line in results:
    print(("ok: " if ok else "FAIL: ") + line)
    bad += not ok
if bad:
    print(f"FAIL: {bad} of {len(files)} files disagree")
    sys.exit(1)
print(f"PASS: {len(files)} files")
