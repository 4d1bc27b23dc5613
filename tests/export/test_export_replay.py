# SPDX-License-Identifier: GPL-2.0-or-later
"""--export on replays, read back by the real readers (exportlib.py), against perftop's own batch
JSON of the same replay and against perf script on the same recording:

- a frame-pointer recording of diff_work (work_a..work_d in the ratio 4:2:1:1): the pprof export
  parses and passes CheckValid; its flat shares of the functions agree with perftop's Self within
  0.5 points, by pprofcheck.go and by `go tool pprof -top`; its sample count is perftop's; the
  sample types are samples/count and cpu/nanoseconds; the program's mapping carries its build-id
  (the binary's own, as readelf -n reads it); labels pid, tid, comm on every sample;
- the speedscope export validates against speedscope's schema, has one profile per thread, holds
  as many samples as perftop counted, each thread's in perf script's order (time order);
- the folded export: its counts sum to the sample count, and its leaf counts of the workload's
  functions are perf script's (collapsed in the test);
- --time START,END: the exports hold the range's samples only;
- the names' pool compacted at nearly every window (PERFTOP_NAMES_FLOOR=1) on the ASan build:
  byte for byte the same exports;
- a --call-graph dwarf recording of inline_fixture: locations with inline lines;
- a file name of no known format: a one-line error and a non-zero exit before anything runs.

usage: test_export_replay.py PERFTOP PERFTOP_ASAN FIXTURES"""
import os
import re
import subprocess
import sys

sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "replay"))
from exportlib import (fail, folded_read, leaf_counts, perf_script_folded, perf_script_leaves,  # noqa: E402
                       pprof_check, pprof_top, speedscope_check, speedscope_leaves)
from replaylib import perf_record, replay_json, run_perftop, tmpdir  # noqa: E402

perftop, perftop_asan, fixtures = sys.argv[1], sys.argv[2], sys.argv[3]
d = tmpdir("perftop-export-")
WORK = ("work_a", "work_b", "work_c", "work_d")


def exports(stem):
    return {k: os.path.join(d, stem + ext) for k, ext in
            (("pprof", ".pb.gz"), ("speedscope", ".speedscope.json"), ("folded", ".folded"))}


def export_args(files):
    out = []
    for f in files.values():
        out += ["--export", f]
    return out


# --- a frame-pointer recording of a known mix ---
data = os.path.join(d, "fp.data")
perf_record(["-g", "-e", "cpu-clock", "-F", "999"], data,
            [os.path.join(fixtures, "diff_work"), "2", "4", "2", "1", "1"])
files = exports("fp")
snaps, _ = replay_json(perftop, data, export_args(files))
snap = snaps[-1]
total = snap["samples"]
if total < 500:
    fail(f"too few samples to compare ({total})")
for f in files.values():
    if not os.path.exists(f):
        fail(f"{f} was not written")

# pprof
r = pprof_check(d, files["pprof"])[files["pprof"]]
if r["sample_types"] != ["samples/count", "cpu/nanoseconds"]:
    fail(f"sample types {r['sample_types']}")
if r["period_type"] != "cpu/nanoseconds" or r["period"] <= 0:
    fail(f"period {r['period_type']} {r['period']}")
if r["totals"][0] != total:
    fail(f"pprof holds {r['totals'][0]} samples, perftop counted {total}")
if r["totals"][1] != snap["total_period"]:
    fail(f"pprof's cpu nanoseconds {r['totals'][1]} != perftop's total period {snap['total_period']}")
for k in ("pid", "tid", "comm"):
    if r["label_keys"].get(k) != r["samples"]:
        fail(f"label {k} on {r['label_keys'].get(k)} of {r['samples']} samples")
notes = subprocess.run(["readelf", "-n", os.path.join(fixtures, "diff_work")], capture_output=True,
                       text=True).stdout
want = re.findall(r"Build ID: ([0-9a-f]+)", notes)
have = {m["file"]: m["build_id"] for m in r["mappings"]}
prog = [b for f, b in have.items() if f.endswith("/diff_work")]
if not want or prog != want[:1]:
    fail(f"diff_work's mapping has build-id {prog}, readelf -n says {want}")
rows = {row["sym"]: row["self"] for row in snap["rows"]}
top = pprof_top(d, files["pprof"], "cpu")
for fn in WORK:
    flat = 100.0 * r["flat"].get(fn, [0, 0])[1] / r["totals"][1]
    print(f"{fn}: perftop Self {rows.get(fn, 0):.2f}%, pprof flat {flat:.2f}%, "
          f"go tool pprof -top {top.get(fn, 0):.2f}%")
    if abs(flat - rows.get(fn, 0)) > 0.5 or abs(top.get(fn, 0) - rows.get(fn, 0)) > 0.5:
        fail(f"{fn}: pprof's flat share is not perftop's Self")

# speedscope
doc = speedscope_check(files["speedscope"])
n = sum(len(p["samples"]) for p in doc["profiles"])
if n != total:
    fail(f"speedscope holds {n} samples, perftop counted {total}")
threads = set(r["threads"])
if len(doc["profiles"]) != len(threads):
    fail(f"{len(doc['profiles'])} speedscope profiles for {len(threads)} threads")
for p in doc["profiles"]:
    if p["unit"] != "nanoseconds" or len(p["weights"]) != len(p["samples"]):
        fail(f"speedscope profile {p['name']}: unit {p['unit']}, {len(p['weights'])} weights")
    if p["endValue"] != sum(p["weights"]):
        fail(f"speedscope profile {p['name']}: endValue {p['endValue']} != its weights' sum")
# time order: each thread's samples of the workload's functions come in perf script's order
ours_seq, perf_seq = speedscope_leaves(doc), perf_script_leaves(data)
for tid, seq in perf_seq.items():
    a = [x for x in seq if x in WORK]
    b = [x for x in ours_seq.get(tid, []) if x in WORK]
    if a != b:
        at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        fail(f"tid {tid}: speedscope's samples are not in perf script's order (from sample {at}: "
             f"{b[at:at + 5]} vs {a[at:at + 5]}; {len(b)} vs {len(a)})")
print(f"speedscope: {len(doc['profiles'])} profiles, samples in perf script's order")

# folded
folded = folded_read(files["folded"])
if sum(folded.values()) != total:
    fail(f"folded counts sum to {sum(folded.values())}, perftop counted {total}")
ours, perfs = leaf_counts(folded), leaf_counts(perf_script_folded(data))
for fn in WORK:
    print(f"{fn}: folded leaf {ours.get(fn, 0)}, perf script {perfs.get(fn, 0)}")
    if ours.get(fn, 0) != perfs.get(fn, 0):
        fail(f"{fn}: {ours.get(fn, 0)} samples as a leaf in the folded export, "
             f"{perfs.get(fn, 0)} in perf script")
if sum(perfs.values()) != total:
    fail(f"perf script has {sum(perfs.values())} samples, perftop counted {total}")

# --- --time: the range only ---
files_t = exports("range")
snaps_t, _ = replay_json(perftop, data, ["--time", "0.5,1.5"] + export_args(files_t))
total_t = snaps_t[-1]["samples"]
got = sum(folded_read(files_t["folded"]).values())
r_t = pprof_check(d, files_t["pprof"])[files_t["pprof"]]
print(f"--time 0.5,1.5: {total_t} samples, folded {got}, pprof {r_t['totals'][0]}")
if not 0 < total_t < total or got != total_t or r_t["totals"][0] != total_t:
    fail("the --time range's exports do not hold the range's samples")

# --- compaction at nearly every window: the same bytes ---
env = dict(os.environ, PERFTOP_NAMES_FLOOR="1", ASAN_OPTIONS="detect_leaks=1:abort_on_error=0")
plain, comp = exports("plain"), exports("comp")
a = run_perftop(perftop, ["-i", data, "-b", "-d", "0.1"] + export_args(plain))
b = subprocess.run([perftop_asan, "-i", data, "-b", "-d", "0.1"] + export_args(comp),
                   capture_output=True, text=True, timeout=300, env=env)
if a.returncode or b.returncode:
    fail(f"exits {a.returncode} {b.returncode}: {b.stderr.strip()[-800:]}")
m = re.search(r"names: (\d+) compactions", b.stderr)
if not m or int(m.group(1)) < 2:
    fail(f"the names were not compacted: {b.stderr.strip()[-300:]}")
for k in plain:
    if open(plain[k], "rb").read() != open(comp[k], "rb").read():
        fail(f"the {k} export differs when the names are compacted ({m.group(1)} compactions)")
print(f"compacted {m.group(1)} times: the same exports")

# --- DWARF: inline chains ---
dw = os.path.join(d, "dwarf.data")
perf_record(["--call-graph", "dwarf,8192", "-e", "cpu-clock", "-F", "499"], dw,
            [os.path.join(fixtures, "inline_fixture"), "1"])
dwp = os.path.join(d, "dwarf.pb.gz")
replay_json(perftop, dw, ["--export", dwp])
r_dw = pprof_check(d, dwp)[dwp]
print(f"dwarf: {r_dw['locations']} locations, {r_dw['inline_locations']} with inline lines")
if r_dw["inline_locations"] < 1 or "mix_step" not in r_dw["cum"]:
    fail("the DWARF recording's export has no inline chain")

# --- a name of no format ---
p = run_perftop(perftop, ["-i", data, "-b", "--export", os.path.join(d, "x.txt")])
if p.returncode == 0 or len(p.stderr.strip().splitlines()) != 1 or os.path.exists(os.path.join(d, "x.txt")):
    fail(f"--export x.txt: exit {p.returncode}, stderr {p.stderr.strip()[:300]}")
print("ok")
