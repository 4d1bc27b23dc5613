#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance: workloads recorded here with `perf record -g`, replayed with perftop -i F -b
--json, agree with `perf report --stdio --no-children --sort dso,sym` on the same file as
tests/lib/perfcompare.py holds them: every row of 0.5% or more on either side, names equal (demangled C++
as perf prints it, PLT entries, libc's local functions through libc6-dbg, kernel symbols).
  - a C++ program with namespaces, templates, overloads and a lambda (cxx_fixture.cc, -fno-omit-frame-pointer)
  - a libc-heavy one: sort(1) of a generated text file
  - a kernel-heavy one: dd if=/dev/zero of=/dev/null
  - -s srcline on the -g -O2 inline fixture against perf report --sort srcline (same lines, same Self%)
  - inline frames in replays follow perf report: none by default in a frame-pointer recording (perf
    report shows none there, even with --inline), all of them with --inline, none with --no-inline

usage: test_names_report.py PERFTOP FIXTURE_DIR SOURCE_DIR CXX_FIXTURE"""
import os
import random
import subprocess
import sys

from nameslib import compare, fail, perf_record, perftop_json, report_section, skip, tmpdir

perftop, fixtures, srcdir, cxx = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
d = tmpdir()
# built at build time (tests/names/CMakeLists.txt) when g++ is there
if not os.path.exists(cxx):
    skip(f"no {cxx}: g++ is not installed (the C++ fixture is built with it)")
failed = []


def check(name, data, sort="dso,sym"):
    snaps = perftop_json(perftop, ["-i", data, "-b", "--json"] + (["-s", sort] if sort != "dso,sym" else []))
    if len(snaps) != 1:
        fail(f"{name}: want one snapshot over the whole file, got {len(snaps)}")
    ok, text = compare(snaps[0], report_section(data, False, sort=sort), "self", sort=sort)
    print(f"{name}: {text}")
    if not ok:
        failed.append(f"{name}: {text}")


check("c++", perf_record(["-g", "-F", "999"], os.path.join(d, "cxx.data"), [cxx, "2"]))

# sort: 400k lines of random words (about 10 MB), sorted to /dev/null
words = [''.join(random.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(random.randint(3, 10)))
         for _ in range(5000)]
text = os.path.join(d, "words.txt")
with open(text, "w") as f:
    for _ in range(400000):
        f.write(" ".join(random.choice(words) for _ in range(4)) + "\n")
check("sort", perf_record(["-g", "-F", "999"], os.path.join(d, "sort.data"),
                          ["sort", "-o", "/dev/null", text]))

check("dd", perf_record(["-g", "-F", "999"], os.path.join(d, "dd.data"),
                        ["dd", "if=/dev/zero", "of=/dev/null", "bs=4k", "count=1500000"]))

inl = perf_record(["-g", "-F", "999"], os.path.join(d, "inl.data"),
                  [os.path.join(fixtures, "inline_fixture"), "1.5"])
check("srcline", inl, sort="srcline")


def inlined_rows(extra):
    snap = perftop_json(perftop, ["-i", inl, "-b", "--json"] + extra)[-1]
    return [r["sym"] for r in snap["rows"] if r["sym"].endswith(" (inlined)")]


report_inlined = subprocess.run(["perf", "report", "-i", inl, "--stdio", "--inline"], capture_output=True,
                                text=True).stdout.count("(inlined)")
for extra, want in (([], False), (["--inline"], True), (["--no-inline"], False), (["--inline", "--no-inline"], False)):
    got = inlined_rows(extra)
    print(f"inline rows with {extra or 'the defaults'}: {len(got)} {got[:3]}")
    if bool(got) != want:
        failed.append(f"{extra or 'defaults'}: {'no ' if want else ''}inline rows expected, got {got[:5]}")
if report_inlined:
    failed.append(f"perf report shows {report_inlined} inline frames in a frame-pointer recording: the default "
                  "should follow it")

if failed:
    fail("; ".join(failed))
print("PASS")
