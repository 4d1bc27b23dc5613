# SPDX-License-Identifier: GPL-2.0-or-later
"""What the off-CPU tests share: running blocker (the workload that times its own waits, blocker.c)
under perftop or perf, choosing a directory where fdatasync really waits for a disk, summing
perftop's nanoseconds over its windows, and holding them against the workload's own figures.

References are the workload's clocks (wall time minus the thread's CPU time around each call) and
perf on the same run, never numbers of one machine. A test skips (77) only when what it needs does
not exist here (perf_event_open refused: perfprobe; tracefs not mounted: the tracefs fixture
mounts it), and says why."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from perfprobe import (SKIP, fail, kinds_for, need_perf_events, need_tool, passed,  # noqa: F401,E402
                       perf_script, skip)
import ptjson  # noqa: E402

# The functions where blocker's threads wait (blocker.c); spin_work is off the CPU only when
# preempted.
BLOCKING = ("sleep_wait", "sync_wait", "lock_wait", "hold_lock")
THREADS = ("sleeper", "syncer", "locker", "holder", "spinner")
NON_DISK_FS = ("tmpfs", "ramfs", "devtmpfs", "squashfs", "proc", "sysfs")


def need_tracefs():
    """perf record and timehist read sched_switch from tracefs. The suite's tracefs fixture mounts
    it (lib/tracefs-fixture.sh) and unmounts it after; here the test only asks the filesystem and
    the kernel (perf_probe: tracefs mounted, sched:sched_switch opens) and skips saying why."""
    need_perf_events("tracepoint:sched:sched_switch")


def args():
    """(perftop, blocker) from the command line: PERFTOP FIXTURE_DIR."""
    if len(sys.argv) < 3:
        sys.exit(f"usage: {os.path.basename(sys.argv[0])} PERFTOP FIXTURE_DIR")
    blocker = os.path.join(sys.argv[2], "blocker")
    if not os.access(blocker, os.X_OK):
        fail(f"no blocker at {blocker} (built with the tests)")
    return sys.argv[1], blocker


def fstype(path):
    p = subprocess.run(["findmnt", "-n", "-o", "FSTYPE", "-T", path], capture_output=True,
                       text=True)
    return p.stdout.strip() if p.returncode == 0 else "unknown"


def scratch_dir():
    """A fresh directory (removed at exit) on a disk-backed filesystem if there is one: the system's
    temporary directory, else the build tree the test runs in (ctest's working directory), else
    the fixtures' directory. On tmpfs fdatasync returns at once; the tests then learn it from the
    workload (sync_blocked) and say so. Returns (dir, "PATH (FSTYPE)")."""
    cands = [tempfile.gettempdir(), os.getcwd(), os.path.dirname(os.path.abspath(sys.argv[2]))]
    base = next((c for c in cands if os.access(c, os.W_OK) and fstype(c) not in NON_DISK_FS),
                cands[0])
    d = tempfile.mkdtemp(prefix="perftop-offcpu-", dir=base)
    import atexit
    atexit.register(shutil.rmtree, d, True)
    return d, f"{base} ({fstype(base)})"


def blocker_cmd(blocker, secs, d, out, extra=()):
    return [blocker, str(secs), "--dir", d, "--out", out] + list(extra)


def load_workload(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"the workload's figures ({path}): {e}")


def sync_blocked(w):
    """Whether fdatasync really blocked in this run (the workload's voluntary switches inside
    sync_wait), and a sentence saying what was seen."""
    f = w["functions"]["sync_wait"]
    share = f["off_ns"] / max(1, w["phase_ns"])
    blocked = f["calls"] > 0 and f["blocked_calls"] >= f["calls"] // 2 and share >= 0.05
    what = (f"fdatasync in {w['dir']}: {f['blocked_calls']} of {f['calls']} calls blocked, "
            f"{share:.0%} of the run off the CPU")
    if not blocked:
        what += " - fdatasync never (or hardly) blocked here, so no D rows are required"
    return blocked, what


def snapshots(stdout, what):
    out = ptjson.snapshots(stdout, what)
    if not out:
        fail(f"{what}: no snapshot")
    return out


def run_perftop(perftop, pt_args, cmd=(), timeout=90, env=None):
    """perftop -b --json PT_ARGS [-- CMD]: (snapshots, stderr); fails on a non-zero exit."""
    need_perf_events(*kinds_for(pt_args))
    full = [perftop, "-b", "--json"] + list(pt_args) + (["--"] + list(cmd) if cmd else [])
    p = subprocess.run(full, capture_output=True, text=True, timeout=timeout, env=env)
    if p.returncode != 0:
        fail(f"{' '.join(full)} exited {p.returncode}: {p.stderr.strip()[:400]}")
    return snapshots(p.stdout, " ".join(full)), p.stderr


def check_mode(snaps, mode):
    for s in snaps:
        if s.get("mode") != mode:
            fail(f"a snapshot says mode {s.get('mode')!r}, want {mode!r}: {json.dumps(s)[:300]}")


def need_fields(snaps, fields):
    for s in snaps:
        for r in s["rows"][:20]:
            for f in fields:
                if f not in r:
                    fail(f"row lacks {f!r}: {r}")


def sum_rows(snaps, key, field="total_ns"):
    """field summed over every snapshot (windows of -z: each its own), per key(row)."""
    out = {}
    for s in snaps:
        for r in s["rows"]:
            k = key(r)
            out[k] = out.get(k, 0) + r.get(field, 0)
    return out


def max_rows(snaps, key, field="longest_ns"):
    out = {}
    for s in snaps:
        for r in s["rows"]:
            k = key(r)
            out[k] = max(out.get(k, 0), r.get(field, 0))
    return out


def close(name, ours, ref, tol, slack=0):
    """(ok, line): ours within tol (a fraction) of ref, or within slack ns of it."""
    lim = max(tol * ref, slack)
    ok = abs(ours - ref) <= lim
    line = (f"{name}: perftop {ours / 1e6:.1f} ms, reference {ref / 1e6:.1f} ms "
            f"({(ours - ref) / ref * 100 if ref else 0:+.1f}%, limit {lim / 1e6:.1f} ms)")
    return ok, line


# The program's figure for a call (wall time minus the thread's CPU time around it) and the
# scheduler's (switch-out to switch-in, what perftop and perf sched timehist measure) are not the
# same quantity to the microsecond: the thread's CPU clock stops when the scheduler takes it off the
# run queue, while the switch's marks come after the pick of the next task (and, going idle, the
# load balancing before it) and after every profiler's sample of the switch-out. That lag is paid
# once a switch. For waits of milliseconds it is nothing (sleep_wait, lock_wait: within 0.1%);
# sync_wait switches tens of thousands of times a run for a few hundred microseconds each, and on
# the VMs this suite runs on the two differed by 10-18 us a switch alone and 21 us in a CI run
# (perftop's blocks equal to the switches the program counted, and within 1-3% of perf's switch
# marks of the same run: test_offcpu_timehist holds the syncer to those at 5%). So sync_wait's
# limit is tol plus this much a switch, and its blocks are held to the switches exactly.
SYNC_SWITCH_SLACK_NS = 25e3


def sync_slack(w, ref, switches, tol):
    """The allowance of fdatasync's waits (ref ns over switches context switches): tol plus
    SYNC_SWITCH_SLACK_NS a switch where fdatasync blocked; where it never did, tol or 1% of the
    run."""
    if sync_blocked(w)[0]:
        return tol * ref + SYNC_SWITCH_SLACK_NS * switches
    return max(tol * ref, 0.01 * w["phase_ns"])


def check_functions(by_sym, w, tol, what, funcs=None, note="", blocks=None):
    """Each blocking function's perftop total against the workload's off-CPU time within tol
    (sync_wait only when fdatasync blocked; otherwise within tol or 1% of the run); returns the
    number of checks.

    spin_work (off the CPU only when preempted, thousands of short waits in the run queue) is held
    to its blocks and, from above, to its time. Blocks: every switch of the spinner in its timed
    phase (getrusage) is a block of spin_work's, so perftop's blocks are at least the switches but
    for one at each edge of the phase (a session that covers more than the phase, attached before
    it or system-wide, has more). Time: at most the spinner's own off-CPU time (its run-queue wait
    as schedstat counts it is printed beside) plus tol or 1% of the run. Not from below: the
    kernel's clocks start and stop a wait at the run queue's clock, read when __schedule begins,
    while a block's marks (the sched_switch sample, as perf sched timehist measures too) come
    after the switch-out's own sample and call chain, tens of microseconds later under load; over
    thousands of ~100 us preemptions that is 5-25% of the total, and grows with the load, not with
    any fault of perftop's (seen: 4268 blocks for 4268 switches, 23% short). The timehist test holds
    the spinner's time to perf's tracepoints, the same marks, within 5%."""
    blocked, _ = sync_blocked(w)
    n = 0
    bad = []
    for fn in funcs or BLOCKING + ("spin_work",):
        ref = w["functions"][fn]["off_ns"]
        big = fn in BLOCKING and (fn != "sync_wait" or blocked)
        slack = 0 if big else max(tol * ref, 0.01 * w["phase_ns"])
        if fn == "sync_wait":
            slack = sync_slack(w, ref, w["functions"][fn]["switches"], tol)
        ok, line = close(fn, by_sym.get(fn, 0), ref, tol if big else 0, slack)
        if fn == "sync_wait" and blocks is not None:
            got, want = blocks.get(fn, 0), w["functions"][fn]["switches"]
            line += f"; {got} blocks for its {want} switches"
            if not want - max(2, want // 100) <= got <= want:
                ok = False
                line += " (every switch inside the calls is one block of sync_wait's)"
        if fn == "spin_work":
            ok = by_sym.get(fn, 0) <= ref + max(tol * ref, 0.01 * w["phase_ns"])
            line += "" if ok else " (more than the spinner's own off-CPU time)"
            spinner = w["threads"]["spinner"]
            if spinner.get("run_delay_ns"):
                line += f"; the kernel's run-queue wait of the spinner {spinner['run_delay_ns'] / 1e6:.1f} ms"
            if blocks is not None and "switches" in spinner:
                got = blocks.get(fn, 0)
                line += f"; {got} blocks for its {spinner['switches']} switches"
                if got < spinner["switches"] - 2:
                    ok = False
                    line += " (fewer blocks than switches)"
        print(f"  {what}: {line}")
        if not ok:
            bad.append(line)
        n += 1
    if bad:
        fail(f"{what}: " + "; ".join(bad) + note)
    return n


# The functions that call into libc themselves (blocker.c's helpers), and the timed functions whose
# waits are all theirs: nap sleeps for sleep_wait and hold_lock, write_sync writes and syncs for
# sync_wait, take_release takes the mutex for lock_wait. Debian's libc has no frame pointers, so a
# plain frame-pointer chain taken in nanosleep, fdatasync or the mutex's futex wait skips them.
LIBC_CALLERS = {"nap": ("sleep_wait", "hold_lock"), "write_sync": ("sync_wait",),
                "take_release": ("lock_wait",)}


def check_libc_callers(snaps, w, tol, what):
    """The default call graph (frame pointers, their first frames from CFI): each function that
    blocks inside libc is charged, within tol, the off-CPU time the program measured around the
    calls of it (LIBC_CALLERS; write_sync with sync_wait's allowances). Returns the checks."""
    by_sym = sum_rows(snaps, lambda r: r["sym"])
    bad = []
    for fn, timed in LIBC_CALLERS.items():
        ref = sum(w["functions"][t]["off_ns"] for t in timed)
        switches = sum(w["functions"][t]["switches"] for t in timed)
        slack = sync_slack(w, ref, switches, tol) if fn == "write_sync" else 0
        ok, line = close(f"{fn} (for {' + '.join(timed)})", by_sym.get(fn, 0), ref, tol, slack)
        print(f"  {what}: {line}")
        if not ok:
            bad.append(line)
    if bad:
        fail(f"{what}: functions that block in libc: " + "; ".join(bad))
    return len(LIBC_CALLERS)


def check_snapshots(snaps, w, tol, what, keep=None, funcs=None):
    """check_functions on the rows of snaps (those keep(row) accepts) summed by sym, saying what
    perftop lost (a gap drops the blocks open across it) or dropped in the run."""
    rows = [r for sn in snaps for r in sn["rows"] if keep is None or keep(r)]
    lost = sum(sn.get("lost", 0) for sn in snaps)
    dropped = sum(sn.get("dropped", 0) for sn in snaps)
    # The pairing's own counts (cumulative: the last snapshot's), for a failure to be read by:
    # blocks dropped unpaired and records out of time order.
    pairing = snaps[-1].get("pairing") if snaps else None
    print(f"  {what}: {len(snaps)} snapshots, lost {lost}, dropped {dropped}, pairing {pairing}")
    note = f" (perftop lost {lost} and dropped {dropped} records in this run)" if lost + dropped else ""
    return check_functions(sum_rows([{"rows": rows}], lambda r: r["sym"]), w, tol, what, funcs,
                           note=note, blocks=sum_rows([{"rows": rows}], lambda r: r["sym"],
                                                      "total_blocks"))


def check_states(snaps, w, what):
    """With state among the sort keys: sleep_wait, lock_wait and hold_lock waited mostly in S, and
    sync_wait mostly in D when fdatasync blocked. Returns the number of checks."""
    need_fields(snaps, ("state", "sym", "total_ns"))
    per = sum_rows(snaps, lambda r: (r["sym"], r["state"]))
    states = {}
    for (sym, st), ns in per.items():
        states.setdefault(sym, {})[st] = ns
    n = 0
    for fn, want, share in (("sleep_wait", "S", 0.9), ("lock_wait", "S", 0.9),
                            ("hold_lock", "S", 0.9), ("sync_wait", "D", 0.8)):
        got = states.get(fn, {})
        tot = sum(got.values())
        pretty = ", ".join(f"{k} {v / 1e6:.1f} ms" for k, v in sorted(got.items(), key=lambda kv: -kv[1]))
        print(f"  {what}: {fn} by state: {pretty or 'no rows'}")
        if fn == "sync_wait":
            blocked, why = sync_blocked(w)
            if not blocked:
                print(f"  {what}: {why}")
                continue
        if tot == 0 or got.get(want, 0) < share * tot:
            fail(f"{what}: {fn} should be at least {share:.0%} in state {want}: {pretty or 'no rows'}")
        n += 1
    return n
