#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""cells: a tmux capture with its colours (capture-pane -p -e, with -N for the trailing cells) on
stdin, read as the terminal shows it: each cell's character and the background it is seen on.

tmux writes only the changes of colour and attribute from one cell to the next, across lines too,
so a line's own escapes do not say its colours: this reads the whole capture in order, as a
terminal would. A reversed cell shows its foreground colour as background (the view draws its
coloured backgrounds so: src/ui/term.c).

  cells.py lead BG   the text of each line whose first cell is seen on background BG (0-7: the
                     eight ANSI colours; "default")
  cells.py mark BG   every line's text after "1<tab>" when its first cell is seen on BG, else "0<tab>"
  cells.py rev       the text of each line whose first cell is in reverse video (the cursor's look
                     under NO_COLOR)
  cells.py runs      each line as "ROW: START-END/BG ..." (0-based cells, END excluded), the runs
                     of cells seen on a colour other than the default (one run per colour
                     change), then the line's text after a tab
"""
import re
import sys

SGR = re.compile(r"\x1b\[([0-9;]*)m")


class Pen:
    """The colours and attributes a terminal writes with, changed by SGR sequences (None: the
    default colour)."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = self.bg = None
        self.bold = self.rev = False

    def apply(self, params):
        ps = [int(p) if p else 0 for p in params.split(";")] if params else [0]
        i = 0
        while i < len(ps):
            p = ps[i]
            if p == 0:
                self.reset()
            elif p in (1, 22):
                self.bold = p == 1
            elif p in (7, 27):
                self.rev = p == 7
            elif 30 <= p <= 37 or 90 <= p <= 97:
                self.fg = p % 10
            elif p == 39:
                self.fg = None
            elif 40 <= p <= 47 or 100 <= p <= 107:
                self.bg = p % 10
            elif p == 49:
                self.bg = None
            elif p in (38, 48) and i + 2 < len(ps) and ps[i + 1] == 5:
                v = ps[i + 2] % 8 if ps[i + 2] < 16 else ps[i + 2]
                if p == 38:
                    self.fg = v
                else:
                    self.bg = v
                i += 2
            i += 1

    def look(self):
        return (self.fg, self.bg, self.bold, self.rev)


def seen_bg(look):
    """The background a cell of that look shows: a reversed cell's foreground."""
    fg, bg, _, rev = look
    return fg if rev else bg


def lines(text):
    """Each line of a capture as [(character, (foreground, background, bold, reversed))], the pen
    carried from one line to the next."""
    pen = Pen()
    for raw in text.split("\n"):
        cells, pos = [], 0
        for m in SGR.finditer(raw):
            cells += [(ch, pen.look()) for ch in raw[pos:m.start()]]
            pen.apply(m.group(1))
            pos = m.end()
        cells += [(ch, pen.look()) for ch in raw[pos:]]
        yield cells


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode in ("lead", "mark") and len(sys.argv) == 3:
        want = None if sys.argv[2] == "default" else int(sys.argv[2])
        for cells in lines(sys.stdin.read()):
            text = "".join(c for c, _ in cells)
            on = bool(cells) and seen_bg(cells[0][1]) == want
            if mode == "mark":
                print(f"{int(on)}\t{text}")
            elif on:
                print(text)
    elif mode == "rev" and len(sys.argv) == 2:
        for cells in lines(sys.stdin.read()):
            if cells and cells[0][1][3]:
                print("".join(c for c, _ in cells))
    elif mode == "runs":
        for row, cells in enumerate(lines(sys.stdin.read())):
            bgs = [seen_bg(look) for _, look in cells] + [None]
            runs, start = [], None
            for x, bg in enumerate(bgs):
                if start is not None and bg != bgs[start]:
                    runs.append(f"{start}-{x}/{bgs[start]}")
                    start = None
                if start is None and bg is not None:
                    start = x
            print(f"{row}: {' '.join(runs)}\t{''.join(c for c, _ in cells)}")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
