# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared helpers of the Python frames tests: the CPython interpreters of this machine, found when
the test runs wherever they are, and the acceptance checks on perftop's JSON snapshots of
tests/python/pysplit.py (alpha() and beta() run the same inner() in a 7:3 ratio of work units).

Where interpreters are looked for: every python3.X and python3.Xd (a debug build, as Debian's
python3.X-dbg installs) in each directory of PATH, pyenv's versions (under $PYENV_ROOT or
~/.pyenv, where `pyenv root` says) and /usr/bin, /usr/local/bin. Each is asked what it is (its
version, its real executable, whether it is a debug or free-threaded build), and each real file
counts once. A test
takes the version it is given (CMakeLists.txt makes one ctest test per version) and runs every
interpreter of that version found; when there is none it exits 77 saying where it looked, so that a
version this machine lacks is a skip ctest reports, per version, never a silent pass."""
import glob
import math
import os
import re
import subprocess
import sys

sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "e2e"))
from e2elib import SKIP, fail  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PYSPLIT = os.path.join(HERE, "pysplit.py")
# The versions whose Python frames perftop reads (src/python/pyproc.c: 3.8 to 3.12 from its own
# table, 3.13 from the interpreter's _Py_DebugOffsets), and one it must refuse: 3.7 has no layout
# perftop knows, and a process of it keeps its native frames (test_python_old.py --refuse).
READ_VERSIONS = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13")
UNKNOWN_LAYOUT_VERSIONS = ("3.7",)
NAME = re.compile(r"python3\.(\d+)d?$")
SHARE = 0.70
# Seconds of pysplit.py a share is measured over, and how the share may stray from 0.70: a sample
# takes the Python stack of the read nearest to it, and perftop reads at least 100 times a second
# (src/python/pywatch.c, SLOW_NS), each read alpha's or beta's as the moment it fell on: the share
# is a binomial proportion over the reads (or over the samples, when they are fewer), and it may
# stray by Z of its standard error (share_tol). Over 6 s that is 600 reads: 0.075 (the spread
# seen over 4 s, 0.023 in 30 runs, is the binomial's for 400 reads: Z = 4 holds it at 4 sigma).
SPLIT_SECS = 6
READS_PER_SEC = 100
Z = 4.0


def share_tol(n, p=SHARE):
    """The bound on |share - p| for a proportion over n independent draws: Z standard errors."""
    return Z * math.sqrt(p * (1 - p) / max(n, 1))


_roots = None


def _pyenv_roots():
    """The pyenv roots here (each with a versions directory), found once. They are what `pyenv
    root` prints ($PYENV_ROOT, else ~/.pyenv: libexec/pyenv and pyenv-root), without running it:
    pyenv is a bash script, about half a second of CPU a run on this VM."""
    global _roots
    if _roots is not None:
        return _roots
    roots = [os.environ.get("PYENV_ROOT"), os.path.join(os.path.expanduser("~"), ".pyenv")]
    out = []
    for r in roots:
        if r and os.path.isdir(os.path.join(r, "versions")) and os.path.realpath(r) not in out:
            out.append(os.path.realpath(r))
    _roots = out
    return out


def _candidates():
    """[(where, path)] of every file named python3.X or python3.Xd in the places looked at."""
    dirs = [("PATH", d) for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    for root in _pyenv_roots():
        dirs += [("pyenv", d) for d in sorted(glob.glob(os.path.join(root, "versions", "*", "bin")))]
    dirs += [("system", "/usr/bin"), ("system", "/usr/local/bin")]
    out = []
    for where, d in dirs:
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        out += [(where, os.path.join(d, n)) for n in names if NAME.match(n)]
    return out


# What an interpreter says of itself: its version, the file it runs from, its build.
ASK = ("import sys, sysconfig; v = sys.version_info; "
       "print(sys.implementation.name, '%d.%d' % v[:2], '%d.%d.%d' % v[:3], sys.executable, "
       "int(hasattr(sys, 'gettotalrefcount')), int(bool(sysconfig.get_config_var('Py_GIL_DISABLED'))), "
       "int(bool(sysconfig.get_config_var('Py_TRACE_REFS'))))")


class Python:
    def __init__(self, version, release, exe, debug, free_threaded, trace_refs, where):
        self.version, self.release, self.exe = version, release, exe
        self.debug, self.free_threaded, self.trace_refs, self.where = \
            debug, free_threaded, trace_refs, where
        self.label = f"{release}{'d' if debug else ''}{'t' if free_threaded else ''} {exe}"

    def __repr__(self):
        return self.label


_found = {}


def _is_elf(path):
    """An interpreter itself, not a script that starts one (pyenv's shims are bash scripts, slow to
    run and standing for interpreters found under pyenv's versions anyway)."""
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def find_pythons(version):
    """[Python] of every CPython X.Y (version) interpreter found here, each real executable once, in
    the order found (PATH's first). Only the files named python3.Y and python3.Yd are asked."""
    if version in _found:
        return _found[version]
    found, seen, asked = [], set(), set()
    for where, path in _candidates():
        if os.path.basename(path) not in (f"python{version}", f"python{version}d"):
            continue
        real = os.path.realpath(path)
        if real in asked or not os.access(real, os.X_OK) or not _is_elf(real):
            continue
        asked.add(real)
        try:
            p = subprocess.run([path, "-I", "-S", "-c", ASK], capture_output=True, text=True,
                               timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        f = p.stdout.split()
        if p.returncode != 0 or len(f) != 7 or f[0] != "cpython" or f[1] != version:
            continue
        exe = os.path.realpath(f[3]) if f[3] else os.path.realpath(path)
        if exe in seen:
            continue
        seen.add(exe)
        if any(exe.startswith(r + "/") for r in _pyenv_roots()):
            where = "pyenv"
        found.append(Python(f[1], f[2], exe, f[4] == "1", f[5] == "1", f[6] == "1", where))
    _found[version] = found
    return found


def pythons_of(version):
    """The interpreters of version X.Y found here whose frames perftop is meant to read (3.8-3.13)
    or refuse (3.7); exits 77 when there is none, saying where it looked. Builds whose struct layout
    neither perftop's table nor the interpreter's own offsets describe (free-threaded, Py_TRACE_REFS)
    are left out, and said."""
    found = find_pythons(version)
    out = []
    for p in found:
        if p.free_threaded or p.trace_refs:
            print(f"not tested: {p.label}: a {'free-threaded' if p.free_threaded else 'Py_TRACE_REFS'}"
                  " build, whose layout perftop does not describe")
        else:
            out.append(p)
    print(f"CPython {version} here: {out or 'none'}")
    if not out:
        roots = ", ".join(_pyenv_roots()) or "no pyenv root"
        print(f"SKIP: no CPython {version} on this machine (python{version} and python{version}d "
              f"looked for on PATH, in pyenv's versions ({roots}) and in /usr/bin, /usr/local/bin)")
        sys.exit(SKIP)
    return out


def version_arg():
    """The version a test is run for: its third argument (CMakeLists.txt)."""
    known = READ_VERSIONS + UNKNOWN_LAYOUT_VERSIONS
    if len(sys.argv) < 4 or sys.argv[3] not in known:
        sys.exit(f"usage: {os.path.basename(sys.argv[0])} PERFTOP FIXTURE_DIR VERSION (one of {known})")
    return sys.argv[3]


def sums(snaps):
    """Samples of each (dso, sym) row anywhere on the stack (Total), over every snapshot (-z: each
    window its own), and all samples."""
    total, all_samples = {}, 0
    for s in snaps:
        all_samples += s["samples"]
        for r in s["rows"]:
            k = (r["dso"], r["sym"])
            total[k] = total.get(k, 0.0) + r["total"] * s["samples"] / 100.0
    return total, all_samples


PY_STATS_ENV = dict(os.environ, PERFTOP_PY_STATS="1")
_WATCHER_READS = re.compile(r"watcher (\d+) reads")


def watcher_reads(stderr):
    """The reads perftop's Python watcher made, from the line PERFTOP_PY_STATS=1 has it print
    (None without one). On a busy machine the watcher may read less often than READS_PER_SEC, and
    the share is then a proportion over fewer draws."""
    m = _WATCHER_READS.findall(stderr or "")
    return int(m[-1]) if m else None


def check_split(snaps, what, whole=True, secs=SPLIT_SECS, reads=None):
    """The acceptance checks; returns the number of checks made. whole: the samples are the
    workload's alone (not -a's), so alpha+beta must cover 70% of them. secs: how long the samples
    were taken over (the reads the share is a proportion of: share_tol). reads: the reads the
    watcher made (watcher_reads), when fewer than READS_PER_SEC over secs."""
    total, n = sums(snaps)
    if n < 500:
        fail(f"{what}: only {n} samples")

    def py(fn):
        return total.get(("[python]", f"{fn} (pysplit.py)"), 0.0)
    a, b, inner = py("alpha"), py("beta"), py("inner")
    if a + b <= 0:
        rows = sorted(total.items(), key=lambda kv: -kv[1])[:12]
        fail(f"{what}: no alpha/beta rows; top Totals: {rows}")
    share, cover = a / (a + b), (a + b) / n
    draws = min(a + b, READS_PER_SEC * secs, reads if reads else READS_PER_SEC * secs)
    tol = share_tol(draws)
    print(f"{what}: alpha {a:.0f} beta {b:.0f} inner {inner:.0f} of {n} samples: alpha's share "
          f"{share:.3f} (want {SHARE} +- {tol:.3f} over {draws:.0f} draws; watcher reads "
          f"{reads if reads is not None else 'not told'}), alpha+beta cover {cover:.3f}")
    if abs(share - SHARE) > tol:
        fail(f"{what}: alpha's share of alpha+beta is {share:.3f}, not {SHARE} +- {tol:.3f}")
    if whole and cover < 0.70:
        fail(f"{what}: alpha+beta cover {cover:.3f} of the samples, less than 0.70")
    # inner runs only under alpha and beta: a Total above both (by 5% of theirs: inner under both
    # is about 30% above alpha) is inner on stacks outside each of them, so under both. Of theirs,
    # not of all samples: with -a the rest of the machine may take most of them.
    if inner < max(a, b) + 0.05 * (a + b):
        fail(f"{what}: inner's Total {inner:.0f} is not above alpha's {a:.0f} and beta's {b:.0f}:"
             " it does not show under both")
    native = [k for k, v in total.items()
              if k[0] not in ("[python]", "[unknown]") and v >= 0.01 * n]
    if not native:
        fail(f"{what}: no native row (of a known binary) with 1% of the samples left")
    print(f"{what}: native rows kept, e.g. {sorted(native, key=lambda k: -total[k])[:3]}")
    return 4
