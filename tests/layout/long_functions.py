#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Functions longer than the team's limit (120 lines, from the line that starts the definition to
its closing brace) in the C files under src/, and source files longer than theirs (1,200 lines):
a file past that holds several subjects, a function past this several steps. Definitions are found by the project's style
(.clang-format): the opening brace of a function alone on a line at column 0, its signature from
the last line above that starts at column 0.

    long_functions.py SRC_DIR [--max N] [--max-file N] [--allow NAME]...

Lists every function over N lines, longest first; exits 1 if one of them is not allowed (--allow:
known ones, being split elsewhere). An allowed function that is short now is only noted.
"""
import argparse
import os
import re
import sys


def functions(path):
    """[(name, first line, length)] of the function definitions in a C file."""
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        if lines[i] != "{":
            i += 1
            continue
        start = i - 1
        while start > 0 and lines[start][:1] in (" ", "\t"):
            start -= 1  # a signature continued on indented lines
        end = i + 1
        while end < len(lines) and lines[end] != "}":
            end += 1
        sig = " ".join(lines[start:i])
        m = re.search(r"(\w+)\s*\(", sig)
        if m and end < len(lines):
            out.append((m.group(1), start + 1, end - start + 1))
        i = end + 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src")
    ap.add_argument("--max", type=int, default=120)
    ap.add_argument("--max-file", type=int, default=1200)
    ap.add_argument("--allow", action="append", default=[])
    a = ap.parse_args()
    found, seen = [], {}
    for root, _, files in os.walk(a.src):
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    nlines = sum(1 for _ in f)
                if nlines > a.max_file:
                    found.append((nlines, os.path.relpath(path, a.src), 1, "(the file)"))
            if name.endswith(".c"):
                for fn, line, n in functions(path):
                    seen[fn] = max(seen.get(fn, 0), n)
                    if n > a.max:
                        found.append((n, os.path.relpath(path, a.src), line, fn))
    bad = 0
    for n, path, line, fn in sorted(found, reverse=True):
        allowed = fn in a.allow
        bad += not allowed
        limit = a.max_file if fn == "(the file)" else a.max
        print(f"{path}:{line}: {fn} is {n} lines (over {limit}){' (allowed for now)' if allowed else ''}")
    for fn in a.allow:
        if seen.get(fn, 0) <= a.max:
            print(f"note: {fn} is allowed but is {seen.get(fn, 'not found')}"
                  f"{' lines' if fn in seen else ''} now: drop it from the list")
    if bad:
        sys.exit(1)
    print(f"ok: no function over {a.max} lines and no file over {a.max_file} in {a.src}"
          f"{' but the allowed ones' if found else ''}")


main()
