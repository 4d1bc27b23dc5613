#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A Python function called back from C under Python: pysorted.py's keyfn is called back by the
builtin sorted (C), itself called by caller (Python). With --call-graph dwarf (whole native
chains), the stacks perftop exports (--export FILE.folded: root first) read main's native frames,
then <module>, main, caller, then the builtin's native frames, then keyfn: each run of Python frames
in the place of its own call of the eval loop. For every interpreter of the CPython version given
(pylib.py finds them; none: a skip).

usage: test_python_callback.py PERFTOP FIXTURE_DIR VERSION"""
import os
import re
import shutil
import tempfile

from e2elib import fail, passed, run_json
from pylib import HERE, pythons_of, version_arg

# The first interpreter of the version: the others of it (Debian's, its debug build) are read by
# test_python_live; this test's subject is the same for each, and the suite's time is bounded.
found = pythons_of(version_arg())[:1]
script = os.path.join(HERE, "pysorted.py")
d = tempfile.mkdtemp(prefix="perftop-pycb-")
checks = 0
try:
    for i, py in enumerate(found):
        out = os.path.join(d, f"{i}.folded")
        run_json(["-n", "3", "-d", "1", "--call-graph", "dwarf", "--export", out, "--", py.exe, script,
                  "3"], timeout=120)
        stacks = {}
        for line in open(out):
            stack, _, n = line.rstrip("\n").rpartition(" ")
            stacks[stack] = stacks.get(stack, 0) + int(n)
        total = sum(stacks.values())
        # caller, then native frames only (the builtin), then keyfn
        shape = re.compile(r";caller \(pysorted\.py\);(?:[^;()]+;)+keyfn \(pysorted\.py\)(;|$)")
        good = sum(n for s, n in stacks.items() if shape.search(s) and ";main (pysorted.py);" in s)
        key = sum(n for s, n in stacks.items() if "keyfn (pysorted.py)" in s)
        # Of the samples that have Python frames at all: on a loaded machine the watcher reads less
        # often and more samples have none (the Python share tests bound that by the reads made);
        # this test's subject is where the frames go, so keyfn is held to those that have some.
        withpy = sum(n for s, n in stacks.items() if "(pysorted.py)" in s)
        best = max(stacks, key=lambda s: stacks[s] if "keyfn" in s else 0)
        print(f"{py.label}: {good} of {key} samples in keyfn ({withpy} with Python frames, {total} in "
              f"all) read caller -> native -> keyfn; e.g. {best[-230:]}")
        if withpy < 0.2 * total or key < 0.5 * withpy or good < 0.9 * key:
            fail(f"{py.label}: {good} of {key} keyfn samples (of {withpy} with Python frames, {total} "
                 "in all) have caller, native frames, keyfn in that order")
        checks += 1
finally:
    shutil.rmtree(d, True)
passed(checks)
