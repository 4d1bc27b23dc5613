#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Recordings laid out as other perf versions and machines write them, made from one recording of
this machine: perftop must replay each to the same profile as the recording it was made from.

One `perf record -g` is made here (diff_work and dd under sh: user code in a fixture, kernel time
in dd's reads of /dev/urandom, forks, execs and exits). The test then rewrites its bytes (the
perf.data format as /usr/include/linux/perf_event.h and perf's file header define it) into:

  - attr sizes of older and newer perf: PERF_ATTR_SIZE_VER0 (64 bytes) to VER8 (136: config3,
    perf 6.3 and later; perf 6.1 writes VER7, 128), each attr cut or zero-extended and its size
    field and the header's attr_size saying so; only sizes that keep every field the sample layout
    needs (branch_sample_type, the user registers, the stack size) are made;
  - sample_id_all off, as perf before 2.6.38 and kernels without it wrote: the sample_id trailer
    stripped from every non-sample kernel record, the attr's bit cleared;
  - PERF_SAMPLE_IDENTIFIER: the sample's event id as the first u64 of each sample and the last of
    each trailer, the bit set in sample_type (what perf writes with several events);
  - a hybrid Intel CPU's event names in EVENT_DESC: the sampled event is `cpu_core/cycles/`
    (PERF_TYPE_HARDWARE with the core PMU's type in config's upper half), with a second attr,
    `cpu_atom/cycles/`, that has ids but no sample;
  - a file from another kernel: the kernel's build-id in the BUILD_ID feature changed. perftop
    must not name its kernel addresses from this machine's kallsyms (they show as addresses, as
    perf report shows them), and with `--kallsyms FILE` (a copy of /proc/kallsyms written here)
    names them from that file, as perf report --kallsyms does;
  - the pipe form of each (`perf record -o -`'s layout: a 16-byte header, then HEADER_ATTR,
    HEADER_FEATURE and HEADER_BUILD_ID records before the data).

For each rewritten file:
  - perftop -i F -b --json gives the profile of the original file (every row's Self and Total
    equal to its printed precision, the same sample count), but where the rewrite changes what
    must be shown (event names, another kernel's addresses);
  - perf report reads it back to the profile perf report gives for the original (the rewrite
    checked by an independent reader), and perftop agrees with perf report on it through
    tests/lib/perfcompare.py; where perf 6.1 cannot read a file (attrs larger than its own 128
    bytes), the test says so, and checks that perf 6.1 refuses it for that reason.

usage: test_replay_layouts.py PERFTOP FIXTURE_DIR"""
import concurrent.futures
import os
import shutil
import struct
import subprocess
import sys
from replaylib import (check, compare, fail, kinds_for, need_perf_events, need_tool, perf_report,
                       perf_reports, replay_json, tmpdir)

perftop, fixtures = sys.argv[1], sys.argv[2]
diff_work = os.path.join(fixtures, "diff_work")

from perfdata_rw import *  # noqa: F401,F403  (the format: perfdata_rw.py)

def build_id_entries(feature):
    """The BUILD_ID feature's entries: [(offset, size)] of each perf_record_header_build_id."""
    out, p = [], 0
    while p + 8 <= len(feature):
        size = u16(feature, p + 6)
        if size < 36 or p + size > len(feature):
            fail(f"a BUILD_ID entry of size {size} at {p} of {len(feature)} bytes")
        out.append((p, size))
        p += size
    return out


def write_pipe(rec, path):
    """perf record -o -'s layout: the pipe header, a HEADER_ATTR record per attr (the attr, then
    its ids), HEADER_FEATURE records (EVENT_DESC: the names), and each build-id as a
    HEADER_BUILD_ID record (the kernel's among them, so that it is known before the first
    sample, as perf inject -b writes them), then the data's records."""
    out = [struct.pack("<8sQ", MAGIC, PIPE_HEADER_SIZE)]
    for a, ids in rec.attrs:
        body = bytes(a) + struct.pack(f"<{len(ids)}Q", *ids)
        out.append(struct.pack("<IHH", HEADER_ATTR, 0, 8 + len(body)) + body)
    for bit in sorted(rec.features):
        if bit == FEAT_EVENT_DESC:
            body = struct.pack("<Q", bit) + rec.features[bit]
            out.append(struct.pack("<IHH", HEADER_FEATURE, 0, 8 + len(body)) + body)
    feat = rec.features.get(FEAT_BUILD_ID, b"")
    for p, size in build_id_entries(feat):
        out.append(struct.pack("<I", HEADER_BUILD_ID) + feat[p + 4:p + size])
    out += rec.records
    with open(path, "wb") as f:
        f.write(b"".join(out))
    return path


# ---- EVENT_DESC: u32 nr, u32 attr size, then per event: attr, u32 nr_ids, string, ids ----------
def perf_string(s):
    raw = s.encode() + b"\0"
    n = -(-len(raw) // NAME_ALIGN) * NAME_ALIGN
    return struct.pack("<I", n) + raw.ljust(n, b"\0")


def event_desc_read(b):
    nr, asz = u32(b, 0), u32(b, 4)
    p, out = 8, []
    for _ in range(nr):
        a = bytearray(b[p:p + asz])
        p += asz
        nids, slen = u32(b, p), u32(b, p + 4)
        name = b[p + 8:p + 8 + slen].split(b"\0")[0].decode()
        p += 8 + slen
        out.append((a, name, list(struct.unpack_from(f"<{nids}Q", b, p))))
        p += 8 * nids
    return out


def event_desc_write(events):
    asz = len(events[0][0])
    out = struct.pack("<II", len(events), asz)
    for a, name, ids in events:
        out += bytes(a) + struct.pack("<I", len(ids)) + perf_string(name) + \
            struct.pack(f"<{len(ids)}Q", *ids)
    return out


def attr_resized(a, size):
    """An attr cut or zero-extended to size bytes, its size field saying so."""
    st = u64(a, A_SAMPLE_TYPE)
    for bit, end in LAYOUT_FIELDS.items():
        if st & bit and size < end:
            fail(f"attr size {size} would drop a field the samples' layout needs (ends at {end})")
    out = bytearray(a[:size]).ljust(size, b"\0")
    struct.pack_into("<I", out, A_SIZE, size)
    return out


def each_attr(rec, fn):
    """fn(attr) -> new attr, on the file's attrs and on EVENT_DESC's copies of them."""
    rec.attrs = [(fn(a), ids) for a, ids in rec.attrs]
    if FEAT_EVENT_DESC in rec.features:
        rec.features[FEAT_EVENT_DESC] = event_desc_write(
            [(fn(a), name, ids) for a, name, ids in event_desc_read(rec.features[FEAT_EVENT_DESC])])


# ---- the rewrites --------------------------------------------------------------------------------
def with_attr_size(orig, size):
    rec = orig.copy()
    each_attr(rec, lambda a: attr_resized(a, size))
    return rec


def without_sample_id_all(orig):
    rec = orig.copy()
    cut = trailer_size(rec.sample_type())
    if not rec.sample_id_all() or not cut:
        fail("the recording has no sample_id trailers to strip")

    def clear(a):
        a = bytearray(a)
        struct.pack_into("<Q", a, A_FLAGS, u64(a, A_FLAGS) & ~FLAG_SAMPLE_ID_ALL)
        return a
    each_attr(rec, clear)
    out = []
    for r in rec.records:
        t = u32(r, 0)
        if t != REC_SAMPLE and t < USER_TYPES:
            r = bytearray(r[:len(r) - cut])
            struct.pack_into("<H", r, 6, len(r))
        out.append(bytes(r))
    rec.records = out
    return rec


def with_identifier(orig):
    """The sample's id first in each sample, last in each trailer. The original samples carry no
    id (one event): each gets its event's first id."""
    rec = orig.copy()
    st = rec.sample_type()
    if st & S_IDENTIFIER:
        fail("the recording has PERF_SAMPLE_IDENTIFIER already")
    ident = rec.attrs[0][1][0]

    def setbit(a):
        a = bytearray(a)
        struct.pack_into("<Q", a, A_SAMPLE_TYPE, u64(a, A_SAMPLE_TYPE) | S_IDENTIFIER)
        return a
    each_attr(rec, setbit)
    trailers = rec.sample_id_all()
    out = []
    for r in rec.records:
        t = u32(r, 0)
        if t == REC_SAMPLE:
            r = r[:8] + struct.pack("<Q", ident) + r[8:]
        elif t < USER_TYPES and trailers:
            r = r + struct.pack("<Q", ident)
        else:
            out.append(r)
            continue
        r = bytearray(r)
        struct.pack_into("<H", r, 6, len(r))
        out.append(bytes(r))
    rec.records = out
    return rec


def hybrid(orig):
    """cpu_core/cycles/ for the sampled event, and a silent cpu_atom/cycles/ beside it (samples
    carry IDENTIFIER: with two events, perf requires ids in them)."""
    rec = with_identifier(orig)
    core, ids = rec.attrs[0]
    core = bytearray(core)
    struct.pack_into("<I", core, A_TYPE, PERF_TYPE_HARDWARE)
    struct.pack_into("<Q", core, A_CONFIG, HYBRID_CORE_PMU << 32)   # PERF_COUNT_HW_CPU_CYCLES
    atom = bytearray(core)
    struct.pack_into("<Q", atom, A_CONFIG, HYBRID_ATOM_PMU << 32)
    atom_ids = [i + (1 << 40) for i in ids]
    rec.attrs = [(core, ids), (atom, atom_ids)]
    rec.features[FEAT_EVENT_DESC] = event_desc_write(
        [(core, "cpu_core/cycles/", ids), (atom, "cpu_atom/cycles/", atom_ids)])
    return rec


def other_kernel(orig):
    """The kernel's build-id in the BUILD_ID feature, changed: another kernel's recording."""
    rec = orig.copy()
    feat = bytearray(rec.features.get(FEAT_BUILD_ID, b""))
    changed = 0
    for p, size in build_id_entries(feat):
        name = feat[p + 36:p + size].split(b"\0")[0]
        if name == b"[kernel.kallsyms]":
            n = feat[p + 8 + 4 + 20] if u16(feat, p + 4) & MISC_BUILD_ID_SIZE else 20
            for i in range(n):
                feat[p + 12 + i] ^= 0x5a
            changed += 1
    if changed != 1:
        fail(f"the recording's BUILD_ID feature has {changed} kernel entries, want one")
    rec.features[FEAT_BUILD_ID] = bytes(feat)
    return rec


# ---- comparisons ---------------------------------------------------------------------------------
def rows_of(snap):
    return {(r.get("dso"), r.get("sym")): (float(r.get("self", 0)), float(r.get("total", 0)))
            for r in snap.get("rows", [])}


def kernel_row(key):
    return key[0] == "[kernel.kallsyms]"


# Without sample_id_all, no record but a sample has a time: perf report reads such a file
# unordered, in file order, and so does perftop. A process's samples that perf wrote (from one
# CPU's buffer) before its exec's COMM and MMAPs or the FORK that made it (from another's) are
# then named in the maps it had at that point of the file, by both. The reference for such a file
# is perf report on it; its distance from the original is said, its sample count held.
UNORDERED = {"no-sample-id-all"}


def same_profile(what, snap, ref, kernel_as=None, unordered=False):
    """snap's rows are ref's, Self and Total equal to perftop's printed precision (4 decimals),
    and its sample count (unordered: the count only, the rows said). kernel_as: 'addresses' when
    ref's kernel rows must be there as addresses instead (summed: one name may hold several
    addresses)."""
    problems, rows = [], []
    if snap.get("samples") != ref.get("samples"):
        problems.append(f"{snap.get('samples')} samples, the original {ref.get('samples')}")
    ours, theirs = rows_of(snap), rows_of(ref)
    if kernel_as == "addresses":
        named = [k for k in ours if kernel_row(k) and not k[1].startswith("0x")]
        if named:
            problems.append(f"kernel rows named from this machine's kallsyms: {named[:4]}")
        ks = sum(v[0] for k, v in ours.items() if kernel_row(k))
        kr = sum(v[0] for k, v in theirs.items() if kernel_row(k))
        # each row printed to 4 decimals: half a unit of rounding per row summed
        if abs(ks - kr) > 0.00005 * sum(1 for k in list(ours) + list(theirs) if kernel_row(k)):
            problems.append(f"kernel Self {ks:.4f}%, the original's {kr:.4f}%")
        ours = {k: v for k, v in ours.items() if not kernel_row(k)}
        theirs = {k: v for k, v in theirs.items() if not kernel_row(k)}
    for k in sorted(set(ours) | set(theirs), key=lambda k: -max(ours.get(k, (0,))[0],
                                                                 theirs.get(k, (0,))[0])):
        a, b = ours.get(k, (0.0, 0.0)), theirs.get(k, (0.0, 0.0))
        if k not in ours or k not in theirs:
            rows.append(f"{k} ({max(a[0], b[0]):.2f}%) only in "
                        f"{'the original' if k not in ours else 'the rewrite'}")
        elif abs(a[0] - b[0]) > 0.0001 or abs(a[1] - b[1]) > 0.0001:
            rows.append(f"{k}: self/total {a} where the original has {b}")
    if problems or (rows and not unordered):
        fail(f"{what}: not the original's profile: " + "; ".join((problems + rows)[:6]))
    if unordered:
        print(f"{what}: the original's {snap.get('samples')} samples; read unordered, "
              f"{len(rows)} rows differ from the original's{': ' if rows else ''}"
              f"{'; '.join(rows[:3])}")
        return
    print(f"{what}: the original's profile ({snap.get('samples')} samples, {len(ours)} rows"
          f"{', kernel rows as addresses' if kernel_as else ''})")


def same_report(what, sec, ref, unordered=False):
    """perf report's section of a rewrite is its section of the original (unordered: its sample
    count): the rewrite read back by an independent reader."""
    if sec.samples != ref.samples:
        fail(f"{what}: perf report reads {sec.samples} samples, {ref.samples} in the original")
    diff = []
    for col in (1, 2):   # Self, and Total in a --children report
        a = {r[0]: r[col] for r in sec.rows if r[col] is not None}
        b = {r[0]: r[col] for r in ref.rows if r[col] is not None}
        diff += [k for k in set(a) | set(b) if abs(a.get(k, -1) - b.get(k, -1)) > 0.005]
    if diff and not unordered:
        fail(f"{what}: perf report's rows differ from its rows of the original: "
             f"{sorted(set(diff))[:5]}")


def perf_evlist(path):
    """perf 6.1's reading of a file's attrs: (True, [a line per event]), or (False, its reason)."""
    p = subprocess.run(["perf", "--debug", "verbose=1", "evlist", "-v", "-i", path],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return False, " / ".join(l for l in p.stderr.splitlines() if l.strip())[:300]
    return True, [l for l in p.stdout.splitlines() if l.strip()]


def check_evlist(name, lines, want, unwanted):
    """perf evlist -v reads the rewritten attrs as the rewrite meant them."""
    for w in want:
        if isinstance(w, tuple):   # (line number, text it starts with)
            ok = len(lines) > w[0] and lines[w[0]].startswith(w[1])
        else:
            ok = all(w in l for l in lines)
        if not ok:
            fail(f"{name}: perf evlist -v does not read {w!r} in the rewritten attrs: {lines}")
    for u in unwanted:
        if any(u in l for l in lines):
            fail(f"{name}: perf evlist -v still reads {u!r} in the rewritten attrs: {lines}")


def section(secs, path, want=None):
    if want is not None:
        if want not in secs:
            fail(f"perf report -i {path}: no section of {want!r} (sections: {sorted(secs)})")
        return secs[want]
    if len(secs) != 1:
        fail(f"perf report -i {path}: {len(secs)} events ({sorted(secs)}), want one")
    return next(iter(secs.values()))


# ---- the recording -------------------------------------------------------------------------------
def record_with_build_ids(out, cmd):
    """perf record -g, with the build-ids of the binaries hit in its BUILD_ID feature (the kernel's
    among them: the other kernel's file is made from it), none added to ~/.debug (-N)."""
    args = ["-g", "-F", "999"]
    need_tool("perf")
    need_perf_events(*kinds_for(args))
    full = ["perf", "record", "-q", "-N"] + args + ["-o", out, "--"] + cmd
    p = subprocess.run(full, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       timeout=120)
    if p.returncode != 0:
        fail(f"{' '.join(full)} exited {p.returncode}: {p.stderr.strip()[:300]}")


d = tmpdir("perftop-layouts-")
orig_path = os.path.join(d, "orig.data")
record_with_build_ids(orig_path,
                      ["sh", "-c", f"{diff_work} 1 1 2 3 4 & dd if=/dev/urandom of=/dev/null "
                                   "bs=64k count=2000 2>/dev/null; wait"])
orig = read_file(orig_path)
st = orig.sample_type()
if st & (S_ID | S_IDENTIFIER) or len(orig.attrs) != 1 or not orig.sample_id_all():
    fail(f"perf record wrote {len(orig.attrs)} attrs, sample_type {st:#x}, sample_id_all "
         f"{orig.sample_id_all()}: not the one-event layout this test starts from")
kallsyms = os.path.join(d, "kallsyms")
shutil.copyfile("/proc/kallsyms", kallsyms)

# name -> (Recording, what perftop shows differently: None, 'hybrid', 'kernel', what perf evlist
# -v must read in each attr, what it must not)
variants = {}
for ver, size in sorted(ATTR_SIZES.items()):
    if size != len(orig.attrs[0][0]) and all(
            not (st & bit) or size >= end for bit, end in LAYOUT_FIELDS.items()):
        variants[f"attr-ver{ver}-{size}"] = (with_attr_size(orig, size), None, [f" size: {size},"],
                                             [])
variants["no-sample-id-all"] = (without_sample_id_all(orig), None, [], ["sample_id_all"])
variants["identifier"] = (with_identifier(orig), None, ["|IDENTIFIER", "sample_id_all: 1"], [])
variants["hybrid"] = (hybrid(orig), "hybrid", ["|IDENTIFIER", (0, "cpu_core/cycles/: "),
                                               (1, "cpu_atom/cycles/: ")], [])
variants["other-kernel"] = (other_kernel(orig), "kernel", [], [])

files = {}
for name, (rec, how, _, _) in variants.items():
    files[name] = (write_file(rec, os.path.join(d, name + ".data")), how, False)
    files[name + " pipe"] = (write_pipe(rec, os.path.join(d, name + ".pipe.data")), how, True)

# perf report on everything at once (two at a time: the machine's two CPUs)
pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)
readable = {n: pool.submit(perf_evlist, f) for n, (f, _, pipe) in files.items() if not pipe}
readable = {n: fut.result() for n, fut in readable.items()}
for name, (ok, lines) in readable.items():
    if ok:
        check_evlist(name, lines, variants[name][2], variants[name][3])
# {False: perf report --no-children, True: --children} of each file: one perf report --children
# gives both (perfcompare.self_of), but on a pipe-mode file, on which perf 6.1 shows no --children
def self_only(path, **kw):
    return {False: perf_report(path, False, **kw)}


jobs = {"orig": pool.submit(perf_reports, orig_path)}
for name, (path, how, pipe) in files.items():
    if not pipe and not readable[name][0]:
        continue
    jobs[name] = pool.submit(self_only if pipe else perf_reports, path)
    if how == "kernel":
        jobs[name + " --kallsyms"] = pool.submit(self_only, path, extra=["--kallsyms", kallsyms])

orig_snaps, _ = replay_json(perftop, orig_path)
if len(orig_snaps) != 1:
    fail(f"perftop -i {orig_path}: {len(orig_snaps)} snapshots, want one")
orig_snap = orig_snaps[0]
if not any(kernel_row(k) and not k[1].startswith("0x") for k in rows_of(orig_snap)):
    fail("the original recording's replay names no kernel function: nothing to check the "
         "other kernel's file on")
ref_self = section(jobs["orig"].result()[False], orig_path)
ref_total = section(jobs["orig"].result()[True], orig_path)
check("original", orig_snap, ref_self, "self")

def check_variant(name, path, how, pipe):
    snaps, _ = replay_json(perftop, path)
    want = "cpu_core/cycles/" if how == "hybrid" else None
    if want:
        events = {s.get("event"): s for s in snaps}
        if want not in events:
            fail(f"{name}: perftop names no event {want!r} (its events: {sorted(events)})")
        if events.get("cpu_atom/cycles/", {}).get("samples"):
            fail(f"{name}: samples given to the silent cpu_atom/cycles/")
        snap = events[want]
    else:
        if len(snaps) != 1:
            fail(f"{name}: {len(snaps)} snapshots, want one")
        snap = snaps[0]
        if snap.get("event") != orig_snap.get("event"):
            fail(f"{name}: event {snap.get('event')!r}, the original's {orig_snap.get('event')!r}")
    unordered = name.replace(" pipe", "") in UNORDERED
    same_profile(name, snap, orig_snap, "addresses" if how == "kernel" else None, unordered)
    if how == "kernel":
        named, _ = replay_json(perftop, path, ["--kallsyms", kallsyms])
        same_profile(name + " --kallsyms", named[0], orig_snap)
    if not pipe and not readable[name][0]:
        size = len(variants[name][0].attrs[0][0])
        why = readable[name][1]
        if size <= PERF_61_ATTR_SIZE or "more recent and unsupported ABI" not in why:
            fail(f"{name}: perf 6.1 cannot read it: {why}")
        print(f"{name}: perf 6.1 cannot read it (attrs of {size} bytes, its own are "
              f"{PERF_61_ATTR_SIZE}: {why!r}); checked against the original only")
        return
    sec = section(jobs[name].result()[False], path, want)
    if how != "kernel":
        same_report(name + ": perf report", sec, ref_self, unordered)
    if unordered and pipe:
        # perf 6.1 reads a stream without sample_id_all otherwise than the same records in a
        # file: it orders the stream's samples by time, its side-band as read. perftop reads
        # both forms alike, in file order: the reference is perf's reading of the file form.
        ok, text = compare(snap, sec, "self")
        print(f"{name}: perf report's own reading of the stream: {text}")
        sec = section(jobs[name.replace(' pipe', '')].result()[False], path, want)
        name += " (perf report of the file form)"
    check(name, snap, sec, "self")
    if not pipe:
        tot = section(jobs[name].result()[True], path, want)
        if how != "kernel":
            same_report(name + ": perf report --children", tot, ref_total, unordered)
        check(name + " (children)", snap, tot, "total")
    if how == "kernel":
        sec = section(jobs[name + " --kallsyms"].result()[False], path)
        same_report(name + ": perf report --kallsyms", sec, ref_self)
        check(name + " --kallsyms", named[0], sec, "self")


# Every file is checked, and every failure said, before the test fails.
failed = []
for name, (path, how, pipe) in files.items():
    try:
        check_variant(name, path, how, pipe)
    except SystemExit as e:
        if e.code != 0:
            failed.append(name)
pool.shutdown()
if failed:
    fail(f"{len(failed)} of {len(files)} rewritten files: {', '.join(failed)}")
print(f"{len(files)} rewritten files replayed to the original's profile")
