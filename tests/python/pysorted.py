# SPDX-License-Identifier: GPL-2.0-or-later
"""A Python function called back from C: caller() sorts with key=keyfn, so keyfn's Python frames run
in a C call of the eval loop of their own, under the builtin's native frames (sorted, list.sort),
under caller's Python frame. For SECS seconds (argv[1], default 3)."""
import sys
import time


def keyfn(x):
    s = 0
    for i in range(200):
        s += i
    return -x


def caller():
    return sorted(range(3000), key=keyfn)


def main():
    end = time.monotonic() + (float(sys.argv[1]) if len(sys.argv) > 1 else 3.0)
    while time.monotonic() < end:
        caller()


if __name__ == "__main__":
    main()
