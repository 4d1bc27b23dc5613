#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: uprobes count hits exactly, with their callers.

probe_target calls probed() exactly CALLS times, two thirds from caller_a and one third from
caller_b, and says so. perftop -e uprobe:probe_target:probed (a sample at every hit by default)
must count exactly CALLS samples (the Samples column and the JSON samples), with caller_a's and
caller_b's Total% at the program's own 2:1; uretprobe: counts CALLS returns, in the same callers.
The kernel can run a uprobe's handler twice for one call (when the single-step out of line is
interrupted, it goes back to the breakpoint): a count one or two above CALLS passes, with a note,
only when perf script finds as many samples in the session's own recording (-o), so the extra
hits were the kernel's and not perftop's own.
The same of an entry uprobe on probed_nofp, called as often from the same callers but built
without a frame pointer: the default call graph's first frames from CFI find its callers.
The attr the session opened (read back from its own recording by perf evlist) samples every hit
(sample_period 1), -c 7 every 7th, and an explicit -F a frequency: -F wins over the every-hit
default.

A breakpoint on a global of a running process (-e mem:watched:w -p PID) is opened at the
variable's address in that process (its address in the binary, nm's, moved by where
/proc/PID/maps has the binary), with the variable's length: read back from the recording.

The program lingers 300 ms before it exits: reading a short-lived command's own symbols live,
after it has exited, sometimes fails (its rows become addresses, about 1 run in 15, while a replay
of the same records resolves them); that is the symbolizer's, not what this test is about.

usage: test_probes.py PERFTOP FIXTURE_DIR"""
import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
from e2elib import fail, passed, run_json
from perfprobe import need_tool

CALLS = 1200
target = os.path.realpath(os.path.join(sys.argv[2], "probe_target"))
if not os.path.exists("/sys/bus/event_source/devices/uprobe/type"):
    print("SKIP: this kernel has no uprobe PMU (CONFIG_UPROBE_EVENTS off)")
    sys.exit(77)
if os.geteuid() != 0:
    print("SKIP: uprobes through the uprobe PMU need CAP_SYS_ADMIN (run as root)")
    sys.exit(77)
checks = 0


def own_counts():
    out = subprocess.run([target, str(CALLS)], capture_output=True, text=True, check=True).stdout
    m = re.search(r"calls (\d+) caller_a (\d+) caller_b (\d+)", out)
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def probe(kind, extra=(), fn="probed"):
    snaps, _ = run_json(list(extra) + ["-d", "0.5", "-e", f"{kind}:{target}:{fn}", "--",
                                       target, str(CALLS), "0", "0", "300"])
    if not snaps:
        fail(f"{kind} {fn}: no snapshot")
    samples = sum(s["samples"] for s in snaps)
    last = snaps[-1]
    rows = {r["sym"]: r for r in last["rows"]}
    return snaps, samples, rows


def recorded_samples(rec):
    """perf script's count of the samples in the session's own recording."""
    need_tool("perf")
    out = subprocess.run(["perf", "script", "-i", rec, "-F", "comm"], capture_output=True,
                         text=True, timeout=120).stdout
    return sum(1 for line in out.splitlines() if line.strip())


calls, from_a, from_b = own_counts()
share_a, share_b = 100.0 * from_a / calls, 100.0 * from_b / calls
d = tempfile.mkdtemp(prefix="perftop-probes-")
atexit.register(shutil.rmtree, d, True)

# probed_nofp has no frame record when the probe at its entry fires, nor a push %rbp there for the
# kernel to read the return address after: its callers come from the first frames perftop computes
# from CFI (the default call graph).
for kind, fn in (("uprobe", "probed"), ("uretprobe", "probed"), ("uprobe", "probed_nofp")):
    rec = os.path.join(d, f"{kind}-{fn}.data")
    snaps, samples, rows = probe(kind, ("-o", rec), fn=fn)
    kind_fn = f"{kind} {fn}"
    if any(s["event"] != f"{kind}:{target}:{fn}" for s in snaps):
        fail(f"{kind}: the snapshots name the event {snaps[0]['event']!r}")
    lost = sum(s["lost"] + s["dropped"] for s in snaps)
    print(f"{kind_fn}: {samples} samples for {calls} calls (lost+dropped {lost}); caller_a "
          f"{rows.get('caller_a', {}).get('total')}%, caller_b {rows.get('caller_b', {}).get('total')}%")
    if samples != calls:
        kernel = recorded_samples(rec)
        if not (calls < samples <= calls + 2 and kernel == samples):
            fail(f"{kind_fn}: {samples} samples, the program made {calls} calls (its recording "
                 f"holds {kernel})")
        print(f"note: the kernel gave {kernel} hits for {calls} calls and perftop counted them")
    os.unlink(rec)
    for name, want in (("caller_a", share_a), ("caller_b", share_b)):
        got = rows.get(name, {}).get("total")
        if got is None or abs(got - want) > 1.0:
            fail(f"{kind_fn}: {name}'s Total% is {got}, the program's own share is {want:.2f}%: "
                 f"rows {[(r['sym'], r['total']) for r in snaps[-1]['rows'][:8]]}")
    # The hits are where they happen: in probed for the entry, in the callers for the return.
    leaf = fn if kind == "uprobe" else None
    if leaf and rows.get(leaf, {}).get("self", 0) < 99.9:
        fail(f"uprobe: {fn}'s Self% is {rows.get(leaf, {}).get('self')}, every hit is in it")
    if kind == "uretprobe" and abs(rows.get("caller_a", {}).get("self", 0) - share_a) > 1.0:
        fail(f"uretprobe: the returns land in caller_a {rows.get('caller_a')}, want {share_a:.2f}%")
    checks += 3

# What was opened, read back from the session's own recording: every hit, -c, and -F winning.
need_tool("perf")
try:
    for extra, value in (((), 1), (("-c", "7"), 7), (("-F", "200"), 200)):
        rec = os.path.join(d, "p.data")
        snaps, samples, _ = probe("uprobe", ("-o", rec) + extra)
        ev = subprocess.run(["perf", "evlist", "-v", "-i", rec], capture_output=True, text=True,
                            timeout=60).stdout
        what = " ".join(extra) or "(default)"
        m = re.search(r"sample_freq \}: (\d+)", ev)
        if not m or int(m.group(1)) != value or ("-F" in extra) != ("freq: 1," in ev):
            fail(f"uprobe {what}: the recording's attr is {ev.strip()[:400]}")
        if extra == ("-c", "7") and samples != calls // 7:
            fail(f"uprobe -c 7: {samples} samples for {calls} calls (want {calls // 7})")
        print(f"uprobe {what}: {samples} samples; the attr: {'freq' if 'freq: 1,' in ev else 'period'} "
              f"{m.group(1)}")
        os.unlink(rec)
        checks += 1

    # mem:SYMBOL of a running (position-independent) process
    proc = subprocess.Popen([target, "0", "0", "0", "3000"], stdout=subprocess.PIPE, text=True)
    try:
        proc.stdout.readline()  # it has started and lingers
        nm = subprocess.run(["nm", target], capture_output=True, text=True, check=True).stdout
        value = int(re.search(r"^([0-9a-f]+) [BbDd] watched$", nm, re.M).group(1), 16)
        with open(f"/proc/{proc.pid}/maps") as f:
            base = next(int(l.split("-")[0], 16) for l in f
                        if l.split()[-1] == target and int(l.split()[2], 16) == 0)
        rec = os.path.join(d, "bp.data")
        run_json(["-e", "mem:watched:w", "-p", str(proc.pid), "-n", "1", "-d", "0.5", "-o", rec])
        ev = subprocess.run(["perf", "evlist", "-v", "-i", rec], capture_output=True, text=True,
                            timeout=60).stdout
        m = re.search(r"bp_addr, config1 \}: (0x[0-9a-f]+).*bp_len, config2 \}: (0x[0-9a-f]+)", ev)
        print(f"mem:watched:w -p: bp_addr {m and m.group(1)}, bp_len {m and m.group(2)}; nm "
              f"{value:#x} + base {base:#x} = {base + value:#x}")
        if not m or int(m.group(1), 16) != base + value or int(m.group(2), 16) != 8 or \
                "bp_type: 2," not in ev:
            fail(f"mem:watched:w: the recording's attr is {ev.strip()[:400]}, want bp_addr "
                 f"{base + value:#x}, 8 bytes, written (bp_type 2)")
        checks += 1
    finally:
        proc.kill()
        proc.wait()
finally:
    shutil.rmtree(d, True)
passed(checks)
