# rcond of Wilkinson's matrix (GEPP factors grown 2^(n-1)) from the same dgetrf factors: hetlu_dgecon
# of the session's start (LIB_BEFORE), of its end (LIB_AFTER), OpenBLAS's dgecon, and the truth 1/n.
# usage: LIB_BEFORE=... LIB_AFTER=... python3 wilkinson_rcond.py
import ctypes, os, numpy as np
from scipy.linalg import lapack
def gecon(lib):
    f = ctypes.CDLL(lib).hetlu_dgecon
    f.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_double,
                  ctypes.POINTER(ctypes.c_double)]
    def call(lu, piv, anorm):
        r = ctypes.c_double(); ip = (piv + 1).astype(np.int32)
        f(lu.shape[0], lu.ctypes.data, lu.shape[0], ip.ctypes.data, anorm, ctypes.byref(r)); return r.value
    return call
before, after = gecon(os.environ["LIB_BEFORE"]), gecon(os.environ["LIB_AFTER"])
print("| n | before | after | OpenBLAS dgecon | true 1/n |")
print("|---|---|---|---|---|")
for n in (60, 73, 100, 102, 165, 200, 256, 298):
    W = np.eye(n) - np.tril(np.ones((n, n)), -1); W[:, -1] = 1
    lu, piv, info = lapack.dgetrf(W); lu = np.asfortranarray(lu)
    rc, _ = lapack.dgecon(lu, float(n))
    print("| %d | %.3g | %.3g | %.3g | %.3g |" % (n, before(lu, piv, n), after(lu, piv, n), rc, 1.0 / n))
