#!/usr/bin/env python3
"""-o -: perftop writes perf's stream form (pipe mode) to standard output. perftop -b -n 3 -o - --
spinner > F makes a file that perf report, perf script and perf buildid-list read without a word of
complaint: the pipe header, the attrs and features as records, the spinner's build-id as a
HEADER_BUILD_ID record; perf report's top functions and sample count are those of perftop's replay
of F. The batch text goes to standard error meanwhile.

Then a live stream: perftop -o - piped into perftop -i - -b --json follows it as it arrives: each
second's snapshot comes out while the producer is still running, within 1.5 s of the end of its
second; with perf record -a -g -o - as the producer (it writes in bursts), within 3 s."""
import json
import os
import subprocess
import tempfile
import time
from e2elib import fail, need_perf_events, passed, perftop_path, run_json
from reclib import need_perf, perf, report_rows, header_info, fixture


def follow(producer):
    """PRODUCER | perftop -i - -b -d 1 --json, each snapshot timed as it arrives: (the start,
    [(arrival, snapshot)], the producer's and the consumer's Popen, both ended)."""
    t0 = time.monotonic()
    prod = subprocess.Popen(producer, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    cons = subprocess.Popen([perftop_path(), "-i", "-", "-b", "-d", "1", "--json"], stdin=prod.stdout,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    prod.stdout.close()
    arrived = [(time.monotonic(), json.loads(line)) for line in cons.stdout if line.startswith("{")]
    cons.wait(timeout=60)
    prod.wait(timeout=60)
    return t0, arrived, prod, cons


need_perf()
checks = 0
with tempfile.TemporaryDirectory() as d:
    f = os.path.join(d, "stream.data")
    need_perf_events("task")
    with open(f, "wb") as out:
        p = subprocess.run([perftop_path(), "-b", "--json", "-n", "3", "-o", "-", "--",
                            fixture("spinner"), "10"], stdout=out, stderr=subprocess.PIPE, text=False,
                           timeout=120)
    err = p.stderr.decode(errors="replace")
    if p.returncode != 0:
        fail(f"perftop -o - exited {p.returncode}: {err.strip()}")
    snaps = [json.loads(l) for l in err.splitlines() if l.startswith("{")]
    if len(snaps) != 3:
        fail(f"expected the 3 JSON snapshots on standard error, got {len(snaps)}: {err[:500]}")
    with open(f, "rb") as s:
        head = s.read(16)
    if head[:8] != b"PERFILE2" or int.from_bytes(head[8:], "little") != 16:
        fail(f"not perf's pipe header: {head!r}")
    checks += 2

    script = perf(["script"], f)
    if "spinner_work" not in script:
        fail("perf script shows no spinner_work samples")
    info = header_info(f)
    for key in ("hostname", "os release", "arch", "nrcpus online", "cmdline", "total memory"):
        if not info.get(key):
            fail(f"perf report --header-only lacks '{key}' (a HEADER_FEATURE record): {info}")
    bids = perf(["buildid-list"], f)
    if "fixtures/spinner" not in bids:
        fail(f"no HEADER_BUILD_ID record for the spinner binary: {bids.strip()}")
    checks += 3

    rows = report_rows(f)
    nsamples = len(perf(["script", "-G", "-F", "comm"], f).splitlines())  # a line a sample
    last = run_json(["-i", f, "-d", "1000"], timeout=120)[0][-1]
    print("perf script:", nsamples, "samples; perf report:", rows[:3])
    print("perftop -i: ", last["samples"], "samples;",
          [(r["dso"], r["sym"], round(r["self"], 2)) for r in last["rows"][:3]])
    if nsamples != last["samples"]:
        fail(f"perf script shows {nsamples} samples, perftop's replay counts {last['samples']}")
    top = last["rows"][0]
    if (rows[0][1], rows[0][2]) != (top["dso"], top["sym"]) or abs(rows[0][0] - top["self"]) > 0.5:
        fail(f"top function: perf {rows[0]} vs perftop {top['dso']}/{top['sym']} {top['self']:.2f}%")
    checks += 2

    # A live stream followed as it comes: the producer runs 5 refreshes of 1 s.
    t0, arrived, prod, cons = follow([perftop_path(), "-b", "-n", "5", "-d", "1", "-o", "-", "--",
                                      fixture("spinner"), "30"])
    if cons.returncode != 0 or prod.returncode != 0:
        fail(f"producer exited {prod.returncode}, consumer {cons.returncode}: {cons.stderr.read()}")
    times = [round(t - arrived[0][0], 2) for t, _ in arrived]
    print("snapshots of the stream came at", times, "s after the first")
    if len(arrived) < 4:
        fail(f"{len(arrived)} snapshots of a 5 s stream")
    if times[-1] < 2.0:
        fail(f"the snapshots came in one burst ({times}): the stream was not followed as it came")
    if not any(r["sym"] == "spinner_work" for r in arrived[0][1]["rows"]):
        fail(f"the first snapshot of the stream lacks spinner_work: {arrived[0][1]['rows'][:3]}")
    checks += 3
    # Each second's snapshot within 1.5 s of wall time: its arrival after the producer started,
    # less the recorded time it ends at (counted from the first sample, which came after the
    # start: the lag measured is an upper bound).
    lags = [round(t - t0 - s["time"], 2) for t, s in arrived]
    print("their lags:", lags)
    if max(lags) > 1.5:
        fail(f"a snapshot of the stream came {max(lags)} s after its second ended (lags {lags})")
    checks += 1

    # perf record as the producer (it writes to a pipe in bursts): within 3 s.
    need_perf_events("cpu")
    t0, arrived, prod, cons = follow(["perf", "record", "-q", "-a", "-g", "-o", "-", "--", "sleep", "5"])
    if cons.returncode != 0 or len(arrived) < 4:
        fail(f"perf record -a -g -o - | perftop -i -: exit {cons.returncode}, {len(arrived)} "
             f"snapshots: {cons.stderr.read()[:300]}")
    lags = [round(t - t0 - s["time"], 2) for t, s in arrived]
    print("perf record -a -g -o - | perftop -i -: lags", lags)
    if max(lags) > 3.0:
        fail(f"a snapshot of perf record's stream came {max(lags)} s after its second (lags {lags})")
    checks += 1
passed(checks)
