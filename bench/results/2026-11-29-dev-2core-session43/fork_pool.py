import numpy as np, multiprocessing as mp, sys, os
sys.path.insert(0, os.environ.get('HETLU_PYTHON', 'build/python'))
import hetlu, hetlu.linalg as L
mode = sys.argv[1]
rng = np.random.default_rng(0)
A = rng.standard_normal((600, 600)); b = rng.standard_normal(600)
if 'parent_hetlu' in mode: L.solve(A, b)
if 'parent_numpy' in mode: np.linalg.solve(A, b)
def work(seed):
    r = np.random.default_rng(seed)
    A = r.standard_normal((400, 400)); b = r.standard_normal(400)
    if 'child_hetlu' in mode: x = L.solve(A, b)
    else: x = np.linalg.solve(A, b)
    return float(np.abs(A @ x - b).max())
if __name__ == '__main__':
    with mp.get_context('fork').Pool(2) as p:
        print(mode, p.map(work, range(2)))
