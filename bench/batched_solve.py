#!/usr/bin/env python3
"""A NumPy stack of small systems (#14.5): hetlu.linalg.solve against numpy.linalg.solve on the
same (batch, n, n) and (batch, n) arrays, in the same process, round-robin, best of five rounds.

Usage: PYTHONPATH=build/python python3 bench/batched_solve.py [batch, default 10000] [orders..., default 16 64]
"""
import sys
import time

import numpy as np

from hetlu import linalg


def best(run, rounds=5):
    times = []
    for _ in range(rounds + 1):  # the first warms up
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times[1:])


def main():
    batch = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    orders = [int(n) for n in sys.argv[2:]] or [16, 64]
    print(f"{batch} systems per call, one right-hand side each")
    print("| n | hetlu.linalg.solve ms | numpy.linalg.solve ms | speed-up |")
    print("|---|---|---|---|")
    rng = np.random.default_rng(1)
    for n in orders:
        A, b = rng.standard_normal((batch, n, n)), rng.standard_normal((batch, n))
        assert np.allclose(linalg.solve(A, b), np.linalg.solve(A, b))
        ours, theirs = [], []
        for _ in range(5):
            ours.append(best(lambda: linalg.solve(A, b), 1))
            theirs.append(best(lambda: np.linalg.solve(A, b), 1))
        print(f"| {n} | {1e3 * min(ours):.2f} | {1e3 * min(theirs):.2f} | {min(theirs) / min(ours):.2f} |")


if __name__ == "__main__":
    main()
