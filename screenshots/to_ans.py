#!/usr/bin/env python3
"""to_ans: a tmux capture with its colours (capture-pane -p -e -N) on stdin, as the CP437 ANSI file
ansilove draws (screenshots/take.sh, tests/ui/screenshots.sh).

ansilove reads CP437, knows neither UTF-8 nor the default-colour codes, and draws reversed cells
(SGR 7, which the view uses for its coloured backgrounds: src/ui/term.c) in their own colours. So
this reads the capture as a terminal would (tmux writes only the changes from one cell to the next,
across lines too) and writes every run of cells with its colours spelled out: the default ones as
white on black, a reversed cell's two colours swapped. The view's few non-ASCII characters get CP437
look-alikes (the sparkline's eight heights become three), a line that fills the width gets no line
break (ansilove wraps there itself), and a space in the first column becomes CP437's other blank
(ansilove would skip it).

usage: to_ans.py COLUMNS < capture > file.ans"""
import os
import sys

# the capture is read as a terminal shows it by the tests' reader (tests/lib/cells.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lib"))
from cells import lines  # noqa: E402

CP437 = {"—": b"-", "…": b"~", "▼": b"\x1f", "▲": b"\x1e", "─": b"\xc4", "│": b"\xb3",
         "┌": b"\xda", "┐": b"\xbf", "└": b"\xc0", "┘": b"\xd9", "›": b">", "▾": b"\x1f",
         "▸": b"\x10", "▶": b"\x10", "·": b"\xfa", "Δ": b"\x7f", "–": b"-", "×": b"x",
         "▁": b"_", "▂": b"_", "▃": b"\xdc", "▄": b"\xdc", "▅": b"\xdc", "▆": b"\xdb", "▇": b"\xdb",
         "█": b"\xdb"}


def sgr(look):
    """A cell's colours spelled out for ansilove: the default ones white on black, a reversed
    cell's swapped."""
    fg, bg, bold, rev = look
    fg = 7 if fg is None else fg % 8
    bg = 0 if bg is None else bg % 8
    if rev:
        fg, bg = bg, fg
    return f"\x1b[0;{'1;' if bold else ''}3{fg};4{bg}m".encode()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    cols = int(sys.argv[1])
    data = b""
    for cells in list(lines(sys.stdin.read()))[:-1]:
        out, last = b"", None
        for width, (ch, look) in enumerate(cells):
            code = sgr(look)
            if code != last:
                out += code
                last = code
            b = CP437.get(ch, ch.encode() if ord(ch) < 128 else b"?")
            out += b"\xff" if width == 0 and b == b" " else b
        data += out + b"\x1b[0m" + (b"" if len(cells) >= cols else b"\r\n")
    sys.stdout.buffer.write(data)


if __name__ == "__main__":
    main()
