#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""No include circles in src/: the graph of its modules (a .c and its .h are one module: ui/keys is
ui/keys.c and ui/keys.h; a module's internal header NAME_int.h, shared by the files of one module
split in several, is part of NAME), an edge for each quoted #include (resolved beside the file, then
against src/), must have no cycle. A cycle is printed with the includes that make it, and the exit is 1.

    check_includes.py SRC_DIR
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def module_of(relpath):
    """The module a file of src/ belongs to (see above)."""
    mod = os.path.splitext(relpath)[0]
    return mod[:-4] if mod.endswith("_int") and relpath.endswith(".h") else mod


def modules(src):
    """{module: [(file, line number, included module)]} for every .c and .h under src."""
    graph = {}
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(root, name)
            mod = module_of(os.path.relpath(path, src))
            edges = graph.setdefault(mod, [])
            with open(path, encoding="utf-8", errors="replace") as f:
                for no, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    for base in (root, src):
                        target = os.path.normpath(os.path.join(base, m.group(1)))
                        if os.path.isfile(target):
                            dep = module_of(os.path.relpath(target, src))
                            if dep != mod:
                                edges.append((os.path.relpath(path, src), no, dep))
                            break
    return graph


def components(graph):
    """Tarjan's strongly connected components with more than one module."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for _, _, w in graph.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def one_cycle_edges(graph, comp):
    """A shortest cycle through comp's first module: the includes that make it."""
    members, start = set(comp), comp[0]
    came = {start: None}  # module -> the edge (file, line, module) it was reached by, and from where
    queue = [start]
    while queue:
        nxt = []
        for v in queue:
            for file, no, w in graph[v]:
                if w not in members:
                    continue
                if w == start:
                    path = [(file, no, w)]
                    while came[v] is not None:
                        src_mod, edge = came[v]
                        path.append(edge)
                        v = src_mod
                    return list(reversed(path))
                if w not in came:
                    came[w] = (v, (file, no, w))
                    nxt.append(w)
        queue = nxt
    return []


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    graph = modules(sys.argv[1])
    comps = components(graph)
    for comp in comps:
        print("include circle among:", " ".join(comp))
        for file, no, dep in one_cycle_edges(graph, comp):
            print(f"  {file}:{no} includes {dep}")
    if comps:
        sys.exit(1)
    n = sum(len(e) for e in graph.values())
    print(f"ok: {len(graph)} modules of {sys.argv[1]}, {n} includes between them, no circle")


if __name__ == "__main__":
    main()
