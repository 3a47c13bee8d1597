import os, sys, time, numpy as np
sys.path.insert(0, sys.argv[1])
import hetlu
rng = np.random.default_rng(0)
A = rng.standard_normal((200, 200)); b = rng.standard_normal(200)
for _ in range(5): hetlu.solve(A, b, solver='calu')
steady, after = [], []
for _ in range(30):
    t = time.perf_counter(); hetlu.solve(A, b, solver='calu'); steady.append(time.perf_counter() - t)
    t0 = time.perf_counter(); pid = os.fork()
    if pid == 0: os._exit(0)
    fork_s = time.perf_counter() - t0
    os.waitpid(pid, 0)
    t = time.perf_counter(); hetlu.solve(A, b, solver='calu'); after.append(time.perf_counter() - t)
print("median solve s: steady %.6f, first after a fork %.6f; ratio %.2f" % (np.median(steady), np.median(after), np.median(after)/np.median(steady)))
