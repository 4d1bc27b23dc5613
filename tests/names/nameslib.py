"""Helpers for the names tests: record workloads with `perf record -g`, replay them with perftop -i,
and compare perftop's rows with `perf report` on the same file. A test skips (exit 77) only when perf
or a tool it needs is missing, or the kernel refuses the events (perf_probe), and says so."""
import json
import re
import subprocess

from replaylib import SKIP, fail, need_tool, skip  # noqa: F401  (the names tests import them here)
from replaylib import perf_record as _perf_record
from replaylib import tmpdir as _tmpdir


def tmpdir():
    return _tmpdir("perftop-names-")


def need(tool):
    need_tool(tool)


def perf_record(args, out, cmd, timeout=180):
    return _perf_record(args, out, cmd, timeout=timeout)


def snapshots(stdout):
    return [json.loads(l) for l in stdout.splitlines() if l.startswith("{")]


def perftop_json(perftop, args, timeout=180):
    p = subprocess.run([perftop] + args, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        fail(f"perftop {' '.join(args)} exited {p.returncode}: {p.stderr.strip()[:300]}")
    snaps = snapshots(p.stdout)
    if not snaps:
        fail(f"perftop {' '.join(args)}: no snapshot; stderr: {p.stderr.strip()[:300]}")
    return snaps


def perf_report(path, sort="dso,sym"):
    p = subprocess.run(["perf", "report", "-i", path, "--stdio", "-q", "-g", "none", "--no-children",
                        "--percent-limit", "0.01", "--sort", sort],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        fail(f"perf report -i {path} failed: {p.stderr.strip()[:300]}")
    return p.stdout


def _unresolved(sym):
    return re.fullmatch(r"(0x)?[0-9a-fA-F]+", sym.strip()) is not None


def report_rows(text):
    """perf report --sort dso,sym lines -> [(pct, dso, sym)] in report order."""
    rows = []
    for line in text.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\S.*?)\s+\[([.kgHu])\]\s+(.*?)\s*$", line)
        if m:
            rows.append((float(m.group(1)), m.group(2).strip(), m.group(4)))
    return rows


def kallsyms_aliases():
    """name -> the set of names at the same address in /proc/kallsyms (with addresses shown)."""
    by_addr, by_name = {}, {}
    try:
        with open("/proc/kallsyms") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3 and parts[0].strip("0"):
                    by_addr.setdefault(parts[0], []).append(parts[2])
                    by_name[parts[2]] = parts[0]
    except OSError:
        pass
    return lambda name: set(by_addr.get(by_name.get(name, ""), []))


def compare_sym(snap, report_text, top=10, tol=0.5, minpct=0.3):
    """perf report's top rows (Self%, names) against perftop's snapshot. Names must be equal (dso and
    symbol as printed); rows that share a name (overloads that read the same once demangled, as in
    perf) are matched in order of size. Returns (ok, text)."""
    ref = [r for r in report_rows(report_text) if not _unresolved(r[2]) and r[0] >= minpct][:top]
    if not ref:
        return False, "the reference report has no resolved row"
    ours = {}
    for r in snap["rows"]:
        ours.setdefault((r["dso"], r["sym"]), []).append(float(r["self"]))
    for v in ours.values():
        v.sort(reverse=True)
    used = {}
    bad, worst = [], 0.0
    aliases = kallsyms_aliases()
    for pct, dso, sym in ref:
        k = (dso, sym)
        if k not in ours and dso == "[kernel.kallsyms]":
            # Several kernel symbols at one address (__x86_indirect_thunk_rax and
            # __pi___x86_indirect_thunk_rax): which one names it is kernel.c's choice, not this test's.
            alt = [a for a in aliases(sym) if (dso, a) in ours]
            if alt:
                print(f"  note: kernel alias {alt[0]} for {sym}")
                k = (dso, alt[0])
        if k not in ours and sym == "@plt":
            # perf 6.1 names a PLT entry whose relocation is IRELATIVE (an ifunc: no symbol, the
            # addend is the resolver) with an empty name; perftop names it after the ifunc
            # (strspn@plt). Matched to the ours@plt row of that dso with the closest share.
            alt = sorted((abs(v[0] - pct), name) for (d, name), v in ours.items()
                         if d == dso and name.endswith("@plt") and (d, name) not in used)
            if alt:
                print(f"  note: perf's nameless @plt is {alt[0][1]} here")
                k = (dso, alt[0][1])
        i = used.get(k, 0)
        used[k] = i + 1
        got = ours.get(k, [])
        if i >= len(got):
            bad.append(f"missing {sym!r} ({dso}) ref {pct:.2f}%")
            continue
        d = abs(got[i] - pct)
        worst = max(worst, d)
        if d > tol:
            bad.append(f"{sym!r} ({dso}) ours {got[i]:.2f}% ref {pct:.2f}%")
    text = f"{len(ref) - len(bad)}/{len(ref)} reference rows equal within {tol}pp (worst {worst:.2f}pp)"
    if bad:
        return False, text + ": " + "; ".join(bad[:5])
    return True, text


def compare_srcline(snap, report_text, top=10, tol=0.5, minpct=0.3):
    """perf report --sort srcline vs perftop -s srcline: the top lines and their Self%."""
    ref = []
    for line in report_text.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s*$", line)
        if m:
            ref.append((float(m.group(1)), m.group(2)))
    ref = [r for r in ref if r[0] >= minpct][:top]
    ours = {}
    for r in snap["rows"]:
        ours[r["srcline"]] = ours.get(r["srcline"], 0.0) + float(r["self"])
    bad = [f"{s} ours {ours.get(s, 0):.2f}% ref {p:.2f}%" for p, s in ref if abs(ours.get(s, -100) - p) > tol]
    text = f"{len(ref) - len(bad)}/{len(ref)} source lines within {tol}pp"
    return (not bad and bool(ref)), (text + (": " + "; ".join(bad[:5]) if bad else ""))
