#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""libcurl is loaded only for --push (src/push/lazycurl.c), never linked: its ~30 libraries are not
mapped and relocated at every start of perftop.

  - linked: perftop's DT_NEEDED (readelf -d) names no libcurl;
  - absent: in a private mount namespace, /dev/null is bound over every libcurl*.so* file beside the
    one CMake found (libcurl.so.4 and the GnuTLS and NSS builds lazycurl.c falls back on), so that
    dlopen fails: perftop -b -n 1 -- true still runs and exits 0, and with --push it stops at the
    start with one line, "perftop: --push needs libcurl: <dlopen's reason>", exit 1, nothing on
    stdout.
Exit 77 (skip) when mount namespaces are refused (unshare -m), CMake found no libcurl file, or the
kernel refuses the perf events (perf_probe).
usage: test_push_nolib.py PERFTOP FIXTURE_DIR READELF CURL_LIB"""
import glob
import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "e2e"))
from e2elib import fail, kinds_for, need_perf_events, passed, perftop_path  # noqa: E402
from perfprobe import skip  # noqa: E402

perftop = perftop_path()
readelf, curl_lib = sys.argv[3], sys.argv[4]
checks = 0


def check(cond, msg):
    global checks
    checks += 1
    if not cond:
        fail(msg)


p = subprocess.run([readelf, "-d", perftop], capture_output=True, text=True, timeout=30)
check(p.returncode == 0 and "(NEEDED)" in p.stdout, f"readelf -d {perftop}: {p.stderr.strip()}")
needed = [ln.split("[", 1)[1].rstrip("]") for ln in p.stdout.splitlines() if "(NEEDED)" in ln]
check(not [n for n in needed if n.startswith("libcurl")], f"perftop is linked against libcurl: {needed}")

if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
    skip("no mount namespace (unshare -m)")
real = os.path.realpath(curl_lib)
if not os.path.isfile(real):
    skip(f"libcurl's file not found: {curl_lib!r}")
files = sorted({os.path.realpath(f) for f in glob.glob(os.path.join(os.path.dirname(real), "libcurl*.so*"))
                if os.path.isfile(f)})
hide = " && ".join(f"mount --bind /dev/null {shlex.quote(f)}" for f in files)
need_perf_events(*kinds_for(["--", "true"]))


def hidden(args):
    cmd = f"{hide} && exec {shlex.quote(perftop)} {' '.join(shlex.quote(a) for a in args)}"
    return subprocess.run(["unshare", "-m", "sh", "-c", cmd], capture_output=True, text=True, timeout=60)


p = hidden(["-b", "-n", "1", "-d", "0.2", "--", "true"])
check(p.returncode == 0, f"without --push and libcurl: exit {p.returncode}: {p.stderr.strip()}")

p = hidden(["--push", "http://127.0.0.1:9", "-b", "-n", "1", "-d", "0.2", "--", "true"])
lines = p.stderr.strip().splitlines()
check(p.returncode == 1, f"--push without libcurl: exit {p.returncode}, stderr {p.stderr!r}")
check(len(lines) == 1 and lines[0].startswith("perftop: --push needs libcurl: ") and "libcurl" in
      lines[0][len("perftop: --push needs libcurl: "):], f"--push without libcurl: stderr {p.stderr!r}")
check(p.stdout == "", f"--push without libcurl: something was sampled first: {p.stdout[:200]!r}")
passed(checks)
