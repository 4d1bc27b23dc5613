# SPDX-License-Identifier: GPL-2.0-or-later
"""How stale a sample's Python stack is, measured against the workload's own clock: REC.python (the
Python frames perftop kept beside a recording of bench/pyphases.py) names for each sample phase_a or
phase_b; LOG says which phase the program was in at every nanosecond. A sample whose stack names
the other phase than the one running at its time was read too far from it. Prints the share of
such samples, and how far from a switch they were (a read d ns off the sample is wrong only
within d of a switch: with phases of P ms, the expected share is about 2d/P).

usage: python3 bench/python_staleness.py REC.python LOG"""
import bisect
import sys


def main():
    rec, log = sys.argv[1], sys.argv[2]
    starts, phases = [], []
    for line in open(log):
        p, t = line.split()
        phases.append(p)
        starts.append(int(t))
    funcs, n, wrong, dists = {}, 0, 0, []
    for line in open(rec):
        f = line.rstrip("\n").split(" ", 3)
        if f[0] == "f":
            funcs[f[1]] = f[3]
        elif f[0] == "s":
            f = line.split()
            t = int(f[1])
            names = [funcs[x.split(".")[0]] for x in f[5:]]
            said = "a" if any(x.startswith("phase_a ") for x in names) else \
                   "b" if any(x.startswith("phase_b ") for x in names) else None
            i = bisect.bisect_right(starts, t) - 1
            if said is None or i < 0 or i + 1 >= len(starts):
                continue  # outside the phases (start-up, exit)
            n += 1
            if said != phases[i]:
                wrong += 1
                dists.append(min(t - starts[i], starts[i + 1] - t))
    if not n:
        sys.exit("no sample inside the phases")
    dists.sort()
    med = dists[len(dists) // 2] / 1e6 if dists else 0
    mx = dists[-1] / 1e6 if dists else 0
    print(f"{n} samples in phases; {wrong} ({100.0 * wrong / n:.2f}%) name the other phase; "
          f"those lie {med:.3f} ms (median), {mx:.3f} ms (max) from a switch")


if __name__ == "__main__":
    main()
