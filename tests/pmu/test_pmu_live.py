#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""perftop's hardware-PMU paths, live, on this machine: -e cycles, -e cycles:pp, a raw event
(r01c2), a PMU event in sysfs' words (cpu/event=0x3c/), a group ({cycles,instructions}), and the
counters line with IPC (the counting group perftop opens beside its sampling events).

Each path has two tests: PATH works and PATH refused. Which one runs is decided by the kernel (perf_probe
opens the very events the path needs, perfprobe.h), never by perftop's messages; the other exits
77 saying what the kernel did. On a machine whose kernel opens them (PATH works):

  - the sampling paths run on the spinner fixture and record it (-o): perftop exits 0, names the
    event as given, and its busiest function is the one perf report finds busiest in the same
    recording for that event; perf evlist reads back the attr asked for (type, config, precise_ip,
    the cpu PMU's type from sysfs);
  - counters: the default event is cycles, the JSON counters carry cycles, instructions and an
    ipc equal to their ratio, within a quarter of the IPC perf stat counts on the same loop (a
    fixed chain of multiplies: its IPC is the code's, not the moment's), and the view's counters
    line shows it.

Where the kernel refuses them (PATH refused): perftop exits non-zero with one line on stderr that
names the event and why (the kernel's own errno text or perftop's explanation of it); for the
counters, which are no error, the session runs, on cpu-clock with a one-line notice where cycles
is refused, and neither the JSON nor the view's counters line has cycles, instructions or IPC.

usage: test_pmu_live.py PERFTOP FIXTURE_DIR PATH works|refused"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

from pmulib import expect_refusal, fail, hw_verdict, need_perf_events, passed, perf_report, skip
import ptjson  # tests/lib, on sys.path by pmulib

if len(sys.argv) != 5 or sys.argv[4] not in ("works", "refused"):
    sys.exit("usage: test_pmu_live.py PERFTOP FIXTURE_DIR PATH works|refused")
pt, fixtures, path, mode = sys.argv[1:5]
spinner = os.path.join(fixtures, "spinner")
SYSFS_CPU_TYPE = "/sys/bus/event_source/devices/cpu/type"

# path: (probe kind, -e arguments, the events perftop samples with what their attrs must say)
PATHS = {
    "cycles": ("cycles", ["-e", "cycles"], [("cycles", {"type": 0, "config": 0})]),
    "precise": ("precise", ["-e", "cycles:pp"],
                [("cycles:pp", {"type": 0, "config": 0, "precise_ip": 2})]),
    "raw": ("raw", ["-e", "r01c2"], [("r01c2", {"type": 4, "config": 0x1c2})]),
    "cpu_pmu": ("cpu-pmu", ["-e", "cpu/event=0x3c/"],
                [("cpu/event=0x3c/", {"type": "cpu", "config": 0x3c})]),
    "group": ("group", ["-e", "{cycles,instructions}"],
              [("cycles", {"type": 0, "config": 0}), ("instructions", {"type": 0, "config": 1})]),
    "counters": ("counters", [], []),
}
if path not in PATHS:
    sys.exit(f"unknown path {path} ({', '.join(PATHS)})")
kind, ev_args, events = PATHS[path]
need_perf_events("task")
opens, why, errno_name = hw_verdict(kind)
print(f"kernel: {why}")
if mode == "works" and not opens:
    skip(f"{path} works: not on this machine: {why}")
if mode == "refused" and opens:
    skip(f"{path} refused: the kernel opens it here ({why}); '{path} works' tests it")
checks = 0


def run(args, timeout=120):
    return subprocess.run([pt] + args, capture_output=True, text=True, timeout=timeout)


def snapshots(stdout):
    return ptjson.snapshots(stdout, "perftop -b --json")


def evlist_attrs(rec):
    """perf evlist -v: each event's name and its attr fields (absent ones are 0)."""
    p = subprocess.run(["perf", "evlist", "-v", "-i", rec], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        fail(f"perf evlist -v -i {rec}: {p.stderr.strip()}")
    out = {}
    for line in p.stdout.splitlines():
        name, _, rest = line.partition(": ")
        fields = dict(re.findall(r"(\w+): (0x[0-9a-f]+|\d+)", rest))
        out[name] = {k: int(v, 0) for k, v in fields.items()}
    return out


def perf_top_symbol(rec, event):
    """perf report's busiest (dso, symbol) of event in rec, by its share of the period."""
    for sec in perf_report(rec, "dso,sym"):
        if sec["event"] == event:
            if not sec["rows"]:
                break
            top = max(sec["rows"], key=lambda r: r["pct"])
            return top["keys"][0], re.sub(r"^\[.\] ", "", top["keys"][1]), top["pct"]
    return None  # perf reports no sample of it (perf report leaves such an event out)


def sampling_works(tmp):
    global checks
    rec = os.path.join(tmp, "pmu.data")
    args = ["-b", "--json", "-n", "0", "-d", "0.5", "-o", rec] + ev_args + ["--", spinner, "2"]
    p = run(args)
    if p.returncode != 0:
        fail(f"perftop {' '.join(args)} exited {p.returncode} though the kernel opens it: "
             f"{p.stderr.strip()}")
    snaps = snapshots(p.stdout)
    attrs = evlist_attrs(rec)
    for name, want in events:
        mine = [s for s in snaps if s["event"] == name]
        if not mine:
            fail(f"no snapshot names the event {name!r}: {sorted({s['event'] for s in snaps})}")
        rows = mine[-1]["rows"]
        nsamples = sum(s["samples"] for s in mine)
        ref = perf_top_symbol(rec, name)
        if ref is None or not rows or nsamples == 0:
            # A raw or sysfs event code this CPU does not count (they are model-specific) opens
            # and never fires: then neither perftop nor perf report may have a sample of it.
            if ref is not None or nsamples or rows:
                fail(f"{name}: perftop has {nsamples} samples ({len(rows)} rows), perf report of "
                     f"the same recording {'some' if ref else 'none'}")
            print(f"note: {name}: no sample in perftop nor in perf report (this CPU does not "
                  "count that code)")
        else:
            top = max(rows, key=lambda r: r["self"])
            dso, sym, pct = ref
            if (top["dso"], top["sym"]) != (dso, sym):
                fail(f"{name}: perftop's busiest is {top['dso']} {top['sym']} ({top['self']:.1f}%), "
                     f"perf report's of the same recording {dso} {sym} ({pct:.1f}%)")
            print(f"ok: {name}: busiest {dso} {sym} in both (perftop {top['self']:.1f}%, "
                  f"perf {pct:.1f}%)")
        if name not in attrs:
            fail(f"perf evlist of perftop's recording has no {name!r}: {sorted(attrs)}")
        for field, value in want.items():
            if value == "cpu":
                value = int(open(SYSFS_CPU_TYPE).read())
            if attrs[name].get(field, 0) != value:
                fail(f"{name}: the recording's attr has {field} {attrs[name].get(field, 0):#x}, "
                     f"not {value:#x}")
        print(f"ok: {name}: the recording's attr: {want}")
        checks += 2


def sampling_refused():
    global checks
    event = events[0][0]
    if kind == "group" and "member" in why:
        event = events[1][0]
    reasons = [os.strerror(_errno_value(errno_name))] if errno_name.startswith("E") else []
    cycles_opens = hw_verdict("cycles")[0]
    if not cycles_opens:
        reasons += ["no hardware PMU", "not supported on this machine"]
    if kind == "precise":
        reasons += ["precise"]
    if kind == "cpu-pmu" and not os.path.exists(SYSFS_CPU_TYPE):
        reasons += ["no PMU 'cpu'"]
    args = ["-b", "-n", "1", "-d", "0.5"] + ev_args + ["--", spinner, "2"]
    expect_refusal([pt] + args, event, reasons)
    checks += 1


def _errno_value(name):
    import errno
    return getattr(errno, name, 0)


def counters_line(args, want_ipc):
    """The view's counters line (the header's third line) of perftop ARGS, through tmux: once it
    shows IPC (want_ipc), else two refreshes after it first shows counts (an IPC would be there
    by then)."""
    if not shutil.which("tmux"):
        skip("tmux is not installed: the view's counters line cannot be read")
    sock = f"perftop-pmu-{os.getpid()}"
    tm = ["tmux", "-L", sock]
    subprocess.run(tm + ["new-session", "-d", "-s", "t", "-x", "200", "-y", "30",
                         shlex.join([pt, "-d", "0.5"] + args) + "; sleep 60"], check=True)

    def current():
        cp = subprocess.run(tm + ["capture-pane", "-p", "-t", "t"], capture_output=True,
                            text=True)
        screen = cp.stdout + cp.stderr
        line = next((l for l in screen.splitlines() if "ctx-sw" in l), None)
        # a window counted: its rates and perftop's own CPU over it
        counted = line and re.search(r"ctx-sw [\d.]+[KMG]?/s", line) and "perftop CPU" in line
        return screen, line if counted else None

    try:
        deadline = time.time() + 20
        screen = ""
        while time.time() < deadline:
            screen, line = current()
            if line and (not want_ipc or "IPC" in line):
                if not want_ipc:
                    time.sleep(1.0)
                    screen, line = current()
                if line:
                    return line
            time.sleep(0.2)
        fail(f"no counters line{' with IPC' if want_ipc else ''} in the view:\n{screen}")
    finally:
        subprocess.run(tm + ["kill-server"], capture_output=True)


# The counters runs keep the spinner on one CPU, the same for perftop and perf stat: on a hybrid
# CPU the two core types have different IPCs.
PIN = ["taskset", "-c", str(min(os.sched_getaffinity(0)))] if shutil.which("taskset") else []


def perf_stat_ipc():
    p = subprocess.run(["perf", "stat", "-x,", "-e", "{cycles,instructions}", "--"] + PIN +
                       [spinner, "1"], capture_output=True, text=True, timeout=60)
    counts = {}
    for line in p.stderr.splitlines():
        f = line.split(",")
        m = re.fullmatch(r"(?:\w+/)?(cycles|instructions)/?(?::\w+)?", f[2]) if len(f) > 2 else None
        if m and f[0].isdigit():
            counts[m.group(1)] = counts.get(m.group(1), 0) + int(f[0])
    if p.returncode != 0 or len(counts) != 2:
        fail(f"perf stat of cycles and instructions failed though the kernel opens them: {p.stderr}")
    return counts["instructions"] / counts["cycles"]


def counters():
    global checks
    args = ["-b", "--json", "-n", "3", "-d", "0.5", "--"] + PIN + [spinner, "3"]
    p = run(args)
    if p.returncode != 0:
        fail(f"perftop {' '.join(args)} exited {p.returncode}: {p.stderr.strip()}")
    snaps = snapshots(p.stdout)
    if len(snaps) < 2:
        fail(f"{len(snaps)} snapshots from -n 3")
    c = snaps[-1]["counters"]
    if "context_switches" not in c:
        fail(f"the live counters have no context_switches: {c}")
    cycles_opens = hw_verdict("cycles")[0]
    # the spinner's "ready" kept off the view's terminal (it would scroll the view)
    quiet = ["sh", "-c", 'exec "$@" >/dev/null', "sh"]
    line = counters_line(["--"] + quiet + PIN + [spinner, "30"], mode == "works")
    print(f"counters line: {line.strip()}")
    if mode == "works":
        if snaps[-1]["event"] != "cycles":
            fail(f"the default event is {snaps[-1]['event']!r}, the kernel opens cycles")
        for k in ("cycles", "instructions", "ipc"):
            if k not in c:
                fail(f"the JSON counters have no {k} though the kernel opens the group: {c}")
        if c["cycles"] <= 0 or c["instructions"] <= 0:
            fail(f"a busy window counted cycles {c['cycles']}, instructions {c['instructions']}")
        ratio = c["instructions"] / c["cycles"]
        if abs(c["ipc"] - ratio) > 0.0015:
            fail(f"ipc {c['ipc']} is not instructions/cycles {ratio:.4f}")
        ref = perf_stat_ipc()
        if abs(c["ipc"] - ref) > 0.25 * ref:
            fail(f"perftop's IPC {c['ipc']:.3f} vs perf stat's {ref:.3f} on the same loop")
        print(f"ok: IPC {c['ipc']:.3f} = {c['instructions']}/{c['cycles']}; perf stat {ref:.3f}")
        m = re.search(r"IPC (\d+\.\d\d)", line)
        if not m:
            fail(f"the view's counters line has no IPC: {line.strip()!r}")
        if not re.search(r"cycles [\d.]+[KMGT]?/s", line):
            fail(f"the view's counters line has no cycles rate: {line.strip()!r}")
        checks += 4
    else:
        for k in ("cycles", "instructions", "ipc"):
            if k in c:
                fail(f"the JSON counters have {k} though the kernel refuses the group: {c}")
        if re.search(r"IPC|cycles |instr ", line):
            fail(f"the view's counters line shows hardware counters the kernel refuses: {line!r}")
        notice = [l for l in p.stderr.splitlines() if l.strip()]
        if not cycles_opens:
            want = "perftop: no hardware PMU on this machine: sampling cpu-clock instead of cycles"
            if notice != [want] or snaps[-1]["event"] != "cpu-clock":
                fail(f"cycles refused: expected the one notice {want!r} and cpu-clock, got "
                     f"{notice} and {snaps[-1]['event']!r}")
        print(f"ok: counters without cycles/instructions/ipc ({sorted(c)}); notice {notice}")
        checks += 3


with tempfile.TemporaryDirectory(prefix="perftop-pmu-") as tmp:
    if path == "counters":
        counters()
    elif mode == "works":
        sampling_works(tmp)
    else:
        sampling_refused()
passed(checks)
