#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The repository's own rules a newcomer relies on, checked on the tree:
  - the README is at most 250 lines and links every page of docs/ (and bench/README.md);
  - a LICENSE is there, and every source file (C, headers, scripts, CMake) carries an SPDX line in
    its first lines;
  - no comment in src/ or tests/ cites "issue N" of a tracker a reader does not have: a comment
    gives the reason.

    repo_rules.py ROOT
"""
import os
import re
import sys

TAG = "SPDX-License-Identifier:"
SOURCE_DIRS = ["src", "tests", "bench", "fuzz", "cmake"]


def sources(root):
    for top in SOURCE_DIRS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                ext = os.path.splitext(f)[1]
                if ext in (".c", ".h", ".py", ".sh", ".cmake") or f == "CMakeLists.txt":
                    yield os.path.join(d, f)
    for f in ("CMakeLists.txt", "Makefile"):
        yield os.path.join(root, f)


def main():
    root = sys.argv[1]
    bad = []
    readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    nlines = readme.count("\n")
    if nlines > 250:
        bad.append(f"README.md is {nlines} lines (at most 250)")
    links = set(re.findall(r"\]\(([^)#\s]+)", readme))
    pages = ["docs/" + f for f in sorted(os.listdir(os.path.join(root, "docs"))) if f.endswith(".md")]
    for page in pages + ["bench/README.md"]:
        if page not in links:
            bad.append(f"README.md does not link {page}")
    if not os.path.isfile(os.path.join(root, "LICENSE")):
        bad.append("no LICENSE")
    issue = re.compile(r"\bissues? #?\d+\b", re.I)
    for path in sources(root):
        rel = os.path.relpath(path, root)
        text = open(path, encoding="utf-8", errors="replace").read()
        if TAG not in "\n".join(text.split("\n")[:3]):
            bad.append(f"{rel}: no SPDX line in its first lines")
        if rel.startswith(("src/", "tests/")):
            for n, line in enumerate(text.split("\n"), 1):
                if issue.search(line):
                    bad.append(f"{rel}:{n}: cites an issue number: {line.strip()[:80]}")
    for b in bad:
        print(b)
    if bad:
        sys.exit(1)
    print(f"ok: README {nlines} lines linking {len(pages)} docs pages and bench/; LICENSE; SPDX and "
          "no issue numbers in the sources")


main()
