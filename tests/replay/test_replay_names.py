# SPDX-License-Identifier: GPL-2.0-or-later
"""The names' pool is bounded by compaction (src/symbolize/intern.h), the open binaries by closing
the least recently used, the known ones by evicting those no mapping references (dso.h): a replay
whose pool is compacted at nearly every window (PERFTOP_NAMES_FLOOR=1) with room for 2 open and 8
known binaries, on the ASan+UBSan build (which would stop at any read of something freed), prints
exactly what a replay with the default bounds prints, window after window, on recordings full of
names and binaries that come and go (short processes recorded with call graphs: their unnamed
addresses, comms and binaries), frame-pointer and DWARF (where unwinding reads the files).

usage: test_replay_names.py PERFTOP PERFTOP_ASAN"""
import json
import os
import re
import subprocess
import sys

from replaylib import fail, perf_record, tmpdir

perftop, perftop_asan = sys.argv[1], sys.argv[2]
d = tmpdir()
# Binaries run once early (pushed out of the dead processes' ring by the loop after them, so no
# mapping references them any more), then others: with room for 8 known binaries, the second set
# evicts the first. The loop's 100 rounds are 300 processes, more than the ring's 256
# (MAPS_DEAD_MAX); 200 rounds made the recordings and the replays (the ASan one's most of all)
# twice as long for no check more.
loop = "for i in $(seq 100); do /bin/true; ls / >/dev/null; awk 'BEGIN{for(i=0;i<3000;i++)s+=i}'; done"
first = "date; id; uname; nproc; env true; seq 1; expr 1; basename x; dirname x; whoami"
second = ("cat /dev/null; head -c0 /dev/null; tail -c0 /dev/null; wc -c /dev/null; md5sum /dev/null; "
          "sha1sum /dev/null; od /dev/null; stat / ; df / ; cut -c1 /dev/null")
churn = ["sh", "-c", f"{first}; {loop}; {second}; {loop}"]
data = os.path.join(d, "churn.data")
# The churn alone, not the whole system: a replay reads the binaries at their paths, and another
# process's binary rebuilt or deleted between the two replays (a build beside the suite) is read in
# one and refused or misread in the other, whose small bounds closed and reopened it: the outputs
# then differ for a reason that is the filesystem's, not the bounds'. The churn's own binaries are
# the system's, which nothing rewrites while the test runs.
perf_record(["-g", "-e", "cpu-clock", "-F", "999"], data, churn)
dwarf = os.path.join(d, "churn-dwarf.data")
perf_record(["--call-graph", "dwarf,4096", "-e", "cpu-clock", "-F", "499"], dwarf, churn)



def row_diff(x, y):
    """The rows of two windows' JSON that differ, without compaction and with it."""
    try:
        wx, wy = json.loads(x), json.loads(y)
    except json.JSONDecodeError:
        return f"\n{x[:400]}\n{y[:400]}"
    rows = [{(r.get("comm"), r.get("pid"), r.get("dso"), r.get("sym"), r.get("srcline")): r
             for r in w.get("rows", [])} for w in (wx, wy)]
    out = [f"{k}: {rows[0].get(k)} | {rows[1].get(k)}" for k in sorted(set(rows[0]) | set(rows[1]), key=str)
           if rows[0].get(k) != rows[1].get(k)]
    head = {k: (wx.get(k), wy.get(k)) for k in set(wx) | set(wy) if k != "rows" and wx.get(k) != wy.get(k)}
    return f"{head} " + "; ".join(out[:8])


env = dict(os.environ)
for data, sort in ((data, "dso,sym"), (data, "comm,pid,dso,sym,srcline"), (dwarf, "dso,sym")):
    args = ["-i", data, "-b", "--json", "-d", "0.1", "-s", sort]
    plain = subprocess.run([perftop] + args, capture_output=True, text=True, timeout=300)
    if plain.returncode != 0:
        fail(f"perftop {' '.join(args)} exited {plain.returncode}: {plain.stderr.strip()[:300]}")
    env["PERFTOP_NAMES_FLOOR"] = "1"
    env["PERFTOP_DSO_MAX_OPEN"] = "2"
    env["PERFTOP_DSO_MAX_KEPT"] = "8"
    env["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0"
    comp = subprocess.run([perftop_asan] + args, capture_output=True, text=True, timeout=300,
                          env=env)
    if comp.returncode != 0:
        fail(f"compacting replay exited {comp.returncode}: {comp.stderr.strip()[-1500:]}")
    m = re.search(r"names: (\d+) compactions.*binaries: (\d+) closed, (\d+) evicted", comp.stderr)
    n, closed, evicted = (int(m.group(i)) for i in (1, 2, 3)) if m else (0, 0, 0)
    lines = plain.stdout.count("\n")
    print(f"{os.path.basename(data)} -s {sort}: {lines} windows, {n} compactions, {closed} "
          f"binaries closed, {evicted} evicted")
    if lines < 5:
        fail(f"too few windows to test ({lines})")
    if n < 2 or closed < 1 or evicted < 1:
        fail(f"compacted {n} times, {closed} binaries closed, {evicted} evicted: "
             f"{comp.stderr.strip()[-300:]}")
    if plain.stdout != comp.stdout:
        a, b = plain.stdout.splitlines(), comp.stdout.splitlines()
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                fail(f"window {i} differs with compaction: {row_diff(x, y)}")
        fail(f"{len(a)} windows without compaction, {len(b)} with")
print("ok: the same output with the names compacted")
