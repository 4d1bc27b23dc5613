#!/usr/bin/env python3
"""cells: a tmux capture with its colours (capture-pane -p -e, with -N for the trailing cells) on
stdin, read as the terminal shows it: each cell's character and the background it is seen on.

tmux writes only the changes of colour and attribute from one cell to the next, across lines too,
so a line's own escapes do not say its colours: this reads the whole capture in order, as a
terminal would. A reversed cell shows its foreground colour as background (the view draws its
coloured backgrounds so: src/ui/term.c).

  cells.py lead BG   the text of each line whose first cell is seen on background BG (0-7: the
                     eight ANSI colours; "default")
  cells.py mark BG   every line's text after "1<tab>" when its first cell is seen on BG, else "0<tab>"
  cells.py runs      each line as "ROW: START-END/BG ..." (0-based cells, END excluded), the runs
                     of cells seen on a colour other than the default (one run per colour
                     change), then the line's text after a tab
"""
import re
import sys

SGR = re.compile(r"\x1b\[([0-9;]*)m")


class State:
    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = self.bg = "default"
        self.rev = False

    def apply(self, params):
        ps = [int(p) if p else 0 for p in params.split(";")] if params else [0]
        i = 0
        while i < len(ps):
            p = ps[i]
            if p == 0:
                self.reset()
            elif p == 7:
                self.rev = True
            elif p == 27:
                self.rev = False
            elif 30 <= p <= 37:
                self.fg = p - 30
            elif 90 <= p <= 97:
                self.fg = p - 90
            elif p == 39:
                self.fg = "default"
            elif 40 <= p <= 47:
                self.bg = p - 40
            elif 100 <= p <= 107:
                self.bg = p - 100
            elif p == 49:
                self.bg = "default"
            elif p in (38, 48) and i + 2 < len(ps) and ps[i + 1] == 5:
                n = ps[i + 2]
                v = n % 8 if n < 16 else n
                if p == 38:
                    self.fg = v
                else:
                    self.bg = v
                i += 2
            i += 1

    def seen_bg(self):
        return self.fg if self.rev else self.bg


def lines():
    """Each line as [(character, background seen)]."""
    st = State()
    for raw in sys.stdin.read().split("\n"):
        cells = []
        pos = 0
        for m in SGR.finditer(raw):
            for ch in raw[pos:m.start()]:
                cells.append((ch, st.seen_bg()))
            st.apply(m.group(1))
            pos = m.end()
        for ch in raw[pos:]:
            cells.append((ch, st.seen_bg()))
        yield cells


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "lead" and len(sys.argv) == 3:
        want = sys.argv[2] if sys.argv[2] == "default" else int(sys.argv[2])
        for cells in lines():
            if cells and cells[0][1] == want:
                print("".join(c for c, _ in cells))
    elif mode == "mark" and len(sys.argv) == 3:
        want = sys.argv[2] if sys.argv[2] == "default" else int(sys.argv[2])
        for cells in lines():
            print(f"{int(bool(cells) and cells[0][1] == want)}\t{''.join(c for c, _ in cells)}")
    elif mode == "runs":
        for row, cells in enumerate(lines()):
            runs, start = [], None
            for x in range(len(cells) + 1):
                bg = cells[x][1] if x < len(cells) else "default"
                if start is not None and bg != cells[start][1]:
                    runs.append(f"{start}-{x}/{cells[start][1]}")
                    start = None
                if start is None and bg != "default" and x < len(cells):
                    start = x
            print(f"{row}: {' '.join(runs)}\t{''.join(c for c, _ in cells)}")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
