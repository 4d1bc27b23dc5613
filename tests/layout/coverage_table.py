#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""docs/test-coverage.md against what perftop has: every option `perftop --help` lists and every key
of every key table (`perftop_docgen keys`, written from the same tables keys_handle dispatches
through and the man page lists) must have a row there naming the ctest tests that check its effect;
the table may name no option or key perftop does not have; every test it names must be registered
in ctest (`ctest --show-only=json-v1` in the build directory); and for an option, at least one of
the named tests' own files (its script, or its C sources in tests/<area>/CMakeLists.txt) must
mention the option (its long or short name), so a row cannot point at a test that never passes it.

    coverage_table.py PERFTOP PERFTOP_DOCGEN TABLE.md BUILD_DIR SOURCE_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

# Rows whose test is being written elsewhere and is named by a TODO for now (the option's word, and
# why). A TODO row for any other option, or an option here with a real row, fails.
ALLOWED_TODO = {}

problems = []


def problem(msg):
    problems.append(msg)


def option_words(names):
    """The option words of a names cell or --help's names column: "-p", "--pid", "--"."""
    return {w for w in re.split(r"[\s,`]+", names) if w.startswith("-")}


def help_options(perftop):
    """The options of --help, each as the set of its words ({"-p", "--pid"})."""
    out = subprocess.run([perftop, "--help"], capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        # "  -p, --pid PID[,PID...]     text" or "      --time START,END   text": the names end at
        # the first run of two spaces.
        m = re.match(r"^ {2,6}(-\S.*?)(?: {2,}|$)", line)
        if m:
            found.append(frozenset(option_words(m.group(1))))
    return found


def table_keys(docgen):
    """(table, key) of every key `perftop_docgen keys` lists."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "keys.txt")
        subprocess.run([docgen, "keys", out], check=True)
        lines = open(out, encoding="utf-8").read().splitlines()
    keys = []
    for line in lines:
        parts = line.split("\t")
        if len(parts) < 2:
            sys.exit(f"perftop_docgen keys: a line without a table and a key: {line!r}")
        keys.append((parts[0], parts[1]))
    return keys


def md_cells(line):
    """The cells of a Markdown table row. A backslash-escaped pipe is part of a cell."""
    body = line.strip()[1:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", body)]


def code(cell):
    """The text of a cell that is one `code` span ("`\\`" is a backslash)."""
    m = re.fullmatch(r"`(.+)`", cell)
    return m.group(1) if m else None


def test_names(cell):
    """The tests of a cell: `name`, `name` ... or TODO WORD."""
    if cell.startswith("TODO"):
        return None
    names = re.findall(r"`([^`]+)`", cell)
    return names


def read_table(path):
    """Options rows {frozenset(words): tests-or-None} and key rows {(table, key): tests}."""
    options, keys = {}, {}
    section = None
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.startswith("## "):
            section = line[3:].strip().lower()
            continue
        if not line.startswith("|") or re.match(r"^\|[-| :]+\|$", line.strip()):
            continue
        cells = md_cells(line)
        if section == "options":
            if cells[0] == "option":  # the header
                continue
            words = frozenset(option_words(cells[0]))
            if not words:
                problem(f"{path}:{n}: no option in {cells[0]!r}")
                continue
            if words in options:
                problem(f"{path}:{n}: {cells[0]} has two rows")
            options[words] = (n, test_names(cells[1]), cells[1])
        elif section == "keys":
            if cells[1] == "key":  # the header
                continue
            key = code(cells[1])
            if key is None:
                problem(f"{path}:{n}: the key cell {cells[1]!r} is not one `code` span")
                continue
            k = (cells[0], key)
            if k in keys:
                problem(f"{path}:{n}: {cells[0]} {key} has two rows")
            keys[k] = (n, test_names(cells[2]), cells[2])
    return options, keys


def ctest_tests(build, source):
    """{name: [its files in tests/]}: its script arguments, or a unit test's sources
    (perftop_unit_test(NAME SOURCES ...) in tests/<area>/CMakeLists.txt; its _asan/_tsan twins
    too)."""
    out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, capture_output=True,
                         text=True, check=True).stdout
    sources = {}
    testdir = os.path.join(source, "tests")
    for area in sorted(os.listdir(testdir)):
        path = os.path.join(testdir, area, "CMakeLists.txt")
        if not os.path.isfile(path):
            continue
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"perftop_unit_test\(\s*(\w+)\s+SOURCES\s+([^)]*?)\s+LIBS", text):
            srcs = [os.path.normpath(os.path.join(
                        testdir, area, s.replace("${CMAKE_CURRENT_SOURCE_DIR}/", "")
                        .replace("${PERFTOP_TESTS_DIR}/", "../"))) for s in m.group(2).split()]
            for suffix in ("", "_asan", "_tsan"):
                sources[m.group(1) + suffix] = srcs
    tests = {}
    # The test's own files are under tests/ (the build directory may be inside the source tree).
    src = os.path.realpath(testdir) + os.sep
    for t in json.loads(out)["tests"]:
        files = [a for a in t.get("command", []) or []
                 if os.path.isfile(a) and os.path.realpath(a).startswith(src)]
        tests[t["name"]] = files + sources.get(t["name"], [])
    return tests


def mentions(path, words):
    text = open(path, encoding="utf-8", errors="replace").read()
    return any(re.search(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", text) for w in words)


def check_tests(where, names, tests):
    ok = []
    for name in names:
        if name in tests:
            ok.append(name)
        else:
            problem(f"{where} names {name}, which ctest does not list")
    return ok


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    perftop, docgen, table, build, source = sys.argv[1:]
    options, keys = read_table(table)
    tests = ctest_tests(build, source)
    if len(tests) < 20:
        sys.exit(f"ctest in {build} lists {len(tests)} tests: not a configured build directory")

    want_options = help_options(perftop)
    if len(want_options) < 20:
        sys.exit(f"perftop --help lists {len(want_options)} options: its format changed?")
    for words in want_options:
        if words not in options:
            problem(f"option {', '.join(sorted(words))} (perftop --help) has no row in {table}")
    for words, (n, names, cell) in options.items():
        label = ", ".join(sorted(words))
        where = f"{table}:{n} ({label})"
        if words not in want_options:
            problem(f"{where}: perftop --help has no such option")
        todo = [w for w in words if w in ALLOWED_TODO]
        if names is None:
            if not todo:
                problem(f"{where}: a TODO where a test belongs ({cell})")
            else:
                print(f"TODO: {label}: {ALLOWED_TODO[todo[0]]}")
            continue
        if todo:
            problem(f"{where}: has a test now; take {todo[0]} out of ALLOWED_TODO")
        if not names:
            problem(f"{where}: names no test")
            continue
        registered = check_tests(where, names, tests)
        if words == {"--"}:
            continue  # every command test passes --; nothing to look for
        said = [t for t in registered if any(mentions(f, words) for f in tests[t])]
        if registered and not said:
            problem(f"{where}: none of {', '.join(registered)} mentions {label} in its files "
                    f"({', '.join(os.path.relpath(f, source) for t in registered for f in tests[t])})")

    want_keys = table_keys(docgen)
    if len(want_keys) < 50:
        sys.exit(f"perftop_docgen keys lists {len(want_keys)} keys: too few to be the tables")
    for k in want_keys:
        if k not in keys:
            problem(f"key {k[1]!r} of the {k[0]} table (perftop_docgen keys) has no row in {table}")
    for k, (n, names, cell) in keys.items():
        where = f"{table}:{n} ({k[0]} {k[1]})"
        if k not in want_keys:
            problem(f"{where}: no key table has this key")
        if not names:
            problem(f"{where}: names no test ({cell})")
            continue
        check_tests(where, names, tests)

    if problems:
        for p in problems:
            print("FAIL:", p)
        sys.exit(1)
    print(f"ok: {len(want_options)} options and {len(want_keys)} keys, each with a row naming "
          f"registered tests")


main()
