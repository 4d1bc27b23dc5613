#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: perftop -i F -b --json agrees with perf report on files made here by perf record:
fp callchains (python, and the spinner fixture), -a -g with two programs running, -z (zstd), pipe
mode (perf record -o - | perftop -i -), the directory of perf record --threads, the files of perf
record --switch-output given as several -i, and --call-graph dwarf (IP-level Self% only: unwinding the
user stack is a later issue). Every row of 0.5% or more on either side, Self% (--no-children) and
with fp callchains Total% (--children) too, through perfcompare's comparison (lib/perfcompare.py).

usage: test_replay_report.py PERFTOP FIXTURE_DIR"""
import os
import subprocess
import sys
import time
from replaylib import (check as compare_check, fail, merge_sections, perf_record, python_busy,
                       replay_json, report_section, report_sections, script_counts, script_section,
                       snapshots, tmpdir)

perftop, fixtures = sys.argv[1], sys.argv[2]
spinner = os.path.join(fixtures, "spinner")
d = tmpdir()
checks = 0
# perf 6.1 joins its BPF side-band thread at the end of a recording, which sleeps in a poll of 1 s:
# up to a second of each recording's wall time, no sample changed. The recordings of one program
# take none (the kernel's BPF programs are in neither tool's rows of a user-space workload); the
# -a one keeps them, as the machine's whole profile.
NB = "--no-bpf-event"


def check(name, path, keys, stdin_path=None, min_rows=5):
    """perftop's replay of path held to perf report on it for each of keys; returns the snapshot."""
    global checks
    if stdin_path:
        with open(stdin_path, "rb") as f:
            snaps, err = replay_json(perftop, "-", stdin=f)
    else:
        snaps, err = replay_json(perftop, path)
    if len(snaps) != 1:
        fail(f"{name}: want one snapshot over the whole file, got {len(snaps)}")
    # one perf report --children for both keys (perfcompare.self_of), --no-children for Self alone
    refs = report_sections(path) if "total" in keys else {False: report_section(path, False)}
    for key in keys:
        compare_check(name, snaps[0], refs[key == "total"], key, min_rows=min_rows)
        checks += 1
    return snaps[0]


# fp callchains, python
fp = perf_record([NB, "-g", "-F", "999"], os.path.join(d, "fp.data"), python_busy(2))
check("fp python", fp, ["self", "total"])

# fp callchains, the spinner fixture
sp = perf_record([NB, "-g", "-F", "999"], os.path.join(d, "spin.data"), [spinner, "2"])
# the spinner is one loop in main calling spinner_work: two rows of Self of its own (the clock
# reads of the vdso and the kernel's interrupts are under 0.5% on a quiet machine)
check("fp spinner", sp, ["self", "total"], min_rows=2)

# -a -g while two programs run
bg = [subprocess.Popen([spinner, "6"], stdout=subprocess.DEVNULL),
      subprocess.Popen(python_busy(6), stdout=subprocess.DEVNULL)]
try:
    time.sleep(0.3)
    sysw = perf_record(["-a", "-g", "-F", "999"], os.path.join(d, "a.data"), ["sleep", "2"])
finally:
    for p in bg:
        p.kill()
        p.wait()
check("-a -g", sysw, ["self", "total"])

# -z: zstd-compressed records
z = perf_record([NB, "-z", "-g", "-F", "999"], os.path.join(d, "z.data"), python_busy(2))
check("-z", z, ["self", "total"])

# pipe mode: perf record -o - | perftop -i - (a real pipe; tee keeps a copy for perf report)
pipe = os.path.join(d, "pipe.data")
sh = (f"perf record -q -N -B {NB} -g -F 999 -o - -- python3 -c \"import time\nt=time.time()\n"
      "while time.time()-t<2: sum(i*i for i in range(10000))\" 2>/dev/null"
      f" | tee {pipe} | {perftop} -i - -b --json")
p = subprocess.run(["bash", "-c", sh], capture_output=True, text=True, timeout=120)
snaps = snapshots(p, "pipe")
if p.returncode != 0 or len(snaps) != 1:
    fail(f"pipe: perf record -o - | perftop -i - exited {p.returncode}, {len(snaps)} snapshots: "
         f"{p.stderr.strip()[:300]}")
compare_check("pipe", snaps[0], report_section(pipe, False), "self")
# perf 6.1's report shows no --children on a pipe-mode file (one column, Self, whatever is asked):
# Total% is held to the callchains perf script prints of the same file
compare_check("pipe (perf script's callchains)", snaps[0], script_section(pipe), "total")
checks += 2

# perf record --threads: a directory (data, then data.0, data.1 ... of perf's writer threads), which
# perftop puts together (perfdata_dir.c); and as many samples as perf script shows
thr = perf_record([NB, "--threads", "-g", "-F", "999"], os.path.join(d, "thr.data"), python_busy(2))
if not os.path.isdir(thr) or not os.path.exists(os.path.join(thr, "data.0")):
    fail(f"perf record --threads made no directory of pieces: {os.listdir(d)}")
# (the count of the replay check() compared, not of a second replay of the same directory)
snap = check("--threads", thr, ["self", "total"])
want = sum(script_counts(thr).values())
if snap["samples"] != want:
    fail(f"--threads: perftop counts {snap['samples']} samples, perf script {want}")
print(f"--threads: {want} samples, as perf script")
checks += 1

# perf record --switch-output: one session's files, given as -i A -i B ..., played as one: each
# function's samples are the sum of perf report's over the files
sw_dir = os.path.join(d, "switch")
os.mkdir(sw_dir)
perf_record([NB, "--switch-output=1s", "-g", "-F", "999"], os.path.join(sw_dir, "sw.data"), python_busy(3))
files = sorted(os.path.join(sw_dir, f) for f in os.listdir(sw_dir) if f.startswith("sw.data."))
if len(files) < 2:
    fail(f"perf record --switch-output=1s made {len(files)} files")
args = []
for f in files:
    args += ["-i", f]
snaps, _ = replay_json(perftop, args[1], extra=args[2:])
# perf report on each file, put together: each row's share of the session is its period over the
# sum of the files' event counts (the rule is perfcompare's, as for one file)
# A file that holds no sample (the last one, when the workload ended just after a switch) has
# nothing for perf report to print: perf script's count of it says so, and it adds nothing
sampled = [f for f in files if sum(script_counts(f).values()) > 0]
if len(sampled) < 2:
    fail(f"perf record --switch-output=1s: {len(sampled)} of {len(files)} files hold samples")
refs = [report_sections(f) for f in sampled]
for key in ("self", "total"):
    ref = merge_sections([r[key == "total"] for r in refs])
    compare_check(f"--switch-output ({len(files)} files)", snaps[-1], ref, key)
    checks += 1

# --call-graph dwarf: the IP-level rows
dw = perf_record([NB, "--call-graph", "dwarf", "-F", "499"], os.path.join(d, "dw.data"), python_busy(1))
check("dwarf", dw, ["self"])

print(f"{checks} passed, 0 failed")
