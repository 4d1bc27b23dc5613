"""The names' pool is bounded by compaction (src/symbolize/intern.h): a replay whose pool is
compacted at nearly every window (PERFTOP_NAMES_FLOOR=1, on the ASan+UBSan build, which would stop
at any read of a freed name) prints exactly what a replay without compaction prints, window after
window, on a recording full of names that come and go (short processes recorded system-wide with
call graphs: their unnamed addresses, comms and binaries).

usage: test_replay_names.py PERFTOP PERFTOP_ASAN"""
import os
import re
import subprocess
import sys

from replaylib import fail, perf_record, tmpdir

perftop, perftop_asan = sys.argv[1], sys.argv[2]
d = tmpdir()
data = os.path.join(d, "churn.data")
perf_record(["-a", "-g", "-e", "cpu-clock", "-F", "999"], data,
            ["sh", "-c", "for i in $(seq 400); do /bin/true; ls / >/dev/null; "
                         "awk 'BEGIN{for(i=0;i<3000;i++)s+=i}'; done"])

env = dict(os.environ)
for sort in ("dso,sym", "comm,pid,dso,sym,srcline"):
    args = ["-i", data, "-b", "--json", "-d", "0.1", "-s", sort]
    plain = subprocess.run([perftop] + args, capture_output=True, text=True, timeout=300)
    if plain.returncode != 0:
        fail(f"perftop {' '.join(args)} exited {plain.returncode}: {plain.stderr.strip()[:300]}")
    env["PERFTOP_NAMES_FLOOR"] = "1"
    env["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0"
    comp = subprocess.run([perftop_asan] + args, capture_output=True, text=True, timeout=300,
                          env=env)
    if comp.returncode != 0:
        fail(f"compacting replay exited {comp.returncode}: {comp.stderr.strip()[-1500:]}")
    m = re.search(r"names: (\d+) compactions", comp.stderr)
    n = int(m.group(1)) if m else 0
    lines = plain.stdout.count("\n")
    print(f"-s {sort}: {lines} windows, {n} compactions")
    if lines < 5:
        fail(f"too few windows to test ({lines})")
    if n < 2:
        fail(f"the pool was compacted {n} times: {comp.stderr.strip()[-300:]}")
    if plain.stdout != comp.stdout:
        a, b = plain.stdout.splitlines(), comp.stdout.splitlines()
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                fail(f"window {i} differs with compaction:\n{x[:400]}\n{y[:400]}")
        fail(f"{len(a)} windows without compaction, {len(b)} with")
print("ok: the same output with the names compacted")
