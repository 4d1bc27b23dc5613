"""The workload of the Python frames tests: alpha() and beta() run the same inner function, in a
7:3 ratio of work units, for SECS seconds (argv[1], default 4). Each round is short (a unit is a
few hundred microseconds), so that where a sample's stack was read a few ms late still lands in
the same mix. Prints the units each ran when done."""
import sys
import time


def inner(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def alpha(units):
    for _ in range(units):
        inner(2000)


def beta(units):
    for _ in range(units):
        inner(2000)


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
