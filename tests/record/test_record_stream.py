#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""-o -: perftop writes perf's stream form (pipe mode) to standard output. perftop -b -n 3 -o - --
spinner > F makes a file that perf report, perf script and perf buildid-list read without a word of
complaint: the pipe header, the attrs and features as records, the spinner's build-id as a
HEADER_BUILD_ID record; perf report's top functions and sample count are those of perftop's replay
of F. The batch text goes to standard error meanwhile.

Then a live stream: perftop -o - piped into perftop -i - -b --json follows it as it arrives: its
first FOLLOWED snapshots come out while the producer is still running (a producer that runs until
it is stopped: with SIGINT once they came, or after HUNG_SECS, when the consumer printed too few:
one that waited for the end of the stream prints nothing before), each second its own snapshot,
and the stream ends cleanly when the producer stops; the same with perf record -a -g -o - as the
producer (it writes in bursts). How soon they come (the lag) is measured by
bench/stream_latency.sh, not here."""
import os
import signal
import subprocess
import tempfile
import threading
from e2elib import fail, need_perf_events, passed, perftop_path, run_json, snapshot, snapshots
from reclib import need_perf, perf, report_rows, header_info, fixture

FOLLOWED = 3
HUNG_SECS = 60  # a consumer that printed fewer snapshots by then, from a running producer, hung
FOREVER = "3600"  # the producers' workload: they end when stopped


def follow(producer):
    """PRODUCER | perftop -i - -b -d 1 --json; the producer is stopped (SIGINT) once FOLLOWED
    snapshots came, or after HUNG_SECS. Returns ([(whether the producer was still running, not
    yet stopped, snapshot)] in the order they came, the producer's and the consumer's Popen, both
    ended)."""
    prod = subprocess.Popen(producer, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    cons = subprocess.Popen([perftop_path(), "-i", "-", "-b", "-d", "1", "--json"], stdin=prod.stdout,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    prod.stdout.close()
    stopped = threading.Event()

    def stop():
        if not stopped.is_set():
            stopped.set()
            prod.send_signal(signal.SIGINT)
    watchdog = threading.Timer(HUNG_SECS, stop)
    watchdog.start()
    arrived = []
    try:
        for line in cons.stdout:
            if not line.startswith("{"):
                continue
            arrived.append((not stopped.is_set() and prod.poll() is None, snapshot(line, "perftop -i -")))
            if len(arrived) == FOLLOWED:
                stop()
        cons.wait(timeout=HUNG_SECS)
        prod.wait(timeout=HUNG_SECS)
    finally:
        watchdog.cancel()
        for p in (prod, cons):
            if p.poll() is None:
                p.kill()
                p.wait()
    return arrived, prod, cons


def check_followed(what, arrived, cons):
    """The first FOLLOWED snapshots came while the producer ran, one a second of the stream."""
    live = [a for a, _ in arrived[:FOLLOWED]]
    times = [s["time"] for _, s in arrived]
    print(f"{what}: {len(arrived)} snapshots at stream times {times}; the first {FOLLOWED} came "
          f"while the producer ran: {live}")
    if cons.returncode != 0:
        fail(f"{what}: the consumer exited {cons.returncode}: {cons.stderr.read()[:300]}")
    if len(arrived) < FOLLOWED or not all(live):
        fail(f"{what}: the stream was not followed as it came: of the first {FOLLOWED} snapshots, "
             f"those that came while the producer still ran: {live}")
    # -d 1 over recorded time: the windows end at 1, 2, 3 s of the stream (its first sample's
    # time on), however late they came
    if any(abs(t - (k + 1)) > 0.0015 for k, t in enumerate(times[:FOLLOWED])):
        fail(f"{what}: not one snapshot a second of the stream: times {times}")


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
    snaps = snapshots(err, "perftop -o - (standard error)")
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

    # A live stream followed as it comes; the producer, stopped by SIGINT, ends it cleanly.
    arrived, prod, cons = follow([perftop_path(), "-b", "-d", "1", "-o", "-", "--",
                                  fixture("spinner"), FOREVER])
    check_followed("perftop -o - | perftop -i -", arrived, cons)
    if prod.returncode != 0:
        fail(f"the producer, stopped by SIGINT, exited {prod.returncode}")
    if not any(r["sym"] == "spinner_work" for r in arrived[0][1]["rows"]):
        fail(f"the first snapshot of the stream lacks spinner_work: {arrived[0][1]['rows'][:3]}")
    checks += 3

    # perf record as the producer (it writes to a pipe in bursts)
    need_perf_events("cpu")
    arrived, prod, cons = follow(["perf", "record", "-q", "-a", "-g", "-o", "-", "--", "sleep",
                                  FOREVER])
    check_followed("perf record -a -g -o - | perftop -i -", arrived, cons)
    checks += 1
passed(checks)
