#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A Go binary built with -ldflags='-s -w' (no .symtab, no DWARF) is named from its .gopclntab.

One live session of the stripped gohot records its samples (-o) and exports its profile; then the
recording is replayed twice at the same path, once with the stripped build there and once with the
unstripped one (same GNU build-id, same code), so both readings are of the very same samples and
must agree exactly, not within a sampling error:
  - live and the stripped replay give the same profile (folded stacks, every sample);
  - the stripped and unstripped replays give the same rows of gohot: Self of every function, Total
    of main.*, and with -s sym,srcline every (function, line) row; names compared as Go prints them
    (the linker's ELF names add .abi0 to some assembly functions, and write array lengths that the
    runtime's table abbreviates to [...]);
  - every sampled address of gohot (perf script's leaf IPs) is named and lined by go tool addr2line
    on the unstripped build as perftop names and lines it: the same sample count per row;
  - with --inline, mix's inlined body is a frame "main.mix (inlined)" at its own source line, as the
    source file says;
  - the stripped PIE build, live (its table is relocated data, its pointers RELATIVE relocations)
    and unwound with --call-graph dwarf (Go has no .eh_frame: the table's pcsp gives the rows, and
    runtime.goexit ends the chain): the same functions named, mix's inline frame found through its
    moduledata, and every sample of alpha and beta under main.main.
main.alpha does 7 of every 10 loop iterations: its share of alpha+beta is checked against 0.7
within four binomial standard errors of the sample count."""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from e2elib import SKIP, fail, is_address, kinds_for, need_perf_events, passed, snapshots  # noqa: F401
from perfprobe import need_tool

PERFTOP, FIXDIR, SRC = sys.argv[1], sys.argv[2], sys.argv[3]
GO = sys.argv[4] if len(sys.argv) > 4 else "go"  # the go that built the fixtures
STRIPPED, FULL = os.path.join(FIXDIR, "gohot_stripped"), os.path.join(FIXDIR, "gohot")
PIE = os.path.join(FIXDIR, "gohot_pie")
checks = 0


def ok(cond, msg):
    global checks
    if not cond:
        fail(msg)
    checks += 1


def run(args, timeout=60):
    p = subprocess.run([PERFTOP] + args, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        fail(f"perftop {' '.join(args)} exited {p.returncode}: {p.stderr.strip()[:400]}")
    snaps = snapshots(p.stdout, "perftop " + " ".join(args))
    if not snaps:
        fail(f"perftop {' '.join(args)}: no snapshot; stderr: {p.stderr.strip()[:400]}")
    return snaps[-1], p.stderr


def go_name(sym):
    """A name as the Go runtime writes it (the ELF symbol table's .abi0 and [N] spelled its way)."""
    return re.sub(r"\[\d+\]", "[...]", re.sub(r"\.abi0(?=$|\+)", "", sym))


def rows(snap, keyf):
    return {keyf(r): r for r in snap["rows"] if r["dso"] == "gohot"}


def source_line(pattern):
    with open(SRC) as f:
        for i, line in enumerate(f, 1):
            if pattern in line:
                return i
    fail(f"{SRC} has no line with {pattern!r}")


def main():
    for f in (STRIPPED, FULL, PIE):
        if not os.path.exists(f):
            print(f"SKIP: no {f}: go was not found when the build was configured")
            sys.exit(SKIP)
    need_tool("perf", "the sampled addresses come from perf script")
    need_perf_events(*kinds_for(["--"]))
    d = tempfile.mkdtemp(prefix="perftop-go-")
    try:
        check(d)
    finally:
        shutil.rmtree(d, True)
    passed(checks)


def check(d):
    exe, rec = os.path.join(d, "gohot"), os.path.join(d, "rec.data")
    shutil.copy(STRIPPED, exe)
    live, err = run(["-b", "--json", "-n", "0", "-o", rec, "--export", os.path.join(d, "live.folded"),
                     "--", exe, "1.5"])
    ok(".gopclntab" not in err, f"live: a warning about the table: {err.strip()}")
    unnamed = [r["sym"] for r in live["rows"] if r["dso"] == "gohot" and is_address(r["sym"])]
    ok(not unnamed, f"live: addresses of gohot left unnamed: {unnamed[:5]}")

    def replay(tag, extra=()):
        return run(["-i", rec, "-b", "--json", "--export", os.path.join(d, tag + ".folded")] +
                   list(extra))[0]

    s_rows, s_lines, s_inl = replay("s"), replay("sl", ["-s", "dso,sym,srcline"]), \
        replay("si", ["-s", "dso,sym,srcline", "--inline"])
    with open(os.path.join(d, "live.folded")) as a, open(os.path.join(d, "s.folded")) as b:
        ok(a.read() == b.read(), "live profile differs from the replay of its own recording")
    shutil.copy(FULL, exe)
    f_rows, f_lines = replay("f"), replay("fl", ["-s", "dso,sym,srcline"])

    # the same samples read through either build: the same rows
    sr, fr = rows(s_rows, lambda r: r["sym"]), rows(f_rows, lambda r: go_name(r["sym"]))
    for name in sorted(set(sr) | set(fr)):
        a, b = sr.get(name), fr.get(name)
        sa, sb = (a or {}).get("samples", 0), (b or {}).get("samples", 0)
        ok(sa == sb, f"{name}: {sa} samples stripped, {sb} unstripped")
        if name.startswith("main.") and a and b:
            ok(a["total"] == b["total"] and a["self"] == b["self"],
               f"{name}: self/total {a['self']}/{a['total']} stripped, {b['self']}/{b['total']} unstripped")
    for name in ("main.alpha", "main.beta", "main.main"):
        ok(name in sr, f"no {name} row in the stripped replay: {sorted(sr)[:10]}")
    key = lambda r: (go_name(r["sym"]), go_name(r["srcline"] or ""))  # noqa: E731
    sl, fl = rows(s_lines, key), rows(f_lines, key)
    for k in sorted(set(sl) | set(fl)):
        sa, sb = sl.get(k, {}).get("samples", 0), fl.get(k, {}).get("samples", 0)
        ok(sa == sb, f"{k}: {sa} samples stripped, {sb} unstripped")

    # Go's own decoder on the unstripped build, address by address
    ips = collections.Counter()
    for line in subprocess.run(["perf", "script", "-i", rec, "-F", "ip,dso", "-G"], capture_output=True,
                               text=True, timeout=60).stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1] == f"({exe})":
            ips[int(parts[0], 16)] += 1
    ok(sum(ips.values()) > 100, f"only {sum(ips.values())} samples in gohot")
    addrs = sorted(ips)
    out = subprocess.run([GO, "tool", "addr2line", FULL], input="".join(f"{a:#x}\n" for a in addrs),
                         capture_output=True, text=True, timeout=60, env=dict(
                             os.environ, GOCACHE=os.path.join(d, "gocache"), GOPROXY="off",
                             GOTOOLCHAIN="local", GO111MODULE="off")).stdout.splitlines()
    ok(len(out) == 2 * len(addrs), f"go tool addr2line answered {len(out)} lines for {len(addrs)} addresses")
    want = collections.Counter()
    for i, a in enumerate(addrs):
        fn, pos = out[2 * i], out[2 * i + 1]
        path, _, ln = pos.rpartition(":")
        want[(fn, f"{os.path.basename(path)}:{ln}")] += ips[a]
    got = {k: r["samples"] for k, r in rows(s_lines, lambda r: (r["sym"], r["srcline"])).items()
           if r["samples"]}
    for k in sorted(set(want) | set(got)):
        ok(want.get(k, 0) == got.get(k, 0),
           f"{k}: go tool addr2line {want.get(k, 0)} samples, perftop {got.get(k, 0)}")

    # the inline frame, at the lines the source gives
    mix_line, call_line = source_line("return x*6364136223846793005"), source_line("x = mix(x) ^ (x >> 7)")
    inl = rows(s_inl, lambda r: (r["sym"], r["srcline"]))
    mix = inl.get(("main.mix (inlined)", f"main.go:{mix_line}"))
    ok(mix and mix["total"] > 0, f"no main.mix (inlined) at main.go:{mix_line}: {sorted(inl)[:12]}")
    site = inl.get(("main.alpha", f"main.go:{call_line}"))
    ok(site and site["total"] >= mix["total"] * 0.5,
       f"main.alpha at its call of mix (main.go:{call_line}) lacks mix's samples: {site}")

    # the PIE: named, and its inline frames found
    shutil.copy(PIE, exe)
    need_perf_events(*kinds_for(["--call-graph", "dwarf"]))
    pie, err = run(["-b", "--json", "-n", "0", "--inline", "-s", "dso,sym,srcline", "--call-graph", "dwarf",
                    "--", exe, "0.8"])
    ok(".gopclntab" not in err, f"PIE: a warning about the table: {err.strip()}")
    got = {(r["sym"], r["srcline"]) for r in pie["rows"] if r["dso"] == "gohot"}
    unnamed = [s for s, _ in got if is_address(s)]
    ok(not unnamed, f"PIE: addresses of gohot left unnamed: {unnamed[:5]}")
    for k in (("main.alpha", f"main.go:{call_line}"), ("main.mix (inlined)", f"main.go:{mix_line}")):
        ok(k in got, f"PIE: no row {k}: {sorted(got)[:12]}")
    work = sum(r["self"] for r in pie["rows"] if r["sym"] in ("main.alpha", "main.beta"))
    under = sum(r["total"] for r in pie["rows"] if r["sym"] == "main.main")
    n = sum(1 for r in pie["rows"] if r["sym"] in ("main.alpha", "main.beta", "main.main"))
    ok(under >= work - 0.0001 * n - 1e-9,  # each row's percentages are rounded to 4 places
       f"PIE, dwarf: main.main's Total {under:.4f}% short of alpha's and beta's Self {work:.4f}%")

    # the workload's own proportion
    a, b = sr["main.alpha"]["samples"], sr["main.beta"]["samples"]
    n = a + b
    se = (0.7 * 0.3 / n) ** 0.5
    ok(abs(a / n - 0.7) <= 4 * se, f"main.alpha {a} of {n} samples: {a / n:.3f}, expected 0.7 +- {4 * se:.3f}")
    print(f"gohot: {n} samples in alpha+beta, alpha {a / n:.3f}; {len(addrs)} addresses checked")


main()
