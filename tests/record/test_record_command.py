#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: perftop -b -n 3 -o F -- spinner writes a perf.data file that perf report and perf script
read without a word of complaint, mode 0600, whose header says where it was made, and whose top
functions are perftop's own."""
import os
import stat
import tempfile
from e2elib import fail, passed, is_address, snapshots
from reclib import need_perf, perf, perftop, report_rows, header_info, fixture

need_perf()
checks = 0
with tempfile.TemporaryDirectory() as d:
    f = os.path.join(d, "rec.data")
    # An older recording at the same path is kept as F.old, as perf record does.
    with open(f, "w") as old:
        old.write("previous")
    p = perftop(["-b", "--json", "-n", "3", "-o", f, "--", fixture("spinner"), "10"])
    if p.returncode != 0:
        fail(f"perftop -o exited {p.returncode}: {p.stderr.strip()}")
    snaps = snapshots(p.stdout, "perftop -o")
    if len(snaps) != 3:
        fail(f"expected 3 snapshots, got {len(snaps)}")
    if "record" in p.stderr:
        fail(f"perftop complained about the recording: {p.stderr.strip()}")
    checks += 1

    mode = stat.S_IMODE(os.stat(f).st_mode)
    if mode != 0o600:
        fail(f"recording has mode {oct(mode)}, want 0600")
    if not os.path.exists(f + ".old") or open(f + ".old").read() != "previous":
        fail("the previous file was not kept as F.old")
    checks += 2

    script = perf(["script"], f)
    if "spinner_work" not in script:
        fail("perf script shows no spinner_work samples")
    checks += 1

    info = header_info(f)
    for key in ("hostname", "os release", "arch", "nrcpus online", "cmdline", "cpudesc", "cpuid",
                "total memory", "perf version"):
        if not info.get(key):
            fail(f"perf report --header-only lacks '{key}': {info}")
    if os.uname().nodename != info["hostname"] or os.uname().machine != info["arch"]:
        fail(f"header says {info['hostname']}/{info['arch']}")
    if "-o" not in info["cmdline"] or "spinner" not in info["cmdline"]:
        fail(f"cmdline is {info['cmdline']!r}")
    checks += 3

    bids = perf(["buildid-list"], f)
    if "fixtures/spinner" not in bids:
        fail(f"no build-id for the spinner binary: {bids.strip()}")
    checks += 1

    rows = report_rows(f)
    if not rows:
        fail("perf report shows no rows")
    mine = sorted(snaps[-1]["rows"], key=lambda r: -r["self"])[:3]
    print("perf report:", rows[:5])
    print("perftop:    ", [(r["dso"], r["sym"], round(r["self"], 2)) for r in mine])
    if rows[0][1] != mine[0]["dso"] or rows[0][2] != mine[0]["sym"]:
        fail(f"top function differs: perf {rows[0][1:]} vs perftop {mine[0]['dso']}/{mine[0]['sym']}")
    for r in mine:
        if is_address(r["sym"]):
            # perftop left it unnamed (e.g. [vdso]); perf names it: match by the binary.
            cand = [x for x in rows[:6] if x[1] == r["dso"]]
        else:
            cand = [x for x in rows[:6] if x[1] == r["dso"] and x[2] == r["sym"]]
        if not cand:
            fail(f"perftop's {r['dso']}/{r['sym']} is not among perf report's top rows {rows[:6]}")
        if abs(cand[0][0] - r["self"]) > 4.0:
            fail(f"{r['sym']}: perf {cand[0][0]:.2f}% vs perftop {r['self']:.2f}%")
        checks += 1
passed(checks)
