#!/usr/bin/env python3
"""Per-call cost of hetlu.linalg.lu_factor, lu_solve and solve against scipy.linalg's (#14.1),
small matrices and past the small-matrix crossover, one call after another, round-robin, best of
five rounds. lu_solve solves with each library's own factors.

Usage: PYTHONPATH=build/python python3 bench/percall_python.py
"""
import timeit

import numpy as np
import scipy.linalg

from hetlu import linalg

print("| n | call | hetlu.linalg us | scipy.linalg us | ratio |")
print("|---|---|---|---|---|")
for n in (1, 4, 16, 64, 256, 512, 1024):
    A = np.random.default_rng(n).standard_normal((n, n)) + n * np.eye(n)
    b = np.ones(n)
    our_factors, their_factors = linalg.lu_factor(A), scipy.linalg.lu_factor(A)
    for name, ours, theirs in (("lu_factor", lambda: linalg.lu_factor(A), lambda: scipy.linalg.lu_factor(A)),
                               ("lu_solve", lambda: linalg.lu_solve(our_factors, b),
                                lambda: scipy.linalg.lu_solve(their_factors, b)),
                               ("solve", lambda: linalg.solve(A, b), lambda: scipy.linalg.solve(A, b))):
        number = 20000 if n <= 16 else 2000 if n <= 64 else 200 if n <= 256 else 40
        best = {"ours": 1e9, "theirs": 1e9}
        for _ in range(5):
            best["ours"] = min(best["ours"], timeit.timeit(ours, number=number) / number)
            best["theirs"] = min(best["theirs"], timeit.timeit(theirs, number=number) / number)
        print(f"| {n} | {name} | {1e6 * best['ours']:.2f} | {1e6 * best['theirs']:.2f} | "
              f"{best['ours'] / best['theirs']:.2f} |")
