# hetlu.solve (GEPP) on A whose column n/2 is column n/2 - 1 times (1 + dl i): true rcond about 1e-19.
# Counts the answers wrong in every digit (relative error >= 0.5) given without a warning.
# Usage: PYTHONPATH=<hetlu python folder> python3 near_dependent_scan.py
import warnings
import numpy as np
import hetlu

warnings.simplefilter("ignore")
silent = total = above_eps = 0
eps = np.finfo(float).eps / 2
for seed in range(6):
    for n in (100, 600):
        for dl in (1e-11, 1e-13, 1e-15):
            rng = np.random.default_rng(seed)
            A = rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))
            j = n // 2
            A[:, j] = A[:, j - 1] * (1 + dl * 1j)
            b = np.ones(n, complex)
            r = hetlu.solve(A, b, solver="gepp")
            # the exact x: solve the system with column j replaced by the (exact) difference
            M = A.copy()
            M[:, j] = A[:, j] - A[:, j - 1]
            z = np.linalg.solve(M, b)
            Ml = M.astype(np.clongdouble)
            for _ in range(3):
                z = z + np.linalg.solve(M, (b - Ml @ z).astype(complex))
            x = z.copy()
            x[j - 1] = z[j - 1] - z[j]
            error = np.abs(r.x - x).max() / np.abs(x).max()
            warned = any("singular to working precision" in w for w in r.warnings)
            total += 1
            above_eps += r.rcond >= eps
            silent += error >= 0.5 and not warned
print(f"{total} systems, rcond estimate >= eps on {above_eps}, wrong in every digit without a warning: {silent}")
