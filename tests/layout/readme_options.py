#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The README's option table (the | option | meaning | table under "## Usage") against perftop's own
option table: it must list every option `perftop --help` lists and no other, and be, to the letter,
what `perftop --markdown-options` prints from src/cli/cli.c's table (so a text is changed there, once).

    readme_options.py PERFTOP README.md           check (a ctest)
    readme_options.py PERFTOP README.md --write   rewrite the README's table from perftop's
"""
import difflib
import re
import subprocess
import sys


def option_words(names):
    """The option words of a names cell or --help's names column: "-p", "--pid", "--"."""
    return {w for w in re.split(r"[\s,`]+", names) if w.startswith("-")}


def help_options(perftop):
    out = subprocess.run([perftop, "--help"], capture_output=True, text=True, check=True).stdout
    found = set()
    for line in out.splitlines():
        # "  -p, --pid PID[,PID...]     text" or "      --time START,END   text": the names end
        # at the first run of two spaces.
        m = re.match(r"^ {2,6}(-\S.*?)(?: {2,}|$)", line)
        if m:
            found |= option_words(m.group(1))
    return found


def readme_table(lines):
    """(first, end) line indices of the table under ## Usage."""
    usage = next((i for i, l in enumerate(lines) if l.strip() == "## Usage"), None)
    if usage is None:
        sys.exit("README.md has no '## Usage' section")
    first = next((i for i in range(usage + 1, len(lines))
                  if lines[i].startswith("| option | meaning |")), None)
    if first is None or any(l.startswith("## ") for l in lines[usage + 1:first]):
        sys.exit("README.md's Usage section has no '| option | meaning |' table")
    end = first
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return first, end


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--write"):
        sys.exit(__doc__)
    perftop, readme = sys.argv[1], sys.argv[2]
    lines = open(readme, encoding="utf-8").read().split("\n")
    first, end = readme_table(lines)
    want = subprocess.run([perftop, "--markdown-options"], capture_output=True, text=True,
                          check=True).stdout.rstrip("\n").split("\n")
    if len(sys.argv) == 4:
        lines[first:end] = want
        open(readme, "w", encoding="utf-8").write("\n".join(lines))
        print(f"{readme}: the option table rewritten ({len(want) - 2} options)")
        return
    table = lines[first:end]
    in_help = help_options(perftop)
    in_readme = set()
    for row in table[2:]:
        in_readme |= option_words(row.split(" | ")[0])
    ok = True
    if in_help - in_readme:
        print("in perftop --help but not in the README's table:", " ".join(sorted(in_help - in_readme)))
        ok = False
    if in_readme - in_help:
        print("in the README's table but not in perftop --help:", " ".join(sorted(in_readme - in_help)))
        ok = False
    if table != want:
        print("the README's table is not what perftop --markdown-options prints:")
        sys.stdout.writelines(difflib.unified_diff([l + "\n" for l in table], [l + "\n" for l in want],
                                                   "README.md", "perftop --markdown-options"))
        ok = False
    if not ok:
        print(f"(the table is src/cli/cli.c's; after changing it: {sys.argv[0]} {perftop} {readme} --write)")
        sys.exit(1)
    print(f"ok: the README's option table lists the {len(in_help)} option words of perftop --help, "
          "as perftop --markdown-options prints them")


main()
