#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live names:
  - a C++ workload shows demangled names (perftop -b --json -- ./cxx_fixture), and --no-demangle shows
    the raw _Z names;
  - with --inline, inline frames take part in Total% (the -g -O2 inline fixture: "mix_step (inlined)"
    rows with Total% and no Self%, the function that holds the addresses keeps the Self%); --no-inline
    and the live default (like perf top) have none;
  - debuginfod: a stripped copy of the inline fixture whose debug file only a (local, fake) debuginfod
    server has: with DEBUGINFOD_URLS set, the file is fetched in the background while sampling goes on,
    and later snapshots name the static function "work" that only the debug file knows.

usage: test_names_live.py PERFTOP FIXTURE_DIR SOURCE_DIR CXX_FIXTURE"""
import http.server
import json
import os
import re
import signal
import subprocess
import sys
import threading

from nameslib import fail, need, skip, snapshots, tmpdir
from perfprobe import need_perf_events

perftop, fixtures, srcdir, cxx = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
d = tmpdir()
# built at build time (tests/names/CMakeLists.txt) when g++ is there
if not os.path.exists(cxx):
    skip(f"no {cxx}: g++ is not installed (the C++ fixture is built with it)")


def live(args, cmd, env=None):
    need_perf_events("task")
    p = subprocess.run([perftop, "-b", "--json"] + args + ["--"] + cmd, capture_output=True, text=True,
                       timeout=120, env=env)
    if p.returncode != 0:
        fail(f"perftop {' '.join(args)} exited {p.returncode}: {p.stderr.strip()[:300]}")
    return snapshots(p)


def live_until(args, cmd, stop, env=None):
    """live(), but ended by SIGINT at the first snapshot stop(rows) accepts (ARGS' -n bounds it
    when none does): its snapshots, that one the last."""
    need_perf_events("task")
    full = [perftop, "-b", "--json"] + args + ["--"] + cmd
    p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    seen = []
    try:
        for line in p.stdout:
            seen.append(line)
            if line.lstrip().startswith("{") and stop(json.loads(line).get("rows", [])):
                p.send_signal(signal.SIGINT)
                break
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    if p.returncode != 0:
        fail(f"perftop {' '.join(args)} exited {p.returncode}: {err.strip()[:300]}")
    return snapshots(subprocess.CompletedProcess(full, p.returncode, "".join(seen) + out, err))


def syms(snaps):
    return {r["sym"] for s in snaps for r in s["rows"]}


# demangled by default, raw with --no-demangle
names = syms(live(["-n", "2"], [cxx, "3"]))
want = {"geo::Grid::smooth", "geo::Grid::fill", "geo::detail::accumulate_squares<double>"}
if not want & names:
    fail(f"no demangled C++ name among {sorted(names)[:20]}")
if any(n.startswith("_Z") for n in names):
    fail(f"raw names shown while demangling: {[n for n in names if n.startswith('_Z')][:5]}")
print("demangled:", sorted(want & names))
raw = syms(live(["-n", "2", "--no-demangle"], [cxx, "3"]))
if not {"_ZN3geo4Grid6smoothEi", "_ZN3geo4Grid4fillEm"} & raw:
    fail(f"--no-demangle: no raw _Z name among {sorted(raw)[:20]}")
print("raw:", sorted(n for n in raw if n.startswith("_ZN3geo"))[:3])

# inline frames in Total%, Self% on the function (--inline: a live session, like perf top, has none
# by default). How many samples land inside mix_step's inlined code is the CPU's business (its skid):
# the reference is the session's own recording (-o), each sample's address in work (perf script)
# expanded by eu-addr2line -i: the share with mix_step in its inline chain, and work's share.
need("eu-addr2line")
need("nm")
inl = os.path.join(fixtures, "inline_fixture")
rec = os.path.join(d, "inl.data")
rows = live(["-n", "2", "--inline", "-o", rec], [inl, "3"])[-1]["rows"]
by = {r["sym"]: r for r in rows}
if "mix_step (inlined)" not in by or "work" not in by:
    fail(f"inline fixture: want work and mix_step (inlined) rows, got {sorted(by)[:10]}")
nm_addr = {f[2]: int(f[0], 16) for f in (l.split() for l in subprocess.run(
    ["nm", inl], capture_output=True, text=True).stdout.splitlines()) if len(f) == 3}
script = subprocess.run(["perf", "script", "-i", rec, "-F", "ip,sym,symoff,dso", "-G"],
                        capture_output=True, text=True, timeout=120).stdout.splitlines()
counts, n_all = {}, 0
for line in script:
    n_all += 1
    m = re.match(r"\s*[0-9a-f]+ (\S+)\+0x([0-9a-f]+) \((.*)\)\s*$", line)
    if m and m.group(1) == "work" and os.path.basename(m.group(3)) == "inline_fixture":
        a = nm_addr["work"] + int(m.group(2), 16)
        counts[a] = counts.get(a, 0) + 1
chains = subprocess.run(["eu-addr2line", "--pretty-print", "-i", "-f", "-a", "-e", inl] +
                        [hex(a) for a in counts], capture_output=True, text=True).stdout
in_mix, cur = set(), None
for line in chains.splitlines():
    m = re.match(r"0x([0-9a-f]+): (\S+)", line)
    if m:
        cur = int(m.group(1), 16)
    if cur is not None and re.match(r"(0x[0-9a-f]+: | \(inlined by\) )mix_step ", line):
        in_mix.add(cur)
ref_mix = 100.0 * sum(c for a, c in counts.items() if a in in_mix) / max(1, n_all)
ref_work = 100.0 * sum(counts.values()) / max(1, n_all)
mix, work = by["mix_step (inlined)"], by["work"]
print(f"inline: work self {work['self']:.1f}% (recording: {ref_work:.1f}%), mix_step (inlined) total "
      f"{mix['total']:.1f}% (recording: {ref_mix:.1f}% of {n_all} samples)")
if not counts or mix["self"] != 0 or abs(mix["total"] - ref_mix) > 10 or abs(work["self"] - ref_work) > 10:
    fail(f"inline fixture: work {work}, mix_step {mix}; the recording says work {ref_work:.1f}%, "
         f"mix_step inlined in {ref_mix:.1f}%")
for opts in (["--no-inline"], []):
    rows = live(["-n", "1"] + opts, [inl, "2"])[-1]["rows"]
    if any("(inlined)" in r["sym"] for r in rows):
        fail(f"{opts or 'a live default'}: inline rows shown")

# debuginfod, with a fake server on localhost serving the debug file by build-id
need("objcopy")
prog = os.path.join(d, "prog")
subprocess.run(f"cp {inl} {prog} && objcopy --only-keep-debug {prog} {prog}.debug && strip -s {prog}",
               shell=True, check=True)
bid = subprocess.run(f"readelf -n {prog} | sed -n 's/.*Build ID: *//p'", shell=True, capture_output=True,
                     text=True).stdout.strip()
if len(bid) < 8:
    fail("no build-id in the fixture")
asked = []


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        asked.append(self.path)
        if self.path == f"/buildid/{bid}/debuginfo":
            data = open(prog + ".debug", "rb").read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            self.send_response(404)
            self.end_headers()

    def log_message(self, *a):
        pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=srv.serve_forever, daemon=True).start()
env = dict(os.environ, DEBUGINFOD_URLS=f"http://127.0.0.1:{srv.server_address[1]}",
           DEBUGINFOD_CACHE_PATH=os.path.join(d, "cache"), HOME=d)
# The fetch runs in the background while the session goes on: the program runs long enough for a
# slow machine's fetch (a hang's margin), and the test asks only that some window names work, so the
# session ends at the first that does (SIGINT; exit 0 wanted) instead of running out its 20 windows.
snaps = live_until(["-n", "20", "-d", "0.5"], [prog, "10"],
                   lambda rows: any(r.get("sym") == "work" for r in rows), env=env)
srv.shutdown()
named = [i for i, s in enumerate(snaps) if any(r["sym"] == "work" for r in s["rows"])]
if not any(p.startswith(f"/buildid/{bid}/debuginfo") for p in asked):
    fail(f"debuginfod: the server was not asked for {bid}: {asked}")
if not named:
    fail(f"debuginfod: 'work' never named in {len(snaps)} snapshots: {[sorted(syms([s]))[:5] for s in snaps]}")
print(f"debuginfod: asked {asked}, 'work' named from snapshot {named[0]} of {len(snaps)}")
print("PASS")
