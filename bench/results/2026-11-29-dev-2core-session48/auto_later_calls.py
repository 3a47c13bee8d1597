# precision='auto' against the double solver on a matrix mixed precision cannot handle (kappa 1e10,
# geometric singular values), C-ordered, after the first call armed auto's memory: best of 3 each,
# in one process. Run with PYTHONPATH set to the hetlu package under test.
import sys, time, warnings
import numpy as np
import hetlu

warnings.simplefilter("ignore")
DB = "/tmp/auto-later-calls.db"


def geometric(n, kappa, seed=0):
    rng = np.random.default_rng(seed)
    u, _ = np.linalg.qr(rng.standard_normal((n, n)))
    v, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return (u * np.geomspace(1, 1 / kappa, n)) @ v.T


for n in (2000, 4000):
    A = np.ascontiguousarray(geometric(n, 1e10))
    b = A @ np.ones(n)
    hetlu.solve(A, b, precision="auto", db=DB)
    best = {}
    for p in ["auto", None] * 3:
        t0 = time.perf_counter()
        hetlu.solve(A, b, precision=p, solver="gepp", db=DB)
        best[p] = min(best.get(p, 9e9), time.perf_counter() - t0)
    print(n, "auto %.3f double %.3f ratio %.2f" % (best["auto"], best[None], best["auto"] / best[None]))
