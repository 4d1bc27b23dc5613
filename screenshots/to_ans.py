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
import re
import sys

CP437 = {"—": b"-", "…": b"~", "▼": b"\x1f", "▲": b"\x1e", "─": b"\xc4", "│": b"\xb3",
         "┌": b"\xda", "┐": b"\xbf", "└": b"\xc0", "┘": b"\xd9", "›": b">", "▾": b"\x1f",
         "▸": b"\x10", "▶": b"\x10", "·": b"\xfa", "Δ": b"\x7f", "–": b"-", "×": b"x",
         "▁": b"_", "▂": b"_", "▃": b"\xdc", "▄": b"\xdc", "▅": b"\xdc", "▆": b"\xdb", "▇": b"\xdb",
         "█": b"\xdb"}
SGR = re.compile(r"\x1b\[([0-9;]*)m")


class Pen:
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
            elif p == 1:
                self.bold = True
            elif p == 22:
                self.bold = False
            elif p == 7:
                self.rev = True
            elif p == 27:
                self.rev = False
            elif 30 <= p <= 37 or 90 <= p <= 97:
                self.fg = p % 10
            elif p == 39:
                self.fg = None
            elif 40 <= p <= 47 or 100 <= p <= 107:
                self.bg = p % 10
            elif p == 49:
                self.bg = None
            elif p in (38, 48) and i + 2 < len(ps) and ps[i + 1] == 5:
                v = ps[i + 2] % 8
                if p == 38:
                    self.fg = v
                else:
                    self.bg = v
                i += 2
            i += 1

    def sgr(self):
        fg = 7 if self.fg is None else self.fg
        bg = 0 if self.bg is None else self.bg
        if self.rev:
            fg, bg = bg, fg
        return f"\x1b[0;{'1;' if self.bold else ''}3{fg};4{bg}m".encode()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    cols = int(sys.argv[1])
    pen = Pen()
    data = b""
    for line in sys.stdin.read().split("\n")[:-1]:
        out, width, last = b"", 0, None
        pos = 0
        chunks = []
        for m in SGR.finditer(line):
            chunks.append(line[pos:m.start()])
            chunks.append(m)
            pos = m.end()
        chunks.append(line[pos:])
        for c in chunks:
            if isinstance(c, re.Match):
                pen.apply(c.group(1))
                continue
            for ch in c:
                code = pen.sgr()
                if code != last:
                    out += code
                    last = code
                b = CP437.get(ch, ch.encode() if ord(ch) < 128 else b"?")
                out += b"\xff" if width == 0 and b == b" " else b
                width += 1
        data += out + b"\x1b[0m" + (b"" if width >= cols else b"\r\n")
    sys.stdout.buffer.write(data)


if __name__ == "__main__":
    main()
