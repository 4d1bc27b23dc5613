"""Shared helpers for the replay tests: make recordings with `perf record` in the test, run perftop -i
on them, and compare with `perf report` on the same file. A test skips (exit 77) only when perf is
missing or the kernel refuses the events perf record needs (asked by perf_probe first: perfprobe.py),
and says so; a perf record that fails after that is a failure."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# perfprobe.py is in tests/, one up
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from perfprobe import SKIP, fail, kinds_for, need_perf_events, need_tool, perf_script, skip  # noqa: F401


def tmpdir(prefix="perftop-replay-"):
    d = tempfile.mkdtemp(prefix=prefix)
    import atexit
    atexit.register(shutil.rmtree, d, True)
    return d


def python_busy(secs):
    """A python3 command line that burns CPU in the interpreter for secs seconds."""
    return ["python3", "-c",
            f"import time\nt=time.time()\nwhile time.time()-t<{secs}: sum(i*i for i in range(10000))"]


def perf_record(args, out, cmd, stdout=None, timeout=120):
    """perf record -q ARGS -o OUT -- CMD; skips when perf is missing or the kernel refuses the events
    (perf_probe), fails when perf record fails otherwise."""
    need_tool("perf")
    need_perf_events(*kinds_for(args))
    full = ["perf", "record", "-q", "-N", "-B"] + args + ["-o", out, "--"] + cmd
    p = subprocess.run(full, stdout=stdout if stdout is not None else subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=stdout is None, timeout=timeout)
    err = p.stderr if isinstance(p.stderr, str) else p.stderr.decode(errors="replace")
    if p.returncode != 0:
        fail(f"{' '.join(full)} exited {p.returncode}: {err.strip()[:300]}")
    return out


def run_perftop(perftop, args, timeout=120, stdin=None, env=None):
    """Runs perftop ARGS; returns the CompletedProcess (text)."""
    return subprocess.run([perftop] + args, capture_output=True, text=True, timeout=timeout,
                          stdin=stdin, env=env)


def snapshots(p):
    out = []
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                fail(f"not JSON: {e}: {line[:200]}")
    return out


def replay_json(perftop, path, extra=(), stdin=None, env=None):
    p = run_perftop(perftop, ["-i", path, "-b", "--json"] + list(extra), stdin=stdin, env=env)
    if p.returncode != 0:
        fail(f"perftop -i {path} {' '.join(extra)} exited {p.returncode}: {p.stderr.strip()}")
    snaps = snapshots(p)
    if not snaps:
        fail(f"perftop -i {path}: no snapshot; stderr: {p.stderr.strip()}")
    return snaps, p.stderr


def perf_report(path, children):
    p = subprocess.run(["perf", "report", "-i", path, "--stdio", "-q", "-g", "none",
                        "--percent-limit", "0.01", "--sort", "dso,sym",
                        "--children" if children else "--no-children"],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        fail(f"perf report -i {path} failed: {p.stderr.strip()[:300]}")
    return p.stdout


def perf_report_events(path, children):
    """perf report's section of each event of a file of several: {event name: its rows' text}
    (perf report prints one section per event, each under "# Samples: N of event 'NAME'")."""
    p = subprocess.run(["perf", "report", "-i", path, "--stdio", "-g", "none",
                        "--percent-limit", "0.01", "--sort", "dso,sym",
                        "--children" if children else "--no-children"],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        fail(f"perf report -i {path} failed: {p.stderr.strip()[:300]}")
    out, name = {}, None
    for line in p.stdout.splitlines():
        m = re.match(r"# Samples: (\S+)\s+of event '(.*)'", line)
        if m:
            name = m.group(2)
            out[name] = ""
        elif name is not None and not line.startswith("#"):
            out[name] += line + "\n"
    return out


def script_counts(path):
    """Samples per event in a file, from perf script."""
    out = {}
    for line in perf_script(path, "event", timeout=120).splitlines():
        e = line.strip().rstrip(":")
        if e:
            out[e] = out.get(e, 0) + 1
    return out


# --- the reference comparison (the logic of shared/refcheck/compare.py, kept in-tree) ---

def _base(d):
    d = (d or "").strip()
    if re.match(r"^\[JIT\]", d) or re.fullmatch(r"perf-\d+\.map", os.path.basename(d)):
        return "[JIT]"
    return os.path.basename(d) if not d.startswith("[") else d


def _norm(sym):
    # A symbol version is not part of the name: libc's clock_nanosleep@GLIBC_2.2.5 and
    # clock_nanosleep@@GLIBC_2.17 are one address, and perf report names it by either, from one
    # run to the next.
    sym = re.sub(r"@@?[A-Za-z_][\w.]*$", "", sym.strip())
    if sym.endswith(")") and not sym.endswith("(inlined)"):
        depth = 0
        for i in range(len(sym) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(sym[i], 0)
            if depth == 0:
                return sym[:i].rstrip() if i > 0 else sym
    return sym


def _unresolved(sym):
    return re.fullmatch(r"(0x)?[0-9a-fA-F]+", sym.strip()) is not None


def compare(snap, report_text, key, top=10, tol=0.5, minpct=1.0):
    """Top rows of perf report vs perftop's snapshot on key ('self' or 'total'). Returns (ok, text)."""
    ref = {}
    for line in report_text.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(?:([\d.]+)%\s+)?(\S.*?)\s+\[([.kgHu])\]\s+(.*?)\s*$", line)
        if not m:
            continue
        p1, p2, dso, _, sym = m.groups()
        pct = float(p2) if (key == "self" and p2 is not None) else float(p1)
        if _unresolved(sym):
            continue
        k = (_base(dso), _norm(sym))
        ref[k] = max(ref.get(k, 0.0), pct)
    ours = {}
    for r in snap.get("rows", []):
        sym, dso = str(r.get("sym", "")), str(r.get("dso", ""))
        if _unresolved(sym):
            continue
        k = (_base(dso), _norm(sym))
        # Two rows of one shown name (C++ overloads demangle alike without their parameters) are
        # two rows in perf report too, whose larger one is the reference: Self% adds up, but their
        # Totals overlap when one calls the other (node::StartExecution), so take the larger.
        v = float(r.get(key, 0.0))
        ours[k] = ours.get(k, 0.0) + v if key == "self" else max(ours.get(k, 0.0), v)
    rows = sorted((kv for kv in ref.items() if kv[1] >= minpct), key=lambda kv: -kv[1])[:top]
    if not rows:
        return False, "the reference report has no resolved row"
    bad, worst, checked = [], 0.0, 0
    for k, pct in rows:
        got = ours.get(k)
        if got is None and (k[1].endswith(" (inlined)") or "::" in k[1] or "<" in k[1]
                            or k[0] == "[vdso]"):
            # inline rows are optional; C++ names are demangled by a later issue; perf names
            # [vdso] symbols from its saved copy of the vdso, which the symbolizer does not read
            continue
        checked += 1
        if got is None:
            bad.append(f"missing {k[1]} ({k[0]}) ref {pct:.2f}%")
            continue
        d = abs(got - pct)
        worst = max(worst, d)
        if d > tol:
            bad.append(f"{k[1]} ({k[0]}) ours {got:.2f}% ref {pct:.2f}%")
    text = f"{key}: {checked - len(bad)}/{checked} reference rows within {tol}pp (worst {worst:.2f}pp)"
    if bad:
        return False, text + ": " + "; ".join(bad[:4])
    return True, text
