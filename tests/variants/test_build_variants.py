#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Binaries built the ways the world builds them, profiled by perftop and held to perf report on the
same recording and to the program's own call structure and the binary's own symbols.

One C program (variants.c: main -> outer -> middle -> hot_leaf, memcpy through the PLT) is built
PIE and not, -static, -static-pie, -z now, -fcf-protection (.plt.sec), -flto, -gsplit-dwarf (a .dwo
beside it), -gz=zlib and -gz=zstd (compressed debug sections), DWARF 4 and 5, with its debug part in
a separate file found by .gnu_debuglink, without a build-id, and by clang; a C++ one (variants.cc:
a template and a lambda inlined into a member function), a Rust one (with and without
-C force-frame-pointers) and a Go one.

  replay: each is recorded with `perf record -g` (frame pointers; the Rust one without frame
          pointers only with DWARF) and, for the variants whose debug information or unwind tables
          differ, with `--call-graph dwarf`; perftop -i agrees with perf report (Self and Total,
          lib/perfcompare.py); its hottest function is the program's and a symbol of the binary
          (nm of the binary or its debug file), and every function of the program's chain has a
          Total of at least 90%. Where perf 6.1 is wrong (a -static binary has no .eh_frame_hdr:
          perf's DWARF unwinding loses main there) the test says so and holds perftop to the
          program's structure alone.
  live:   each is run under perftop -b --json (frame pointers, and DWARF for the same subset),
          held to the same structure and symbols.

A variant the toolchain cannot build (gcc without zstd support, no clang, no rustc, no go: asked of
the toolchain itself) is a reported part skip; the test then exits 77 unless something failed.

VARIANT names given after the mode run only those; without, every variant but those a toolchain
may lack on purpose (-gz=zstd: gcc 12 has no zstd), which are ctest tests of their own, so that their
skip shows alone.

The build is done once, at build time (mode build: every variant into OUTDIR, and OUTDIR/status.json
saying for each that it was built, or why the machine could not, or how its build failed; this mode
never fails itself). The test modes use what VARIANTS_PREBUILT names when its status.json is there
(ctest sets it), and build into their scratch directory otherwise.

usage: test_build_variants.py PERFTOP SOURCE_DIR replay|live [VARIANT...]
       test_build_variants.py - SOURCE_DIR build OUTDIR"""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from perfcompare import compare, report_sections, snapshots, sym_key  # noqa: E402
from perfprobe import fail, kinds_for, need_perf_events, need_tool  # noqa: E402

perftop, srcdir, mode = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
only = set(sys.argv[4:]) if mode != "build" else set()
if mode not in ("replay", "live", "build"):
    fail(f"mode {mode!r}: replay, live or build")
import tempfile  # noqa: E402
d = tempfile.mkdtemp(prefix="perftop-variants-")
if mode == "build":
    bindir = os.path.abspath(sys.argv[4])
    os.makedirs(bindir, exist_ok=True)
    prebuilt = None
else:
    need_tool("gcc")
    need_tool("perf")
    need_perf_events(*kinds_for(["--call-graph", "dwarf"]))
    bindir = os.environ.get("VARIANTS_PREBUILT", "")
    prebuilt = None
    if bindir and os.path.isfile(os.path.join(bindir, "status.json")):
        with open(os.path.join(bindir, "status.json")) as f:
            prebuilt = json.load(f)
    else:
        bindir = d
SECS = "0.4"  # of the program's CPU time (variants.*): as many samples on a busy machine
# Live, the variants whose live path differs from a replay's (the binary found and read while it
# runs: static, a .dwo, a debug file by debuglink, no build-id, Rust without frame pointers, Go,
# C++); the replays cover every variant.
LIVE = {"c-static", "c-static-pie", "c-split-dwarf", "c-debuglink", "c-no-buildid", "cxx",
        "rust-nofp", "go", "c-gz-zstd"}
failures, skipped, checks = [], [], 0


class Variant:
    def __init__(self, name, cmd, lang="c", dwarf=False, fp=True, debug=None, post=None,
                 optional=False):
        self.name, self.cmd, self.lang, self.dwarf, self.fp = name, cmd, lang, dwarf, fp
        self.optional = optional
        self.exe = os.path.join(bindir, name)
        self.debug = debug          # the file nm reads the symbols from (default: the binary)
        self.post = post            # a command run after the build (objcopy for debuglink)
        self.ok = False


def c(name, *flags, cc="gcc", **kw):
    return Variant(name, [cc, "-O2", "-g", "-fno-omit-frame-pointer", *flags, "-o",
                          os.path.join(bindir, name), os.path.join(srcdir, "variants.c")], **kw)


VARIANTS = [
    c("c-pie", "-pie", "-fPIE", "-gdwarf-5", dwarf=True),
    c("c-nopie", "-no-pie", "-fno-PIE"),
    c("c-static", "-static", dwarf=True),
    c("c-static-pie", "-static-pie", "-fPIE"),
    c("c-znow", "-Wl,-z,now"),
    c("c-cet", "-fcf-protection=full"),
    c("c-lto", "-flto"),
    # debug formats: what differs is the debug data perftop reads, so DWARF recordings only
    c("c-split-dwarf", "-gsplit-dwarf", dwarf=True, fp=False),
    c("c-gz-zlib", "-gz=zlib", dwarf=True, fp=False),
    c("c-gz-zstd", "-gz=zstd", dwarf=True, fp=False, optional=True),
    c("c-dwarf4", "-gdwarf-4", dwarf=True, fp=False),   # c-pie is the DWARF 5 one
    c("c-no-buildid", "-Wl,--build-id=none"),
    c("c-clang", cc="clang", dwarf=True),
    c("c-debuglink", dwarf=True, debug=os.path.join(bindir, "c-debuglink.debug"),
      post=[["objcopy", "--only-keep-debug", os.path.join(bindir, "c-debuglink"),
             os.path.join(bindir, "c-debuglink.debug")],
            ["objcopy", "--strip-debug", "--strip-unneeded",
             "--add-gnu-debuglink=" + os.path.join(bindir, "c-debuglink.debug"),
             os.path.join(bindir, "c-debuglink")]]),
    Variant("cxx", ["g++", "-O2", "-g", "-fno-omit-frame-pointer", "-o", os.path.join(bindir, "cxx"),
                    os.path.join(srcdir, "variants.cc")], lang="c++", dwarf=True),
    Variant("rust-fp", ["rustc", "-O", "-g", "-C", "force-frame-pointers=yes", "-o",
                        os.path.join(bindir, "rust-fp"), os.path.join(srcdir, "variants.rs")],
            lang="rust"),
    Variant("rust-nofp", ["rustc", "-O", "-g", "-o", os.path.join(bindir, "rust-nofp"),
                          os.path.join(srcdir, "variants.rs")], lang="rust", dwarf=True, fp=False),
    Variant("go", ["go", "build", "-o", os.path.join(bindir, "go"), os.path.join(srcdir, "variants.go")],
            lang="go"),
]
# The program's structure, by language: the hottest function by Self, the callers every sample of
# the work passes through (each must have a Total of at least 90%), and those of them a frame-pointer
# chain cannot show: the caller of a leaf that sets up no frame of its own (gcc's hot_leaf at -O2,
# even with -fno-omit-frame-pointer; Go's frameless leaves), whose return address is not where the
# frame pointer says. perf -g loses them too; DWARF unwinding shows them.
STRUCTURE = {
    "c": ("hot_leaf", ["middle", "outer", "main"], {"middle"}),
    "c++": ("shapes::Accumulator::run", ["drive", "main"], set()),
    "rust": ("variants::hot_leaf", ["variants::outer", "variants::main"], set()),
    "go": ("main.hotLeaf", ["main.outer", "main.main"], {"main.outer"}),
}
# Names a compiler gives clones and parts of a function (LTO's, IPA's): the function's own name.
CLONE = re.compile(r"(\.(constprop|isra|part|lto_priv|cold|localalias)(\.\d+)?)+$")


def build(v):
    """Builds v; a toolchain that is missing or refuses a flag is the machine's lack (a skip),
    asked of the toolchain itself; any other failure is a failure."""
    tool = v.cmd[0]
    if not shutil.which(tool):
        return f"{tool} is not installed"
    env = dict(os.environ, GOCACHE=os.path.join(bindir, "gocache"), GOPATH=os.path.join(d, "gopath"),
               GOFLAGS="-mod=mod", GO111MODULE="off")
    compress = [f for f in v.cmd if f.startswith("-gz=")]
    if compress:
        # the toolchain asked first: an empty program built with that compression
        probe = os.path.join(d, "gz-probe")
        q = subprocess.run([tool, "-g", *compress, "-x", "c", "-", "-o", probe],
                           input="int main(void) { return 0; }\n", capture_output=True, text=True)
        if q.returncode != 0:
            return f"{tool} cannot write {compress[0]} debug sections ({q.stderr.strip()[:120]})"
    p = subprocess.run(v.cmd, capture_output=True, text=True, env=env, cwd=bindir, timeout=300)
    if p.returncode != 0:
        return "FAIL " + f"{' '.join(v.cmd)}: {p.stderr.strip()[:400]}"
    for post in v.post or []:
        q = subprocess.run(post, capture_output=True, text=True, timeout=120)
        if q.returncode != 0:
            return "FAIL " + f"{' '.join(post)}: {q.stderr.strip()[:300]}"
    return None


_nm = {}  # path -> its names: a binary is read once (its fp and DWARF checks, binary = debug file)


def demangled_symbols(path):
    """The function names of path's symbol tables, demangled by binutils (nm -C: the binary's
    own symbols, read without perftop)."""
    if path in _nm:
        return _nm[path]
    p = subprocess.run(["nm", "-C", "--defined-only", path], capture_output=True, text=True)
    names = set()
    for line in p.stdout.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in "TtWi":
            names.add(CLONE.sub("", sym_key(re.sub(r"::h[0-9a-f]{16}$", "", parts[2]))))
    _nm[path] = names
    return names


def rows_by_name(snap):
    """{symbol: (self, total)} of a snapshot's rows in the program's own binary."""
    out = {}
    for r in snap.get("rows", []):
        name = sym_key(str(r.get("sym", "")))
        name = CLONE.sub("", re.sub(r"::h[0-9a-f]{16}$", "", name))
        s, t = out.get(name, (0.0, 0.0))
        out[name] = (s + float(r.get("self", 0)), max(t, float(r.get("total", 0))))
    return out


def structure(v, what, snap, unwind):
    """perftop's snapshot of v against the program's structure and the binary's symbols."""
    global checks
    hot, chain, fp_hidden = STRUCTURE[v.lang]
    if unwind == "fp":
        chain = [n for n in chain if n not in fp_hidden]
    rows = rows_by_name(snap)
    top = max(rows, key=lambda k: rows[k][0]) if rows else None
    syms = demangled_symbols(v.debug or v.exe) | demangled_symbols(v.exe)
    problems = []
    if top != hot:
        problems.append(f"the hottest Self row is {top!r} ({rows.get(top, (0, 0))[0]:.1f}%), not {hot}")
    for name in chain:
        if name not in syms and not any(s.startswith(name + "::") for s in syms):
            problems.append(f"{name} is not a symbol of the binary (nm): the reference is wrong")
        total = rows.get(name, (0.0, 0.0))[1]
        if total < 90.0:
            problems.append(f"{name} has a Total of {total:.1f}%, under 90%")
    garbage = [k for k in rows if re.fullmatch(r"0x[0-9a-f]{16}", k) and rows[k][1] >= 2.0 and
               int(k, 16) >= 1 << 47]
    if garbage:
        problems.append(f"rows at non-canonical addresses: {garbage[:3]}")
    print(f"{v.name} {what}: hottest {top}, chain Totals " +
          ", ".join(f"{n} {rows.get(n, (0, 0))[1]:.1f}%" for n in chain) +
          ("; FAILED: " + "; ".join(problems) if problems else ""))
    if problems:
        failures.append(f"{v.name} {what}: " + "; ".join(problems))
    checks += 1


def perftop_run(args, timeout=120):
    p = subprocess.run([perftop] + args, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        failures.append(f"perftop {' '.join(args)} exited {p.returncode}: {p.stderr.strip()[:300]}")
        return None
    snaps = snapshots(p.stdout, "perftop " + " ".join(args))
    return snaps[-1] if snaps else None


def perf_record(args, out, cmd):
    # --no-bpf-event: perf 6.1 otherwise joins its BPF side-band thread at the end, which sleeps in
    # a poll of 1 s (up to a second of each recording's wall time, no sample changed). The programs
    # run in user space and are held to perf report on the same file: the kernel's BPF programs
    # (that option's records) are in neither tool's rows of them.
    full = ["perf", "record", "-q", "-N", "-B", "--no-bpf-event"] + args + ["-o", out, "--"] + cmd
    p = subprocess.run(full, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        failures.append(f"{' '.join(full)} exited {p.returncode}: {p.stderr.strip()[:300]}")
        return None
    return out


def replay(v, unwind):
    global checks
    # 2000 Hz for both: at 1000 Hz a DWARF recording of the 0.4 s run held 120-200 samples, and a
    # single sample of ld.so's start-up, whose chain the two unwinders end differently (perftop
    # with a frame naming why, perf 6.1 with none, a frame apart), was a row of 0.5% or more.
    args = ["-g", "-F", "2000"] if unwind == "fp" else ["--call-graph", "dwarf", "-F", "2000"]
    f = perf_record(args, os.path.join(d, f"{v.name}-{unwind}.data"), [v.exe, SECS])
    if not f:
        return
    p = subprocess.run([perftop, "-i", f, "-b", "--json"], capture_output=True, text=True, timeout=120)
    snaps = snapshots(p.stdout, f"perftop -i {f}") if p.returncode == 0 else []
    if len(snaps) != 1:
        failures.append(f"{v.name} {unwind} replay: exit {p.returncode}, {len(snaps)} snapshots: "
                        f"{p.stderr.strip()[:300]}")
        return
    snap = snaps[0]
    # perf 6.1 unwinds a -static binary (no .eh_frame_hdr) into garbage with DWARF: its report is
    # no reference there, the program is
    perf_wrong = unwind == "dwarf" and v.name == "c-static"
    if perf_wrong:
        print(f"{v.name} dwarf: perf 6.1 cannot unwind a binary without .eh_frame_hdr; perftop is "
              "held to the program's structure alone")
    else:
        refs = report_sections(f)  # Self and Total from one perf report (perfcompare.self_of)
        for key, children in (("self", False), ("total", True)):
            ok, text = compare(snap, refs[children], key, min_rows=1 if key == "self" else 4,
                               contexts=("dwarf",) if unwind == "dwarf" else ())
            print(f"{v.name} {unwind} replay vs perf report: {text}")
            if not ok:
                failures.append(f"{v.name} {unwind} replay: {text}")
            checks += 1
    structure(v, f"{unwind} replay", snap, unwind)


def live(v, unwind):
    args = ["-b", "--json", "-F", "2000"] + (["-g"] if unwind == "fp" else ["--call-graph", "dwarf"])
    snap = perftop_run(args + ["--", v.exe, SECS])
    if snap is None:
        failures.append(f"{v.name} {unwind} live: no snapshot")
        return
    structure(v, f"{unwind} live", snap, unwind)


unknown = only - {v.name for v in VARIANTS}
if unknown:
    fail(f"no such variant: {sorted(unknown)}")
if mode == "build":
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        status = dict(zip((v.name for v in VARIANTS), pool.map(build, VARIANTS)))
    with open(os.path.join(bindir, "status.json.new"), "w") as f:
        json.dump(status, f, indent=1)
    os.replace(os.path.join(bindir, "status.json.new"), os.path.join(bindir, "status.json"))
    shutil.rmtree(d, True)
    print(f"variants built in {bindir}: " + ", ".join(
        f"{k} {'ok' if v is None else v.split(':')[0][:40]}" for k, v in status.items()))
    sys.exit(0)
VARIANTS = [v for v in VARIANTS if (v.name in only if only else not v.optional)
            and (mode == "replay" or v.name in LIVE)]
missing = [v for v in VARIANTS if prebuilt is None or v.name not in prebuilt]
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    results = dict(zip(missing, pool.map(build, missing)))
for v in VARIANTS:
    if v not in results:
        results[v] = prebuilt[v.name]
if prebuilt is not None:
    print(f"variants prebuilt in {bindir} at build time")
for v, why in results.items():
    if why is None:
        v.ok = True
    elif why.startswith("FAIL "):
        failures.append(f"{v.name}: the build failed: {why[5:]}")
    else:
        skipped.append(f"{v.name}: {why}")
        print(f"SKIP part {v.name}: {why}")

for v in VARIANTS:
    if not v.ok:
        continue
    for unwind in (["fp"] if v.fp else []) + (["dwarf"] if v.dwarf else []):
        (replay if mode == "replay" else live)(v, unwind)

shutil.rmtree(d, True)
if failures:
    print(f"{len(failures)} failed of {checks} checks:")
    for f in failures:
        print("FAIL: " + f)
    sys.exit(1)
if skipped:
    print(f"SKIP: {len(skipped)} variant(s) this machine cannot build: " + "; ".join(skipped))
    sys.exit(77)
print(f"{checks} checks passed")
