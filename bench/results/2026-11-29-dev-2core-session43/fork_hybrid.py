import os, sys, numpy as np, signal
sys.path.insert(0, os.environ.get('HETLU_PYTHON', 'build/python'))
import hetlu
rng = np.random.default_rng(0)
A = rng.standard_normal((1500, 1500)); b = rng.standard_normal(1500)
r = hetlu.solve(A, b, target='hybrid', backend='host'); print('parent', r.backward_error)
pid = os.fork()
if pid == 0:
    signal.alarm(20)
    r = hetlu.solve(A, b, target='hybrid', backend='host')
    print('child', r.backward_error, flush=True)
    os._exit(0)
_, status = os.waitpid(pid, 0); print('child status', status)
