# SPDX-License-Identifier: GPL-2.0-or-later
"""A replay from another machine: the recording's build-ids (a file's BUILD_ID
section, a stream's HEADER_BUILD_ID records) lead the symbolizer to the binaries' own files, and a
file of another build at the recorded path is never read.

A copy of diff_work in a temp directory is recorded four ways: perftop -o FILE, perf record -g,
perftop -o - (a stream, replayed as a file and through a pipe, -i -) and perf record -o - through
perf inject -b (a stream through a pipe). Then the copy is replaced by
another program (probe_work, another build-id) at the same path, and each recording is replayed:
  - as it is: diff_work's functions must not be named, nor probe_work's (unresolved is right), and
    the notice says once that the file here is another build;
  - with --symfs ROOT holding the original at its path: named as perf report names them;
  - with only the original's debug file under DEBUG_ROOT/.build-id/xx/rest.debug (objcopy
    --only-keep-debug; PERFTOP_DEBUG_ROOT stands for /usr/lib/debug): the same names;
  - with perf's build-id cache (HOME/.debug, filled by perf buildid-cache -a): the same names, and
    perf report with that HOME is the reference for every row of the binary;
  - with a local debuginfod (debuginfod -F DIR serving the debug file on 127.0.0.1).

The last part is a ctest test of its own (PART debuginfod; the others are PART local, the default),
so that where debuginfod is not installed or cannot serve here it shows as a skipped test (77),
decided by the filesystem (no program) and by the server's own answer, never as a pass.

usage: test_replay_buildid.py PERFTOP DIFF_WORK PROBE_WORK [local|debuginfod]"""
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from replaylib import (fail, kinds_for, need_perf_events, need_tool, replay_json, report_section, skip,
                       tmpdir, tolerance)

perftop, work_src, other_src = sys.argv[1], sys.argv[2], sys.argv[3]
part = sys.argv[4] if len(sys.argv) > 4 else "local"
if part not in ("local", "debuginfod"):
    sys.exit(f"usage: {sys.argv[0]} PERFTOP DIFF_WORK PROBE_WORK [local|debuginfod]")
# What the part needs of the machine, asked first: debuginfod is a program on PATH.
dbgd = shutil.which("debuginfod") if part == "debuginfod" else None
if part == "debuginfod" and not dbgd:
    skip("no debuginfod program here (Debian's debuginfod package)")
d = tmpdir("perftop-buildid-")
bindir = os.path.join(d, "bin")
os.makedirs(bindir)
work = os.path.join(bindir, "work")
shutil.copy2(work_src, work)
WORK_FUNCS = {"work_a", "work_b", "work_c", "work_d"}
OTHER_FUNCS = {"probe_target", "caller_a", "caller_b"}  # probe_work's own (both have a main)
home = os.path.join(d, "home")      # perf's build-id cache lives here, not in the real HOME
os.makedirs(home)
# The suite's perf wrapper gives perf a cache of the test's own (--buildid-dir): the one perftop
# looks in, HOME/.debug.
env = dict(os.environ, HOME=home, PERFTOP_PERF_BUILDID_DIR=os.path.join(home, ".debug"))
env.pop("DEBUGINFOD_URLS", None)


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    if not m:
        fail(f"{path} has no build-id")
    return m.group(1)


bid = build_id(work)
need_tool("perf")
need_perf_events(*kinds_for(["-e", "cpu-clock"]))

# --- the three recordings, while the original is at the path ---
pfile = os.path.join(d, "perftop.data")
if part == "local":
    p = subprocess.run([perftop, "-b", "-q", "-n", "100", "-F", "499", "-o", pfile, "--", work,
                        "2", "1", "1", "1", "1"], capture_output=True, text=True, timeout=120, env=env)
    if p.returncode != 0:
        fail(f"perftop -o {pfile} exited {p.returncode}: {p.stderr.strip()[:300]}")
sfile = os.path.join(d, "stream.data")
with open(sfile, "wb") as f:
    p = subprocess.run([perftop, "-b", "-q", "-n", "100", "-F", "499", "-o", "-", "--", work,
                        "2", "1", "1", "1", "1"], stdout=f, stderr=subprocess.PIPE, timeout=120,
                       env=env)
if p.returncode != 0:
    fail(f"perftop -o - exited {p.returncode}: {p.stderr.decode(errors='replace')[:300]}")
rfile = os.path.join(d, "perf.data")
# Not replaylib's perf_record, whose -B leaves the build-ids out: -N only (no cache of ours filled).
p = subprocess.run(["perf", "record", "-q", "-N", "-g", "-e", "cpu-clock", "-F", "499", "-o", rfile,
                    "--", work, "2", "1", "1", "1", "1"], capture_output=True, text=True, env=env,
                   timeout=120)
if p.returncode != 0:
    fail(f"perf record -g exited {p.returncode}: {p.stderr.strip()[:300]}")

# perf's own stream with build-ids: perf record -o - through perf inject -b (HEADER_BUILD_ID records
# without the size flag, placed before each binary's first sample).
ifile = os.path.join(d, "injected.data")
if part == "local":
    rec = subprocess.Popen(["perf", "record", "-q", "-N", "-g", "-e", "cpu-clock", "-F", "499", "-o",
                            "-", "--", work, "2", "1", "1", "1", "1"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, env=env)
    p = subprocess.run(["perf", "inject", "-b", "-o", ifile], stdin=rec.stdout, capture_output=True,
                       text=True, env=env, timeout=120)
    rec.stdout.close()
    if rec.wait(timeout=60) != 0 or p.returncode != 0:
        fail(f"perf record -o - | perf inject -b failed: {p.stderr.strip()[:300]}")

# The original goes: kept aside for the places it is looked for, another program at its path.
orig = os.path.join(d, "orig-work")
shutil.move(work, orig)
shutil.copy2(other_src, work)
if build_id(work) == bid:
    fail("the replacement has the original's build-id")

symfs = os.path.join(d, "symfs")
os.makedirs(symfs + bindir)
shutil.copy2(orig, symfs + work)
debug_root = os.path.join(d, "debug")
os.makedirs(os.path.join(debug_root, ".build-id", bid[:2]))
debug_file = os.path.join(debug_root, ".build-id", bid[:2], bid[2:] + ".debug")
subprocess.run(["objcopy", "--only-keep-debug", orig, debug_file], check=True)


def rows(path, extra=(), run_env=None, stdin=None):
    """The binary's rows of the last snapshot: {sym: self%}, and stderr."""
    snaps, err = replay_json(perftop, path, extra, stdin, run_env or env)
    return {r["sym"]: r["self"] for r in snaps[-1]["rows"] if r["dso"] == "work"}, err


def replays(extra=(), run_env=None):
    """Each recording replayed (the stream also through a pipe): [(label, rows, stderr)]."""
    out = []
    for label, path in (("perftop -o", pfile), ("perf record -g", rfile), ("stream file", sfile)):
        r, err = rows(path, extra, run_env)
        out.append((label, r, err))
    for label, path in (("stream on stdin", sfile), ("perf inject -b stream on stdin", ifile)):
        with open(path, "rb") as f:
            r, err = rows("-", extra, run_env, stdin=f)
        out.append((label, r, err))
    return out


def check_named(what, results):
    for label, r, err in results:
        named = set(r) & WORK_FUNCS
        if len(named) < 4:
            fail(f"{what}, {label}: diff_work's functions not all named: {sorted(r)[:8]} "
                 f"(stderr: {err.strip()[:200]})")
        if set(r) & OTHER_FUNCS:
            fail(f"{what}, {label}: the replacement's names used: {sorted(set(r) & OTHER_FUNCS)}")
        share = sum(v for k, v in r.items() if k in WORK_FUNCS)
        if share < 60:
            fail(f"{what}, {label}: diff_work's functions hold only {share:.1f}% ({r})")
    print(f"ok: {what}: diff_work's four functions named in all {len(results)} replays")


if part == "local":
    # 1. Nothing found: the replacement's names are never used; unresolved, and said once.
    for label, r, err in replays():
        named = [k for k in r if not re.fullmatch(r"0x[0-9a-f]+", k)]
        if named:  # diff_work's hot addresses fall in probe_work's main: any name is a wrong one
            fail(f"no original, {label}: names from a file of another build: {sorted(named)}")
        if not r:
            fail(f"no original, {label}: no row of the binary at all")
        notes = [l for l in err.splitlines() if "another build" in l]
        if len(notes) != 1 or "work" not in notes[0]:
            fail(f"no original, {label}: expected one notice of another build, got: {err.strip()[:300]}")
    print("ok: the replacement's names never used, one notice of another build")

    # 2. --symfs ROOT with the original at its path.
    check_named("--symfs", replays(["--symfs", symfs]))

    # 3. Only the debug file, by build-id under the debug root.
    check_named("debug file by build-id", replays(run_env=dict(env, PERFTOP_DEBUG_ROOT=debug_root)))

    # 4. perf's build-id cache; perf report with the same cache is the reference.
    cache_src = os.path.join(d, "cache-src")
    os.makedirs(cache_src)
    shutil.copy2(orig, os.path.join(cache_src, "work"))
    p = subprocess.run(["perf", "buildid-cache", "-a", os.path.join(cache_src, "work")],
                       capture_output=True, text=True, env=env, timeout=60)
    cached = os.path.join(home, ".debug", ".build-id", bid[:2], bid[2:], "elf")
    if p.returncode != 0 or not os.path.exists(cached):
        fail(f"perf buildid-cache -a did not make {cached}: {p.stderr.strip()[:200]}")
    os.remove(os.path.join(cache_src, "work"))  # the cache's own copy must be what is read
    results = replays()
    check_named("perf's build-id cache", results)
    for idx, path in ((0, pfile), (1, rfile), (2, sfile)):
        sec = report_section(path, False, env=env)
        ref = {sym: self_ for (dso, sym), self_, _, _ in sec.rows if dso == "work"}
        if not set(ref) >= WORK_FUNCS:
            fail(f"perf report -i {path} with its build-id cache does not name diff_work's functions: "
                 f"{ref}")
        ours = results[idx][1]
        for sym in set(ref) | set(ours):
            pct, got = ref.get(sym, 0.0), ours.get(sym, 0.0)
            if max(pct, got) >= 0.5 and abs(got - pct) > tolerance(max(pct, got), sec.samples):
                fail(f"perf's cache, {results[idx][0]}: {sym} ours {got:.2f}% perf report {pct:.2f}% "
                     f"(tolerance {tolerance(max(pct, got), sec.samples):.2f})")
        print(f"ok: {results[idx][0]} replay with perf's cache agrees with perf report on "
              f"{len(ref)} rows")
    print("local parts: 4 passed, 0 failed")
    sys.exit(0)


# 5. A local debuginfod serving the debug file.
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


serve = os.path.join(d, "serve")
os.makedirs(serve)
shutil.copy2(debug_file, os.path.join(serve, "work.debug"))
port = free_port()
srv = subprocess.Popen([dbgd, "-F", serve, "-p", str(port), "-d", os.path.join(d, "dbgd.sqlite"),
                        "-t", "0", "-g", "0"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       env=env)
try:
    url = f"http://127.0.0.1:{port}"
    ready = False
    for _ in range(100):  # up to 20 s for it to start and scan the directory
        if srv.poll() is not None:
            break
        try:
            with urllib.request.urlopen(f"{url}/buildid/{bid}/debuginfo", timeout=5) as resp:
                ready = resp.status == 200
        except (OSError, urllib.error.URLError):
            ready = False
        if ready:
            break
        time.sleep(0.2)
    if not ready:
        err = srv.stderr.read().decode(errors="replace")[-300:] if srv.poll() is not None else ""
        # The server's own answer, not perftop's: a debuginfod that cannot serve here.
        skip(f"debuginfod could not start or serve the file on {url} {err}")
    cache = os.path.join(d, "dbgd-client-cache")
    denv = dict(env, DEBUGINFOD_URLS=url, DEBUGINFOD_CACHE_PATH=cache, DEBUGINFOD_TIMEOUT="20")
    # Nothing local (perf's cache is never filled in this part): only the server has the file. A
    # batch replay waits for the fetch (the view would show the names when it arrives).
    shutil.rmtree(os.path.join(home, ".debug"), ignore_errors=True)
    cached = os.path.join(home, ".debug", ".build-id", bid[:2], bid[2:], "elf")
    if os.path.exists(cached):
        fail(f"{cached} still there")
    for label, path in (("perf record -g", rfile), ("stream on stdin", "-")):
        if path == "-":
            with open(sfile, "rb") as f:
                r, err = rows("-", run_env=denv, stdin=f)
        else:
            r, err = rows(path, run_env=denv)
        check_named(f"debuginfod, {label}", [(label, r, err)])
    if not os.path.isdir(os.path.join(cache, bid)):
        fail(f"debuginfod: nothing in the client cache {cache} for {bid}")
    print("ok: the debug file fetched from a local debuginfod names diff_work's functions")
    print("debuginfod part: 1 passed, 0 failed")
finally:
    srv.terminate()
    try:
        srv.wait(timeout=10)
    except subprocess.TimeoutExpired:
        srv.kill()
        srv.wait()
