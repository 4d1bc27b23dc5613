# SPDX-License-Identifier: GPL-2.0-or-later
"""The workload of the Python frames tests: alpha() and beta() run the same inner function, in a
7:3 ratio of work units, for SECS seconds (argv[1], default 4). A unit is 0.5-1 ms (inner over
20,000 numbers), a round of ten 5-10 ms, not a divisor of the sampling period, so samples fall at
every point of a round. The reads that give samples their Python stacks come about every 10 ms by
default, at random points of a round (python/pywatch.c): each is alpha's or beta's in the 7:3 of
their time, and the share is right on average (tests/python/pylib.py: SPLIT_SECS). Prints the
units each ran when done."""
import sys
import time


def inner(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def alpha(units):
    for _ in range(units):
        inner(20000)


def beta(units):
    for _ in range(units):
        inner(20000)


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 4.0
    end = time.monotonic() + secs
    a = b = 0
    while time.monotonic() < end:
        alpha(7)
        beta(3)
        a += 7
        b += 3
    print("units", a, b, flush=True)


if __name__ == "__main__":
    main()
