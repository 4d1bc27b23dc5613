#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""LBR call stacks (perf record --call-graph lbr): the user part of each sample's chain is in its
branch stack (PERF_SAMPLE_BRANCH_STACK, branch_sample_type USER|CALL_STACK, innermost call first),
the callchain holds the kernel part and at most the user IP (with frame-pointer guesses after it).

replay: the test writes such recordings itself (perf.data's file format, struct by struct: header,
one attr, COMM and MMAP2 of lbr_work, a kernel MMAP and build-ids as perf record writes them, then
samples), for lbr_work, a fixture built by the suite's cmake that is never run: its call sites are
found by the test's own decode of the binary (objdump -d), and each sample's branch entries are
real ones (from = the call instruction in the caller, to = the callee's entry). Chains of four
depths, with different numbers of samples, and one set in the kernel (a syscall from leaf); the
callchain's user part holds the IP off by a precise event's skid and an address in no mapping, which
both tools must ignore. Each file is checked against

  - the fixture's own structure: perf report --children's Total of every function of the fixture is
    the share of the samples whose chain passes through it (so perf 6.1 did build LBR chains), and
    perftop's Total of every function of the chains, the kernel's included, too (perf 6.1's
    --children names the kernel part of an LBR chain as [unknown] user addresses);
  - perf report --children -g none --sort dso,sym on the same file, through lib/perfcompare.py:
    Self and Total of every row, both ways (each frame of the chains within 1 point and more);
  - perftop's folded export: each sample's stack is its chain, each function once (a leaf whose
    chain starts at its entry is not shown twice) and no frame below main.

with HW_INDEX in branch_sample_type (a u64 hw_idx before the entries, as perf 5.7+ records) and
without it (older perf). A third file is the same samples as a frame-pointer recording of a precise
event: the callchain's first user address is the IP's skid, and the chain ends in the 0 some kernels
leave after the outermost frame; the folded export must show each function once and no 0 frame.

live-works / live-refused: perftop --call-graph lbr on lbr_work. The kernel's verdict on LBR call
stacks (perf_probe lbr: cycles with branch_sample_type USER|CALL_STACK) picks the part that runs;
the other exits 77. Where the kernel refuses them, perftop exits non-zero with one line naming LBR
and the alternatives; where it opens them, perftop's profile of lbr_work has main above leaf.

usage: test_replay_lbr.py PERFTOP LBR_WORK replay|live-works|live-refused"""
import os
import re
import struct
import subprocess
import sys

from replaylib import check, fail, replay_json, report_section, run_perftop, skip, tmpdir

sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from perfprobe import hw_verdict, need_perf_events, need_tool  # noqa: E402

if len(sys.argv) != 4 or sys.argv[3] not in ("replay", "live-works", "live-refused"):
    sys.exit("usage: test_replay_lbr.py PERFTOP LBR_WORK replay|live-works|live-refused")
perftop, work, mode = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
WORK = os.path.basename(work)

# <linux/perf_event.h>
S_IP, S_TID, S_TIME, S_CALLCHAIN, S_PERIOD, S_BRANCH_STACK = 1, 2, 4, 32, 256, 2048
B_USER, B_CALL_STACK, B_NO_FLAGS, B_NO_CYCLES, B_HW_INDEX = 1, 1 << 11, 1 << 14, 1 << 15, 1 << 17
CONTEXT_KERNEL, CONTEXT_USER = 2**64 - 128, 2**64 - 512
REC_MMAP, REC_COMM, REC_SAMPLE, REC_MMAP2 = 1, 3, 9, 10
MISC_KERNEL, MISC_USER, MISC_BUILD_ID_SIZE = 1, 2, 1 << 15
FEAT_BUILD_ID = 2
PID = 4242
BASE = 0x555555554000   # where a PIE is loaded (the kernel's default without ASLR)


# ---- the fixture, decoded by the test -----------------------------------------------------------
def elf_layout(path):
    """(load base, (start, len, pgoff) of the executable segment, build-id bytes) of an ELF64 file,
    from its program headers."""
    with open(path, "rb") as f:
        b = f.read()
    if b[:4] != b"\x7fELF" or b[4] != 2:
        fail(f"{path}: not an ELF64 file")
    e_type = struct.unpack_from("<H", b, 16)[0]
    phoff, = struct.unpack_from("<Q", b, 32)
    phentsize, phnum = struct.unpack_from("<HH", b, 54)
    base = BASE if e_type == 3 else 0
    text, bid = None, None
    for i in range(phnum):
        p_type, p_flags, off, vaddr, _, filesz, memsz, _ = struct.unpack_from(
            "<IIQQQQQQ", b, phoff + i * phentsize)
        if p_type == 1 and p_flags & 1 and text is None:
            start = vaddr & ~0xfff
            end = (vaddr + memsz + 0xfff) & ~0xfff
            text = (base + start, end - start, off & ~0xfff)
        if p_type == 4:   # PT_NOTE: namesz, descsz, type, name, desc (4-aligned)
            q = off
            while q + 12 <= off + filesz:
                namesz, descsz, ntype = struct.unpack_from("<III", b, q)
                name = b[q + 12:q + 12 + namesz]
                desc_at = q + 12 + ((namesz + 3) & ~3)
                if ntype == 3 and name == b"GNU\0":
                    bid = b[desc_at:desc_at + descsz]
                q = desc_at + ((descsz + 3) & ~3)
    if text is None:
        fail(f"{path}: no executable PT_LOAD")
    return base, text, bid


def decode(path):
    """objdump -d of the fixture: {function: [instruction addresses]} and the call sites
    [(caller, address of the call, callee)]."""
    need_tool("objdump", "to decode the fixture's call sites")
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], capture_output=True,
                         text=True, timeout=60).stdout
    funcs, calls, cur = {}, [], None
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
        if m:
            cur = m.group(2)
            funcs[cur] = []
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if m and cur is not None:
            a = int(m.group(1), 16)
            funcs[cur].append(a)
            t = re.match(r"[0-9a-f]+ <([^>+]+)>$", m.group(3).strip())
            if m.group(2).startswith("call") and t:
                calls.append((cur, a, t.group(1)))
    return funcs, calls


# ---- the kernel's side (a syscall's chain), as perf record would write it ----------------------
def kernel_build_id():
    """This kernel's build-id from /sys/kernel/notes (an ELF note list), or None."""
    try:
        with open("/sys/kernel/notes", "rb") as f:
            b = f.read()
    except OSError:
        return None
    q = 0
    while q + 12 <= len(b):
        namesz, descsz, ntype = struct.unpack_from("<III", b, q)
        desc_at = q + 12 + ((namesz + 3) & ~3)
        if ntype == 3 and b[q + 12:q + 12 + namesz] == b"GNU\0":
            return b[desc_at:desc_at + descsz]
        q = desc_at + ((descsz + 3) & ~3)
    return None


def kernel_functions(n):
    """_text and n kernel text functions with an address of their own (no alias, 64 bytes or more
    to the next symbol) from /proc/kallsyms, or None when its addresses are hidden."""
    syms = []
    try:
        with open("/proc/kallsyms") as f:
            for line in f:
                p = line.split()
                if len(p) >= 3 and len(p) < 4 and p[1] in "Tt":
                    syms.append((int(p[0], 16), p[2]))
    except OSError:
        return None
    text = next((a for a, s in syms if s == "_text"), 0)
    if not text:
        return None
    syms.sort()
    out = []
    for i in range(1, len(syms) - 1):
        a, s = syms[i]
        if (syms[i - 1][0] < a and syms[i + 1][0] >= a + 64 and a > text and
                re.fullmatch(r"[a-z][a-z0-9_]+", s) and s.startswith(("ksys_", "do_sys", "vfs_"))):
            out.append((a, s))
    return (text, out[:n]) if len(out) >= n else None


# ---- perf.data, written field by field ---------------------------------------------------------
def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def record(rtype, misc, body):
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def sample_id(pid, tid, time):
    return struct.pack("<IIQ", pid, tid, time)   # TID, TIME (sample_id_all)


def attr_bytes(sample_type, branch_type, exclude_callchain_user=False):
    """perf_event_attr (128 bytes): cycles at 4000 Hz, the side-band on, sample_id_all."""
    bits = (1 << 0) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 13) | (1 << 18) | (1 << 23) | (1 << 24)
    if exclude_callchain_user:
        bits |= 1 << 22
    a = struct.pack("<IIQQQQQIIQQQQIiQIHHIIQ", 0, 128, 0, 4000, sample_type, 0, bits, 0, 0, 0, 0,
                    branch_type, 0, 0, 0, 0, 0, 127, 0, 0, 0, 0)
    assert len(a) == 128
    return a


def perf_data(path, sample_type, branch_type, samples, mmaps, build_ids):
    """Writes perf.data: header, the attr (no ids), the data (COMM, MMAPs, samples, in time order),
    and the BUILD_ID feature. samples: dicts of ip, misc, callchain, branches [(from, to)], time."""
    data = bytearray()
    data += record(REC_COMM, 0x2000, struct.pack("<II", PID, PID) + pad8(WORK[:15].encode() + b"\0")
                   + sample_id(PID, PID, 1))
    for m in mmaps:
        data += m
    for s in samples:
        body = struct.pack("<QIIQQ", s["ip"], PID, PID, s["time"], 1000001)
        if sample_type & S_CALLCHAIN:
            body += struct.pack(f"<Q{len(s['callchain'])}Q", len(s["callchain"]), *s["callchain"])
        if sample_type & S_BRANCH_STACK:
            body += struct.pack("<Q", len(s["branches"]))
            if branch_type & B_HW_INDEX:
                body += struct.pack("<Q", 31)
            for frm, to in s["branches"]:
                body += struct.pack("<QQQ", frm, to, 0)
        data += record(REC_SAMPLE, s["misc"], body)
    feat = bytearray()
    for misc, pid, bid, name in build_ids:
        fn = name.encode() + b"\0"
        fn += b"\0" * (-len(fn) % 64)
        feat += struct.pack("<IHHi", 0, misc | MISC_BUILD_ID_SIZE, 8 + 4 + 24 + len(fn), pid)
        feat += bid[:20].ljust(20, b"\0") + struct.pack("<BBH", len(bid[:20]), 0, 0) + fn
    attr = attr_bytes(sample_type, branch_type)
    attrs_off = 104
    data_off = attrs_off + len(attr) + 16
    feat_table = data_off + len(data)
    feat_off = feat_table + 16
    header = struct.pack("<8sQQQQQQQQ4Q", b"PERFILE2", 104, len(attr) + 16, attrs_off,
                         len(attr) + 16, data_off, len(data), 0, 0, 1 << FEAT_BUILD_ID, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(header + attr + struct.pack("<QQ", 0, 0) + data +
                struct.pack("<QQ", feat_off, len(feat)) + feat)


FIXTURE = ("main", "alpha", "beta", "gamma_", "leaf")


def build_recordings(d):
    base, (tstart, tlen, tpgoff), bid = elf_layout(work)
    funcs, calls = decode(work)
    need = list(FIXTURE)
    missing = [f for f in need if f not in funcs]
    if missing:
        fail(f"objdump finds no {missing} in {work}")
    site = {}
    for caller, at, callee in calls:
        site.setdefault((caller, callee), base + at)
    entry = {f: base + funcs[f][0] for f in need}

    def inside(f):
        """An instruction of f other than its first: where a sample falls."""
        ins = funcs[f]
        return base + ins[len(ins) // 2]

    def next_insn(addr):
        for ins in funcs.values():
            for i, a in enumerate(ins[:-1]):
                if base + a == addr:
                    return base + ins[i + 1]
        fail(f"no instruction after {addr:#x}")

    def branches(path):
        """The LBR call stack of a chain [innermost, ..., main]: innermost call first."""
        out = []
        for callee, caller in zip(path, path[1:]):
            if (caller, callee) not in site:
                fail(f"objdump finds no call from {caller} to {callee} in {work}")
            out.append((site[(caller, callee)], entry[callee]))
        return out

    kernel = kernel_functions(2)
    kbid = kernel_build_id()
    # chains (innermost first) and how many samples each: Totals differ for every function
    chains = [(["leaf", "beta", "alpha", "main"], 70), (["leaf", "gamma_", "main"], 40),
              (["beta", "alpha", "main"], 30), (["gamma_", "main"], 20), (["alpha", "main"], 10)]
    kchain = (["leaf", "gamma_", "main"], 30)
    if kernel is None or kbid is None:
        print("note: no kernel chain in the files (kallsyms' addresses or the kernel's build-id "
              "are not readable here)")
    samples, fp_samples, expect = [], [], {}
    t = 1000
    for path, n in chains + ([kchain] if kernel and kbid else []):
        kern = path is kchain[0]
        for i in range(n):
            t += 1000
            ip = inside(path[0])
            br = branches(path)
            skid = next_insn(ip)
            # the callchain's user part: the IP off by a skid, then a frame-pointer guess in no
            # mapping (what the kernel's walk finds where there are no frame pointers)
            user = [CONTEXT_USER, skid, 0x1234500 + 8 * i]
            s = {"time": t, "branches": br}
            if kern:
                kaddrs = [a + 16 for a, _ in kernel[1]]
                s.update(ip=kaddrs[0], misc=MISC_KERNEL, callchain=[CONTEXT_KERNEL] + kaddrs + user)
                key = tuple(reversed([n for _, n in kernel[1]] + path))
            else:
                s.update(ip=ip, misc=MISC_USER, callchain=user)
                key = tuple(reversed(path))
            samples.append(s)
            expect[key] = expect.get(key, 0) + 1
            # the same sample, frame pointers of a precise event: the chain's first user address
            # is the skid, the return addresses follow, and the walk ends in a 0
            rets = [next_insn(frm) for frm, _ in br]
            fs = dict(s, callchain=(s["callchain"][:1 + len(kernel[1])] if kern else []) +
                      [CONTEXT_USER, skid] + rets + [0])
            fp_samples.append(fs)
    mmaps = [record(REC_MMAP2, MISC_USER,
                    struct.pack("<IIQQQIIQQII", PID, PID, tstart, tlen, tpgoff, 8, 1, 12345, 0, 5, 2)
                    + pad8(work.encode() + b"\0") + sample_id(PID, PID, 2))]
    build_ids = []
    if bid:
        build_ids.append((MISC_USER, PID, bid, work))
    if kernel and kbid:
        text = kernel[0]
        mmaps.insert(0, record(REC_MMAP, MISC_KERNEL,
                               struct.pack("<IIQQQ", 2**32 - 1, 0, text, 2**64 - 1 - text, text) +
                               pad8(b"[kernel.kallsyms]_text\0") + sample_id(2**32 - 1, 0, 0)))
        build_ids.append((MISC_KERNEL, -1, kbid, "[kernel.kallsyms]"))
    files = {}
    lbr = S_IP | S_TID | S_TIME | S_CALLCHAIN | S_PERIOD | S_BRANCH_STACK
    for name, btype in (("hw_index", B_USER | B_CALL_STACK | B_NO_FLAGS | B_NO_CYCLES | B_HW_INDEX),
                        ("no_hw_index", B_USER | B_CALL_STACK | B_NO_FLAGS | B_NO_CYCLES)):
        files[name] = os.path.join(d, f"lbr-{name}.data")
        perf_data(files[name], lbr, btype, samples, mmaps, build_ids)
    files["fp_skid"] = os.path.join(d, "fp-skid.data")
    perf_data(files["fp_skid"], lbr & ~S_BRANCH_STACK, 0, fp_samples, mmaps, build_ids)
    return files, expect


def structural_totals(expect):
    """Each function's share of the samples (percent) whose chain passes through it."""
    total = sum(expect.values())
    tot = {}
    for chain, n in expect.items():
        for f in set(chain):
            tot[f] = tot.get(f, 0) + n
    return {f: 100.0 * n / total for f, n in tot.items()}


def folded(path, d, name):
    out = os.path.join(d, name + ".folded")
    p = run_perftop(perftop, ["-i", path, "-b", "--json", "--export", out])
    if p.returncode != 0:
        fail(f"perftop -i {path} --export {out} exited {p.returncode}: {p.stderr.strip()}")
    stacks = {}
    with open(out) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            frames = tuple(stack.split(";")[1:])   # the first is the comm
            stacks[frames] = stacks.get(frames, 0) + int(count)
    return stacks


def replay():
    need_tool("perf")
    # LBR_KEEP_DIR: where to leave the files, to look at them by hand
    d = os.environ.get("LBR_KEEP_DIR") or tmpdir("perftop-lbr-")
    files, expect = build_recordings(d)
    want = structural_totals(expect)
    checks = 0
    for name, path in files.items():
        sec = report_section(path, True)
        ref = {k[1]: tot for k, _, tot, _ in sec.rows}
        # perf itself must have built the chains the file holds (LBR ones, or the fp ones), on
        # the fixture's functions (perf 6.1's --children makes [unknown] user rows of the kernel
        # part of an LBR chain: perfcompare's EXPLAINED says so; perftop's kernel rows are held to
        # the chains below)
        for f, share in want.items():
            if f not in FIXTURE:
                continue
            if abs(ref.get(f, 0.0) - share) > 0.01 + 1e-9 + 0.005:
                fail(f"{name}: perf report --children gives {f} {ref.get(f, 0.0):.2f}% Total, the "
                     f"file's chains {share:.2f}%: perf did not read the chains the test wrote")
        snaps, _ = replay_json(perftop, path)
        ours = {r["sym"]: r["total"] for r in snaps[-1]["rows"]}
        for f, share in want.items():
            if abs(ours.get(f, 0.0) - share) > 1.0:
                fail(f"{name}: perftop gives {f} {ours.get(f, 0.0):.2f}% Total, perf report and the "
                     f"chains {share:.2f}%")
        print(f"{name}: Total of " + ", ".join(f"{f} {ours.get(f, 0.0):.2f}%" for f in sorted(want))
              + " as the chains' (and perf report's for " + ", ".join(FIXTURE) + ")")
        checks += 1
        for key in ("self", "total"):
            check(f"{name} {key}", snaps[-1], report_section(path, key == "total"), key,
                  contexts=() if name.startswith("fp") else ("lbr",))
            checks += 1
        # the stacks themselves: the chains, each function once, nothing under main
        stacks = folded(path, d, name)
        if set(stacks) != set(expect):
            extra = sorted(set(stacks) - set(expect))[:3]
            lost = sorted(set(expect) - set(stacks))[:3]
            fail(f"{name}: perftop's stacks are not the file's chains: not in the file {extra}, "
                 f"missing {lost}")
        tot_ours, tot_want = sum(stacks.values()), sum(expect.values())
        for k, n in expect.items():
            if abs(stacks[k] / tot_ours - n / tot_want) > 0.005:
                fail(f"{name}: stack {';'.join(k)}: {stacks[k]} of {tot_ours} in perftop's export, "
                     f"{n} of {tot_want} samples in the file")
        print(f"{name}: {len(stacks)} stacks, each the file's chain in its share")
        checks += 1
    print(f"{checks} passed, 0 failed")


def live(want_opens):
    need_perf_events("task")
    opens, why, errno_name = hw_verdict("lbr")
    print(f"kernel: {why}")
    if want_opens and not opens:
        skip(f"live --call-graph lbr works: not on this machine: {why}")
    if not want_opens and opens:
        skip(f"live --call-graph lbr refused: the kernel opens it here ({why}); 'live-works' tests it")
    # the default event: cycles where the CPU has a PMU (what the probe opened), else cpu-clock
    args = [perftop, "-b", "--json", "-n", "0", "-d", "0.5", "--call-graph", "lbr",
            "--", work, "300000000"]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    err = p.stderr.strip()
    if not want_opens:
        lines = [l for l in err.splitlines() if l.strip()]
        if p.returncode == 0 or len(lines) != 1:
            fail(f"{' '.join(args)}: want a non-zero exit and one line on stderr (the kernel refuses "
                 f"LBR call stacks: {errno_name}), got exit {p.returncode}, stderr {err!r}")
        # it is the kernel's refusal of the event perftop opened (not an option's error): the
        # line names that event, LBR, and what to use instead
        if not re.search(r"'(cycles|cpu-clock)'", err) or "LBR" not in err or \
                "--call-graph fp" not in err or "--call-graph dwarf" not in err:
            fail(f"{' '.join(args)}: the error {err!r} does not name the event refused, LBR and the "
                 f"alternatives (--call-graph fp, --call-graph dwarf)")
        print(f"ok: exit {p.returncode}: {err}")
        print("1 passed, 0 failed")
        return
    if p.returncode != 0:
        fail(f"{' '.join(args)} exited {p.returncode} though the kernel opens LBR call stacks: {err}")
    snaps = [s for s in __import__("replaylib").snapshots(p) if s.get("rows")]
    if not snaps:
        fail(f"{' '.join(args)}: no snapshot with rows")
    rows = {r["sym"]: r for r in snaps[-1]["rows"]}
    if "leaf" not in rows or "main" not in rows or rows["main"]["total"] < rows["leaf"]["total"]:
        fail(f"live --call-graph lbr: want main's Total at least leaf's: "
             f"{[(r['sym'], r['total']) for r in snaps[-1]['rows'][:8]]}")
    print(f"live --call-graph lbr: main {rows['main']['total']:.1f}% Total, leaf "
          f"{rows['leaf']['total']:.1f}%")
    print("1 passed, 0 failed")


if mode == "replay":
    replay()
else:
    live(mode == "live-works")
