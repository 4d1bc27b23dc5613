"""Shared helpers of the Python frames tests (issue 17): the CPython interpreters of this machine,
found when the test runs (pyenv's by `pyenv prefix X`, else under $PYENV_ROOT or ~/.pyenv; Debian's
/usr/bin/python3.11), and the acceptance checks on perftop's JSON snapshots of tests/python/pysplit.py:
alpha() and beta() run the same inner() in a 7:3 ratio of work units."""
import glob
import os
import shutil
import subprocess
import sys

sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "e2e"))
from e2elib import fail  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PYSPLIT = os.path.join(HERE, "pysplit.py")
SHARE, SHARE_TOL = 0.70, 0.06
# Seconds of pysplit.py a share is measured over. Each sample takes the Python stack of the read
# nearest to it, and by default perftop reads about 100 times a second in a VM (its CPU budget,
# python/pywatch.c): the share is then an average over some 100 reads a second, each alpha's or
# beta's as the moment it fell on, so its spread is about sqrt(0.7 * 0.3 / reads) (0.023 over 4 s,
# seen: 0.656-0.739 in 30 runs). Over 8 s it is 0.016, and 0.06 is 3.7 of it.
SPLIT_SECS = 8


def pyenv_python(version):
    """pyenv's python of version X.Y (its newest patch release), or None."""
    pyenv = shutil.which("pyenv")
    if pyenv:
        p = subprocess.run([pyenv, "prefix", version], capture_output=True, text=True)
        prefix = p.stdout.strip().splitlines()[-1] if p.returncode == 0 and p.stdout.strip() else ""
        exe = os.path.join(prefix, "bin", "python" + version)
        if prefix and os.access(exe, os.X_OK):
            return exe
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    found = sorted(glob.glob(os.path.join(root, "versions", version + ".*", "bin", "python" + version)))
    return found[-1] if found else None


def pythons(wanted):
    """[(label, path)] of the wanted interpreters installed here; says which are not."""
    out = []
    for label in wanted:
        if label.startswith("debian"):
            exe = "/usr/bin/python" + label.split()[1]
            exe = exe if os.access(exe, os.X_OK) else None
        else:
            exe = pyenv_python(label.split()[1])
        if exe:
            out.append((label, exe))
        else:
            print(f"skip: {label} is not installed here")
    return out


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


def check_split(snaps, what, whole=True):
    """The acceptance checks; returns the number of checks made. whole: the samples are the
    workload's alone (not -a's), so alpha+beta must cover 70% of them."""
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
    print(f"{what}: alpha {a:.0f} beta {b:.0f} inner {inner:.0f} of {n} samples: alpha's share "
          f"{share:.3f}, alpha+beta cover {cover:.3f}")
    if abs(share - SHARE) > SHARE_TOL:
        fail(f"{what}: alpha's share of alpha+beta is {share:.3f}, not {SHARE} +- {SHARE_TOL}")
    if whole and cover < 0.70:
        fail(f"{what}: alpha+beta cover {cover:.3f} of the samples, less than 0.70")
    # inner runs only under alpha and beta: a Total above both (by 5% of the samples) is inner
    # on stacks outside each of them, so under both
    if inner < max(a, b) + 0.05 * n:
        fail(f"{what}: inner's Total {inner:.0f} is not above alpha's {a:.0f} and beta's {b:.0f}:"
             " it does not show under both")
    native = [k for k, v in total.items()
              if k[0] not in ("[python]", "[unknown]") and v >= 0.01 * n]
    if not native:
        fail(f"{what}: no native row (of a known binary) with 1% of the samples left")
    print(f"{what}: native rows kept, e.g. {sorted(native, key=lambda k: -total[k])[:3]}")
    return 4
