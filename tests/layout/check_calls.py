#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""No circle of calls between perftop's source files: the include check (check_includes.py) sees
the headers a file includes, not the functions it calls, so two files whose functions call each
other through one shared header (or an inline function, or a declaration in a third header) pass
it. This reads what each object file of perftop and its libraries defines and what it uses (nm) and
fails on every circle between files, naming the files and the symbols that close it. A .c file is a
node; an edge A -> B when A uses a symbol B defines.

    check_calls.py BUILD_DIR

Objects are those of the perftop executable and its perftop_* libraries (not the sanitizer copies,
the tests or the tools)."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_includes import components  # noqa: E402 (the same cycle search over another graph)

build = sys.argv[1]


def objects():
    """{source path relative to the repository: object path}."""
    out = {}
    for root, _, files in os.walk(build):
        m = re.search(r"(?:^|/)(src/[^/]+/)?CMakeFiles/(perftop(?:_[a-z]+)?)\.dir(/.*)?$",
                      os.path.relpath(root, build))
        if not m or m.group(2).endswith(("_asan", "_tsan")) or m.group(2) == "perftop_docgen":
            continue
        for f in files:
            if not f.endswith(".c.o"):
                continue
            rel = os.path.relpath(os.path.join(root, f), build)
            src = rel.split(".dir/", 1)[1][:-2]
            if m.group(1):
                src = m.group(1) + src
            if "gen/" in src:
                continue
            out[src] = os.path.join(build, rel)
    return out


def symbols(paths):
    """{path: (defined, used)} from one nm over every object (-A: each line names its file)."""
    p = subprocess.run(["nm", "-A"] + paths, capture_output=True, text=True, check=True)
    out = {path: (set(), set()) for path in paths}
    for line in p.stdout.splitlines():
        path, _, rest = line.rpartition(":")
        parts = rest.split()
        if path not in out:
            continue
        if len(parts) == 2 and parts[0] == "U":
            out[path][1].add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRVWGS" and parts[1].isupper():
            out[path][0].add(parts[2])
    return out


objs = objects()
if len(objs) < 20:
    print(f"FAIL: found {len(objs)} object files under {build}: is it built?")
    sys.exit(1)
defs, uses = {}, {}
syms = symbols(list(objs.values()))
for src, path in objs.items():
    defs[src], uses[src] = syms[path]
owner = {}
for src, ds in defs.items():
    for s in ds:
        owner.setdefault(s, src)
edges, why = {}, {}
for src, us in uses.items():
    for s in us:
        o = owner.get(s)
        if o and o != src:
            edges.setdefault(src, set()).add(o)
            why.setdefault((src, o), []).append(s)
# check_includes' graph form: {node: [(file, line, node it uses)]}
bad = components({src: [(src, 0, dep) for dep in sorted(edges.get(src, ()))] for src in objs})
for comp in bad:
    inside = set(comp)
    links = [f"{a} -> {b} ({', '.join(sorted(why[(a, b)])[:3])})" for a in comp
             for b in sorted(edges.get(a, ())) if b in inside]
    print(f"circle: {' , '.join(comp)}: " + "; ".join(links))
print(f"{len(objs)} files, {sum(len(v) for v in edges.values())} file-to-file uses, "
      f"{len(bad)} circles")
sys.exit(1 if bad else 0)
