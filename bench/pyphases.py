# SPDX-License-Identifier: GPL-2.0-or-later
"""bench/python.sh's staleness workload: phase_a() and phase_b() take turns, each busy for PHASE_MS
(argv[2], default 10) of CLOCK_MONOTONIC, for SECS seconds (argv[1]); the time of every switch
(ns, the clock perf samples carry with perftop's use_clockid) goes to LOG (argv[3]), one a line:
"a START" or "b START"."""
import sys
import time


def busy(until):
    x = 0
    while time.monotonic_ns() < until:
        x += 1
    return x


def phase_a(until):
    return busy(until)


def phase_b(until):
    return busy(until)


def main():
    secs, phase_ns = float(sys.argv[1]), int(float(sys.argv[2]) * 1e6)
    out = []
    end = time.monotonic_ns() + int(secs * 1e9)
    t = time.monotonic_ns()
    while t < end:
        out.append(f"a {t}")
        phase_a(t + phase_ns)
        t = time.monotonic_ns()
        out.append(f"b {t}")
        phase_b(t + phase_ns)
        t = time.monotonic_ns()
    with open(sys.argv[3], "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
