# SPDX-License-Identifier: GPL-2.0-or-later
"""ptjson: perftop's JSON snapshots as the tests read them. perftop -b --json writes one snapshot a
line (a JSON object: samples, rows, event, ...) among lines that are not JSON (notices), on standard
output, or on standard error when -o - takes standard output; the tests that read them read them
here, so that a line that starts like a snapshot and does not parse fails the test, with the line,
wherever it is read. Files of other shapes (a workload's figures, pprofcheck's verdicts, the
exports) are read where they are used.

    from ptjson import snapshots, snapshot   (tests/lib on sys.path, as for perfprobe)
"""
import json

from perfprobe import fail


def snapshot(line, what="perftop"):
    """One line of perftop's JSON output, parsed; a line that does not parse fails the test."""
    try:
        return json.loads(line)
    except json.JSONDecodeError as e:
        fail(f"{what}: not JSON: {e}: {line[:200]}")


def snapshots(text, what="perftop"):
    """The snapshots (one a line) of perftop -b --json's output TEXT, in order; the lines that do not
    start with "{" (leading blanks aside) are not snapshots and are left out."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            out.append(snapshot(line, what))
    return out
