# SPDX-License-Identifier: GPL-2.0-or-later
"""What the hardware-PMU tests share: the kernel's verdict on a hardware kind (perfprobe.py's
hw_verdict: perf_event_open of the very events the path needs, never perftop's or perf's
messages), the check of a refusal's message, and perf report's text of a recording parsed per
event (the reference of the replays)."""
import os
import re
import subprocess
import sys

sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from perfprobe import SKIP, fail, hw_verdict, need_perf_events, passed, skip  # noqa: F401,E402


def expect_refusal(cmd, event, reasons, timeout=60):
    """Runs cmd (perftop ...) and checks the user's error for a refused event: a non-zero exit and
    one line on stderr that names the event (quoted as given) and one of the reasons (any case)."""
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    err = p.stderr.strip()
    if p.returncode == 0:
        fail(f"{' '.join(cmd)} should fail (the kernel refuses {event}), exited 0; stderr {err!r}")
    lines = [l for l in err.splitlines() if l.strip()]
    if len(lines) != 1:
        fail(f"{' '.join(cmd)}: expected one line on stderr, got {len(lines)}: {err!r}")
    if f"'{event}'" not in err:
        fail(f"{' '.join(cmd)}: message {err!r} does not name the event '{event}'")
    if not any(r.lower() in err.lower() for r in reasons):
        fail(f"{' '.join(cmd)}: message {err!r} gives none of the reasons {reasons}")
    print(f"ok: exit {p.returncode}: {err}")
    return err


SEP = "\x1f"  # perf report's field separator here: no comm, dso or symbol has it


def perf_report(path, sort, extra=(), timeout=300):
    """perf report -i PATH --stdio --sort SORT -n -t SEP with extra arguments, parsed: one dict per
    event section, {"event", "period" (the Event count line), "samples" (the sum of the rows'
    Samples), "widths" (each sort key's column width, as perf cut its values to), "rows": [{"pct",
    "samples", "keys": [one value per sort key, trailing blanks stripped]}]}. The test fails when
    perf report does.

    A small parser of perf report's comm,dso (or dso,sym) text for these tests; the suite's
    general comparator with perf report is tests/lib/perfcompare.py."""
    cmd = ["perf", "report", "-i", path, "--stdio", "-g", "none", "--percent-limit", "0",
           "--sort", sort, "--no-children", "-n", "-t", SEP] + list(extra)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)}: {p.stderr.strip()[:400]}")
    nkeys = len(sort.split(","))
    sections, cur = [], None
    for line in p.stdout.splitlines():
        m = re.match(r"# Samples: \S+\s+of events? '(.*)'$", line)
        if m:
            cur = {"event": m.group(1), "period": None, "samples": 0, "widths": None, "rows": []}
            sections.append(cur)
            continue
        if cur is None:
            continue
        m = re.match(r"# Event count \(approx\.\): (\d+)$", line)
        if m:
            cur["period"] = int(m.group(1))
            continue
        if line.startswith("# Overhead") and SEP in line:
            cur["widths"] = [len(c) for c in line.split(SEP)[2:]]
            continue
        if line.startswith("#") or SEP not in line:
            continue
        f = line.split(SEP)
        if len(f) != 2 + nkeys:
            fail(f"perf report row with {len(f)} fields, {2 + nkeys} expected: {line!r}")
        row = {"pct": float(f[0].strip().rstrip("%")), "samples": int(f[1]),
               "keys": [k.rstrip() for k in f[2:]]}
        cur["samples"] += row["samples"]
        cur["rows"].append(row)
    return sections
