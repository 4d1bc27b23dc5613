# SPDX-License-Identifier: GPL-2.0-or-later
"""--export at the end of live batch sessions, and of an off-CPU replay:

- `perftop -b -n 2 -d 1 --json --export F.pb.gz --export F.speedscope.json --export F.folded --
  diff_work ...`: the pprof export is valid (pprof's Go package: Parse, CheckValid), holds the
  program's hot functions and as many samples as the two windows counted, its time is the
  session's (between the test's clock readings around the run) and its duration about the
  session's; a kernel mapping (kernel frames in the samples) has the running kernel's build-id
  (perf buildid-list -k); speedscope validates against its schema with that many samples; folded sums to it;
- an off-CPU replay (`perf record -e sched:sched_switch --switch-events -g` of blocker, replayed with
  --off-cpu): pprof's sample types samples/count and off-cpu/nanoseconds, its nanoseconds are
  perftop's total, its flat shares perftop's Self within 0.5 points; the folded counts are
  nanoseconds and sum to the same total.

usage: test_export_live.py PERFTOP FIXTURES"""
import os
import subprocess
import sys
import time

sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "replay"))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "offcpu"))
from exportlib import fail, folded_read, pprof_check, speedscope_check  # noqa: E402
from replaylib import kinds_for, need_perf_events, need_tool, run_perftop, snapshots, tmpdir  # noqa: E402

perftop, fixtures = sys.argv[1], sys.argv[2]
d = tmpdir("perftop-export-live-")
WORK = ("work_a", "work_b", "work_c", "work_d")

# --- live: the whole session ---
need_perf_events("task")
pb, ss, fo = (os.path.join(d, "live" + e) for e in (".pb.gz", ".speedscope.json", ".folded"))
t0 = time.time_ns()
p = run_perftop(perftop, ["-b", "-n", "2", "-d", "1", "--json", "-e", "cpu-clock", "--export", pb,
                          "--export", ss, "--export", fo, "--",
                          os.path.join(fixtures, "diff_work"), "5", "4", "2", "1", "1"])
t1 = time.time_ns()
if p.returncode != 0:
    fail(f"perftop exited {p.returncode}: {p.stderr.strip()[:300]}")
snaps = snapshots(p)
total = sum(s["samples"] for s in snaps)
if len(snaps) != 2 or total < 200:
    fail(f"{len(snaps)} windows, {total} samples")
r = pprof_check(d, pb)[pb]
print(f"live: {total} samples in 2 windows; pprof {r['totals'][0]}, duration "
      f"{r['duration_nanos'] / 1e9:.2f} s, flat {dict((f, r['flat'].get(f, [0])[0]) for f in WORK)}")
if r["totals"][0] != total:
    fail(f"the pprof export holds {r['totals'][0]} samples, the windows counted {total}")
for fn in WORK:
    if r["flat"].get(fn, [0])[0] < total // 20:
        fail(f"{fn} is not among the export's hot functions: {r['flat'].get(fn)}")
if not t0 <= r["time_nanos"] <= t1:
    fail(f"time_nanos {r['time_nanos']} is not within the run [{t0}, {t1}]")
if not 1.5e9 <= r["duration_nanos"] <= (t1 - t0):
    fail(f"duration {r['duration_nanos']} ns for a session of 2 windows of 1 s")
kmaps = [m for m in r["mappings"] if m["file"] == "[kernel.kallsyms]"]
if kmaps:
    need_tool("perf")
    kbid = subprocess.run(["perf", "buildid-list", "-k"], capture_output=True, text=True).stdout.strip()
    print(f"kernel mapping build-id {kmaps[0]['build_id']}, perf buildid-list -k {kbid}")
    if kmaps[0]["build_id"] != kbid:
        fail("the kernel mapping's build-id is not the running kernel's")
doc = speedscope_check(ss)
if sum(len(x["samples"]) for x in doc["profiles"]) != total:
    fail("the speedscope export does not hold the session's samples")
if sum(folded_read(fo).values()) != total:
    fail("the folded counts do not sum to the session's samples")

# --- an off-CPU replay: nanoseconds ---
need_tool("perf")
from offcpulib import blocker_cmd, need_tracefs  # noqa: E402
need_tracefs()
rec_args = ["-e", "sched:sched_switch", "--switch-events", "-g"]
need_perf_events(*kinds_for(rec_args))
rec = os.path.join(d, "off.data")
cmd = ["perf", "record", "-q", "-N", "-B"] + rec_args + ["-o", rec, "--"] + \
    blocker_cmd(os.path.join(fixtures, "blocker"), 2, d, os.path.join(d, "blocker.json"))
q = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
if q.returncode != 0:
    fail(f"{' '.join(cmd)} exited {q.returncode}: {q.stderr.strip()[:300]}")
opb, ofo = os.path.join(d, "off.pb.gz"), os.path.join(d, "off.folded")
p = run_perftop(perftop, ["-i", rec, "--off-cpu", "-b", "--json", "--export", opb, "--export", ofo])
if p.returncode != 0:
    fail(f"perftop -i --off-cpu exited {p.returncode}: {p.stderr.strip()[:300]}")
snap = snapshots(p)[-1]
r = pprof_check(d, opb)[opb]
print(f"off-CPU: perftop {snap['total_period']} ns, pprof {r['totals'][1]} ns, "
      f"folded {sum(folded_read(ofo).values())} ns")
if r["sample_types"] != ["samples/count", "off-cpu/nanoseconds"]:
    fail(f"off-CPU sample types {r['sample_types']}")
if r["totals"][1] != snap["total_period"] or sum(folded_read(ofo).values()) != snap["total_period"]:
    fail("the off-CPU exports' nanoseconds are not perftop's total")
for row in snap["rows"][:5]:
    flat = 100.0 * r["flat"].get(row["sym"], [0, 0])[1] / max(1, r["totals"][1])
    print(f"  {row['sym']}: Self {row['self']:.2f}%, pprof flat {flat:.2f}%")
    if abs(flat - row["self"]) > 0.5:
        fail(f"{row['sym']}: pprof's flat share is not perftop's Self")
print("ok")
