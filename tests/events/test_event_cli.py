#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: what the command line says about events, decided before anything opens.

  - errors: one line on stderr naming the event and the reason, and a non-zero exit: an unknown
    tracepoint; a kprobe where sysfs has no kprobe PMU (kprobes compiled out); a cache event and
    a precise (:pp) one where sysfs has no core PMU (where it has one, both must run instead); a
    --filter after an event that is no tracepoint; a breakpoint on a symbol of a command whose
    executable is position-independent (its address is known only once it runs);
  - --list-events: hardware, software, cache, raw, PMU, tracepoint, probe and breakpoint forms,
    each with its state here, and the states are this machine's (sysfs' kprobe and uprobe PMUs,
    its core PMU, tracefs' tracepoints).

usage: test_event_cli.py PERFTOP FIXTURE_DIR"""
import errno
import glob
import os
import subprocess
import sys
from e2elib import expect_one_line_error, fail, need_perf_events, passed, perftop_path
from perfprobe import hw_verdict

pt = perftop_path()
target = os.path.join(sys.argv[2], "probe_target")
SYSFS = "/sys/bus/event_source/devices"
checks = 0


def core_pmu():
    """A core PMU in sysfs: cpu (x86), cpum_cf (s390), or one with a cpus file (hybrid, arm)."""
    return any(os.path.isdir(os.path.join(SYSFS, n)) for n in ("cpu", "cpum_cf")) or \
        bool(glob.glob(os.path.join(SYSFS, "*", "cpus")))


# perftop mounts tracefs where it is not (as perf does, as root): in a private mount namespace,
# where there is one, so that the test leaves the machine's mounts as they were.
PRIVATE = ["unshare", "-m"] if os.geteuid() == 0 and \
    subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0 else []


def run(args):
    return subprocess.run(PRIVATE + [pt] + args, capture_output=True, text=True, timeout=60)


def expect_error(args, *needles):
    global checks
    expect_one_line_error(args, *needles, prefix=PRIVATE)
    checks += 1


def expect_runs(args):
    global checks
    need_perf_events("task")
    p = run(["-b", "-n", "1", "-d", "0.5"] + args)
    if p.returncode != 0:
        fail(f"perftop {' '.join(args)} should run on a machine with a PMU: {p.stderr.strip()}")
    print(f"ok: perftop {' '.join(args)} runs (this machine has a PMU)")
    checks += 1


cmd = ["--", target, "1000"]
expect_error(["-b", "-n", "1", "-e", "nosuch:event"] + cmd, "nosuch:event", "unknown event")
if os.path.exists(os.path.join(SYSFS, "kprobe")):
    print("note: this kernel has a kprobe PMU: kprobe:FUNC is no error here")
else:
    expect_error(["-b", "-n", "1", "-e", "kprobe:do_sys_openat2"] + cmd, "kprobe:do_sys_openat2",
                 "no kprobe PMU", "CONFIG_KPROBES")
# Whether these run is the kernel's answer to perf_event_open of the event (perf_probe: an L1D
# read-miss cache event; cycles with precise_ip 2), not sysfs: a VM can have a core PMU without
# precise sampling (PEBS, IBS). Refused, the message names the event and why: no hardware PMU
# where sysfs has no core PMU (perftop decides that before opening), else the precise sampling
# the PMU lacks, or the kernel's own errno text.
for ev, kind in (("L1-dcache-load-misses", "cache"), ("cycles:pp", "precise")):
    opens, why, errno_name = hw_verdict(kind)
    if opens:
        expect_runs(["-e", ev] + cmd)
        continue
    print(f"note: {why}")
    if not core_pmu():
        expect_error(["-b", "-n", "1", "-e", ev] + cmd, f"'{ev}'", "no hardware PMU")
    else:
        p = run(["-b", "-n", "1", "-e", ev] + cmd)
        err = p.stderr.strip()
        reasons = [os.strerror(getattr(errno, errno_name, 0)), "not supported"] + \
            (["precise"] if kind == "precise" else [])
        if p.returncode == 0 or len(err.splitlines()) != 1 or f"'{ev}'" not in err or \
                not any(r.lower() in err.lower() for r in reasons):
            fail(f"-e {ev}, refused by the kernel ({why}): expected one line naming '{ev}' and one "
                 f"of {reasons}, and a non-zero exit; got exit {p.returncode}, {err!r}")
        print(f"ok: perftop -e {ev} -> {err}")
        checks += 1
expect_error(["-e", "cpu-clock", "--filter", "x == 1"] + cmd, "--filter", "'cpu-clock'")
expect_error(["--filter", "x == 1", "-e", "cpu-clock"] + cmd, "--filter must follow")
expect_error(["-e", "mem:watched"] + cmd, "mem:watched", "position-independent", "-p PID")
expect_error(["-e", "mem:no_such_global", "-p", str(os.getpid())], "no global variable")
expect_error(["-e", "cpu/event=1/"] if not core_pmu() else ["-e", "nopmu/event=1/"],
             "no PMU", "PMUs here")

p = run(["--list-events"])
if p.returncode != 0:
    fail(f"--list-events exited {p.returncode}: {p.stderr.strip()}")
text = p.stdout
lines = {l.split()[0]: l for l in text.splitlines() if l.startswith("  ") and l.split()}
for section in ("Hardware events", "Software events", "Hardware cache events",
                "Raw hardware events", "PMU events", "Tracepoints", "Probes",
                "Hardware breakpoints", "Modifiers"):
    if section not in text:
        fail(f"--list-events has no '{section}' section")
for name in ("cycles", "cpu-clock", "L1-dcache-load-misses", "LLC-loads", "dTLB-load-misses",
             "branch-load-misses", "uprobe:PATH:FUNC[+OFFSET]", "uretprobe:PATH:FUNC",
             "kprobe:FUNC[+OFFSET]", "kretprobe:FUNC", "mem:ADDR[/LEN][:rwx]"):
    if name not in lines:
        fail(f"--list-events does not list {name}")
if "yes" not in lines["cpu-clock"]:
    fail(f"--list-events: {lines['cpu-clock']!r}, cpu-clock opens here")
if core_pmu() != ("no hardware PMU" not in lines["cycles"]):
    fail(f"--list-events: {lines['cycles']!r} (sysfs has {'a' if core_pmu() else 'no'} core PMU)")
kprobe = os.path.exists(os.path.join(SYSFS, "kprobe"))
if kprobe == ("no kprobe PMU" in lines["kprobe:FUNC[+OFFSET]"]):
    fail(f"--list-events: {lines['kprobe:FUNC[+OFFSET]']!r} (sysfs kprobe PMU: {kprobe})")
uprobe = os.path.exists(os.path.join(SYSFS, "uprobe")) and os.geteuid() == 0
if uprobe != ("yes" in lines["uprobe:PATH:FUNC[+OFFSET]"]):
    fail(f"--list-events: {lines['uprobe:PATH:FUNC[+OFFSET]']!r} (uprobe PMU and root: {uprobe})")
for d in glob.glob(os.path.join(SYSFS, "*", "events", "*")):
    pmu, alias = d.split("/")[-3], d.split("/")[-1]
    if "." not in alias and pmu not in ("software", "tracepoint", "breakpoint", "uprobe", "kprobe") \
            and f"{pmu}/{alias}/" not in lines:
        fail(f"--list-events does not list the sysfs event {pmu}/{alias}/")
if os.geteuid() == 0 and "sched:sched_switch" not in lines:
    fail("--list-events lists no sched:sched_switch tracepoint")
print(f"--list-events: {len(lines)} rows; cycles: {lines['cycles'].split(None, 1)[1].strip()}; "
      f"kprobe: {lines['kprobe:FUNC[+OFFSET]'].split(None, 1)[1].strip()}")
checks += 1
passed(checks)
