import sys, resource, numpy as np
sys.path.insert(0, sys.argv[1])
import hetlu.linalg as hl
rng = np.random.default_rng(0)
A = rng.random((1, 100, 100)) + 100 * np.eye(100); b = rng.random((5000, 100))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
x = hl.solve(A, b)
print("peak RSS growth MB: %.0f" % ((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024))
